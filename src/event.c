/* SPDX-License-Identifier: MIT */
/*
 * Events: completion markers the host can poll without blocking, and
 * events shared between processes.
 */
#include <string.h>

#include "object.h"

static GPU__RELEASE(event_release, gpu_event, cuEventDestroy, cu)

static const struct gpu__kind event_kind = GPU__KIND(cuEventCreate, cuEventDestroy, event_release, NULL);

static gpu_status event_create(gpu_context *ctx, bool timed, gpu_event **out, const char *func)
{
    struct gpu__call c;
    gpu_event *e;

    if (!out)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: out is NULL", func);
    e = gpu__object_new(&c, ctx, &event_kind, sizeof(*e), func);
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

void *gpu_event_get_raw(const gpu_event *event)
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

gpu_status gpu_event_get_elapsed_ms(gpu_event *start, gpu_event *end, float *ms)
{
    struct gpu__call c;
    float v = 0;

    if (!start || !end || !ms)
        return GPU__INVALID("an argument is NULL");
    if (!start->timed || !end->timed)
        return GPU__INVALID("an event was not created with gpu_event_create_timed()");
    return gpu__get_end(GPU__OBJECT_CALL(&c, start->obj.ctx, cuEventElapsedTime, GPU_ERR_EVENT, &v, start->cu, end->cu),
                        ms, &v, sizeof(v));
}

/* ---- Events shared between processes ---- */

static const struct gpu__kind interprocess_kind = GPU__KIND(cuEventCreate, cuEventDestroy, event_release, NULL);
/* An opened event is destroyed like any other. */
static const struct gpu__kind opened_kind = GPU__KIND(cuIpcOpenEventHandle, cuEventDestroy, event_release, NULL);

_Static_assert(sizeof(((gpu_ipc_event_handle *)0)->cuda) == sizeof(cuabi_ipc_event_handle), "the handle's size");

gpu_status gpu_event_create_interprocess(gpu_context *ctx, gpu_event **out)
{
    struct gpu__call c;
    gpu_event *e;

    GPU__NOT_NULL(out);
    e = gpu__object_new(&c, ctx, &interprocess_kind, sizeof(*e), __func__);
    return GPU__OBJECT_MAKE(&c, e, out, cuEventCreate, GPU_ERR_EVENT, &e->cu,
                            CUABI_EVENT_INTERPROCESS | CUABI_EVENT_DISABLE_TIMING);
}

gpu_status gpu_event_get_ipc_handle(const gpu_event *event, gpu_ipc_event_handle *out)
{
    struct gpu__call c;
    cuabi_ipc_event_handle h = {0};

    GPU__NOT_NULL(event, out);
    if (event->obj.kind != &interprocess_kind)
        return GPU__INVALID("the event is not from gpu_event_create_interprocess()");
    return gpu__get_end(GPU__OBJECT_CALL(&c, event->obj.ctx, cuIpcGetEventHandle, GPU_ERR_EVENT, &h, event->cu),
                        out->cuda, &h, sizeof(h));
}

gpu_status gpu_event_open_ipc(gpu_context *ctx, const gpu_ipc_event_handle *handle, gpu_event **out)
{
    cuabi_ipc_event_handle h;
    struct gpu__call c;
    gpu_event *e;

    GPU__NOT_NULL(handle, out);
    memcpy(&h, handle->cuda, sizeof(h));
    e = gpu__object_new(&c, ctx, &opened_kind, sizeof(*e), __func__);
    return GPU__OBJECT_MAKE(&c, e, out, cuIpcOpenEventHandle, GPU_ERR_EVENT, &e->cu, h);
}
