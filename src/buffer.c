/*
 * Device buffers, page-locked host buffers, and the copies between them.
 */
#include "object.h"

static cuabi_result buffer_release(const struct gpu__driver *drv, struct gpu__object *obj)
{
    return drv->cuMemFree(((gpu_buffer *)obj)->ptr);
}

static const struct gpu__kind buffer_kind = GPU__KIND(cuMemAlloc, cuMemFree, buffer_release, NULL);

gpu_status gpu_buffer_create(gpu_context *ctx, size_t bytes, gpu_buffer **out)
{
    struct gpu__call c;
    gpu_buffer *b;
    gpu_status st;

    if (!out)
        return GPU__INVALID("out is NULL");
    if (bytes == 0)
        return GPU__INVALID("bytes is 0");
    b = gpu__object_new(&c, ctx, &buffer_kind, sizeof(*b));
    st = b ? GPU__INVOKE(&c, cuMemAlloc, GPU_ERR_TRANSFER, &b->ptr, bytes) : c.st;
    if (b)
        b->size = bytes;
    return gpu__object_finish(&c, b ? &b->obj : NULL, st, (void **)out);
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

gpu_status gpu_buffer_copy_from_host(gpu_buffer *buffer, const void *src, size_t bytes)
{
    struct gpu__call c;

    if (!copy_open(&c, buffer, src, bytes, false, NULL, __func__))
        return c.st;
    return COPY(&c, bytes, cuMemcpyHtoD, buffer->ptr, src, bytes);
}

gpu_status gpu_buffer_copy_to_host(const gpu_buffer *buffer, void *dst, size_t bytes)
{
    struct gpu__call c;

    if (!copy_open(&c, buffer, dst, bytes, false, NULL, __func__))
        return c.st;
    return COPY(&c, bytes, cuMemcpyDtoH, dst, buffer->ptr, bytes);
}

gpu_status gpu_buffer_copy_from_host_async(gpu_buffer *buffer, const void *src, size_t bytes, gpu_stream *stream)
{
    struct gpu__call c;

    if (!copy_open(&c, buffer, src, bytes, true, stream, __func__))
        return c.st;
    return COPY(&c, bytes, cuMemcpyHtoDAsync, buffer->ptr, src, bytes, c.stream);
}

gpu_status gpu_buffer_copy_to_host_async(const gpu_buffer *buffer, void *dst, size_t bytes, gpu_stream *stream)
{
    struct gpu__call c;

    if (!copy_open(&c, buffer, dst, bytes, true, stream, __func__))
        return c.st;
    return COPY(&c, bytes, cuMemcpyDtoHAsync, dst, buffer->ptr, bytes, c.stream);
}

gpu_status gpu_buffer_copy_async(gpu_buffer *dst, const gpu_buffer *src, size_t bytes, gpu_stream *stream)
{
    struct gpu__call c;

    if (!dst || !src)
        return GPU__INVALID(dst ? "src is NULL" : "dst is NULL");
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

static cuabi_result host_free(const struct gpu__driver *drv, struct gpu__object *obj)
{
    return drv->cuMemFreeHost(((gpu_host_buffer *)obj)->data);
}

static cuabi_result host_unregister(const struct gpu__driver *drv, struct gpu__object *obj)
{
    return drv->cuMemHostUnregister(((gpu_host_buffer *)obj)->data);
}

static const struct gpu__kind host_kind = GPU__KIND(cuMemHostAlloc, cuMemFreeHost, host_free, NULL);
static const struct gpu__kind registered_kind =
    GPU__KIND(cuMemHostRegister, cuMemHostUnregister, host_unregister, NULL);

gpu_status gpu_host_buffer_create(gpu_context *ctx, size_t bytes, gpu_host_buffer **out)
{
    struct gpu__call c;
    gpu_host_buffer *h;
    gpu_status st;

    if (!out)
        return GPU__INVALID("out is NULL");
    if (bytes == 0)
        return GPU__INVALID("bytes is 0");
    h = gpu__object_new(&c, ctx, &host_kind, sizeof(*h));
    st = h ? GPU__INVOKE(&c, cuMemHostAlloc, GPU_ERR_OUT_OF_MEMORY, &h->data, bytes, CUABI_MEMHOSTALLOC_PORTABLE)
           : c.st;
    if (h)
        h->size = bytes;
    return gpu__object_finish(&c, h ? &h->obj : NULL, st, (void **)out);
}

gpu_status gpu_host_buffer_register(gpu_context *ctx, void *ptr, size_t bytes, gpu_host_buffer **out)
{
    struct gpu__call c;
    gpu_host_buffer *h;
    gpu_status st;

    if (!out)
        return GPU__INVALID("out is NULL");
    if (!ptr)
        return GPU__INVALID("ptr is NULL");
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
