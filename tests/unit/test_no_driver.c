/* SPDX-License-Identifier: MIT */
/*
 * With no usable driver, every call that needs one returns GPU_ERR_NO_DRIVER
 * and says why; argument errors come first as GPU_ERR_INVALID_ARG; out
 * pointers are never touched; destroy(NULL) and the accessors are safe.
 *
 * argv[1] names the situation meson set up through GPUSHIM_LIBCUDA:
 *   missing   a path that does not exist
 *   notcuda   a shared library that is not a CUDA driver
 *   relative  a relative path, which gpushim refuses
 *   stub      the CUDA toolkit's stub libcuda.so
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpushim/gpushim.h>

static const char *mode;
static const char *libcuda;

/* What gpu_last_error_get_message() must say, and which stage, in this situation. */
static const char *expected_reason(void)
{
    if (strcmp(mode, "missing") == 0)
        return "No such file or directory";
    if (strcmp(mode, "notcuda") == 0)
        return "is not a CUDA driver: it exports no cuInit";
    if (strcmp(mode, "relative") == 0)
        return "is not an absolute path";
    return "CUDA_ERROR_STUB_LIBRARY";
}

static gpu_load_stage expected_stage(void)
{
    if (strcmp(mode, "notcuda") == 0)
        return GPU_LOAD_RESOLVE;
    if (strcmp(mode, "stub") == 0)
        return GPU_LOAD_INIT;
    return GPU_LOAD_OPEN;
}

#define assert_no_driver(call) \
    do { \
        assert_int_equal((call), GPU_ERR_NO_DRIVER); \
        assert_non_null(strstr(gpu_last_error_get_message(), libcuda)); \
        assert_non_null(strstr(gpu_last_error_get_message(), expected_reason())); \
    } while (0)

#define assert_invalid(call) \
    do { \
        assert_int_equal((call), GPU_ERR_INVALID_ARG); \
        assert_int_equal(gpu_last_error_get_cuda_result(), 0); \
        assert_true(strlen(gpu_last_error_get_message()) > 0); \
    } while (0)

static void report_before_any_call_says_not_started(void **state)
{
    (void)state;
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
    assert_string_equal(gpu_last_error_get_message(), "");
    assert_int_equal(gpu_last_error_get_cuda_result(), 0);
    /* Argument errors need no driver, and do not load it. */
    assert_invalid(gpu_driver_get_version(NULL));
    assert_invalid(gpu_context_retain_primary(0, NULL));
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
}

static void driver_calls_say_why(void **state)
{
    const gpu_load_report *r;
    int value = 12345;

    (void)state;
    assert_no_driver(gpu_driver_load());
    assert_int_equal(gpu_last_error_get_cuda_result(), strcmp(mode, "stub") == 0 ? 34 : 0);
    assert_no_driver(gpu_driver_get_version(&value));
    assert_no_driver(gpu_device_get_count(&value));
    assert_int_equal(value, 12345);

    r = gpu_driver_get_report();
    assert_int_equal(r->stage, expected_stage());
    assert_non_null(strstr(r->message, expected_reason()));
    assert_int_equal(r->abi_version, GPU_CUDA_ABI_VERSION);
    assert_int_equal(r->driver_version, 0);
    assert_int_equal(r->entry_count, 0);
    assert_int_equal(r->attempt_count, 1);
    assert_string_equal(r->attempts[0].path, libcuda);
    if (expected_stage() == GPU_LOAD_OPEN) {
        assert_non_null(r->attempts[0].error);
        assert_null(r->file);
    } else {
        assert_null(r->attempts[0].error);
        assert_non_null(r->file);
    }
    assert_string_equal(gpu_load_stage_get_name(r->stage),
                        expected_stage() == GPU_LOAD_OPEN ? "open" : expected_stage() == GPU_LOAD_INIT ? "init" : "resolve");
}

static void device_calls(void **state)
{
    gpu_device_info info;
    bool flag = true;

    (void)state;
    memset(&info, 0x5a, sizeof(info));
    assert_no_driver(gpu_device_get_info(0, &info));
    assert_int_equal(((unsigned char *)&info)[0], 0x5a);
    assert_invalid(gpu_device_get_info(0, NULL));
    assert_invalid(gpu_device_get_info(-1, &info));
    assert_no_driver(gpu_device_can_access_peer(0, 1, &flag));
    assert_true(flag);
    assert_invalid(gpu_device_can_access_peer(0, 1, NULL));
    assert_invalid(gpu_device_can_access_peer(-1, 0, &flag));
    assert_invalid(gpu_device_get_count(NULL));
}

static void context_calls(void **state)
{
    gpu_context *sentinel = (gpu_context *)(uintptr_t)0x1234;
    gpu_context *ctx = sentinel;

    (void)state;
    assert_no_driver(gpu_context_retain_primary(0, &ctx));
    assert_ptr_equal(ctx, sentinel);
    assert_invalid(gpu_context_retain_primary(-1, &ctx));
    assert_ptr_equal(ctx, sentinel);
    assert_no_driver(gpu_context_synchronize(NULL));
    assert_invalid(gpu_context_enable_peer_access(NULL, NULL));
    gpu_context_destroy(NULL);
    assert_int_equal(gpu_context_get_device(NULL), -1);
    assert_null(gpu_context_get_raw(NULL));
}

static void host_fn(void *user_data)
{
    (void)user_data;
}

static void stream_calls(void **state)
{
    gpu_stream *sentinel = (gpu_stream *)(uintptr_t)0x1234;
    gpu_stream *s = sentinel;
    bool flag = true;

    (void)state;
    assert_no_driver(gpu_stream_create(NULL, &s));
    assert_no_driver(gpu_stream_create_non_blocking(NULL, &s));
    assert_no_driver(gpu_stream_create_with_flags(NULL, GPU_STREAM_NON_BLOCKING, &s));
    assert_ptr_equal(s, sentinel);
    assert_invalid(gpu_stream_create(NULL, NULL));
    assert_invalid(gpu_stream_create_non_blocking(NULL, NULL));
    assert_invalid(gpu_stream_create_with_flags(NULL, 0x8, &s));
    assert_ptr_equal(s, sentinel);

    assert_no_driver(gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM));
    assert_no_driver(gpu_stream_is_complete(GPU_DEVICE0_LEGACY_STREAM, &flag));
    assert_true(flag);
    assert_invalid(gpu_stream_is_complete(GPU_DEVICE0_LEGACY_STREAM, NULL));
    assert_no_driver(gpu_buffer_copy_device_ptr(GPU_DEVICE0_LEGACY_STREAM, 0x1000, 0x2000, 16));
    assert_invalid(gpu_buffer_copy_device_ptr(GPU_DEVICE0_LEGACY_STREAM, 0, 0x2000, 16));
    assert_no_driver(gpu_stream_launch_host_func(GPU_DEVICE0_LEGACY_STREAM, host_fn, NULL));
    assert_invalid(gpu_stream_launch_host_func(GPU_DEVICE0_LEGACY_STREAM, NULL, NULL));
    assert_invalid(gpu_stream_record_event(GPU_DEVICE0_LEGACY_STREAM, NULL));
    assert_invalid(gpu_stream_wait_event(GPU_DEVICE0_LEGACY_STREAM, NULL));
    gpu_stream_destroy(NULL);
    assert_int_equal(gpu_stream_get_flags(NULL), GPU_STREAM_DEFAULT);
    assert_null(gpu_stream_get_context(NULL));
}

static void event_calls(void **state)
{
    gpu_event *sentinel = (gpu_event *)(uintptr_t)0x1234;
    gpu_event *e = sentinel;
    bool flag = true;
    float ms = 1.5f;

    (void)state;
    assert_no_driver(gpu_event_create(NULL, &e));
    assert_no_driver(gpu_event_create_timed(NULL, &e));
    assert_ptr_equal(e, sentinel);
    assert_invalid(gpu_event_create(NULL, NULL));
    assert_invalid(gpu_event_create_timed(NULL, NULL));
    assert_invalid(gpu_event_is_complete(NULL, &flag));
    assert_invalid(gpu_event_synchronize(NULL));
    assert_invalid(gpu_event_get_elapsed_ms(NULL, NULL, &ms));
    assert_true(flag);
    assert_true(ms == 1.5f);
    gpu_event_destroy(NULL);
    assert_null(gpu_event_get_raw(NULL));
}

static void graph_calls(void **state)
{
    gpu_graph *g = (gpu_graph *)(uintptr_t)0x1234;
    gpu_graph_exec *x = (gpu_graph_exec *)(uintptr_t)0x5678;
    bool flag = true;

    (void)state;
    assert_invalid(gpu_stream_begin_capture(GPU_DEVICE0_LEGACY_STREAM, GPU_CAPTURE_MODE_GLOBAL));
    assert_non_null(strstr(gpu_last_error_get_message(), "legacy default stream cannot be captured"));
    assert_invalid(gpu_stream_begin_capture(GPU_DEVICE0_LEGACY_STREAM, (gpu_capture_mode)7));
    assert_invalid(gpu_stream_end_capture(GPU_DEVICE0_LEGACY_STREAM, &g));
    assert_invalid(gpu_stream_end_capture(GPU_DEVICE0_LEGACY_STREAM, NULL));
    assert_no_driver(gpu_stream_is_capturing(GPU_DEVICE0_LEGACY_STREAM, &flag));
    assert_true(flag);
    assert_invalid(gpu_stream_is_capturing(GPU_DEVICE0_LEGACY_STREAM, NULL));
    assert_invalid(gpu_graph_instantiate(NULL, &x));
    assert_invalid(gpu_stream_launch_graph(GPU_DEVICE0_LEGACY_STREAM, NULL));
    assert_ptr_equal(g, (gpu_graph *)(uintptr_t)0x1234);
    assert_ptr_equal(x, (gpu_graph_exec *)(uintptr_t)0x5678);
    gpu_graph_destroy(NULL);
    gpu_graph_exec_destroy(NULL);
}

static void module_calls(void **state)
{
    static const char ptx[] = ".version 6.0\n.target sm_50\n.address_size 64\n";
    gpu_module *m = (gpu_module *)(uintptr_t)0x1234;
    gpu_function *f = (gpu_function *)(uintptr_t)0x5678;
    gpu_launch_config cfg = gpu_launch_config_1d(1, 32);
    gpu_launch_config bad = gpu_launch_config_1d(1, 2048);

    (void)state;
    assert_no_driver(gpu_module_load_data(NULL, ptx, sizeof(ptx) - 1, &m));
    assert_no_driver(gpu_module_load_file(NULL, "/nonexistent/kernels.ptx", &m));
    assert_invalid(gpu_module_load_data(NULL, NULL, 10, &m));
    assert_invalid(gpu_module_load_data(NULL, ptx, 0, &m));
    assert_invalid(gpu_module_load_data(NULL, ptx, sizeof(ptx), NULL));
    assert_invalid(gpu_module_load_file(NULL, NULL, &m));
    assert_invalid(gpu_module_load_file(NULL, "/x", NULL));
    assert_ptr_equal(m, (gpu_module *)(uintptr_t)0x1234);
    assert_invalid(gpu_module_get_function(NULL, "k", &f));
    assert_ptr_equal(f, (gpu_function *)(uintptr_t)0x5678);
    assert_invalid(gpu_stream_launch_kernel(GPU_DEVICE0_LEGACY_STREAM, NULL, "k", &cfg, NULL));
    assert_invalid(gpu_stream_launch_function(GPU_DEVICE0_LEGACY_STREAM, NULL, &cfg, NULL));
    /* An impossible configuration is refused before anything else looks at the function. */
    assert_invalid(gpu_stream_launch_function(GPU_DEVICE0_LEGACY_STREAM, f, &bad, NULL));
    assert_non_null(strstr(gpu_last_error_get_message(), "2048"));
    assert_invalid(gpu_stream_launch_function(GPU_DEVICE0_LEGACY_STREAM, f, NULL, NULL));
    gpu_module_destroy(NULL);
    assert_null(gpu_function_get_raw(NULL));
}

static void buffer_calls(void **state)
{
    gpu_buffer *b = (gpu_buffer *)(uintptr_t)0x1234;
    gpu_host_buffer *h = (gpu_host_buffer *)(uintptr_t)0x5678;
    char host[16] = {0};

    (void)state;
    assert_no_driver(gpu_buffer_create(NULL, 16, &b));
    assert_invalid(gpu_buffer_create(NULL, 0, &b));
    assert_invalid(gpu_buffer_create(NULL, 16, NULL));
    assert_ptr_equal(b, (gpu_buffer *)(uintptr_t)0x1234);
    assert_invalid(gpu_buffer_copy_from_host(NULL, host, sizeof(host)));
    assert_invalid(gpu_buffer_copy_to_host(NULL, host, sizeof(host)));
    assert_invalid(gpu_buffer_copy_from_host_async(NULL, host, sizeof(host), GPU_DEVICE0_LEGACY_STREAM));
    assert_invalid(gpu_buffer_copy_to_host_async(NULL, host, sizeof(host), GPU_DEVICE0_LEGACY_STREAM));
    assert_invalid(gpu_buffer_copy_async(NULL, NULL, 16, GPU_DEVICE0_LEGACY_STREAM));
    assert_no_driver(gpu_host_buffer_create(NULL, 16, &h));
    assert_no_driver(gpu_host_buffer_register(NULL, host, sizeof(host), &h));
    assert_invalid(gpu_host_buffer_create(NULL, 0, &h));
    assert_invalid(gpu_host_buffer_create(NULL, 16, NULL));
    assert_invalid(gpu_host_buffer_register(NULL, NULL, 16, &h));
    assert_invalid(gpu_host_buffer_register(NULL, host, 0, &h));
    assert_ptr_equal(h, (gpu_host_buffer *)(uintptr_t)0x5678);
    gpu_buffer_destroy(NULL);
    gpu_host_buffer_destroy(NULL);
    assert_int_equal(gpu_buffer_get_device_ptr(NULL), 0);
    assert_int_equal(gpu_buffer_get_size(NULL), 0);
    assert_null(gpu_buffer_get_context(NULL));
    assert_null(gpu_host_buffer_get_data(NULL));
    assert_int_equal(gpu_host_buffer_get_size(NULL), 0);
}

static void *other_thread(void *arg)
{
    const char **seen = arg;
    int value;

    seen[0] = strlen(gpu_last_error_get_message()) == 0 ? "empty" : "inherited";
    seen[1] = gpu_device_get_count(&value) == GPU_ERR_NO_DRIVER && strstr(gpu_last_error_get_message(), libcuda) ? "no driver" : "wrong";
    return NULL;
}

static void errors_belong_to_their_thread(void **state)
{
    const char *seen[2] = {NULL, NULL};
    pthread_t t;

    (void)state;
    assert_invalid(gpu_buffer_create(NULL, 0, NULL));
    assert_int_equal(pthread_create(&t, NULL, other_thread, seen), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_string_equal(seen[0], "empty");
    assert_string_equal(seen[1], "no driver");
    /* This thread's error is still its own. */
    assert_non_null(strstr(gpu_last_error_get_message(), "out is NULL"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_before_any_call_says_not_started),
        cmocka_unit_test(driver_calls_say_why),
        cmocka_unit_test(device_calls),
        cmocka_unit_test(context_calls),
        cmocka_unit_test(stream_calls),
        cmocka_unit_test(event_calls),
        cmocka_unit_test(graph_calls),
        cmocka_unit_test(module_calls),
        cmocka_unit_test(buffer_calls),
        cmocka_unit_test(errors_belong_to_their_thread),
    };

    libcuda = getenv("GPUSHIM_LIBCUDA");
    if (argc != 2 || !libcuda) {
        fprintf(stderr, "usage: GPUSHIM_LIBCUDA=... %s missing|notcuda|relative|stub\n", argv[0]);
        return 2;
    }
    mode = argv[1];
    return cmocka_run_group_tests_name(mode, tests, NULL, NULL);
}
