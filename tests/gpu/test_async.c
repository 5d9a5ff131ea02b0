/* SPDX-License-Identifier: MIT */
/*
 * Stream-ordered copies and page-locked host memory: gpu_host_buffer_create,
 * gpu_host_buffer_register, the three _async copies, gpu_stream_is_complete and
 * gpu_stream_launch_host_func. Every check is by data: what came back, and
 * what a host function saw when it ran.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { N = 1 << 18, ITERS = 100 };
#define BYTES ((size_t)N * sizeof(uint32_t))

/* in -> d_in -> work -> d_out -> d_copy -> out, all on one non-blocking stream. */
static void round_trip(uint32_t *in, uint32_t *out, uint32_t seed)
{
    gpu_stream *s;
    gpu_buffer *d_in, *d_out, *d_copy;

    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &d_in));
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &d_out));
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &d_copy));
    gpu_test_fill_input(in, N, seed);
    memset(out, 0, BYTES);
    assert_gpu_ok(gpu_buffer_copy_from_host_async(d_in, in, BYTES, s));
    assert_gpu_ok(gpu_test_launch_work(s, d_in, d_out, N, ITERS));
    assert_gpu_ok(gpu_buffer_copy_async(d_copy, d_out, BYTES, s));
    assert_gpu_ok(gpu_buffer_copy_to_host_async(d_copy, out, BYTES, s));
    assert_gpu_ok(gpu_stream_synchronize(s));
    assert_int_equal(gpu_test_count_wrong(out, N, seed, work_map_for(ITERS)), 0);
    /* Too many bytes is refused before the driver is asked. */
    assert_gpu_status(gpu_buffer_copy_to_host_async(d_copy, out, BYTES + 4, s), GPU_ERR_INVALID_ARG);
    assert_gpu_status(gpu_buffer_copy_async(d_copy, d_out, BYTES + 4, s), GPU_ERR_INVALID_ARG);
    gpu_buffer_destroy(d_copy);
    gpu_buffer_destroy(d_out);
    gpu_buffer_destroy(d_in);
    gpu_stream_destroy(s);
}

static void pinned_round_trip(void **state)
{
    gpu_host_buffer *in, *out;

    (void)state;
    assert_gpu_ok(gpu_host_buffer_create(NULL, BYTES, &in));
    assert_gpu_ok(gpu_host_buffer_create(NULL, BYTES, &out));
    assert_non_null(gpu_host_buffer_get_data(in));
    assert_int_equal(gpu_host_buffer_get_size(in), BYTES);
    round_trip(gpu_host_buffer_get_data(in), gpu_host_buffer_get_data(out), 11u);
    gpu_host_buffer_destroy(in);
    gpu_host_buffer_destroy(out);
    printf("ASYNC pinned round trip: %zu bytes in, work, device copy, out: correct\n", BYTES);
}

static void registered_round_trip(void **state)
{
    uint32_t *in = aligned_alloc(4096, BYTES);
    uint32_t *out = aligned_alloc(4096, BYTES);
    gpu_host_buffer *hin, *hout, *again = NULL;

    (void)state;
    assert_non_null(in);
    assert_non_null(out);
    assert_gpu_ok(gpu_host_buffer_register(NULL, in, BYTES, &hin));
    assert_gpu_ok(gpu_host_buffer_register(NULL, out, BYTES, &hout));
    assert_ptr_equal(gpu_host_buffer_get_data(hin), in);
    assert_int_equal(gpu_host_buffer_get_size(hin), BYTES);
    assert_gpu_status(gpu_host_buffer_register(NULL, in, BYTES, &again), GPU_ERR_INVALID_ARG);
    assert_null(again);
    round_trip(in, out, 12u);
    gpu_host_buffer_destroy(hin);
    gpu_host_buffer_destroy(hout);
    /* Destroying unregistered the memory: it can be registered again. */
    assert_gpu_ok(gpu_host_buffer_register(NULL, in, BYTES, &again));
    gpu_host_buffer_destroy(again);
    free(in);
    free(out);
    printf("ASYNC registered round trip: correct; double registration refused; re-registration after destroy ok\n");
}

static void query_while_kernel_runs(void **state)
{
    gpu_stream *s;
    bool idle = true;

    (void)state;
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_stream_is_complete(s, &idle));
    assert_true(idle);
    assert_gpu_ok(gpu_test_launch_spin(s, (uint64_t)gpu_test_env("GPUSHIM_SPIN_MS", 100) * 1000000u));
    assert_gpu_ok(gpu_stream_is_complete(s, &idle));
    assert_false(idle);
    assert_gpu_ok(gpu_stream_synchronize(s));
    assert_gpu_ok(gpu_stream_is_complete(s, &idle));
    assert_true(idle);
    printf("ASYNC stream_query: idle before, busy during a spin, idle after\n");
}

struct host_seen {
    const uint32_t *out;
    atomic_uint order;   /* shared sequence across callbacks */
    unsigned first_at;   /* the sequence number each callback got */
    unsigned second_at;
    uint32_t first_word;
    uint32_t last_word;
    atomic_int runs;
};

static void first_callback(void *arg)
{
    struct host_seen *seen = arg;

    seen->first_word = seen->out[0];
    seen->last_word = seen->out[N - 1];
    seen->first_at = atomic_fetch_add(&seen->order, 1);
    atomic_fetch_add(&seen->runs, 1);
}

static void second_callback(void *arg)
{
    struct host_seen *seen = arg;

    seen->second_at = atomic_fetch_add(&seen->order, 1);
    atomic_fetch_add(&seen->runs, 1);
}

static void host_func_runs_after_work(void **state)
{
    struct host_seen seen;
    gpu_stream *s;
    gpu_buffer *d;
    gpu_host_buffer *h;
    uint32_t value = 0xc0ffee00u;

    (void)state;
    memset(&seen, 0, sizeof(seen));
    atomic_init(&seen.order, 1);
    atomic_init(&seen.runs, 0);
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &d));
    assert_gpu_ok(gpu_host_buffer_create(NULL, BYTES, &h));
    memset(gpu_host_buffer_get_data(h), 0, BYTES);
    seen.out = gpu_host_buffer_get_data(h);
    /* The spin makes a callback that ignored the stream's order see zeros. */
    assert_gpu_ok(gpu_test_launch_spin(s, (uint64_t)gpu_test_env("GPUSHIM_SPIN_MS", 100) * 500000u));
    assert_gpu_ok(gpu_test_launch_fill(s, d, value, N));
    assert_gpu_ok(gpu_buffer_copy_to_host_async(d, gpu_host_buffer_get_data(h), BYTES, s));
    assert_gpu_ok(gpu_stream_launch_host_func(s, first_callback, &seen));
    assert_gpu_ok(gpu_stream_launch_host_func(s, second_callback, &seen));
    assert_gpu_ok(gpu_stream_synchronize(s));
    printf("ASYNC host_func: runs=%d saw first=0x%08x last=0x%08x (expected 0x%08x) order=%u,%u\n",
           atomic_load(&seen.runs), seen.first_word, seen.last_word, value, seen.first_at, seen.second_at);
    assert_int_equal(atomic_load(&seen.runs), 2);
    assert_int_equal(seen.first_word, value);
    assert_int_equal(seen.last_word, value);
    assert_true(seen.first_at < seen.second_at);
    assert_gpu_status(gpu_stream_launch_host_func(s, NULL, NULL), GPU_ERR_INVALID_ARG);
    gpu_host_buffer_destroy(h);
    gpu_buffer_destroy(d);
    gpu_stream_destroy(s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pinned_round_trip),
        cmocka_unit_test(registered_round_trip),
        cmocka_unit_test(query_while_kernel_runs),
        cmocka_unit_test(host_func_runs_after_work),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-async");

    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
