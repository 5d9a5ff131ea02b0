/* SPDX-License-Identifier: MIT */
/*
 * What gpushim's benchmarks add to tests/support (the clock, medians, knobs,
 * the kernels, shared with the gpu suite): the skip decision and checks that
 * stop the program.
 *
 * Benchmarks measure and print; they never fail on a timing. A benchmark that
 * needs a GPU prints "skipped: <reason>" and exits 77 without one.
 */
#ifndef GPUSHIM_BENCH_UTIL_H
#define GPUSHIM_BENCH_UTIL_H

#include <gpushim/gpushim.h>

#include "support.h"

#define BENCH_SKIP 77

/*
 * Whether there is a driver and a device; prints the DEVICE line when there
 * is, else "<name>: skipped: <reason>". Loads the driver.
 */
bool bench_gpu_ready(const char *name);

/* A kernel of kernels.ptx (loaded into device 0 on first use); exits on failure. */
gpu_function *bench_function(const char *name);

/* Prints the failed call with gpushim's explanation and exits 1. */
void bench_die(const char *what, gpu_status st);

#define BENCH_CHECK(call) \
    do { \
        gpu_status st_ = (call); \
        if (st_ != GPU_OK) \
            bench_die(#call, st_); \
    } while (0)

#endif
