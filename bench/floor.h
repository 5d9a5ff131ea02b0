/* SPDX-License-Identifier: MIT */
/*
 * libbenchfloor: the least that a wrapper library with gpushim's API can add
 * to a driver call, for bench/overhead's floor arms.
 *
 * Each function takes the arguments of the gpushim call it stands for, in
 * the same shapes (a driver handle behind an object pointer, a launch
 * configuration by pointer), and makes the driver call through a table, as
 * gpushim does; it checks nothing else. It is a shared library built with
 * gpushim's flags and called through the PLT, so a floor arm costs what any
 * such wrapper costs on the machine: a call into a library and one indirect
 * call out of it ("floor"), and with a thread-local read and compare before
 * the call ("floor_tls": global-dynamic TLS with descriptors, as gpushim's
 * context cache was read until the hot path stopped reading any). That is
 * the budget for a hot call (one indirect call and a thread-local read).
 */
#ifndef GPUSHIM_BENCH_FLOOR_H
#define GPUSHIM_BENCH_FLOOR_H

#include <stdbool.h>
#include <stddef.h>

#include <gpushim/launch.h>

#define FLOOR_API __attribute__((visibility("default")))

/* The driver's prototypes in the CUDA 12.0 ABI (CUresult is an unsigned enum; 0 is success). */
typedef unsigned (*floor_launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shared, void *stream, void **params, void **extra);
typedef unsigned (*floor_pair_fn)(void *a, void *b);
typedef unsigned (*floor_wait_fn)(void *stream, void *event, unsigned flags);
typedef unsigned (*floor_handle_fn)(void *handle);
typedef unsigned (*floor_h2d_fn)(unsigned long long dst, const void *src, size_t bytes, void *stream);
typedef unsigned (*floor_d2h_fn)(void *dst, unsigned long long src, size_t bytes, void *stream);

/* The driver's entry points the floor calls: cuLaunchKernel, cuEventRecord, ... */
struct floor_driver {
    floor_launch_fn launch;
    floor_pair_fn record;
    floor_wait_fn wait;
    floor_handle_fn event_query;
    floor_handle_fn stream_query;
    floor_h2d_fn h2d;
    floor_d2h_fn d2h;
};

/* An object: the CUcontext it was made in, and its driver handle (a buffer: its address and size). */
struct floor_object {
    void *ctx;
    void *cu;
    unsigned long long ptr;
    size_t size;
};

/* Keeps the table, and `ctx` as the calling thread's cached context (what floor_tls_* compare with). */
FLOOR_API void floor_init(const struct floor_driver *driver, void *ctx);

/*
 * The calls: 0, or the CUresult. floor_* call the driver at once;
 * floor_tls_* first compare the thread's cached context with the stream's
 * (the event's, for the event query) and answer 999 where they differ.
 */
#define FLOOR_CALLS(prefix) \
    FLOOR_API unsigned prefix##launch(const struct floor_object *stream, const struct floor_object *function, \
                                      const gpu_launch_config *config, void **args); \
    FLOOR_API unsigned prefix##record(const struct floor_object *stream, const struct floor_object *event); \
    FLOOR_API unsigned prefix##wait(const struct floor_object *stream, const struct floor_object *event); \
    FLOOR_API unsigned prefix##event_query(const struct floor_object *event, bool *done); \
    FLOOR_API unsigned prefix##stream_query(const struct floor_object *stream, bool *idle); \
    FLOOR_API unsigned prefix##h2d(const struct floor_object *buffer, const void *src, size_t bytes, \
                                   const struct floor_object *stream); \
    FLOOR_API unsigned prefix##d2h(const struct floor_object *buffer, void *dst, size_t bytes, \
                                   const struct floor_object *stream);
FLOOR_CALLS(floor_)
FLOOR_CALLS(floor_tls_)
#undef FLOOR_CALLS

#endif
