/* SPDX-License-Identifier: MIT */
/*
 * Arrays, texture objects and surface objects. A cudaArray_t is the driver's
 * CUarray; a channel description becomes the driver's format and channel
 * count; cudaArray* flags are CUDA_ARRAY3D_* flags (driver_types.h and cuda.h
 * give the same values).
 */
#include "runtime.h"

#include <stdint.h>
#include <string.h>

/* The driver's format and channel count for a runtime channel description: channels of one width, in order. */
static cudaError_t format_of(const struct cudaChannelFormatDesc *d, CUarray_format *format, unsigned int *channels)
{
    const int bits[4] = {d->x, d->y, d->z, d->w};
    unsigned int n = 0;

    while (n < 4 && bits[n] != 0)
        n++;
    for (unsigned int i = n; i < 4; i++)
        if (bits[i] != 0)
            return cudaErrorInvalidChannelDescriptor;
    for (unsigned int i = 1; i < n; i++)
        if (bits[i] != bits[0])
            return cudaErrorInvalidChannelDescriptor;
    if (n == 0 || n == 3)
        return cudaErrorInvalidChannelDescriptor;
    *channels = n;
    switch (d->f) {
    case cudaChannelFormatKindSigned:
        *format = bits[0] == 8    ? CU_AD_FORMAT_SIGNED_INT8
                  : bits[0] == 16 ? CU_AD_FORMAT_SIGNED_INT16
                                  : CU_AD_FORMAT_SIGNED_INT32;
        return bits[0] == 8 || bits[0] == 16 || bits[0] == 32 ? cudaSuccess : cudaErrorInvalidChannelDescriptor;
    case cudaChannelFormatKindUnsigned:
        *format = bits[0] == 8    ? CU_AD_FORMAT_UNSIGNED_INT8
                  : bits[0] == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
                                  : CU_AD_FORMAT_UNSIGNED_INT32;
        return bits[0] == 8 || bits[0] == 16 || bits[0] == 32 ? cudaSuccess : cudaErrorInvalidChannelDescriptor;
    case cudaChannelFormatKindFloat:
        *format = bits[0] == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
        return bits[0] == 16 || bits[0] == 32 ? cudaSuccess : cudaErrorInvalidChannelDescriptor;
    default:
        return cudaErrorInvalidChannelDescriptor;
    }
}

static cudaError_t array_create(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                                size_t height, size_t depth, unsigned int flags)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {0};
    CUarray a = NULL;
    cudaError_t e = gpu__cudart_context();

    if (!array || !desc)
        return cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = format_of(desc, &d.Format, &d.NumChannels);
    if (e != cudaSuccess)
        return e;
    d.Width = width;
    d.Height = height;
    d.Depth = depth;
    d.Flags = flags;
    e = gpu__cudart_map(cuArray3DCreate(&a, &d));
    if (e == cudaSuccess)
        *array = (cudaArray_t)(void *)a;
    return e;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                            size_t height, unsigned int flags)
{
    return gpu__cudart_set(array_create(array, desc, width, height, 0, flags));
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned int flags)
{
    return gpu__cudart_set(array_create(array, desc, extent.width, extent.height, extent.depth, flags));
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && array)
        e = gpu__cudart_map(cuArrayDestroy((CUarray)(void *)array));
    return gpu__cudart_set(e);
}

/* The memory side of an array copy by `kind`, whose array side must be device memory. */
static bool memory_side(enum cudaMemcpyKind kind, bool to_array, CUmemorytype *type)
{
    CUmemorytype src, dst;

    if (!gpu__cudart_copy_sides(kind, &src, &dst))
        return false;
    *type = to_array ? src : dst;
    return (to_array ? dst : src) != CU_MEMORYTYPE_HOST;
}

/* `height` rows of `width` bytes between an array (at byte `x` of row `y`) and memory of row pitch `pitch`. */
static cudaError_t array_copy(cudaArray_const_t array, size_t x, size_t y, const void *memory, size_t pitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind, bool to_array, bool async,
                              CUstream stream)
{
    CUDA_MEMCPY2D c = {0};
    CUmemorytype type;
    cudaError_t e = gpu__cudart_context();

    if (e != cudaSuccess)
        return e;
    if (!memory_side(kind, to_array, &type))
        return cudaErrorInvalidMemcpyDirection;
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (to_array) {
        c.srcMemoryType = type;
        c.srcHost = memory;
        c.srcDevice = (CUdeviceptr)(uintptr_t)memory;
        c.srcPitch = pitch;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = (CUarray)(uintptr_t)array;
        c.dstXInBytes = x;
        c.dstY = y;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = (CUarray)(uintptr_t)array;
        c.srcXInBytes = x;
        c.srcY = y;
        c.dstMemoryType = type;
        c.dstHost = (void *)(uintptr_t)memory;
        c.dstDevice = (CUdeviceptr)(uintptr_t)memory;
        c.dstPitch = pitch;
    }
    c.WidthInBytes = width;
    c.Height = height;
    return gpu__cudart_map(async ? cuMemcpy2DAsync(&c, stream) : cuMemcpy2DUnaligned(&c));
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return gpu__cudart_set(array_copy(dst, wOffset, hOffset, src, spitch, width, height, kind, true, false, NULL));
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return gpu__cudart_set(array_copy(src, wOffset, hOffset, dst, dpitch, width, height, kind, false, false, NULL));
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    return gpu__cudart_set(array_copy(dst, wOffset, hOffset, src, spitch, width, height, kind, true, true,
                                      gpu__cudart_stream(stream, false)));
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t stream)
{
    return gpu__cudart_set(array_copy(src, wOffset, hOffset, dst, dpitch, width, height, kind, false, true,
                                      gpu__cudart_stream(stream, false)));
}

/* Bytes per element of an array (all its channels), and its width in elements. */
static cudaError_t element_bytes(cudaArray_const_t array, size_t *out, size_t *width)
{
    CUDA_ARRAY3D_DESCRIPTOR d;
    cudaError_t e = gpu__cudart_map(cuArray3DGetDescriptor(&d, (CUarray)(uintptr_t)array));
    size_t element = 0;

    if (e != cudaSuccess)
        return e;
    switch (d.Format) {
    case CU_AD_FORMAT_SIGNED_INT8:
    case CU_AD_FORMAT_UNSIGNED_INT8:
        element = 1;
        break;
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        element = 2;
        break;
    default:
        element = 4;
        break;
    }
    *out = element * d.NumChannels;
    *width = d.Width;
    return cudaSuccess;
}

/* Bytes per row of an array. */
static cudaError_t row_bytes(cudaArray_const_t array, size_t *out)
{
    size_t element = 0, width = 0;
    cudaError_t e = element_bytes(array, &element, &width);

    *out = element * width;
    return e == cudaSuccess && *out == 0 ? cudaErrorInvalidValue : e;
}

/*
 * `count` bytes between memory and an array read row after row from byte
 * `x` of row `y` (the deprecated 1D copies): the rest of the first row, the
 * whole rows, then the start of the last.
 */
static cudaError_t linear_copy(cudaArray_const_t array, size_t x, size_t y, const void *memory, size_t count,
                               enum cudaMemcpyKind kind, bool to_array)
{
    size_t row = 0, first, rows;
    const char *p = memory;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = row_bytes(array, &row);
    if (e != cudaSuccess || count == 0)
        return e;
    if (x >= row)
        return cudaErrorInvalidValue;
    first = x ? (count < row - x ? count : row - x) : 0;
    if (first)
        e = array_copy(array, x, y++, p, first, first, 1, kind, to_array, false, NULL);
    p += first;
    count -= first;
    rows = count / row;
    if (e == cudaSuccess && rows)
        e = array_copy(array, 0, y, p, row, row, rows, kind, to_array, false, NULL);
    p += rows * row;
    count -= rows * row;
    if (e == cudaSuccess && count)
        e = array_copy(array, 0, y + rows, p, count, count, 1, kind, to_array, false, NULL);
    return e;
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              enum cudaMemcpyKind kind)
{
    return gpu__cudart_set(linear_copy(dst, wOffset, hOffset, src, count, kind, true));
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                enum cudaMemcpyKind kind)
{
    return gpu__cudart_set(linear_copy(src, wOffset, hOffset, dst, count, kind, false));
}

/* One side of a 3D copy: an array (positions in elements of `element` bytes) or pitched memory (in bytes). */
static void side_3d(cudaArray_const_t array, struct cudaPos pos, struct cudaPitchedPtr ptr, CUmemorytype memory,
                    size_t element, CUmemorytype *type, CUarray *a, const void **host, CUdeviceptr *device,
                    size_t *x, size_t *y, size_t *z, size_t *pitch, size_t *height)
{
    *type = array ? CU_MEMORYTYPE_ARRAY : memory;
    *a = (CUarray)(uintptr_t)array;
    *host = array ? NULL : ptr.ptr;
    *device = array ? 0 : (CUdeviceptr)(uintptr_t)ptr.ptr;
    *x = array ? pos.x * element : pos.x;
    *y = pos.y;
    *z = pos.z;
    *pitch = array ? 0 : ptr.pitch;
    *height = array ? 0 : ptr.ysize;
}

cudaError_t gpu__cudart_copy_3d_params(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *out)
{
    CUDA_MEMCPY3D c = {0};
    CUmemorytype src_memory, dst_memory;
    const void *dst_host = NULL;
    size_t element = 1, width = 0;
    cudaError_t e = cudaSuccess;

    if (!p || (p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
        return cudaErrorInvalidValue;
    if (!gpu__cudart_copy_sides(p->kind, &src_memory, &dst_memory))
        return cudaErrorInvalidMemcpyDirection;
    /* With an array on either side, widths and the array's x are in its elements. */
    if (p->srcArray || p->dstArray)
        e = element_bytes(p->srcArray ? p->srcArray : p->dstArray, &element, &width);
    if (e != cudaSuccess)
        return e;
    side_3d(p->srcArray, p->srcPos, p->srcPtr, src_memory, element, &c.srcMemoryType, &c.srcArray, &c.srcHost,
            &c.srcDevice, &c.srcXInBytes, &c.srcY, &c.srcZ, &c.srcPitch, &c.srcHeight);
    side_3d(p->dstArray, p->dstPos, p->dstPtr, dst_memory, element, &c.dstMemoryType, &c.dstArray, &dst_host,
            &c.dstDevice, &c.dstXInBytes, &c.dstY, &c.dstZ, &c.dstPitch, &c.dstHeight);
    c.dstHost = (void *)(uintptr_t)dst_host;
    c.WidthInBytes = p->extent.width * element;
    c.Height = p->extent.height;
    c.Depth = p->extent.depth;
    *out = c;
    return cudaSuccess;
}

static cudaError_t copy_3d(const struct cudaMemcpy3DParms *p, bool async, CUstream stream)
{
    CUDA_MEMCPY3D c = {0};
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_copy_3d_params(p, &c);
    if (e != cudaSuccess || c.WidthInBytes == 0 || c.Height == 0 || c.Depth == 0)
        return e;
    return gpu__cudart_map(async ? cuMemcpy3DAsync(&c, stream) : cuMemcpy3D(&c));
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    return gpu__cudart_set(copy_3d(p, false, NULL));
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return gpu__cudart_set(copy_3d(p, true, gpu__cudart_stream(stream, false)));
}

/* Pitched memory for `extent` (its width in bytes): rows padded to the driver's pitch, slices of `height` rows. */
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    CUdeviceptr p = 0;
    size_t pitch = 0;
    cudaError_t e = gpu__cudart_context();

    if (!pitchedDevPtr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess && extent.width && extent.height && extent.depth)
        e = gpu__cudart_map(cuMemAllocPitch(&p, &pitch, extent.width, extent.height * extent.depth, 16));
    if (e == cudaSuccess)
        *pitchedDevPtr = (struct cudaPitchedPtr){(void *)(uintptr_t)p, pitch, extent.width, extent.height};
    return gpu__cudart_set(e);
}

/* The driver's resource description for the runtime's: the same kinds, a channel description made a format. */
static cudaError_t resource_of(const struct cudaResourceDesc *r, CUDA_RESOURCE_DESC *out)
{
    cudaError_t e = cudaSuccess;

    memset(out, 0, sizeof(*out));
    out->resType = (CUresourcetype)r->resType;
    switch (r->resType) {
    case cudaResourceTypeArray:
        out->res.array.hArray = (CUarray)(void *)r->res.array.array;
        break;
    case cudaResourceTypeMipmappedArray:
        out->res.mipmap.hMipmappedArray = (CUmipmappedArray)(void *)r->res.mipmap.mipmap;
        break;
    case cudaResourceTypeLinear:
        out->res.linear.devPtr = (CUdeviceptr)(uintptr_t)r->res.linear.devPtr;
        out->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
        e = format_of(&r->res.linear.desc, &out->res.linear.format, &out->res.linear.numChannels);
        break;
    case cudaResourceTypePitch2D:
        out->res.pitch2D.devPtr = (CUdeviceptr)(uintptr_t)r->res.pitch2D.devPtr;
        out->res.pitch2D.width = r->res.pitch2D.width;
        out->res.pitch2D.height = r->res.pitch2D.height;
        out->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
        e = format_of(&r->res.pitch2D.desc, &out->res.pitch2D.format, &out->res.pitch2D.numChannels);
        break;
    default:
        e = cudaErrorInvalidValue;
        break;
    }
    out->flags = r->flags;
    return e;
}

/* cudaTextureAddressMode and cudaTextureFilterMode are CUaddress_mode and CUfilter_mode; the rest, CU_TRSF_ flags. */
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc)
{
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex = {0};
    CUtexObject object = 0;
    cudaError_t e = gpu__cudart_context();

    if (!pTexObject || !pResDesc || !pTexDesc)
        return gpu__cudart_set(cudaErrorInvalidValue);
    /* A resource view reinterprets a format: not served. */
    if (e == cudaSuccess && pResViewDesc)
        e = cudaErrorNotSupported;
    if (e == cudaSuccess)
        e = resource_of(pResDesc, &res);
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    for (int i = 0; i < 3; i++)
        tex.addressMode[i] = (CUaddress_mode)pTexDesc->addressMode[i];
    tex.filterMode = (CUfilter_mode)pTexDesc->filterMode;
    tex.mipmapFilterMode = (CUfilter_mode)pTexDesc->mipmapFilterMode;
    tex.flags = (pTexDesc->readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
                (pTexDesc->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
                (pTexDesc->sRGB ? CU_TRSF_SRGB : 0) |
                (pTexDesc->disableTrilinearOptimization ? CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION : 0) |
                (pTexDesc->seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
    tex.maxAnisotropy = pTexDesc->maxAnisotropy;
    tex.mipmapLevelBias = pTexDesc->mipmapLevelBias;
    tex.minMipmapLevelClamp = pTexDesc->minMipmapLevelClamp;
    tex.maxMipmapLevelClamp = pTexDesc->maxMipmapLevelClamp;
    memcpy(tex.borderColor, pTexDesc->borderColor, sizeof(tex.borderColor));
    e = gpu__cudart_map(cuTexObjectCreate(&object, &res, &tex, NULL));
    if (e == cudaSuccess)
        *pTexObject = (cudaTextureObject_t)object;
    return gpu__cudart_set(e);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuTexObjectDestroy((CUtexObject)texObject));
    return gpu__cudart_set(e);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc)
{
    CUDA_RESOURCE_DESC res;
    CUsurfObject object = 0;
    cudaError_t e = gpu__cudart_context();

    if (!pSurfObject || !pResDesc)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = resource_of(pResDesc, &res);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuSurfObjectCreate(&object, &res));
    if (e == cudaSuccess)
        *pSurfObject = (cudaSurfaceObject_t)object;
    return gpu__cudart_set(e);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuSurfObjectDestroy((CUsurfObject)surfObject));
    return gpu__cudart_set(e);
}
