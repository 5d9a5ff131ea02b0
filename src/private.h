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
 * The context and CUstream a stream argument means: GPU_DEFAULT_STREAM is the
 * legacy stream of device 0's context. Sets *drv, *ctx, *cu.
 */
gpu_status gpu__stream_target(gpu_stream *stream, const struct gpu__driver **drv, gpu_context **ctx,
                              cuabi_stream *cu);

/* gpu__stream_target(), then the stream's context made current. */
gpu_status gpu__stream_enter(gpu_stream *stream, const struct gpu__driver **drv, cuabi_stream *cu,
                             struct gpu__ctx_scope *scope, gpu_context **ctx);

#endif
