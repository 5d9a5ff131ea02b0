/* SPDX-License-Identifier: MIT */
/*
 * The objects' insides, shared by the gpu_* modules (the .c files of src/ itself).
 */
#ifndef GPUSHIM_PRIVATE_H
#define GPUSHIM_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>

#include "gpushim/gpushim.h"

#include "base/error.h"
#include "sys/driver/driver.h"

struct gpu_context {
    atomic_int refs; /* the creator's, plus one per object made in it */
    int ordinal;
    cuabi_device device;
    cuabi_context cu;
};

/*
 * The driver and the context to use for `ctx` (NULL: device 0's primary
 * context, retained once for the process). On success *drv and *resolved are
 * set; the context is not referenced for the caller.
 */
gpu_status gpu__context_resolve(gpu_context *ctx, const struct gpu__driver **drv, gpu_context **resolved);

/* A handle on device `ordinal`'s primary context, retained, with one reference. */
gpu_status gpu__context_new(const struct gpu__driver *drv, int ordinal, gpu_context **out);

void gpu__context_ref(gpu_context *ctx);
void gpu__context_unref(gpu_context *ctx);

/*
 * What every object made in a context begins with (see object.h): the
 * context it holds a reference on, and how its driver object is released.
 */
struct gpu__object {
    gpu_context *ctx;
    cuabi_context ctx_cu; /* ctx->cu: the hot path (call.h) compares it with one load */
    const struct gpu__kind *kind;
};

/*
 * The flags gpu_stream_create() uses for a value of GPUSHIM_STREAM_NONBLOCKING:
 * GPU_STREAM_NON_BLOCKING only for exactly "1", GPU_STREAM_DEFAULT for
 * anything else, NULL (unset) included; "true", "yes", " 1" and the like do
 * not select the racy mode. Pure; any thread. (stream.c)
 */
unsigned gpu__stream_flags_from_env(const char *nonblocking_env);

struct gpu_stream {
    struct gpu__object obj;
    cuabi_stream cu;
    unsigned flags;
    bool guarded; /* a global capture of this ordered stream is open and counted (capture.h) */
};

struct gpu_event {
    struct gpu__object obj;
    cuabi_event cu;
    bool timed;
};

struct gpu_graph {
    struct gpu__object obj;
    cuabi_graph cu;
};

struct gpu_graph_exec {
    struct gpu__object obj;
    cuabi_graph_exec cu;
};

struct gpu_function {
    struct gpu_function *next;
    gpu_module *module;
    cuabi_context ctx_cu; /* the module's context, for the launch's hot path (as gpu__object's) */
    cuabi_function cu;
    char name[]; /* the name looked up */
};

/*
 * The module's function `name`, looked up once (gpu_module_get_function()
 * without the argument checks); `func` names the caller in errors.
 */
gpu_status gpu__module_function(gpu_module *module, const char *name, const char *func, gpu_function **out);

struct gpu_module {
    struct gpu__object obj;
    cuabi_module cu;
    pthread_mutex_t lock; /* guards functions */
    struct gpu_function *functions;
};

struct gpu_buffer {
    struct gpu__object obj;
    cuabi_deviceptr ptr;
    size_t size;
};

struct gpu_host_buffer {
    struct gpu__object obj;
    void *data;
    size_t size;
    bool registered; /* the caller's memory, page-locked, rather than ours */
};

#endif
