/* SPDX-License-Identifier: MIT */
/*
 * Events: completion while a long kernel runs, ordering between streams, timing.
 *
 * The spin kernel holds one GPU thread for a set time (GPUSHIM_SPIN_MS), so
 * "not done yet" is a certainty at the moment the host asks, not a race.
 * Cross-stream ordering is checked by data: a producer stream writes after a
 * spin, a consumer stream that waits on the producer's event must read what
 * it wrote. The same consumer without the wait is run first as a control, to
 * show that the check can see a missing order (printed, not asserted).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static uint64_t spin_ns(void)
{
    return (uint64_t)gpu_test_env("GPUSHIM_SPIN_MS", 100) * 1000000u;
}

static void incomplete_while_kernel_runs(void **state)
{
    gpu_stream *s;
    gpu_event *e;
    bool done = true;
    uint64_t t0, t1;

    (void)state;
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_event_create(NULL, &e));
    assert_gpu_ok(gpu_test_launch_spin(s, spin_ns()));
    assert_gpu_ok(gpu_stream_record_event(s, e));
    assert_gpu_ok(gpu_event_is_complete(e, &done));
    assert_false(done);
    t0 = gpu_test_now_ns();
    assert_gpu_ok(gpu_event_synchronize(e));
    t1 = gpu_test_now_ns();
    done = false;
    assert_gpu_ok(gpu_event_is_complete(e, &done));
    assert_true(done);
    printf("EVENTS is_complete: false while spinning, true after synchronize (waited %.1f ms of a %.0f ms spin)\n",
           (double)(t1 - t0) / 1e6, (double)spin_ns() / 1e6);
    gpu_event_destroy(e);
    gpu_stream_destroy(s);
}

static void never_recorded_is_complete(void **state)
{
    gpu_event *e;
    bool done = false;

    (void)state;
    assert_gpu_ok(gpu_event_create(NULL, &e));
    assert_gpu_ok(gpu_event_is_complete(e, &done));
    assert_true(done);
    assert_gpu_ok(gpu_event_synchronize(e));
    gpu_event_destroy(e);
}

/*
 * Producer: spin, then fill `shared` with `value`, then record `ready`.
 * Consumer: (wait on `ready`), copy `shared` out by a kernel, copy to the host.
 * Returns how many of the n words the consumer saw equal to `value`.
 */
static uint32_t produce_consume(bool wait, uint32_t value, uint32_t n)
{
    gpu_stream *producer, *consumer;
    gpu_event *ready;
    gpu_buffer *shared, *seen;
    gpu_host_buffer *host;
    uint32_t *zeros = calloc(n, sizeof(uint32_t));
    uint32_t *out;
    uint32_t matches = 0;

    assert_non_null(zeros);
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &producer));
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &consumer));
    assert_gpu_ok(gpu_event_create(NULL, &ready));
    assert_gpu_ok(gpu_buffer_create(NULL, (size_t)n * 4, &shared));
    assert_gpu_ok(gpu_buffer_create(NULL, (size_t)n * 4, &seen));
    assert_gpu_ok(gpu_host_buffer_create(NULL, (size_t)n * 4, &host));
    out = gpu_host_buffer_get_data(host);
    memset(out, 0xff, (size_t)n * 4);
    assert_gpu_ok(gpu_buffer_copy_from_host(shared, zeros, (size_t)n * 4));

    assert_gpu_ok(gpu_test_launch_spin(producer, spin_ns() / 2));
    assert_gpu_ok(gpu_test_launch_fill(producer, shared, value, n));
    assert_gpu_ok(gpu_stream_record_event(producer, ready));
    if (wait)
        assert_gpu_ok(gpu_stream_wait_event(consumer, ready));
    assert_gpu_ok(gpu_test_launch_copy(consumer, shared, seen, n));
    assert_gpu_ok(gpu_buffer_copy_to_host_async(seen, out, (size_t)n * 4, consumer));
    assert_gpu_ok(gpu_stream_synchronize(consumer));
    for (uint32_t i = 0; i < n; i++)
        matches += out[i] == value;
    assert_gpu_ok(gpu_stream_synchronize(producer));

    gpu_host_buffer_destroy(host);
    gpu_buffer_destroy(seen);
    gpu_buffer_destroy(shared);
    gpu_event_destroy(ready);
    gpu_stream_destroy(consumer);
    gpu_stream_destroy(producer);
    free(zeros);
    return matches;
}

static void wait_event_orders_streams(void **state)
{
    uint32_t n = 1u << 16;
    uint32_t value = 0x5eed0000u ^ (uint32_t)(gpu_test_now_ns() & 0xffffu);
    uint32_t control, ordered;

    (void)state;
    control = produce_consume(false, value, n);
    ordered = produce_consume(true, value ^ 0x00ff00ffu, n);
    printf("EVENTS cross_stream n=%u without_wait_saw_new=%u with_wait_saw_new=%u\n", n, control, ordered);
    assert_int_equal(ordered, n);
}

static void timed_elapsed(void **state)
{
    gpu_stream *s;
    gpu_event *t0, *t1, *untimed;
    uint64_t ns = spin_ns() / 4;
    float ms = -1.0f;

    (void)state;
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_event_create_timed(NULL, &t0));
    assert_gpu_ok(gpu_event_create_timed(NULL, &t1));
    assert_gpu_ok(gpu_event_create(NULL, &untimed));
    assert_gpu_ok(gpu_stream_record_event(s, t0));
    assert_gpu_ok(gpu_test_launch_spin(s, ns));
    assert_gpu_ok(gpu_stream_record_event(s, t1));
    assert_gpu_ok(gpu_stream_record_event(s, untimed));
    assert_gpu_ok(gpu_event_synchronize(t1));
    assert_gpu_ok(gpu_event_get_elapsed_ms(t0, t1, &ms));
    printf("EVENTS elapsed_ms=%.3f over a %.1f ms spin\n", (double)ms, (double)ns / 1e6);
    assert_true(ms > 0.0f);
    /* The spin waits on the GPU's own clock, so the events cannot see less than most of it. */
    assert_true((double)ms >= 0.5 * (double)ns / 1e6);
    assert_gpu_status(gpu_event_get_elapsed_ms(t0, untimed, &ms), GPU_ERR_INVALID_ARG);
    gpu_event_destroy(untimed);
    gpu_event_destroy(t1);
    gpu_event_destroy(t0);
    gpu_stream_destroy(s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(incomplete_while_kernel_runs),
        cmocka_unit_test(never_recorded_is_complete),
        cmocka_unit_test(wait_event_orders_streams),
        cmocka_unit_test(timed_elapsed),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-events");

    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
