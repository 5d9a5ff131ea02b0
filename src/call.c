/* SPDX-License-Identifier: MIT */
/*
 * The call path's slow halves (call.h has the fast ones): making a context
 * current and putting the caller's back, the device check's message.
 */
#include "call.h"

struct gpu__ctx_scope gpu__context_enter(const struct gpu__driver *drv, const gpu_context *ctx)
{
    struct gpu__ctx_scope scope = {NULL, GPU_OK, false};
    cuabi_context current = NULL;

    scope.st = gpu__check(drv->cuCtxGetCurrent(&current), GPU_ERR_CONTEXT, "cuCtxGetCurrent");
    if (scope.st != GPU_OK)
        return scope;
    if (current == ctx->cu)
        return scope;
    if (!current) {
        scope.st = gpu__check(drv->cuCtxSetCurrent(ctx->cu), GPU_ERR_CONTEXT, "cuCtxSetCurrent");
        return scope;
    }
    scope.st = gpu__check(drv->cuCtxPushCurrent(ctx->cu), GPU_ERR_CONTEXT, "cuCtxPushCurrent");
    if (scope.st == GPU_OK) {
        scope.pushed = true;
        scope.previous = current;
    }
    return scope;
}

gpu_status gpu__context_leave(const struct gpu__driver *drv, struct gpu__ctx_scope scope)
{
    cuabi_context popped;
    cuabi_result rc;
    bool restored;

    if (!scope.pushed)
        return GPU_OK;
    rc = drv->cuCtxPopCurrent(&popped);
    if (rc == CUABI_SUCCESS)
        return GPU_OK;
    /* The caller's context is the promise: put it back as the current one, even if the stack stays deeper. */
    restored = drv->cuCtxSetCurrent(scope.previous) == CUABI_SUCCESS;
    return gpu__check_detail(rc, GPU_ERR_CONTEXT, "cuCtxPopCurrent",
                             restored ? "the caller's context was made current again with cuCtxSetCurrent"
                                      : "the caller's context could not be made current again");
}

gpu_status gpu__call_mismatch(const gpu_context *owner, const gpu_context *ctx, const char *func, const char *what,
                              const char *kernel)
{
    if (kernel)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: \"%s\" is loaded on device %d, the stream is device %d's", func,
                         kernel, owner->ordinal, ctx->ordinal);
    return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s is device %d's, the stream device %d's", func, what,
                     owner->ordinal, ctx->ordinal);
}

gpu_status gpu__call_leave(const struct gpu__driver *drv, struct gpu__ctx_scope scope, gpu_status st)
{
    gpu_status left = gpu__context_leave(drv, scope);

    return st != GPU_OK ? st : left;
}

cuabi_result gpu__call_hot_failed(cuabi_result rc)
{
    /* What a driver that wants the stream's context current answers without it. */
    bool wrong_context = rc == CUABI_ERROR_INVALID_CONTEXT || rc == CUABI_ERROR_INVALID_HANDLE ||
                         rc == CUABI_ERROR_CONTEXT_IS_DESTROYED;

    return wrong_context ? GPU__HOT_RETRY : rc;
}
