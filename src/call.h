/* SPDX-License-Identifier: MIT */
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
 * - The context. Every call but the hot ones makes the object's context
 *   current first where it is not (gpu__context_enter), and puts the
 *   caller's back at the end.
 * - The result: GPU_OK, or the status the CUresult implies, with the
 *   thread's error naming the entry point ("cuStreamQuery: NAME (code): text").
 * - The end: a context pushed over the caller's is popped; a pop that fails
 *   is an error naming it, and the caller's context is put back with
 *   cuCtxSetCurrent.
 * - The hot path (GPU__STREAM_HOT): launch, event record and wait, stream
 *   query and the async copies, on a real stream, are made as they are,
 *   whatever context the thread holds: the driver runs them in their
 *   stream's context (tools/context-probe shows it for each on driver 580,
 *   with no context, the stream's or another current). Only a failure that
 *   the context explains (a driver that wants the stream's context
 *   current) goes on the cold way, which makes it current and calls again;
 *   a call that failed so queued nothing. No helper takes a call's address,
 *   so its fields live in registers.
 * The call's arguments are evaluated again when it is retried: they must
 * have no side effects.
 *
 * Plain C11: what computes a value from values is a static inline function.
 * A macro remains only where a function cannot do the work, for one of three
 * reasons: it names a driver entry point `fn` (the table's member drv->fn,
 * its name #fn, its GPU__OPTIONAL_##fn flag), it evaluates an argument only
 * on one branch, or it speaks for its caller (__func__, a return):
 *
 * | macro (header)                           | why a macro                                            |
 * |------------------------------------------|--------------------------------------------------------|
 * | GPU__INVOKE_RAW (call.h)                 | drv->fn, #fn, GPU__OPTIONAL_##fn                       |
 * | GPU__RESULT (call.h)                     | #fn                                                    |
 * | GPU__INVOKE, GPU__INVOKE_END (call.h)    | pass fn to GPU__INVOKE_RAW and GPU__RESULT             |
 * | GPU__STREAM_HOT, GPU__DRIVER_HOT (call.h)| gpu__driver_table.fn, GPU__OPTIONAL_##fn               |
 * | GPU__HOT_RESULT (call.h)                 | #fn                                                    |
 * | GPU__HOT_OR (call.h)                     | fn; `cold` evaluated only when the hot way declines    |
 * | GPU__STREAM_CALL, GPU__OBJECT_CALL,      | fn; the invoke evaluated only when the call opened     |
 * |   GPU__DRIVER_CALL (call.h)              |                                                        |
 * | GPU__STREAM_CALL_FOR (call.h)            | fn; __func__ of the caller                             |
 * | GPU__KIND (object.h)                     | #create, #destroy, offsetof(struct gpu__driver, fn)    |
 * | GPU__RELEASE (object.h)                  | defines a function calling drv->destroy on a member    |
 * | GPU__OBJECT_MAKE (object.h)              | fn; the invoke evaluated only when the object was made |
 * | GPU__INVALID, GPU__FAIL (error.h)        | __func__; FAIL joins "%s: " to the format literal      |
 * | GPU__NOT_NULL and its _PICK, _1, _2, _3  | returns from the caller; #a names the argument         |
 * |   (error.h)                              |                                                        |
 * | GPU__PRINTF (error.h), GPU__EXPECT       | compiler hints, empty or plain without GCC or Clang    |
 * |   (hints.h)                              |                                                        |
 */
#ifndef GPUSHIM_CALL_H
#define GPUSHIM_CALL_H

#include <string.h>

#include "capture.h"
#include "hints.h"
#include "private.h"

/*
 * Making a context current for a while, and putting the caller's back.
 * Passed and returned by value (two registers), like the call below: no
 * helper takes a call's address, so on the hot path its fields stay in
 * registers and nothing of it is stored.
 */
struct gpu__ctx_scope {
    cuabi_context previous; /* what leave() restores when pushed */
    gpu_status st;          /* enter()'s answer */
    bool pushed;
};

/*
 * Makes `ctx` current: a thread with no current context is left holding it
 * (the cheapest state for the next call); over another context it is pushed,
 * and leave() pops it. The scope's st says whether it worked.
 */
struct gpu__ctx_scope gpu__context_enter(const struct gpu__driver *drv, const gpu_context *ctx);

/*
 * Undoes enter(): GPU_OK, or GPU_ERR_CONTEXT when the pop failed (the
 * caller's context is then made current again with cuCtxSetCurrent where
 * that works, and the message says whether it did).
 */
gpu_status gpu__context_leave(const struct gpu__driver *drv, struct gpu__ctx_scope scope);

struct gpu__call {
    const struct gpu__driver *drv;
    cuabi_stream stream;    /* the CUstream a stream argument means */
    cuabi_result rc;        /* the driver's answer */
    gpu_status st;          /* a context failure: it wins over rc */
    bool entered;           /* the context was made current, and end() leaves */
    struct gpu__ctx_scope scope;
};

/*
 * The driver, and `ctx` resolved (NULL: device 0's primary context), into
 * the call: through locals, so that the call's address is never taken.
 */
static inline gpu_status gpu__call_resolve(struct gpu__call *c, gpu_context *ctx, gpu_context **resolved)
{
    const struct gpu__driver *drv = NULL;
    gpu_status st = gpu__context_resolve(ctx, &drv, resolved);

    c->drv = drv;
    return st;
}

/* gpu__driver_get() into the call, likewise. */
static inline gpu_status gpu__call_driver_get(struct gpu__call *c)
{
    const struct gpu__driver *drv = NULL;
    gpu_status st = gpu__driver_get(&drv);

    c->drv = drv;
    return st;
}

/* The driver, for calls that need no context. False: c->st says why. */
static inline bool gpu__call_driver(struct gpu__call *c)
{
    c->entered = false;
    c->stream = NULL;
    c->st = gpu__call_driver_get(c);
    return c->st == GPU_OK;
}

/* Opens a call in `ctx` (not NULL) on a loaded driver: makes it current. */
static inline bool gpu__call_in(struct gpu__call *c, const gpu_context *ctx)
{
    c->entered = true;
    c->scope = gpu__context_enter(c->drv, ctx);
    c->st = c->scope.st;
    return c->st == GPU_OK;
}

/* Opens a call in an object's context (`ctx`; NULL: device 0's primary context). */
static inline bool gpu__call_object(struct gpu__call *c, gpu_context *ctx)
{
    c->stream = NULL;
    c->st = gpu__call_resolve(c, ctx, &ctx);
    return c->st == GPU_OK && gpu__call_in(c, ctx);
}

/*
 * Opens a call on a stream (GPU_DEVICE0_LEGACY_STREAM: the legacy stream of device
 * 0's primary context) in its context; c->stream is its CUstream.
 */
static inline bool gpu__call_stream(struct gpu__call *c, gpu_stream *stream)
{
    gpu_context *ctx = NULL;

    if (!stream) {
        c->stream = NULL;
        if (GPU__EXPECT(atomic_load(&gpu__ordered_captures) != 0, 0)) {
            c->entered = false;
            c->st = gpu__legacy_refused("the legacy stream");
            return false;
        }
        c->st = gpu__call_resolve(c, NULL, &ctx);
        return c->st == GPU_OK && gpu__call_in(c, ctx);
    }
    c->stream = stream->cu;
    c->st = gpu__call_driver_get(c);
    return c->st == GPU_OK && gpu__call_in(c, stream->obj.ctx);
}

/* GPU_ERR_INVALID_ARG for work on `owner`'s device on a stream of `ctx`'s (see gpu__call_stream_for()). */
gpu_status gpu__call_mismatch(const gpu_context *owner, const gpu_context *ctx, const char *func, const char *what,
                              const char *kernel);

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
    else if ((c->st = gpu__call_resolve(c, NULL, &ctx)) != GPU_OK)
        return false;
    if (ctx->cu != owner->cu) {
        c->st = gpu__call_mismatch(owner, ctx, func, what, kernel);
        return false;
    }
    return gpu__call_stream(c, stream);
}

/* What gpu__call_hot_failed() makes of a failure the context explains: no CUresult a driver returns. */
#define GPU__HOT_RETRY ((cuabi_result)0xffffffffu)

/*
 * The hot path's guard (see GPU__STREAM_HOT): `s` a real stream, `owner` (the
 * CUcontext of the object the call works on) the stream's, and
 * gpu__driver_hot: the driver is loaded in this process image (not a child
 * of fork()) and its table holds its own pointers. Sets c->drv and c->stream.
 */
static inline bool gpu__call_hot(struct gpu__call *c, const gpu_stream *s, cuabi_context owner)
{
    if (!s || owner != s->obj.ctx_cu || !atomic_load_explicit(&gpu__driver_hot, memory_order_acquire))
        return false;
    c->drv = &gpu__driver_table;
    c->stream = s->cu;
    return true;
}

/*
 * The owner of a hot call on the stream alone: the stream's own context (NULL
 * for the legacy stream, which the hot path declines). Once gpu__call_hot()
 * is inlined, the compare is folded away.
 */
static inline cuabi_context gpu__stream_owner(const gpu_stream *s)
{
    return s ? s->obj.ctx_cu : NULL;
}

/*
 * gpu__call_hot_missed()'s slow half, out of line: GPU__HOT_RETRY where the
 * context explains `rc`, else `rc`. Its answer replaces rc, so the hot
 * wrapper keeps nothing across the call.
 */
cuabi_result gpu__call_hot_failed(cuabi_result rc);

/*
 * Keeps a hot call's answer `rc` in c->rc; true when the driver says that it
 * wanted the stream's context current: the cold way then makes it current
 * and calls again.
 */
static inline bool gpu__call_hot_missed(struct gpu__call *c, cuabi_result rc)
{
    c->rc = rc;
    return GPU__EXPECT(rc != CUABI_SUCCESS, 0) && (c->rc = gpu__call_hot_failed(rc)) == GPU__HOT_RETRY;
}

/* gpu__call_end()'s slow half: leaves the context; `st` unless the leave failed after a call that succeeded. */
gpu_status gpu__call_leave(const struct gpu__driver *drv, struct gpu__ctx_scope scope, gpu_status st);

/*
 * Ends the call: `st` (what the wrapper made of it), or GPU_ERR_CONTEXT when
 * the caller's context could not be put back after a call that succeeded.
 */
static inline gpu_status gpu__call_end(struct gpu__call *c, gpu_status st)
{
    if (!c->entered)
        return st;
    /* A failed enter pushed nothing; leave() then has nothing to undo. */
    c->entered = false;
    return gpu__call_leave(c->drv, c->scope, st);
}

/*
 * Opens the bracket of a synchronous legacy-stream operation in the open call
 * `c` (capture.h): false when a counted capture refuses it (the call is then
 * ended, and c->st says so); true, and the caller ends the operation with
 * gpu__legacy_leave(its status) once the driver has answered. Other
 * legacy-stream work (on GPU_DEVICE0_LEGACY_STREAM) is only checked, when its
 * call opens.
 */
static inline bool gpu__call_legacy(struct gpu__call *c, const char *func)
{
    gpu_status st = gpu__legacy_enter(func);

    if (st == GPU_OK)
        return true;
    c->st = gpu__call_end(c, st);
    return false;
}

/* An optional entry point the driver lacks: GPU_ERR_NOT_SUPPORTED, naming it. */
static inline gpu_status gpu__call_unsupported(struct gpu__call *c, const char *entry)
{
    c->rc = CUABI_SUCCESS;
    c->st = gpu__unsupported(entry);
    return c->st;
}

/*
 * Driver call `fn` with the arguments that follow, in the open call `c`:
 * GPU_OK when the driver answered (its CUresult is in c->rc, for the wrapper
 * to read), else GPU_ERR_NOT_SUPPORTED. The call stays open.
 */
#define GPU__INVOKE_RAW(c, fn, ...) \
    ((c)->st = GPU_OK, GPU__OPTIONAL_##fn && !(c)->drv->fn ? gpu__call_unsupported((c), #fn) \
                                                           : ((c)->rc = (c)->drv->fn(__VA_ARGS__), (c)->st))

/* The status of the driver's answer to `fn`, c->rc, with `category` where the CUresult implies no other. */
#define GPU__RESULT(c, fn, category) gpu__check((c)->rc, (category), #fn)

/* GPU__INVOKE_RAW, then GPU__RESULT: the one status of one driver call. */
#define GPU__INVOKE(c, fn, category, ...) \
    (GPU__INVOKE_RAW(c, fn, __VA_ARGS__) != GPU_OK ? (c)->st : GPU__RESULT(c, fn, category))

/* GPU__INVOKE, then the end of the call. */
#define GPU__INVOKE_END(c, fn, category, ...) gpu__call_end((c), GPU__INVOKE(c, fn, category, __VA_ARGS__))

/*
 * The hot path of a call on a stream: true when the stream is real (and
 * `owner`, the CUcontext of the object worked on, the stream's;
 * gpu__stream_owner(stream) for none; evaluated whatever the stream), the
 * driver usable as loaded, the entry point there, and the driver has
 * answered `fn` in c->rc (success, or a failure that the context does not
 * explain). Then nothing is left to undo: GPU__HOT_RESULT is the status.
 * False: nothing was done that the cold way (open, invoke, end) must not do
 * again.
 *
 * Only c->drv and c->stream are set before the driver call and nothing of
 * the call's state is needed after it, so the cold way's context handling
 * costs the hot one no registers; the cold way re-derives everything from
 * the wrapper's arguments.
 */
#define GPU__STREAM_HOT(c, stream, owner, fn, ...) \
    (gpu__call_hot((c), (stream), (owner)) && (!GPU__OPTIONAL_##fn || gpu__driver_table.fn) && \
     !gpu__call_hot_missed((c), gpu__driver_table.fn(__VA_ARGS__)))

/*
 * The hot path of a call that needs no context (cuEventQuery): true when the
 * driver is usable as loaded (gpu__driver_hot) and the entry point there,
 * and the driver has answered `fn` in c->rc. False: nothing was done, and
 * the cold way (GPU__DRIVER_CALL) loads the driver or says why it cannot.
 */
#define GPU__DRIVER_HOT(c, fn, ...) \
    (atomic_load_explicit(&gpu__driver_hot, memory_order_acquire) && (!GPU__OPTIONAL_##fn || gpu__driver_table.fn) && \
     ((c)->drv = &gpu__driver_table, (c)->rc = gpu__driver_table.fn(__VA_ARGS__), true))

/* The status of a hot call, c->rc, with `category` where the CUresult implies no other; `entry` names it. */
static inline gpu_status gpu__hot_result(const struct gpu__call *c, gpu_status category, const char *entry)
{
    return GPU__EXPECT(c->rc == CUABI_SUCCESS, 1) ? GPU_OK : gpu__check(c->rc, category, entry);
}

/* The status of a hot call that GPU__STREAM_HOT or GPU__DRIVER_HOT made. */
#define GPU__HOT_RESULT(c, fn, category) gpu__hot_result((c), (category), #fn)

/*
 * A hot call on a stream: its status, hot where GPU__STREAM_HOT allows, else
 * `cold`, an expression that does it the cold way. Only the calls that
 * tools/context-probe shows the driver making in their stream's context
 * whatever the thread holds use it (launch, record and wait, stream query,
 * async copies). Each makes `cold` a call of a GPU__COLD twin (hints.h)
 * that opens, invokes and ends: the hot wrapper then saves no registers for
 * the cold way and is little more than the driver call. The twin names the
 * public function in its messages.
 */
#define GPU__HOT_OR(c, stream, owner, fn, category, cold, ...) \
    (GPU__STREAM_HOT(c, stream, owner, fn, __VA_ARGS__) ? GPU__HOT_RESULT(c, fn, category) : (cold))

/* One driver call on a stream (c->stream is its CUstream), in its context: open, invoke, end. */
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

/*
 * The status `st` of a getter's call; `n` bytes from `value` to `out` when it
 * is GPU_OK. The driver writes its answer into a local, which reaches *out
 * only when the call succeeds (every getter's "set only on success"):
 *
 *     size_t v = 0;
 *
 *     return gpu__get_end(GPU__OBJECT_CALL(&c, ctx, cuCtxGetLimit, GPU_ERR_DRIVER, &v, limit), out, &v, sizeof(v));
 */
static inline gpu_status gpu__get_end(gpu_status st, void *out, const void *value, size_t n)
{
    if (st == GPU_OK)
        memcpy(out, value, n);
    return st;
}

#endif
