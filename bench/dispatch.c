/* SPDX-License-Identifier: MIT */
/*
 * Dispatch overhead: what gpushim adds to a call, against the same loop
 * calling the driver directly. Three calls: a launch of an empty kernel
 * (gpu_stream_launch_function vs cuLaunchKernel), an event query on a
 * completed event (gpu_event_is_complete vs cuEventQuery) and a query of an
 * idle stream (gpu_stream_is_complete vs cuStreamQuery).
 *
 * The direct arm calls the same driver, in the same process, with the same
 * CUfunction, CUstream and CUevent. Where meson found a libcuda to link, the
 * program is linked to it and the direct arm calls the driver's symbols by
 * name; otherwise it calls pointers from dlsym. The launch loops synchronise
 * every GPUSHIM_BENCH_SYNC_EVERY launches, identically in both arms, so that
 * neither fills the queue. Arms alternate, and which goes first alternates too.
 *
 * Knobs: GPUSHIM_BENCH_REPS, GPUSHIM_BENCH_LAUNCHES, GPUSHIM_BENCH_QUERIES,
 * GPUSHIM_BENCH_SYNC_EVERY.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_REPS 64

/* The three driver calls, in the CUDA 12.0 ABI; CUresult 0 is success. */
#ifdef GPUSHIM_BENCH_LINKED
extern int cuLaunchKernel(void *f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                          unsigned block_y, unsigned block_z, unsigned shared_mem_bytes, void *stream, void **params,
                          void **extra);
extern int cuEventQuery(void *event);
extern int cuStreamQuery(void *stream);
#define DIRECT_LAUNCH cuLaunchKernel
#define DIRECT_EVENT_QUERY cuEventQuery
#define DIRECT_STREAM_QUERY cuStreamQuery
#define DIRECT_ARM "linked to libcuda (calls by symbol)"
#else
typedef int (*launch_fn)(void *f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                         unsigned block_y, unsigned block_z, unsigned shared_mem_bytes, void *stream, void **params,
                         void **extra);
typedef int (*query_fn)(void *handle);
static launch_fn direct_launch;
static query_fn direct_event_query;
static query_fn direct_stream_query;
#define DIRECT_LAUNCH direct_launch
#define DIRECT_EVENT_QUERY direct_event_query
#define DIRECT_STREAM_QUERY direct_stream_query
#define DIRECT_ARM "pointers from dlsym (no libcuda to link at build time)"

static void *symbol(void *handle, const char *name)
{
    void *sym = handle ? dlsym(handle, name) : NULL;

    if (!sym) {
        printf("FAILED: dlsym %s: %s\n", name, dlerror());
        exit(1);
    }
    return sym;
}

/* The same file gpushim loaded, already in the process. */
static void resolve_direct(void)
{
    void *handle = dlopen(gpu_driver_get_report()->file, RTLD_NOW | RTLD_NOLOAD);
    void *sym;

    sym = symbol(handle, "cuLaunchKernel");
    memcpy(&direct_launch, &sym, sizeof(sym));
    sym = symbol(handle, "cuEventQuery");
    memcpy(&direct_event_query, &sym, sizeof(sym));
    sym = symbol(handle, "cuStreamQuery");
    memcpy(&direct_stream_query, &sym, sizeof(sym));
}
#endif

struct objects {
    gpu_stream *stream;
    gpu_function *empty;
    gpu_event *event;
    void *raw_stream;
    void *raw_function;
    void *raw_event;
};

static unsigned launches, queries, sync_every;

/* Launches per second; the loop is the same in both arms but for the one call. */
static double launch_rate(const struct objects *o, bool direct)
{
    gpu_launch_config config = gpu_launch_config_1d(1, 1);
    unsigned failures = 0;
    uint64_t t0 = gpu_test_now_ns(), t1;

    for (unsigned i = 0; i < launches; i++) {
        if (direct)
            failures += DIRECT_LAUNCH(o->raw_function, 1, 1, 1, 1, 1, 1, 0, o->raw_stream, NULL, NULL) != 0;
        else
            failures += gpu_stream_launch_function(o->stream, o->empty, &config, NULL) != GPU_OK;
        if ((i + 1) % sync_every == 0)
            BENCH_CHECK(gpu_stream_synchronize(o->stream));
    }
    BENCH_CHECK(gpu_stream_synchronize(o->stream));
    t1 = gpu_test_now_ns();
    if (failures) {
        printf("FAILED: %u launches failed (%s arm)\n", failures, direct ? "direct" : "gpushim");
        exit(1);
    }
    return launches / ((double)(t1 - t0) / 1e9);
}

static double event_query_rate(const struct objects *o, bool direct)
{
    unsigned not_done = 0;
    uint64_t t0 = gpu_test_now_ns(), t1;

    for (unsigned i = 0; i < queries; i++) {
        bool done = false;

        if (direct)
            not_done += DIRECT_EVENT_QUERY(o->raw_event) != 0;
        else
            not_done += gpu_event_is_complete(o->event, &done) != GPU_OK || !done;
    }
    t1 = gpu_test_now_ns();
    if (not_done) {
        printf("FAILED: a completed event queried as not complete %u times\n", not_done);
        exit(1);
    }
    return queries / ((double)(t1 - t0) / 1e9);
}

static double stream_query_rate(const struct objects *o, bool direct)
{
    unsigned busy = 0;
    uint64_t t0 = gpu_test_now_ns(), t1;

    for (unsigned i = 0; i < queries; i++) {
        bool idle = false;

        if (direct)
            busy += DIRECT_STREAM_QUERY(o->raw_stream) != 0;
        else
            busy += gpu_stream_is_complete(o->stream, &idle) != GPU_OK || !idle;
    }
    t1 = gpu_test_now_ns();
    if (busy) {
        printf("FAILED: an idle stream queried as busy %u times\n", busy);
        exit(1);
    }
    return queries / ((double)(t1 - t0) / 1e9);
}

typedef double (*rate_fn)(const struct objects *o, bool direct);

static void measure(const char *name, rate_fn rate, const struct objects *o, unsigned reps, double target)
{
    double mine[MAX_REPS], theirs[MAX_REPS], paired[MAX_REPS];
    double m, d, lo, hi;

    rate(o, false);
    rate(o, true);
    for (unsigned r = 0; r < reps; r++) {
        bool direct_first = r % 2;

        if (direct_first)
            theirs[r] = rate(o, true);
        mine[r] = rate(o, false);
        if (!direct_first)
            theirs[r] = rate(o, true);
    }
    /* The ratio of each rep's pair, measured back to back, shows the run's noise. */
    lo = hi = mine[0] / theirs[0];
    for (unsigned r = 0; r < reps; r++) {
        paired[r] = mine[r] / theirs[r];
        lo = paired[r] < lo ? paired[r] : lo;
        hi = paired[r] > hi ? paired[r] : hi;
    }
    m = gpu_test_median(mine, reps);
    d = gpu_test_median(theirs, reps);
    printf("%-14s | %14.0f | %14.0f | %7.4f | %7.4f (%.4f..%.4f) | %9.1f | %9.1f | %s\n", name, m, d, m / d,
           gpu_test_median(paired, reps), lo, hi, 1e9 / m, 1e9 / d,
           target > 0 ? (m / d >= target ? "target >= 0.99: met" : "target >= 0.99: NOT met") : "-");
    printf("DISPATCH op=%s gpushim_per_s=%.1f direct_per_s=%.1f ratio=%.4f paired_median=%.4f paired_min=%.4f "
           "paired_max=%.4f\n",
           name, m, d, m / d, gpu_test_median(paired, reps), lo, hi);
}

int main(void)
{
    /* Many short reps rather than a few long ones: each pair is measured back to back, so drift moves both arms alike. */
    unsigned reps = gpu_test_env("GPUSHIM_BENCH_REPS", 64);
    struct objects o;

    launches = gpu_test_env("GPUSHIM_BENCH_LAUNCHES", 4096);
    queries = gpu_test_env("GPUSHIM_BENCH_QUERIES", 20000);
    sync_every = gpu_test_env("GPUSHIM_BENCH_SYNC_EVERY", 256);
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    if (!bench_gpu_ready("dispatch"))
        return BENCH_SKIP;
#ifndef GPUSHIM_BENCH_LINKED
    resolve_direct();
#endif
    memset(&o, 0, sizeof(o));
    BENCH_CHECK(gpu_stream_create_non_blocking(NULL, &o.stream));
    BENCH_CHECK(gpu_event_create(NULL, &o.event));
    o.empty = bench_function(KERNEL_EMPTY);
    o.raw_stream = gpu_stream_get_raw(o.stream);
    o.raw_function = gpu_function_get_raw(o.empty);
    o.raw_event = gpu_event_get_raw(o.event);
    BENCH_CHECK(gpu_stream_record_event(o.stream, o.event));
    /*
     * gpushim left device 0's context current on this thread with its first
     * call (a thread with none gets the object's), so the direct arm runs in
     * the same context without setting it.
     */
    BENCH_CHECK(gpu_stream_synchronize(o.stream));

    printf("dispatch: direct arm: %s; %u reps; %u launches (sync every %u), %u queries a rep\n", DIRECT_ARM, reps,
           launches, sync_every, queries);
    printf("%-14s | %14s | %14s | %7s | %-26s | %9s | %9s | %s\n", "call", "gpushim /s", "direct /s", "ratio",
           "paired ratio (min..max)", "ns gpushim", "ns direct", "");
    measure("launch", launch_rate, &o, reps, 0.99);
    measure("event query", event_query_rate, &o, reps, 0.99);
    measure("stream query", stream_query_rate, &o, reps, 0.99);

    gpu_event_destroy(o.event);
    gpu_stream_destroy(o.stream);
    return 0;
}
