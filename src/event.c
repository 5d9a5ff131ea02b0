/* SPDX-License-Identifier: MIT */
/*
 * Events: completion markers the host can poll without blocking.
 */
#include "object.h"

GPU__RELEASE(gpu__event_release, gpu_event, cuEventDestroy, cu)

static const struct gpu__kind event_kind = GPU__KIND(cuEventCreate, cuEventDestroy, gpu__event_release, NULL);

static gpu_status event_create(gpu_context *ctx, bool timed, gpu_event **out, const char *func)
{
    struct gpu__call c;
    gpu_event *e;

    if (!out)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: out is NULL", func);
    e = gpu__object_new_(&c, ctx, &event_kind, sizeof(*e), func);
    if (e)
        e->timed = timed;
    return GPU__OBJECT_MAKE(&c, e, out, cuEventCreate, GPU_ERR_EVENT, &e->cu,
                            timed ? CUABI_EVENT_DEFAULT : CUABI_EVENT_DISABLE_TIMING);
}

gpu_status gpu_event_create(gpu_context *ctx, gpu_event **out)
{
    return event_create(ctx, false, out, __func__);
}

gpu_status gpu_event_create_timed(gpu_context *ctx, gpu_event **out)
{
    return event_create(ctx, true, out, __func__);
}

void gpu_event_destroy(gpu_event *event)
{
    gpu__object_destroy(event ? &event->obj : NULL);
}

void *gpu_event_raw(const gpu_event *event)
{
    return event ? (void *)event->cu : NULL;
}

/* gpu_event_is_complete() the cold way: the driver loaded, or why it cannot be, then the query. */
static GPU__COLD gpu_status event_query_cold(gpu_event *event, bool *done)
{
    struct gpu__call c;
    gpu_status st;

    if (!gpu__call_driver(&c))
        return c.st;
    st = GPU__INVOKE_RAW(&c, cuEventQuery, event->cu);
    if (st == GPU_OK && c.rc != CUABI_ERROR_NOT_READY)
        st = GPU__RESULT(&c, cuEventQuery, GPU_ERR_EVENT);
    if (st == GPU_OK)
        *done = c.rc == CUABI_SUCCESS;
    return st;
}

GPU__HOT_ENTRY
gpu_status gpu_event_is_complete(gpu_event *event, bool *done)
{
    struct gpu__call c;

    GPU__NOT_NULL(event, done);
    /*
     * cuEventQuery is the one call here that needs no current context (CUDA's
     * documentation lists no CUDA_ERROR_INVALID_CONTEXT for it), and it is the
     * one polled in tight loops: skipping the context keeps it as cheap as
     * calling the driver directly.
     */
    if (!GPU__DRIVER_HOT(&c, cuEventQuery, event->cu))
        return event_query_cold(event, done);
    if (c.rc != CUABI_SUCCESS && c.rc != CUABI_ERROR_NOT_READY)
        return GPU__RESULT(&c, cuEventQuery, GPU_ERR_EVENT);
    *done = c.rc == CUABI_SUCCESS;
    return GPU_OK;
}

gpu_status gpu_event_synchronize(gpu_event *event)
{
    struct gpu__call c;

    GPU__NOT_NULL(event);
    if (!gpu__call_driver(&c) || !gpu__call_in(&c, event->obj.ctx))
        return c.st;
    return GPU__INVOKE_END(&c, cuEventSynchronize, GPU_ERR_EVENT, event->cu);
}

gpu_status gpu_event_elapsed_ms(gpu_event *start, gpu_event *end, float *ms)
{
    if (!start || !end || !ms)
        return GPU__INVALID("an argument is NULL");
    if (!start->timed || !end->timed)
        return GPU__INVALID("an event was not created with gpu_event_create_timed()");
    return GPU__OBJECT_GET(start->obj.ctx, cuEventElapsedTime, GPU_ERR_EVENT, ms, start->cu, end->cu);
}
