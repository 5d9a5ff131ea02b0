/* SPDX-License-Identifier: MIT */
/*
 * Memory: device, page-locked and managed allocations, copies and fills, and
 * copies to and from the variables nvcc registered (symbols).
 */
#include "runtime.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static CUdeviceptr dptr(const void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    CUdeviceptr p = 0;
    cudaError_t e = gpu__cudart_context();

    if (!devPtr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    /* Zero bytes is no allocation and no error: NULL, which cudaFree takes. */
    if (e == cudaSuccess && size)
        e = gpu__cudart_map(cuMemAlloc(&p, size));
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)p;
    return gpu__cudart_set(e);
}

cudaError_t cudaFree(void *devPtr)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && devPtr)
        e = gpu__cudart_map(cuMemFree(dptr(devPtr)));
    return gpu__cudart_set(e);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    cudaError_t e = gpu__cudart_context();

    if (!ptr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemAllocHost(ptr, size));
    return gpu__cudart_set(e);
}

/* cudaHostAllocPortable, Mapped and WriteCombined are CU_MEMHOSTALLOC_PORTABLE, DEVICEMAP and WRITECOMBINED. */
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    cudaError_t e = gpu__cudart_context();

    if (!pHost)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemHostAlloc(pHost, size, flags));
    return gpu__cudart_set(e);
}

cudaError_t cudaFreeHost(void *ptr)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && ptr)
        e = gpu__cudart_map(cuMemFreeHost(ptr));
    return gpu__cudart_set(e);
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    CUdeviceptr p = 0;
    cudaError_t e = gpu__cudart_context();

    if (!pDevice)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemHostGetDevicePointer(&p, pHost, flags));
    if (e == cudaSuccess)
        *pDevice = (void *)(uintptr_t)p;
    return gpu__cudart_set(e);
}

/* cudaMemAttachGlobal and cudaMemAttachHost are CU_MEM_ATTACH_GLOBAL and CU_MEM_ATTACH_HOST. */
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    CUdeviceptr p = 0;
    cudaError_t e = gpu__cudart_context();

    if (!devPtr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemAllocManaged(&p, size, flags));
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)p;
    return gpu__cudart_set(e);
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    cudaError_t e = gpu__cudart_context();

    if (!free || !total)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemGetInfo(free, total));
    return gpu__cudart_set(e);
}

/*
 * One copy of `count` bytes, `kind` saying which side each pointer is on
 * (cudaMemcpyDefault: the driver tells, by unified addressing); on `stream`
 * when `async`.
 */
cudaError_t gpu__cudart_copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, bool async,
                        CUstream stream)
{
    cudaError_t e = gpu__cudart_context();

    if (e != cudaSuccess || count == 0)
        return e;
    switch (kind) {
    case cudaMemcpyHostToHost:
        /* Ordered after the stream's work, as the runtime documents for host-to-host copies. */
        if (async)
            e = gpu__cudart_map(cuStreamSynchronize(stream));
        if (e == cudaSuccess)
            memmove(dst, src, count);
        return e;
    case cudaMemcpyHostToDevice:
        return gpu__cudart_map(async ? cuMemcpyHtoDAsync(dptr(dst), src, count, stream)
                                 : cuMemcpyHtoD(dptr(dst), src, count));
    case cudaMemcpyDeviceToHost:
        return gpu__cudart_map(async ? cuMemcpyDtoHAsync(dst, dptr(src), count, stream)
                                 : cuMemcpyDtoH(dst, dptr(src), count));
    case cudaMemcpyDeviceToDevice:
        return gpu__cudart_map(async ? cuMemcpyDtoDAsync(dptr(dst), dptr(src), count, stream)
                                 : cuMemcpyDtoD(dptr(dst), dptr(src), count));
    case cudaMemcpyDefault:
        return gpu__cudart_map(async ? cuMemcpyAsync(dptr(dst), dptr(src), count, stream)
                                 : cuMemcpy(dptr(dst), dptr(src), count));
    default:
        return cudaErrorInvalidMemcpyDirection;
    }
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return gpu__cudart_set(gpu__cudart_copy(dst, src, count, kind, false, NULL));
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return gpu__cudart_set(gpu__cudart_copy(dst, src, count, kind, true, gpu__cudart_stream(stream, false)));
}

cudaError_t gpu__cudart_fill(void *devPtr, int value, size_t count, bool async, CUstream stream)
{
    cudaError_t e = gpu__cudart_context();

    if (e != cudaSuccess || count == 0)
        return e;
    return gpu__cudart_map(async ? cuMemsetD8Async(dptr(devPtr), (unsigned char)value, count, stream)
                             : cuMemsetD8(dptr(devPtr), (unsigned char)value, count));
}

static cudaError_t fill_2d(void *devPtr, size_t pitch, int value, size_t width, size_t height, bool async,
                           CUstream stream)
{
    cudaError_t e = gpu__cudart_context();

    if (e != cudaSuccess || width == 0 || height == 0)
        return e;
    return gpu__cudart_map(async ? cuMemsetD2D8Async(dptr(devPtr), pitch, (unsigned char)value, width, height, stream)
                                 : cuMemsetD2D8(dptr(devPtr), pitch, (unsigned char)value, width, height));
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return gpu__cudart_set(fill_2d(devPtr, pitch, value, width, height, false, NULL));
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream)
{
    return gpu__cudart_set(fill_2d(devPtr, pitch, value, width, height, true, gpu__cudart_stream(stream, false)));
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    return gpu__cudart_set(gpu__cudart_fill(devPtr, value, count, false, NULL));
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return gpu__cudart_set(gpu__cudart_fill(devPtr, value, count, true, gpu__cudart_stream(stream, false)));
}

/* The device address of `offset` bytes into a registered variable, `count` bytes of it in bounds. */
static cudaError_t symbol_at(const void *symbol, size_t count, size_t offset, void **out)
{
    CUdeviceptr address = 0;
    size_t size = 0;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_symbol(symbol, &address, &size);
    if (e == cudaSuccess && (offset > size || count > size - offset))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        *out = (void *)(uintptr_t)(address + offset);
    return e;
}

/* A symbol copy takes only the directions with the symbol on its side. */
static bool symbol_kind(enum cudaMemcpyKind kind, enum cudaMemcpyKind host_side)
{
    return kind == host_side || kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault;
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    void *dst = NULL;
    cudaError_t e = symbol_kind(kind, cudaMemcpyHostToDevice) ? symbol_at(symbol, count, offset, &dst)
                                                              : cudaErrorInvalidMemcpyDirection;

    if (e == cudaSuccess)
        e = gpu__cudart_copy(dst, src, count, kind, false, NULL);
    return gpu__cudart_set(e);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    void *src = NULL;
    cudaError_t e = symbol_kind(kind, cudaMemcpyDeviceToHost) ? symbol_at(symbol, count, offset, &src)
                                                              : cudaErrorInvalidMemcpyDirection;

    if (e == cudaSuccess)
        e = gpu__cudart_copy(dst, src, count, kind, false, NULL);
    return gpu__cudart_set(e);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream)
{
    void *dst = NULL;
    cudaError_t e = symbol_kind(kind, cudaMemcpyHostToDevice) ? symbol_at(symbol, count, offset, &dst)
                                                              : cudaErrorInvalidMemcpyDirection;

    if (e == cudaSuccess)
        e = gpu__cudart_copy(dst, src, count, kind, true, gpu__cudart_stream(stream, false));
    return gpu__cudart_set(e);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    void *src = NULL;
    cudaError_t e = symbol_kind(kind, cudaMemcpyDeviceToHost) ? symbol_at(symbol, count, offset, &src)
                                                              : cudaErrorInvalidMemcpyDirection;

    if (e == cudaSuccess)
        e = gpu__cudart_copy(dst, src, count, kind, true, gpu__cudart_stream(stream, false));
    return gpu__cudart_set(e);
}

/* A description of an array's channels: pure data, no driver involved. */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f)
{
    return (struct cudaChannelFormatDesc){.x = x, .y = y, .z = z, .w = w, .f = f};
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    CUdeviceptr p = 0;
    cudaError_t e = gpu__cudart_context();

    if (!devPtr || !pitch)
        return gpu__cudart_set(cudaErrorInvalidValue);
    /* 16 bytes: the widest element the driver's pitch is chosen for. */
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemAllocPitch(&p, pitch, width, height, 16));
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)p;
    return gpu__cudart_set(e);
}

bool gpu__cudart_copy_sides(enum cudaMemcpyKind kind, CUmemorytype *src, CUmemorytype *dst)
{
    switch (kind) {
    case cudaMemcpyHostToHost:
        *src = *dst = CU_MEMORYTYPE_HOST;
        return true;
    case cudaMemcpyHostToDevice:
        *src = CU_MEMORYTYPE_HOST;
        *dst = CU_MEMORYTYPE_DEVICE;
        return true;
    case cudaMemcpyDeviceToHost:
        *src = CU_MEMORYTYPE_DEVICE;
        *dst = CU_MEMORYTYPE_HOST;
        return true;
    case cudaMemcpyDeviceToDevice:
        *src = *dst = CU_MEMORYTYPE_DEVICE;
        return true;
    case cudaMemcpyDefault:
        *src = *dst = CU_MEMORYTYPE_UNIFIED;
        return true;
    default:
        return false;
    }
}

static void set_side(CUmemorytype type, const void *p, size_t pitch, CUmemorytype *t, const void **host,
                     CUdeviceptr *device, size_t *out_pitch)
{
    *t = type;
    if (type == CU_MEMORYTYPE_HOST)
        *host = p;
    else
        *device = dptr(p);
    *out_pitch = pitch;
}

static cudaError_t copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                           enum cudaMemcpyKind kind, bool async, CUstream stream)
{
    CUDA_MEMCPY2D c = {0};
    CUmemorytype st, dt;
    const void *dst_host = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e != cudaSuccess)
        return e;
    if (!gpu__cudart_copy_sides(kind, &st, &dt))
        return cudaErrorInvalidMemcpyDirection;
    if (width == 0 || height == 0)
        return cudaSuccess;
    set_side(st, src, spitch, &c.srcMemoryType, &c.srcHost, &c.srcDevice, &c.srcPitch);
    set_side(dt, dst, dpitch, &c.dstMemoryType, &dst_host, &c.dstDevice, &c.dstPitch);
    c.dstHost = (void *)(uintptr_t)dst_host;
    c.WidthInBytes = width;
    c.Height = height;
    return gpu__cudart_map(async ? cuMemcpy2DAsync(&c, stream) : cuMemcpy2DUnaligned(&c));
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind)
{
    return gpu__cudart_set(copy_2d(dst, dpitch, src, spitch, width, height, kind, false, NULL));
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return gpu__cudart_set(
        copy_2d(dst, dpitch, src, spitch, width, height, kind, true, gpu__cudart_stream(stream, false)));
}

/* cudaHostRegisterPortable, Mapped, IoMemory and ReadOnly are CU_MEMHOSTREGISTER_'s. */
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemHostRegister(ptr, size, flags));
    return gpu__cudart_set(e);
}

cudaError_t cudaHostUnregister(void *ptr)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemHostUnregister(ptr));
    return gpu__cudart_set(e);
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemHostGetFlags(pFlags, pHost));
    return gpu__cudart_set(e);
}

/* Memory the driver does not know is cudaMemoryTypeUnregistered, and no error. */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                   CU_POINTER_ATTRIBUTE_HOST_POINTER};
    unsigned int type = 0;
    int managed = 0, device = -2;
    CUdeviceptr device_pointer = 0;
    void *host_pointer = NULL;
    void *values[] = {&type, &managed, &device, &device_pointer, &host_pointer};
    cudaError_t e = gpu__cudart_context();

    if (!attributes)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuPointerGetAttributes(sizeof(which) / sizeof(which[0]), which, values, dptr(ptr)));
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    *attributes = (struct cudaPointerAttributes){0};
    attributes->type = managed ? cudaMemoryTypeManaged
                       : type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice
                       : type == CU_MEMORYTYPE_HOST   ? cudaMemoryTypeHost
                                                      : cudaMemoryTypeUnregistered;
    if (attributes->type == cudaMemoryTypeUnregistered)
        return cudaSuccess;
    attributes->device = device;
    attributes->devicePointer = (void *)(uintptr_t)device_pointer;
    attributes->hostPointer = host_pointer;
    return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    CUdeviceptr p = 0;
    cudaError_t e = gpu__cudart_context();

    if (!devPtr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemAllocAsync(&p, size, gpu__cudart_stream(hStream, false)));
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)p;
    return gpu__cudart_set(e);
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemFreeAsync(dptr(devPtr), gpu__cudart_stream(hStream, false)));
    return gpu__cudart_set(e);
}

/* A copy between two devices' memory, each in its device's primary context. */
static cudaError_t copy_peer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count, bool async,
                             CUstream stream)
{
    CUcontext dst_ctx = NULL, src_ctx = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_primary(dstDevice, &dst_ctx);
    if (e == cudaSuccess)
        e = gpu__cudart_primary(srcDevice, &src_ctx);
    if (e != cudaSuccess || count == 0)
        return e;
    return gpu__cudart_map(async ? cuMemcpyPeerAsync(dptr(dst), dst_ctx, dptr(src), src_ctx, count, stream)
                                 : cuMemcpyPeer(dptr(dst), dst_ctx, dptr(src), src_ctx, count));
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    return gpu__cudart_set(copy_peer(dst, dstDevice, src, srcDevice, count, false, NULL));
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream)
{
    return gpu__cudart_set(copy_peer(dst, dstDevice, src, srcDevice, count, true, gpu__cudart_stream(stream, false)));
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    CUdeviceptr p = 0;
    cudaError_t e = gpu__cudart_context();

    if (!ptr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(
            cuMemAllocFromPoolAsync(&p, size, (CUmemoryPool)memPool, gpu__cudart_stream(stream, false)));
    if (e == cudaSuccess)
        *ptr = (void *)(uintptr_t)p;
    return gpu__cudart_set(e);
}

/* cudaMemPoolAttr's values are CUmemPool_attribute's, each value of the same type. */
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemPoolSetAttribute((CUmemoryPool)memPool, (CUmemPool_attribute)attr, value));
    return gpu__cudart_set(e);
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemPoolGetAttribute((CUmemoryPool)memPool, (CUmemPool_attribute)attr, value));
    return gpu__cudart_set(e);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemPoolTrimTo((CUmemoryPool)memPool, minBytesToKeep));
    return gpu__cudart_set(e);
}

_Static_assert(sizeof(struct cudaMemPoolProps) == sizeof(CUmemPoolProps) &&
                   offsetof(struct cudaMemPoolProps, location) == offsetof(CUmemPoolProps, location) &&
                   offsetof(struct cudaMemPoolProps, maxSize) == offsetof(CUmemPoolProps, maxSize),
               "a runtime pool's properties are the driver's, field for field");
_Static_assert(sizeof(struct cudaMemAccessDesc) == sizeof(CUmemAccessDesc), "an access description is the driver's");

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    CUmemoryPool pool = NULL;
    cudaError_t e = gpu__cudart_context();

    if (!memPool || !poolProps)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemPoolCreate(&pool, (const CUmemPoolProps *)(const void *)poolProps));
    if (e == cudaSuccess)
        *memPool = (cudaMemPool_t)pool;
    return gpu__cudart_set(e);
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemPoolDestroy((CUmemoryPool)memPool));
    return gpu__cudart_set(e);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList, size_t count)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(
            cuMemPoolSetAccess((CUmemoryPool)memPool, (const CUmemAccessDesc *)(const void *)descList, count));
    return gpu__cudart_set(e);
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                 struct cudaMemLocation *location)
{
    CUmemAccess_flags f = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    cudaError_t e = gpu__cudart_context();

    if (!flags)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuMemPoolGetAccess(&f, (CUmemoryPool)memPool, (CUmemLocation *)(void *)location));
    if (e == cudaSuccess)
        *flags = (enum cudaMemAccessFlags)f;
    return gpu__cudart_set(e);
}
