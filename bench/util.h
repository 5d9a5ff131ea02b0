/*
 * What gpushim's benchmarks share: a clock, medians, knobs from the
 * environment, the skip decision, and the kernels of tests/gpu/kernels.ptx.
 *
 * Benchmarks measure and print; they never fail on a timing. A benchmark that
 * needs a GPU prints "skipped: <reason>" and exits 77 without one.
 */
#ifndef GPUSHIM_BENCH_UTIL_H
#define GPUSHIM_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <gpushim/gpushim.h>

#include "kernels.h"

#define BENCH_SKIP 77

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* The median of v[0..n) (n > 0); sorts v. */
double bench_median(double *v, size_t n);

/* The smallest and largest of v[0..n). */
double bench_min(const double *v, size_t n);
double bench_max(const double *v, size_t n);

/* An unsigned knob from the environment, e.g. GPUSHIM_BENCH_REPS, else `fallback`. */
unsigned bench_env(const char *name, unsigned fallback);

/*
 * Whether there is a driver and a device; prints the device when there is,
 * else "<name>: skipped: <reason>". Loads the driver.
 */
bool bench_gpu_ready(const char *name);

/* The kernels module (device 0), loaded on first use; exits on failure. */
gpu_module *bench_module(void);

/* A kernel of the module; exits on failure. */
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
