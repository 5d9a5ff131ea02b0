/* SPDX-License-Identifier: MIT */
/*
 * Memory beyond plain buffers: stream-ordered allocation and the
 * device's pool, what a foreign pointer is and views over it, memory info,
 * managed memory, and buffers shared between processes.
 *
 * Every buffer is a struct gpu_buffer; what differs is its kind, which says
 * how it is released: cuMemFree for managed memory, nothing for a view,
 * cuIpcCloseMemHandle for another process's buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "object.h"

static cuabi_result view_release(const struct gpu__driver *drv, struct gpu__object *obj)
{
    (void)drv;
    (void)obj;
    return CUABI_SUCCESS;
}

static GPU__RELEASE(ipc_close, gpu_buffer, cuIpcCloseMemHandle, ptr)

/* cuMemFree frees stream-ordered memory too, after waiting for the device. */
static const struct gpu__kind async_kind = GPU__KIND(cuMemAllocAsync, cuMemFree, gpu__buffer_release, NULL);
static const struct gpu__kind managed_kind = GPU__KIND(cuMemAllocManaged, cuMemFree, gpu__buffer_release, NULL);
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

gpu_status gpu_buffer_free_async(gpu_buffer *buffer, gpu_stream *stream)
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

gpu_status gpu_context_pool_release_threshold(gpu_context *ctx, uint64_t *bytes)
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

gpu_status gpu_context_pool_usage(gpu_context *ctx, uint64_t *reserved, uint64_t *used)
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

gpu_status gpu_context_memory_info(gpu_context *ctx, size_t *free_bytes, size_t *total_bytes)
{
    GPU__NOT_NULL(free_bytes, total_bytes);
    return GPU__OBJECT_GET2(ctx, cuMemGetInfo, GPU_ERR_DRIVER, free_bytes, total_bytes);
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
    b = gpu__object_new(&c, ctx, &view_kind, sizeof(*b));
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

void *gpu_buffer_managed_data(const gpu_buffer *buffer)
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

gpu_status gpu_buffer_ipc_handle(const gpu_buffer *buffer, gpu_ipc_handle *out)
{
    gpu_status st;

    GPU__NOT_NULL(buffer, out);
    if (buffer->obj.kind == &view_kind || buffer->obj.kind == &ipc_kind || buffer->obj.kind == &managed_kind ||
        buffer->obj.kind == &async_kind)
        return GPU__INVALID("only memory from gpu_buffer_create() can be exported");
    st = GPU__OBJECT_GET(buffer->obj.ctx, cuIpcGetMemHandle, GPU_ERR_DRIVER,
                         (cuabi_ipc_mem_handle *)(void *)out->cuda, buffer->ptr);
    if (st == GPU_OK)
        out->size = buffer->size;
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
