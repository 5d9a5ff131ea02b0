/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's events: recorded on a stream as an operation, done once
 * that stream has run up to it, and timed by the fake's clock; a stream's
 * wait for one; and the page an exported event shares with other processes
 * (its handles are fake_ipc.c's).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_event.h"
#include "fake_stream.h"

struct fake_event *fake_event_find(const void *handle)
{
    for (struct fake_event *e = fake.events; e; e = e->next_live)
        if ((const void *)e == handle)
            return e;
    return NULL;
}

struct fake_event *fake_event_new(struct fake_ctx *ctx, unsigned flags)
{
    struct fake_event *e = calloc(1, sizeof(*e));

    if (e) {
        e->ctx = ctx;
        e->flags = flags;
        e->next_live = fake.events;
        fake.events = e;
        fake.live[GPU_FAKE_LIVE_EVENTS]++;
    }
    return e;
}

void fake_event_free(struct fake_event *e)
{
    struct fake_event **p = &fake.events;

    while (*p != e)
        p = &(*p)->next_live;
    *p = e->next_live;
    fake_stream_forget_event(e);
    fake_ipc_event_drop(e);
    free(e);
    fake.live[GPU_FAKE_LIVE_EVENTS]--;
}

unsigned long fake_events_reset(struct fake_ctx *ctx)
{
    unsigned long n = 0;

    /* Each pass frees at most one event and then starts over: a freed one's link is never read. */
    for (;;) {
        struct fake_event *e = fake.events;

        while (e && e->ctx != ctx)
            e = e->next_live;
        if (!e)
            return n;
        fake_event_free(e);
        n++;
    }
}

cuabi_result cuEventCreate(cuabi_event *event, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuEventCreate, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_event *e = NULL;

        /* BLOCKING_SYNC, DISABLE_TIMING and INTERPROCESS are the flags there are. */
        if (!event || (flags & ~7u))
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!(e = fake_event_new(c, flags)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        if (rc == CUABI_SUCCESS)
            *event = (cuabi_event)(void *)e;
    }
    return fake_end(rc);
}

cuabi_result cuEventDestroy_v2(cuabi_event event)
{
    cuabi_result rc = fake_begin(FAKE_E_cuEventDestroy_v2, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_event *e = fake_event_find(event);

        if (!e) {
            rc = CUABI_ERROR_INVALID_HANDLE;
        } else if (e->ipc_opens) {
            /* One handle of an event opened in its own process (see fake_ipc.c): the event lives on. */
            e->ipc_opens--;
            fake.live[GPU_FAKE_LIVE_EVENTS]--;
        } else {
            fake_event_free(e);
        }
    }
    return fake_end(rc);
}

/* cuEventRecord, and cuEventRecordWithFlags with flags it accepts. */
static cuabi_result event_record(enum fake_entry entry, cuabi_event event, cuabi_stream stream, unsigned flags)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && (flags & ~(unsigned)CUABI_EVENT_RECORD_EXTERNAL))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_event *e = fake_event_find(event);
        struct fake_op *op = NULL;

        /* The real driver wants the event and the stream in one context, too. */
        if (!e || e->ctx != s->ctx)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (!(op = fake_op_new(FAKE_OP_RECORD, NULL)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        if (rc == CUABI_SUCCESS) {
            op->u.event = e;
            rc = fake_enqueue(s, op);
        }
        if (rc == CUABI_SUCCESS && e->shared)
            fake_ipc_event_recorded(e);
    }
    return fake_end(rc);
}

cuabi_result cuEventRecord(cuabi_event event, cuabi_stream stream)
{
    return event_record(FAKE_E_cuEventRecord, event, stream, 0);
}

/*
 * CU_EVENT_RECORD_EXTERNAL only changes what a capture records (an event
 * record node rather than an internal dependency); the fake's captures
 * record a record either way, so it is a plain record here.
 */
cuabi_result cuEventRecordWithFlags(cuabi_event event, cuabi_stream stream, unsigned int flags)
{
    return event_record(FAKE_E_cuEventRecordWithFlags, event, stream, flags);
}

static bool event_done(const struct fake_event *e)
{
    return (!e->stream || fake_stream_done(e->stream, e->seq)) && fake_ipc_event_done(e);
}

cuabi_result cuEventQuery(cuabi_event event)
{
    cuabi_result rc = fake_begin(FAKE_E_cuEventQuery, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_event *e = fake_event_find(event);

        if (!e)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (fake_ctx_error(e->ctx))
            rc = fake_ctx_error(e->ctx);
        if (rc == CUABI_SUCCESS && !event_done(e)) {
            fake_event_poll(e);
            /* Its host functions may have dropped the lock: the event may be gone, the context corrupted. */
            rc = !fake_event_find(event)       ? CUABI_ERROR_INVALID_HANDLE
                 : fake_ctx_error(e->ctx)      ? fake_ctx_error(e->ctx)
                 : !event_done(e)              ? CUABI_ERROR_NOT_READY
                                               : CUABI_SUCCESS;
        }
    }
    return fake_end(rc);
}

cuabi_result cuEventSynchronize(cuabi_event event)
{
    cuabi_result rc = fake_begin(FAKE_E_cuEventSynchronize, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_event *e = fake_event_find(event);

        if (!e)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (fake_ctx_error(e->ctx))
            rc = fake_ctx_error(e->ctx);
        else if (e->stream)
            fake_stream_drain(e->stream, e->seq);
        if (rc == CUABI_SUCCESS && e && fake_event_find(e) && e->shared)
            fake_ipc_event_wait(e);
        /* The work it waited for may have corrupted the context (the event lives on, with its context). */
        if (rc == CUABI_SUCCESS && e && fake_event_find(e))
            rc = e->ctx->sticky;
    }
    return fake_end(rc);
}

/* cuEventElapsedTime in both forms: CUDA 12.8's _v2 documents the same results. */
static cuabi_result elapsed_time(enum fake_entry entry, float *ms, cuabi_event start, cuabi_event end)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_event *a = fake_event_find(start), *b = fake_event_find(end);

        if (!ms)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!a || !b || (a->flags & CUABI_EVENT_DISABLE_TIMING) || (b->flags & CUABI_EVENT_DISABLE_TIMING) ||
                 !a->recorded || !b->recorded)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (!event_done(a) || !event_done(b) || !a->timed_once || !b->timed_once)
            rc = CUABI_ERROR_NOT_READY;
        else
            *ms = (float)((double)((int64_t)(b->time_ns - a->time_ns)) / 1e6);
    }
    return fake_end(rc);
}

cuabi_result cuEventElapsedTime(float *ms, cuabi_event start, cuabi_event end)
{
    return elapsed_time(FAKE_E_cuEventElapsedTime, ms, start, end);
}

cuabi_result cuEventElapsedTime_v2(float *ms, cuabi_event start, cuabi_event end)
{
    return elapsed_time(FAKE_E_cuEventElapsedTime_v2, ms, start, end);
}

cuabi_result cuStreamWaitEvent(cuabi_stream stream, cuabi_event event, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamWaitEvent, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        /* The event may be another context's, even another device's. */
        struct fake_event *e = fake_event_find(event);
        struct fake_op *op = NULL;

        if (flags & ~1u)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!e)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (!(op = fake_op_new(FAKE_OP_WAIT, NULL)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        /* Another process's event: its record runs there, waited for here and now. */
        if (rc == CUABI_SUCCESS && e->shared)
            fake_ipc_event_wait(e);
        if (rc == CUABI_SUCCESS) {
            op->u.event = e;
            rc = fake_enqueue(s, op);
        }
    }
    return fake_end(rc);
}

/* ---- What an exported event shares with other processes ---- */

void fake_ipc_event_recorded(struct fake_event *e)
{
    struct fake_ipc_event *s = e->shared;
    uint64_t n;

    if (s->remote)
        return; /* recorded here, on this process's stream: nothing another process waits for */
    n = __atomic_add_fetch(&s->page->recorded, 1, __ATOMIC_SEQ_CST);
    fake_stream_drain(e->stream, e->seq);
    /* The page outlives the event while the drain ran without the lock only if the event does. */
    if (fake_event_find(e) && e->shared == s)
        __atomic_store_n(&s->page->done, n, __ATOMIC_SEQ_CST);
}

bool fake_ipc_event_done(const struct fake_event *e)
{
    const struct fake_ipc_event *s = e->shared;

    return !s || !s->remote ||
           __atomic_load_n(&s->page->done, __ATOMIC_SEQ_CST) >= __atomic_load_n(&s->page->recorded, __ATOMIC_SEQ_CST);
}

void fake_ipc_event_wait(const struct fake_event *e)
{
    const struct fake_ipc_event *s = e->shared;
    const struct timespec tick = {0, 1000000};
    uint64_t want;

    if (!s || !s->remote)
        return;
    want = __atomic_load_n(&s->page->recorded, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&s->page->done, __ATOMIC_SEQ_CST) < want && !(kill(s->remote, 0) != 0 && errno == ESRCH)) {
        fake_unlock();
        nanosleep(&tick, NULL);
        fake_lock();
        /* Destroyed meanwhile (by another thread): its page is gone, and nothing is left to wait for. */
        if (!fake_event_find(e) || e->shared != s)
            return;
    }
}

void fake_ipc_event_drop(struct fake_event *e)
{
    if (!e->shared)
        return;
    munmap(e->shared->page, FAKE_IPC_EVENT_PAGE);
    close(e->shared->fd);
    free(e->shared);
    e->shared = NULL;
}
