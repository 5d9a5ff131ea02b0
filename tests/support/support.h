/* SPDX-License-Identifier: MIT */
/*
 * What the gpu suite and the benchmarks share: a clock, medians, knobs read
 * from the environment, the decision whether there is a device, the kernels
 * of tests/gpu/kernels.ptx and helpers to launch them and check their output.
 *
 * It needs no test framework: tests/gpu/harness.h adds cmocka's checks on
 * top, bench/util.h the benchmarks' exit-on-failure checks.
 */
#ifndef GPUSHIM_TESTS_SUPPORT_H
#define GPUSHIM_TESTS_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpushim/gpushim.h>

#include "kernels.h"

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t gpu_test_now_ns(void);

/* The median of v[0..n) (n > 0); sorts v. */
double gpu_test_median(double *v, size_t n);

/* The smallest and largest of v[0..n) (n > 0). */
double gpu_test_min(const double *v, size_t n);
double gpu_test_max(const double *v, size_t n);

/* An unsigned knob from the environment (e.g. GPUSHIM_ORDERING_ROUNDS), else `fallback`. */
unsigned gpu_test_env(const char *name, unsigned fallback);

/*
 * Loads the driver and counts the devices. With one or more, prints the
 * DEVICE line (device 0's name, architecture, memory, the driver's version)
 * and returns true; else writes why not into why[0..size) and returns false.
 */
bool gpu_test_find_device(char *why, size_t size);

/* The kernels' file: GPUSHIM_TEST_PTX when set, else the source tree's kernels.ptx. */
const char *gpu_test_ptx_path(void);

/*
 * Loads kernels.ptx into device 0's primary context, once; later calls
 * return GPU_OK. On failure gpu_last_error_get_message() says why.
 */
gpu_status gpu_test_load_kernels(void);

/* The module gpu_test_load_kernels() loaded, or NULL before it. */
gpu_module *gpu_test_module(void);

/* Queue one kernel of kernels.ptx on the stream; any thread. */
gpu_status gpu_test_launch_work(gpu_stream *stream, gpu_buffer *in, gpu_buffer *out, uint32_t n, uint32_t iters);
gpu_status gpu_test_launch_spin(gpu_stream *stream, uint64_t ns);
gpu_status gpu_test_launch_fill(gpu_stream *stream, gpu_buffer *dst, uint32_t value, uint32_t n);
gpu_status gpu_test_launch_copy(gpu_stream *stream, gpu_buffer *src, gpu_buffer *dst, uint32_t n);

/* Writes work_input(seed, i) for i < n. */
void gpu_test_fill_input(uint32_t *in, uint32_t n, uint32_t seed);

/* How many out[i] differ from work_apply(map, work_input(seed, i)): the output of gpu_test_fill_input(seed). */
size_t gpu_test_count_wrong(const uint32_t *out, uint32_t n, uint32_t seed, work_map map);

/* A worker thread's first failure. */
typedef struct gpu_test_error {
    bool failed;
    char text[640];
} gpu_test_error;

/* Keeps the first failure (`what`, the status, gpu_last_error_get_message()); returns st == GPU_OK. */
bool gpu_test_ok(gpu_test_error *error, gpu_status st, const char *what);

/* Keeps a failure that is not a gpu_status; returns false. */
bool gpu_test_fail(gpu_test_error *error, const char *what);

#endif
