/* SPDX-License-Identifier: MIT */
/*
 * Stream-ordered allocation: a request that allocates a device
 * buffer, uses it (a copy in and a copy back of its first bytes) and frees
 * it, then waits for its result, made two ways in one run:
 *   stream-ordered  gpu_buffer_create_async / gpu_buffer_destroy_async on the
 *                   stream (cuMemAllocAsync / cuMemFreeAsync), from the
 *                   device's default pool with its release threshold raised
 *                   so that freed memory stays reserved for the next request;
 *   plain           gpu_buffer_create / gpu_buffer_destroy (cuMemAlloc /
 *                   cuMemFree) per request.
 * The ways alternate, rep by rep. Prints the median time a request takes each
 * way and their ratio, and checks every request's data. Runs against the fake
 * driver too (GPUSHIM_LIBCUDA), where the figures say nothing about a GPU.
 *
 * Knobs: GPUSHIM_BENCH_REPS, GPUSHIM_BENCH_POOL_REQUESTS (a rep), GPUSHIM_BENCH_POOL_KIB (a buffer's size).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

enum { USE_WORDS = 1024, MAX_REPS = 1000 };

static size_t wrong;

/* One request; `async` picks the way. The data is checked after the wait. */
static void request(gpu_stream *s, size_t bytes, bool async, uint32_t *in, uint32_t *out, uint32_t seed)
{
    gpu_buffer *b;

    for (uint32_t i = 0; i < USE_WORDS; i++)
        in[i] = seed * 2654435761u + i;
    if (async)
        BENCH_CHECK(gpu_buffer_create_async(s, bytes, &b));
    else
        BENCH_CHECK(gpu_buffer_create(gpu_stream_get_context(s), bytes, &b));
    BENCH_CHECK(gpu_buffer_copy_from_host_async(b, in, USE_WORDS * sizeof(uint32_t), s));
    BENCH_CHECK(gpu_buffer_copy_to_host_async(b, out, USE_WORDS * sizeof(uint32_t), s));
    if (async) {
        BENCH_CHECK(gpu_buffer_destroy_async(b, s));
        BENCH_CHECK(gpu_stream_synchronize(s));
    } else {
        BENCH_CHECK(gpu_stream_synchronize(s));
        gpu_buffer_destroy(b);
    }
    for (uint32_t i = 0; i < USE_WORDS; i++)
        wrong += out[i] != in[i];
}

int main(void)
{
    unsigned reps = gpu_test_env("GPUSHIM_BENCH_REPS", 15);
    unsigned requests = gpu_test_env("GPUSHIM_BENCH_POOL_REQUESTS", 200);
    size_t bytes = (size_t)gpu_test_env("GPUSHIM_BENCH_POOL_KIB", 1024) * 1024;
    double async_us[MAX_REPS], plain_us[MAX_REPS];
    gpu_host_buffer *in, *out;
    gpu_stream *s;
    uint64_t reserved = 0;
    double a, p;
    gpu_status st;

    if (!bench_gpu_ready("pool"))
        return BENCH_SKIP;
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    if (bytes < USE_WORDS * sizeof(uint32_t))
        bytes = USE_WORDS * sizeof(uint32_t);
    BENCH_CHECK(gpu_stream_create_non_blocking(NULL, &s));
    BENCH_CHECK(gpu_host_buffer_create(NULL, USE_WORDS * sizeof(uint32_t), &in));
    BENCH_CHECK(gpu_host_buffer_create(NULL, USE_WORDS * sizeof(uint32_t), &out));
    /* Without a stream-ordered allocator there is nothing to compare. */
    st = gpu_context_pool_set_release_threshold(NULL, UINT64_MAX);
    if (st == GPU_ERR_NOT_SUPPORTED) {
        printf("pool: skipped: %s\n", gpu_last_error_get_message());
        return BENCH_SKIP;
    }
    BENCH_CHECK(st);
    /* Warm both ways once. */
    request(s, bytes, true, gpu_host_buffer_get_data(in), gpu_host_buffer_get_data(out), 1);
    request(s, bytes, false, gpu_host_buffer_get_data(in), gpu_host_buffer_get_data(out), 2);
    for (unsigned r = 0; r < reps; r++) {
        for (int way = 0; way < 2; way++) {
            uint64_t t0 = gpu_test_now_ns();

            for (unsigned q = 0; q < requests; q++)
                request(s, bytes, way == 0, gpu_host_buffer_get_data(in), gpu_host_buffer_get_data(out), r * requests + q);
            (way == 0 ? async_us : plain_us)[r] = (double)(gpu_test_now_ns() - t0) / 1e3 / requests;
        }
    }
    BENCH_CHECK(gpu_context_pool_get_usage(NULL, &reserved, NULL));
    a = gpu_test_median(async_us, reps);
    p = gpu_test_median(plain_us, reps);
    printf("pool: %u reps of %u requests, each: allocate %zu bytes, copy %zu bytes in and back, free, wait\n", reps,
           requests, bytes, USE_WORDS * sizeof(uint32_t));
    printf("%-36s | %12s | %12s\n", "way", "median us", "min us");
    printf("%-36s | %12.2f | %12.2f\n", "stream-ordered (cuMemAllocAsync)", a, gpu_test_min(async_us, reps));
    printf("%-36s | %12.2f | %12.2f\n", "plain (cuMemAlloc/cuMemFree)", p, gpu_test_min(plain_us, reps));
    printf("ratio plain / stream-ordered: %.2f; pool reserved at the end: %llu bytes; data: %s (%zu words wrong)\n",
           p / a, (unsigned long long)reserved, wrong ? "WRONG" : "correct", wrong);
    printf("POOL_BENCH bytes=%zu requests=%u reps=%u async_us=%.3f plain_us=%.3f ratio=%.3f wrong=%zu\n", bytes,
           requests, reps, a, p, p / a, wrong);
    BENCH_CHECK(gpu_context_pool_set_release_threshold(NULL, 0));
    BENCH_CHECK(gpu_context_pool_trim(NULL, 0));
    gpu_host_buffer_destroy(out);
    gpu_host_buffer_destroy(in);
    gpu_stream_destroy(s);
    return wrong ? 1 : 0;
}
