/*
 * Device buffers, page-locked host buffers, and the copies between them.
 */
#include <stdlib.h>

#include "private.h"

gpu_status gpu_buffer_create(gpu_context *ctx, size_t bytes, gpu_buffer **out)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    cuabi_deviceptr ptr = 0;
    gpu_buffer *b;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_buffer_create", "out is NULL");
    if (bytes == 0)
        return GPU__INVALID("gpu_buffer_create", "bytes is 0");
    st = gpu__context_resolve(ctx, &drv, &ctx);
    if (st != GPU_OK)
        return st;
    b = calloc(1, sizeof(*b));
    if (!b)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_buffer_create: out of host memory");
    st = gpu__context_enter(drv, ctx, &scope);
    if (st == GPU_OK) {
        st = GPU__CALL(drv, cuMemAlloc, GPU_ERR_TRANSFER, &ptr, bytes);
        gpu__context_leave(&scope);
    }
    if (st != GPU_OK) {
        free(b);
        return st;
    }
    gpu__context_ref(ctx);
    b->ctx = ctx;
    b->ptr = ptr;
    b->size = bytes;
    *out = b;
    return GPU_OK;
}

void gpu_buffer_destroy(gpu_buffer *buffer)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;

    if (!buffer)
        return;
    if (gpu__release_enter(buffer->ctx, &drv, &scope)) {
        drv->cuMemFree(buffer->ptr);
        gpu__context_leave(&scope);
    }
    gpu__context_unref(buffer->ctx);
    free(buffer);
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
    return buffer ? buffer->ctx : NULL;
}

/* Checks a host copy's arguments: the buffer and host pointer exist, and the bytes fit. */
static gpu_status check_copy(const char *func, const gpu_buffer *buffer, const void *host, size_t bytes)
{
    if (!buffer)
        return GPU__INVALID(func, "buffer is NULL");
    if (!host && bytes)
        return GPU__INVALID(func, "the host pointer is NULL");
    if (bytes > buffer->size)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %zu bytes do not fit a buffer of %zu", func, bytes,
                         buffer->size);
    return GPU_OK;
}

gpu_status gpu_buffer_copy_from_host(gpu_buffer *buffer, const void *src, size_t bytes)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    gpu_status st;

    st = check_copy("gpu_buffer_copy_from_host", buffer, src, bytes);
    if (st == GPU_OK)
        st = gpu__object_enter(buffer->ctx, &drv, &scope);
    if (st != GPU_OK)
        return st;
    if (bytes)
        st = GPU__CALL(drv, cuMemcpyHtoD, GPU_ERR_TRANSFER, buffer->ptr, src, bytes);
    gpu__context_leave(&scope);
    return st;
}

gpu_status gpu_buffer_copy_to_host(const gpu_buffer *buffer, void *dst, size_t bytes)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    gpu_status st;

    st = check_copy("gpu_buffer_copy_to_host", buffer, dst, bytes);
    if (st == GPU_OK)
        st = gpu__object_enter(buffer->ctx, &drv, &scope);
    if (st != GPU_OK)
        return st;
    if (bytes)
        st = GPU__CALL(drv, cuMemcpyDtoH, GPU_ERR_TRANSFER, dst, buffer->ptr, bytes);
    gpu__context_leave(&scope);
    return st;
}

gpu_status gpu_buffer_copy_from_host_async(gpu_buffer *buffer, const void *src, size_t bytes, gpu_stream *stream)
{
    struct gpu__call c;
    cuabi_result rc = CUABI_SUCCESS;
    gpu_status st;

    st = check_copy("gpu_buffer_copy_from_host_async", buffer, src, bytes);
    if (st == GPU_OK)
        st = gpu__call_stream_for(stream, buffer->ctx, "gpu_buffer_copy_from_host_async", "the buffer", &c);
    if (st != GPU_OK)
        return st;
    if (bytes) {
        do
            rc = c.drv->cuMemcpyHtoDAsync(buffer->ptr, src, bytes, c.stream);
        while (gpu__call_retry(&c, rc, &st));
    }
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_TRANSFER, "cuMemcpyHtoDAsync");
}

gpu_status gpu_buffer_copy_to_host_async(const gpu_buffer *buffer, void *dst, size_t bytes, gpu_stream *stream)
{
    struct gpu__call c;
    cuabi_result rc = CUABI_SUCCESS;
    gpu_status st;

    st = check_copy("gpu_buffer_copy_to_host_async", buffer, dst, bytes);
    if (st == GPU_OK)
        st = gpu__call_stream_for(stream, buffer->ctx, "gpu_buffer_copy_to_host_async", "the buffer", &c);
    if (st != GPU_OK)
        return st;
    if (bytes) {
        do
            rc = c.drv->cuMemcpyDtoHAsync(dst, buffer->ptr, bytes, c.stream);
        while (gpu__call_retry(&c, rc, &st));
    }
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_TRANSFER, "cuMemcpyDtoHAsync");
}

gpu_status gpu_buffer_copy_async(gpu_buffer *dst, const gpu_buffer *src, size_t bytes, gpu_stream *stream)
{
    bool peer = dst && src && dst->ctx->cu != src->ctx->cu;
    struct gpu__call c;
    cuabi_result rc = CUABI_SUCCESS;
    gpu_status st;

    if (!dst || !src)
        return GPU__INVALID("gpu_buffer_copy_async", dst ? "src is NULL" : "dst is NULL");
    if (bytes > dst->size || bytes > src->size)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_buffer_copy_async: %zu bytes, buffers of %zu (dst) and %zu (src)",
                         bytes, dst->size, src->size);
    /* The stream runs on the destination's device; the source may be another's. */
    st = gpu__call_stream_for(stream, dst->ctx, "gpu_buffer_copy_async", "the buffer", &c);
    if (st != GPU_OK)
        return st;
    if (peer && !c.drv->cuMemcpyPeerAsync) {
        gpu__call_end(&c);
        return gpu__unsupported("cuMemcpyPeerAsync");
    }
    if (bytes) {
        do
            rc = peer ? c.drv->cuMemcpyPeerAsync(dst->ptr, dst->ctx->cu, src->ptr, src->ctx->cu, bytes, c.stream)
                      : c.drv->cuMemcpyDtoDAsync(dst->ptr, src->ptr, bytes, c.stream);
        while (gpu__call_retry(&c, rc, &st));
    }
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_TRANSFER, peer ? "cuMemcpyPeerAsync" : "cuMemcpyDtoDAsync");
}

static gpu_status host_buffer_new(gpu_context *ctx, void *ptr, size_t bytes, gpu_host_buffer **out)
{
    const char *func = ptr ? "gpu_host_buffer_register" : "gpu_host_buffer_create";
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    gpu_host_buffer *h;
    void *data = ptr;
    gpu_status st;

    if (!out)
        return GPU__INVALID(func, "out is NULL");
    if (bytes == 0)
        return GPU__INVALID(func, "bytes is 0");
    st = gpu__context_resolve(ctx, &drv, &ctx);
    if (st != GPU_OK)
        return st;
    h = calloc(1, sizeof(*h));
    if (!h)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "%s: out of host memory", func);
    st = gpu__context_enter(drv, ctx, &scope);
    if (st == GPU_OK) {
        if (ptr) {
            cuabi_result rc = drv->cuMemHostRegister(ptr, bytes, CUABI_MEMHOSTREGISTER_PORTABLE);

            st = gpu__check(rc, rc == CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED ? GPU_ERR_INVALID_ARG : GPU_ERR_TRANSFER,
                            "cuMemHostRegister");
        } else {
            st = GPU__CALL(drv, cuMemHostAlloc, GPU_ERR_OUT_OF_MEMORY, &data, bytes, CUABI_MEMHOSTALLOC_PORTABLE);
        }
        gpu__context_leave(&scope);
    }
    if (st != GPU_OK) {
        free(h);
        return st;
    }
    gpu__context_ref(ctx);
    h->ctx = ctx;
    h->data = data;
    h->size = bytes;
    h->registered = ptr != NULL;
    *out = h;
    return GPU_OK;
}

gpu_status gpu_host_buffer_create(gpu_context *ctx, size_t bytes, gpu_host_buffer **out)
{
    return host_buffer_new(ctx, NULL, bytes, out);
}

gpu_status gpu_host_buffer_register(gpu_context *ctx, void *ptr, size_t bytes, gpu_host_buffer **out)
{
    if (!ptr)
        return GPU__INVALID("gpu_host_buffer_register", "ptr is NULL");
    /* A range that wraps around the address space is no memory at all; the driver is not asked. */
    if (bytes > UINTPTR_MAX - (uintptr_t)ptr)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_host_buffer_register: ptr + bytes (%p + %zu) overflows",
                         ptr, bytes);
    return host_buffer_new(ctx, ptr, bytes, out);
}

void gpu_host_buffer_destroy(gpu_host_buffer *buffer)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;

    if (!buffer)
        return;
    if (gpu__release_enter(buffer->ctx, &drv, &scope)) {
        if (buffer->registered)
            drv->cuMemHostUnregister(buffer->data);
        else
            drv->cuMemFreeHost(buffer->data);
        gpu__context_leave(&scope);
    }
    gpu__context_unref(buffer->ctx);
    free(buffer);
}

void *gpu_host_buffer_data(const gpu_host_buffer *buffer)
{
    return buffer ? buffer->data : NULL;
}

size_t gpu_host_buffer_size(const gpu_host_buffer *buffer)
{
    return buffer ? buffer->size : 0;
}
