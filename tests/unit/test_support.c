/* SPDX-License-Identifier: MIT */
/*
 * tests/support's host check of the work kernel's output: its shortcut (one
 * add an element, from work_input() and work_apply() being affine) must
 * agree with the definition, work_apply(map, work_input(seed, i)) element by
 * element, and must see each kind of wrong output the gpu suite and the
 * ordering benchmark count on it to see. No driver.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support.h"

#define N 4099u /* not a multiple of any vector width */

static const uint32_t seeds[] = {0u, 1u, 7u, 77u, 424242u, 0xffffffffu};
static const uint32_t iters[] = {0u, 1u, 16u, 2048u};

/* out[i] = work_apply(map, work_input(seed, i)), the definition written plainly. */
static void expected(uint32_t *out, uint32_t seed, work_map map)
{
    for (uint32_t i = 0; i < N; i++)
        out[i] = work_apply(map, work_input(seed, i));
}

static void fill_writes_the_definition(void **state)
{
    uint32_t *in = malloc(N * sizeof(*in));

    (void)state;
    assert_non_null(in);
    for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
        gpu_test_fill_input(in, N, seeds[s]);
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(in[i], work_input(seeds[s], i));
    }
    free(in);
}

static void right_output_counts_none(void **state)
{
    uint32_t *out = malloc(N * sizeof(*out));

    (void)state;
    assert_non_null(out);
    for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++)
        for (size_t k = 0; k < sizeof(iters) / sizeof(iters[0]); k++) {
            work_map map = work_map_for(iters[k]);

            expected(out, seeds[s], map);
            assert_int_equal(gpu_test_count_wrong(out, N, seeds[s], map), 0);
        }
    free(out);
}

static void each_kind_of_wrong_output_counts(void **state)
{
    uint32_t *out = malloc((N + 1) * sizeof(*out));
    work_map map = work_map_for(2048);
    const uint32_t seed = 77u;

    (void)state;
    assert_non_null(out);
    /* One element off, wherever it is. */
    for (uint32_t at = 0; at < N; at += 97) {
        expected(out, seed, map);
        out[at] ^= 1u << (at % 32);
        assert_int_equal(gpu_test_count_wrong(out, N, seed, map), 1);
    }
    expected(out, seed, map);
    out[N - 1] += 1;
    assert_int_equal(gpu_test_count_wrong(out, N, seed, map), 1);
    /* Another request's output (the seeds next to this one): every element. */
    expected(out, seed + 1, map);
    assert_int_equal(gpu_test_count_wrong(out, N, seed, map), N);
    expected(out, seed - 1, map);
    assert_int_equal(gpu_test_count_wrong(out, N, seed, map), N);
    /* The right output one element late or early: every element. */
    expected(out + 1, seed, map);
    out[0] = work_apply(map, work_input(seed, 0)) + 1;
    assert_int_equal(gpu_test_count_wrong(out, N, seed, map), N);
    expected(out, seed, map);
    assert_int_equal(gpu_test_count_wrong(out + 1, N - 1, seed, map), N - 1);
    /* The input itself, not worked on (a kernel that did not run): every element. */
    gpu_test_fill_input(out, N, seed);
    assert_int_equal(gpu_test_count_wrong(out, N, seed, map), N);
    /* Memory never written: zeros match at most one element. */
    memset(out, 0, N * sizeof(*out));
    assert_true(gpu_test_count_wrong(out, N, seed, map) >= N - 1);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fill_writes_the_definition),
        cmocka_unit_test(right_output_counts_none),
        cmocka_unit_test(each_kind_of_wrong_output_counts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
