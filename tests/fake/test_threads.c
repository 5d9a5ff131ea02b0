/* SPDX-License-Identifier: MIT */
/*
 * gpushim from many threads: the first use from 64 threads at once loads the
 * driver once; a thread with no current context, or with another one, can
 * use any object and gets its own context back; capture on a non-blocking
 * stream survives legacy copies from other threads, capture on an ordered
 * stream does not. Meant to be run under TSan too. Runs with GPUSHIM_FAKE_DEVICES=2.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

enum { FIRST_THREADS = 64, WORKERS = 8, ROUNDS = 20, N = 256 };

static pthread_barrier_t barrier;

/* ---- First use ---- */

struct first {
    int index;
    gpu_status st;
    gpu_buffer *b;
    gpu_stream *s;
};

static void *first_call(void *arg)
{
    struct first *f = arg;
    int n = 0;

    pthread_barrier_wait(&barrier);
    /* Different first calls: each of them loads the driver if nothing has yet. */
    switch (f->index % 4) {
    case 0:
        f->st = gpu_driver_load();
        break;
    case 1:
        f->st = gpu_device_get_count(&n);
        if (f->st == GPU_OK && n != 2)
            f->st = GPU_ERR_DRIVER;
        break;
    case 2:
        f->st = gpu_buffer_create(NULL, 64, &f->b);
        break;
    default:
        f->st = gpu_stream_create(NULL, &f->s);
        break;
    }
    return NULL;
}

static void first_use_loads_once(void **state)
{
    static const struct {
        const char *name;
    } list[] = {
#define GPU__ENTRY(need, name, symbol, params, args) {#name},
#include "entry_points.h"
#undef GPU__ENTRY
    };
    struct first f[FIRST_THREADS];
    pthread_t t[FIRST_THREADS];
    gpu_fake_gpa_stats gpa;

    (void)state;
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
    assert_int_equal(gpu_fake_calls("cuInit"), 0);
    pthread_barrier_init(&barrier, NULL, FIRST_THREADS);
    for (int i = 0; i < FIRST_THREADS; i++) {
        f[i] = (struct first){.index = i};
        assert_int_equal(pthread_create(&t[i], NULL, first_call, &f[i]), 0);
    }
    for (int i = 0; i < FIRST_THREADS; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < FIRST_THREADS; i++) {
        if (f[i].st != GPU_OK)
            fail_msg("thread %d: %s", i, gpu_status_get_name(f[i].st));
        gpu_buffer_destroy(f[i].b);
        gpu_stream_destroy(f[i].s);
    }
    assert_int_equal(gpu_fake_calls("cuInit"), 1);
    assert_int_equal(gpu_fake_calls("cuDriverGetVersion"), 1);
    gpu_fake_gpa_get(&gpa);
    assert_int_equal(gpa.calls, sizeof(list) / sizeof(list[0]));
    for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++)
        assert_int_equal(gpu_fake_gpa_asked(list[i].name), 1);
    /* The default context, asked for by 32 threads at once, was retained once. */
    assert_int_equal(gpu_fake_primary_retains(0), 1);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_STREAMS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

/* ---- The calling thread's context ---- */

static gpu_context *ctx[2];
static gpu_module *mod;

/* A little of everything on device 0's objects; returns what failed, or GPU_OK. */
static gpu_status use_device0(void)
{
    uint32_t v[N], r[N];
    gpu_stream *s = NULL;
    gpu_event *e = NULL;
    gpu_buffer *b = NULL;
    gpu_status st;
    bool done = false;

    for (uint32_t i = 0; i < N; i++)
        v[i] = i * 11;
    if ((st = gpu_stream_create(ctx[0], &s)) != GPU_OK || (st = gpu_event_create(ctx[0], &e)) != GPU_OK ||
        (st = gpu_buffer_create(ctx[0], sizeof(v), &b)) != GPU_OK)
        goto out;
    if ((st = gpu_buffer_copy_from_host(b, v, sizeof(v))) != GPU_OK || (st = ft_add_one(s, mod, b, N)) != GPU_OK ||
        (st = gpu_stream_record_event(s, e)) != GPU_OK || (st = gpu_event_is_complete(e, &done)) != GPU_OK ||
        (st = gpu_buffer_copy_to_host(b, r, sizeof(r))) != GPU_OK || (st = gpu_stream_synchronize(s)) != GPU_OK ||
        (st = gpu_context_synchronize(ctx[0])) != GPU_OK)
        goto out;
    for (uint32_t i = 0; i < N; i++)
        if (r[i] != v[i] + 1)
            st = GPU_ERR_TRANSFER;
out:
    gpu_buffer_destroy(b);
    gpu_event_destroy(e);
    gpu_stream_destroy(s);
    return st;
}

struct ctx_case {
    int pushed;   /* contexts the thread holds before: 0, 1 (device 1's) or 2 (device 0's under 1's) */
    gpu_status st;
    void *after;  /* its current context after */
    int depth;
};

static void *with_context(void *arg)
{
    struct ctx_case *c = arg;

    if (c->pushed >= 2 && cuCtxPushCurrent_v2(gpu_context_get_raw(ctx[0])) != CUABI_SUCCESS)
        return NULL;
    if (c->pushed >= 1 && cuCtxPushCurrent_v2(gpu_context_get_raw(ctx[1])) != CUABI_SUCCESS)
        return NULL;
    c->st = use_device0();
    c->after = ft_current();
    c->depth = gpu_fake_context_depth();
    return NULL;
}

static void thread_contexts(void **state)
{
    (void)state;
    for (int pushed = 0; pushed <= 2; pushed++) {
        struct ctx_case c = {.pushed = pushed, .st = GPU_ERR_DRIVER};
        pthread_t t;

        assert_int_equal(pthread_create(&t, NULL, with_context, &c), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        FT_OK(c.st);
        /* No context: the thread is left holding the object's. Another: it has it back, stack and all. */
        assert_ptr_equal(c.after, gpu_context_get_raw(ctx[pushed ? 1 : 0]));
        assert_int_equal(c.depth, pushed ? pushed : 1);
    }
}

/*
 * The hot calls (launch, record, wait, stream query, async copies) are made
 * as they are, whatever context the thread holds. A driver that wants the
 * stream's context current (the fake, strict by default) refuses them where
 * it is not: gpushim must then make it current and call again, once, with
 * the answer unchanged.
 */
static void context_changed_behind_gpushims_back(void **state)
{
    uint32_t v[N];
    gpu_stream *s;
    gpu_buffer *b;
    bool idle = false;
    long calls, checks;

    (void)state;
    for (uint32_t i = 0; i < N; i++)
        v[i] = 7 * i + 3;
    ft_no_context();
    FT_OK(gpu_stream_create_non_blocking(ctx[0], &s));
    FT_OK(gpu_buffer_create(ctx[0], sizeof(v), &b));
    /* A query with the stream's context current is one driver call, and no context check. */
    FT_OK(gpu_stream_is_complete(s, &idle));
    calls = gpu_fake_calls("cuStreamQuery");
    checks = gpu_fake_calls("cuCtxGetCurrent");
    FT_OK(gpu_stream_is_complete(s, &idle));
    assert_int_equal(gpu_fake_calls("cuStreamQuery"), calls + 1);
    assert_int_equal(gpu_fake_calls("cuCtxGetCurrent"), checks);
    assert_true(idle);

    /* No context behind its back: the copy is refused, then queued in the stream's context, which the thread keeps. */
    ft_no_context();
    calls = gpu_fake_calls("cuMemcpyHtoDAsync_v2");
    FT_OK(gpu_buffer_copy_from_host_async(b, v, sizeof(v), s));
    assert_int_equal(gpu_fake_calls("cuMemcpyHtoDAsync_v2"), calls + 2);
    assert_ptr_equal(ft_current(), gpu_context_get_raw(ctx[0]));
    FT_OK(gpu_stream_synchronize(s));
    FT_BUFFER_EQ(b, v, N);

    /* Another device's context behind its back: queued under a push, and the thread gets its own back. */
    assert_int_equal(cuCtxSetCurrent(gpu_context_get_raw(ctx[1])), CUABI_SUCCESS);
    for (uint32_t i = 0; i < N; i++)
        v[i] = 5 * i + 1;
    calls = gpu_fake_calls("cuMemcpyHtoDAsync_v2");
    FT_OK(gpu_buffer_copy_from_host_async(b, v, sizeof(v), s));
    assert_int_equal(gpu_fake_calls("cuMemcpyHtoDAsync_v2"), calls + 2);
    assert_ptr_equal(ft_current(), gpu_context_get_raw(ctx[1]));
    assert_int_equal(gpu_fake_context_depth(), 1);
    FT_OK(gpu_stream_synchronize(s));
    FT_BUFFER_EQ(b, v, N);
    ft_no_context();
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

/* The driver calls that change or ask for the thread's context, so far. */
static long context_calls(void)
{
    return gpu_fake_calls("cuCtxGetCurrent") + gpu_fake_calls("cuCtxSetCurrent") +
           gpu_fake_calls("cuCtxPushCurrent") + gpu_fake_calls("cuCtxPopCurrent");
}

/* Every hot call once on `s`, `e` and `b` (device 0's): what failed, or GPU_OK. */
static gpu_status hot_calls(gpu_stream *s, gpu_event *e, gpu_buffer *b, gpu_function *f, uint32_t *v)
{
    uint64_t ptr = gpu_buffer_get_device_ptr(b);
    uint32_t n = N;
    void *args[] = {&ptr, &n};
    gpu_launch_config config = gpu_launch_config_1d((N + 63) / 64, 64);
    bool idle = false;
    gpu_status st;

    if ((st = gpu_buffer_copy_from_host_async(b, v, N * sizeof(*v), s)) != GPU_OK ||
        (st = gpu_stream_launch_function(s, f, &config, args)) != GPU_OK ||
        (st = gpu_stream_record_event(s, e)) != GPU_OK || (st = gpu_stream_wait_event(s, e)) != GPU_OK ||
        (st = gpu_buffer_copy_to_host_async(b, v, N * sizeof(*v), s)) != GPU_OK ||
        (st = gpu_stream_is_complete(s, &idle)) != GPU_OK)
        return st;
    (void)idle;
    return GPU_OK;
}

/*
 * With a driver that runs stream work in the stream's context whatever the
 * thread holds (the real one; the fake when not strict), a hot call is one
 * driver call: no context is asked for, made current, pushed or popped, and
 * the thread's context (none, or another device's) is left as it was.
 */
static void hot_calls_leave_the_threads_context(void **state)
{
    uint32_t v[N];
    gpu_stream *s;
    gpu_event *e;
    gpu_buffer *b;
    gpu_function *f;
    long before, hot;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(ctx[0], &s));
    FT_OK(gpu_event_create(ctx[0], &e));
    FT_OK(gpu_buffer_create(ctx[0], sizeof(v), &b));
    FT_OK(gpu_module_get_function(mod, "add_one", &f));
    gpu_fake_strict_context(false);
    for (int held = 0; held < 2; held++) {
        for (uint32_t i = 0; i < N; i++)
            v[i] = 3 * i + (uint32_t)held;
        if (held)
            assert_int_equal(cuCtxSetCurrent(gpu_context_get_raw(ctx[1])), CUABI_SUCCESS);
        else
            ft_no_context();
        before = context_calls();
        hot = gpu_fake_calls_total();
        FT_OK(hot_calls(s, e, b, f, v));
        /* Six calls, six driver calls, none of them about the context. */
        assert_int_equal(gpu_fake_calls_total() - hot, 6);
        assert_int_equal(context_calls(), before);
        assert_ptr_equal(ft_current(), held ? gpu_context_get_raw(ctx[1]) : NULL);
        assert_int_equal(gpu_fake_context_depth(), held);
        FT_OK(gpu_stream_synchronize(s));
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(v[i], 3 * i + (uint32_t)held + 1);
    }
    gpu_fake_strict_context(true);
    ft_no_context();
    gpu_buffer_destroy(b);
    gpu_event_destroy(e);
    gpu_stream_destroy(s);
}

/* ---- Many threads at once ---- */

static void *worker(void *arg)
{
    gpu_status *st = arg;

    pthread_barrier_wait(&barrier);
    for (int r = 0; r < ROUNDS && *st == GPU_OK; r++)
        *st = use_device0();
    return NULL;
}

static void concurrent_workers(void **state)
{
    gpu_status st[WORKERS];
    pthread_t t[WORKERS];
    ft_mark mark;

    (void)state;
    ft_mark_take(&mark);
    pthread_barrier_init(&barrier, NULL, WORKERS);
    for (int i = 0; i < WORKERS; i++) {
        st[i] = GPU_OK;
        assert_int_equal(pthread_create(&t[i], NULL, worker, &st[i]), 0);
    }
    for (int i = 0; i < WORKERS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        FT_OK(st[i]);
    }
    pthread_barrier_destroy(&barrier);
    FT_MARK_CHECK(&mark);
}

struct lookup {
    gpu_module *m;
    gpu_function *f;
    gpu_status st;
};

static void *look_up(void *arg)
{
    struct lookup *l = arg;

    pthread_barrier_wait(&barrier);
    l->st = gpu_module_get_function(l->m, "fill_u32", &l->f);
    return NULL;
}

static void concurrent_lookup(void **state)
{
    struct lookup l[WORKERS];
    pthread_t t[WORKERS];
    gpu_module *m = NULL;
    long calls;

    (void)state;
    FT_OK(gpu_module_load_data(ctx[0], ft_ptx, strlen(ft_ptx), &m));
    calls = gpu_fake_calls("cuModuleGetFunction");
    pthread_barrier_init(&barrier, NULL, WORKERS);
    for (int i = 0; i < WORKERS; i++) {
        l[i] = (struct lookup){.m = m};
        assert_int_equal(pthread_create(&t[i], NULL, look_up, &l[i]), 0);
    }
    for (int i = 0; i < WORKERS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        FT_OK(l[i].st);
        assert_ptr_equal(l[i].f, l[0].f);
    }
    pthread_barrier_destroy(&barrier);
    /* Looked up once, by whichever thread came first. */
    assert_int_equal(gpu_fake_calls("cuModuleGetFunction") - calls, 1);
    gpu_module_destroy(m);
}

/* ---- Capture while other threads copy on the legacy stream ---- */

struct copier {
    gpu_buffer *b;
    int rounds;
    gpu_status st;
    int cuda;
};

static void *copy_loop(void *arg)
{
    struct copier *c = arg;
    uint32_t v[N], r[N];

    pthread_barrier_wait(&barrier);
    for (int i = 0; i < c->rounds && c->st == GPU_OK; i++) {
        for (uint32_t k = 0; k < N; k++)
            v[k] = k + (uint32_t)i;
        c->st = gpu_buffer_copy_from_host(c->b, v, sizeof(v));
        if (c->st == GPU_OK)
            c->st = gpu_buffer_copy_to_host(c->b, r, sizeof(r));
        if (c->st == GPU_OK && memcmp(v, r, sizeof(v)) != 0)
            c->st = GPU_ERR_TRANSFER;
    }
    c->cuda = gpu_last_error_get_cuda_result();
    pthread_barrier_wait(&barrier);
    return NULL;
}

static void capture_with_copiers(unsigned flags, int rounds, struct copier *c, int copiers, gpu_graph **graph,
                                 gpu_status *end)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = ft_buffer_seq(ctx[0], N, 0);
    pthread_t t[WORKERS];

    FT_OK(gpu_stream_create_with_flags(ctx[0], flags, &s));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    for (int k = 0; k < 5; k++)
        FT_OK(ft_add_one(s, mod, b, N));
    pthread_barrier_init(&barrier, NULL, (unsigned)copiers + 1);
    for (int i = 0; i < copiers; i++) {
        c[i] = (struct copier){.rounds = rounds};
        FT_OK(gpu_buffer_create(ctx[0], N * 4, &c[i].b));
        assert_int_equal(pthread_create(&t[i], NULL, copy_loop, &c[i]), 0);
    }
    pthread_barrier_wait(&barrier);
    /* Captured while the copiers run, where their copies leave the capture alone. */
    for (int k = 0; flags == GPU_STREAM_NON_BLOCKING && k < 5; k++)
        FT_OK(ft_add_one(s, mod, b, N));
    pthread_barrier_wait(&barrier);
    *end = gpu_stream_end_capture(s, graph);
    for (int i = 0; i < copiers; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        gpu_buffer_destroy(c[i].b);
    }
    pthread_barrier_destroy(&barrier);
    if (*end == GPU_OK) {
        gpu_graph_exec *x = NULL;
        /* Each replay adds one per captured launch: ten on a non-blocking stream, the first five on an ordered one. */
        uint32_t added = flags == GPU_STREAM_NON_BLOCKING ? 20 : 10;

        FT_OK(gpu_graph_instantiate(*graph, &x));
        FT_OK(gpu_stream_launch_graph(s, x));
        FT_OK(gpu_stream_launch_graph(s, x));
        FT_OK(gpu_stream_synchronize(s));
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(ft_peek(b, i), i + added);
        gpu_graph_exec_destroy(x);
        gpu_graph_destroy(*graph);
    }
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

static void capture_non_blocking_with_copiers(void **state)
{
    struct copier c[4];
    gpu_graph *g = NULL;
    gpu_status end;

    (void)state;
    capture_with_copiers(GPU_STREAM_NON_BLOCKING, 25, c, 4, &g, &end);
    for (int i = 0; i < 4; i++)
        FT_OK(c[i].st);
    FT_OK(end);
}

/*
 * gpushim's own global capture on an ordered stream: another thread's legacy
 * copy gets the driver's answer (906) from gpushim, without the driver being
 * called, so the capture is not invalidated: it ends in a graph that replays.
 */
static void capture_ordered_with_copier(void **state)
{
    struct copier c[2];
    gpu_graph *g = NULL;
    gpu_status end;
    long copies = gpu_fake_calls("cuMemcpyHtoD") + gpu_fake_calls("cuMemcpyDtoH");

    (void)state;
    capture_with_copiers(GPU_STREAM_DEFAULT, 3, c, 2, &g, &end);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(c[i].st, GPU_ERR_GRAPH_CAPTURE);
        assert_int_equal(c[i].cuda, CUABI_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    /* One copy reached the driver: the fill of the captured buffer, before the capture began. */
    assert_int_equal(gpu_fake_calls("cuMemcpyHtoD") + gpu_fake_calls("cuMemcpyDtoH"), copies + 1);
    FT_OK(end);
    /* Ended: legacy copies reach the driver again. */
    {
        gpu_buffer *b = ft_buffer_seq(ctx[0], N, 3);

        assert_int_equal(ft_peek(b, 7), 10);
        gpu_buffer_destroy(b);
    }
    assert_true(gpu_fake_calls("cuMemcpyHtoD") + gpu_fake_calls("cuMemcpyDtoH") > copies + 1);
}

/* The refusal holds only while the capture is open: destroying the capturing stream ends it too. */
static void capture_guard_ends_with_the_stream(void **state)
{
    gpu_stream *s = NULL, *nb = NULL;
    gpu_buffer *b = ft_buffer_seq(ctx[0], N, 0);
    uint32_t v[N] = {0};

    (void)state;
    FT_OK(gpu_stream_create_with_flags(ctx[0], GPU_STREAM_DEFAULT, &s));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    /* A second begin fails at the driver and leaves the open capture guarded. */
    assert_int_equal(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL), GPU_ERR_GRAPH_CAPTURE);
    FT_FAIL(gpu_buffer_copy_from_host(b, v, sizeof(v)), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_STREAM_CAPTURE_IMPLICIT,
            "refused without calling the driver");
    FT_FAIL(gpu_buffer_memset(b, 0, N, 4, 7), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_STREAM_CAPTURE_IMPLICIT, "906");
    /* Work on the legacy stream itself, asynchronous or not, is refused alike. */
    FT_FAIL(gpu_buffer_copy_from_host_async(b, v, sizeof(v), NULL), GPU_ERR_GRAPH_CAPTURE,
            CUABI_ERROR_STREAM_CAPTURE_IMPLICIT, "906");
    gpu_stream_destroy(s);
    FT_OK(gpu_buffer_copy_from_host(b, v, sizeof(v)));
    /* Captures that leave the legacy stream alone change nothing: non-blocking, or not global. */
    FT_OK(gpu_stream_create_non_blocking(ctx[0], &nb));
    FT_OK(gpu_stream_begin_capture(nb, GPU_CAPTURE_MODE_GLOBAL));
    FT_OK(gpu_buffer_copy_from_host(b, v, sizeof(v)));
    gpu_stream_destroy(nb);
    gpu_buffer_destroy(b);
}

static int setup_contexts(void **state)
{
    (void)state;
    FT_OK(gpu_context_retain_primary(0, &ctx[0]));
    FT_OK(gpu_context_retain_primary(1, &ctx[1]));
    FT_OK(gpu_module_load_data(ctx[0], ft_ptx, strlen(ft_ptx), &mod));
    return 0;
}

static int teardown_contexts(void **state)
{
    (void)state;
    gpu_module_destroy(mod);
    gpu_context_destroy(ctx[1]);
    gpu_context_destroy(ctx[0]);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXT_RETAINS), 1);
    ft_assert_released();
    return 0;
}

int main(void)
{
    /* First, alone: nothing may have loaded the driver before it. */
    const struct CMUnitTest first[] = {cmocka_unit_test(first_use_loads_once)};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_contexts),
        cmocka_unit_test(context_changed_behind_gpushims_back),
        cmocka_unit_test(hot_calls_leave_the_threads_context),
        cmocka_unit_test(concurrent_workers),
        cmocka_unit_test(concurrent_lookup),
        cmocka_unit_test(capture_non_blocking_with_copiers),
        cmocka_unit_test(capture_ordered_with_copier),
        cmocka_unit_test(capture_guard_ends_with_the_stream),
    };
    int failed = cmocka_run_group_tests_name("first use", first, NULL, NULL);

    return failed | cmocka_run_group_tests_name("threads", tests, setup_contexts, teardown_contexts);
}
