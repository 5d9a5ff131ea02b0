/* SPDX-License-Identifier: MIT */
/*
 * The ordering default at the flag level (the race aprender-gpu measured).
 * These cannot see a race (tests/gpu does); they pin that the default is
 * ordered and that the racy mode is opt-in, on a host with no CUDA at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "private.h"

static void default_stream_flag_is_legacy_ordered(void **state)
{
    (void)state;
    /* Unset => ordered: legacy copies stay ordered against kernels. */
    assert_int_equal(gpu__stream_flags_from_env(NULL), GPU_STREAM_DEFAULT);
}

static void nonblocking_is_opt_in_only(void **state)
{
    static const char *const not_one[] = {"0", "", "true", "yes", "on", "TRUE", "2", "1 ", " 1", "01", "1\n"};

    (void)state;
    assert_int_equal(gpu__stream_flags_from_env("1"), GPU_STREAM_NON_BLOCKING);
    /* A truthy-looking value is the classic way an opt-in knob turns itself back on. */
    for (size_t i = 0; i < sizeof(not_one) / sizeof(not_one[0]); i++) {
        if (gpu__stream_flags_from_env(not_one[i]) != GPU_STREAM_DEFAULT)
            fail_msg(GPU_STREAM_NONBLOCKING_ENV "=\"%s\" must not select the racy non-blocking path", not_one[i]);
    }
}

static void the_two_flags_actually_differ(void **state)
{
    (void)state;
    /* Without this, both tests above would pass on a tree where the escape hatch does nothing. */
    assert_int_not_equal(GPU_STREAM_DEFAULT, GPU_STREAM_NON_BLOCKING);
    assert_int_equal(GPU_STREAM_DEFAULT, 0);
    /* And the values are CUDA's own (CU_STREAM_DEFAULT, CU_STREAM_NON_BLOCKING). */
    assert_int_equal(GPU_STREAM_NON_BLOCKING, 1);
}

static void default_stream_is_null(void **state)
{
    (void)state;
    assert_null(GPU_DEVICE0_LEGACY_STREAM);
    assert_null(gpu_stream_get_raw(GPU_DEVICE0_LEGACY_STREAM));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_stream_flag_is_legacy_ordered),
        cmocka_unit_test(nonblocking_is_opt_in_only),
        cmocka_unit_test(the_two_flags_actually_differ),
        cmocka_unit_test(default_stream_is_null),
    };

    return cmocka_run_group_tests_name("flags", tests, NULL, NULL);
}
