/* SPDX-License-Identifier: MIT */
/*
 * Contexts: reference-counted handles on a device's primary context.
 */
#include <stdlib.h>

#include "call.h"

gpu_status gpu_context_retain_primary(int device, gpu_context **out)
{
    const struct gpu__driver *drv;
    gpu_status st;

    GPU__NOT_NULL(out);
    if (device < 0)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "device %d is negative", device);
    st = gpu__driver_get(&drv);
    if (st != GPU_OK)
        return st;
    return gpu__context_new(drv, device, out);
}

void gpu_context_destroy(gpu_context *ctx)
{
    if (ctx)
        gpu__context_unref(ctx);
}

int gpu_context_get_device(const gpu_context *ctx)
{
    return ctx ? ctx->ordinal : -1;
}

void *gpu_context_get_raw(const gpu_context *ctx)
{
    return ctx ? (void *)ctx->cu : NULL;
}

gpu_status gpu_context_synchronize(gpu_context *ctx)
{
    struct gpu__call c;

    return GPU__OBJECT_CALL(&c, ctx, cuCtxSynchronize, GPU_ERR_STREAM_SYNC, );
}

gpu_status gpu_context_enable_peer_access(gpu_context *ctx, gpu_context *peer)
{
    struct gpu__call c;
    gpu_status st;

    GPU__NOT_NULL(peer);
    st = gpu__context_resolve(ctx, &c.drv, &ctx);
    if (st != GPU_OK)
        return st;
    if (ctx->device == peer->device)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "both contexts are device %d's", ctx->ordinal);
    if (!gpu__call_object(&c, ctx))
        return c.st;
    st = GPU__INVOKE_RAW(&c, cuCtxEnablePeerAccess, peer->cu, 0);
    if (st == GPU_OK && c.rc != CUABI_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        st = GPU__RESULT(&c, cuCtxEnablePeerAccess,
                         c.rc == CUABI_ERROR_PEER_ACCESS_UNSUPPORTED ? GPU_ERR_NOT_SUPPORTED : GPU_ERR_CONTEXT);
    return gpu__call_end(&c, st);
}

_Static_assert((int)GPU_LIMIT_STACK_SIZE == (int)CUABI_LIMIT_STACK_SIZE && (int)GPU_LIMIT_PRINTF_FIFO_SIZE == (int)CUABI_LIMIT_PRINTF_FIFO_SIZE &&
                   (int)GPU_LIMIT_MALLOC_HEAP_SIZE == (int)CUABI_LIMIT_MALLOC_HEAP_SIZE,
               "gpu_limit is CUlimit");

gpu_status gpu_context_get_limit(gpu_context *ctx, gpu_limit limit, size_t *out)
{
    struct gpu__call c;
    size_t v = 0;

    GPU__NOT_NULL(out);
    if ((unsigned)limit > GPU_LIMIT_MALLOC_HEAP_SIZE)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "limit %d is not a gpu_limit", (int)limit);
    return gpu__get_end(GPU__OBJECT_CALL(&c, ctx, cuCtxGetLimit, GPU_ERR_DRIVER, &v, (cuabi_limit)limit), out, &v,
                        sizeof(v));
}

gpu_status gpu_context_set_limit(gpu_context *ctx, gpu_limit limit, size_t value)
{
    struct gpu__call c;
    gpu_status st;

    if ((unsigned)limit > GPU_LIMIT_MALLOC_HEAP_SIZE)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "limit %d is not a gpu_limit", (int)limit);
    if (!gpu__call_object(&c, ctx))
        return c.st;
    st = GPU__INVOKE_RAW(&c, cuCtxSetLimit, (cuabi_limit)limit, value);
    if (st == GPU_OK)
        st = GPU__RESULT(&c, cuCtxSetLimit, c.rc == CUABI_ERROR_INVALID_VALUE ? GPU_ERR_INVALID_ARG : GPU_ERR_DRIVER);
    return gpu__call_end(&c, st);
}
