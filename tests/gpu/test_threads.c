/* SPDX-License-Identifier: MIT */
/*
 * Threads and contexts. Work submitted from threads that never set a context
 * runs, and leaves the object's context current there (as context.h says). A
 * thread with its own context current still has it after every gpushim call.
 * A thread handed a stream made elsewhere can make every hot call on it
 * (copies, launch, record, wait, query) with no context current: the driver
 * runs them in the stream's context, and gpushim leaves the thread without
 * one (or, on a driver that wants it current, gives it the stream's).
 *
 * To see the current context this test calls cuCtxGetCurrent itself, from the
 * driver file gpushim loaded; to make "another context" it creates one with
 * cuCtxCreate_v2.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef int (*ctx_get_current_fn)(void **ctx);
typedef int (*ctx_create_fn)(void **ctx, unsigned flags, int device);
typedef int (*ctx_destroy_fn)(void *ctx);
typedef int (*device_get_fn)(int *device, int ordinal);

static ctx_get_current_fn ctx_get_current;
static ctx_create_fn ctx_create;
static ctx_destroy_fn ctx_destroy;
static device_get_fn device_get;

enum { THREADS = 4, N = 1 << 16, ITERS = 40 };
#define BYTES ((size_t)N * sizeof(uint32_t))

static void *lookup(void *handle, const char *name)
{
    return handle ? dlsym(handle, name) : NULL;
}

static int setup(void **state)
{
    void *handle = dlopen(gpu_driver_get_report()->file, RTLD_NOW | RTLD_NOLOAD);
    void *sym;

    (void)state;
    sym = lookup(handle, "cuCtxGetCurrent");
    memcpy(&ctx_get_current, &sym, sizeof(sym));
    sym = lookup(handle, "cuCtxCreate_v2");
    memcpy(&ctx_create, &sym, sizeof(sym));
    sym = lookup(handle, "cuCtxDestroy_v2");
    memcpy(&ctx_destroy, &sym, sizeof(sym));
    sym = lookup(handle, "cuDeviceGet");
    memcpy(&device_get, &sym, sizeof(sym));
    if (!ctx_get_current)
        printf("THREADS cannot reach cuCtxGetCurrent in %s\n", gpu_driver_get_report()->file);
    return ctx_get_current ? 0 : -1;
}

static void *current(void)
{
    void *ctx = NULL;

    if (ctx_get_current(&ctx) != 0)
        return (void *)-1;
    return ctx;
}

struct fresh {
    pthread_t thread;
    unsigned id;
    void *before;
    void *after;
    void *expected;
    size_t wrong;
    gpu_test_error error;
};

static void *fresh_main(void *arg)
{
    struct fresh *f = arg;
    gpu_test_error *e = &f->error;
    gpu_stream *s = NULL;
    gpu_host_buffer *in = NULL, *out = NULL;
    gpu_buffer *d_in = NULL, *d_out = NULL;

    f->before = current();
    if (gpu_test_ok(e, gpu_stream_create_non_blocking(NULL, &s), "gpu_stream_create_non_blocking") &&
        gpu_test_ok(e, gpu_host_buffer_create(NULL, BYTES, &in), "gpu_host_buffer_create") &&
        gpu_test_ok(e, gpu_host_buffer_create(NULL, BYTES, &out), "gpu_host_buffer_create") &&
        gpu_test_ok(e, gpu_buffer_create(NULL, BYTES, &d_in), "gpu_buffer_create") &&
        gpu_test_ok(e, gpu_buffer_create(NULL, BYTES, &d_out), "gpu_buffer_create")) {
        gpu_test_fill_input(gpu_host_buffer_get_data(in), N, 500u + f->id);
        if (gpu_test_ok(e, gpu_buffer_copy_from_host_async(d_in, gpu_host_buffer_get_data(in), BYTES, s), "copy in") &&
            gpu_test_ok(e, gpu_test_launch_work(s, d_in, d_out, N, ITERS), "launch work") &&
            gpu_test_ok(e, gpu_buffer_copy_to_host_async(d_out, gpu_host_buffer_get_data(out), BYTES, s), "copy out") &&
            gpu_test_ok(e, gpu_stream_synchronize(s), "gpu_stream_synchronize"))
            f->wrong = gpu_test_count_wrong(gpu_host_buffer_get_data(out), N, 500u + f->id, work_map_for(ITERS));
        f->expected = gpu_context_get_raw(gpu_stream_get_context(s));
        f->after = current();
    }
    gpu_buffer_destroy(d_in);
    gpu_buffer_destroy(d_out);
    gpu_host_buffer_destroy(in);
    gpu_host_buffer_destroy(out);
    gpu_stream_destroy(s);
    return NULL;
}

static void fresh_threads_run_work(void **state)
{
    struct fresh f[THREADS];

    (void)state;
    memset(f, 0, sizeof(f));
    for (unsigned i = 0; i < THREADS; i++) {
        f[i].id = i;
        assert_int_equal(pthread_create(&f[i].thread, NULL, fresh_main, &f[i]), 0);
    }
    for (unsigned i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(f[i].thread, NULL), 0);
    for (unsigned i = 0; i < THREADS; i++) {
        printf("THREADS fresh thread %u: context before=%p after=%p (the stream's %p) wrong=%zu\n", i, f[i].before,
               f[i].after, f[i].expected, f[i].wrong);
        assert_no_worker_error(&f[i].error);
        assert_null(f[i].before);
        assert_non_null(f[i].expected);
        assert_ptr_equal(f[i].after, f[i].expected);
        assert_int_equal(f[i].wrong, 0);
    }
}

/* ---- Hot calls only, from a thread with no context ---- */

struct hot_only {
    gpu_stream *s;
    gpu_event *ev;
    gpu_function *f;
    gpu_buffer *d_in, *d_out;
    gpu_host_buffer *in, *out;
    void *before;
    void *during; /* after the hot calls, before anything else */
    size_t wrong;
    gpu_test_error error;
};

static void *hot_only_main(void *arg)
{
    struct hot_only *h = arg;
    gpu_test_error *e = &h->error;
    uint64_t src = gpu_buffer_get_device_ptr(h->d_in), dst = gpu_buffer_get_device_ptr(h->d_out);
    uint32_t n = N, iters = ITERS;
    void *args[] = {&src, &dst, &n, &iters};
    gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(N), KERNEL_BLOCK);
    bool idle = false;

    h->before = current();
    gpu_test_fill_input(gpu_host_buffer_get_data(h->in), N, 900u);
    if (gpu_test_ok(e, gpu_buffer_copy_from_host_async(h->d_in, gpu_host_buffer_get_data(h->in), BYTES, h->s), "copy in") &&
        gpu_test_ok(e, gpu_stream_launch_function(h->s, h->f, &config, args), "launch") &&
        gpu_test_ok(e, gpu_stream_record_event(h->s, h->ev), "record") &&
        gpu_test_ok(e, gpu_stream_wait_event(h->s, h->ev), "wait") &&
        gpu_test_ok(e, gpu_stream_is_complete(h->s, &idle), "query") &&
        gpu_test_ok(e, gpu_buffer_copy_to_host_async(h->d_out, gpu_host_buffer_get_data(h->out), BYTES, h->s),
                    "copy out")) {
        h->during = current();
        if (gpu_test_ok(e, gpu_stream_synchronize(h->s), "gpu_stream_synchronize"))
            h->wrong = gpu_test_count_wrong(gpu_host_buffer_get_data(h->out), N, 900u, work_map_for(ITERS));
    }
    return NULL;
}

static void hot_calls_from_a_thread_without_context(void **state)
{
    struct hot_only h;
    pthread_t t;
    void *stream_ctx;

    (void)state;
    memset(&h, 0, sizeof(h));
    /* Everything made on this thread: the worker makes hot calls only. */
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &h.s));
    assert_gpu_ok(gpu_event_create(NULL, &h.ev));
    assert_gpu_ok(gpu_module_get_function(gpu_test_module(), KERNEL_WORK, &h.f));
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &h.d_in));
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &h.d_out));
    assert_gpu_ok(gpu_host_buffer_create(NULL, BYTES, &h.in));
    assert_gpu_ok(gpu_host_buffer_create(NULL, BYTES, &h.out));
    stream_ctx = gpu_context_get_raw(gpu_stream_get_context(h.s));
    assert_int_equal(pthread_create(&t, NULL, hot_only_main, &h), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    printf("THREADS hot calls only: context before=%p after them=%p (%s; the stream's %p) wrong=%zu\n", h.before,
           h.during, h.during ? "the driver wanted the stream's context current" : "left without one", stream_ctx,
           h.wrong);
    assert_no_worker_error(&h.error);
    assert_null(h.before);
    assert_true(h.during == NULL || h.during == stream_ctx);
    assert_int_equal(h.wrong, 0);
    gpu_host_buffer_destroy(h.in);
    gpu_host_buffer_destroy(h.out);
    gpu_buffer_destroy(h.d_in);
    gpu_buffer_destroy(h.d_out);
    gpu_event_destroy(h.ev);
    gpu_stream_destroy(h.s);
}

struct pushed {
    void *mine;
    unsigned calls;
    unsigned changed;        /* calls after which the current context was not `mine` */
    char first_change[128];
    void *gpushim_ctx;
    size_t wrong;
    const char *skip;
    gpu_test_error error;
};

/* Runs one gpushim call, keeps its failure, and checks the thread's context survived it. */
#define KEEPS(p, call) \
    do { \
        gpu_test_ok(&(p)->error, (call), #call); \
        (p)->calls++; \
        if (current() != (p)->mine && (p)->changed++ == 0) \
            snprintf((p)->first_change, sizeof((p)->first_change), "%s", #call); \
    } while (0)

static void *pushed_main(void *arg)
{
    static uint32_t in[N], out[N];
    struct pushed *p = arg;
    gpu_stream *s = NULL;
    gpu_event *ev = NULL;
    gpu_buffer *d_in = NULL, *d_out = NULL;
    gpu_host_buffer *h = NULL;
    gpu_function *f = NULL;
    bool done = false;
    int dev = -1;

    if (!ctx_create || !ctx_destroy || !device_get) {
        p->skip = "the driver exports no cuCtxCreate_v2/cuCtxDestroy_v2/cuDeviceGet";
        return NULL;
    }
    if (device_get(&dev, 0) != 0 || ctx_create(&p->mine, 0, dev) != 0 || !p->mine) {
        p->skip = "cuCtxCreate_v2 failed";
        return NULL;
    }
    gpu_test_fill_input(in, N, 77u);
    KEEPS(p, gpu_stream_create_with_flags(NULL, GPU_STREAM_DEFAULT, &s));
    KEEPS(p, gpu_buffer_create(NULL, BYTES, &d_in));
    KEEPS(p, gpu_buffer_create(NULL, BYTES, &d_out));
    KEEPS(p, gpu_host_buffer_create(NULL, BYTES, &h));
    KEEPS(p, gpu_event_create(NULL, &ev));
    KEEPS(p, gpu_module_get_function(gpu_test_module(), KERNEL_WORK, &f));
    if (!p->error.failed) {
        KEEPS(p, gpu_buffer_copy_from_host(d_in, in, BYTES));
        KEEPS(p, gpu_test_launch_work(s, d_in, d_out, N, ITERS));
        KEEPS(p, gpu_stream_record_event(s, ev));
        KEEPS(p, gpu_event_is_complete(ev, &done));
        KEEPS(p, gpu_event_synchronize(ev));
        KEEPS(p, gpu_stream_synchronize(s));
        KEEPS(p, gpu_buffer_copy_to_host(d_out, out, BYTES));
        KEEPS(p, gpu_buffer_copy_to_host_async(d_out, gpu_host_buffer_get_data(h), BYTES, s));
        KEEPS(p, gpu_stream_synchronize(s));
        KEEPS(p, gpu_context_synchronize(NULL));
        p->wrong = gpu_test_count_wrong(out, N, 77u, work_map_for(ITERS)) +
                   gpu_test_count_wrong(gpu_host_buffer_get_data(h), N, 77u, work_map_for(ITERS));
        p->gpushim_ctx = gpu_context_get_raw(gpu_stream_get_context(s));
    }
    gpu_host_buffer_destroy(h);
    gpu_event_destroy(ev);
    gpu_buffer_destroy(d_in);
    gpu_buffer_destroy(d_out);
    gpu_stream_destroy(s);
    p->calls++;
    if (current() != p->mine && p->changed++ == 0)
        snprintf(p->first_change, sizeof(p->first_change), "the destroy calls");
    ctx_destroy(p->mine);
    return NULL;
}

static void pushed_context_kept(void **state)
{
    struct pushed p;
    pthread_t thread;

    (void)state;
    memset(&p, 0, sizeof(p));
    assert_int_equal(pthread_create(&thread, NULL, pushed_main, &p), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    if (p.skip) {
        printf("THREADS pushed context: skipped: %s\n", p.skip);
        skip();
    }
    printf("THREADS own context %p kept across %u gpushim calls: %s (changed after %u%s%s); gpushim's context %p; "
           "wrong=%zu\n",
           p.mine, p.calls, p.changed ? "NO" : "yes", p.changed, p.changed ? ", first " : "", p.first_change,
           p.gpushim_ctx, p.wrong);
    assert_no_worker_error(&p.error);
    assert_int_equal(p.changed, 0);
    assert_non_null(p.gpushim_ctx);
    assert_ptr_not_equal(p.gpushim_ctx, p.mine);
    assert_int_equal(p.wrong, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fresh_threads_run_work),
        cmocka_unit_test(pushed_context_kept),
        cmocka_unit_test(hot_calls_from_a_thread_without_context),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-threads");

    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, setup, NULL);
}
