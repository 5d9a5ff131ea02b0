/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's device memory, its costs as the live allocations grow:
 * with FEW and with MANY allocations alive (default 1,000 and 100,000) on
 * its one device, the median cost of
 *   alloc     cuMemAlloc_v2 of 256 bytes (and its cuMemFree_v2 after, untimed)
 *   free      cuMemFree_v2 of those allocations
 *   lookup    cuPointerGetAttributes(RANGE_START_ADDR) of an address inside a
 *             random live allocation: the address-to-allocation search that
 *             every copy, launch and host kernel does
 *   big       cuMemAlloc_v2 + cuMemFree_v2 of 1 GiB, untouched
 * and the ratio MANY / FEW. A search that walks the allocations costs about
 * MANY / FEW times more (100 with the defaults); O(log n) costs a small factor.
 * The fake is linked here and called by its symbols: no gpushim in between.
 *
 * Knobs: GPUSHIM_BENCH_REPS, GPUSHIM_BENCH_FEW, GPUSHIM_BENCH_MANY, GPUSHIM_BENCH_OPS (timed calls a rep).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_abi.h"
#include "support.h"

#define GPU__ENTRY(need, name, symbol, params, args) cuabi_result symbol params;
#include "entry_points.h"
#undef GPU__ENTRY
cuabi_result cuInit(unsigned int flags);

enum { MAX_REPS = 1000, SMALL = 256, RANGE_START_ADDR = CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR };

static void check(cuabi_result rc, const char *what)
{
    if (rc != CUABI_SUCCESS) {
        fprintf(stderr, "fake-memory: %s failed: %d\n", what, (int)rc);
        exit(1);
    }
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

struct costs {
    double alloc, free, lookup, big;
};

/* Medians over `reps` of the mean cost of `ops` calls, with `live` allocations alive. */
static struct costs measure(size_t live, unsigned reps, unsigned ops)
{
    cuabi_deviceptr *held = malloc(live * sizeof(*held)), *extra = malloc(ops * sizeof(*extra));
    static double alloc_ns[MAX_REPS], free_ns[MAX_REPS], lookup_ns[MAX_REPS], big_ns[MAX_REPS];
    struct costs c;
    size_t bad = 0;

    if (!held || !extra) {
        fprintf(stderr, "fake-memory: out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < live; i++)
        check(cuMemAlloc_v2(&held[i], SMALL), "cuMemAlloc_v2");
    for (unsigned r = 0; r < reps; r++) {
        uint64_t t0 = gpu_test_now_ns();
        cuabi_deviceptr big;

        for (unsigned i = 0; i < ops; i++)
            check(cuMemAlloc_v2(&extra[i], SMALL), "cuMemAlloc_v2");
        alloc_ns[r] = (double)(gpu_test_now_ns() - t0) / ops;
        t0 = gpu_test_now_ns();
        for (unsigned i = 0; i < ops; i++)
            check(cuMemFree_v2(extra[i]), "cuMemFree_v2");
        free_ns[r] = (double)(gpu_test_now_ns() - t0) / ops;
        t0 = gpu_test_now_ns();
        for (unsigned i = 0; i < ops; i++) {
            cuabi_pointer_attribute attribute = RANGE_START_ADDR;
            cuabi_deviceptr base = 0;
            void *out = &base;
            size_t k = next_random() % live;

            check(cuPointerGetAttributes(1, &attribute, &out, held[k] + next_random() % SMALL),
                  "cuPointerGetAttributes");
            bad += base != held[k];
        }
        lookup_ns[r] = (double)(gpu_test_now_ns() - t0) / ops;
        t0 = gpu_test_now_ns();
        check(cuMemAlloc_v2(&big, (size_t)1 << 30), "cuMemAlloc_v2 (1 GiB)");
        check(cuMemFree_v2(big), "cuMemFree_v2 (1 GiB)");
        big_ns[r] = (double)(gpu_test_now_ns() - t0);
    }
    for (size_t i = 0; i < live; i++)
        check(cuMemFree_v2(held[i]), "cuMemFree_v2");
    free(held);
    free(extra);
    if (bad) {
        fprintf(stderr, "fake-memory: %zu lookups found the wrong allocation\n", bad);
        exit(1);
    }
    c.alloc = gpu_test_median(alloc_ns, reps);
    c.free = gpu_test_median(free_ns, reps);
    c.lookup = gpu_test_median(lookup_ns, reps);
    c.big = gpu_test_median(big_ns, reps);
    return c;
}

int main(void)
{
    unsigned reps = gpu_test_env("GPUSHIM_BENCH_REPS", 15);
    unsigned few = gpu_test_env("GPUSHIM_BENCH_FEW", 1000);
    unsigned many = gpu_test_env("GPUSHIM_BENCH_MANY", 100000);
    unsigned ops = gpu_test_env("GPUSHIM_BENCH_OPS", 1000);
    cuabi_context ctx;
    struct costs a, b;

    if (reps > MAX_REPS)
        reps = MAX_REPS;
    if (reps == 0 || few == 0 || many == 0 || ops == 0) {
        fprintf(stderr, "fake-memory: the knobs must be 1 or more\n");
        return 1;
    }
    check(cuInit(0), "cuInit");
    check(cuDevicePrimaryCtxRetain(&ctx, 0), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    a = measure(few, reps, ops);
    b = measure(many, reps, ops);
    printf("fake-memory: median ns a call, %u reps of %u calls, %u-byte allocations\n", reps, ops, SMALL);
    printf("%-8s %12s %12s %10s\n", "call", "live=few", "live=many", "many/few");
    printf("%-8s %12.1f %12.1f %10.2f\n", "alloc", a.alloc, b.alloc, b.alloc / a.alloc);
    printf("%-8s %12.1f %12.1f %10.2f\n", "free", a.free, b.free, b.free / a.free);
    printf("%-8s %12.1f %12.1f %10.2f\n", "lookup", a.lookup, b.lookup, b.lookup / a.lookup);
    printf("%-8s %12.1f %12.1f %10.2f  (1 GiB, alloc + free)\n", "big", a.big, b.big, b.big / a.big);
    printf("FAKE_MEMORY few=%u many=%u alloc_ns=%.1f free_ns=%.1f lookup_ns=%.1f big_ns=%.1f lookup_ratio=%.2f\n", few,
           many, b.alloc, b.free, b.lookup, b.big, b.lookup / a.lookup);
    check(cuDevicePrimaryCtxRelease_v2(0), "cuDevicePrimaryCtxRelease_v2");
    return 0;
}
