/*
 * The call path's slow halves (call.h has the fast ones): making a context
 * current and putting the caller's back, the retry, the device check.
 */
#include "call.h"

_Thread_local cuabi_context gpu__thread_context GPU__TLS_FAST;

gpu_status gpu__context_enter(const struct gpu__driver *drv, const gpu_context *ctx, struct gpu__ctx_scope *scope)
{
    cuabi_context current = NULL;
    gpu_status st;

    scope->pushed = false;
    gpu__thread_context = NULL;
    st = gpu__check(drv->cuCtxGetCurrent(&current), GPU_ERR_CONTEXT, "cuCtxGetCurrent");
    if (st != GPU_OK)
        return st;
    if (current == ctx->cu) {
        gpu__thread_context = current;
        return GPU_OK;
    }
    if (!current) {
        st = gpu__check(drv->cuCtxSetCurrent(ctx->cu), GPU_ERR_CONTEXT, "cuCtxSetCurrent");
        if (st == GPU_OK)
            gpu__thread_context = ctx->cu;
        return st;
    }
    st = gpu__check(drv->cuCtxPushCurrent(ctx->cu), GPU_ERR_CONTEXT, "cuCtxPushCurrent");
    if (st == GPU_OK) {
        scope->pushed = true;
        scope->previous = current;
        gpu__thread_context = ctx->cu;
    }
    return st;
}

gpu_status gpu__context_leave(const struct gpu__driver *drv, struct gpu__ctx_scope *scope)
{
    cuabi_context popped;
    cuabi_result rc;
    bool restored;

    if (!scope->pushed)
        return GPU_OK;
    scope->pushed = false;
    rc = drv->cuCtxPopCurrent(&popped);
    if (rc == CUABI_SUCCESS) {
        gpu__thread_context = scope->previous;
        return GPU_OK;
    }
    /* The caller's context is the promise: put it back as the current one, even if the stack stays deeper. */
    restored = drv->cuCtxSetCurrent(scope->previous) == CUABI_SUCCESS;
    gpu__thread_context = restored ? scope->previous : NULL;
    return gpu__check_detail(rc, GPU_ERR_CONTEXT, "cuCtxPopCurrent",
                             restored ? "the caller's context was made current again with cuCtxSetCurrent"
                                      : "the caller's context could not be made current again");
}

bool gpu__call_mismatch(struct gpu__call *c, const gpu_context *owner, const gpu_context *ctx, const char *func,
                        const char *what, const char *kernel)
{
    if (kernel)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: \"%s\" is loaded on device %d, the stream is device %d's", func,
                          kernel, owner->ordinal, ctx->ordinal);
    else
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s is device %d's, the stream device %d's", func, what,
                          owner->ordinal, ctx->ordinal);
    return false;
}

bool gpu__call_reenter(struct gpu__call *c)
{
    if (c->rc != CUABI_ERROR_INVALID_CONTEXT && c->rc != CUABI_ERROR_INVALID_HANDLE &&
        c->rc != CUABI_ERROR_CONTEXT_IS_DESTROYED)
        return false;
    c->entered = true;
    c->st = gpu__context_enter(c->drv, c->ctx, &c->scope);
    return c->st == GPU_OK;
}

gpu_status gpu__call_leave(struct gpu__call *c, gpu_status st)
{
    gpu_status left;

    c->entered = false;
    /* A failed enter pushed nothing; leave() then has nothing to undo. */
    left = gpu__context_leave(c->drv, &c->scope);
    return st != GPU_OK ? st : left;
}
