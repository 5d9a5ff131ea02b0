/* SPDX-License-Identifier: MIT */
/*
 * NVRTC's cold compile against a warm cache hit, for the same kernel, in one
 * run: medians in ms and their ratio, for a cubin (sm_90) and PTX
 * (compute_90). Needs NVRTC, not a GPU: it runs on CPU machines too.
 * Prints "skipped: ..." and exits 77 where no NVRTC loads.
 *
 * Knobs: GPUSHIM_BENCH_REPS cold compiles per target (default 5),
 * GPUSHIM_BENCH_HITS cache hits per target (default 200).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static const char source[] =
    "template <typename T> __global__ void scale(T *x, T a, unsigned n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        x[i] *= a;\n"
    "}\n"
    "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, unsigned n)\n"
    "{\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* One compile of the kernel; returns its wall time in ms and its cache state. */
static double compile_ms(const gpu_compile_options *o, gpu_cache_state *state)
{
    gpu_program *p;
    uint64_t t0;
    double ms;

    BENCH_CHECK(gpu_program_create(source, "bench.cu", NULL, 0, &p));
    BENCH_CHECK(gpu_program_add_name_expression(p, "scale<float>"));
    t0 = gpu_test_now_ns();
    BENCH_CHECK(gpu_program_compile(p, NULL, o));
    ms = (double)(gpu_test_now_ns() - t0) / 1e6;
    *state = gpu_program_get_cache_state(p);
    if (gpu_program_get_cache_warning(p))
        printf("  cache warning: %s\n", gpu_program_get_cache_warning(p));
    gpu_program_destroy(p);
    return ms;
}

static int measure(const char *label, gpu_compile_target target, unsigned reps, unsigned hits)
{
    gpu_compile_options cold = {target, 90, NULL, 0, true};
    gpu_compile_options cached = {target, 90, NULL, 0, false};
    double *c = calloc(reps, sizeof(double)), *h = calloc(hits, sizeof(double));
    double miss, cold_med, hit_med;
    gpu_cache_state st;
    int bad = 0;

    if (!c || !h) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    /* Alternated, so both see the same machine: a cold compile, then hits. */
    miss = compile_ms(&cached, &st);
    bad += st != GPU_CACHE_MISS;
    for (unsigned i = 0, j = 0; i < reps || j < hits;) {
        if (i < reps) {
            c[i++] = compile_ms(&cold, &st);
            bad += st != GPU_CACHE_OFF;
        }
        for (unsigned k = 0; k < hits / (reps ? reps : 1) + 1 && j < hits; k++) {
            h[j++] = compile_ms(&cached, &st);
            bad += st != GPU_CACHE_HIT;
        }
    }
    cold_med = gpu_test_median(c, reps);
    hit_med = gpu_test_median(h, hits);
    printf("COMPILE %-16s cold %9.3f ms (median of %u, %.3f..%.3f)  first miss+store %9.3f ms  "
           "hit %7.3f ms (median of %u, %.3f..%.3f)  cold/hit %8.1fx  hit under 1 ms: %s\n",
           label, cold_med, reps, gpu_test_min(c, reps), gpu_test_max(c, reps), miss, hit_med, hits, gpu_test_min(h, hits),
           gpu_test_max(h, hits), cold_med / hit_med, hit_med < 1.0 ? "yes" : "no");
    free(c);
    free(h);
    if (bad)
        printf("COMPILE %s: %d compiles had the wrong cache state\n", label, bad);
    return bad;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[512];

    while (d && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

int main(void)
{
    char dir[] = "/tmp/gpushim-bench-compile-XXXXXX";
    unsigned reps = gpu_test_env("GPUSHIM_BENCH_REPS", 5);
    unsigned hits = gpu_test_env("GPUSHIM_BENCH_HITS", 200);
    const gpu_compiler_report *r;
    uint64_t t0 = gpu_test_now_ns();
    int bad;

    if (gpu_compiler_load() != GPU_OK) {
        printf("compile: skipped: %s\n", gpu_last_error_get_message());
        return BENCH_SKIP;
    }
    r = gpu_compiler_get_report();
    printf("compile: NVRTC %d.%d from %s, loaded in %.1f ms\n", r->version_major, r->version_minor, r->file,
           (double)(gpu_test_now_ns() - t0) / 1e6);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("GPUSHIM_CACHE_DIR", dir, 1);
    unsetenv("GPUSHIM_CACHE");
    if (reps == 0)
        reps = 1;
    if (hits == 0)
        hits = 1;
    bad = measure("cubin sm_90", GPU_COMPILE_CUBIN, reps, hits);
    bad += measure("ptx compute_90", GPU_COMPILE_PTX, reps, hits);
    remove_dir(dir);
    return bad ? 1 : 0;
}
