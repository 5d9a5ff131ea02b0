/* SPDX-License-Identifier: MIT */
/*
 * Every public function's success and argument paths against the fake, and
 * the driver results gpushim treats specially (NOT_READY, NOT_FOUND, the JIT
 * log, already-registered memory, peer access). Argument errors must come
 * before the driver: each is checked to make no driver call at all. The
 * failures of each driver call are test_sweep.c's. Runs with GPUSHIM_FAKE_DEVICES=2.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

static gpu_module *mod;
static char tmp_path[64];

static int setup(void **state)
{
    (void)state;
    FT_OK(gpu_module_load_data(NULL, ft_ptx, strlen(ft_ptx), &mod));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gpu_module_destroy(mod);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXT_RETAINS), 1);
    for (int k = 0; k < GPU_FAKE_LIVE_CONTEXT_RETAINS; k++)
        assert_int_equal(gpu_fake_live((gpu_fake_live_kind)k), 0);
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_BAD_RELEASE), 0);
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_RELEASE_FREED), 0);
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT), 0);
    return 0;
}

/* ---- Status and driver ---- */

static void *fresh_thread_error(void *arg)
{
    const char **out = arg;

    out[0] = gpu_last_error_get_message();
    out[1] = gpu_last_error_get_cuda_result() == 0 ? "0" : "nonzero";
    return NULL;
}

static void status_and_names(void **state)
{
    const char *seen[2] = {NULL, NULL};
    pthread_t t;
    long calls;

    (void)state;
    for (int s = 0; s < GPU_STATUS_COUNT_; s++) {
        assert_true(strncmp(gpu_status_get_name((gpu_status)s), "GPU_", 4) == 0);
        assert_true(gpu_status_get_description((gpu_status)s)[0] != '\0');
    }
    assert_string_equal(gpu_status_get_name(GPU_ERR_FORKED), "GPU_ERR_FORKED");
    assert_string_equal(gpu_status_get_name(GPU_STATUS_COUNT_), "GPU_STATUS_UNKNOWN");
    assert_string_equal(gpu_status_get_description((gpu_status)-1), "unknown status");
    /* Errors belong to the thread: a new one has none. */
    FT_INVALID(gpu_driver_get_version(NULL), "out is NULL");
    assert_int_equal(pthread_create(&t, NULL, fresh_thread_error, seen), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_string_equal(seen[0], "");
    assert_string_equal(seen[1], "0");
    /* With the driver loaded the names are the driver's; when it fails, gpushim's own. */
    calls = gpu_fake_calls("cuGetErrorName");
    assert_string_equal(gpu_cuda_result_get_name(906), "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
    assert_int_equal(gpu_fake_calls("cuGetErrorName"), calls + 1);
    gpu_fake_fail("cuGetErrorName", 1, CUABI_ERROR_UNKNOWN);
    assert_string_equal(gpu_cuda_result_get_name(901), "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
    assert_string_equal(gpu_cuda_result_get_name(-1), "CUDA_ERROR_UNRECOGNIZED");
    gpu_fake_fail_reset();
    for (int st = GPU_LOAD_NOT_STARTED; st <= GPU_LOAD_READY; st++)
        assert_string_not_equal(gpu_load_stage_get_name((gpu_load_stage)st), "unknown");
    assert_string_equal(gpu_load_stage_get_name((gpu_load_stage)99), "unknown");
}

static void driver_queries(void **state)
{
    int v = 0, n = 0;
    bool can = false;

    (void)state;
    FT_OK(gpu_driver_load());
    FT_OK(gpu_driver_get_version(&v));
    assert_int_equal(v, gpu_fake_driver_version());
    FT_OK(gpu_device_get_count(&n));
    assert_int_equal(n, 2);
    FT_INVALID(gpu_device_get_count(NULL), "out is NULL");
    FT_INVALID(gpu_device_can_access_peer(0, 1, NULL), "out is NULL");
    FT_INVALID(gpu_device_can_access_peer(-1, 1, &can), "negative");
    FT_INVALID(gpu_device_get_info(-3, &(gpu_device_info){.total_memory = 0}), "device -3 is negative");
    /* A failed cuGetErrorString leaves the sentence out, not the message. */
    gpu_fake_fail("cuDeviceGetCount", 1, CUABI_ERROR_NOT_SUPPORTED);
    gpu_fake_fail("cuGetErrorString", 1, CUABI_ERROR_UNKNOWN);
    FT_FAIL(gpu_device_get_count(&n), GPU_ERR_NOT_SUPPORTED, CUABI_ERROR_NOT_SUPPORTED,
            "cuDeviceGetCount: CUDA_ERROR_NOT_SUPPORTED (801)");
    assert_null(strstr(gpu_last_error_get_message(), "operation not supported"));
    gpu_fake_fail_reset();
}

/* ---- Contexts ---- */

static void context_lifetime(void **state)
{
    gpu_context *c = NULL;
    gpu_stream *s = NULL;
    gpu_event *e = NULL;
    gpu_buffer *b = NULL;
    gpu_module *m = NULL;
    gpu_host_buffer *h = NULL;
    uint32_t v = 41, r = 0;

    (void)state;
    FT_INVALID(gpu_context_retain_primary(1, NULL), "out is NULL");
    gpu_context_destroy(NULL);
    assert_null(gpu_context_get_raw(NULL));
    FT_OK(gpu_context_retain_primary(1, &c));
    assert_int_equal(gpu_fake_primary_retains(1), 1);
    FT_OK(gpu_stream_create(c, &s));
    FT_OK(gpu_event_create(c, &e));
    FT_OK(gpu_buffer_create(c, 4, &b));
    FT_OK(gpu_module_load_data(c, ft_ptx, strlen(ft_ptx), &m));
    FT_OK(gpu_host_buffer_create(c, 8, &h));
    assert_ptr_equal(gpu_stream_get_context(s), c);
    assert_ptr_equal(gpu_buffer_get_context(b), c);
    /* The objects hold the context: destroying it now releases nothing in the driver. */
    gpu_context_destroy(c);
    assert_int_equal(gpu_fake_primary_retains(1), 1);
    FT_OK(gpu_buffer_copy_from_host(b, &v, 4));
    FT_OK(ft_add_one(s, m, b, 1));
    FT_OK(gpu_stream_record_event(s, e));
    FT_OK(gpu_event_synchronize(e));
    FT_OK(gpu_buffer_copy_to_host(b, &r, 4));
    assert_int_equal(r, 42);
    gpu_host_buffer_destroy(h);
    gpu_module_destroy(m);
    gpu_buffer_destroy(b);
    gpu_event_destroy(e);
    assert_int_equal(gpu_fake_primary_retains(1), 1);
    gpu_stream_destroy(s);
    /* The last one released the primary context, with nothing left in it. */
    assert_int_equal(gpu_fake_primary_retains(1), 0);
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_RELEASE_FREED), 0);
}

static void context_synchronize(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = ft_buffer_seq(NULL, 8, 0);

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(ft_add_one(s, mod, b, 8));
    FT_OK(ft_add_one(GPU_DEVICE0_LEGACY_STREAM, mod, b, 8));
    assert_int_equal(gpu_fake_pending(), 2);
    FT_OK(gpu_context_synchronize(NULL));
    assert_int_equal(gpu_fake_pending(), 0);
    assert_int_equal(ft_peek(b, 7), 9);
    FT_INVALID(gpu_context_enable_peer_access(NULL, NULL), "peer is NULL");
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

/* ---- Streams ---- */

static void stream_arguments(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = ft_buffer_seq(NULL, 4, 0);
    bool idle;

    (void)state;
    FT_INVALID(gpu_stream_create(NULL, NULL), "out is NULL");
    FT_INVALID(gpu_stream_create_non_blocking(NULL, NULL), "out is NULL");
    FT_INVALID(gpu_stream_create_with_flags(NULL, 0x4, &s), "unknown flags 0x4");
    assert_null(s);
    gpu_stream_destroy(NULL);
    assert_null(gpu_stream_get_raw(NULL));
    assert_int_equal(gpu_stream_get_flags(NULL), GPU_STREAM_DEFAULT);
    assert_null(gpu_stream_get_context(NULL));
    FT_OK(gpu_stream_create_with_flags(NULL, GPU_STREAM_NON_BLOCKING, &s));
    assert_non_null(gpu_stream_get_raw(s));
    FT_INVALID(gpu_stream_is_complete(s, NULL), "idle is NULL");
    FT_INVALID(gpu_buffer_copy_device_ptr(s, 0, gpu_buffer_get_device_ptr(b), 4), "a device address is 0");
    FT_INVALID(gpu_stream_launch_host_func(s, NULL, NULL), "fn is NULL");
    FT_INVALID(gpu_stream_record_event(s, NULL), "event is NULL");
    FT_INVALID(gpu_stream_wait_event(s, NULL), "event is NULL");
    /* Zero bytes is nothing to do: no driver call, whatever the addresses. */
    {
        long calls = gpu_fake_calls("cuMemcpyDtoD_v2");

        FT_OK(gpu_buffer_copy_device_ptr(s, 0, 0, 0));
        assert_int_equal(gpu_fake_calls("cuMemcpyDtoD_v2"), calls);
    }
    /* The driver checks the addresses it is given. */
    FT_FAIL(gpu_buffer_copy_device_ptr(s, gpu_buffer_get_device_ptr(b) + 8, gpu_buffer_get_device_ptr(b), 16),
            GPU_ERR_TRANSFER, CUABI_ERROR_INVALID_VALUE, "cuMemcpyDtoD");
    FT_OK(gpu_buffer_copy_device_ptr(s, gpu_buffer_get_device_ptr(b) + 8, gpu_buffer_get_device_ptr(b), 8));
    assert_int_equal(ft_peek(b, 2), 0);
    assert_int_equal(ft_peek(b, 3), 1);
    FT_OK(gpu_stream_is_complete(GPU_DEVICE0_LEGACY_STREAM, &idle));
    assert_true(idle);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

/* Freeing memory that queued work still uses: the free waits for that work, which ran on the live memory. */
static void free_after_queued_work(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = ft_buffer_seq(NULL, 4, 0);
    uint64_t gone = gpu_buffer_get_device_ptr(b);
    unsigned long faults = gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT);

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(ft_add_one(s, mod, b, 4));
    assert_int_equal(gpu_fake_pending(), 1);
    gpu_buffer_destroy(b);
    assert_int_equal(gpu_fake_pending(), 0);
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT), faults);
    FT_OK(gpu_stream_synchronize(s));
    FT_FAIL(gpu_buffer_copy_device_ptr(s, gone, gone, 4), GPU_ERR_TRANSFER, CUABI_ERROR_INVALID_VALUE,
            "cuMemcpyDtoD");
    gpu_stream_destroy(s);
}

/* ---- Events ---- */

static void event_arguments(void **state)
{
    gpu_event *e = NULL;
    bool done;
    float ms;

    (void)state;
    FT_INVALID(gpu_event_create(NULL, NULL), "out is NULL");
    FT_INVALID(gpu_event_create_timed(NULL, NULL), "out is NULL");
    gpu_event_destroy(NULL);
    assert_null(gpu_event_get_raw(NULL));
    FT_OK(gpu_event_create(NULL, &e));
    assert_non_null(gpu_event_get_raw(e));
    FT_INVALID(gpu_event_is_complete(NULL, &done), "event is NULL");
    FT_INVALID(gpu_event_is_complete(e, NULL), "done is NULL");
    FT_INVALID(gpu_event_synchronize(NULL), "event is NULL");
    FT_INVALID(gpu_event_get_elapsed_ms(e, NULL, &ms), "an argument is NULL");
    FT_INVALID(gpu_event_get_elapsed_ms(e, e, NULL), "an argument is NULL");
    FT_INVALID(gpu_event_get_elapsed_ms(e, e, &ms), "gpu_event_create_timed");
    /* Recorded on the legacy stream, which the default context's streams share. */
    FT_OK(gpu_stream_record_event(GPU_DEVICE0_LEGACY_STREAM, e));
    FT_OK(gpu_event_synchronize(e));
    FT_OK(gpu_event_is_complete(e, &done));
    assert_true(done);
    gpu_event_destroy(e);
}

/* ---- Graphs ---- */

static void graph_arguments(void **state)
{
    gpu_stream *s = NULL;
    gpu_graph *g = NULL;
    gpu_graph_exec *x = NULL;
    gpu_buffer *b = ft_buffer_seq(NULL, 16, 0);
    bool capturing = true;

    (void)state;
    FT_INVALID(gpu_stream_end_capture(GPU_DEVICE0_LEGACY_STREAM, &g), "legacy default stream");
    FT_INVALID(gpu_stream_end_capture(NULL, NULL), "out is NULL");
    FT_INVALID(gpu_stream_is_capturing(NULL, NULL), "capturing is NULL");
    FT_INVALID(gpu_graph_instantiate(NULL, &x), "graph is NULL");
    FT_INVALID(gpu_stream_launch_graph(NULL, NULL), "exec is NULL");
    gpu_graph_destroy(NULL);
    gpu_graph_exec_destroy(NULL);
    FT_OK(gpu_stream_is_capturing(GPU_DEVICE0_LEGACY_STREAM, &capturing));
    assert_false(capturing);
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_THREAD_LOCAL));
    FT_OK(ft_add_one(s, mod, b, 16));
    FT_OK(gpu_stream_end_capture(s, &g));
    FT_INVALID(gpu_graph_instantiate(g, NULL), "out is NULL");
    FT_OK(gpu_graph_instantiate(g, &x));
    /* Replayed on the legacy stream: ordered like any legacy work. */
    FT_OK(gpu_stream_launch_graph(GPU_DEVICE0_LEGACY_STREAM, x));
    FT_OK(gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM));
    assert_int_equal(ft_peek(b, 15), 16);
    gpu_graph_destroy(g);
    gpu_graph_exec_destroy(x);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

/* ---- Modules ---- */

static void launch_config(void **state)
{
    gpu_launch_config c = gpu_launch_config_1d(3, 128);

    (void)state;
    assert_int_equal(c.grid[0], 3);
    assert_int_equal(c.grid[1], 1);
    assert_int_equal(c.block[0], 128);
    assert_int_equal(c.block[2], 1);
    assert_int_equal(c.shared_mem_bytes, 0);
    FT_OK(gpu_launch_config_check(&c));
    FT_INVALID(gpu_launch_config_check(NULL), "config is NULL");
    FT_INVALID(gpu_launch_config_check(&(gpu_launch_config){.grid = {0, 1, 1}, .block = {1, 1, 1}, .shared_mem_bytes = 0}), "grid x is 0");
    FT_INVALID(gpu_launch_config_check(&(gpu_launch_config){.grid = {1, 1, 1}, .block = {1, 0, 1}, .shared_mem_bytes = 0}), "block y is 0");
    FT_INVALID(gpu_launch_config_check(&(gpu_launch_config){.grid = {1, 65536, 1}, .block = {1, 1, 1}, .shared_mem_bytes = 0}), "grid y is 65536");
    FT_INVALID(gpu_launch_config_check(&(gpu_launch_config){.grid = {1, 1, 1}, .block = {1, 1, 65}, .shared_mem_bytes = 0}), "block z is 65");
    FT_INVALID(gpu_launch_config_check(&(gpu_launch_config){.grid = {1, 1, 1}, .block = {64, 32, 1}, .shared_mem_bytes = 0}), "2048 threads");
}

/* The launch's shape and shared memory arrive in the kernel as given. */
static void launch_reaches_kernel(void **state)
{
    gpu_buffer *b = NULL;
    gpu_launch_config c = {.grid = {2, 3, 4}, .block = {5, 6, 7}, .shared_mem_bytes = 100};
    uint64_t ptr;
    void *args[] = {&ptr};
    uint32_t got[7];
    const uint32_t want[7] = {2, 3, 4, 5, 6, 7, 100};

    (void)state;
    FT_OK(gpu_buffer_create(NULL, sizeof(got), &b));
    ptr = gpu_buffer_get_device_ptr(b);
    FT_OK(gpu_stream_launch_kernel(GPU_DEVICE0_LEGACY_STREAM, mod, "launch_info", &c, args));
    FT_OK(gpu_buffer_copy_to_host(b, got, sizeof(got)));
    assert_memory_equal(got, want, sizeof(got));
    /* A kernel without parameters takes NULL. */
    FT_OK(gpu_stream_launch_kernel(GPU_DEVICE0_LEGACY_STREAM, mod, "hold", &c, NULL));
    FT_OK(gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM));
    gpu_buffer_destroy(b);
}

static void module_arguments(void **state)
{
    gpu_module *m = (gpu_module *)&m;
    gpu_function *f = NULL, *again = NULL;
    gpu_launch_config c = gpu_launch_config_1d(1, 1), bad = gpu_launch_config_1d(0, 1);
    long calls;

    (void)state;
    FT_INVALID(gpu_module_load_data(NULL, ft_ptx, 10, NULL), "out is NULL");
    FT_INVALID(gpu_module_load_data(NULL, NULL, 10, &m), "the image is empty");
    FT_INVALID(gpu_module_load_data(NULL, ft_ptx, 0, &m), "the image is empty");
    FT_INVALID(gpu_module_load_file(NULL, NULL, &m), "path is NULL");
    FT_INVALID(gpu_module_load_file(NULL, "/x", NULL), "out is NULL");
    FT_INVALID(gpu_module_get_function(NULL, "add_one", &f), "module is NULL");
    FT_INVALID(gpu_module_get_function(mod, NULL, &f), "name is NULL");
    FT_INVALID(gpu_module_get_function(mod, "add_one", NULL), "out is NULL");
    FT_INVALID(gpu_stream_launch_kernel(NULL, NULL, "add_one", &c, NULL), "module is NULL");
    FT_INVALID(gpu_stream_launch_kernel(NULL, mod, NULL, &c, NULL), "name is NULL");
    FT_INVALID(gpu_stream_launch_kernel(NULL, mod, "add_one", &bad, NULL), "grid x is 0");
    FT_INVALID(gpu_stream_launch_function(NULL, NULL, &c, NULL), "function is NULL");
    assert_ptr_equal(m, (gpu_module *)&m);
    gpu_module_destroy(NULL);
    assert_null(gpu_function_get_raw(NULL));
    /* Looked up once; the second lookup is gpushim's. */
    calls = gpu_fake_calls("cuModuleGetFunction");
    FT_OK(gpu_module_get_function(mod, "copy_u32", &f));
    FT_OK(gpu_module_get_function(mod, "copy_u32", &again));
    assert_ptr_equal(f, again);
    assert_int_equal(gpu_fake_calls("cuModuleGetFunction"), calls + 1);
    FT_INVALID(gpu_stream_launch_function(NULL, f, &bad, NULL), "grid x is 0");
    f = (gpu_function *)&f;
    FT_FAIL(gpu_module_get_function(mod, "no_such_kernel", &f), GPU_ERR_FUNCTION_NOT_FOUND, CUABI_ERROR_NOT_FOUND,
            "the module has no function \"no_such_kernel\"");
    assert_ptr_equal(f, (gpu_function *)&f);
    FT_FAIL(gpu_stream_launch_kernel(NULL, mod, "no_such_kernel", &c, NULL), GPU_ERR_FUNCTION_NOT_FOUND,
            CUABI_ERROR_NOT_FOUND, "no_such_kernel");
}

/* The driver's JIT log is in the message. */
static void module_rejected(void **state)
{
    static const char garbage[] = ".version 8.0\n.fake_kernel add_one\n  garbage here\n";
    static const char unknown[] = ".version 8.0\n.fake_kernel no_such\n";
    /* An ELF64 header with no program or section header table: whole, as far as its headers say. */
    static const unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
    unsigned char elf_short[64];
    gpu_module *m = (gpu_module *)&m;

    (void)state;
    FT_FAIL(gpu_module_load_data(NULL, garbage, strlen(garbage), &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_INVALID_PTX,
            "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed: fake ptxas: PTX line 3: "
            "unexpected \"garbage here\"");
    FT_FAIL(gpu_module_load_data(NULL, unknown, sizeof(unknown), &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_INVALID_PTX,
            "line 2: no built-in kernel \"no_such\"");
    FT_FAIL(gpu_module_load_data(NULL, "text", 4, &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_INVALID_PTX,
            "line 1: unexpected \"text\"");
    FT_FAIL(gpu_module_load_data(NULL, "// only a comment", 17, &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_INVALID_PTX,
            "no .version directive");
    FT_FAIL(gpu_module_load_data(NULL, ".fake_kernel hold\n", 18, &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_INVALID_PTX,
            ".version must come first");
    /* A cubin goes to the driver as it is (not as text), which this one refuses. */
    FT_FAIL(gpu_module_load_data(NULL, elf, sizeof(elf), &m), GPU_ERR_NOT_SUPPORTED, CUABI_ERROR_NOT_SUPPORTED,
            "not supported by the fake: a cubin has no PTX, only machine code");
    /* The driver reads a cubin as far as its headers say: gpushim, which knows the size, checks that first. */
    FT_INVALID(gpu_module_load_data(NULL, elf, 63, &m), "an ELF image without a whole ELF64 header (63 bytes)");
    memcpy(elf_short, elf, sizeof(elf_short));
    elf_short[40] = 64;   /* e_shoff: the section headers start where the image ends */
    elf_short[60] = 1;    /* e_shnum */
    elf_short[58] = 64;   /* e_shentsize */
    FT_INVALID(gpu_module_load_data(NULL, elf_short, sizeof(elf_short), &m),
               "an ELF image shorter than its header tables say");
    /* Tables "before" the image: an offset of 2^64 - 8 plus 64 bytes wraps to 56, inside 64 bytes if unchecked. */
    for (int table = 0; table < 2; table++) {
        memcpy(elf_short, elf, sizeof(elf_short));
        memset(elf_short + (table ? 40 : 32), 0xff, 8);
        elf_short[table ? 40 : 32] = 0xf8; /* e_phoff or e_shoff = 2^64 - 8 */
        elf_short[table ? 58 : 54] = 64;   /* e_phentsize or e_shentsize */
        elf_short[table ? 60 : 56] = 1;    /* e_phnum or e_shnum */
        FT_INVALID(gpu_module_load_data(NULL, elf_short, sizeof(elf_short), &m),
                   "an ELF image shorter than its header tables say");
    }
    assert_ptr_equal(m, (gpu_module *)&m);
}

static void module_files(void **state)
{
    gpu_module *m = NULL;
    gpu_function *f = NULL;
    size_t big = 200000;
    char *text = malloc(big + 1);
    FILE *file;
    int fd;

    (void)state;
    assert_non_null(text);
    snprintf(tmp_path, sizeof(tmp_path), "/tmp/gpushim-fake-XXXXXX");
    fd = mkstemp(tmp_path);
    assert_true(fd >= 0);
    close(fd);
    FT_FAIL(gpu_module_load_file(NULL, tmp_path, &m), GPU_ERR_MODULE_LOAD, 0, "the file is empty");
    /* Larger than gpushim's first read buffer, so that it grows: comment lines, then the kernels. */
    memset(text, '\n', big);
    for (size_t i = 0; i + 40 < big; i += 40)
        memcpy(text + i, "// padding padding padding padding pad", 38);
    memcpy(text + big - strlen(ft_ptx), ft_ptx, strlen(ft_ptx));
    file = fopen(tmp_path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(text, 1, big, file), big);
    fclose(file);
    FT_OK(gpu_module_load_file(NULL, tmp_path, &m));
    FT_OK(gpu_module_get_function(m, "hold", &f));
    gpu_module_destroy(m);
    unlink(tmp_path);
    FT_FAIL(gpu_module_load_file(NULL, tmp_path, &m), GPU_ERR_MODULE_LOAD, 0, strerror(ENOENT));
    FT_FAIL(gpu_module_load_file(NULL, "/", &m), GPU_ERR_INVALID_ARG, 0, "gpu_module_load_file: / is a directory");
    free(text);
}

/* ---- Buffers ---- */

static void buffer_arguments(void **state)
{
    gpu_buffer *b = NULL, *c = NULL;
    gpu_stream *s = NULL;
    uint32_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[9];
    unsigned long calls;

    (void)state;
    FT_INVALID(gpu_buffer_create(NULL, 4, NULL), "out is NULL");
    FT_INVALID(gpu_buffer_create(NULL, 0, &b), "bytes is 0");
    assert_null(b);
    gpu_buffer_destroy(NULL);
    assert_int_equal(gpu_buffer_get_device_ptr(NULL), 0);
    assert_int_equal(gpu_buffer_get_size(NULL), 0);
    assert_null(gpu_buffer_get_context(NULL));
    FT_OK(gpu_buffer_create(NULL, sizeof(v), &b));
    FT_OK(gpu_buffer_create(NULL, 4, &c));
    FT_OK(gpu_stream_create(NULL, &s));
    assert_int_equal(gpu_buffer_get_size(b), sizeof(v));
    assert_true(gpu_buffer_get_device_ptr(b) != 0);
    FT_INVALID(gpu_buffer_copy_from_host(NULL, v, 4), "buffer is NULL");
    FT_INVALID(gpu_buffer_copy_from_host(b, NULL, 4), "the host pointer is NULL");
    FT_INVALID(gpu_buffer_copy_from_host(b, v, sizeof(v) + 1), "33 bytes do not fit a buffer of 32");
    FT_INVALID(gpu_buffer_copy_to_host(b, r, sizeof(r)), "36 bytes do not fit a buffer of 32");
    FT_INVALID(gpu_buffer_copy_to_host(NULL, r, 4), "buffer is NULL");
    FT_INVALID(gpu_buffer_copy_from_host_async(b, v, sizeof(v) + 4, s), "do not fit");
    FT_INVALID(gpu_buffer_copy_to_host_async(b, NULL, 4, s), "the host pointer is NULL");
    FT_INVALID(gpu_buffer_copy_async(NULL, b, 4, s), "dst is NULL");
    FT_INVALID(gpu_buffer_copy_async(b, NULL, 4, s), "src is NULL");
    FT_INVALID(gpu_buffer_copy_async(b, c, 8, s), "8 bytes, buffers of 32 (dst) and 4 (src)");
    FT_INVALID(gpu_buffer_copy_async(c, b, 8, s), "8 bytes, buffers of 4 (dst) and 32 (src)");
    /* Zero bytes, even from NULL: nothing for the driver beyond making the context current. */
    calls = gpu_fake_calls("cuMemcpyHtoD_v2") + gpu_fake_calls("cuMemcpyDtoH_v2") + gpu_fake_calls("cuMemcpyHtoDAsync_v2") +
            gpu_fake_calls("cuMemcpyDtoHAsync_v2") + gpu_fake_calls("cuMemcpyDtoDAsync_v2");
    FT_OK(gpu_buffer_copy_from_host(b, NULL, 0));
    FT_OK(gpu_buffer_copy_to_host(b, NULL, 0));
    FT_OK(gpu_buffer_copy_from_host_async(b, NULL, 0, s));
    FT_OK(gpu_buffer_copy_to_host_async(b, NULL, 0, s));
    FT_OK(gpu_buffer_copy_async(b, c, 0, s));
    assert_int_equal(gpu_fake_calls("cuMemcpyHtoD_v2") + gpu_fake_calls("cuMemcpyDtoH_v2") +
                         gpu_fake_calls("cuMemcpyHtoDAsync_v2") + gpu_fake_calls("cuMemcpyDtoHAsync_v2") +
                         gpu_fake_calls("cuMemcpyDtoDAsync_v2"),
                     calls);
    /* A partial copy, and one between buffers of one device. */
    FT_OK(gpu_buffer_copy_from_host(b, v, sizeof(v)));
    FT_OK(gpu_buffer_copy_async(c, b, 4, s));
    FT_OK(gpu_stream_synchronize(s));
    FT_OK(gpu_buffer_copy_to_host(c, r, 4));
    assert_int_equal(r[0], 1);
    FT_OK(gpu_buffer_copy_to_host(b, r, 12));
    assert_int_equal(r[2], 3);
    gpu_stream_destroy(s);
    gpu_buffer_destroy(c);
    gpu_buffer_destroy(b);
}

static void host_buffers(void **state)
{
    gpu_host_buffer *h = NULL, *r = (gpu_host_buffer *)&h, *again = (gpu_host_buffer *)&h;
    uint32_t mem[16];

    (void)state;
    FT_INVALID(gpu_host_buffer_create(NULL, 4, NULL), "out is NULL");
    FT_INVALID(gpu_host_buffer_create(NULL, 0, &h), "bytes is 0");
    FT_INVALID(gpu_host_buffer_register(NULL, NULL, 4, &h), "ptr is NULL");
    FT_INVALID(gpu_host_buffer_register(NULL, mem, 0, &h), "bytes is 0");
    FT_INVALID(gpu_host_buffer_register(NULL, mem, 4, NULL), "out is NULL");
    gpu_host_buffer_destroy(NULL);
    assert_null(gpu_host_buffer_get_data(NULL));
    assert_int_equal(gpu_host_buffer_get_size(NULL), 0);
    FT_OK(gpu_host_buffer_create(NULL, 64, &h));
    assert_int_equal(gpu_host_buffer_get_size(h), 64);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_ALLOCS), 1);
    /* Memory the driver already page-locked is an argument error, with the driver's reason. */
    FT_FAIL(gpu_host_buffer_register(NULL, gpu_host_buffer_get_data(h), 16, &r), GPU_ERR_INVALID_ARG,
            CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "cuMemHostRegister");
    FT_OK(gpu_host_buffer_register(NULL, mem, sizeof(mem), &r));
    assert_ptr_equal(gpu_host_buffer_get_data(r), mem);
    FT_FAIL(gpu_host_buffer_register(NULL, mem + 4, 8, &again), GPU_ERR_INVALID_ARG,
            CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED (712)");
    assert_ptr_equal(again, (gpu_host_buffer *)&h);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 1);
    gpu_host_buffer_destroy(r);
    gpu_host_buffer_destroy(h);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_ALLOCS), 0);
}

/* ---- The fake itself, called as a CUDA program would ---- */

static void *self(void)
{
    void *h = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);

    assert_non_null(h);
    /* Loaded already (gpushim holds it): this only adds a reference, dropped again here. */
    dlclose(h);
    return h;
}

static void get_proc_address(void **state)
{
    cuabi_proc_address_query_result st = 9;
    void *fn = NULL, *legacy = dlsym(self(), "cuMemAlloc");

    (void)state;
    assert_int_equal(cuGetProcAddress_v2("cuMemAlloc", &fn, 12000, 1, &st), CUABI_SUCCESS);
    assert_int_equal(st, CUABI_GET_PROC_ADDRESS_SUCCESS);
    assert_ptr_equal(fn, dlsym(self(), "cuMemAlloc_v2"));
    /* Asked for an ABI before the rename, the driver hands out the old function. */
    assert_int_equal(cuGetProcAddress_v2("cuMemAlloc", &fn, 3000, 1, &st), CUABI_SUCCESS);
    assert_ptr_equal(fn, legacy);
    assert_int_equal(cuGetProcAddress_v2("cuDevicePrimaryCtxRelease", &fn, 10020, 1, NULL), CUABI_SUCCESS);
    assert_ptr_equal(fn, dlsym(self(), "cuDevicePrimaryCtxRelease"));
    /* Not there yet at that version; not a base name; not a name at all: success, no pointer, the reason. */
    assert_int_equal(cuGetProcAddress_v2("cuGraphInstantiateWithFlags", &fn, 11000, 1, &st), CUABI_SUCCESS);
    assert_null(fn);
    assert_int_equal(st, CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    assert_int_equal(cuGetProcAddress_v2("cuMemAlloc_v2", &fn, 12000, 1, &st), CUABI_SUCCESS);
    assert_null(fn);
    assert_int_equal(st, CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    assert_int_equal(cuGetProcAddress_v2("cuNoSuchFunction", &fn, 12000, 1, &st), CUABI_SUCCESS);
    assert_int_equal(st, CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* A version newer than the driver, or unknown flags: refused. */
    assert_int_equal(cuGetProcAddress_v2("cuMemAlloc", &fn, gpu_fake_driver_version() + 10, 1, &st),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetProcAddress_v2("cuMemAlloc", &fn, 12000, 4, &st), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetProcAddress_v2(NULL, &fn, 12000, 1, &st), CUABI_ERROR_INVALID_VALUE);
}

/* The driver behaviour gpushim is written against, checked on the fake directly. */
static void driver_model(void **state)
{
    cuabi_context c0 = NULL, c1 = NULL;
    cuabi_stream s = NULL;
    cuabi_event plain = NULL, timed = NULL;
    cuabi_graph g = NULL;
    cuabi_deviceptr p = 0;
    cuabi_stream_capture_status cs = 9;
    const char *name = NULL;
    uint32_t v = 1;
    float ms;

    (void)state;
    assert_int_equal(cuDevicePrimaryCtxRetain(&c0, 0), CUABI_SUCCESS);
    assert_int_equal(cuDevicePrimaryCtxRetain(&c1, 1), CUABI_SUCCESS);
    ft_no_context();
    assert_int_equal(cuMemAlloc_v2(&p, 4), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxPopCurrent_v2(NULL), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxSetCurrent(c0), CUABI_SUCCESS);
    assert_int_equal(cuMemAlloc_v2(&p, 4), CUABI_SUCCESS);
    assert_int_equal(cuMemcpyHtoD_v2(p, &v, 8), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyHtoD_v2(p + 4, &v, 4), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyHtoD_v2(p, &v, 4), CUABI_SUCCESS);
    assert_int_equal(cuMemFree_v2(p + 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemFree_v2(p), CUABI_SUCCESS);
    assert_int_equal(cuMemcpyDtoH_v2(&v, p, 4), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemHostUnregister(&v), CUABI_ERROR_HOST_MEMORY_NOT_REGISTERED);
    /* Timing is only for events created with it. */
    assert_int_equal(cuEventCreate(&plain, CUABI_EVENT_DISABLE_TIMING), CUABI_SUCCESS);
    assert_int_equal(cuEventCreate(&timed, CUABI_EVENT_DEFAULT), CUABI_SUCCESS);
    assert_int_equal(cuEventRecord(plain, NULL), CUABI_SUCCESS);
    assert_int_equal(cuEventRecord(timed, NULL), CUABI_SUCCESS);
    assert_int_equal(cuEventSynchronize(timed), CUABI_SUCCESS);
    assert_int_equal(cuEventElapsedTime(&ms, plain, timed), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventElapsedTime(&ms, timed, timed), CUABI_SUCCESS);
    assert_true(ms == 0.0f);
    /* Capture status: none, active, invalidated. */
    assert_int_equal(cuStreamCreate(&s, CUABI_STREAM_DEFAULT), CUABI_SUCCESS);
    assert_int_equal(cuStreamIsCapturing(s, &cs), CUABI_SUCCESS);
    assert_int_equal(cs, CUABI_STREAM_CAPTURE_STATUS_NONE);
    assert_int_equal(cuStreamBeginCapture_v2(s, CUABI_STREAM_CAPTURE_MODE_GLOBAL), CUABI_SUCCESS);
    assert_int_equal(cuStreamIsCapturing(s, &cs), CUABI_SUCCESS);
    assert_int_equal(cs, CUABI_STREAM_CAPTURE_STATUS_ACTIVE);
    assert_int_equal(cuStreamIsCapturing(NULL, &cs), CUABI_ERROR_STREAM_CAPTURE_IMPLICIT);
    assert_int_equal(cuStreamQuery(NULL), CUABI_ERROR_STREAM_CAPTURE_IMPLICIT);
    assert_int_equal(cuStreamIsCapturing(s, &cs), CUABI_SUCCESS);
    assert_int_equal(cs, CUABI_STREAM_CAPTURE_STATUS_INVALIDATED);
    assert_int_equal(cuStreamEndCapture(s, &g), CUABI_ERROR_STREAM_CAPTURE_INVALIDATED);
    assert_null(g);
    /* Work must be queued from the stream's own context. */
    assert_int_equal(cuCtxPushCurrent_v2(c1), CUABI_SUCCESS);
    assert_int_equal(cuEventRecord(timed, s), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxEnablePeerAccess(c0, 0), CUABI_SUCCESS);
    assert_int_equal(cuCtxEnablePeerAccess(c0, 0), CUABI_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    assert_int_equal(cuCtxEnablePeerAccess(c1, 0), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuCtxPopCurrent_v2(NULL), CUABI_SUCCESS);
    assert_int_equal(cuStreamDestroy_v2(s), CUABI_SUCCESS);
    assert_int_equal(cuStreamDestroy_v2(s), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventDestroy_v2(plain), CUABI_SUCCESS);
    assert_int_equal(cuEventDestroy_v2(timed), CUABI_SUCCESS);
    assert_int_equal(cuGetErrorName(712, &name), CUABI_SUCCESS);
    assert_string_equal(name, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED");
    assert_int_equal(cuGetErrorName(12345, &name), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetErrorString(201, &name), CUABI_SUCCESS);
    assert_string_equal(name, "invalid device context");
    ft_no_context();
    assert_int_equal(cuDevicePrimaryCtxRelease_v2(1), CUABI_SUCCESS);
    assert_int_equal(cuDevicePrimaryCtxRelease_v2(0), CUABI_SUCCESS);
    assert_false(gpu_fake_peer_enabled(1, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_and_names),
        cmocka_unit_test(driver_queries),
        cmocka_unit_test(context_lifetime),
        cmocka_unit_test(context_synchronize),
        cmocka_unit_test(stream_arguments),
        cmocka_unit_test(free_after_queued_work),
        cmocka_unit_test(event_arguments),
        cmocka_unit_test(graph_arguments),
        cmocka_unit_test(launch_config),
        cmocka_unit_test(launch_reaches_kernel),
        cmocka_unit_test(module_arguments),
        cmocka_unit_test(module_rejected),
        cmocka_unit_test(module_files),
        cmocka_unit_test(buffer_arguments),
        cmocka_unit_test(host_buffers),
        cmocka_unit_test(get_proc_address),
        cmocka_unit_test(driver_model),
    };

    return cmocka_run_group_tests_name("api", tests, setup, teardown);
}
