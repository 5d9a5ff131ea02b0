/*
 * Streams. Ported from aprender-gpu's stream module; see stream.h for the
 * ordering facts it records.
 */
#include <stdlib.h>
#include <string.h>

#include "private.h"

unsigned gpu_stream_create_flags(const char *nonblocking_env)
{
    /* Exactly "1": a truthy-looking value must not silently re-arm the racy path. */
    if (nonblocking_env && strcmp(nonblocking_env, "1") == 0)
        return GPU_STREAM_NON_BLOCKING;
    return GPU_STREAM_DEFAULT;
}

gpu_status gpu__stream_target(gpu_stream *stream, const struct gpu__driver **drv, gpu_context **ctx,
                              cuabi_stream *cu)
{
    gpu_status st;

    if (!stream) {
        *cu = NULL;
        return gpu__context_resolve(NULL, drv, ctx);
    }
    st = gpu__driver_get(drv);
    if (st != GPU_OK)
        return st;
    *ctx = stream->ctx;
    *cu = stream->cu;
    return GPU_OK;
}

gpu_status gpu_stream_create_with_flags(gpu_context *ctx, unsigned flags, gpu_stream **out)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    gpu_stream *s;
    cuabi_stream cu = NULL;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_stream_create", "out is NULL");
    if (flags & ~(unsigned)GPU_STREAM_NON_BLOCKING)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_stream_create: unknown flags 0x%x", flags);
    st = gpu__context_resolve(ctx, &drv, &ctx);
    if (st != GPU_OK)
        return st;
    s = calloc(1, sizeof(*s));
    if (!s)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_stream_create: out of host memory");
    st = gpu__context_enter(drv, ctx, &scope);
    if (st == GPU_OK) {
        st = GPU__CALL(drv, cuStreamCreate, GPU_ERR_STREAM_CREATE, &cu, flags);
        gpu__context_leave(&scope);
    }
    if (st != GPU_OK) {
        free(s);
        return st;
    }
    gpu__context_ref(ctx);
    s->ctx = ctx;
    s->cu = cu;
    s->flags = flags;
    *out = s;
    return GPU_OK;
}

gpu_status gpu_stream_create(gpu_context *ctx, gpu_stream **out)
{
    return gpu_stream_create_with_flags(ctx, gpu_stream_create_flags(getenv(GPU_STREAM_NONBLOCKING_ENV)), out);
}

gpu_status gpu_stream_create_non_blocking(gpu_context *ctx, gpu_stream **out)
{
    return gpu_stream_create_with_flags(ctx, GPU_STREAM_NON_BLOCKING, out);
}

void gpu_stream_destroy(gpu_stream *stream)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;

    if (!stream)
        return;
    if (gpu__release_enter(stream->ctx, &drv, &scope)) {
        drv->cuStreamDestroy(stream->cu);
        gpu__context_leave(&scope);
    }
    gpu__context_unref(stream->ctx);
    free(stream);
}

void *gpu_stream_raw(const gpu_stream *stream)
{
    return stream ? (void *)stream->cu : NULL;
}

unsigned gpu_stream_flags(const gpu_stream *stream)
{
    return stream ? stream->flags : GPU_STREAM_DEFAULT;
}

gpu_context *gpu_stream_context(const gpu_stream *stream)
{
    return stream ? stream->ctx : NULL;
}

gpu_status gpu_stream_synchronize(gpu_stream *stream)
{
    struct gpu__call c;
    cuabi_result rc;
    gpu_status st;

    st = gpu__call_stream(stream, true, &c);
    if (st != GPU_OK)
        return st;
    do
        rc = c.drv->cuStreamSynchronize(c.stream);
    while (gpu__call_retry(&c, rc, &st));
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_STREAM_SYNC, "cuStreamSynchronize");
}

gpu_status gpu_stream_query(gpu_stream *stream, bool *idle)
{
    struct gpu__call c;
    cuabi_result rc;
    gpu_status st;

    if (!idle)
        return GPU__INVALID("gpu_stream_query", "idle is NULL");
    st = gpu__call_stream(stream, true, &c);
    if (st != GPU_OK)
        return st;
    do
        rc = c.drv->cuStreamQuery(c.stream);
    while (gpu__call_retry(&c, rc, &st));
    gpu__call_end(&c);
    if (st != GPU_OK)
        return st;
    if (rc == CUABI_ERROR_NOT_READY) {
        *idle = false;
        return GPU_OK;
    }
    st = gpu__check(rc, GPU_ERR_STREAM_SYNC, "cuStreamQuery");
    if (st == GPU_OK)
        *idle = true;
    return st;
}

gpu_status gpu_stream_memcpy_dtod_sync(gpu_stream *stream, uint64_t dst, uint64_t src, size_t bytes)
{
    struct gpu__call c;
    gpu_status st;

    if (bytes && (!dst || !src))
        return GPU__INVALID("gpu_stream_memcpy_dtod_sync", "a device address is 0");
    /* A legacy-stream copy: which legacy stream is the current context's, so it is never trusted. */
    st = gpu__call_stream(stream, false, &c);
    if (st != GPU_OK)
        return st;
    if (bytes)
        st = GPU__CALL(c.drv, cuMemcpyDtoD, GPU_ERR_TRANSFER, dst, src, bytes);
    gpu__call_end(&c);
    return st;
}

gpu_status gpu_stream_launch_host_func(gpu_stream *stream, void (*fn)(void *user_data), void *user_data)
{
    struct gpu__call c;
    cuabi_result rc;
    gpu_status st;

    if (!fn)
        return GPU__INVALID("gpu_stream_launch_host_func", "fn is NULL");
    st = gpu__call_stream(stream, true, &c);
    if (st != GPU_OK)
        return st;
    if (!c.drv->cuLaunchHostFunc) {
        gpu__call_end(&c);
        return gpu__unsupported("cuLaunchHostFunc");
    }
    do
        rc = c.drv->cuLaunchHostFunc(c.stream, fn, user_data);
    while (gpu__call_retry(&c, rc, &st));
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_KERNEL_LAUNCH, "cuLaunchHostFunc");
}

gpu_status gpu_stream_record_event(gpu_stream *stream, gpu_event *event)
{
    struct gpu__call c;
    cuabi_result rc;
    gpu_status st;

    if (!event)
        return GPU__INVALID("gpu_stream_record_event", "event is NULL");
    st = gpu__call_stream_for(stream, event->ctx, "gpu_stream_record_event", "the event", &c);
    if (st != GPU_OK)
        return st;
    do
        rc = c.drv->cuEventRecord(event->cu, c.stream);
    while (gpu__call_retry(&c, rc, &st));
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_EVENT, "cuEventRecord");
}

gpu_status gpu_stream_wait_event(gpu_stream *stream, gpu_event *event)
{
    struct gpu__call c;
    cuabi_result rc;
    gpu_status st;

    if (!event)
        return GPU__INVALID("gpu_stream_wait_event", "event is NULL");
    st = gpu__call_stream(stream, true, &c);
    if (st != GPU_OK)
        return st;
    do
        rc = c.drv->cuStreamWaitEvent(c.stream, event->cu, 0);
    while (gpu__call_retry(&c, rc, &st));
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_STREAM_SYNC, "cuStreamWaitEvent");
}
