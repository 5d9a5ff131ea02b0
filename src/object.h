/* SPDX-License-Identifier: MIT */
/*
 * One lifecycle for every object made in a context (streams, events,
 * graphs, modules, buffers): made in one place, released in one place.
 *
 *     static GPU__RELEASE(stream_release, gpu_stream, cuStreamDestroy, cu)
 *     static const struct gpu__kind stream_kind = GPU__KIND(cuStreamCreate, cuStreamDestroy, stream_release, NULL);
 *
 *     s = gpu__object_new(&c, ctx, &stream_kind, sizeof(*s), __func__);
 *     return GPU__OBJECT_MAKE(&c, s, out, cuStreamCreate, GPU_ERR_STREAM_CREATE, &s->cu, flags);
 *
 *     void gpu_stream_destroy(gpu_stream *stream) { gpu__object_destroy(stream ? &stream->obj : NULL); }
 */
#ifndef GPUSHIM_OBJECT_H
#define GPUSHIM_OBJECT_H

#include <stddef.h>

#include "call.h"

struct gpu__kind {
    /* The entry points that make and release the driver's object, and their places in struct gpu__driver. */
    const char *create_entry;
    const char *release_entry;
    size_t create_field;
    size_t release_field;
    /* Releases the driver's object, with its context current where that could be done. */
    cuabi_result (*release)(const struct gpu__driver *drv, struct gpu__object *obj);
    /* Frees what the object holds besides the driver's object; NULL for nothing. */
    void (*finalize)(struct gpu__object *obj);
};

/*
 * A kind whose driver objects entry point `create` makes and `release` (a
 * function calling entry point `destroy`) releases. Objects are made only
 * where the driver has both.
 */
#define GPU__KIND(create, destroy, release, finalize) \
    {#create, #destroy, offsetof(struct gpu__driver, create), offsetof(struct gpu__driver, destroy), (release), \
     (finalize)}

/*
 * Defines `name`, a kind's release function: the driver's `destroy` entry
 * point on field `field` of the object, a `type`. Written after `static`
 * where one file uses it.
 */
#define GPU__RELEASE(name, type, destroy, field) \
    cuabi_result name(const struct gpu__driver *drv, struct gpu__object *obj) \
    { \
        return drv->destroy(((type *)obj)->field); \
    }

/*
 * A zeroed object of `size` bytes for `ctx` (NULL: device 0's primary
 * context), with a call open in that context, made current: the caller makes
 * the driver call that creates the driver's object with GPU__INVOKE(c, ...)
 * and hands its status to gpu__object_finish(). NULL when the context or the
 * memory could not be had, or the driver lacks an entry point the kind needs
 * (c->st says why); nothing is left to undo then. `func` names the caller
 * in messages.
 */
void *gpu__object_new(struct gpu__call *c, gpu_context *ctx, const struct gpu__kind *kind, size_t size,
                      const char *func);

/*
 * Ends the creation begun by gpu__object_new(): on success the object takes
 * a reference on its context and *out is set; otherwise everything is
 * undone, the driver's object released where it was made (a context that
 * could not be restored afterwards fails the creation too), and `st`, or the
 * context's failure, is returned. `obj` NULL: the creation failed in new().
 */
gpu_status gpu__object_finish(struct gpu__call *c, struct gpu__object *obj, gpu_status st, void **out);

/*
 * The usual end of a creation: driver call `fn`, with the arguments that
 * follow, makes the driver's object for `x` (from gpu__object_new(); NULL:
 * that failed, and c->st says why), and gpu__object_finish() hands `x` to
 * *out or undoes it all.
 */
#define GPU__OBJECT_MAKE(c, x, out, fn, category, ...) \
    gpu__object_finish((c), (x) ? &(x)->obj : NULL, (x) ? GPU__INVOKE((c), fn, (category), __VA_ARGS__) : (c)->st, \
                       (void **)(out))

/*
 * gpu__object_new() for a device buffer of `bytes`: GPU_ERR_INVALID_ARG,
 * naming `func`, where `out` is NULL or `bytes` is 0 (c->st says so, and
 * NULL is returned); else the buffer with its size set. (buffer.c)
 */
gpu_buffer *gpu__buffer_begin(struct gpu__call *c, gpu_context *ctx, const struct gpu__kind *kind, size_t bytes,
                              gpu_buffer **out, const char *func);

/*
 * Releases the driver's object and frees `obj` (NULL does nothing). The
 * object's context is made current without relying on any one driver call
 * (the release is made even where none works), and the caller's context is
 * put back; whatever failed is in gpu_last_error_get_message().
 */
void gpu__object_destroy(struct gpu__object *obj);

#endif
