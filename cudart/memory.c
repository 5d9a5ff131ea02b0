/* SPDX-License-Identifier: MIT */
/*
 * Memory: device, page-locked and managed allocations, copies and fills, and
 * copies to and from the variables nvcc registered (symbols).
 */
#include "runtime.h"

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
