/*
 * What every program of the gpu suite shares: deciding whether to run at all,
 * the kernels' module, knobs read from the environment, launch helpers, and
 * checks that name the failing call with gpushim's own explanation.
 *
 * cmocka's checks may only run on the thread that runs the test: worker
 * threads keep their first failure in a gpu_test_error, which the test's
 * thread then asserts on.
 */
#ifndef GPUSHIM_TESTS_GPU_HARNESS_H
#define GPUSHIM_TESTS_GPU_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <gpushim/gpushim.h>

#include "kernels.h"

/* The exit status meson reports as "skipped". */
#define GPU_TEST_SKIP 77

/*
 * Called first in main(): checks for a driver and a device, prints the device,
 * and loads kernels.ptx into device 0's primary context. Returns 0 to go on,
 * else the status main() should exit with: 77 without a driver or a device, 1
 * when the kernels cannot be loaded.
 */
int gpu_test_start(const char *program);

/* The kernels module that gpu_test_start() loaded, and the file it came from. */
gpu_module *gpu_test_module(void);
const char *gpu_test_ptx_path(void);

/* An unsigned knob from the environment (e.g. GPUSHIM_ORDERING_ROUNDS), else `fallback`. */
unsigned gpu_test_env(const char *name, unsigned fallback);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t gpu_test_now_ns(void);

/* Queue one kernel of kernels.ptx on the stream; any thread. */
gpu_status gpu_test_launch_work(gpu_stream *stream, gpu_buffer *in, gpu_buffer *out, uint32_t n, uint32_t iters);
gpu_status gpu_test_launch_spin(gpu_stream *stream, uint64_t ns);
gpu_status gpu_test_launch_fill(gpu_stream *stream, gpu_buffer *dst, uint32_t value, uint32_t n);
gpu_status gpu_test_launch_copy(gpu_stream *stream, gpu_buffer *src, gpu_buffer *dst, uint32_t n);

/* Writes work_input(seed, i) for i < n. */
void gpu_test_fill_input(uint32_t *in, uint32_t n, uint32_t seed);

/* How many out[i] differ from work_apply(map, in[i]). */
size_t gpu_test_count_wrong(const uint32_t *in, const uint32_t *out, uint32_t n, work_map map);

/* A worker thread's first failure. */
typedef struct gpu_test_error {
    bool failed;
    char text[640];
} gpu_test_error;

/* Keeps the first failure (`what`, the status, gpu_last_error()); returns st == GPU_OK. */
bool gpu_test_ok(gpu_test_error *error, gpu_status st, const char *what);

/* Keeps a failure that is not a gpu_status; returns false. */
bool gpu_test_fail(gpu_test_error *error, const char *what);

/* On the test's thread: fails the test with the worker's failure, if any. */
#define assert_no_worker_error(error) \
    do { \
        if ((error)->failed) \
            fail_msg("worker: %s", (error)->text); \
    } while (0)

/* On the test's thread: the call must return `expected`; the message says what it said instead. */
#define assert_gpu_status(call, expected) \
    do { \
        gpu_status st_ = (call); \
        if (st_ != (expected)) \
            fail_msg("%s returned %s, expected %s: %s", #call, gpu_status_name(st_), gpu_status_name(expected), \
                     gpu_last_error()); \
    } while (0)

#define assert_gpu_ok(call) assert_gpu_status((call), GPU_OK)

#endif
