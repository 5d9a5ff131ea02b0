/* SPDX-License-Identifier: MIT */
/*
 * What every program of the gpu suite shares: deciding whether to run at all
 * and cmocka checks that name the failing call with gpushim's own
 * explanation, on top of tests/support (the clock, knobs, kernels and launch
 * helpers the benchmarks use too).
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

/* The clock, the knobs, the kernels and their launch helpers, gpu_test_error: shared with bench/. */
#include "support.h"

/* The exit status meson reports as "skipped". */
#define GPU_TEST_SKIP 77

/*
 * Called first in main(): checks for a driver and a device, prints the device,
 * and loads kernels.ptx into device 0's primary context. Returns 0 to go on,
 * else the status main() should exit with: 77 without a driver or a device, 1
 * when the kernels cannot be loaded.
 */
int gpu_test_start(const char *program);

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
            fail_msg("%s returned %s, expected %s: %s", #call, gpu_status_get_name(st_), gpu_status_get_name(expected), \
                     gpu_last_error_get_message()); \
    } while (0)

#define assert_gpu_ok(call) assert_gpu_status((call), GPU_OK)

#endif
