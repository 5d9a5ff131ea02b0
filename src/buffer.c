/* SPDX-License-Identifier: MIT */
/*
 * Buffers: device memory, page-locked host memory and the copies between
 * them; stream-ordered allocation and the device's pool, what a foreign
 * pointer is and views over it, memory info, managed memory, and buffers
 * shared between processes.
 *
 * Every buffer is a struct gpu_buffer; what differs is its kind, which says
 * how it is released: cuMemFree for managed memory, nothing for a view,
 * cuIpcCloseMemHandle for another process's buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "object.h"

static GPU__RELEASE(buffer_release, gpu_buffer, cuMemFree, ptr)

static const struct gpu__kind buffer_kind = GPU__KIND(cuMemAlloc, cuMemFree, buffer_release, NULL);

gpu_buffer *gpu__buffer_begin(struct gpu__call *c, gpu_context *ctx, const struct gpu__kind *kind, size_t bytes,
                              gpu_buffer **out, const char *func)
{
    gpu_buffer *b;

    if (!out || bytes == 0) {
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s", func, out ? "bytes is 0" : "out is NULL");
        return NULL;
    }
    b = gpu__object_new(c, ctx, kind, sizeof(*b), func);
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

uint64_t gpu_buffer_get_device_ptr(const gpu_buffer *buffer)
{
    return buffer ? (uint64_t)buffer->ptr : 0;
}

size_t gpu_buffer_get_size(const gpu_buffer *buffer)
{
    return buffer ? buffer->size : 0;
}

gpu_context *gpu_buffer_get_context(const gpu_buffer *buffer)
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

/*
 * Opens a synchronous copy: copy_open(), then, when it moves bytes, the
 * bracket of a legacy-stream operation (gpu__call_legacy()). False: c->st is
 * the copy's status, and the call is ended (a copy of no bytes succeeds so).
 */
static bool sync_copy_open(struct gpu__call *c, const gpu_buffer *buffer, const void *host, size_t bytes,
                           const char *func)
{
    if (!copy_open(c, buffer, host, bytes, false, NULL, func))
        return false;
    if (bytes)
        return gpu__call_legacy(c, func);
    c->st = gpu__call_end(c, GPU_OK);
    return false;
}

gpu_status gpu_buffer_copy_from_host(gpu_buffer *buffer, const void *src, size_t bytes)
{
    struct gpu__call c;

    if (!sync_copy_open(&c, buffer, src, bytes, __func__))
        return c.st;
    return gpu__legacy_leave(GPU__INVOKE_END(&c, cuMemcpyHtoD, GPU_ERR_TRANSFER, buffer->ptr, src, bytes));
}

gpu_status gpu_buffer_copy_to_host(const gpu_buffer *buffer, void *dst, size_t bytes)
{
    struct gpu__call c;

    if (!sync_copy_open(&c, buffer, dst, bytes, __func__))
        return c.st;
    return gpu__legacy_leave(GPU__INVOKE_END(&c, cuMemcpyDtoH, GPU_ERR_TRANSFER, dst, buffer->ptr, bytes));
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
    if (!gpu__call_legacy(&c, func))
        return c.st;
    if (element_size == 1)
        return gpu__legacy_leave(GPU__INVOKE_END(&c, cuMemsetD8, GPU_ERR_TRANSFER, p, (unsigned char)value, count));
    if (element_size == 2)
        return gpu__legacy_leave(GPU__INVOKE_END(&c, cuMemsetD16, GPU_ERR_TRANSFER, p, (unsigned short)value, count));
    return gpu__legacy_leave(GPU__INVOKE_END(&c, cuMemsetD32, GPU_ERR_TRANSFER, p, value, count));
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
    h = gpu__object_new(&c, ctx, &host_kind, sizeof(*h), __func__);
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
    h = gpu__object_new(&c, ctx, &registered_kind, sizeof(*h), __func__);
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

void *gpu_host_buffer_get_data(const gpu_host_buffer *buffer)
{
    return buffer ? buffer->data : NULL;
}

size_t gpu_host_buffer_get_size(const gpu_host_buffer *buffer)
{
    return buffer ? buffer->size : 0;
}

/* ---- Stream-ordered allocation, the pool, foreign pointers and views, managed memory, IPC ---- */

static cuabi_result view_release(const struct gpu__driver *drv, struct gpu__object *obj)
{
    (void)drv;
    (void)obj;
    return CUABI_SUCCESS;
}

static GPU__RELEASE(ipc_close, gpu_buffer, cuIpcCloseMemHandle, ptr)

/* cuMemFree frees stream-ordered memory too, after waiting for the device. */
static const struct gpu__kind async_kind = GPU__KIND(cuMemAllocAsync, cuMemFree, buffer_release, NULL);
static const struct gpu__kind managed_kind = GPU__KIND(cuMemAllocManaged, cuMemFree, buffer_release, NULL);
/* A view releases nothing; its "release entry" is the one it was checked with. */
static const struct gpu__kind view_kind = GPU__KIND(cuMemGetAddressRange, cuMemGetAddressRange, view_release, NULL);
static const struct gpu__kind ipc_kind = GPU__KIND(cuIpcOpenMemHandle, cuIpcCloseMemHandle, ipc_close, NULL);

_Static_assert(sizeof(((gpu_ipc_handle *)0)->cuda) == sizeof(cuabi_ipc_mem_handle), "the handle's size");

/* ---- Stream-ordered allocation ---- */

gpu_status gpu_buffer_create_async(gpu_stream *stream, size_t bytes, gpu_buffer **out)
{
    struct gpu__call c;
    gpu_buffer *b = gpu__buffer_begin(&c, stream ? stream->obj.ctx : NULL, &async_kind, bytes, out, __func__);

    return GPU__OBJECT_MAKE(&c, b, out, cuMemAllocAsync, GPU_ERR_TRANSFER, &b->ptr, bytes, stream ? stream->cu : NULL);
}

gpu_status gpu_buffer_destroy_async(gpu_buffer *buffer, gpu_stream *stream)
{
    struct gpu__call c;
    gpu_status st;

    GPU__NOT_NULL(buffer);
    if (buffer->obj.kind != &async_kind)
        return GPU__INVALID("the buffer is not from gpu_buffer_create_async()");
    if (!gpu__call_stream_for(&c, stream, buffer->obj.ctx, __func__, "the buffer", NULL)) {
        st = c.st;
    } else {
        st = GPU__INVOKE(&c, cuMemFreeAsync, GPU_ERR_TRANSFER, buffer->ptr, c.stream);
        if (st == GPU_OK) {
            /*
             * The free was the release: only the host object is left. A
             * failure to restore the caller's context is still reported.
             */
            st = gpu__call_end(&c, GPU_OK);
            gpu__context_unref(buffer->obj.ctx);
            free(buffer);
            return st;
        }
        st = gpu__call_end(&c, st);
    }
    /* Not freed on the stream: freed now, so that the buffer is gone either way; the status says why. */
    gpu_buffer_destroy(buffer);
    return st;
}

/* The default pool of ctx's device, in an open call with no context needed. */
static gpu_status pool_open(struct gpu__call *c, gpu_context *ctx, cuabi_mem_pool *pool)
{
    gpu_status st = gpu__context_resolve(ctx, &c->drv, &ctx);

    if (st != GPU_OK)
        return st;
    return GPU__DRIVER_CALL(c, cuDeviceGetDefaultMemPool, GPU_ERR_DRIVER, pool, ctx->device);
}

gpu_status gpu_context_pool_set_release_threshold(gpu_context *ctx, uint64_t bytes)
{
    struct gpu__call c;
    cuabi_mem_pool pool;
    cuabi_uint64 value = bytes;
    gpu_status st = pool_open(&c, ctx, &pool);

    return st != GPU_OK ? st
                        : GPU__INVOKE(&c, cuMemPoolSetAttribute, GPU_ERR_DRIVER, pool,
                                      CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD, &value);
}

gpu_status gpu_context_pool_get_release_threshold(gpu_context *ctx, uint64_t *bytes)
{
    struct gpu__call c;
    cuabi_mem_pool pool;
    cuabi_uint64 value = 0;
    gpu_status st;

    GPU__NOT_NULL(bytes);
    st = pool_open(&c, ctx, &pool);
    if (st == GPU_OK)
        st = GPU__INVOKE(&c, cuMemPoolGetAttribute, GPU_ERR_DRIVER, pool, CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                         &value);
    if (st == GPU_OK)
        *bytes = value;
    return st;
}

gpu_status gpu_context_pool_trim(gpu_context *ctx, size_t keep_bytes)
{
    struct gpu__call c;
    cuabi_mem_pool pool;
    gpu_status st = pool_open(&c, ctx, &pool);

    return st != GPU_OK ? st : GPU__INVOKE(&c, cuMemPoolTrimTo, GPU_ERR_DRIVER, pool, keep_bytes);
}

gpu_status gpu_context_pool_get_usage(gpu_context *ctx, uint64_t *reserved, uint64_t *used)
{
    struct gpu__call c;
    cuabi_mem_pool pool;
    cuabi_uint64 r = 0, u = 0;
    gpu_status st = pool_open(&c, ctx, &pool);

    if (st == GPU_OK && reserved)
        st = GPU__INVOKE(&c, cuMemPoolGetAttribute, GPU_ERR_DRIVER, pool, CUABI_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &r);
    if (st == GPU_OK && used)
        st = GPU__INVOKE(&c, cuMemPoolGetAttribute, GPU_ERR_DRIVER, pool, CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT, &u);
    if (st != GPU_OK)
        return st;
    if (reserved)
        *reserved = r;
    if (used)
        *used = u;
    return GPU_OK;
}

/* ---- Memory info ---- */

gpu_status gpu_context_get_memory_info(gpu_context *ctx, size_t *free_bytes, size_t *total_bytes)
{
    struct gpu__call c;
    size_t free_v = 0, total_v = 0;
    gpu_status st;

    GPU__NOT_NULL(free_bytes, total_bytes);
    st = GPU__OBJECT_CALL(&c, ctx, cuMemGetInfo, GPU_ERR_DRIVER, &free_v, &total_v);
    if (st == GPU_OK) {
        *free_bytes = free_v;
        *total_bytes = total_v;
    }
    return st;
}

/* ---- Foreign pointers ---- */

gpu_status gpu_pointer_get_info(uint64_t ptr, gpu_pointer_info *out)
{
    cuabi_pointer_attribute attrs[] = {CUABI_POINTER_ATTRIBUTE_MEMORY_TYPE, CUABI_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                       CUABI_POINTER_ATTRIBUTE_IS_MANAGED, CUABI_POINTER_ATTRIBUTE_CONTEXT,
                                       CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR, CUABI_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned type = 0;
    int device = -2;
    /* CU_POINTER_ATTRIBUTE_IS_MANAGED is a bool-sized value: read into a zeroed word. */
    unsigned managed = 0;
    cuabi_context cu = NULL;
    cuabi_deviceptr base = 0;
    size_t size = 0;
    void *data[] = {&type, &device, &managed, &cu, &base, &size};
    struct gpu__call c;
    gpu_status st;

    GPU__NOT_NULL(out);
    st = GPU__DRIVER_CALL(&c, cuPointerGetAttributes, GPU_ERR_DRIVER, (unsigned)(sizeof(attrs) / sizeof(attrs[0])),
                          attrs, data, ptr);
    if (st != GPU_OK)
        return st;
    out->type = type <= CUABI_MEMORYTYPE_UNIFIED ? (gpu_memory_type)type : GPU_MEMORY_UNKNOWN;
    out->device = out->type == GPU_MEMORY_UNKNOWN || device < 0 ? -1 : device;
    out->managed = (managed & 0xffu) != 0;
    out->context = (void *)cu;
    out->base = out->type == GPU_MEMORY_UNKNOWN ? 0 : base;
    out->size = out->type == GPU_MEMORY_UNKNOWN ? 0 : size;
    return GPU_OK;
}

gpu_status gpu_buffer_wrap(gpu_context *ctx, uint64_t ptr, size_t bytes, gpu_buffer **out)
{
    cuabi_deviceptr base = 0;
    size_t size = 0;
    struct gpu__call c;
    gpu_buffer *b;
    gpu_status st;

    GPU__NOT_NULL(out);
    if (!ptr || !bytes)
        return GPU__INVALID(ptr ? "bytes is 0" : "ptr is 0");
    b = gpu__object_new(&c, ctx, &view_kind, sizeof(*b), __func__);
    if (!b)
        return c.st;
    st = GPU__INVOKE_RAW(&c, cuMemGetAddressRange, &base, &size, ptr);
    if (st == GPU_OK)
        st = GPU__RESULT(&c, cuMemGetAddressRange,
                         c.rc == CUABI_ERROR_NOT_FOUND || c.rc == CUABI_ERROR_INVALID_VALUE ? GPU_ERR_INVALID_ARG
                                                                                             : GPU_ERR_DRIVER);
    if (st == GPU_OK && bytes > size - (ptr - base))
        st = GPU__FAIL(GPU_ERR_INVALID_ARG, "%zu bytes from 0x%llx pass the end of its allocation (0x%llx, %zu bytes)",
                       bytes, (unsigned long long)ptr, (unsigned long long)base, size);
    b->ptr = ptr;
    b->size = bytes;
    return gpu__object_finish(&c, &b->obj, st, (void **)out);
}

bool gpu_buffer_is_owner(const gpu_buffer *buffer)
{
    return buffer && buffer->obj.kind != &view_kind;
}

/* ---- Managed memory ---- */

gpu_status gpu_buffer_create_managed(gpu_context *ctx, size_t bytes, gpu_buffer **out)
{
    struct gpu__call c;
    gpu_buffer *b = gpu__buffer_begin(&c, ctx, &managed_kind, bytes, out, __func__);

    return GPU__OBJECT_MAKE(&c, b, out, cuMemAllocManaged, GPU_ERR_TRANSFER, &b->ptr, bytes, CUABI_MEM_ATTACH_GLOBAL);
}

void *gpu_buffer_get_managed_data(const gpu_buffer *buffer)
{
    return buffer && buffer->obj.kind == &managed_kind ? (void *)(uintptr_t)buffer->ptr : NULL;
}

/* The CUdevice a location means for a managed buffer; false: the arguments are wrong (c->st says why). */
static bool managed_target(struct gpu__call *c, const gpu_buffer *buffer, gpu_memory_location where,
                           cuabi_device *dev, const char *func)
{
    if (!buffer)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: buffer is NULL", func);
    else if (buffer->obj.kind != &managed_kind)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: the buffer is not from gpu_buffer_create_managed()", func);
    else if (where != GPU_LOCATION_DEVICE && where != GPU_LOCATION_HOST)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: unknown location %d", func, (int)where);
    else {
        *dev = where == GPU_LOCATION_HOST ? CUABI_DEVICE_CPU : buffer->obj.ctx->device;
        return true;
    }
    return false;
}

gpu_status gpu_buffer_prefetch_async(gpu_buffer *buffer, gpu_memory_location where, gpu_stream *stream)
{
    struct gpu__call c;
    cuabi_device dev;

    if (!managed_target(&c, buffer, where, &dev, __func__))
        return c.st;
    return GPU__STREAM_CALL_FOR(&c, stream, buffer->obj.ctx, "the buffer", cuMemPrefetchAsync, GPU_ERR_TRANSFER,
                                buffer->ptr, buffer->size, dev, c.stream);
}

gpu_status gpu_buffer_advise(gpu_buffer *buffer, gpu_memory_advice advice, gpu_memory_location where)
{
    struct gpu__call c;
    cuabi_device dev;

    if (advice < GPU_ADVISE_SET_READ_MOSTLY || advice > GPU_ADVISE_UNSET_ACCESSED_BY)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "unknown advice %d", (int)advice);
    if (!managed_target(&c, buffer, where, &dev, __func__))
        return c.st;
    return GPU__OBJECT_CALL(&c, buffer->obj.ctx, cuMemAdvise, GPU_ERR_TRANSFER, buffer->ptr, buffer->size,
                            (cuabi_mem_advise)advice, dev);
}

/* ---- Buffers shared between processes ---- */

gpu_status gpu_buffer_get_ipc_handle(const gpu_buffer *buffer, gpu_ipc_handle *out)
{
    struct gpu__call c;
    cuabi_ipc_mem_handle h = {0};
    gpu_status st;

    GPU__NOT_NULL(buffer, out);
    if (buffer->obj.kind == &view_kind || buffer->obj.kind == &ipc_kind || buffer->obj.kind == &managed_kind ||
        buffer->obj.kind == &async_kind)
        return GPU__INVALID("only memory from gpu_buffer_create() can be exported");
    st = GPU__OBJECT_CALL(&c, buffer->obj.ctx, cuIpcGetMemHandle, GPU_ERR_DRIVER, &h, buffer->ptr);
    if (st == GPU_OK) {
        memcpy(out->cuda, &h, sizeof(h));
        out->size = buffer->size;
    }
    return st;
}

gpu_status gpu_buffer_open_ipc(gpu_context *ctx, const gpu_ipc_handle *handle, gpu_buffer **out)
{
    cuabi_ipc_mem_handle h;
    cuabi_deviceptr base = 0;
    size_t size = 0;
    struct gpu__call c;
    gpu_buffer *b;
    gpu_status st;

    GPU__NOT_NULL(handle, out);
    if (handle->size == 0 || handle->size > SIZE_MAX)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "the handle's size (%llu) is not a buffer's",
                         (unsigned long long)handle->size);
    memcpy(&h, handle->cuda, sizeof(h));
    b = gpu__buffer_begin(&c, ctx, &ipc_kind, (size_t)handle->size, out, __func__);
    if (!b)
        return c.st;
    st = GPU__INVOKE(&c, cuIpcOpenMemHandle, GPU_ERR_DRIVER, &b->ptr, h, CUABI_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (st != GPU_OK)
        return gpu__object_finish(&c, &b->obj, st, (void **)out);
    /*
     * The size in the handle is the other process's word; the allocation's
     * is the driver's. Every bounds check gpushim makes on the buffer uses
     * its size, so a claim beyond the allocation is refused, and the mapping
     * closed again.
     */
    st = GPU__INVOKE(&c, cuMemGetAddressRange, GPU_ERR_DRIVER, &base, &size, b->ptr);
    if (st == GPU_OK && handle->size > size - (b->ptr - base))
        st = GPU__FAIL(GPU_ERR_INVALID_ARG,
                       "the handle claims %llu bytes, but the allocation it opens holds %zu: not opened",
                       (unsigned long long)handle->size, size - (size_t)(b->ptr - base));
    if (st != GPU_OK)
        (void)GPU__INVOKE_RAW(&c, cuIpcCloseMemHandle, b->ptr);
    return gpu__object_finish(&c, &b->obj, st, (void **)out);
}
