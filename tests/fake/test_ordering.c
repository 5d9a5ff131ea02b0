/* SPDX-License-Identifier: MIT */
/*
 * The ordering facts measured by aprender-gpu's stream module, made
 * deterministic by the fake's lazy queues: a kernel runs only when something
 * waits for it, so a copy that is not ordered after it reads the data from
 * before it. gpu_buffer_copy_from_host()/copy_to_host() are legacy-stream
 * copies: ordered against gpu_stream_create()'s streams, not against
 * non-blocking ones. Also: queries while work is pending, host functions,
 * events between streams, and stream capture against the legacy stream.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_test.h"

enum { N = 1000 };

static gpu_module *mod;
static uint32_t in[N], out[N], want[N];

static void fill(uint32_t *v, uint32_t mul, uint32_t add)
{
    for (uint32_t i = 0; i < N; i++)
        v[i] = in[i] * mul + add;
}

static int setup(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < N; i++)
        in[i] = 3 * i + 5;
    FT_OK(gpu_module_load_data(NULL, ft_ptx, strlen(ft_ptx), &mod));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gpu_module_destroy(mod);
    ft_assert_released();
    return 0;
}

static gpu_buffer *buffer_in(void)
{
    gpu_buffer *b = NULL;

    FT_OK(gpu_buffer_create(NULL, sizeof(in), &b));
    FT_OK(gpu_buffer_copy_from_host(b, in, sizeof(in)));
    return b;
}

/*
 * aprender-gpu's pattern: copy in, kernel on the stream, copy out, all with the
 * legacy-stream copies. Returns whether the copy out saw the kernel's result.
 */
static bool copy_kernel_copy(gpu_stream *s)
{
    gpu_buffer *b = buffer_in();
    bool ordered;

    FT_OK(ft_add_one(s, mod, b, N));
    memset(out, 0, sizeof(out));
    FT_OK(gpu_buffer_copy_to_host(b, out, sizeof(out)));
    fill(want, 1, 1);
    ordered = memcmp(out, want, sizeof(out)) == 0;
    /* Not ordered: what it read is the data from before the kernel, exactly. */
    if (!ordered)
        assert_memory_equal(out, in, sizeof(out));
    FT_OK(gpu_stream_synchronize(s));
    FT_OK(gpu_buffer_copy_to_host(b, out, sizeof(out)));
    assert_memory_equal(out, want, sizeof(out));
    gpu_buffer_destroy(b);
    return ordered;
}

static void default_stream_is_ordered(void **state)
{
    gpu_stream *s = NULL;

    (void)state;
    unsetenv(GPU_STREAM_NONBLOCKING_ENV);
    FT_OK(gpu_stream_create(NULL, &s));
    assert_int_equal(gpu_stream_get_flags(s), GPU_STREAM_DEFAULT);
    assert_true(copy_kernel_copy(s));
    gpu_stream_destroy(s);
}

static void non_blocking_stream_races(void **state)
{
    gpu_stream *s = NULL;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    assert_int_equal(gpu_stream_get_flags(s), GPU_STREAM_NON_BLOCKING);
    assert_false(copy_kernel_copy(s));
    gpu_stream_destroy(s);
}

/* Only exactly "1" restores the racy streams; each value's streams behave as their flags say. */
static void env_knob(void **state)
{
    static const struct {
        const char *value;
        unsigned flags;
    } cases[] = {
        {NULL, GPU_STREAM_DEFAULT}, {"1", GPU_STREAM_NON_BLOCKING}, {"0", GPU_STREAM_DEFAULT},
        {"true", GPU_STREAM_DEFAULT}, {" 1", GPU_STREAM_DEFAULT}, {"1 ", GPU_STREAM_DEFAULT},
        {"yes", GPU_STREAM_DEFAULT}, {"", GPU_STREAM_DEFAULT}, {"11", GPU_STREAM_DEFAULT},
    };

    char said[512] = "";
    FILE *err = tmpfile();
    int saved = dup(2);

    (void)state;
    /* What gpushim says on stderr meanwhile: a value that is neither 0 nor 1 is named, once. */
    assert_non_null(err);
    assert_true(saved >= 0);
    fflush(stderr);
    assert_true(dup2(fileno(err), 2) >= 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpu_stream *s = NULL;

        if (cases[i].value)
            setenv(GPU_STREAM_NONBLOCKING_ENV, cases[i].value, 1);
        else
            unsetenv(GPU_STREAM_NONBLOCKING_ENV);
        FT_OK(gpu_stream_create(NULL, &s));
        assert_int_equal(gpu_stream_get_flags(s), cases[i].flags);
        assert_int_equal(copy_kernel_copy(s), cases[i].flags == GPU_STREAM_DEFAULT);
        gpu_stream_destroy(s);
    }
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    rewind(err);
    said[fread(said, 1, sizeof(said) - 1, err)] = '\0';
    fclose(err);
    unsetenv(GPU_STREAM_NONBLOCKING_ENV);
    if (!strstr(said, "gpushim: " GPU_STREAM_NONBLOCKING_ENV "=true is neither 0 nor 1; streams stay ordered") ||
        strstr(said, "=yes"))
        fail_msg("stderr said \"%s\"", said);
}

/*
 * aprender-gpu's name for the knob, APR_STREAM_NONBLOCKING, is honoured where
 * GPUSHIM_STREAM_NONBLOCKING is unset; where both are set, gpushim's wins.
 */
static void env_knob_aprender_name(void **state)
{
    static const struct {
        const char *gpushim, *aprender;
        unsigned flags;
    } cases[] = {
        {NULL, "1", GPU_STREAM_NON_BLOCKING},
        {NULL, "0", GPU_STREAM_DEFAULT},
        {"0", "1", GPU_STREAM_DEFAULT},
        {"1", "0", GPU_STREAM_NON_BLOCKING},
        {NULL, NULL, GPU_STREAM_DEFAULT},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpu_stream *s = NULL;

        if (cases[i].gpushim)
            setenv(GPU_STREAM_NONBLOCKING_ENV, cases[i].gpushim, 1);
        else
            unsetenv(GPU_STREAM_NONBLOCKING_ENV);
        if (cases[i].aprender)
            setenv(GPU_STREAM_NONBLOCKING_ENV_APRENDER, cases[i].aprender, 1);
        else
            unsetenv(GPU_STREAM_NONBLOCKING_ENV_APRENDER);
        FT_OK(gpu_stream_create(NULL, &s));
        if (gpu_stream_get_flags(s) != cases[i].flags)
            fail_msg("case %zu: GPUSHIM_STREAM_NONBLOCKING=%s APR_STREAM_NONBLOCKING=%s gave flags %u", i,
                     cases[i].gpushim ? cases[i].gpushim : "(unset)",
                     cases[i].aprender ? cases[i].aprender : "(unset)", gpu_stream_get_flags(s));
        gpu_stream_destroy(s);
    }
    unsetenv(GPU_STREAM_NONBLOCKING_ENV);
    unsetenv(GPU_STREAM_NONBLOCKING_ENV_APRENDER);
}

/* The other hazard: a copy in while a kernel still reads the buffer. */
static void copy_in_waits_for_kernel(void **state)
{
    uint32_t next[N];

    (void)state;
    for (uint32_t i = 0; i < N; i++)
        next[i] = 1000000 + i;
    for (int nb = 0; nb < 2; nb++) {
        gpu_stream *s = NULL;
        gpu_buffer *b = buffer_in();

        FT_OK(gpu_stream_create_with_flags(NULL, nb ? GPU_STREAM_NON_BLOCKING : GPU_STREAM_DEFAULT, &s));
        FT_OK(ft_scale_add(s, mod, b, 2, 0, N));
        FT_OK(gpu_buffer_copy_from_host(b, next, sizeof(next)));
        FT_OK(gpu_stream_synchronize(s));
        FT_OK(gpu_buffer_copy_to_host(b, out, sizeof(out)));
        for (uint32_t i = 0; i < N; i++)
            /* Ordered: the kernel doubled the old data, then the copy replaced it. Not: it doubled the new. */
            assert_int_equal(out[i], nb ? 2 * next[i] : next[i]);
        gpu_buffer_destroy(b);
        gpu_stream_destroy(s);
    }
}

/* Stream-ordered copies on a non-blocking stream: correct, and asynchronous. */
static void async_copies_are_ordered(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = NULL;
    gpu_host_buffer *h = NULL;
    uint32_t *pinned;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_buffer_create(NULL, sizeof(in), &b));
    FT_OK(gpu_host_buffer_create(NULL, sizeof(in), &h));
    pinned = gpu_host_buffer_get_data(h);
    memset(pinned, 0xee, sizeof(in));
    FT_OK(gpu_buffer_copy_from_host_async(b, in, sizeof(in), s));
    FT_OK(ft_scale_add(s, mod, b, 5, 7, N));
    FT_OK(gpu_buffer_copy_to_host_async(b, pinned, sizeof(in), s));
    /* Nothing has run: the three operations are queued. */
    assert_int_equal(gpu_fake_pending(), 3);
    assert_int_equal(pinned[0], 0xeeeeeeeeu);
    FT_OK(gpu_stream_synchronize(s));
    fill(want, 5, 7);
    assert_memory_equal(pinned, want, sizeof(want));
    gpu_host_buffer_destroy(h);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

/* Work on the legacy stream itself orders blocking streams after it, and not the others. */
static void legacy_stream_work(void **state)
{
    (void)state;
    for (int nb = 0; nb < 2; nb++) {
        gpu_stream *s = NULL;
        gpu_buffer *b = buffer_in();

        FT_OK(gpu_stream_create_with_flags(NULL, nb ? GPU_STREAM_NON_BLOCKING : GPU_STREAM_DEFAULT, &s));
        FT_OK(ft_scale_add(GPU_DEVICE0_LEGACY_STREAM, mod, b, 2, 0, N));
        FT_OK(ft_add_one(s, mod, b, N));
        FT_OK(gpu_stream_synchronize(s));
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(ft_peek(b, i), nb ? in[i] + 1 : in[i] * 2 + 1);
        FT_OK(gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM));
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(ft_peek(b, i), nb ? (in[i] + 1) * 2 : in[i] * 2 + 1);
        gpu_buffer_destroy(b);
        gpu_stream_destroy(s);
    }
}

/* gpu_buffer_copy_device_ptr() is a legacy copy too. */
static void dtod_sync_is_legacy(void **state)
{
    (void)state;
    for (int nb = 0; nb < 2; nb++) {
        gpu_stream *s = NULL;
        gpu_buffer *b = buffer_in(), *c = buffer_in();

        FT_OK(gpu_stream_create_with_flags(NULL, nb ? GPU_STREAM_NON_BLOCKING : GPU_STREAM_DEFAULT, &s));
        FT_OK(ft_add_one(s, mod, b, N));
        FT_OK(gpu_buffer_copy_device_ptr(s, gpu_buffer_get_device_ptr(c), gpu_buffer_get_device_ptr(b), sizeof(in)));
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(ft_peek(c, i), nb ? in[i] : in[i] + 1);
        FT_OK(gpu_stream_synchronize(s));
        gpu_buffer_destroy(c);
        gpu_buffer_destroy(b);
        gpu_stream_destroy(s);
    }
}

static void queries_see_pending_work(void **state)
{
    gpu_stream *s = NULL;
    gpu_event *e = NULL;
    gpu_buffer *b = buffer_in();
    bool idle = true, done = true;

    (void)state;
    FT_OK(gpu_stream_create(NULL, &s));
    FT_OK(gpu_event_create(NULL, &e));
    /* An event never recorded is complete; a stream with nothing queued is idle. */
    FT_OK(gpu_event_is_complete(e, &done));
    assert_true(done);
    FT_OK(gpu_stream_is_complete(s, &idle));
    assert_true(idle);
    FT_OK(ft_add_one(s, mod, b, N));
    FT_OK(gpu_stream_record_event(s, e));
    FT_OK(gpu_stream_is_complete(s, &idle));
    FT_OK(gpu_event_is_complete(e, &done));
    assert_false(idle);
    assert_false(done);
    /* The kernel runs; the record after it has not, so the event is not complete yet. */
    assert_int_equal(gpu_fake_run(1), 1);
    assert_int_equal(ft_peek(b, 0), in[0] + 1);
    FT_OK(gpu_event_is_complete(e, &done));
    assert_false(done);
    assert_int_equal(gpu_fake_run(1), 1);
    FT_OK(gpu_event_is_complete(e, &done));
    FT_OK(gpu_stream_is_complete(s, &idle));
    assert_true(done);
    assert_true(idle);
    gpu_event_destroy(e);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

static void *open_gate(void *arg)
{
    (void)arg;
    /* When this runs does not matter: whoever waits for the hold kernel waits until it does. */
    gpu_fake_gate(true);
    return NULL;
}

static void synchronize_waits_for_held_kernel(void **state)
{
    gpu_stream *s = NULL;
    gpu_event *e = NULL;
    bool idle = true;
    pthread_t t;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_event_create(NULL, &e));
    gpu_fake_gate(false);
    FT_OK(ft_hold(s, mod));
    FT_OK(gpu_stream_record_event(s, e));
    assert_int_equal(gpu_fake_run(10), 0);
    FT_OK(gpu_stream_is_complete(s, &idle));
    assert_false(idle);
    assert_int_equal(pthread_create(&t, NULL, open_gate, NULL), 0);
    FT_OK(gpu_event_synchronize(e));
    assert_int_equal(pthread_join(t, NULL), 0);
    FT_OK(gpu_stream_is_complete(s, &idle));
    assert_true(idle);
    gpu_event_destroy(e);
    gpu_stream_destroy(s);
}

struct host_seen {
    const gpu_buffer *b;
    uint32_t value;
    gpu_status st;
    char message[256];
};

static void host_fn(void *user_data)
{
    struct host_seen *seen = user_data;
    bool idle;

    seen->value = ft_peek(seen->b, 0);
    /* A host function must not call CUDA; the driver refuses, and gpushim says so. */
    seen->st = gpu_stream_is_complete(GPU_DEVICE0_LEGACY_STREAM, &idle);
    strncpy(seen->message, gpu_last_error_get_message(), sizeof(seen->message) - 1);
}

static void host_func_runs_in_order(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = buffer_in();
    struct host_seen seen = {.b = b};

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(ft_add_one(s, mod, b, N));
    FT_OK(gpu_stream_launch_host_func(s, host_fn, &seen));
    FT_OK(ft_add_one(s, mod, b, N));
    assert_int_equal(seen.value, 0);
    FT_OK(gpu_stream_synchronize(s));
    assert_int_equal(seen.value, in[0] + 1);
    assert_int_equal(ft_peek(b, 0), in[0] + 2);
    assert_int_equal(seen.st, GPU_ERR_CONTEXT);
    assert_non_null(strstr(seen.message, "CUDA_ERROR_NOT_PERMITTED (800)"));
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

/* One stream waits for an event of another: order-sensitive work shows the order. */
static void wait_event_orders_streams(void **state)
{
    (void)state;
    for (int wait = 0; wait < 2; wait++) {
        gpu_stream *a = NULL, *c = NULL;
        gpu_event *e = NULL;
        gpu_buffer *b = buffer_in();

        FT_OK(gpu_stream_create_non_blocking(NULL, &a));
        FT_OK(gpu_stream_create_non_blocking(NULL, &c));
        FT_OK(gpu_event_create(NULL, &e));
        FT_OK(ft_scale_add(a, mod, b, 3, 0, N));
        FT_OK(gpu_stream_record_event(a, e));
        if (wait)
            FT_OK(gpu_stream_wait_event(c, e));
        FT_OK(ft_add_one(c, mod, b, N));
        FT_OK(gpu_stream_synchronize(c));
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(ft_peek(b, i), wait ? in[i] * 3 + 1 : in[i] + 1);
        FT_OK(gpu_context_synchronize(NULL));
        gpu_event_destroy(e);
        gpu_buffer_destroy(b);
        gpu_stream_destroy(c);
        gpu_stream_destroy(a);
    }
}

static void timed_events(void **state)
{
    gpu_stream *s = NULL;
    gpu_event *t0 = NULL, *t1 = NULL, *plain = NULL;
    float ms = -1;

    (void)state;
    FT_OK(gpu_stream_create(NULL, &s));
    FT_OK(gpu_event_create_timed(NULL, &t0));
    FT_OK(gpu_event_create_timed(NULL, &t1));
    FT_OK(gpu_event_create(NULL, &plain));
    /* Never recorded: the driver refuses. */
    FT_FAIL(gpu_event_get_elapsed_ms(t0, t1, &ms), GPU_ERR_EVENT, CUABI_ERROR_INVALID_HANDLE, "cuEventElapsedTime");
    FT_OK(gpu_stream_record_event(s, t0));
    FT_OK(ft_sleep_us(s, mod, 1500));
    FT_OK(gpu_stream_record_event(s, t1));
    FT_FAIL(gpu_event_get_elapsed_ms(t0, t1, &ms), GPU_ERR_EVENT, CUABI_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY");
    assert_true(ms == -1);
    FT_OK(gpu_event_synchronize(t1));
    FT_OK(gpu_event_get_elapsed_ms(t0, t1, &ms));
    assert_true(ms > 1.5005f && ms < 1.5015f);
    FT_OK(gpu_event_get_elapsed_ms(t1, t0, &ms));
    assert_true(ms < -1.5005f && ms > -1.5015f);
    FT_FAIL(gpu_event_get_elapsed_ms(t0, plain, &ms), GPU_ERR_INVALID_ARG, 0, "gpu_event_create_timed");
    gpu_event_destroy(plain);
    gpu_event_destroy(t1);
    gpu_event_destroy(t0);
    gpu_stream_destroy(s);
}

/* ---- Capture ---- */

static void capture_replays(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = NULL;
    gpu_host_buffer *h = NULL;
    gpu_graph *g = NULL;
    gpu_graph_exec *x = NULL;
    uint32_t *pinned;
    bool capturing = false;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_buffer_create(NULL, sizeof(in), &b));
    FT_OK(gpu_host_buffer_create(NULL, sizeof(in), &h));
    pinned = gpu_host_buffer_get_data(h);
    memcpy(pinned, in, sizeof(in));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    FT_OK(gpu_stream_is_capturing(s, &capturing));
    assert_true(capturing);
    FT_OK(gpu_buffer_copy_from_host_async(b, pinned, sizeof(in), s));
    FT_OK(ft_scale_add(s, mod, b, 2, 1, N));
    FT_OK(ft_add_one(s, mod, b, N));
    FT_OK(gpu_buffer_copy_to_host_async(b, pinned, sizeof(in), s));
    /* Captured, not run. */
    assert_int_equal(gpu_fake_pending(), 0);
    assert_memory_equal(pinned, in, sizeof(in));
    FT_OK(gpu_stream_end_capture(s, &g));
    FT_OK(gpu_stream_is_capturing(s, &capturing));
    assert_false(capturing);
    FT_OK(gpu_graph_instantiate(g, &x));
    gpu_graph_destroy(g); /* the executable graph lives on */
    for (uint32_t round = 1; round <= 3; round++) {
        FT_OK(gpu_stream_launch_graph(s, x));
        FT_OK(gpu_stream_synchronize(s));
        /* Each replay reads what the last wrote back: x -> 2x + 2. */
        for (uint32_t i = 0; i < N; i++)
            in[i] = in[i] * 2 + 2;
        assert_memory_equal(pinned, in, sizeof(in));
    }
    for (uint32_t i = 0; i < N; i++)
        in[i] = 3 * i + 5;
    gpu_graph_exec_destroy(x);
    gpu_host_buffer_destroy(h);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

/* A capture on an ordered stream breaks the legacy stream; the copy fails (906), the capture too (901). */
static void capture_on_ordered_stream(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = buffer_in();
    gpu_graph *g = (gpu_graph *)&g;
    bool capturing = false;

    (void)state;
    FT_OK(gpu_stream_create(NULL, &s));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_RELAXED));
    FT_OK(ft_add_one(s, mod, b, N));
    FT_FAIL(gpu_buffer_copy_from_host(b, in, sizeof(in)), GPU_ERR_TRANSFER, CUABI_ERROR_STREAM_CAPTURE_IMPLICIT,
            "cuMemcpyHtoD: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (906)");
    FT_FAIL(gpu_stream_is_capturing(s, &capturing), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_STREAM_CAPTURE_INVALIDATED,
            "invalidated");
    assert_false(capturing);
    /* Work queued on the invalidated capture is refused too. */
    FT_FAIL(ft_add_one(s, mod, b, N), GPU_ERR_KERNEL_LAUNCH, CUABI_ERROR_STREAM_CAPTURE_INVALIDATED, "cuLaunchKernel");
    FT_FAIL(gpu_stream_end_capture(s, &g), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_STREAM_CAPTURE_INVALIDATED,
            "cuStreamEndCapture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (901)");
    assert_ptr_equal(g, (gpu_graph *)&g);
    /* The capture is over and everything works again. */
    FT_OK(gpu_stream_is_capturing(s, &capturing));
    assert_false(capturing);
    FT_OK(gpu_buffer_copy_from_host(b, in, sizeof(in)));
    FT_OK(ft_add_one(s, mod, b, N));
    FT_OK(gpu_buffer_copy_to_host(b, out, sizeof(out)));
    fill(want, 1, 1);
    assert_memory_equal(out, want, sizeof(out));
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

static void capture_on_non_blocking_stream(void **state)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = buffer_in(), *c = buffer_in();
    gpu_graph *g = NULL;
    gpu_graph_exec *x = NULL;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_RELAXED));
    FT_OK(ft_add_one(s, mod, b, N));
    /* The legacy stream has no dependency on this stream: its copies go on. */
    FT_OK(gpu_buffer_copy_from_host(c, in, sizeof(in)));
    FT_OK(gpu_buffer_copy_to_host(c, out, sizeof(out)));
    assert_memory_equal(out, in, sizeof(out));
    FT_OK(gpu_stream_end_capture(s, &g));
    FT_OK(gpu_graph_instantiate(g, &x));
    FT_OK(gpu_stream_launch_graph(s, x));
    FT_OK(gpu_stream_synchronize(s));
    FT_OK(gpu_buffer_copy_to_host(b, out, sizeof(out)));
    fill(want, 1, 1);
    assert_memory_equal(out, want, sizeof(out));
    gpu_graph_exec_destroy(x);
    gpu_graph_destroy(g);
    gpu_buffer_destroy(c);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

typedef cuabi_result (*launch_fn)(cuabi_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                  unsigned bz, unsigned shared, cuabi_stream stream, void **args, void **extra);

/*
 * A launch of a shape the driver refuses, during a capture: gpushim refuses it
 * before the driver sees it and the capture goes on; made on the driver (the
 * fake, as the real one does), it breaks the capture.
 */
static void bad_shape_during_capture(void **state)
{
    const gpu_launch_config bad = gpu_launch_config_1d(4, 2048);
    void *handle = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    void *sym = handle ? dlsym(handle, "cuLaunchKernel") : NULL;
    gpu_stream *s = NULL;
    gpu_buffer *b = buffer_in();
    gpu_function *f = NULL;
    gpu_graph *g = NULL;
    gpu_graph_exec *x = NULL;
    uint64_t ptr = gpu_buffer_get_device_ptr(b);
    uint32_t n = N;
    void *args[] = {&ptr, &n};
    long launches = gpu_fake_calls("cuLaunchKernel");
    bool capturing = false;
    launch_fn raw;

    (void)state;
    assert_non_null(sym);
    dlclose(handle); /* gpushim holds it: this only drops the reference just taken */
    memcpy(&raw, &sym, sizeof(sym));
    FT_OK(gpu_module_get_function(mod, "add_one", &f));
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_THREAD_LOCAL));
    FT_FAIL(gpu_stream_launch_function(s, f, &bad, args), GPU_ERR_INVALID_ARG, 0, "block x is 2048, more than 1024");
    FT_FAIL(gpu_stream_launch_kernel(s, mod, "add_one", &bad, args), GPU_ERR_INVALID_ARG, 0,
            "block x is 2048, more than 1024");
    assert_int_equal(gpu_fake_calls("cuLaunchKernel"), launches);
    FT_OK(gpu_stream_is_capturing(s, &capturing));
    assert_true(capturing);
    FT_OK(ft_add_one(s, mod, b, N));
    FT_OK(gpu_stream_end_capture(s, &g));
    FT_OK(gpu_graph_instantiate(g, &x));
    FT_OK(gpu_stream_launch_graph(s, x));
    FT_OK(gpu_stream_synchronize(s));
    FT_OK(gpu_buffer_copy_to_host(b, out, sizeof(out)));
    fill(want, 1, 1);
    assert_memory_equal(out, want, sizeof(out));

    /* The same launch on the driver itself. */
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_THREAD_LOCAL));
    assert_int_equal(raw(gpu_function_get_raw(f), bad.grid[0], bad.grid[1], bad.grid[2], bad.block[0], bad.block[1],
                         bad.block[2], 0, gpu_stream_get_raw(s), args, NULL),
                     CUABI_ERROR_INVALID_VALUE);
    FT_FAIL(gpu_stream_is_capturing(s, &capturing), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_STREAM_CAPTURE_INVALIDATED,
            "invalidated");
    gpu_graph_destroy(g);
    g = NULL;
    FT_FAIL(gpu_stream_end_capture(s, &g), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_STREAM_CAPTURE_INVALIDATED,
            "cuStreamEndCapture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (901)");
    assert_null(g);
    gpu_graph_exec_destroy(x);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

/* Waiting for a capturing stream is impossible: refused, and the capture is lost. */
static void synchronizing_a_capture(void **state)
{
    gpu_stream *s = NULL;
    gpu_graph *g = NULL;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    FT_FAIL(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_ILLEGAL_STATE,
            "cuStreamBeginCapture");
    FT_FAIL(gpu_stream_synchronize(s), GPU_ERR_STREAM_SYNC, CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            "cuStreamSynchronize");
    FT_FAIL(gpu_stream_end_capture(s, &g), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_STREAM_CAPTURE_INVALIDATED, NULL);
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    FT_FAIL(gpu_context_synchronize(NULL), GPU_ERR_STREAM_SYNC, CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            "cuCtxSynchronize");
    FT_FAIL(gpu_stream_end_capture(s, &g), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_STREAM_CAPTURE_INVALIDATED, NULL);
    FT_FAIL(gpu_stream_end_capture(s, &g), GPU_ERR_GRAPH_CAPTURE, CUABI_ERROR_ILLEGAL_STATE, NULL);
    FT_FAIL(gpu_stream_begin_capture(GPU_DEVICE0_LEGACY_STREAM, GPU_CAPTURE_MODE_GLOBAL), GPU_ERR_INVALID_ARG, 0,
            "legacy default stream");
    FT_FAIL(gpu_stream_begin_capture(s, (gpu_capture_mode)7), GPU_ERR_INVALID_ARG, 0, "mode 7");
    gpu_stream_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_stream_is_ordered),
        cmocka_unit_test(non_blocking_stream_races),
        cmocka_unit_test(env_knob),
        cmocka_unit_test(env_knob_aprender_name),
        cmocka_unit_test(copy_in_waits_for_kernel),
        cmocka_unit_test(async_copies_are_ordered),
        cmocka_unit_test(legacy_stream_work),
        cmocka_unit_test(dtod_sync_is_legacy),
        cmocka_unit_test(queries_see_pending_work),
        cmocka_unit_test(synchronize_waits_for_held_kernel),
        cmocka_unit_test(host_func_runs_in_order),
        cmocka_unit_test(wait_event_orders_streams),
        cmocka_unit_test(timed_events),
        cmocka_unit_test(capture_replays),
        cmocka_unit_test(capture_on_ordered_stream),
        cmocka_unit_test(capture_on_non_blocking_stream),
        cmocka_unit_test(bad_shape_during_capture),
        cmocka_unit_test(synchronizing_a_capture),
    };

    return cmocka_run_group_tests_name("ordering", tests, setup, teardown);
}
