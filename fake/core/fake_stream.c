/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's streams, a thread's per-thread default stream among them,
 * and the work queued on them (events are fake_event.c's, capture and graphs
 * fake_graph.c's). Device work (kernels, copies, memsets, pool frees, stream
 * memory operations) runs through the struct fake_work its queuing part gave
 * it, so the stream, in the core, names none of those parts.
 *
 * Work is queued, not run: each stream is a FIFO of operations, and an
 * operation runs when something needs it done (a synchronisation, a
 * legacy-stream operation ordered after it, gpu_fake_run()), or on its own:
 * a query that finds it pending runs what can run without waiting, and a
 * progress thread runs what is left after a short idle delay, so that a
 * program that polls sees its work end and host functions fire while the
 * host does something else. In lazy mode (GPUSHIM_FAKE_PROGRESS=0,
 * gpu_fake_progress(false)) only the first happens, which makes the
 * orderings of the real driver observable without timing:
 *
 *  - Every operation gets a global sequence number. A dependency is "stream S
 *    has run everything up to number N", and always points at older work.
 *  - Work queued on a blocking stream (flags 0) depends on the legacy stream's
 *    queued work; a legacy-stream operation depends on every blocking stream's
 *    queued work, of the same context. A non-blocking stream has neither, so a
 *    synchronous copy does not wait for its kernels and reads what was there
 *    before them, as on the real driver.
 *  - While a blocking stream captures, a legacy-stream operation of its context
 *    fails with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT and invalidates the capture.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_faults.h"
#include "fake_stream.h"

struct fake_op *fake_op_new(enum fake_op_kind kind, const struct fake_work *work)
{
    struct fake_op *op = calloc(1, sizeof(*op));

    if (op) {
        op->kind = kind;
        op->work = work;
    }
    return op;
}

void fake_op_free(struct fake_op *op)
{
    if (op->work && op->work->release)
        op->work->release(op);
    if (op->kind == FAKE_OP_COPY)
        free(op->u.copy.staged);
    free(op->deps);
    free(op);
}

static bool add_dep(struct fake_op *op, struct fake_stream *s, uint64_t seq)
{
    struct fake_dep *d = realloc(op->deps, (op->ndeps + 1) * sizeof(*d));

    if (!d)
        return false;
    d[op->ndeps].stream = s;
    d[op->ndeps].seq = seq;
    op->deps = d;
    op->ndeps++;
    return true;
}

bool fake_stream_done(const struct fake_stream *s, uint64_t seq)
{
    return (!s->head || s->head->seq > seq) && !(s->running_seq && s->running_seq <= seq);
}

static bool is_blocking(const struct fake_stream *s)
{
    return !s->legacy && !(s->flags & CUABI_STREAM_NON_BLOCKING);
}

/* The live stream a handle is; handles are compared, never dereferenced. */
struct fake_stream *fake_stream_find(cuabi_stream handle)
{
    for (struct fake_stream *s = fake.streams; s; s = s->next_live)
        if ((void *)s == (void *)handle)
            return s;
    return NULL;
}

/* Calls `fn` on every queue: the live streams, then each context's legacy stream. */
static void each_queue(void (*fn)(struct fake_stream *, void *), void *arg)
{
    for (struct fake_stream *s = fake.streams; s; s = s->next_live)
        fn(s, arg);
    fake_each_legacy(fn, arg);
}

static bool is_default(cuabi_stream handle)
{
    return !handle || handle == CUABI_STREAM_LEGACY || handle == CUABI_STREAM_PER_THREAD;
}

cuabi_result fake_stream_get(cuabi_stream handle, struct fake_stream **out)
{
    struct fake_ctx *c = NULL;
    cuabi_result rc;

    if (!is_default(handle)) {
        *out = fake_stream_find(handle);
        return *out ? CUABI_SUCCESS : CUABI_ERROR_INVALID_HANDLE;
    }
    if ((rc = fake_need_ctx(&c)) != CUABI_SUCCESS)
        return rc;
    if (handle == CUABI_STREAM_PER_THREAD || (!handle && fake_per_thread_call() >= 0))
        return fake_per_thread_stream(c, out);
    *out = &c->legacy;
    return CUABI_SUCCESS;
}

cuabi_result fake_stream_for_work(cuabi_stream handle, struct fake_stream **out)
{
    struct fake_ctx *c = fake_current();
    struct fake_stream *s;

    if (is_default(handle))
        return fake_stream_get(handle, out);
    /*
     * Strict by default where the real driver is lenient: a client that
     * forgets to make the stream's context current is caught. Lenient, the
     * stream's context is the one that counts, as on the real driver.
     */
    if (!fake.lenient_context && (!c || c->retains == 0))
        return CUABI_ERROR_INVALID_CONTEXT;
    s = fake_stream_find(handle);
    if (!s)
        return CUABI_ERROR_INVALID_HANDLE;
    if (!fake.lenient_context && s->ctx != c)
        return CUABI_ERROR_INVALID_CONTEXT;
    if (fake_ctx_error(s->ctx))
        return fake_ctx_error(s->ctx);
    *out = s;
    return CUABI_SUCCESS;
}

/* ---- Running work ---- */

void fake_stream_configure(void)
{
    fake.faults_told_once = !fake_env_switch("GPUSHIM_FAKE_STICKY", true);
    fake.lazy = !fake_env_switch("GPUSHIM_FAKE_PROGRESS", true);
}

bool fake_result_sticky(cuabi_result rc)
{
    switch (rc) {
    case CUABI_ERROR_ILLEGAL_ADDRESS:
    case CUABI_ERROR_LAUNCH_TIMEOUT:
    case CUABI_ERROR_ASSERT:
    case CUABI_ERROR_HARDWARE_STACK_ERROR:
    case CUABI_ERROR_ILLEGAL_INSTRUCTION:
    case CUABI_ERROR_MISALIGNED_ADDRESS:
    case CUABI_ERROR_INVALID_ADDRESS_SPACE:
    case CUABI_ERROR_INVALID_PC:
    case CUABI_ERROR_LAUNCH_FAILED:
        return true;
    default:
        return false;
    }
}

/* Whether an operation does device work, which a corrupted context no longer does. */
static bool device_work(const struct fake_op *op)
{
    return op->kind == FAKE_OP_KERNEL || op->kind == FAKE_OP_COPY || op->kind == FAKE_OP_MEMSET ||
           op->kind == FAKE_OP_WRITE_VALUE || op->kind == FAKE_OP_WAIT_VALUE;
}

/* Whether the operation is the "hold" kernel while the gate is closed (gpu_fake_gate()). */
static bool held_at_gate(const struct fake_op *op)
{
    return op && op->work && op->work->holds && op->work->holds(op) && fake.gate_closed;
}

/* Whether the head of a queue cannot run yet: a wait on a value not met, in a context that still works. */
static bool head_blocked(const struct fake_stream *q)
{
    const struct fake_op *op = q->head;

    return !q->ctx->sticky && op && op->work && op->work->blocked && op->work->blocked(op);
}

static void run_op(struct fake_stream *s, struct fake_op *op)
{
    cuabi_result before = s->fault;
    bool ok = true;

    if (s->ctx->sticky && device_work(op))
        return;
    switch (op->kind) {
    case FAKE_OP_FREE:
        /* What it frees leaves the allocations, which a kernel running without the lock may be reading. */
        if (fake.kernels_unlocked) {
            s->running_seq = op->seq;
            while (fake.kernels_unlocked)
                pthread_cond_wait(&fake.cond, &fake.lock);
            s->running_seq = 0;
            pthread_cond_broadcast(&fake.cond); /* for those who waited for the stream meanwhile */
        }
        ok = op->work->run(s, op);
        break;
    case FAKE_OP_KERNEL:
    case FAKE_OP_COPY:
    case FAKE_OP_MEMSET:
    case FAKE_OP_WRITE_VALUE:
    case FAKE_OP_WAIT_VALUE:
        ok = op->work->run(s, op);
        break;
    case FAKE_OP_HOST_FN: {
        /* The error so far, read under the lock: another stream's work may change it meanwhile. */
        cuabi_result status = s->ctx->sticky ? s->ctx->sticky : s->fault;

        /*
         * Without the lock, as a driver thread would run it: a host function
         * that calls into gpushim takes gpushim's locks, which are taken
         * before this one everywhere else. The stream stays busy meanwhile,
         * so its later work still waits.
         */
        s->running_seq = op->seq;
        fake_in_callback = true;
        pthread_mutex_unlock(&fake.lock);
        if (op->u.host.callback)
            op->u.host.callback(op->u.host.handle, status, op->u.host.user_data);
        else
            op->u.host.fn(op->u.host.user_data);
        pthread_mutex_lock(&fake.lock);
        fake_in_callback = false;
        s->running_seq = 0;
        pthread_cond_broadcast(&fake.cond);
        break;
    }
    case FAKE_OP_RECORD:
        /* A record takes no time: it stamps the clock, unless a later record of the event superseded it. */
        if (op->u.event && op->u.event->stream == s && op->u.event->seq == op->seq) {
            op->u.event->time_ns = fake.clock_ns;
            op->u.event->timed_once = true;
        }
        return;
    case FAKE_OP_WAIT:
        return;
    }
    fake.clock_ns += 1000;
    if (!ok) {
        fake.anomalies[GPU_FAKE_ANOMALY_EXEC_FAULT]++;
        if (!s->fault)
            s->fault = CUABI_ERROR_ILLEGAL_ADDRESS;
    }
    if (fake.faults_told_once || s->ctx->sticky)
        return;
    if (!ok)
        s->ctx->sticky = CUABI_ERROR_ILLEGAL_ADDRESS;
    else if (s->fault != before && fake_result_sticky(s->fault))
        s->ctx->sticky = s->fault;
}


/*
 * Runs the oldest operation of another queue that can run, for a stream held
 * by a wait on a value: false when there is none (only the host, or another
 * thread, can release it then).
 */
struct other {
    const struct fake_stream *held;
    struct fake_stream *best;
};

static void oldest_other(struct fake_stream *q, void *arg)
{
    struct other *o = arg;

    if (q != o->held && q->head && !head_blocked(q) && !held_at_gate(q->head) &&
        (!o->best || q->head->seq < o->best->head->seq))
        o->best = q;
}

static bool run_other(const struct fake_stream *held)
{
    struct other o = {held, NULL};

    each_queue(oldest_other, &o);
    if (!o.best)
        return false;
    fake_stream_drain(o.best, o.best->head->seq);
    return true;
}

static struct fake_dep *pending_dep(struct fake_op *op)
{
    for (size_t i = 0; i < op->ndeps; i++)
        if (op->deps[i].stream && !fake_stream_done(op->deps[i].stream, op->deps[i].seq))
            return &op->deps[i];
    return NULL;
}

/* A thread done with a stream it held: the last frees a destroyed one (fake_stream_free()). */
static void stream_release(struct fake_stream *s)
{
    if (--s->waiters == 0 && s->dead)
        free(s);
}

/*
 * Runs the stream's work up to sequence number `upto`, its dependencies'
 * first. A closed gate, or a host function still running, makes this wait,
 * dropping the lock, so everything is looked at afresh after each step.
 */
void fake_stream_drain(struct fake_stream *s, uint64_t upto)
{
    s->waiters++;
    for (;;) {
        struct fake_op *op = s->head;
        struct fake_dep *d;

        if (s->running_seq && s->running_seq <= upto) {
            pthread_cond_wait(&fake.cond, &fake.lock);
            continue;
        }
        if (!op || op->seq > upto)
            break;
        if (fake_stalled()) {
            pthread_cond_wait(&fake.cond, &fake.lock);
            continue;
        }
        d = pending_dep(op);
        if (d) {
            fake_stream_drain(d->stream, d->seq);
            continue;
        }
        if (held_at_gate(op)) {
            pthread_cond_wait(&fake.cond, &fake.lock);
            continue;
        }
        if (head_blocked(s)) {
            if (!run_other(s))
                pthread_cond_wait(&fake.cond, &fake.lock);
            continue;
        }
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        run_op(s, op);
        fake_op_free(op);
    }
    stream_release(s);
}

bool fake_kernel_unlock(struct fake_stream *s, const struct fake_op *op)
{
    if (fake.writers || fake.writers_waiting)
        return false;
    s->running_seq = op->seq;
    fake.kernels_unlocked++;
    pthread_mutex_unlock(&fake.lock);
    return true;
}

void fake_kernel_relock(struct fake_stream *s, bool unlocked)
{
    if (!unlocked)
        return;
    pthread_mutex_lock(&fake.lock);
    fake.kernels_unlocked--;
    s->running_seq = 0;
    pthread_cond_broadcast(&fake.cond);
}

/* ---- Progress without the host ---- */

/*
 * Runs the stream's work up to `upto`, its dependencies' first, as far as it
 * can without waiting: it stops at a host function still running, a stall,
 * a closed gate, a wait on a value not met. Whether anything ran.
 */
static bool advance(struct fake_stream *s, uint64_t upto)
{
    bool ran = false;

    for (;;) {
        struct fake_op *op = s->head;
        struct fake_dep *d;

        if (s->running_seq || !op || op->seq > upto || fake_stalled())
            return ran;
        d = pending_dep(op);
        if (d) {
            if (!advance(d->stream, d->seq))
                return ran;
            ran = true;
            continue;
        }
        if (held_at_gate(op) || head_blocked(s))
            return ran;
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        run_op(s, op);
        fake_op_free(op);
        ran = true;
    }
}

/* What a query that finds the stream's work pending does outside lazy mode: runs what it can. */
static void poll_progress(struct fake_stream *s, uint64_t upto)
{
    if (!fake.lazy && advance(s, upto))
        pthread_cond_broadcast(&fake.cond);
}

enum {
    PROGRESS_IDLE_NS = 1000000,     /* work queued waits this long for the host before the thread runs it */
    PROGRESS_BLOCKED_NS = 10000000, /* work that could not run is looked at again after this long */
};

static pthread_cond_t progress_cond = PTHREAD_COND_INITIALIZER;
static bool progress_started; /* this process's progress thread runs (a fork's child has none) */
/*
 * What the progress thread is doing, under fake.lock: a wake is needed only while it sleeps with
 * nothing queued or waits out work that could not run; while it waits out the idle delay it will
 * look at the queues anyway, so a launch pays no wake-up (a futex call and a thread switch).
 */
static enum { PROGRESS_RUNNING, PROGRESS_SLEEPING, PROGRESS_IDLE_WAIT, PROGRESS_BLOCKED_WAIT } progress_state;

static void advance_queue(struct fake_stream *q, void *arg)
{
    if (!*(bool *)arg)
        *(bool *)arg = advance(q, fake.seq);
}

static void any_queued(struct fake_stream *q, void *arg)
{
    *(bool *)arg |= q->head != NULL;
}

static void wait_ns(long ns)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += ns;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&progress_cond, &fake.lock, &t);
}

/*
 * The progress thread: while work is queued and not lazy, runs what can run
 * after an idle delay, a queue at a time (a host function drops the lock, so
 * the queues are looked at afresh after each), and wakes those who wait.
 */
static void *progress_main(void *arg)
{
    bool blocked = false;

    (void)arg;
    pthread_mutex_lock(&fake.lock);
    for (;;) {
        bool queued = false, ran = false;

        each_queue(any_queued, &queued);
        if (!queued || fake.lazy) {
            progress_state = PROGRESS_SLEEPING;
            pthread_cond_wait(&progress_cond, &fake.lock);
            progress_state = PROGRESS_RUNNING;
            blocked = false;
            continue;
        }
        progress_state = blocked ? PROGRESS_BLOCKED_WAIT : PROGRESS_IDLE_WAIT;
        wait_ns(blocked ? PROGRESS_BLOCKED_NS : PROGRESS_IDLE_NS);
        progress_state = PROGRESS_RUNNING;
        if (fake.lazy)
            continue;
        do {
            ran = false;
            each_queue(advance_queue, &ran);
            if (ran)
                pthread_cond_broadcast(&fake.cond);
        } while (ran && !fake.lazy);
        blocked = true; /* what is left could not run */
    }
    return NULL;
}

/* A fork's child has no progress thread (fake_core.c holds the lock across fork()). */
static void fork_child(void)
{
    progress_started = false;
    progress_state = PROGRESS_RUNNING;
}

static void progress_once(void)
{
    pthread_atfork(NULL, NULL, fork_child);
}

/* Wakes the progress thread, starting it in this process at the first need; without one, work still runs when needed. */
static void progress_wake(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_attr_t attr;
    pthread_t t;

    if (fake.lazy)
        return;
    if (progress_started) {
        if (progress_state == PROGRESS_SLEEPING || progress_state == PROGRESS_BLOCKED_WAIT)
            pthread_cond_signal(&progress_cond);
        return;
    }
    pthread_once(&once, progress_once);
    if (pthread_attr_init(&attr) != 0)
        return;
    if (pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
        pthread_create(&t, &attr, progress_main, NULL) == 0)
        progress_started = true;
    pthread_attr_destroy(&attr);
}

/* The first stream of the context, `blocking_only` or any, with work queued up to `upto`. */
static struct fake_stream *stream_with_work(struct fake_ctx *ctx, bool blocking_only, uint64_t upto)
{
    for (struct fake_stream *s = fake.streams; s; s = s->next_live)
        if (s->ctx == ctx && (!blocking_only || is_blocking(s)) && !fake_stream_done(s, upto))
            return s;
    return NULL;
}

/* Runs the context's legacy stream and its (blocking, or all) streams up to `upto`. */
static void drain_ctx(struct fake_ctx *ctx, bool blocking_only, uint64_t upto)
{
    struct fake_stream *s;

    fake_stream_drain(&ctx->legacy, upto);
    /* Looked up again each time: draining may wait, and the list may change meanwhile. */
    while ((s = stream_with_work(ctx, blocking_only, upto)))
        fake_stream_drain(s, upto);
}

struct behind {
    uint64_t upto;
    struct fake_stream *found;
};

static void queue_behind(struct fake_stream *q, void *arg)
{
    struct behind *b = arg;

    if (!b->found && !fake_stream_done(q, b->upto))
        b->found = q;
}

void fake_work_drain(void)
{
    struct behind b = {fake.seq, NULL};

    /* Looked up again each time: draining may wait, and the queues may change meanwhile. */
    for (;;) {
        b.found = NULL;
        each_queue(queue_behind, &b);
        if (!b.found)
            return;
        fake_stream_drain(b.found, b.upto);
    }
}

/* Whether a blocking stream of the context is capturing; with `invalidate`, that capture is broken. */
bool fake_blocking_capture(struct fake_ctx *ctx, bool invalidate)
{
    bool found = false;

    for (struct fake_stream *s = fake.streams; s; s = s->next_live) {
        if (s->ctx != ctx || !is_blocking(s) || s->capture == FAKE_CAPTURE_NONE)
            continue;
        found = true;
        if (invalidate)
            s->capture = FAKE_CAPTURE_INVALIDATED;
    }
    return found;
}

bool fake_ctx_capturing(struct fake_ctx *ctx, bool invalidate)
{
    bool found = false;

    for (struct fake_stream *s = fake.streams; s; s = s->next_live) {
        if (s->ctx != ctx || s->capture == FAKE_CAPTURE_NONE)
            continue;
        found = true;
        if (invalidate)
            s->capture = FAKE_CAPTURE_INVALIDATED;
    }
    return found;
}

/* A synchronous operation on the thread's per-thread stream: after its work and the legacy stream's. */
static cuabi_result per_thread_sync(struct fake_ctx *ctx)
{
    struct fake_stream *s = NULL;
    cuabi_result rc = fake_per_thread_stream(ctx, &s);

    if (rc != CUABI_SUCCESS)
        return rc;
    if (s->capture != FAKE_CAPTURE_NONE) {
        s->capture = FAKE_CAPTURE_INVALIDATED;
        return CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    fake_stream_drain(&ctx->legacy, ctx->legacy.last_seq);
    fake_stream_drain(s, s->last_seq);
    return CUABI_SUCCESS;
}

/* A synchronous operation on the legacy stream. */
static cuabi_result legacy_sync(struct fake_ctx *ctx)
{
    if (fake_blocking_capture(ctx, true))
        return CUABI_ERROR_STREAM_CAPTURE_IMPLICIT;
    drain_ctx(ctx, true, fake.seq);
    return CUABI_SUCCESS;
}

cuabi_result fake_legacy_sync(struct fake_ctx *ctx)
{
    cuabi_result rc = fake_per_thread_call() >= 0 ? per_thread_sync(ctx) : legacy_sync(ctx);

    /* The work it waited for may have corrupted the context: the operation is not done then. */
    return rc != CUABI_SUCCESS ? rc : ctx->sticky;
}

static cuabi_result take_fault(struct fake_stream *s)
{
    cuabi_result rc = s->fault;

    s->fault = CUABI_SUCCESS;
    return rc;
}

cuabi_result fake_ctx_drain(struct fake_ctx *ctx)
{
    cuabi_result rc;

    drain_ctx(ctx, false, fake.seq);
    rc = take_fault(&ctx->legacy);
    for (struct fake_stream *s = fake.streams; s; s = s->next_live) {
        cuabi_result f = s->ctx == ctx ? take_fault(s) : CUABI_SUCCESS;

        if (rc == CUABI_SUCCESS)
            rc = f;
    }
    return ctx->sticky ? ctx->sticky : rc;
}

/* ---- Queueing work ---- */

cuabi_result fake_enqueue(struct fake_stream *s, struct fake_op *op)
{
    bool ok = true;

    if (s->capture == FAKE_CAPTURE_ACTIVE) {
        fake_graph_append(s->capture_graph, op);
        return CUABI_SUCCESS;
    }
    if (s->capture == FAKE_CAPTURE_INVALIDATED) {
        fake_op_free(op);
        return CUABI_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    if (s->legacy && fake_blocking_capture(s->ctx, true)) {
        fake_op_free(op);
        return CUABI_ERROR_STREAM_CAPTURE_IMPLICIT;
    }
    if (op->kind == FAKE_OP_WAIT) {
        struct fake_event *e = op->u.event;

        /* Waiting for work that is done, or for an event never recorded, is nothing to wait for. */
        if (!e || !e->stream || fake_stream_done(e->stream, e->seq)) {
            fake_op_free(op);
            return CUABI_SUCCESS;
        }
        ok = add_dep(op, e->stream, e->seq);
    }
    if (ok && is_blocking(s) && s->ctx->legacy.head)
        ok = add_dep(op, &s->ctx->legacy, s->ctx->legacy.last_seq);
    if (s->legacy)
        for (struct fake_stream *b = fake.streams; ok && b; b = b->next_live)
            if (b->ctx == s->ctx && is_blocking(b) && b->head)
                ok = add_dep(op, b, b->last_seq);
    if (!ok) {
        fake_op_free(op);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    op->seq = ++fake.seq;
    op->next = NULL;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    s->last_seq = op->seq;
    if (op->kind == FAKE_OP_RECORD && op->u.event) {
        op->u.event->stream = s;
        op->u.event->seq = op->seq;
        op->u.event->recorded = true;
        op->u.event->timed_once = false;
    }
    progress_wake();
    return CUABI_SUCCESS;
}

/* ---- Forgetting objects that other objects point at ---- */

static void forget_stream_in(struct fake_stream *q, void *arg)
{
    for (struct fake_op *op = q->head; op; op = op->next)
        for (size_t i = 0; i < op->ndeps; i++)
            if (op->deps[i].stream == arg)
                op->deps[i].stream = NULL;
}

static void forget_event_in_ops(struct fake_op *op, const struct fake_event *e)
{
    for (; op; op = op->next)
        if ((op->kind == FAKE_OP_RECORD || op->kind == FAKE_OP_WAIT) && op->u.event == e)
            op->u.event = NULL;
}

static void forget_event_in(struct fake_stream *q, void *arg)
{
    forget_event_in_ops(q->head, arg);
    if (q->capture_graph)
        forget_event_in_ops(q->capture_graph->head, arg);
}

void fake_ops_free(struct fake_op *op)
{
    while (op) {
        struct fake_op *next = op->next;

        fake_op_free(op);
        op = next;
    }
}

void fake_graph_append(struct fake_graph *g, struct fake_op *op)
{
    op->next = NULL;
    if (g->tail)
        g->tail->next = op;
    else
        g->head = op;
    g->tail = op;
}

void fake_graph_free(struct fake_graph *g)
{
    fake_ops_free(g->head);
    free(g);
}

void fake_stream_drop_work(struct fake_stream *s)
{
    fake_ops_free(s->head);
    s->head = s->tail = NULL;
}

/*
 * Destroying a stream lets its work complete. Other threads may be waiting
 * for it meanwhile (fake_stream_drain() holds it), or destroying it too: the
 * first to find it done takes it out of the live list, and the last to
 * leave it frees it.
 */
void fake_stream_free(struct fake_stream *s)
{
    if (s->dead)
        return;
    if (s->capture_graph)
        fake_graph_free(s->capture_graph);
    s->capture_graph = NULL;
    s->capture = FAKE_CAPTURE_NONE;
    s->waiters++;
    while (!s->dead && !fake_stream_done(s, s->last_seq))
        fake_stream_drain(s, s->last_seq);
    if (!s->dead) {
        struct fake_stream **p = &fake.streams;

        while (*p != s)
            p = &(*p)->next_live;
        *p = s->next_live;
        each_queue(forget_stream_in, s);
        for (struct fake_event *e = fake.events; e; e = e->next_live)
            if (e->stream == s)
                e->stream = NULL;
        fake.live[GPU_FAKE_LIVE_STREAMS] -= !s->per_thread;
        s->dead = true;
    }
    stream_release(s);
}

void fake_stream_forget_event(const struct fake_event *e)
{
    each_queue(forget_event_in, (void *)e);
    for (struct fake_graph *g = fake.graphs; g; g = g->next_live)
        forget_event_in_ops(g->head, e);
}

unsigned long fake_streams_reset(struct fake_ctx *ctx)
{
    unsigned long n = 0;

    fake_stream_drain(&ctx->legacy, ctx->legacy.last_seq);
    ctx->legacy.fault = CUABI_SUCCESS;
    /* Each pass frees at most one stream and then starts over: a freed one's link is never read. */
    for (;;) {
        struct fake_stream *s = fake.streams;

        while (s && s->ctx != ctx)
            s = s->next_live;
        if (!s)
            return n;
        n += !s->per_thread; /* a thread's per-thread stream goes with its context: no leak */
        fake_stream_free(s);
    }
}

cuabi_result fake_ctx_synchronize(struct fake_ctx *ctx)
{
    /* Waiting for a capturing stream is impossible, so it is refused and breaks the capture. */
    if (fake_ctx_capturing(ctx, true))
        return CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return fake_ctx_drain(ctx);
}

void fake_streams_drop_work(int device)
{
    const struct fake_ctx *ctx = &fake.devices[device].ctx;

    for (struct fake_stream *s = fake.streams; s; s = s->next_live)
        if (s->ctx == ctx)
            fake_stream_drop_work(s);
    fake_stream_drop_work(&fake.devices[device].ctx.legacy);
}

/*
 * ---- The per-thread default stream ----
 *
 * A thread's per-thread stream of a context is made at its first use: a
 * blocking stream (ordered after the legacy stream's work, and the legacy
 * stream after it), not counted as a live stream of the client's. It goes
 * with its context, or when its thread exits with nothing queued on it (with
 * work still queued, it stays, ownerless, until its context goes).
 */

/* The thread's number for its per-thread streams: 0 until it has one. */
static _Thread_local uint64_t thread_number;
static uint64_t threads_numbered;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* At a thread's exit: its per-thread streams with nothing queued go; the others are left to their contexts. */
static void thread_exit(void *value)
{
    uint64_t number = (uint64_t)(uintptr_t)value;
    bool again = true;

    fake_lock();
    /* A freed stream's link is never read: after a free the walk starts over. */
    while (again) {
        again = false;
        for (struct fake_stream *s = fake.streams; s; s = s->next_live) {
            if (!s->per_thread || s->owner != number)
                continue;
            if (fake_stream_done(s, s->last_seq) && s->capture == FAKE_CAPTURE_NONE) {
                fake_stream_free(s);
                again = true;
                break;
            }
            s->owner = 0;
        }
    }
    fake_unlock();
}

static void exit_key_create(void)
{
    if (pthread_key_create(&exit_key, thread_exit) != 0)
        fake_die("per-thread default stream", "no thread-specific key left");
}

cuabi_result fake_per_thread_stream(struct fake_ctx *ctx, struct fake_stream **out)
{
    struct fake_stream *s;
    cuabi_result rc;

    for (s = fake.streams; thread_number && s; s = s->next_live)
        if (s->per_thread && s->owner == thread_number && s->ctx == ctx) {
            *out = s;
            return CUABI_SUCCESS;
        }
    pthread_once(&exit_key_once, exit_key_create);
    if (!thread_number) {
        thread_number = ++threads_numbered;
        if (pthread_setspecific(exit_key, (void *)(uintptr_t)thread_number) != 0) {
            thread_number = 0;
            return CUABI_ERROR_OUT_OF_MEMORY;
        }
    }
    if ((rc = fake_stream_new(ctx, 0, &s)) != CUABI_SUCCESS)
        return rc;
    s->per_thread = true;
    s->owner = thread_number;
    fake.live[GPU_FAKE_LIVE_STREAMS]--;
    *out = s;
    return CUABI_SUCCESS;
}

/* ---- Streams ---- */

cuabi_result cuStreamCreate(cuabi_stream *stream, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamCreate, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_stream *s = NULL;

        if (!stream || (flags & ~(unsigned)CUABI_STREAM_NON_BLOCKING))
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            rc = fake_stream_new(c, flags, &s);
        if (rc == CUABI_SUCCESS)
            *stream = (cuabi_stream)(void *)s;
    }
    return fake_end(rc);
}

cuabi_result fake_stream_new(struct fake_ctx *ctx, unsigned flags, struct fake_stream **out)
{
    struct fake_stream *s = calloc(1, sizeof(*s));

    if (!s)
        return CUABI_ERROR_OUT_OF_MEMORY;
    s->ctx = ctx;
    s->flags = flags;
    s->next_live = fake.streams;
    fake.streams = s;
    fake.live[GPU_FAKE_LIVE_STREAMS]++;
    *out = s;
    return CUABI_SUCCESS;
}

cuabi_result cuStreamDestroy_v2(cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamDestroy_v2, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_stream *s = fake_stream_find(stream);

        if (!s)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            fake_stream_free(s);
    }
    return fake_end(rc);
}

cuabi_result cuStreamSynchronize(cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamSynchronize, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    if (rc == CUABI_SUCCESS && s->legacy) {
        rc = legacy_sync(s->ctx);
        if (rc == CUABI_SUCCESS)
            rc = take_fault(s);
    } else if (rc == CUABI_SUCCESS) {
        if (fake_ctx_error(s->ctx)) {
            rc = fake_ctx_error(s->ctx);
            /* The stream's host function or kernel still running ends first: what it writes is the caller's after. */
            if (s->running_seq) {
                s->waiters++;
                fake_stream_drain(s, s->running_seq);
                stream_release(s);
            }
        } else if (s->capture != FAKE_CAPTURE_NONE) {
            s->capture = FAKE_CAPTURE_INVALIDATED;
            rc = CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        } else {
            /* Held: another thread's cuStreamDestroy meanwhile frees it only once this is done with it. */
            s->waiters++;
            fake_stream_drain(s, s->last_seq);
            rc = take_fault(s);
            if (rc == CUABI_SUCCESS && s->ctx->sticky)
                rc = s->ctx->sticky;
            stream_release(s);
            return fake_end(rc);
        }
    }
    if (rc == CUABI_SUCCESS && s->ctx->sticky)
        rc = s->ctx->sticky;
    return fake_end(rc);
}

cuabi_result cuStreamQuery(cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamQuery, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    if (rc == CUABI_SUCCESS && s->legacy) {
        if (fake_blocking_capture(s->ctx, true)) {
            rc = CUABI_ERROR_STREAM_CAPTURE_IMPLICIT;
            s = NULL;
        }
    } else if (rc == CUABI_SUCCESS) {
        if (fake_ctx_error(s->ctx)) {
            rc = fake_ctx_error(s->ctx);
            s = NULL;
        } else if (s->capture != FAKE_CAPTURE_NONE) {
            s->capture = FAKE_CAPTURE_INVALIDATED;
            rc = CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
            s = NULL;
        }
    }
    if (rc == CUABI_SUCCESS && s && !fake_stream_done(s, s->last_seq))
        poll_progress(s, s->last_seq);
    if (rc == CUABI_SUCCESS && s && s->ctx->sticky)
        rc = s->ctx->sticky;
    else if (rc == CUABI_SUCCESS && s)
        rc = !fake_stream_done(s, s->last_seq) ? CUABI_ERROR_NOT_READY : take_fault(s);
    return fake_end(rc);
}

cuabi_result cuLaunchHostFunc(cuabi_stream stream, cuabi_host_fn fn, void *user_data)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchHostFunc, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_op *op = NULL;

        if (!fn)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!(op = fake_op_new(FAKE_OP_HOST_FN, NULL)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        if (rc == CUABI_SUCCESS) {
            op->u.host.fn = fn;
            op->u.host.user_data = user_data;
            rc = fake_enqueue(s, op);
        }
    }
    return fake_end(rc);
}

/*
 * A callback after the stream's earlier work, told the stream as the client
 * named it and the stream's error: CUDA_SUCCESS, or the fault its work met
 * (a persistent error on the real driver). Flags must be 0. A capturing
 * stream refuses it, as the driver does (a callback is no graph node; use
 * cuLaunchHostFunc), and the capture is invalidated.
 */
cuabi_result cuStreamAddCallback(cuabi_stream stream, cuabi_stream_callback callback, void *user_data,
                                 unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamAddCallback, true);
    struct fake_stream *s = NULL;
    struct fake_op *op = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS && (!callback || flags))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && s->capture != FAKE_CAPTURE_NONE) {
        s->capture = FAKE_CAPTURE_INVALIDATED;
        rc = CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (rc == CUABI_SUCCESS && !(op = fake_op_new(FAKE_OP_HOST_FN, NULL)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        op->u.host.callback = callback;
        op->u.host.user_data = user_data;
        op->u.host.handle = stream;
        rc = fake_enqueue(s, op);
    }
    return fake_end(rc);
}

/* ---- What a stream says of itself ---- */

/* The stream's context; the default streams' is the current one. A live stream needs no current context. */
cuabi_result cuStreamGetCtx(cuabi_stream stream, cuabi_context *ctx)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamGetCtx, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !ctx)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    if (rc == CUABI_SUCCESS)
        *ctx = (cuabi_context)(void *)s->ctx;
    return fake_end(rc);
}

/* As cuStreamGetCtx: the fake has no green contexts, so `green` is always NULL. */
cuabi_result cuStreamGetCtx_v2(cuabi_stream stream, cuabi_context *ctx, cuabi_green_ctx *green)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamGetCtx_v2, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && (!ctx || !green))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    if (rc == CUABI_SUCCESS) {
        *ctx = (cuabi_context)(void *)s->ctx;
        *green = NULL;
    }
    return fake_end(rc);
}

/* The flags it was created with; a default stream's are 0. */
cuabi_result cuStreamGetFlags(cuabi_stream stream, unsigned int *flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamGetFlags, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !flags)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    if (rc == CUABI_SUCCESS)
        *flags = s->legacy || s->per_thread ? 0 : s->flags;
    return fake_end(rc);
}

/*
 * A unique ID of the stream in the process: numbered at the first ask, from
 * a counter no stream or context shares, so two streams never have one alike.
 */
cuabi_result cuStreamGetId(cuabi_stream stream, unsigned long long *id)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamGetId, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !id)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    if (rc == CUABI_SUCCESS) {
        if (!s->id)
            s->id = ++fake.last_id;
        *id = s->id;
    }
    return fake_end(rc);
}

/* ---- Priorities ---- */

/* Into cuCtxGetStreamPriorityRange's range. */
static int clamp_priority(int priority)
{
    return priority < FAKE_PRIORITY_GREATEST ? FAKE_PRIORITY_GREATEST
           : priority > FAKE_PRIORITY_LEAST  ? FAKE_PRIORITY_LEAST
                                             : priority;
}

cuabi_result cuStreamCreateWithPriority(cuabi_stream *stream, unsigned int flags, int priority)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamCreateWithPriority, true);
    struct fake_ctx *c = NULL;
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && (!stream || (flags & ~(unsigned)CUABI_STREAM_NON_BLOCKING)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_new(c, flags, &s);
    if (rc == CUABI_SUCCESS) {
        s->priority = clamp_priority(priority);
        *stream = (cuabi_stream)(void *)s;
    }
    return fake_end(rc);
}

cuabi_result cuStreamGetPriority(cuabi_stream stream, int *priority)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamGetPriority, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !priority)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS)
        *priority = s->priority;
    return fake_end(rc);
}

/* ---- Attributes ---- */

/*
 * Those a stream keeps: its access policy window, synchronization policy
 * (auto until set) and priority; any other is not a stream's.
 */
cuabi_result cuStreamGetAttribute(cuabi_stream stream, cuabi_launch_attribute_id attr,
                                  cuabi_launch_attribute_value *value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamGetAttribute, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !value)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    if (rc == CUABI_SUCCESS && attr != CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW &&
        attr != CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY && attr != CUABI_LAUNCH_ATTRIBUTE_PRIORITY)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        memset(value, 0, sizeof(*value));
        if (attr == CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW)
            value->access_policy_window = s->window;
        else if (attr == CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY)
            value->sync_policy = s->sync_policy ? s->sync_policy : CUABI_SYNC_POLICY_AUTO;
        else
            value->priority = s->priority;
    }
    return fake_end(rc);
}

/* A window's hit ratio is in [0, 1] and its properties are CUaccessProperty's; a priority is clamped to the range. */
cuabi_result cuStreamSetAttribute(cuabi_stream stream, cuabi_launch_attribute_id attr,
                                  const cuabi_launch_attribute_value *value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamSetAttribute, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !value)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    if (rc != CUABI_SUCCESS)
        return fake_end(rc);
    switch (attr) {
    case CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: {
        const cuabi_access_policy_window *w = &value->access_policy_window;

        if (!(w->hit_ratio >= 0.0f && w->hit_ratio <= 1.0f) || w->hit_prop > CUABI_ACCESS_PROPERTY_PERSISTING ||
            w->miss_prop > CUABI_ACCESS_PROPERTY_PERSISTING)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            s->window = *w;
        break;
    }
    case CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        if (value->sync_policy < CUABI_SYNC_POLICY_AUTO || value->sync_policy > CUABI_SYNC_POLICY_BLOCKING_SYNC)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            s->sync_policy = value->sync_policy;
        break;
    case CUABI_LAUNCH_ATTRIBUTE_PRIORITY:
        s->priority = clamp_priority(value->priority);
        break;
    default:
        rc = CUABI_ERROR_INVALID_VALUE;
        break;
    }
    return fake_end(rc);
}

/* Each attribute a stream keeps, from src to dst. */
cuabi_result cuStreamCopyAttributes(cuabi_stream dst, cuabi_stream src)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamCopyAttributes, true);
    struct fake_stream *d = NULL, *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(dst, &d);
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(src, &s);
    if (rc == CUABI_SUCCESS) {
        d->window = s->window;
        d->sync_policy = s->sync_policy;
        d->priority = s->priority;
    }
    return fake_end(rc);
}

/* ---- Control API ---- */

static void count_ops(struct fake_stream *q, void *arg)
{
    for (struct fake_op *op = q->head; op; op = op->next)
        ++*(size_t *)arg;
}

FAKE_API size_t gpu_fake_pending(void)
{
    size_t n = 0;

    fake_lock();
    each_queue(count_ops, &n);
    fake_unlock();
    return n;
}

static void oldest_head(struct fake_stream *q, void *arg)
{
    struct fake_stream **best = arg;

    if (q->head && !head_blocked(q) && (!*best || q->head->seq < (*best)->head->seq))
        *best = q;
}

static void any_running(struct fake_stream *q, void *arg)
{
    *(bool *)arg |= q->running_seq != 0;
}

FAKE_API size_t gpu_fake_run(size_t max)
{
    size_t n = 0;

    fake_lock();
    while (n < max) {
        struct fake_stream *s = NULL;
        struct fake_op *op;
        bool running = false;

        /* A host function still running holds up what depends on it: wait for it first. */
        each_queue(any_running, &running);
        if (running) {
            pthread_cond_wait(&fake.cond, &fake.lock);
            continue;
        }
        /* The oldest queued operation: all it depends on is older, so already done. */
        each_queue(oldest_head, &s);
        if (!s || held_at_gate(s->head) || fake_stalled())
            break;
        op = s->head;
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        run_op(s, op);
        fake_op_free(op);
        n++;
    }
    fake_unlock();
    return n;
}

FAKE_API void gpu_fake_progress(bool on)
{
    fake_lock();
    fake.lazy = !on;
    if (on)
        progress_wake();
    fake_unlock();
}

/* A query's progress for fake_event.c: the event's stream runs what it can up to the record. */
void fake_event_poll(struct fake_event *e)
{
    if (e->stream && !fake_stream_done(e->stream, e->seq))
        poll_progress(e->stream, e->seq);
}

FAKE_API void gpu_fake_gate(bool open)
{
    fake_lock();
    fake.gate_closed = !open;
    pthread_cond_broadcast(&fake.cond);
    fake_unlock();
}
