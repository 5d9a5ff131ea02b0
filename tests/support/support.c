/* SPDX-License-Identifier: MIT */
/*
 * The gpu suite's and the benchmarks' shared helpers; see support.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "support.h"

/* Where kernels.ptx is when GPUSHIM_TEST_PTX is not set: the source tree's copy, named by meson. */
#ifndef GPU_TEST_PTX
#define GPU_TEST_PTX "kernels.ptx"
#endif

static gpu_module *kernels;

uint64_t gpu_test_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double gpu_test_median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double gpu_test_min(const double *v, size_t n)
{
    double m = v[0];

    for (size_t i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

double gpu_test_max(const double *v, size_t n)
{
    double m = v[0];

    for (size_t i = 1; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

unsigned gpu_test_env(const char *name, unsigned fallback)
{
    const char *value = getenv(name);
    char *end;
    unsigned long parsed;

    if (!value || !*value)
        return fallback;
    parsed = strtoul(value, &end, 10);
    if (*end != '\0' || parsed == 0 || parsed > 0xffffffffu) {
        printf("NOTE %s=\"%s\" is not a positive number; using %u\n", name, value, fallback);
        return fallback;
    }
    return (unsigned)parsed;
}

bool gpu_test_find_device(char *why, size_t size)
{
    gpu_device_info info;
    int count = 0;
    int version = 0;
    gpu_status st;

    /* Lines, not blocks: the figures must interleave correctly with other output in a log. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    st = gpu_driver_load();
    if (st != GPU_OK) {
        snprintf(why, size, "no usable CUDA driver (%s): %s", gpu_status_get_name(st), gpu_last_error_get_message());
        return false;
    }
    st = gpu_device_get_count(&count);
    if (st != GPU_OK || count < 1) {
        snprintf(why, size, "no CUDA device (%s, count %d): %s", gpu_status_get_name(st), count,
                 st == GPU_OK ? "" : gpu_last_error_get_message());
        return false;
    }
    if (gpu_device_get_info(0, &info) == GPU_OK && gpu_driver_get_version(&version) == GPU_OK)
        printf("DEVICE %s sm_%d%d multiprocessors=%d memory=%zu driver=%d devices=%d\n", info.name,
               info.compute_major, info.compute_minor, info.multiprocessors, info.total_memory, version, count);
    return true;
}

const char *gpu_test_ptx_path(void)
{
    const char *env = getenv("GPUSHIM_TEST_PTX");

    return env && *env ? env : GPU_TEST_PTX;
}

gpu_status gpu_test_load_kernels(void)
{
    return kernels ? GPU_OK : gpu_module_load_file(NULL, gpu_test_ptx_path(), &kernels);
}

gpu_module *gpu_test_module(void)
{
    return kernels;
}
gpu_status gpu_test_launch_work(gpu_stream *stream, gpu_buffer *in, gpu_buffer *out, uint32_t n, uint32_t iters)
{
    uint64_t src = gpu_buffer_get_device_ptr(in);
    uint64_t dst = gpu_buffer_get_device_ptr(out);
    void *args[] = {&src, &dst, &n, &iters};
    gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(n), KERNEL_BLOCK);

    return gpu_stream_launch_kernel(stream, kernels, KERNEL_WORK, &config, args);
}

gpu_status gpu_test_launch_spin(gpu_stream *stream, uint64_t ns)
{
    void *args[] = {&ns};
    gpu_launch_config config = gpu_launch_config_1d(1, 1);

    return gpu_stream_launch_kernel(stream, kernels, KERNEL_SPIN, &config, args);
}

gpu_status gpu_test_launch_fill(gpu_stream *stream, gpu_buffer *dst, uint32_t value, uint32_t n)
{
    uint64_t p = gpu_buffer_get_device_ptr(dst);
    void *args[] = {&p, &value, &n};
    gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(n), KERNEL_BLOCK);

    return gpu_stream_launch_kernel(stream, kernels, KERNEL_FILL, &config, args);
}

gpu_status gpu_test_launch_copy(gpu_stream *stream, gpu_buffer *src, gpu_buffer *dst, uint32_t n)
{
    uint64_t from = gpu_buffer_get_device_ptr(src);
    uint64_t to = gpu_buffer_get_device_ptr(dst);
    void *args[] = {&from, &to, &n};
    gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(n), KERNEL_BLOCK);

    return gpu_stream_launch_kernel(stream, kernels, KERNEL_COPY_U32, &config, args);
}

void gpu_test_fill_input(uint32_t *in, uint32_t n, uint32_t seed)
{
    for (uint32_t i = 0; i < n; i++)
        in[i] = work_input(seed, i);
}

size_t gpu_test_count_wrong(const uint32_t *out, uint32_t n, uint32_t seed, work_map map)
{
    /* work_apply(map, work_input(seed, i)) = first + i * step: affine maps compose. */
    uint32_t first = work_apply(map, work_input(seed, 0)), step = WORK_INPUT_STEP * map.mul;
    size_t wrong = 0;

    for (uint32_t i = 0; i < n; i++)
        wrong += out[i] != first + i * step;
    return wrong;
}

bool gpu_test_ok(gpu_test_error *error, gpu_status st, const char *what)
{
    if (st == GPU_OK)
        return true;
    if (!error->failed) {
        snprintf(error->text, sizeof(error->text), "%s: %s (CUresult %d): %s", what, gpu_status_get_name(st),
                 gpu_last_error_get_cuda_result(), gpu_last_error_get_message());
        error->failed = true;
    }
    return false;
}

bool gpu_test_fail(gpu_test_error *error, const char *what)
{
    if (!error->failed) {
        snprintf(error->text, sizeof(error->text), "%s", what);
        error->failed = true;
    }
    return false;
}
