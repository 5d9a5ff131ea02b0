/* SPDX-License-Identifier: MIT */
/*
 * The deprecated names of gpushim/deprecated.h (CPU only, no driver): the
 * compatibility names of aprender-gpu, which gpushim's stream module comes from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <gpushim/gpushim.h>

static void aprender_names_stay(void **state)
{
    (void)state;
    /* aprender-gpu's variable, which gpu_stream_create() still reads where gpushim's is unset. */
    assert_string_equal(GPU_STREAM_NONBLOCKING_ENV_APRENDER, "APR_STREAM_NONBLOCKING");
    assert_string_equal(GPU_STREAM_NONBLOCKING_ENV, "GPUSHIM_STREAM_NONBLOCKING");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aprender_names_stay),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
