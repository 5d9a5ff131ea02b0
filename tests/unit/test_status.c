/* SPDX-License-Identifier: MIT */
/*
 * Status names and sentences, CUresult names without a driver, launch
 * configuration checks: everything that needs no driver at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <gpushim/gpushim.h>

static void every_status_has_a_distinct_name_and_sentence(void **state)
{
    static const char *const expected[] = {
#define NAME(name, text) #name,
        GPU_STATUS_LIST(NAME)
#undef NAME
    };

    (void)state;
    assert_int_equal(sizeof(expected) / sizeof(expected[0]), GPU_STATUS_COUNT_);
    for (int i = 0; i < GPU_STATUS_COUNT_; i++) {
        const char *name = gpu_status_get_name((gpu_status)i);
        const char *text = gpu_status_get_description((gpu_status)i);

        assert_string_equal(name, expected[i]);
        assert_true(strlen(text) > 5);
        for (int j = 0; j < i; j++) {
            assert_string_not_equal(name, gpu_status_get_name((gpu_status)j));
            assert_string_not_equal(text, gpu_status_get_description((gpu_status)j));
        }
    }
    assert_int_equal(GPU_OK, 0);
    assert_string_equal(gpu_status_get_name(GPU_ERR_NO_DRIVER), "GPU_ERR_NO_DRIVER");
}

static void unknown_status_is_named_as_such(void **state)
{
    (void)state;
    assert_string_equal(gpu_status_get_name(GPU_STATUS_COUNT_), "GPU_STATUS_UNKNOWN");
    assert_string_equal(gpu_status_get_name((gpu_status)-1), "GPU_STATUS_UNKNOWN");
    assert_string_equal(gpu_status_get_description((gpu_status)12345), "unknown status");
}

static void cuda_results_are_named_without_a_driver(void **state)
{
    (void)state;
    assert_string_equal(gpu_cuda_result_get_name(0), "CUDA_SUCCESS");
    assert_string_equal(gpu_cuda_result_get_name(201), "CUDA_ERROR_INVALID_CONTEXT");
    assert_string_equal(gpu_cuda_result_get_name(600), "CUDA_ERROR_NOT_READY");
    assert_string_equal(gpu_cuda_result_get_name(901), "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
    assert_string_equal(gpu_cuda_result_get_name(906), "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
    assert_string_equal(gpu_cuda_result_get_name(34), "CUDA_ERROR_STUB_LIBRARY");
    assert_string_equal(gpu_cuda_result_get_name(999), "CUDA_ERROR_UNKNOWN");
    assert_string_equal(gpu_cuda_result_get_name(4242), "CUDA_ERROR_UNRECOGNIZED");
    assert_string_equal(gpu_cuda_result_get_name(-1), "CUDA_ERROR_UNRECOGNIZED");
    /* Naming a result must not load the driver. */
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
}

static void launch_configs_are_checked(void **state)
{
    gpu_launch_config ok = gpu_launch_config_1d(4, 256);
    gpu_launch_config c;

    (void)state;
    assert_int_equal(ok.grid[0], 4);
    assert_int_equal(ok.grid[1], 1);
    assert_int_equal(ok.block[0], 256);
    assert_int_equal(ok.block[2], 1);
    assert_int_equal(ok.shared_mem_bytes, 0);
    assert_int_equal(gpu_launch_config_check(&ok), GPU_OK);

    c = ok;
    c.block[0] = 1024;
    assert_int_equal(gpu_launch_config_check(&c), GPU_OK);
    c.block[0] = 1025;
    assert_int_equal(gpu_launch_config_check(&c), GPU_ERR_INVALID_ARG);
    assert_non_null(strstr(gpu_last_error_get_message(), "block x"));
    c = ok;
    c.block[0] = 32;
    c.block[1] = 33; /* 1056 threads */
    assert_int_equal(gpu_launch_config_check(&c), GPU_ERR_INVALID_ARG);
    assert_non_null(strstr(gpu_last_error_get_message(), "1056 threads"));
    c = ok;
    c.block[2] = 65;
    assert_int_equal(gpu_launch_config_check(&c), GPU_ERR_INVALID_ARG);
    for (int axis = 0; axis < 3; axis++) {
        c = ok;
        c.grid[axis] = 0;
        assert_int_equal(gpu_launch_config_check(&c), GPU_ERR_INVALID_ARG);
        assert_non_null(strstr(gpu_last_error_get_message(), "is 0"));
        c = ok;
        c.block[axis] = 0;
        assert_int_equal(gpu_launch_config_check(&c), GPU_ERR_INVALID_ARG);
    }
    c = ok;
    c.grid[1] = 65536;
    assert_int_equal(gpu_launch_config_check(&c), GPU_ERR_INVALID_ARG);
    c = ok;
    c.grid[0] = 2147483647u;
    assert_int_equal(gpu_launch_config_check(&c), GPU_OK);
    c.grid[0] = 2147483648u;
    assert_int_equal(gpu_launch_config_check(&c), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_launch_config_check(NULL), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_last_error_get_cuda_result(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_status_has_a_distinct_name_and_sentence),
        cmocka_unit_test(unknown_status_is_named_as_such),
        cmocka_unit_test(cuda_results_are_named_without_a_driver),
        cmocka_unit_test(launch_configs_are_checked),
    };

    return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
