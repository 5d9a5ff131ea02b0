/* SPDX-License-Identifier: MIT */
/*
 * Graphs: 100 small kernels launched one by one, against the same 100
 * captured once into a graph and replayed with one launch. Each iteration
 * ends with gpu_stream_synchronize; the two ways alternate, iteration by
 * iteration. Prints the median time an iteration takes each way and their
 * ratio, and checks the data: every kernel adds 1 to each element, so after
 * all iterations each element holds 100 times their number.
 *
 * Knobs: GPUSHIM_BENCH_ITERATIONS, GPUSHIM_BENCH_KERNELS (kernels an iteration).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

enum { N = 256, MAX_ITERATIONS = 100000 };

int main(void)
{
    unsigned iterations = gpu_test_env("GPUSHIM_BENCH_ITERATIONS", 300);
    unsigned kernels = gpu_test_env("GPUSHIM_BENCH_KERNELS", 100);
    double *eager_us, *graph_us;
    uint32_t host[N];
    uint32_t n = N;
    uint64_t ptr;
    void *args[] = {&ptr, &n};
    gpu_launch_config config = gpu_launch_config_1d(1, N);
    gpu_stream *s;
    gpu_buffer *buf;
    gpu_function *add_one;
    gpu_graph *graph;
    gpu_graph_exec *exec;
    unsigned total = 0;
    size_t wrong = 0;
    double eager, replay;

    if (!bench_gpu_ready("graphs"))
        return BENCH_SKIP;
    if (iterations > MAX_ITERATIONS)
        iterations = MAX_ITERATIONS;
    eager_us = calloc(iterations, sizeof(double));
    graph_us = calloc(iterations, sizeof(double));
    if (!eager_us || !graph_us)
        bench_die("calloc", GPU_ERR_OUT_OF_MEMORY);
    add_one = bench_function(KERNEL_ADD_ONE);
    BENCH_CHECK(gpu_stream_create_non_blocking(NULL, &s));
    BENCH_CHECK(gpu_buffer_create(NULL, sizeof(host), &buf));
    memset(host, 0, sizeof(host));
    BENCH_CHECK(gpu_buffer_copy_from_host(buf, host, sizeof(host)));
    ptr = gpu_buffer_get_device_ptr(buf);

    BENCH_CHECK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_THREAD_LOCAL));
    for (unsigned k = 0; k < kernels; k++)
        BENCH_CHECK(gpu_stream_launch_function(s, add_one, &config, args));
    BENCH_CHECK(gpu_stream_end_capture(s, &graph));
    BENCH_CHECK(gpu_graph_instantiate(graph, &exec));

    /* One of each first: the graph's first launch uploads it. */
    for (int warm = 0; warm < 2; warm++) {
        for (unsigned k = 0; k < kernels; k++)
            BENCH_CHECK(gpu_stream_launch_function(s, add_one, &config, args));
        BENCH_CHECK(gpu_stream_launch_graph(s, exec));
        BENCH_CHECK(gpu_stream_synchronize(s));
        total += 2;
    }
    for (unsigned i = 0; i < iterations; i++) {
        uint64_t t0 = gpu_test_now_ns(), t1, t2;

        for (unsigned k = 0; k < kernels; k++)
            BENCH_CHECK(gpu_stream_launch_function(s, add_one, &config, args));
        BENCH_CHECK(gpu_stream_synchronize(s));
        t1 = gpu_test_now_ns();
        BENCH_CHECK(gpu_stream_launch_graph(s, exec));
        BENCH_CHECK(gpu_stream_synchronize(s));
        t2 = gpu_test_now_ns();
        eager_us[i] = (double)(t1 - t0) / 1e3;
        graph_us[i] = (double)(t2 - t1) / 1e3;
        total += 2;
    }
    BENCH_CHECK(gpu_buffer_copy_to_host(buf, host, sizeof(host)));
    for (int i = 0; i < N; i++)
        wrong += host[i] != total * kernels;

    eager = gpu_test_median(eager_us, iterations);
    replay = gpu_test_median(graph_us, iterations);
    printf("graphs: %u iterations of %u kernels (add_one over %d elements), each way\n", iterations, kernels, N);
    printf("%-22s | %12s | %12s | %12s\n", "way", "median us", "min us", "us a kernel");
    printf("%-22s | %12.1f | %12.1f | %12.2f\n", "one launch a kernel", eager, gpu_test_min(eager_us, iterations),
           eager / kernels);
    printf("%-22s | %12.1f | %12.1f | %12.2f\n", "graph replay", replay, gpu_test_min(graph_us, iterations),
           replay / kernels);
    printf("ratio one-by-one / graph: %.3f; data: %s (%zu of %d elements wrong)\n", eager / replay,
           wrong ? "WRONG" : "correct", wrong, N);
    printf("GRAPHS kernels=%u iterations=%u eager_us=%.2f graph_us=%.2f ratio=%.4f wrong=%zu\n", kernels,
           iterations, eager, replay, eager / replay, wrong);

    gpu_graph_exec_destroy(exec);
    gpu_graph_destroy(graph);
    gpu_buffer_destroy(buf);
    gpu_stream_destroy(s);
    free(eager_us);
    free(graph_us);
    return wrong ? 1 : 0;
}
