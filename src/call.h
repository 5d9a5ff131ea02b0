/*
 * The call path: how every driver call that needs a context is made.
 *
 * A wrapper opens a call on the object it works on, which makes the object's
 * context current where that is needed, makes one driver call through
 * GPU__INVOKE, and ends the call, which puts the thread's context back. Most
 * wrappers are a single expression:
 *
 *     struct gpu__call c;
 *
 *     return GPU__STREAM_CALL(&c, stream, cuStreamSynchronize, GPU_ERR_STREAM_SYNC, c.stream);
 *
 * A call without arguments passes an empty one: GPU__OBJECT_CALL(&c, ctx,
 * cuCtxSynchronize, GPU_ERR_STREAM_SYNC, ).
 *
 * What the helpers do, in one place:
 * - The driver: loaded on first use (GPU_ERR_NO_DRIVER, GPU_ERR_FORKED).
 * - Optional entry points: GPU_ERR_NOT_SUPPORTED, naming the one missing,
 *   before anything is asked of the driver (required ones are not checked:
 *   a driver without them never loads).
 * - The context. A call whose handles name their own context (a real
 *   stream, an event: "trusted") is made at once when the thread's cached
 *   context (gpu__thread_context) is already the object's; should the driver
 *   answer that the context was wrong, the context is made current and the
 *   call made once more (a call that failed so queued nothing). Any other
 *   call makes the context current first (gpu__context_enter).
 * - The result: GPU_OK, or the status the CUresult implies, with the
 *   thread's error naming the entry point ("cuStreamQuery: NAME (code): text").
 * - The end: a context pushed over the caller's is popped; a pop that fails
 *   is an error naming it, and the caller's context is put back with
 *   cuCtxSetCurrent.
 * The call's arguments are evaluated again when it is retried: they must
 * have no side effects.
 */
#ifndef GPUSHIM_CALL_H
#define GPUSHIM_CALL_H

#include "private.h"

/*
 * The context gpushim last saw current on this thread (NULL: not known).
 * Another library may change the thread's context behind gpushim's back, so
 * this is trusted only by calls whose handles name their own context, which
 * find out from the driver when it was wrong.
 */
extern _Thread_local cuabi_context gpu__thread_context GPU__TLS_FAST;

/* Making a context current for a while, and putting the caller's back. */
struct gpu__ctx_scope {
    bool pushed;
    cuabi_context previous; /* what leave() restores when pushed */
};

/*
 * Makes `ctx` current: a thread with no current context is left holding it
 * (the cheapest state for the next call); over another context it is pushed,
 * and leave() pops it.
 */
gpu_status gpu__context_enter(const struct gpu__driver *drv, const gpu_context *ctx, struct gpu__ctx_scope *scope);

/*
 * Undoes enter(): GPU_OK, or GPU_ERR_CONTEXT when the pop failed (the
 * caller's context is then made current again with cuCtxSetCurrent where
 * that works, and the message says whether it did).
 */
gpu_status gpu__context_leave(const struct gpu__driver *drv, struct gpu__ctx_scope *scope);

struct gpu__call {
    const struct gpu__driver *drv;
    const gpu_context *ctx; /* NULL: a call that needs no context (devices) */
    cuabi_stream stream;    /* the CUstream a stream argument means */
    cuabi_result rc;        /* the driver's answer */
    gpu_status st;          /* a context failure: it wins over rc */
    bool entered;           /* the context was made current, and end() leaves */
    struct gpu__ctx_scope scope;
};

/* The driver, for calls that need no context. False: c->st says why. */
static inline bool gpu__call_driver(struct gpu__call *c)
{
    c->ctx = NULL;
    c->entered = false;
    c->stream = NULL;
    c->st = gpu__driver_get(&c->drv);
    return c->st == GPU_OK;
}

/* Opens a call in `ctx` (not NULL) on a loaded driver; `trusted` as above. */
static inline bool gpu__call_in(struct gpu__call *c, const gpu_context *ctx, bool trusted)
{
    c->ctx = ctx;
    c->st = GPU_OK;
    c->entered = !(trusted && gpu__thread_context == ctx->cu);
    if (c->entered)
        c->st = gpu__context_enter(c->drv, ctx, &c->scope);
    return c->st == GPU_OK;
}

/*
 * Opens a call in an object's context (`ctx`; NULL: device 0's primary
 * context), always making it current: for allocations, creations and the
 * calls whose handles do not name their context.
 */
static inline bool gpu__call_object(struct gpu__call *c, gpu_context *ctx)
{
    c->stream = NULL;
    c->st = gpu__context_resolve(ctx, &c->drv, &ctx);
    return c->st == GPU_OK && gpu__call_in(c, ctx, false);
}

/*
 * Opens a call on a stream (GPU_DEFAULT_STREAM: the legacy stream of device
 * 0's primary context); c->stream is its CUstream. Trusted for a real
 * stream: only the legacy stream is the current context's rather than its own.
 */
static inline bool gpu__call_stream(struct gpu__call *c, gpu_stream *stream)
{
    gpu_context *ctx = NULL;

    if (!stream) {
        c->stream = NULL;
        c->st = gpu__context_resolve(NULL, &c->drv, &ctx);
        return c->st == GPU_OK && gpu__call_in(c, ctx, false);
    }
    c->stream = stream->cu;
    c->st = gpu__driver_get(&c->drv);
    return c->st == GPU_OK && gpu__call_in(c, stream->obj.ctx, true);
}

/* GPU_ERR_INVALID_ARG for work on `owner`'s device on a stream of `ctx`'s (see gpu__call_stream_for()). */
bool gpu__call_mismatch(struct gpu__call *c, const gpu_context *owner, const gpu_context *ctx, const char *func,
                        const char *what, const char *kernel);

/*
 * gpu__call_stream() for work on an object of `owner`'s device, which the
 * stream must share: GPU_ERR_INVALID_ARG where it does not, before the
 * driver is asked anything. `func` and `what` ("the buffer") name them;
 * `kernel`, where not NULL, names a function loaded on `owner`.
 */
static inline bool gpu__call_stream_for(struct gpu__call *c, gpu_stream *stream, const gpu_context *owner,
                                        const char *func, const char *what, const char *kernel)
{
    gpu_context *ctx = NULL;

    if (stream)
        ctx = stream->obj.ctx;
    else if ((c->st = gpu__context_resolve(NULL, &c->drv, &ctx)) != GPU_OK)
        return false;
    if (ctx->cu != owner->cu)
        return gpu__call_mismatch(c, owner, ctx, func, what, kernel);
    return gpu__call_stream(c, stream);
}

/* The slow half of gpu__call_retry(): whether to make the call again, its context now current. */
bool gpu__call_reenter(struct gpu__call *c);

/* Keeps the driver's answer; true when the call must be made again (see above). */
static inline bool gpu__call_retry(struct gpu__call *c, cuabi_result rc)
{
    c->rc = rc;
    if (rc == CUABI_SUCCESS || c->entered || !c->ctx)
        return false;
    return gpu__call_reenter(c);
}

/* gpu__call_end()'s slow half: leaves the context. */
gpu_status gpu__call_leave(struct gpu__call *c, gpu_status st);

/*
 * Ends the call: `st` (what the wrapper made of it), or GPU_ERR_CONTEXT when
 * the caller's context could not be put back after a call that succeeded.
 */
static inline gpu_status gpu__call_end(struct gpu__call *c, gpu_status st)
{
    return c->entered ? gpu__call_leave(c, st) : st;
}

/* An optional entry point the driver lacks: GPU_ERR_NOT_SUPPORTED, naming it. */
static inline gpu_status gpu__call_unsupported(struct gpu__call *c, const char *entry)
{
    c->rc = CUABI_SUCCESS;
    c->st = gpu__unsupported(entry);
    return c->st;
}

/*
 * Driver call `fn` with the arguments that follow, in the open call `c`,
 * retried once where the context was wrong: GPU_OK when the driver answered
 * (its CUresult is in c->rc, for the wrapper to read), else the context's
 * failure or GPU_ERR_NOT_SUPPORTED. The call stays open.
 */
#define GPU__INVOKE_RAW(c, fn, ...) \
    ((c)->st = GPU_OK, \
     GPU__OPTIONAL_##fn && !(c)->drv->fn ? gpu__call_unsupported((c), #fn) \
                   : (gpu__call_retry((c), (c)->drv->fn(__VA_ARGS__)) ? (void)((c)->rc = (c)->drv->fn(__VA_ARGS__)) \
                                                                     : (void)0, \
                      (c)->st))

/* The status of the driver's answer to `fn`, c->rc, with `category` where the CUresult implies no other. */
#define GPU__RESULT(c, fn, category) gpu__check((c)->rc, (category), #fn)

/* GPU__INVOKE_RAW, then GPU__RESULT: the one status of one driver call. */
#define GPU__INVOKE(c, fn, category, ...) \
    (GPU__INVOKE_RAW(c, fn, __VA_ARGS__) != GPU_OK ? (c)->st : GPU__RESULT(c, fn, category))

/* GPU__INVOKE, then the end of the call. */
#define GPU__INVOKE_END(c, fn, category, ...) gpu__call_end((c), GPU__INVOKE(c, fn, category, __VA_ARGS__))

/* One driver call on a stream (c->stream is its CUstream): open, invoke, end. */
#define GPU__STREAM_CALL(c, stream, fn, category, ...) \
    (gpu__call_stream((c), (stream)) ? GPU__INVOKE_END(c, fn, category, __VA_ARGS__) : (c)->st)

/* GPU__STREAM_CALL for work on an object of `owner`'s device (`what`: "the event"), which the stream must share. */
#define GPU__STREAM_CALL_FOR(c, stream, owner, what, fn, category, ...) \
    (gpu__call_stream_for((c), (stream), (owner), __func__, (what), NULL) \
         ? GPU__INVOKE_END(c, fn, category, __VA_ARGS__) \
         : (c)->st)

/* One driver call in an object's context, made current first: open, invoke, end. */
#define GPU__OBJECT_CALL(c, ctx, fn, category, ...) \
    (gpu__call_object((c), (ctx)) ? GPU__INVOKE_END(c, fn, category, __VA_ARGS__) : (c)->st)

/* One driver call that needs no context. */
#define GPU__DRIVER_CALL(c, fn, category, ...) \
    (gpu__call_driver(c) ? GPU__INVOKE(c, fn, category, __VA_ARGS__) : (c)->st)

#endif
