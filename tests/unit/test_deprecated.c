/* SPDX-License-Identifier: MIT */
/*
 * The deprecated names of gpushim/deprecated.h still compile, link and do
 * what the names that replaced them do (CPU only, no driver).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <gpushim/gpushim.h>

/* This file calls the deprecated names on purpose. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wdeprecated-pragma"
#endif

static void old_functions_answer_as_the_new(void **state)
{
    int n = -1, old_v = -1;

    (void)state;
    assert_string_equal(gpu_status_name(GPU_ERR_NO_DRIVER), gpu_status_get_name(GPU_ERR_NO_DRIVER));
    assert_string_equal(gpu_status_str(GPU_ERR_COMPILE), gpu_status_get_description(GPU_ERR_COMPILE));
    assert_string_equal(gpu_load_stage_name(GPU_LOAD_READY), gpu_load_stage_get_name(GPU_LOAD_READY));
    assert_string_equal(gpu_cuda_result_name(2), gpu_cuda_result_get_name(2));

    /* Through the old names, the same failure, and the same thread's record of it. */
    assert_int_equal(gpu_device_count(&n), GPU_ERR_NO_DRIVER);
    assert_int_equal(n, -1);
    assert_string_equal(gpu_last_error(), gpu_last_error_get_message());
    assert_true(strlen(gpu_last_error()) > 0);
    assert_int_equal(gpu_last_cuda_result(), gpu_last_error_get_cuda_result());
    assert_int_equal(gpu_driver_version(NULL), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_driver_version(&old_v), GPU_ERR_NO_DRIVER);
    assert_ptr_equal(gpu_driver_report(), gpu_driver_get_report());

    assert_int_equal(gpu_stream_create_flags("1"), GPU_STREAM_NON_BLOCKING);
    assert_int_equal(gpu_stream_create_flags("true"), GPU_STREAM_DEFAULT);
    assert_int_equal(gpu_stream_create_flags(NULL), GPU_STREAM_DEFAULT);
}

static void old_macros_are_the_new_values(void **state)
{
    (void)state;
    assert_int_equal(GPU_FUNCTION_NUM_REGS, GPU_FUNCTION_ATTR_NUM_REGS);
    assert_int_equal(GPU_FUNCTION_PREFERRED_SHARED_CARVEOUT, GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT);
    assert_ptr_equal(GPU_DEFAULT_STREAM, GPU_DEVICE0_LEGACY_STREAM);
    /* aprender-gpu's variable, which gpu_stream_create() still reads where gpushim's is unset. */
    assert_string_equal(GPU_STREAM_NONBLOCKING_ENV_APRENDER, "APR_STREAM_NONBLOCKING");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(old_functions_answer_as_the_new),
        cmocka_unit_test(old_macros_are_the_new_values),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
