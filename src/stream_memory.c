/* SPDX-License-Identifier: MIT */
/*
 * Stream memory operations: 32- and 64-bit writes and waits on a buffer's values.
 */
#include "object.h"

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
