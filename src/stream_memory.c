/*
 * Stream priorities and stream memory operations (issue 12).
 */
#include "object.h"

static cuabi_result stream_release(const struct gpu__driver *drv, struct gpu__object *obj)
{
    return drv->cuStreamDestroy(((gpu_stream *)obj)->cu);
}

static const struct gpu__kind priority_kind =
    GPU__KIND(cuStreamCreateWithPriority, cuStreamDestroy, stream_release, NULL);

gpu_status gpu_context_stream_priority_range(gpu_context *ctx, int *least, int *greatest)
{
    struct gpu__call c;
    int lo = 0, hi = 0;
    gpu_status st;

    if (!least || !greatest)
        return GPU__INVALID(least ? "greatest is NULL" : "least is NULL");
    st = GPU__OBJECT_CALL(&c, ctx, cuCtxGetStreamPriorityRange, GPU_ERR_DRIVER, &lo, &hi);
    if (st == GPU_OK) {
        *least = lo;
        *greatest = hi;
    }
    return st;
}

gpu_status gpu_stream_create_with_priority(gpu_context *ctx, unsigned flags, int priority, gpu_stream **out)
{
    struct gpu__call c;
    gpu_stream *s;
    gpu_status st;

    if (!out)
        return GPU__INVALID("out is NULL");
    if (flags & ~(unsigned)GPU_STREAM_NON_BLOCKING)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "unknown flags 0x%x", flags);
    s = gpu__object_new(&c, ctx, &priority_kind, sizeof(*s));
    st = s ? GPU__INVOKE(&c, cuStreamCreateWithPriority, GPU_ERR_STREAM_CREATE, &s->cu, flags, priority) : c.st;
    if (s)
        s->flags = flags;
    return gpu__object_finish(&c, s ? &s->obj : NULL, st, (void **)out);
}

gpu_status gpu_stream_priority(gpu_stream *stream, int *priority)
{
    struct gpu__call c;
    int p = 0;
    gpu_status st;

    if (!priority)
        return GPU__INVALID("priority is NULL");
    st = GPU__STREAM_CALL(&c, stream, cuStreamGetPriority, GPU_ERR_STREAM_SYNC, c.stream, &p);
    if (st == GPU_OK)
        *priority = p;
    return st;
}

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
