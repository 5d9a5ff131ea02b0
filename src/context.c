/*
 * Contexts: reference-counted handles on a device's primary context.
 */
#include <stdlib.h>

#include "private.h"

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
    st = GPU__CALL(drv, cuCtxGetCurrent, GPU_ERR_CONTEXT, &current);
    if (st != GPU_OK || current == ctx->cu)
        return st;
    if (!current)
        return GPU__CALL(drv, cuCtxSetCurrent, GPU_ERR_CONTEXT, ctx->cu);
    st = GPU__CALL(drv, cuCtxPushCurrent, GPU_ERR_CONTEXT, ctx->cu);
    scope->pushed = st == GPU_OK;
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

    if (scope->pushed)
        scope->drv->cuCtxPopCurrent(&popped);
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
