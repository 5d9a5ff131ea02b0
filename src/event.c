/*
 * Events: completion markers the host can poll without blocking.
 */
#include <stdlib.h>

#include "private.h"

static gpu_status event_create(gpu_context *ctx, bool timed, gpu_event **out)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    cuabi_event cu = NULL;
    gpu_event *e;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_event_create", "out is NULL");
    st = gpu__context_resolve(ctx, &drv, &ctx);
    if (st != GPU_OK)
        return st;
    e = calloc(1, sizeof(*e));
    if (!e)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_event_create: out of host memory");
    st = gpu__context_enter(drv, ctx, &scope);
    if (st == GPU_OK) {
        st = GPU__CALL(drv, cuEventCreate, GPU_ERR_EVENT, &cu, timed ? CUABI_EVENT_DEFAULT : CUABI_EVENT_DISABLE_TIMING);
        gpu__context_leave(&scope);
    }
    if (st != GPU_OK) {
        free(e);
        return st;
    }
    gpu__context_ref(ctx);
    e->ctx = ctx;
    e->cu = cu;
    e->timed = timed;
    *out = e;
    return GPU_OK;
}

gpu_status gpu_event_create(gpu_context *ctx, gpu_event **out)
{
    return event_create(ctx, false, out);
}

gpu_status gpu_event_create_timed(gpu_context *ctx, gpu_event **out)
{
    return event_create(ctx, true, out);
}

void gpu_event_destroy(gpu_event *event)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;

    if (!event)
        return;
    if (gpu__release_enter(event->ctx, &drv, &scope)) {
        drv->cuEventDestroy(event->cu);
        gpu__context_leave(&scope);
    }
    gpu__context_unref(event->ctx);
    free(event);
}

void *gpu_event_raw(const gpu_event *event)
{
    return event ? (void *)event->cu : NULL;
}

gpu_status gpu_event_is_complete(gpu_event *event, bool *done)
{
    const struct gpu__driver *drv;
    cuabi_result rc;
    gpu_status st;

    if (!event || !done)
        return GPU__INVALID("gpu_event_is_complete", event ? "done is NULL" : "event is NULL");
    st = gpu__driver_get(&drv);
    if (st != GPU_OK)
        return st;
    /*
     * cuEventQuery is the one call here that needs no current context (CUDA's
     * documentation lists no CUDA_ERROR_INVALID_CONTEXT for it), and it is the
     * one polled in tight loops: skipping cuCtxGetCurrent keeps it as cheap as
     * calling the driver directly.
     */
    rc = drv->cuEventQuery(event->cu);
    if (rc == CUABI_ERROR_NOT_READY) {
        *done = false;
        return GPU_OK;
    }
    st = gpu__check(rc, GPU_ERR_EVENT, "cuEventQuery");
    if (st == GPU_OK)
        *done = true;
    return st;
}

gpu_status gpu_event_synchronize(gpu_event *event)
{
    const struct gpu__driver *drv;
    struct gpu__call c;
    cuabi_result rc;
    gpu_status st;

    if (!event)
        return GPU__INVALID("gpu_event_synchronize", "event is NULL");
    st = gpu__driver_get(&drv);
    if (st == GPU_OK)
        st = gpu__call_begin(drv, event->ctx, true, &c);
    if (st != GPU_OK)
        return st;
    do
        rc = drv->cuEventSynchronize(event->cu);
    while (gpu__call_retry(&c, rc, &st));
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_EVENT, "cuEventSynchronize");
}

gpu_status gpu_event_elapsed_ms(gpu_event *start, gpu_event *end, float *ms)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    float value = 0.0f;
    gpu_status st;

    if (!start || !end || !ms)
        return GPU__INVALID("gpu_event_elapsed_ms", "an argument is NULL");
    if (!start->timed || !end->timed)
        return GPU__INVALID("gpu_event_elapsed_ms", "an event was not created with gpu_event_create_timed()");
    st = gpu__object_enter(start->ctx, &drv, &scope);
    if (st != GPU_OK)
        return st;
    st = GPU__CALL(drv, cuEventElapsedTime, GPU_ERR_EVENT, &value, start->cu, end->cu);
    gpu__context_leave(&scope);
    if (st == GPU_OK)
        *ms = value;
    return st;
}
