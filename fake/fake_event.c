/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's events: recorded on a stream as an operation, done once
 * that stream has run up to it, and timed by the fake's clock.
 */
#include <stdlib.h>

#include "fake_internal.h"

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
        else if (!(op = fake_op_new(FAKE_OP_RECORD)))
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
