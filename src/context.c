/*
 * Contexts: reference-counted handles on a device's primary context.
 */
#include <stdlib.h>

#include "private.h"

_Thread_local cuabi_context gpu__thread_context GPU__TLS_FAST;

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static gpu_context *default_ctx; /* device 0's, for NULL context arguments; never released */

static gpu_status context_new(const struct gpu__driver *drv, int ordinal, gpu_context **out)
{
    cuabi_device dev;
    cuabi_context cu;
    gpu_context *ctx;
    gpu_status st;

    st = GPU__CALL(drv, cuDeviceGet, GPU_ERR_NO_DEVICE, &dev, ordinal);
    if (st != GPU_OK)
        return st;
    st = GPU__CALL(drv, cuDevicePrimaryCtxRetain, GPU_ERR_CONTEXT, &cu, dev);
    if (st != GPU_OK)
        return st;
    ctx = calloc(1, sizeof(*ctx));
    if (!ctx) {
        drv->cuDevicePrimaryCtxRelease(dev);
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_context_create: out of host memory");
    }
    atomic_init(&ctx->refs, 1);
    ctx->ordinal = ordinal;
    ctx->device = dev;
    ctx->cu = cu;
    *out = ctx;
    return GPU_OK;
}

gpu_status gpu_context_create(int device, gpu_context **out)
{
    const struct gpu__driver *drv;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_context_create", "out is NULL");
    if (device < 0)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_context_create: device %d is negative", device);
    st = gpu__driver_get(&drv);
    if (st != GPU_OK)
        return st;
    return context_new(drv, device, out);
}

void gpu__context_ref(gpu_context *ctx)
{
    atomic_fetch_add_explicit(&ctx->refs, 1, memory_order_relaxed);
}

void gpu__context_unref(gpu_context *ctx)
{
    const struct gpu__driver *drv;

    if (atomic_fetch_sub_explicit(&ctx->refs, 1, memory_order_acq_rel) != 1)
        return;
    /* The table is there: a context exists only where a driver loaded. */
    if (gpu__driver_get(&drv) == GPU_OK)
        drv->cuDevicePrimaryCtxRelease(ctx->device);
    free(ctx);
}

void gpu_context_destroy(gpu_context *ctx)
{
    if (ctx)
        gpu__context_unref(ctx);
}

int gpu_context_device(const gpu_context *ctx)
{
    return ctx ? ctx->ordinal : -1;
}

void *gpu_context_raw(const gpu_context *ctx)
{
    return ctx ? (void *)ctx->cu : NULL;
}

gpu_status gpu__context_resolve(gpu_context *ctx, const struct gpu__driver **drv, gpu_context **resolved)
{
    gpu_status st = gpu__driver_get(drv);

    if (st != GPU_OK)
        return st;
    if (ctx) {
        *resolved = ctx;
        return GPU_OK;
    }
    pthread_mutex_lock(&default_lock);
    if (!default_ctx)
        st = context_new(*drv, 0, &default_ctx);
    pthread_mutex_unlock(&default_lock);
    if (st == GPU_OK)
        *resolved = default_ctx;
    return st;
}

gpu_status gpu__context_enter(const struct gpu__driver *drv, const gpu_context *ctx, struct gpu__ctx_scope *scope)
{
    cuabi_context current = NULL;
    gpu_status st;

    scope->drv = drv;
    scope->pushed = false;
    gpu__thread_context = NULL;
    st = GPU__CALL(drv, cuCtxGetCurrent, GPU_ERR_CONTEXT, &current);
    if (st != GPU_OK)
        return st;
    if (current == ctx->cu) {
        gpu__thread_context = current;
        return GPU_OK;
    }
    if (!current) {
        st = GPU__CALL(drv, cuCtxSetCurrent, GPU_ERR_CONTEXT, ctx->cu);
        if (st == GPU_OK)
            gpu__thread_context = ctx->cu;
        return st;
    }
    st = GPU__CALL(drv, cuCtxPushCurrent, GPU_ERR_CONTEXT, ctx->cu);
    if (st == GPU_OK) {
        scope->pushed = true;
        scope->previous = current;
        gpu__thread_context = ctx->cu;
    }
    return st;
}

gpu_status gpu__object_enter(const gpu_context *ctx, const struct gpu__driver **drv, struct gpu__ctx_scope *scope)
{
    gpu_status st = gpu__driver_get(drv);

    if (st != GPU_OK)
        return st;
    return gpu__context_enter(*drv, ctx, scope);
}

bool gpu__release_enter(const gpu_context *ctx, const struct gpu__driver **drv, struct gpu__ctx_scope *scope)
{
    if (gpu__driver_get(drv) != GPU_OK)
        return false;
    /* On failure nothing was pushed, so leave() has nothing to undo. */
    gpu__context_enter(*drv, ctx, scope);
    return true;
}

void gpu__context_leave(struct gpu__ctx_scope *scope)
{
    cuabi_context popped;

    if (!scope->pushed)
        return;
    gpu__thread_context = scope->drv->cuCtxPopCurrent(&popped) == CUABI_SUCCESS ? scope->previous : NULL;
}

gpu_status gpu__call_begin(const struct gpu__driver *drv, gpu_context *ctx, bool trusted, struct gpu__call *c)
{
    gpu_status st = GPU_OK;

    c->drv = drv;
    c->ctx = ctx;
    c->entered = !(trusted && gpu__thread_context == ctx->cu);
    if (c->entered)
        st = gpu__context_enter(drv, ctx, &c->scope);
    return st;
}

gpu_status gpu__call_stream(gpu_stream *stream, bool trusted, struct gpu__call *c)
{
    const struct gpu__driver *drv;
    gpu_context *ctx;
    gpu_status st = gpu__stream_target(stream, &drv, &ctx, &c->stream);

    if (st != GPU_OK)
        return st;
    /* The legacy stream is the current context's: only a real stream names its own. */
    return gpu__call_begin(drv, ctx, trusted && stream != NULL, c);
}

gpu_status gpu__call_stream_for(gpu_stream *stream, const gpu_context *owner, const char *func, const char *what,
                                struct gpu__call *c)
{
    const struct gpu__driver *drv;
    gpu_context *ctx;
    gpu_status st = gpu__stream_target(stream, &drv, &ctx, &c->stream);

    if (st != GPU_OK)
        return st;
    if (ctx->cu != owner->cu)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s is device %d's, the stream device %d's", func, what,
                         owner->ordinal, ctx->ordinal);
    return gpu__call_begin(drv, ctx, stream != NULL, c);
}

bool gpu__call_retry(struct gpu__call *c, cuabi_result rc, gpu_status *st)
{
    *st = GPU_OK;
    if (c->entered ||
        (rc != CUABI_ERROR_INVALID_CONTEXT && rc != CUABI_ERROR_INVALID_HANDLE && rc != CUABI_ERROR_CONTEXT_IS_DESTROYED))
        return false;
    c->entered = true;
    *st = gpu__context_enter(c->drv, c->ctx, &c->scope);
    return *st == GPU_OK;
}

void gpu__call_end(struct gpu__call *c)
{
    if (c->entered)
        gpu__context_leave(&c->scope);
}

gpu_status gpu_context_synchronize(gpu_context *ctx)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    gpu_status st;

    st = gpu__context_resolve(ctx, &drv, &ctx);
    if (st != GPU_OK)
        return st;
    st = gpu__context_enter(drv, ctx, &scope);
    if (st != GPU_OK)
        return st;
    st = gpu__check(drv->cuCtxSynchronize(), GPU_ERR_STREAM_SYNC, "cuCtxSynchronize");
    gpu__context_leave(&scope);
    return st;
}

gpu_status gpu_context_enable_peer_access(gpu_context *ctx, gpu_context *peer)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    cuabi_result rc;
    gpu_status st;

    if (!peer)
        return GPU__INVALID("gpu_context_enable_peer_access", "peer is NULL");
    st = gpu__context_resolve(ctx, &drv, &ctx);
    if (st != GPU_OK)
        return st;
    if (ctx->device == peer->device)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0,
                         "gpu_context_enable_peer_access: both contexts are device %d's", ctx->ordinal);
    GPU__NEED(drv, cuCtxEnablePeerAccess);
    st = gpu__context_enter(drv, ctx, &scope);
    if (st != GPU_OK)
        return st;
    rc = drv->cuCtxEnablePeerAccess(peer->cu, 0);
    gpu__context_leave(&scope);
    if (rc == CUABI_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        return GPU_OK;
    if (rc == CUABI_ERROR_PEER_ACCESS_UNSUPPORTED)
        return gpu__check(rc, GPU_ERR_NOT_SUPPORTED, "cuCtxEnablePeerAccess");
    return gpu__check(rc, GPU_ERR_CONTEXT, "cuCtxEnablePeerAccess");
}
