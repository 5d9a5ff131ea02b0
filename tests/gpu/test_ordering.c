/* SPDX-License-Identifier: MIT */
/*
 * Stream ordering at gpushim's level: the race aprender-gpu measured, made to
 * show or not.
 *
 * c host threads each own a stream and buffers and repeat: a legacy
 * synchronous copy in (gpu_buffer_copy_from_host) of an input that changes
 * every round, a long work kernel on the thread's stream, a legacy synchronous
 * copy out, and a check against the host's answer. Nothing else synchronises.
 * On streams from gpu_stream_create() the legacy copies are ordered against
 * the kernels, so no round may be wrong. With GPUSHIM_STREAM_NONBLOCKING=1 the
 * streams are non-blocking and the copies race the kernels: that mode's wrong
 * rounds are printed (aprender-gpu saw 11 distinct answers of 40), not asserted.
 *
 * One line per run: ORDERING mode=<ordered|nonblocking> c=<threads> ...
 * Knobs: GPUSHIM_ORDERING_ROUNDS (per thread), GPUSHIM_ORDERING_N (elements),
 * GPUSHIM_WORK_ITERS (steps per element).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct worker {
    pthread_t thread;
    unsigned id;
    unsigned rounds;
    uint32_t n;
    uint32_t iters;
    work_map map;
    unsigned flags;         /* the flags gpu_stream_create() chose */
    unsigned wrong_rounds;
    size_t wrong_elements;
    gpu_test_error error;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    size_t bytes = (size_t)w->n * sizeof(uint32_t);
    uint32_t *in = malloc(bytes);
    uint32_t *out = malloc(bytes);
    gpu_stream *stream = NULL;
    gpu_buffer *d_in = NULL, *d_out = NULL;
    gpu_test_error *e = &w->error;

    if (!in || !out) {
        gpu_test_fail(e, "out of host memory");
        goto done;
    }
    /* The stream is made here, on the worker, as a server's request thread would. */
    if (!gpu_test_ok(e, gpu_stream_create(NULL, &stream), "gpu_stream_create") ||
        !gpu_test_ok(e, gpu_buffer_create(NULL, bytes, &d_in), "gpu_buffer_create") ||
        !gpu_test_ok(e, gpu_buffer_create(NULL, bytes, &d_out), "gpu_buffer_create"))
        goto done;
    w->flags = gpu_stream_get_flags(stream);
    for (unsigned r = 0; r < w->rounds; r++) {
        size_t wrong;

        uint32_t seed = w->id * 1000003u + r;

        gpu_test_fill_input(in, w->n, seed);
        if (!gpu_test_ok(e, gpu_buffer_copy_from_host(d_in, in, bytes), "gpu_buffer_copy_from_host") ||
            !gpu_test_ok(e, gpu_test_launch_work(stream, d_in, d_out, w->n, w->iters), "launch work") ||
            !gpu_test_ok(e, gpu_buffer_copy_to_host(d_out, out, bytes), "gpu_buffer_copy_to_host"))
            break;
        wrong = gpu_test_count_wrong(out, w->n, seed, w->map);
        w->wrong_rounds += wrong != 0;
        w->wrong_elements += wrong;
    }
done:
    /* In the racy mode a kernel may still be running: it must finish before its buffers go. */
    if (stream)
        gpu_test_ok(e, gpu_stream_synchronize(stream), "gpu_stream_synchronize");
    gpu_buffer_destroy(d_in);
    gpu_buffer_destroy(d_out);
    gpu_stream_destroy(stream);
    free(in);
    free(out);
    return NULL;
}

/* How long one work kernel takes: the window a racing copy has. */
static double kernel_ms(uint32_t n, uint32_t iters)
{
    gpu_stream *s = NULL;
    gpu_buffer *a = NULL, *b = NULL;
    gpu_event *t0 = NULL, *t1 = NULL;
    float ms = 0.0f;
    bool ok;

    /* The second kernel alone is timed: the first also pays for the JIT and first-touch costs. */
    ok = gpu_stream_create_non_blocking(NULL, &s) == GPU_OK && gpu_buffer_create(NULL, (size_t)n * 4, &a) == GPU_OK &&
         gpu_buffer_create(NULL, (size_t)n * 4, &b) == GPU_OK && gpu_event_create_timed(NULL, &t0) == GPU_OK &&
         gpu_event_create_timed(NULL, &t1) == GPU_OK && gpu_test_launch_work(s, a, b, n, iters) == GPU_OK &&
         gpu_stream_record_event(s, t0) == GPU_OK && gpu_test_launch_work(s, a, b, n, iters) == GPU_OK &&
         gpu_stream_record_event(s, t1) == GPU_OK && gpu_event_synchronize(t1) == GPU_OK &&
         gpu_event_get_elapsed_ms(t0, t1, &ms) == GPU_OK;
    if (!ok)
        ms = -1.0f;
    gpu_event_destroy(t0);
    gpu_event_destroy(t1);
    gpu_buffer_destroy(a);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
    return ms;
}

static void run(unsigned threads, bool nonblocking)
{
    const char *mode = nonblocking ? "nonblocking" : "ordered";
    unsigned rounds = gpu_test_env("GPUSHIM_ORDERING_ROUNDS", 100);
    uint32_t n = gpu_test_env("GPUSHIM_ORDERING_N", 1u << 20);
    uint32_t iters = gpu_test_env("GPUSHIM_WORK_ITERS", 2048);
    work_map map = work_map_for(iters);
    struct worker *workers = calloc(threads, sizeof(*workers));
    unsigned wrong_rounds = 0;
    size_t wrong_elements = 0;
    uint64_t t0, t1;

    assert_non_null(workers);
    /* Set before any thread starts: getenv() in the workers then races no setenv(). */
    if (nonblocking)
        assert_int_equal(setenv(GPU_STREAM_NONBLOCKING_ENV, "1", 1), 0);
    else
        assert_int_equal(unsetenv(GPU_STREAM_NONBLOCKING_ENV), 0);
    t0 = gpu_test_now_ns();
    for (unsigned i = 0; i < threads; i++) {
        workers[i].id = i + threads * 17u + (nonblocking ? 7919u : 0u);
        workers[i].rounds = rounds;
        workers[i].n = n;
        workers[i].iters = iters;
        workers[i].map = map;
        assert_int_equal(pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]), 0);
    }
    for (unsigned i = 0; i < threads; i++)
        assert_int_equal(pthread_join(workers[i].thread, NULL), 0);
    t1 = gpu_test_now_ns();
    unsetenv(GPU_STREAM_NONBLOCKING_ENV);
    for (unsigned i = 0; i < threads; i++) {
        wrong_rounds += workers[i].wrong_rounds;
        wrong_elements += workers[i].wrong_elements;
    }
    printf("ORDERING mode=%s c=%u rounds=%u n=%u iters=%u wrong=%u wrong_elements=%zu wall_ms=%.1f\n", mode,
           threads, rounds * threads, n, iters, wrong_rounds, wrong_elements, (double)(t1 - t0) / 1e6);
    for (unsigned i = 0; i < threads; i++) {
        assert_no_worker_error(&workers[i].error);
        /* Without this the racy measurement would silently measure the ordered mode. */
        assert_int_equal(workers[i].flags, nonblocking ? GPU_STREAM_NON_BLOCKING : GPU_STREAM_DEFAULT);
    }
    free(workers);
    if (!nonblocking)
        assert_int_equal(wrong_rounds, 0);
}

static void ordered_c1(void **state) { (void)state; run(1, false); }
static void ordered_c4(void **state) { (void)state; run(4, false); }
static void ordered_c8(void **state) { (void)state; run(8, false); }
static void nonblocking_c1(void **state) { (void)state; run(1, true); }
static void nonblocking_c4(void **state) { (void)state; run(4, true); }
static void nonblocking_c8(void **state) { (void)state; run(8, true); }

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ordered_c1),     cmocka_unit_test(ordered_c4),     cmocka_unit_test(ordered_c8),
        cmocka_unit_test(nonblocking_c1), cmocka_unit_test(nonblocking_c4), cmocka_unit_test(nonblocking_c8),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-ordering");
    uint32_t iters = gpu_test_env("GPUSHIM_WORK_ITERS", 2048);
    uint32_t n = gpu_test_env("GPUSHIM_ORDERING_N", 1u << 20);

    if (rc != 0)
        return rc;
    printf("ORDERING kernel_ms=%.3f n=%u iters=%u\n", kernel_ms(n, iters), n, iters);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
