/* SPDX-License-Identifier: MIT */
/*
 * Device buffers, page-locked host buffers, and the copies between them.
 */
#include "object.h"

GPU__RELEASE(gpu__buffer_release, gpu_buffer, cuMemFree, ptr)

static const struct gpu__kind buffer_kind = GPU__KIND(cuMemAlloc, cuMemFree, gpu__buffer_release, NULL);

gpu_buffer *gpu__buffer_begin(struct gpu__call *c, gpu_context *ctx, const struct gpu__kind *kind, size_t bytes,
                              gpu_buffer **out, const char *func)
{
    gpu_buffer *b;

    if (!out || bytes == 0) {
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s", func, out ? "bytes is 0" : "out is NULL");
        return NULL;
    }
    b = gpu__object_new_(c, ctx, kind, sizeof(*b), func);
    if (b)
        b->size = bytes;
    return b;
}

gpu_status gpu_buffer_create(gpu_context *ctx, size_t bytes, gpu_buffer **out)
{
    struct gpu__call c;
    gpu_buffer *b = gpu__buffer_begin(&c, ctx, &buffer_kind, bytes, out, __func__);

    return GPU__OBJECT_MAKE(&c, b, out, cuMemAlloc, GPU_ERR_TRANSFER, &b->ptr, bytes);
}

void gpu_buffer_destroy(gpu_buffer *buffer)
{
    gpu__object_destroy(buffer ? &buffer->obj : NULL);
}

uint64_t gpu_buffer_device_ptr(const gpu_buffer *buffer)
{
    return buffer ? (uint64_t)buffer->ptr : 0;
}

size_t gpu_buffer_size(const gpu_buffer *buffer)
{
    return buffer ? buffer->size : 0;
}

gpu_context *gpu_buffer_context(const gpu_buffer *buffer)
{
    return buffer ? buffer->obj.ctx : NULL;
}

/*
 * Checks a host copy's arguments (the buffer and host pointer exist, and the
 * bytes fit) and opens its call: on `stream` (async, which must be the
 * buffer's device's), else in the buffer's context. False: c->st says why.
 */
static bool copy_open(struct gpu__call *c, const gpu_buffer *buffer, const void *host, size_t bytes, bool async,
                      gpu_stream *stream, const char *func)
{
    if (!buffer)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: buffer is NULL", func);
    else if (!host && bytes)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: the host pointer is NULL", func);
    else if (bytes > buffer->size)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %zu bytes do not fit a buffer of %zu", func, bytes,
                          buffer->size);
    else if (async)
        return gpu__call_stream_for(c, stream, buffer->obj.ctx, func, "the buffer", NULL);
    else
        return gpu__call_object(c, buffer->obj.ctx);
    return false;
}

/* A copy of no bytes asks nothing of the driver, but ends the call it opened. */
#define COPY(c, bytes, fn, ...) \
    ((bytes) ? GPU__INVOKE_END(c, fn, GPU_ERR_TRANSFER, __VA_ARGS__) : gpu__call_end((c), GPU_OK))

/* Whether copy_open() would accept the copy and it moves bytes: where the hot path may take it. */
static inline bool copy_fits(const gpu_buffer *buffer, const void *host, size_t bytes)
{
    return buffer && host && bytes && bytes <= buffer->size;
}

/* An async copy between a buffer and host memory the cold way (see GPU__HOT_OR): checks, open, copy, end. */
static GPU__COLD gpu_status copy_async_cold(const gpu_buffer *buffer, void *dst, const void *src, size_t bytes,
                                            gpu_stream *stream, bool to_host, const char *func)
{
    struct gpu__call c;

    if (!copy_open(&c, buffer, to_host ? (const void *)dst : src, bytes, true, stream, func))
        return c.st;
    if (to_host)
        return COPY(&c, bytes, cuMemcpyDtoHAsync, dst, buffer->ptr, bytes, c.stream);
    return COPY(&c, bytes, cuMemcpyHtoDAsync, buffer->ptr, src, bytes, c.stream);
}

/* A synchronous copy: a legacy-stream operation (GPU__LEGACY), when it moves bytes. */
#define SYNC_COPY(c, bytes, fn, ...) \
    ((bytes) ? GPU__LEGACY(c, __func__, GPU__INVOKE_END(c, fn, GPU_ERR_TRANSFER, __VA_ARGS__)) \
             : gpu__call_end((c), GPU_OK))

gpu_status gpu_buffer_copy_from_host(gpu_buffer *buffer, const void *src, size_t bytes)
{
    struct gpu__call c;

    if (!copy_open(&c, buffer, src, bytes, false, NULL, __func__))
        return c.st;
    return SYNC_COPY(&c, bytes, cuMemcpyHtoD, buffer->ptr, src, bytes);
}

gpu_status gpu_buffer_copy_to_host(const gpu_buffer *buffer, void *dst, size_t bytes)
{
    struct gpu__call c;

    if (!copy_open(&c, buffer, dst, bytes, false, NULL, __func__))
        return c.st;
    return SYNC_COPY(&c, bytes, cuMemcpyDtoH, dst, buffer->ptr, bytes);
}

GPU__HOT_ENTRY
gpu_status gpu_buffer_copy_from_host_async(gpu_buffer *buffer, const void *src, size_t bytes, gpu_stream *stream)
{
    struct gpu__call c;

    if (!copy_fits(buffer, src, bytes))
        return copy_async_cold(buffer, NULL, src, bytes, stream, false, __func__);
    return GPU__HOT_OR(&c, stream, buffer->obj.ctx_cu, cuMemcpyHtoDAsync, GPU_ERR_TRANSFER,
                       copy_async_cold(buffer, NULL, src, bytes, stream, false, __func__), buffer->ptr, src, bytes, c.stream);
}

GPU__HOT_ENTRY
gpu_status gpu_buffer_copy_to_host_async(const gpu_buffer *buffer, void *dst, size_t bytes, gpu_stream *stream)
{
    struct gpu__call c;

    if (!copy_fits(buffer, dst, bytes))
        return copy_async_cold(buffer, dst, NULL, bytes, stream, true, __func__);
    return GPU__HOT_OR(&c, stream, buffer->obj.ctx_cu, cuMemcpyDtoHAsync, GPU_ERR_TRANSFER,
                       copy_async_cold(buffer, dst, NULL, bytes, stream, true, __func__), dst, buffer->ptr, bytes, c.stream);
}

gpu_status gpu_buffer_copy_async(gpu_buffer *dst, const gpu_buffer *src, size_t bytes, gpu_stream *stream)
{
    struct gpu__call c;

    GPU__NOT_NULL(dst, src);
    if (bytes > dst->size || bytes > src->size)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "%zu bytes, buffers of %zu (dst) and %zu (src)", bytes, dst->size,
                         src->size);
    /* The stream runs on the destination's device; the source may be another's. */
    if (!gpu__call_stream_for(&c, stream, dst->obj.ctx, __func__, "the buffer", NULL))
        return c.st;
    if (dst->obj.ctx->cu != src->obj.ctx->cu)
        return COPY(&c, bytes, cuMemcpyPeerAsync, dst->ptr, dst->obj.ctx->cu, src->ptr, src->obj.ctx->cu, bytes,
                    c.stream);
    return COPY(&c, bytes, cuMemcpyDtoDAsync, dst->ptr, src->ptr, bytes, c.stream);
}

/*
 * Checks a fill's arguments and opens its call, as copy_open() does. False:
 * c->st says why (or, for a count of 0, GPU_OK and nothing opened).
 */
static bool memset_open(struct gpu__call *c, gpu_buffer *buffer, size_t offset, size_t count, unsigned size,
                        uint32_t value, bool async, gpu_stream *stream, const char *func)
{
    c->st = GPU_OK;
    if (!buffer)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: buffer is NULL", func);
    else if (size != 1 && size != 2 && size != 4)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: elements of %u bytes: 1, 2 or 4", func, size);
    else if (size < 4 && value >> (8 * size))
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: value 0x%x does not fit %u byte(s)", func, (unsigned)value,
                          size);
    else if (offset % size)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: offset %zu is not a multiple of %u", func, offset, size);
    else if (offset > buffer->size || count > (buffer->size - offset) / size)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %zu elements of %u bytes from byte %zu do not fit a buffer of %zu",
                          func, count, size, offset, buffer->size);
    else if (count == 0)
        return false;
    else if (async)
        return gpu__call_stream_for(c, stream, buffer->obj.ctx, func, "the buffer", NULL);
    else
        return gpu__call_object(c, buffer->obj.ctx);
    return false;
}

/* A memset of `count` elements at `offset` (async: on `stream`): checks, open, the driver's memset, end. */
static gpu_status memset_op(gpu_buffer *buffer, size_t offset, size_t count, unsigned element_size, uint32_t value,
                            bool async, gpu_stream *stream, const char *func)
{
    struct gpu__call c;
    cuabi_deviceptr p;

    if (!memset_open(&c, buffer, offset, count, element_size, value, async, stream, func))
        return c.st;
    p = buffer->ptr + offset;
    if (async && element_size == 1)
        return GPU__INVOKE_END(&c, cuMemsetD8Async, GPU_ERR_TRANSFER, p, (unsigned char)value, count, c.stream);
    if (async && element_size == 2)
        return GPU__INVOKE_END(&c, cuMemsetD16Async, GPU_ERR_TRANSFER, p, (unsigned short)value, count, c.stream);
    if (async)
        return GPU__INVOKE_END(&c, cuMemsetD32Async, GPU_ERR_TRANSFER, p, value, count, c.stream);
    /* Synchronous: a legacy-stream operation. */
    if (element_size == 1)
        return GPU__LEGACY(&c, func, GPU__INVOKE_END(&c, cuMemsetD8, GPU_ERR_TRANSFER, p, (unsigned char)value, count));
    if (element_size == 2)
        return GPU__LEGACY(&c, func,
                           GPU__INVOKE_END(&c, cuMemsetD16, GPU_ERR_TRANSFER, p, (unsigned short)value, count));
    return GPU__LEGACY(&c, func, GPU__INVOKE_END(&c, cuMemsetD32, GPU_ERR_TRANSFER, p, value, count));
}

gpu_status gpu_buffer_memset(gpu_buffer *buffer, size_t offset, size_t count, unsigned element_size, uint32_t value)
{
    return memset_op(buffer, offset, count, element_size, value, false, NULL, __func__);
}

gpu_status gpu_buffer_memset_async(gpu_buffer *buffer, size_t offset, size_t count, unsigned element_size,
                                   uint32_t value, gpu_stream *stream)
{
    return memset_op(buffer, offset, count, element_size, value, true, stream, __func__);
}

static GPU__RELEASE(host_free, gpu_host_buffer, cuMemFreeHost, data)
static GPU__RELEASE(host_unregister, gpu_host_buffer, cuMemHostUnregister, data)

static const struct gpu__kind host_kind = GPU__KIND(cuMemHostAlloc, cuMemFreeHost, host_free, NULL);
static const struct gpu__kind registered_kind =
    GPU__KIND(cuMemHostRegister, cuMemHostUnregister, host_unregister, NULL);

gpu_status gpu_host_buffer_create(gpu_context *ctx, size_t bytes, gpu_host_buffer **out)
{
    struct gpu__call c;
    gpu_host_buffer *h;

    GPU__NOT_NULL(out);
    if (bytes == 0)
        return GPU__INVALID("bytes is 0");
    h = gpu__object_new(&c, ctx, &host_kind, sizeof(*h));
    if (h)
        h->size = bytes;
    return GPU__OBJECT_MAKE(&c, h, out, cuMemHostAlloc, GPU_ERR_OUT_OF_MEMORY, &h->data, bytes,
                            CUABI_MEMHOSTALLOC_PORTABLE);
}

gpu_status gpu_host_buffer_register(gpu_context *ctx, void *ptr, size_t bytes, gpu_host_buffer **out)
{
    struct gpu__call c;
    gpu_host_buffer *h;
    gpu_status st;

    GPU__NOT_NULL(out);
    GPU__NOT_NULL(ptr);
    /* A range that wraps around the address space is no memory at all; the driver is not asked. */
    if (bytes > UINTPTR_MAX - (uintptr_t)ptr)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "ptr + bytes (%p + %zu) overflows", ptr, bytes);
    if (bytes == 0)
        return GPU__INVALID("bytes is 0");
    h = gpu__object_new(&c, ctx, &registered_kind, sizeof(*h));
    if (!h)
        return c.st;
    h->data = ptr;
    h->size = bytes;
    h->registered = true;
    st = GPU__INVOKE_RAW(&c, cuMemHostRegister, ptr, bytes, CUABI_MEMHOSTREGISTER_PORTABLE);
    if (st == GPU_OK)
        st = GPU__RESULT(&c, cuMemHostRegister,
                         c.rc == CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED ? GPU_ERR_INVALID_ARG : GPU_ERR_TRANSFER);
    return gpu__object_finish(&c, &h->obj, st, (void **)out);
}

void gpu_host_buffer_destroy(gpu_host_buffer *buffer)
{
    gpu__object_destroy(buffer ? &buffer->obj : NULL);
}

void *gpu_host_buffer_data(const gpu_host_buffer *buffer)
{
    return buffer ? buffer->data : NULL;
}

size_t gpu_host_buffer_size(const gpu_host_buffer *buffer)
{
    return buffer ? buffer->size : 0;
}
