/*
 * Streams. Ported from aprender-gpu's stream module; see stream.h for the
 * ordering facts it records.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "sys/env.h"

unsigned gpu_stream_create_flags(const char *nonblocking_env)
{
    /* Exactly "1": a truthy-looking value must not silently re-arm the racy path. */
    if (nonblocking_env && strcmp(nonblocking_env, "1") == 0)
        return GPU_STREAM_NON_BLOCKING;
    return GPU_STREAM_DEFAULT;
}

static GPU__RELEASE(stream_release, gpu_stream, cuStreamDestroy, cu)

static const struct gpu__kind stream_kind = GPU__KIND(cuStreamCreate, cuStreamDestroy, stream_release, NULL);
static const struct gpu__kind priority_kind =
    GPU__KIND(cuStreamCreateWithPriority, cuStreamDestroy, stream_release, NULL);

/* A stream with `flags`, and `*priority` where that is not NULL; `func` names the caller in errors. */
static gpu_status stream_create(gpu_context *ctx, unsigned flags, const int *priority, gpu_stream **out,
                                const char *func)
{
    struct gpu__call c;
    gpu_stream *s;

    if (!out)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: out is NULL", func);
    if (flags & ~(unsigned)GPU_STREAM_NON_BLOCKING)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: unknown flags 0x%x", func, flags);
    s = gpu__object_new_(&c, ctx, priority ? &priority_kind : &stream_kind, sizeof(*s), func);
    if (s)
        s->flags = flags;
    if (priority)
        return GPU__OBJECT_MAKE(&c, s, out, cuStreamCreateWithPriority, GPU_ERR_STREAM_CREATE, &s->cu, flags,
                                *priority);
    return GPU__OBJECT_MAKE(&c, s, out, cuStreamCreate, GPU_ERR_STREAM_CREATE, &s->cu, flags);
}

gpu_status gpu_stream_create_with_flags(gpu_context *ctx, unsigned flags, gpu_stream **out)
{
    return stream_create(ctx, flags, NULL, out, __func__);
}

gpu_status gpu_stream_create_with_priority(gpu_context *ctx, unsigned flags, int priority, gpu_stream **out)
{
    return stream_create(ctx, flags, &priority, out, __func__);
}

gpu_status gpu_context_stream_priority_range(gpu_context *ctx, int *least, int *greatest)
{
    GPU__NOT_NULL(least, greatest);
    return GPU__OBJECT_GET2(ctx, cuCtxGetStreamPriorityRange, GPU_ERR_DRIVER, least, greatest);
}

gpu_status gpu_stream_create(gpu_context *ctx, gpu_stream **out)
{
    static atomic_flag warned = ATOMIC_FLAG_INIT;
    const char *v = gpu__env(GPU_STREAM_NONBLOCKING_ENV);

    if (v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
        char warning[160];

        snprintf(warning, sizeof(warning),
                 GPU_STREAM_NONBLOCKING_ENV "=%.64s is neither 0 nor 1; streams stay ordered against the legacy stream",
                 v);
        gpu__env_warn_once(&warned, warning);
    }
    return gpu_stream_create_with_flags(ctx, gpu_stream_create_flags(v), out);
}

gpu_status gpu_stream_create_non_blocking(gpu_context *ctx, gpu_stream **out)
{
    return gpu_stream_create_with_flags(ctx, GPU_STREAM_NON_BLOCKING, out);
}

void gpu_stream_destroy(gpu_stream *stream)
{
    gpu__object_destroy(stream ? &stream->obj : NULL);
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
    return stream ? stream->obj.ctx : NULL;
}

gpu_status gpu_stream_priority(gpu_stream *stream, int *priority)
{
    struct gpu__call c;
    int p = 0;
    gpu_status st;

    GPU__NOT_NULL(priority);
    st = GPU__STREAM_CALL(&c, stream, cuStreamGetPriority, GPU_ERR_STREAM_SYNC, c.stream, &p);
    if (st == GPU_OK)
        *priority = p;
    return st;
}

gpu_status gpu_stream_synchronize(gpu_stream *stream)
{
    struct gpu__call c;

    return GPU__STREAM_CALL(&c, stream, cuStreamSynchronize, GPU_ERR_STREAM_SYNC, c.stream);
}

/* gpu_stream_query() the cold way (see GPU__HOT_OR). */
static GPU__COLD gpu_status stream_query_cold(gpu_stream *stream, bool *idle)
{
    struct gpu__call c;
    gpu_status st;

    if (!gpu__call_stream(&c, stream))
        return c.st;
    st = GPU__INVOKE_RAW(&c, cuStreamQuery, c.stream);
    if (st == GPU_OK && c.rc != CUABI_ERROR_NOT_READY)
        st = GPU__RESULT(&c, cuStreamQuery, GPU_ERR_STREAM_SYNC);
    st = gpu__call_end(&c, st);
    if (st == GPU_OK)
        *idle = c.rc == CUABI_SUCCESS;
    return st;
}

GPU__HOT_ENTRY
gpu_status gpu_stream_query(gpu_stream *stream, bool *idle)
{
    struct gpu__call c;

    GPU__NOT_NULL(idle);
    if (!GPU__STREAM_HOT(&c, stream, GPU__NO_OWNER, cuStreamQuery, c.stream))
        return stream_query_cold(stream, idle);
    if (c.rc != CUABI_SUCCESS && c.rc != CUABI_ERROR_NOT_READY)
        return GPU__RESULT(&c, cuStreamQuery, GPU_ERR_STREAM_SYNC);
    *idle = c.rc == CUABI_SUCCESS;
    return GPU_OK;
}

gpu_status gpu_stream_memcpy_dtod_sync(gpu_stream *stream, uint64_t dst, uint64_t src, size_t bytes)
{
    struct gpu__call c;
    gpu_context *unused;

    if (bytes && (!dst || !src))
        return GPU__INVALID("a device address is 0");
    if (!bytes)
        return gpu__context_resolve(stream ? stream->obj.ctx : NULL, &c.drv, &unused);
    /* A legacy-stream copy: which legacy stream is the current context's, so the context is made current. */
    return GPU__OBJECT_CALL(&c, stream ? stream->obj.ctx : NULL, cuMemcpyDtoD, GPU_ERR_TRANSFER, dst, src, bytes);
}

gpu_status gpu_stream_launch_host_func(gpu_stream *stream, void (*fn)(void *user_data), void *user_data)
{
    struct gpu__call c;

    GPU__NOT_NULL(fn);
    return GPU__STREAM_CALL(&c, stream, cuLaunchHostFunc, GPU_ERR_KERNEL_LAUNCH, c.stream, fn, user_data);
}

/* gpu_stream_record_event() the cold way (see GPU__HOT_OR). */
static GPU__COLD gpu_status record_event_cold(gpu_stream *stream, gpu_event *event, const char *func)
{
    struct gpu__call c;

    if (!gpu__call_stream_for(&c, stream, event->obj.ctx, func, "the event", NULL))
        return c.st;
    return GPU__INVOKE_END(&c, cuEventRecord, GPU_ERR_EVENT, event->cu, c.stream);
}

GPU__HOT_ENTRY
gpu_status gpu_stream_record_event(gpu_stream *stream, gpu_event *event)
{
    struct gpu__call c;

    GPU__NOT_NULL(event);
    return GPU__HOT_OR(&c, stream, event->obj.ctx_cu, cuEventRecord, GPU_ERR_EVENT,
                       record_event_cold(stream, event, __func__), event->cu, c.stream);
}

/* gpu_stream_wait_event() the cold way (see GPU__HOT_OR). */
static GPU__COLD gpu_status wait_event_cold(gpu_stream *stream, gpu_event *event)
{
    struct gpu__call c;

    if (!gpu__call_stream(&c, stream))
        return c.st;
    return GPU__INVOKE_END(&c, cuStreamWaitEvent, GPU_ERR_STREAM_SYNC, c.stream, event->cu, 0);
}

GPU__HOT_ENTRY
gpu_status gpu_stream_wait_event(gpu_stream *stream, gpu_event *event)
{
    struct gpu__call c;

    GPU__NOT_NULL(event);
    /* The event may be another device's: a stream can wait on any. */
    return GPU__HOT_OR(&c, stream, GPU__NO_OWNER, cuStreamWaitEvent, GPU_ERR_STREAM_SYNC, wait_event_cold(stream, event),
                       c.stream, event->cu, 0);
}
