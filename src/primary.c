/* SPDX-License-Identifier: MIT */
/*
 * A device's primary context as a reference-counted handle, and device 0's,
 * which a NULL context argument means. Below the call layer (call.h resolves
 * contexts through here), so it calls the driver's table directly.
 */
#include <stdlib.h>

#include "private.h"

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
/* Device 0's, for NULL context arguments; made once, never released. */
static _Atomic(gpu_context *) default_ctx;

gpu_status gpu__context_new(const struct gpu__driver *drv, int ordinal, gpu_context **out)
{
    cuabi_device dev;
    cuabi_context cu;
    gpu_context *ctx;
    gpu_status st;

    st = gpu__check(drv->cuDeviceGet(&dev, ordinal), GPU_ERR_NO_DEVICE, "cuDeviceGet");
    if (st == GPU_OK)
        st = gpu__check(drv->cuDevicePrimaryCtxRetain(&cu, dev), GPU_ERR_CONTEXT, "cuDevicePrimaryCtxRetain");
    if (st != GPU_OK)
        return st;
    ctx = calloc(1, sizeof(*ctx));
    if (!ctx) {
        drv->cuDevicePrimaryCtxRelease(dev);
        return GPU__FAIL(GPU_ERR_OUT_OF_MEMORY, "%s", "out of host memory");
    }
    atomic_init(&ctx->refs, 1);
    ctx->ordinal = ordinal;
    ctx->device = dev;
    ctx->cu = cu;
    *out = ctx;
    return GPU_OK;
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
        gpu__check(drv->cuDevicePrimaryCtxRelease(ctx->device), GPU_ERR_CONTEXT, "cuDevicePrimaryCtxRelease");
    free(ctx);
}

gpu_status gpu__context_resolve(gpu_context *ctx, const struct gpu__driver **drv, gpu_context **resolved)
{
    gpu_status st = gpu__driver_get(drv);

    if (st != GPU_OK)
        return st;
    if (!ctx)
        ctx = atomic_load_explicit(&default_ctx, memory_order_acquire);
    if (ctx) {
        *resolved = ctx;
        return GPU_OK;
    }
    pthread_mutex_lock(&default_lock);
    ctx = atomic_load_explicit(&default_ctx, memory_order_relaxed);
    if (!ctx && (st = gpu__context_new(*drv, 0, &ctx)) == GPU_OK)
        atomic_store_explicit(&default_ctx, ctx, memory_order_release);
    pthread_mutex_unlock(&default_lock);
    if (st == GPU_OK)
        *resolved = ctx;
    return st;
}
