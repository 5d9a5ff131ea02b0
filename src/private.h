/*
 * The objects' insides, shared by the modules above src/sys/.
 */
#ifndef GPUSHIM_PRIVATE_H
#define GPUSHIM_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>

#include "gpushim/gpushim.h"

#include "error.h"
#include "sys/driver.h"

struct gpu_context {
    atomic_int refs; /* the creator's, plus one per object made in it */
    int ordinal;
    cuabi_device device;
    cuabi_context cu;
};

struct gpu_stream {
    gpu_context *ctx;
    cuabi_stream cu;
    unsigned flags;
};

struct gpu_event {
    gpu_context *ctx;
    cuabi_event cu;
    bool timed;
};

struct gpu_graph {
    gpu_context *ctx;
    cuabi_graph cu;
};

struct gpu_graph_exec {
    gpu_context *ctx;
    cuabi_graph_exec cu;
};

struct gpu_function {
    struct gpu_function *next;
    gpu_module *module;
    cuabi_function cu;
    char name[]; /* the name looked up */
};

struct gpu_module {
    gpu_context *ctx;
    cuabi_module cu;
    pthread_mutex_t lock; /* guards functions */
    struct gpu_function *functions;
};

struct gpu_buffer {
    gpu_context *ctx;
    cuabi_deviceptr ptr;
    size_t size;
};

struct gpu_host_buffer {
    gpu_context *ctx;
    void *data;
    size_t size;
    bool registered; /* the caller's memory, page-locked, rather than ours */
};

/*
 * The driver and the context to use for `ctx` (NULL: device 0's primary
 * context, retained once for the process). On success *drv and *resolved are
 * set; the context is not referenced for the caller.
 */
gpu_status gpu__context_resolve(gpu_context *ctx, const struct gpu__driver **drv, gpu_context **resolved);

void gpu__context_ref(gpu_context *ctx);
void gpu__context_unref(gpu_context *ctx);

/*
 * Making an object's context current for one call. enter() leaves a thread
 * with no current context holding `ctx` (the cheapest state for the next
 * call), pushes it over another context and leave() pops it again.
 */
struct gpu__ctx_scope {
    const struct gpu__driver *drv;
    bool pushed;
    cuabi_context previous; /* what leave() restores when pushed */
};

gpu_status gpu__context_enter(const struct gpu__driver *drv, const gpu_context *ctx, struct gpu__ctx_scope *scope);
void gpu__context_leave(struct gpu__ctx_scope *scope);

/* The driver, with an existing object's context `ctx` made current. */
gpu_status gpu__object_enter(const gpu_context *ctx, const struct gpu__driver **drv, struct gpu__ctx_scope *scope);

/*
 * For destroy(): false where there is no driver (then there is nothing to
 * release). Otherwise the context is made current where that works; the
 * caller releases the driver's object either way rather than leak it.
 */
bool gpu__release_enter(const gpu_context *ctx, const struct gpu__driver **drv, struct gpu__ctx_scope *scope);

/*
 * The context gpushim last saw current on this thread (NULL: not known).
 * Another library may change the thread's context behind gpushim's back, so
 * this is trusted only by calls whose handles name their own context (see
 * gpu__call), which find out from the driver when it was wrong.
 */
extern _Thread_local cuabi_context gpu__thread_context GPU__TLS_FAST;

/*
 * The context and CUstream a stream argument means: GPU_DEFAULT_STREAM is the
 * legacy stream of device 0's context. Sets *drv, *ctx, *cu.
 */
gpu_status gpu__stream_target(gpu_stream *stream, const struct gpu__driver **drv, gpu_context **ctx,
                              cuabi_stream *cu);

/*
 * One driver call in an object's context, for the calls on the hot path:
 *
 *     st = gpu__call_stream(stream, true, &c);
 *     if (st != GPU_OK)
 *         return st;
 *     do
 *         rc = c.drv->cuStreamQuery(c.stream);
 *     while (gpu__call_retry(&c, rc, &st));
 *     gpu__call_end(&c);
 *
 * With `trusted` (the call's handles name their context: a real stream, an
 * event) and the thread's cached context already the object's, the call is
 * made at once, without asking the driver which context is current. Should
 * the driver answer that the context was wrong, gpu__call_retry() makes it
 * current and asks for the call again; a call that failed so queued nothing.
 * Otherwise begin makes the context current first, as gpu__context_enter().
 * Check st (a context failure) before rc.
 */
struct gpu__call {
    const struct gpu__driver *drv;
    gpu_context *ctx;
    cuabi_stream stream;
    struct gpu__ctx_scope scope;
    bool entered; /* the context was made current, and end() must leave */
};

gpu_status gpu__call_begin(const struct gpu__driver *drv, gpu_context *ctx, bool trusted, struct gpu__call *c);
gpu_status gpu__call_stream(gpu_stream *stream, bool trusted, struct gpu__call *c);
/*
 * gpu__call_stream(stream, true, c) for work on an object of `owner`'s
 * device, which the stream must share: GPU_ERR_INVALID_ARG, naming both
 * devices, where it does not. `func` and `what` ("the buffer") name them.
 */
gpu_status gpu__call_stream_for(gpu_stream *stream, const gpu_context *owner, const char *func, const char *what,
                                struct gpu__call *c);
bool gpu__call_retry(struct gpu__call *c, cuabi_result rc, gpu_status *st);
void gpu__call_end(struct gpu__call *c);

#endif
