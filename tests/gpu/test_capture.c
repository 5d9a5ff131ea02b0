/* SPDX-License-Identifier: MIT */
/*
 * Stream capture beside legacy-stream traffic, as aprender-gpu's
 * server does it.
 *
 * Copier threads do legacy synchronous copies in a loop, before, during and
 * after a capture on the test's thread. A capture on a non-blocking stream
 * (kernels and async copies) must succeed with every copy succeeding, and its
 * graph must replay correctly many times. A global capture on an ordered
 * stream is gpushim's to guard: while it is open, every legacy copy gets
 * GPU_ERR_GRAPH_CAPTURE with CUresult 906 from gpushim, without the driver
 * being called (the driver's own 906 comes with GPU_ERR_TRANSFER, and would
 * fail the test), so the capture is never invalidated: it ends in a graph,
 * and afterwards everything works. maint/capture-repeat.sh runs that case N
 * times and counts the runs that fail.
 *
 * A launch of a wrong shape during a capture is refused before the driver
 * sees it (launch.h), so the capture goes on and ends in a graph that
 * replays; the same launch made on the driver directly is printed beside it
 * (CAPTURE bad_shape ...): what the driver makes of the capture then.
 *
 * One line per case: CAPTURE stream=<non_blocking|ordered> mode=<...> ...
 * Knobs: GPUSHIM_CAPTURE_REPLAYS, GPUSHIM_CAPTURE_N, GPUSHIM_WORK_ITERS.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "kernels.h"

enum { COPIERS = 2, COPY_WORDS = 16384, PHASES = 3 };
enum { PHASE_BEFORE, PHASE_CAPTURE, PHASE_AFTER };

/* CUDA's stream-capture errors run from 900 to 908; these two are the ones this test meets. */
#define CUDA_ERROR_STREAM_CAPTURE_FIRST 900
#define CUDA_ERROR_STREAM_CAPTURE_INVALIDATED 901
#define CUDA_ERROR_STREAM_CAPTURE_IMPLICIT 906
#define CUDA_ERROR_STREAM_CAPTURE_LAST 908

struct copier {
    pthread_t thread;
    gpu_buffer *dev;
    uint32_t host[COPY_WORDS];
    /* Per phase, as copier_note() attributes each copy. */
    atomic_uint attempts[PHASES];
    atomic_uint failures[PHASES];
    atomic_uint refused[PHASES];        /* GPU_ERR_GRAPH_CAPTURE with 906: gpushim's refusal, no driver call */
    atomic_uint capture_errors[PHASES]; /* GPU_ERR_TRANSFER with a capture error, 900..908: the driver's */
    atomic_uint implicit_errors[PHASES]; /* of those, 906 */
    atomic_uint invalidated_errors[PHASES]; /* of those, 901 */
    atomic_uint other_errors[PHASES];
    char other_text[512];
};

static struct copier copiers[COPIERS];
static atomic_int phase;
static atomic_bool stop;

/*
 * Counts one copy. `before` and `after` are the phases read around it: a copy
 * that spanned a change of phase overlapped the capture's start or end, so it
 * counts as during the capture.
 */
static void copier_note(struct copier *c, int before, gpu_status st)
{
    int code = gpu_last_error_get_cuda_result();
    int after = atomic_load(&phase);
    int ph = before == after ? before : PHASE_CAPTURE;

    atomic_fetch_add(&c->attempts[ph], 1);
    if (st == GPU_OK)
        return;
    atomic_fetch_add(&c->failures[ph], 1);
    if (st == GPU_ERR_GRAPH_CAPTURE && code == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
        atomic_fetch_add(&c->refused[ph], 1);
    else if (st == GPU_ERR_TRANSFER && code >= CUDA_ERROR_STREAM_CAPTURE_FIRST && code <= CUDA_ERROR_STREAM_CAPTURE_LAST) {
        atomic_fetch_add(&c->capture_errors[ph], 1);
        if (code == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
            atomic_fetch_add(&c->implicit_errors[ph], 1);
        if (code == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
            atomic_fetch_add(&c->invalidated_errors[ph], 1);
    } else if (atomic_fetch_add(&c->other_errors[ph], 1) == 0) {
        snprintf(c->other_text, sizeof(c->other_text), "%s (CUresult %d): %s", gpu_status_get_name(st), code,
                 gpu_last_error_get_message());
    }
}

static void *copier_main(void *arg)
{
    struct copier *c = arg;

    while (!atomic_load(&stop)) {
        int before = atomic_load(&phase);

        copier_note(c, before, gpu_buffer_copy_from_host(c->dev, c->host, sizeof(c->host)));
        before = atomic_load(&phase);
        copier_note(c, before, gpu_buffer_copy_to_host(c->dev, c->host, sizeof(c->host)));
    }
    return NULL;
}

/* Buffers are made here, before any capture: allocating is itself unsafe during a global one. */
static void copiers_start(void)
{
    atomic_store(&phase, PHASE_BEFORE);
    atomic_store(&stop, false);
    for (int i = 0; i < COPIERS; i++) {
        struct copier *c = &copiers[i];

        memset(c, 0, sizeof(*c));
        for (int k = 0; k < COPY_WORDS; k++)
            c->host[k] = (uint32_t)(i * COPY_WORDS + k);
        assert_gpu_ok(gpu_buffer_create(NULL, sizeof(c->host), &c->dev));
        assert_int_equal(pthread_create(&c->thread, NULL, copier_main, c), 0);
    }
}

static void copiers_stop(void)
{
    atomic_store(&stop, true);
    for (int i = 0; i < COPIERS; i++) {
        pthread_join(copiers[i].thread, NULL);
        gpu_buffer_destroy(copiers[i].dev);
        copiers[i].dev = NULL;
    }
}

/*
 * Waits until every copier has done `count` more copies counted in phase `ph`
 * than when called; false after 10 s. Each copier has at most one copy in
 * flight at the call, so at least count - 1 of them began after it.
 */
static bool copiers_wait(int ph, unsigned count)
{
    uint64_t deadline = gpu_test_now_ns() + 10000000000ull;
    struct timespec pause = {0, 200000};
    unsigned target[COPIERS];

    for (int i = 0; i < COPIERS; i++)
        target[i] = atomic_load(&copiers[i].attempts[ph]) + count;
    for (;;) {
        bool all = true;

        for (int i = 0; i < COPIERS; i++)
            all = all && atomic_load(&copiers[i].attempts[ph]) >= target[i];
        if (all)
            return true;
        if (gpu_test_now_ns() > deadline)
            return false;
        nanosleep(&pause, NULL);
    }
}

/* A counter summed over the copiers; `offset` names the field (SUM() below). */
static unsigned sum_of(size_t offset, int ph)
{
    unsigned total = 0;

    for (int i = 0; i < COPIERS; i++) {
        atomic_uint *counters = (atomic_uint *)((char *)&copiers[i] + offset);

        total += atomic_load(&counters[ph]);
    }
    return total;
}

#define SUM(field, ph) sum_of(offsetof(struct copier, field), (ph))

/* The first unexpected copier error, for the failure message. */
static const char *other_error_text(void)
{
    for (int i = 0; i < COPIERS; i++)
        if (copiers[i].other_text[0])
            return copiers[i].other_text;
    return "";
}

static void print_copiers(void)
{
    printf(" copies_before=%u/%u copies_during=%u/%u copies_after=%u/%u (failed/attempted)"
           " during: refused_by_gpushim=%u driver_906=%u driver_901=%u other_capture_errors=%u",
           SUM(failures, PHASE_BEFORE), SUM(attempts, PHASE_BEFORE), SUM(failures, PHASE_CAPTURE),
           SUM(attempts, PHASE_CAPTURE), SUM(failures, PHASE_AFTER), SUM(attempts, PHASE_AFTER),
           SUM(refused, PHASE_CAPTURE),
           SUM(implicit_errors, PHASE_CAPTURE), SUM(invalidated_errors, PHASE_CAPTURE),
           SUM(capture_errors, PHASE_CAPTURE) - SUM(implicit_errors, PHASE_CAPTURE) -
               SUM(invalidated_errors, PHASE_CAPTURE));
}

static void capture_non_blocking(gpu_capture_mode mode, const char *mode_name)
{
    uint32_t n = gpu_test_env("GPUSHIM_CAPTURE_N", 1u << 18);
    uint32_t iters = gpu_test_env("GPUSHIM_WORK_ITERS", 512);
    unsigned replays = gpu_test_env("GPUSHIM_CAPTURE_REPLAYS", 200);
    size_t bytes = (size_t)n * sizeof(uint32_t);
    work_map map = work_map_for(iters);
    gpu_stream *s = NULL;
    gpu_host_buffer *h_in = NULL, *h_out = NULL;
    gpu_buffer *d_in = NULL, *d_out = NULL;
    gpu_graph *graph = NULL;
    gpu_graph_exec *exec = NULL;
    gpu_status begin, enq_in, enq_work, enq_out, end, inst = GPU_ERR_GRAPH_LAUNCH, replay = GPU_OK;
    char why[640] = "";
    bool overlapped;
    unsigned wrong = 0, done = 0;

    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_host_buffer_create(NULL, bytes, &h_in));
    assert_gpu_ok(gpu_host_buffer_create(NULL, bytes, &h_out));
    assert_gpu_ok(gpu_buffer_create(NULL, bytes, &d_in));
    assert_gpu_ok(gpu_buffer_create(NULL, bytes, &d_out));
    /* The kernel's function is looked up (a driver call) before the capture, as a real caller would. */
    assert_gpu_ok(gpu_test_launch_work(s, d_in, d_out, 1, 1));
    assert_gpu_ok(gpu_stream_synchronize(s));

    copiers_start();
    copiers_wait(PHASE_BEFORE, 4);
    atomic_store(&phase, PHASE_CAPTURE);
    begin = gpu_stream_begin_capture(s, mode);
    if (begin != GPU_OK)
        snprintf(why, sizeof(why), "begin: %s", gpu_last_error_get_message());
    enq_in = gpu_buffer_copy_from_host_async(d_in, gpu_host_buffer_get_data(h_in), bytes, s);
    enq_work = gpu_test_launch_work(s, d_in, d_out, n, iters);
    enq_out = gpu_buffer_copy_to_host_async(d_out, gpu_host_buffer_get_data(h_out), bytes, s);
    /* Hold the capture open until the copiers have provably run inside it. */
    overlapped = copiers_wait(PHASE_CAPTURE, 9);
    end = gpu_stream_end_capture(s, &graph);
    if (end != GPU_OK && !why[0])
        snprintf(why, sizeof(why), "end (CUresult %d): %s", gpu_last_error_get_cuda_result(), gpu_last_error_get_message());
    atomic_store(&phase, PHASE_AFTER);
    if (end == GPU_OK)
        inst = gpu_graph_instantiate(graph, &exec);
    /* Replays run while the copiers keep going: a graph launch is stream work like any other. */
    for (unsigned r = 0; inst == GPU_OK && r < replays; r++) {
        uint32_t *in = gpu_host_buffer_get_data(h_in);
        uint32_t *out = gpu_host_buffer_get_data(h_out);

        gpu_test_fill_input(in, n, 424242u + r);
        memset(out, 0, bytes);
        replay = gpu_stream_launch_graph(s, exec);
        if (replay == GPU_OK)
            replay = gpu_stream_synchronize(s);
        if (replay != GPU_OK) {
            snprintf(why, sizeof(why), "replay %u: %s", r, gpu_last_error_get_message());
            break;
        }
        wrong += gpu_test_count_wrong(out, n, 424242u + r, map) != 0;
        done++;
    }
    copiers_wait(PHASE_AFTER, 4);
    copiers_stop();

    printf("CAPTURE stream=non_blocking mode=%s begin=%s end=%s instantiate=%s replays=%u wrong=%u", mode_name,
           gpu_status_get_name(begin), gpu_status_get_name(end), gpu_status_get_name(inst), done, wrong);
    print_copiers();
    printf("\n");
    if (why[0])
        printf("CAPTURE detail: %s\n", why);

    gpu_graph_exec_destroy(exec);
    gpu_graph_destroy(graph);
    gpu_buffer_destroy(d_in);
    gpu_buffer_destroy(d_out);
    gpu_host_buffer_destroy(h_in);
    gpu_host_buffer_destroy(h_out);
    gpu_stream_destroy(s);

    assert_true(overlapped);
    assert_int_equal(begin, GPU_OK);
    assert_int_equal(enq_in, GPU_OK);
    assert_int_equal(enq_work, GPU_OK);
    assert_int_equal(enq_out, GPU_OK);
    assert_int_equal(end, GPU_OK);
    assert_int_equal(inst, GPU_OK);
    assert_int_equal(replay, GPU_OK);
    assert_int_equal(done, replays);
    assert_int_equal(wrong, 0);
    for (int ph = 0; ph < PHASES; ph++)
        if (SUM(failures, ph) != 0)
            fail_msg("%u legacy copies failed in phase %d (%u with a capture error): %s", SUM(failures, ph), ph,
                     SUM(capture_errors, ph), other_error_text());
}

static void non_blocking_global(void **state)
{
    (void)state;
    capture_non_blocking(GPU_CAPTURE_MODE_GLOBAL, "global");
}

static void non_blocking_thread_local(void **state)
{
    (void)state;
    capture_non_blocking(GPU_CAPTURE_MODE_THREAD_LOCAL, "thread_local");
}

/* One ordinary request on a fresh ordered stream: the process still works. */
static bool round_trip_ok(void)
{
    enum { N = 4096 };
    static uint32_t in[N], out[N];
    work_map map = work_map_for(16);
    gpu_stream *s = NULL;
    gpu_buffer *a = NULL, *b = NULL;
    bool ok;

    gpu_test_fill_input(in, N, 99u);
    ok = gpu_stream_create(NULL, &s) == GPU_OK && gpu_buffer_create(NULL, sizeof(in), &a) == GPU_OK &&
         gpu_buffer_create(NULL, sizeof(in), &b) == GPU_OK && gpu_buffer_copy_from_host(a, in, sizeof(in)) == GPU_OK &&
         gpu_test_launch_work(s, a, b, N, 16) == GPU_OK && gpu_buffer_copy_to_host(b, out, sizeof(out)) == GPU_OK &&
         gpu_test_count_wrong(out, N, 99u, map) == 0;
    if (!ok)
        printf("CAPTURE after: %s\n", gpu_last_error_get_message());
    gpu_buffer_destroy(a);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
    return ok;
}

static void ordered_global_capture_is_guarded(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *a = NULL, *b = NULL;
    gpu_graph *graph = NULL;
    gpu_status begin, launch, end, capturing_st;
    int launch_code = 0, end_code = 0;
    bool overlapped, capturing = true, after_ok, graph_made;
    unsigned during_failures, during_refused, during_driver, during_other;

    (void)state;
    assert_int_equal(unsetenv(GPU_STREAM_NONBLOCKING_ENV), 0);
    assert_gpu_ok(gpu_stream_create(NULL, &s));
    assert_int_equal(gpu_stream_get_flags(s), GPU_STREAM_DEFAULT);
    assert_gpu_ok(gpu_buffer_create(NULL, 4096 * 4, &a));
    assert_gpu_ok(gpu_buffer_create(NULL, 4096 * 4, &b));
    assert_gpu_ok(gpu_test_launch_work(s, a, b, 1, 1));
    assert_gpu_ok(gpu_stream_synchronize(s));

    copiers_start();
    copiers_wait(PHASE_BEFORE, 4);
    atomic_store(&phase, PHASE_CAPTURE);
    begin = gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL);
    launch = gpu_test_launch_work(s, a, b, 4096, 16);
    launch_code = launch == GPU_OK ? 0 : gpu_last_error_get_cuda_result();
    overlapped = copiers_wait(PHASE_CAPTURE, 5);
    end = gpu_stream_end_capture(s, &graph);
    end_code = end == GPU_OK ? 0 : gpu_last_error_get_cuda_result();
    if (end != GPU_OK)
        printf("CAPTURE end says: %s\n", gpu_last_error_get_message());
    atomic_store(&phase, PHASE_AFTER);
    capturing_st = gpu_stream_is_capturing(s, &capturing);
    copiers_wait(PHASE_AFTER, 4);
    copiers_stop();
    graph_made = graph != NULL;
    during_failures = SUM(failures, PHASE_CAPTURE);
    during_refused = SUM(refused, PHASE_CAPTURE);
    during_driver = SUM(capture_errors, PHASE_CAPTURE);
    during_other = SUM(other_errors, PHASE_CAPTURE);
    gpu_graph_destroy(graph);
    gpu_buffer_destroy(a);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
    after_ok = round_trip_ok();

    printf("CAPTURE stream=ordered mode=global begin=%s launch=%s/%d end=%s/%d still_capturing=%s after_ok=%s",
           gpu_status_get_name(begin), gpu_status_get_name(launch), launch_code, gpu_status_get_name(end), end_code,
           capturing_st == GPU_OK ? (capturing ? "yes" : "no") : gpu_status_get_name(capturing_st),
           after_ok ? "yes" : "no");
    print_copiers();
    printf("\n");

    assert_true(overlapped);
    assert_int_equal(begin, GPU_OK);
    /* gpushim refused every legacy copy during its capture: none reached the driver, so none broke the capture. */
    if (during_other != 0)
        fail_msg("%u copies failed with something other than a capture error: %s", during_other, other_error_text());
    if (during_driver != 0)
        fail_msg("%u legacy copies reached the driver during the capture (its 906 or 901)", during_driver);
    assert_int_equal(during_failures, during_refused);
    assert_true(during_refused > 0);
    if (launch != GPU_OK)
        fail_msg("launch during the capture: %s/%d", gpu_status_get_name(launch), launch_code);
    if (end != GPU_OK || !graph_made)
        fail_msg("the capture did not end in a graph: end=%s/%d", gpu_status_get_name(end), end_code);
    assert_int_equal(SUM(failures, PHASE_BEFORE), 0);
    assert_int_equal(SUM(failures, PHASE_AFTER), 0);
    assert_int_equal(capturing_st, GPU_OK);
    assert_false(capturing);
    assert_true(after_ok);
}

typedef int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned shared, void *stream, void **args, void **extra);

/* The capture's status, as a word. */
static const char *capture_word(gpu_stream *s)
{
    static const char *const words[] = {"none", "active", "invalidated"};
    gpu_capture_status status;
    uint64_t id;

    if (gpu_stream_get_capture_info(s, &status, &id) != GPU_OK)
        return "unknown";
    return (unsigned)status < 3 ? words[status] : "other";
}

static void bad_shape_keeps_capture(void **state)
{
    enum { N = 4096 };
    static uint32_t out[N];
    const gpu_launch_config bad = gpu_launch_config_1d(N / 256, 2048); /* more than 1024 threads a block */
    void *handle = dlopen(gpu_driver_get_report()->file, RTLD_NOW | RTLD_NOLOAD);
    void *sym = handle ? dlsym(handle, "cuLaunchKernel") : NULL;
    gpu_stream *s = NULL;
    gpu_buffer *dst = NULL;
    gpu_function *fill = NULL;
    gpu_graph *graph = NULL;
    gpu_graph_exec *exec = NULL;
    uint32_t value = 7, n = N;
    uint64_t p;
    void *args[] = {&p, &value, &n};
    const char *raw_after;
    gpu_status raw_end;
    launch_fn raw;
    size_t wrong = 0;
    int raw_rc, raw_end_code;

    (void)state;
    assert_non_null(sym);
    memcpy(&raw, &sym, sizeof(sym));
    assert_gpu_ok(gpu_stream_create_with_flags(NULL, GPU_STREAM_NON_BLOCKING, &s));
    assert_gpu_ok(gpu_buffer_create(NULL, sizeof(out), &dst));
    assert_gpu_ok(gpu_module_get_function(gpu_test_module(), KERNEL_FILL, &fill));
    p = gpu_buffer_get_device_ptr(dst);

    /* Refused by gpushim, both ways of launching: the capture is still active, and ends in a graph that works. */
    assert_gpu_ok(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_THREAD_LOCAL));
    assert_gpu_status(gpu_stream_launch_function(s, fill, &bad, args), GPU_ERR_INVALID_ARG);
    assert_non_null(strstr(gpu_last_error_get_message(), "block x is 2048, more than 1024"));
    assert_gpu_status(gpu_stream_launch_kernel(s, gpu_test_module(), KERNEL_FILL, &bad, args), GPU_ERR_INVALID_ARG);
    assert_string_equal(capture_word(s), "active");
    assert_gpu_ok(gpu_test_launch_fill(s, dst, value, n));
    assert_gpu_ok(gpu_stream_end_capture(s, &graph));
    assert_gpu_ok(gpu_graph_instantiate(graph, &exec));
    assert_gpu_ok(gpu_stream_launch_graph(s, exec));
    assert_gpu_ok(gpu_stream_synchronize(s));
    assert_gpu_ok(gpu_buffer_copy_to_host(dst, out, sizeof(out)));
    for (uint32_t i = 0; i < N; i++)
        wrong += out[i] != value;
    assert_int_equal(wrong, 0);

    /* The same launch made on the driver itself, inside a capture: printed, for docs/results.md. */
    assert_gpu_ok(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_THREAD_LOCAL));
    raw_rc = raw(gpu_function_get_raw(fill), bad.grid[0], bad.grid[1], bad.grid[2], bad.block[0], bad.block[1],
                 bad.block[2], 0, gpu_stream_get_raw(s), args, NULL);
    raw_after = capture_word(s);
    gpu_graph_destroy(graph);
    graph = NULL;
    raw_end = gpu_stream_end_capture(s, &graph);
    raw_end_code = raw_end == GPU_OK ? 0 : gpu_last_error_get_cuda_result();
    printf("CAPTURE bad_shape gpushim=%s capture_after=active driver_rc=%d driver_capture_after=%s driver_end=%s/%d\n",
           gpu_status_get_name(GPU_ERR_INVALID_ARG), raw_rc, raw_after, gpu_status_get_name(raw_end), raw_end_code);
    assert_int_not_equal(raw_rc, 0);

    gpu_graph_exec_destroy(exec);
    gpu_graph_destroy(graph);
    gpu_buffer_destroy(dst);
    gpu_stream_destroy(s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(non_blocking_global),
        cmocka_unit_test(non_blocking_thread_local),
        cmocka_unit_test(ordered_global_capture_is_guarded),
        cmocka_unit_test(bad_shape_keeps_capture),
    };
    /* `gpu-capture ordered`: that case alone, as maint/capture-repeat.sh runs it again and again. */
    const struct CMUnitTest ordered[] = {cmocka_unit_test(ordered_global_capture_is_guarded)};
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-capture");

    if (rc != 0)
        return rc;
    if (argc > 1 && strcmp(argv[1], "ordered") == 0)
        return cmocka_run_group_tests_name("ordered", ordered, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
