/*
 * Stream memory operations: 32- and 64-bit writes and waits on a buffer's values (issue 12).
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

/* Stream memory operation `fn` on the value at `offset` of `buffer`, as wide as `value`. */
#define VALUE_OP(c, fn, stream, buffer, offset, value, flags) \
    (value_open((c), (stream), (buffer), (offset), sizeof(value), __func__) \
         ? GPU__INVOKE_END((c), fn, GPU_ERR_STREAM_SYNC, (c)->stream, (buffer)->ptr + (offset), (value), (flags)) \
         : (c)->st)

gpu_status gpu_stream_write_value32(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint32_t value)
{
    struct gpu__call c;

    return VALUE_OP(&c, cuStreamWriteValue32, stream, buffer, offset, value, CUABI_STREAM_WRITE_VALUE_DEFAULT);
}

gpu_status gpu_stream_write_value64(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint64_t value)
{
    struct gpu__call c;

    return VALUE_OP(&c, cuStreamWriteValue64, stream, buffer, offset, value, CUABI_STREAM_WRITE_VALUE_DEFAULT);
}

gpu_status gpu_stream_wait_value32(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint32_t value,
                                   gpu_wait_condition cond)
{
    struct gpu__call c;

    if (!VALID_CONDITION(cond))
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "unknown condition %d", (int)cond);
    return VALUE_OP(&c, cuStreamWaitValue32, stream, buffer, offset, value, (unsigned)cond);
}

gpu_status gpu_stream_wait_value64(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint64_t value,
                                   gpu_wait_condition cond)
{
    struct gpu__call c;

    if (!VALID_CONDITION(cond))
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "unknown condition %d", (int)cond);
    return VALUE_OP(&c, cuStreamWaitValue64, stream, buffer, offset, value, (unsigned)cond);
}
