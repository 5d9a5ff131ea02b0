/* SPDX-License-Identifier: MIT */
/*
 * Streams, and their memory operations (32- and 64-bit writes and waits on
 * a buffer's values). Ported from aprender-gpu's stream module; see
 * stream.h for the ordering facts it records.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "base/env.h"

unsigned gpu__stream_flags_from_env(const char *nonblocking_env)
{
    /* Exactly "1": a truthy-looking value must not silently re-arm the racy path. */
    if (nonblocking_env && strcmp(nonblocking_env, "1") == 0)
        return GPU_STREAM_NON_BLOCKING;
    return GPU_STREAM_DEFAULT;
}

static GPU__RELEASE(stream_release, gpu_stream, cuStreamDestroy, cu)

/* A stream destroyed while its capture is open: the capture ends with it. */
static void stream_finalize(struct gpu__object *obj)
{
    gpu__capture_guard_close((gpu_stream *)obj);
}

static const struct gpu__kind stream_kind = GPU__KIND(cuStreamCreate, cuStreamDestroy, stream_release, stream_finalize);
static const struct gpu__kind priority_kind =
    GPU__KIND(cuStreamCreateWithPriority, cuStreamDestroy, stream_release, stream_finalize);

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
    s = gpu__object_new(&c, ctx, priority ? &priority_kind : &stream_kind, sizeof(*s), func);
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

gpu_status gpu_context_get_stream_priority_range(gpu_context *ctx, int *least, int *greatest)
{
    struct gpu__call c;
    int lo = 0, hi = 0;
    gpu_status st;

    GPU__NOT_NULL(least, greatest);
    st = GPU__OBJECT_CALL(&c, ctx, cuCtxGetStreamPriorityRange, GPU_ERR_DRIVER, &lo, &hi);
    if (st == GPU_OK) {
        *least = lo;
        *greatest = hi;
    }
    return st;
}

gpu_status gpu_stream_create(gpu_context *ctx, gpu_stream **out)
{
    static atomic_flag warned = ATOMIC_FLAG_INIT;
    const char *name = GPU_STREAM_NONBLOCKING_ENV;
    const char *v = gpu__env(name);

    /* aprender-gpu's programs set its own name for the same knob. */
    if (!v) {
        name = GPU_STREAM_NONBLOCKING_ENV_APRENDER;
        v = gpu__env(name);
    }
    if (v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
        char warning[192];

        snprintf(warning, sizeof(warning),
                 "%s=%.64s is neither 0 nor 1; streams stay ordered against the legacy stream", name, v);
        gpu__env_warn_once(&warned, warning);
    }
    return gpu_stream_create_with_flags(ctx, gpu__stream_flags_from_env(v), out);
}

gpu_status gpu_stream_create_non_blocking(gpu_context *ctx, gpu_stream **out)
{
    return gpu_stream_create_with_flags(ctx, GPU_STREAM_NON_BLOCKING, out);
}

void gpu_stream_destroy(gpu_stream *stream)
{
    gpu__object_destroy(stream ? &stream->obj : NULL);
}

void *gpu_stream_get_raw(const gpu_stream *stream)
{
    return stream ? (void *)stream->cu : NULL;
}

unsigned gpu_stream_get_flags(const gpu_stream *stream)
{
    return stream ? stream->flags : GPU_STREAM_DEFAULT;
}

gpu_context *gpu_stream_get_context(const gpu_stream *stream)
{
    return stream ? stream->obj.ctx : NULL;
}

gpu_status gpu_stream_get_priority(gpu_stream *stream, int *priority)
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

/* gpu_stream_is_complete() the cold way (see GPU__HOT_OR). */
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
gpu_status gpu_stream_is_complete(gpu_stream *stream, bool *idle)
{
    struct gpu__call c;

    GPU__NOT_NULL(idle);
    if (!GPU__STREAM_HOT(&c, stream, gpu__stream_owner(stream), cuStreamQuery, c.stream))
        return stream_query_cold(stream, idle);
    if (c.rc != CUABI_SUCCESS && c.rc != CUABI_ERROR_NOT_READY)
        return GPU__RESULT(&c, cuStreamQuery, GPU_ERR_STREAM_SYNC);
    *idle = c.rc == CUABI_SUCCESS;
    return GPU_OK;
}

gpu_status gpu_buffer_copy_device_ptr(gpu_stream *stream, uint64_t dst, uint64_t src, size_t bytes)
{
    struct gpu__call c;
    gpu_context *unused;

    if (bytes && (!dst || !src))
        return GPU__INVALID("a device address is 0");
    if (!bytes)
        return gpu__context_resolve(stream ? stream->obj.ctx : NULL, &c.drv, &unused);
    /* A legacy-stream copy: which legacy stream is the current context's, so the context is made current. */
    if (!gpu__call_object(&c, stream ? stream->obj.ctx : NULL) || !gpu__call_legacy(&c, __func__))
        return c.st;
    return gpu__legacy_leave(GPU__INVOKE_END(&c, cuMemcpyDtoD, GPU_ERR_TRANSFER, dst, src, bytes));
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
    return GPU__HOT_OR(&c, stream, gpu__stream_owner(stream), cuStreamWaitEvent, GPU_ERR_STREAM_SYNC,
                       wait_event_cold(stream, event), c.stream, event->cu, 0);
}

/* ---- Stream memory operations: 32- and 64-bit writes and waits on a buffer's values ---- */

/*
 * Checks a value's place in the buffer (inside, aligned to `width`) and opens
 * the call on the stream, which must be the buffer's device's.
 */
static bool value_open(struct gpu__call *c, gpu_stream *stream, const gpu_buffer *buffer, size_t offset,
                       size_t width, const char *func)
{
    if (!buffer)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: buffer is NULL", func);
    else if (offset % width)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: offset %zu is not a multiple of %zu", func, offset, width);
    else if (offset > buffer->size || buffer->size - offset < width)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %zu bytes at offset %zu do not fit a buffer of %zu", func,
                          width, offset, buffer->size);
    else
        return gpu__call_stream_for(c, stream, buffer->obj.ctx, func, "the buffer", NULL);
    return false;
}

#define VALID_CONDITION(cond) ((cond) >= GPU_WAIT_GEQ && (cond) <= GPU_WAIT_NOR)

/*
 * A write (`wait` false) or a wait under `cond` on the value at `offset` of
 * `buffer`, 4 or 8 bytes wide: checks, open, the stream memory operation,
 * end. `func` names the public function in messages.
 */
static gpu_status value_op(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint64_t value, size_t width,
                           bool wait, gpu_wait_condition cond, const char *func)
{
    unsigned flags = wait ? (unsigned)cond : CUABI_STREAM_WRITE_VALUE_DEFAULT;
    struct gpu__call c;
    cuabi_deviceptr at;

    if (wait && !VALID_CONDITION(cond))
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: unknown condition %d", func, (int)cond);
    if (!value_open(&c, stream, buffer, offset, width, func))
        return c.st;
    at = buffer->ptr + offset;
    if (width == sizeof(uint32_t) && wait)
        return GPU__INVOKE_END(&c, cuStreamWaitValue32, GPU_ERR_STREAM_SYNC, c.stream, at, (uint32_t)value, flags);
    if (width == sizeof(uint32_t))
        return GPU__INVOKE_END(&c, cuStreamWriteValue32, GPU_ERR_STREAM_SYNC, c.stream, at, (uint32_t)value, flags);
    if (wait)
        return GPU__INVOKE_END(&c, cuStreamWaitValue64, GPU_ERR_STREAM_SYNC, c.stream, at, value, flags);
    return GPU__INVOKE_END(&c, cuStreamWriteValue64, GPU_ERR_STREAM_SYNC, c.stream, at, value, flags);
}

gpu_status gpu_stream_write_value32(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint32_t value)
{
    return value_op(stream, buffer, offset, value, sizeof(value), false, GPU_WAIT_GEQ, __func__);
}

gpu_status gpu_stream_write_value64(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint64_t value)
{
    return value_op(stream, buffer, offset, value, sizeof(value), false, GPU_WAIT_GEQ, __func__);
}

gpu_status gpu_stream_wait_value32(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint32_t value,
                                   gpu_wait_condition cond)
{
    return value_op(stream, buffer, offset, value, sizeof(value), true, cond, __func__);
}

gpu_status gpu_stream_wait_value64(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint64_t value,
                                   gpu_wait_condition cond)
{
    return value_op(stream, buffer, offset, value, sizeof(value), true, cond, __func__);
}
