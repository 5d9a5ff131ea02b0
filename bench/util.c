/*
 * The benchmarks' shared helpers; see util.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util.h"

/* Where kernels.ptx is: GPUSHIM_TEST_PTX when set, else the source tree's copy meson named. */
#ifndef BENCH_PTX
#define BENCH_PTX "kernels.ptx"
#endif

uint64_t bench_now_ns(void)
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

double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double bench_min(const double *v, size_t n)
{
    double m = v[0];

    for (size_t i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

double bench_max(const double *v, size_t n)
{
    double m = v[0];

    for (size_t i = 1; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

unsigned bench_env(const char *name, unsigned fallback)
{
    const char *value = getenv(name);
    char *end;
    unsigned long parsed;

    if (!value || !*value)
        return fallback;
    parsed = strtoul(value, &end, 10);
    if (*end != '\0' || parsed == 0 || parsed > 0xffffffffu) {
        printf("note: %s=\"%s\" is not a positive number; using %u\n", name, value, fallback);
        return fallback;
    }
    return (unsigned)parsed;
}

bool bench_gpu_ready(const char *name)
{
    gpu_device_info info;
    int count = 0, version = 0;
    gpu_status st;

    setvbuf(stdout, NULL, _IOLBF, 0);
    st = gpu_driver_load();
    if (st != GPU_OK) {
        printf("%s: skipped: no usable CUDA driver (%s): %s\n", name, gpu_status_name(st), gpu_last_error());
        return false;
    }
    st = gpu_device_count(&count);
    if (st != GPU_OK || count < 1) {
        printf("%s: skipped: no CUDA device (%s, count %d)\n", name, gpu_status_name(st), count);
        return false;
    }
    if (gpu_device_get_info(0, &info) == GPU_OK && gpu_driver_version(&version) == GPU_OK)
        printf("%s: device 0: %s (sm_%d%d, %d multiprocessors), driver CUDA %d\n", name, info.name,
               info.compute_major, info.compute_minor, info.multiprocessors, version);
    return true;
}

void bench_die(const char *what, gpu_status st)
{
    printf("FAILED: %s: %s (CUresult %d): %s\n", what, gpu_status_name(st), gpu_last_cuda_result(),
           gpu_last_error());
    exit(1);
}

gpu_module *bench_module(void)
{
    static gpu_module *module;
    const char *path = getenv("GPUSHIM_TEST_PTX");

    if (!module)
        BENCH_CHECK(gpu_module_load_file(NULL, path && *path ? path : BENCH_PTX, &module));
    return module;
}

gpu_function *bench_function(const char *name)
{
    gpu_function *f = NULL;

    BENCH_CHECK(gpu_module_get_function(bench_module(), name, &f));
    return f;
}
