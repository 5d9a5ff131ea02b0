/* SPDX-License-Identifier: MIT */
/*
 * The one lifecycle of objects made in a context (object.h).
 */
#include <stdlib.h>
#include <string.h>

#include "object.h"

static bool has_entry(const struct gpu__driver *drv, size_t field)
{
    void *fn;

    memcpy(&fn, (const char *)drv + field, sizeof(fn));
    return fn != NULL;
}

void *gpu__object_new(struct gpu__call *c, gpu_context *ctx, const struct gpu__kind *kind, size_t size,
                       const char *func)
{
    struct gpu__object *obj;

    c->stream = NULL;
    c->st = gpu__context_resolve(ctx, &c->drv, &ctx);
    if (c->st != GPU_OK)
        return NULL;
    if (!has_entry(c->drv, kind->create_field) || !has_entry(c->drv, kind->release_field)) {
        c->st = gpu__unsupported(has_entry(c->drv, kind->create_field) ? kind->release_entry : kind->create_entry);
        return NULL;
    }
    obj = calloc(1, size);
    if (!obj) {
        c->st = gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "%s: out of host memory", func);
        return NULL;
    }
    obj->ctx = ctx;
    obj->ctx_cu = ctx->cu;
    obj->kind = kind;
    if (!gpu__call_in(c, ctx)) {
        free(obj);
        return NULL;
    }
    return obj;
}

/*
 * Makes `ctx` current for a release, relying on no single call: asks which
 * context is current, and pushes `ctx` (or, where the push fails, sets it and
 * later sets back what was current); release_leave() undoes it.
 */
struct release_scope {
    cuabi_context previous;
    bool known;  /* previous is what was current */
    bool pushed; /* undo with a pop */
    bool set;    /* undo by making previous current again */
};

static void release_enter(const struct gpu__driver *drv, const gpu_context *ctx, struct release_scope *r)
{
    r->previous = NULL;
    r->known = drv->cuCtxGetCurrent(&r->previous) == CUABI_SUCCESS;
    r->pushed = false;
    r->set = false;
    if (r->known && (r->previous == ctx->cu || (!r->previous && drv->cuCtxSetCurrent(ctx->cu) == CUABI_SUCCESS)))
        return;
    if (drv->cuCtxPushCurrent(ctx->cu) == CUABI_SUCCESS) {
        r->pushed = true;
        return;
    }
    /* Without knowing what was current, setting ctx could not be undone: release without it. */
    r->set = r->known && drv->cuCtxSetCurrent(ctx->cu) == CUABI_SUCCESS;
}

static void release_leave(const struct gpu__driver *drv, struct release_scope *r)
{
    struct gpu__ctx_scope scope = {r->previous, GPU_OK, r->pushed};

    if (r->set) {
        if (drv->cuCtxSetCurrent(r->previous) != CUABI_SUCCESS)
            gpu__fail(GPU_ERR_CONTEXT, 0, "cuCtxSetCurrent: the caller's context could not be made current again");
    } else if (r->pushed && !r->known) {
        cuabi_context popped;

        /* Nothing to restore another way: what the pop says is all there is. */
        gpu__check(drv->cuCtxPopCurrent(&popped), GPU_ERR_CONTEXT, "cuCtxPopCurrent");
    } else {
        gpu__context_leave(drv, scope);
    }
}

static void release(struct gpu__object *obj)
{
    const struct gpu__driver *drv;
    struct release_scope r;
    cuabi_result rc;

    /* An object exists only where a driver loaded; after fork() it cannot be released. */
    if (gpu__driver_get(&drv) != GPU_OK)
        return;
    release_enter(drv, obj->ctx, &r);
    rc = obj->kind->release(drv, obj);
    release_leave(drv, &r);
    /* After the leave, so that the release's own failure is the message kept. */
    gpu__check(rc, GPU_ERR_DRIVER, obj->kind->release_entry);
}

gpu_status gpu__object_finish(struct gpu__call *c, struct gpu__object *obj, gpu_status st, void **out)
{
    gpu_status made = st;

    if (!obj)
        return c->st;
    st = gpu__call_end(c, st);
    if (st == GPU_OK) {
        gpu__context_ref(obj->ctx);
        *out = obj;
        return GPU_OK;
    }
    /* The driver's object exists; only the context around it failed. */
    if (made == GPU_OK)
        release(obj);
    if (obj->kind->finalize)
        obj->kind->finalize(obj);
    free(obj);
    return st;
}

void gpu__object_destroy(struct gpu__object *obj)
{
    if (!obj)
        return;
    release(obj);
    if (obj->kind->finalize)
        obj->kind->finalize(obj);
    gpu__context_unref(obj->ctx);
    free(obj);
}
