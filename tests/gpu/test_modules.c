/* SPDX-License-Identifier: MIT */
/*
 * Modules and launches: PTX from memory and from a file, function lookup,
 * the driver's JIT log for bad PTX, and launch shapes refused before the
 * driver sees them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Line 6 holds the syntax error; the JIT log must say so. */
static const char bad_ptx[] =
    ".version 6.3\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry broken()\n"
    "{\n"
    "    this is not ptx;\n"
    "    ret;\n"
    "}\n";
#define BAD_PTX_LINE "line 6"

/* Reads the whole file; the image is NOT NUL-terminated, which load_data must cope with. */
static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long len;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc((size_t)len);
        if (data && fread(data, 1, (size_t)len, f) != (size_t)len) {
            free(data);
            data = NULL;
        }
        *size = (size_t)len;
    }
    fclose(f);
    return data;
}

/* Runs the module's work kernel on a small input and checks every element. */
static void check_work(gpu_module *module, bool by_function)
{
    enum { N = 10000, ITERS = 33 };
    static uint32_t in[N], out[N];
    uint64_t src, dst;
    uint32_t n = N, iters = ITERS;
    void *args[] = {&src, &dst, &n, &iters};
    gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(N), KERNEL_BLOCK);
    gpu_stream *s;
    gpu_buffer *a, *b;
    gpu_function *f;

    gpu_test_fill_input(in, N, 7u);
    /* Ordered explicitly: the legacy copies below must wait for the kernel whatever the environment says. */
    assert_gpu_ok(gpu_stream_create_with_flags(NULL, GPU_STREAM_DEFAULT, &s));
    assert_gpu_ok(gpu_buffer_create(NULL, sizeof(in), &a));
    assert_gpu_ok(gpu_buffer_create(NULL, sizeof(out), &b));
    src = gpu_buffer_get_device_ptr(a);
    dst = gpu_buffer_get_device_ptr(b);
    assert_gpu_ok(gpu_buffer_copy_from_host(a, in, sizeof(in)));
    if (by_function) {
        assert_gpu_ok(gpu_module_get_function(module, KERNEL_WORK, &f));
        assert_gpu_ok(gpu_stream_launch_function(s, f, &config, args));
    } else {
        assert_gpu_ok(gpu_stream_launch_kernel(s, module, KERNEL_WORK, &config, args));
    }
    assert_gpu_ok(gpu_buffer_copy_to_host(b, out, sizeof(out)));
    assert_int_equal(gpu_test_count_wrong(out, N, 7u, work_map_for(ITERS)), 0);
    gpu_buffer_destroy(a);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

static void load_from_memory(void **state)
{
    size_t size = 0;
    char *image = read_file(gpu_test_ptx_path(), &size);
    gpu_module *m;

    (void)state;
    assert_non_null(image);
    assert_gpu_ok(gpu_module_load_data(NULL, image, size, &m));
    /* The module keeps nothing of the caller's image. */
    memset(image, 0, size);
    free(image);
    check_work(m, false);
    gpu_module_destroy(m);
    printf("MODULES from memory: %zu bytes of PTX loaded and run\n", size);
}

static void load_from_file(void **state)
{
    gpu_module *m;
    gpu_function *f1, *f2;

    (void)state;
    assert_gpu_ok(gpu_module_load_file(NULL, gpu_test_ptx_path(), &m));
    assert_gpu_ok(gpu_module_get_function(m, KERNEL_WORK, &f1));
    assert_gpu_ok(gpu_module_get_function(m, KERNEL_WORK, &f2));
    assert_ptr_equal(f1, f2);
    assert_non_null(gpu_function_get_raw(f1));
    check_work(m, true);
    gpu_module_destroy(m);
    printf("MODULES from file: %s loaded and run\n", gpu_test_ptx_path());
}

static void missing_function(void **state)
{
    gpu_function *f = NULL;

    (void)state;
    assert_gpu_status(gpu_module_get_function(gpu_test_module(), "no_such_kernel", &f), GPU_ERR_FUNCTION_NOT_FOUND);
    assert_null(f);
    assert_non_null(strstr(gpu_last_error_get_message(), "no_such_kernel"));
    printf("MODULES missing function: %s\n", gpu_last_error_get_message());
}

static void bad_ptx_gives_jit_log(void **state)
{
    gpu_module *m = NULL;
    const char *log;

    (void)state;
    assert_gpu_status(gpu_module_load_data(NULL, bad_ptx, strlen(bad_ptx), &m), GPU_ERR_MODULE_LOAD);
    assert_null(m);
    log = gpu_last_error_get_message();
    printf("MODULES bad PTX: CUresult %d: %s\n", gpu_last_error_get_cuda_result(), log);
    assert_int_not_equal(gpu_last_error_get_cuda_result(), 0);
    assert_non_null(strstr(log, "syntax error"));
    assert_non_null(strstr(log, BAD_PTX_LINE));
}

static void missing_file(void **state)
{
    gpu_module *m = NULL;

    (void)state;
    assert_gpu_status(gpu_module_load_file(NULL, "/nonexistent/gpushim/kernels.ptx", &m), GPU_ERR_MODULE_LOAD);
    assert_null(m);
    assert_non_null(strstr(gpu_last_error_get_message(), "/nonexistent/gpushim/kernels.ptx"));
}

/* Each shape is refused by gpushim itself: GPU_ERR_INVALID_ARG and no CUresult. */
static void invalid_launch_configs(void **state)
{
    static const gpu_launch_config bad[] = {
        {.grid = {1, 1, 1}, .block = {0, 1, 1}, .shared_mem_bytes = 0},     /* block 0 */
        {.grid = {1, 1, 1}, .block = {2048, 1, 1}, .shared_mem_bytes = 0},  /* 2048 threads in x */
        {.grid = {1, 1, 1}, .block = {64, 32, 1}, .shared_mem_bytes = 0},   /* 2048 threads in all */
        {.grid = {1, 1, 1}, .block = {1, 1, 65}, .shared_mem_bytes = 0},    /* block z above 64 */
        {.grid = {0, 1, 1}, .block = {32, 1, 1}, .shared_mem_bytes = 0},    /* grid 0 */
        {.grid = {1, 65536, 1}, .block = {32, 1, 1}, .shared_mem_bytes = 0} /* grid y above 65535 */
    };
    gpu_launch_config good = gpu_launch_config_1d(1, 1024);
    gpu_function *empty;
    gpu_stream *s;

    (void)state;
    assert_gpu_ok(gpu_stream_create(NULL, &s));
    assert_gpu_ok(gpu_module_get_function(gpu_test_module(), KERNEL_EMPTY, &empty));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_gpu_status(gpu_launch_config_check(&bad[i]), GPU_ERR_INVALID_ARG);
        assert_gpu_status(gpu_stream_launch_function(s, empty, &bad[i], NULL), GPU_ERR_INVALID_ARG);
        assert_int_equal(gpu_last_error_get_cuda_result(), 0);
        assert_gpu_status(gpu_stream_launch_kernel(s, gpu_test_module(), KERNEL_EMPTY, &bad[i], NULL),
                          GPU_ERR_INVALID_ARG);
        printf("MODULES refused grid (%u,%u,%u) block (%u,%u,%u): %s\n", bad[i].grid[0], bad[i].grid[1],
               bad[i].grid[2], bad[i].block[0], bad[i].block[1], bad[i].block[2], gpu_last_error_get_message());
    }
    /* The limits themselves are allowed, and the driver agrees. */
    assert_gpu_ok(gpu_stream_launch_function(s, empty, &good, NULL));
    assert_gpu_ok(gpu_stream_synchronize(s));
    gpu_stream_destroy(s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_from_memory),      cmocka_unit_test(load_from_file),
        cmocka_unit_test(missing_function),      cmocka_unit_test(bad_ptx_gives_jit_log),
        cmocka_unit_test(missing_file),          cmocka_unit_test(invalid_launch_configs),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-modules");

    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
