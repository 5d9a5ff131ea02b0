/* SPDX-License-Identifier: MIT */
/*
 * What the driver answers to edge cases of 2D and 3D copies, CUDA arrays,
 * texture and surface objects and page-locked memory (mapped memory as the
 * device side of every copy), against the answers
 * the fake driver gives: written against the toolkit's cuda.h, linked with
 * gpushim-cuda, run on the fake (suite fake) and on a GPU (suite gpu), so
 * that the real driver judges the fake's choices. Prints each case's
 * answer; exits 1 if any differs from the table, 77 without a device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "expect.h"

static CUDA_MEMCPY2D host_to_device(const void *src, size_t src_pitch, CUdeviceptr dst, size_t dst_pitch,
                                    size_t width, size_t height)
{
    CUDA_MEMCPY2D c;

    memset(&c, 0, sizeof(c));
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcPitch = src_pitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dst;
    c.dstPitch = dst_pitch;
    c.WidthInBytes = width;
    c.Height = height;
    return c;
}

static void copies(CUdeviceptr d)
{
    static unsigned char host[4][64];
    CUDA_MEMCPY2D c = host_to_device(host, 64, d, 64, 64, 4);
    CUDA_MEMCPY3D c3;
    int max_pitch = 0;

    expect("cuMemcpy2D: a plain copy", cuMemcpy2D(&c), CUDA_SUCCESS);
    c.srcPitch = 32;
    expect("cuMemcpy2D: source pitch under the width", cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c = host_to_device(host, 0, d, 64, 64, 1);
    expect("cuMemcpy2D: one row, source pitch 0", cuMemcpy2D(&c), CUDA_SUCCESS);
    c = host_to_device(host, 64, d, 64, 0, 4);
    expect("cuMemcpy2D: width 0", cuMemcpy2D(&c), CUDA_SUCCESS);
    c = host_to_device(host, 64, d, 64, 64, 4);
    c.dstXInBytes = 1;
    expect("cuMemcpy2D: destination x + width past the pitch", cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    cuDeviceGetAttribute(&max_pitch, CU_DEVICE_ATTRIBUTE_MAX_PITCH, 0);
    c = host_to_device(host, 64, d, (size_t)max_pitch + 1, 64, 1);
    expect("cuMemcpy2D: one row, destination pitch past MAX_PITCH", cuMemcpy2D(&c), CUDA_SUCCESS);
    c = host_to_device(host, 64, d, (size_t)max_pitch + 1, 64, 2);
    expect("cuMemcpy2D: two rows, destination pitch past MAX_PITCH", cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c = host_to_device(host, 64, d, 64, 64, 4);
    c.srcMemoryType = (CUmemorytype)0;
    expect("cuMemcpy2D: memory type 0", cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    memset(&c3, 0, sizeof(c3));
    c3.srcMemoryType = CU_MEMORYTYPE_HOST;
    c3.srcHost = host;
    c3.srcPitch = 64;
    c3.srcHeight = 2;
    c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c3.dstDevice = d;
    c3.dstPitch = 64;
    c3.dstHeight = 2;
    c3.WidthInBytes = 64;
    c3.Height = 2;
    c3.Depth = 2;
    expect("cuMemcpy3D: a plain copy", cuMemcpy3D(&c3), CUDA_SUCCESS);
    c3.srcLOD = 1;
    expect("cuMemcpy3D: srcLOD 1", cuMemcpy3D(&c3), CUDA_SUCCESS);
    c3.srcLOD = 0;
    c3.reserved0 = &c3;
    expect("cuMemcpy3D: reserved0 not NULL", cuMemcpy3D(&c3), CUDA_SUCCESS);
    c3.reserved0 = NULL;
    c3.srcHeight = 1;
    expect("cuMemcpy3D: source height under the rows, 2 slices", cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE);
}

static CUresult array_3d(size_t w, size_t h, size_t depth, unsigned channels, unsigned flags, CUarray *a)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {w, h, depth, CU_AD_FORMAT_UNSIGNED_INT8, channels, flags};

    return cuArray3DCreate(a, &d);
}

static void arrays(void)
{
    static unsigned char host[256];
    CUDA_ARRAY3D_DESCRIPTOR md = {16, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CUarray a = NULL, level = NULL;
    CUmipmappedArray m = NULL;
    CUDA_MEMCPY2D c;

    expect("cuArray3DCreate: 3 channels", array_3d(8, 8, 0, 3, 0, &a), CUDA_ERROR_INVALID_VALUE);
    expect("cuArray3DCreate: a depth without a height", array_3d(8, 0, 8, 1, 0, &a), CUDA_ERROR_INVALID_VALUE);
    expect("cuArray3DCreate: a cubemap of 7 faces", array_3d(8, 8, 7, 1, CUDA_ARRAY3D_CUBEMAP, &a),
           CUDA_ERROR_INVALID_VALUE);
    expect("cuArray3DCreate: 16 x 8 bytes", array_3d(16, 8, 0, 1, 0, &a), CUDA_SUCCESS);
    expect("cuMemcpyHtoA: past the array's 128 bytes", cuMemcpyHtoA(a, 100, host, 29), CUDA_ERROR_INVALID_VALUE);
    memset(&c, 0, sizeof(c));
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = 32;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a;
    c.WidthInBytes = 17;
    c.Height = 1;
    expect("cuMemcpy2D: a row wider than the array", cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.WidthInBytes = 16;
    c.dstY = 8;
    expect("cuMemcpy2D: a row below the array", cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    cuArrayDestroy(a);
    expect("cuMipmappedArrayCreate: 6 levels of 16 x 16", cuMipmappedArrayCreate(&m, &md, 6), CUDA_SUCCESS);
    expect("cuMipmappedArrayGetLevel: level 5 of those 6", cuMipmappedArrayGetLevel(&a, m, 5),
           CUDA_ERROR_INVALID_VALUE);
    cuMipmappedArrayDestroy(m);
    expect("cuMipmappedArrayCreate: 5 levels of 16 x 16", cuMipmappedArrayCreate(&m, &md, 5), CUDA_SUCCESS);
    cuMipmappedArrayGetLevel(&level, m, 1);
    expect("cuMipmappedArrayGetLevel: level 5 of 5", cuMipmappedArrayGetLevel(&a, m, 5), CUDA_ERROR_INVALID_VALUE);
    cuMipmappedArrayDestroy(m);
}

static void textures(CUdeviceptr d)
{
    CUDA_ARRAY3D_DESCRIPTOR ad = {4, 4, 0, CU_AD_FORMAT_SIGNED_INT32, 1, 0};
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC td;
    CUtexObject t = 0;
    CUsurfObject s = 0;
    CUarray a = NULL;

    cuArray3DCreate(&a, &ad);
    memset(&res, 0, sizeof(res));
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = a;
    memset(&td, 0, sizeof(td));
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    expect("cuTexObjectCreate: linear filtering of 32-bit integers", cuTexObjectCreate(&t, &res, &td, NULL),
           CUDA_SUCCESS);
    cuTexObjectDestroy(t);
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    expect("cuTexObjectCreate: an array", cuTexObjectCreate(&t, &res, &td, NULL), CUDA_SUCCESS);
    expect("cuTexObjectDestroy", cuTexObjectDestroy(t), CUDA_SUCCESS);
    expect("cuSurfObjectCreate: an array without SURFACE_LDST", cuSurfObjectCreate(&s, &res), CUDA_SUCCESS);
    cuSurfObjectDestroy(s);
    cuArrayDestroy(a);
    memset(&res, 0, sizeof(res));
    res.resType = CU_RESOURCE_TYPE_PITCH2D;
    res.res.pitch2D.devPtr = d;
    res.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
    res.res.pitch2D.numChannels = 1;
    res.res.pitch2D.width = 8;
    res.res.pitch2D.height = 4;
    res.res.pitch2D.pitchInBytes = 48;
    expect("cuTexObjectCreate: a pitch of 48 bytes", cuTexObjectCreate(&t, &res, &td, NULL),
           CUDA_ERROR_INVALID_VALUE);
    res.res.pitch2D.pitchInBytes = 64;
    res.res.pitch2D.devPtr = d + 4;
    expect("cuTexObjectCreate: memory 4 bytes past an allocation's start", cuTexObjectCreate(&t, &res, &td, NULL),
           CUDA_ERROR_INVALID_VALUE);
}

static void host_memory(void)
{
    void *p = NULL;
    unsigned flags = 0;
    CUdeviceptr d = 0;

    cuMemHostAlloc(&p, 64, CU_MEMHOSTALLOC_PORTABLE);
    expect("cuMemHostGetFlags of PORTABLE memory", cuMemHostGetFlags(&flags, p), CUDA_SUCCESS);
    printf("%-*s %u\n", EXPECT_COLUMN, "  its flags (the fake: 3, DEVICEMAP added)", flags);
    wrong += flags != (CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    expect("cuMemHostGetDevicePointer: flags 1", cuMemHostGetDevicePointer(&d, p, 1), CUDA_ERROR_INVALID_VALUE);
    expect("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&d, p, 0), CUDA_SUCCESS);
    expect_true("  the device pointer is the host pointer", d == (CUdeviceptr)(uintptr_t)p);
    cuMemFreeHost(p);
    p = malloc(4096);
    expect("cuMemHostRegister: flags 0", cuMemHostRegister(p, 4096, 0), CUDA_SUCCESS);
    expect("cuMemHostGetFlags of registered memory", cuMemHostGetFlags(&flags, p), CUDA_SUCCESS);
    printf("%-*s %u\n", EXPECT_COLUMN, "  its flags (the fake: 2, DEVICEMAP added)", flags);
    wrong += flags != CU_MEMHOSTALLOC_DEVICEMAP;
    cuMemHostUnregister(p);
    free(p);
}

enum { MAPPED_N = 4096 };

/* Whether the host sees MAPPED_N bytes of pattern `seed` at `p`. */
static int pattern_is(const unsigned char *p, unsigned seed)
{
    for (unsigned i = 0; i < MAPPED_N; i++)
        if (p[i] != (unsigned char)(i * 7 + seed * 31 + 1))
            return 0;
    return 1;
}

static void pattern_fill(unsigned char *p, unsigned seed)
{
    for (unsigned i = 0; i < MAPPED_N; i++)
        p[i] = (unsigned char)(i * 7 + seed * 31 + 1);
}

static CUDA_MEMCPY2D mapped_2d(CUmemorytype dst_type, void *dst_host, CUdeviceptr dst, CUmemorytype src_type,
                               const void *src_host, CUdeviceptr src)
{
    CUDA_MEMCPY2D c;

    memset(&c, 0, sizeof(c));
    c.srcMemoryType = src_type;
    c.srcHost = src_host;
    c.srcDevice = src;
    c.srcPitch = MAPPED_N / 4;
    c.dstMemoryType = dst_type;
    c.dstHost = dst_host;
    c.dstDevice = dst;
    c.dstPitch = MAPPED_N / 4;
    c.WidthInBytes = MAPPED_N / 4;
    c.Height = 4;
    return c;
}

static CUDA_MEMCPY3D mapped_3d(CUmemorytype dst_type, void *dst_host, CUdeviceptr dst, CUmemorytype src_type,
                               const void *src_host, CUdeviceptr src)
{
    CUDA_MEMCPY3D c;

    memset(&c, 0, sizeof(c));
    c.srcMemoryType = src_type;
    c.srcHost = src_host;
    c.srcDevice = src;
    c.srcPitch = MAPPED_N / 8;
    c.srcHeight = 4;
    c.dstMemoryType = dst_type;
    c.dstHost = dst_host;
    c.dstDevice = dst;
    c.dstPitch = MAPPED_N / 8;
    c.dstHeight = 4;
    c.WidthInBytes = MAPPED_N / 8;
    c.Height = 4;
    c.Depth = 2;
    return c;
}

/*
 * Every copy with `m` on its device side, MAPPED_N bytes the host sees at
 * `view`; `d` device memory and `a` an array of MAPPED_N bytes to copy
 * through. Then a byte past m's end.
 */
static void copies_through(const char *kind, CUdeviceptr m, unsigned char *view, CUdeviceptr d, CUarray a,
                           CUstream s)
{
    static unsigned char in[MAPPED_N], out[MAPPED_N];
    const CUmemorytype H = CU_MEMORYTYPE_HOST, D = CU_MEMORYTYPE_DEVICE;
    const CUdeviceptr end = m + MAPPED_N - 8;
    CUDA_MEMCPY2D c2;
    CUDA_MEMCPY3D c3;

    printf("%s, its device pointer as a copy's device side:\n", kind);
#define L(what) "  " what
    pattern_fill(in, 1);
    expect(L("cuMemcpyHtoD"), cuMemcpyHtoD(m, in, MAPPED_N), CUDA_SUCCESS);
    expect_true(L("  its bytes arrived"), pattern_is(view, 1));
    pattern_fill(view, 2);
    expect(L("cuMemcpyDtoH"), cuMemcpyDtoH(out, m, MAPPED_N), CUDA_SUCCESS);
    expect_true(L("  its bytes arrived"), pattern_is(out, 2));
    pattern_fill(in, 3);
    cuMemcpyHtoD(d, in, MAPPED_N);
    expect(L("cuMemcpyDtoD to it"), cuMemcpyDtoD(m, d, MAPPED_N), CUDA_SUCCESS);
    expect_true(L("  its bytes arrived"), pattern_is(view, 3));
    pattern_fill(view, 4);
    expect(L("cuMemcpyDtoD from it"), cuMemcpyDtoD(d, m, MAPPED_N), CUDA_SUCCESS);
    cuMemcpyDtoH(out, d, MAPPED_N);
    expect_true(L("  its bytes arrived"), pattern_is(out, 4));
    pattern_fill(in, 5);
    expect(L("cuMemcpyHtoDAsync"), cuMemcpyHtoDAsync(m, in, MAPPED_N, s), CUDA_SUCCESS);
    cuStreamSynchronize(s);
    expect_true(L("  its bytes arrived"), pattern_is(view, 5));
    pattern_fill(view, 6);
    expect(L("cuMemcpyDtoHAsync"), cuMemcpyDtoHAsync(out, m, MAPPED_N, s), CUDA_SUCCESS);
    cuStreamSynchronize(s);
    expect_true(L("  its bytes arrived"), pattern_is(out, 6));
    pattern_fill(in, 7);
    cuMemcpyHtoD(d, in, MAPPED_N);
    expect(L("cuMemcpyDtoDAsync to it"), cuMemcpyDtoDAsync(m, d, MAPPED_N, s), CUDA_SUCCESS);
    cuStreamSynchronize(s);
    expect_true(L("  its bytes arrived"), pattern_is(view, 7));
    pattern_fill(view, 8);
    expect(L("cuMemcpyDtoDAsync from it"), cuMemcpyDtoDAsync(d, m, MAPPED_N, s), CUDA_SUCCESS);
    cuStreamSynchronize(s);
    cuMemcpyDtoH(out, d, MAPPED_N);
    expect_true(L("  its bytes arrived"), pattern_is(out, 8));
    pattern_fill(in, 9);
    c2 = mapped_2d(D, NULL, m, H, in, 0);
    expect(L("cuMemcpy2D to it"), cuMemcpy2D(&c2), CUDA_SUCCESS);
    expect_true(L("  its bytes arrived"), pattern_is(view, 9));
    pattern_fill(view, 10);
    c2 = mapped_2d(H, out, 0, D, NULL, m);
    expect(L("cuMemcpy2DAsync from it"), cuMemcpy2DAsync(&c2, s), CUDA_SUCCESS);
    cuStreamSynchronize(s);
    expect_true(L("  its bytes arrived"), pattern_is(out, 10));
    pattern_fill(in, 11);
    c3 = mapped_3d(D, NULL, m, H, in, 0);
    expect(L("cuMemcpy3DAsync to it"), cuMemcpy3DAsync(&c3, s), CUDA_SUCCESS);
    cuStreamSynchronize(s);
    expect_true(L("  its bytes arrived"), pattern_is(view, 11));
    pattern_fill(view, 12);
    c3 = mapped_3d(D, NULL, d, D, NULL, m);
    expect(L("cuMemcpy3D from it"), cuMemcpy3D(&c3), CUDA_SUCCESS);
    cuMemcpyDtoH(out, d, MAPPED_N);
    expect_true(L("  its bytes arrived"), pattern_is(out, 12));
    pattern_fill(view, 13);
    expect(L("cuMemcpyDtoA from it"), cuMemcpyDtoA(a, 0, m, MAPPED_N), CUDA_SUCCESS);
    memset(view, 0, MAPPED_N);
    expect(L("cuMemcpyAtoD to it"), cuMemcpyAtoD(m, a, 0, MAPPED_N), CUDA_SUCCESS);
    expect_true(L("  its bytes arrived"), pattern_is(view, 13));
    expect(L("cuMemsetD32Async at it"), cuMemsetD32Async(m, 0x01020304u, MAPPED_N / 4, s), CUDA_SUCCESS);
    cuStreamSynchronize(s);
    expect_true(L("  its bytes were set"), view[0] == 4 && view[MAPPED_N - 1] == 1);

    expect(L("cuMemcpyHtoD a byte past its end"), cuMemcpyHtoD(end, in, 9), CUDA_ERROR_INVALID_VALUE);
    expect(L("cuMemcpyDtoH a byte past its end"), cuMemcpyDtoH(out, end, 9), CUDA_ERROR_INVALID_VALUE);
    expect(L("cuMemcpyDtoD to a byte past its end"), cuMemcpyDtoD(end, d, 9), CUDA_ERROR_INVALID_VALUE);
    expect(L("cuMemcpyDtoD from a byte past its end"), cuMemcpyDtoD(d, end, 9), CUDA_ERROR_INVALID_VALUE);
    expect(L("cuMemcpyHtoDAsync a byte past its end"), cuMemcpyHtoDAsync(end, in, 9, s), CUDA_ERROR_INVALID_VALUE);
    expect(L("cuMemcpyDtoHAsync a byte past its end"), cuMemcpyDtoHAsync(out, end, 9, s), CUDA_ERROR_INVALID_VALUE);
    expect(L("cuMemcpyDtoDAsync to a byte past its end"), cuMemcpyDtoDAsync(end, d, 9, s),
           CUDA_ERROR_INVALID_VALUE);
    expect(L("cuMemcpyDtoDAsync from a byte past its end"), cuMemcpyDtoDAsync(d, end, 9, s),
           CUDA_ERROR_INVALID_VALUE);
    c2 = mapped_2d(D, NULL, m + 1, H, in, 0);
    expect(L("cuMemcpy2D to a byte past its end"), cuMemcpy2D(&c2), CUDA_ERROR_INVALID_VALUE);
    c3 = mapped_3d(H, out, 0, D, NULL, m + 1);
    expect(L("cuMemcpy3DAsync from a byte past its end"), cuMemcpy3DAsync(&c3, s), CUDA_ERROR_INVALID_VALUE);
    cuStreamSynchronize(s);
#undef L
}

/* Mapped page-locked memory and managed memory as the device side of every copy. */
static void mapped_copies(void)
{
    unsigned char *host = NULL, *registered = aligned_alloc(MAPPED_N, MAPPED_N);
    CUdeviceptr alias = 0, reg_alias = 0, managed = 0, d = 0;
    CUDA_ARRAY_DESCRIPTOR desc = {MAPPED_N, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1};
    CUarray a = NULL;
    CUstream s = NULL;

    if (!registered || cuMemHostAlloc((void **)&host, MAPPED_N, CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS ||
        cuMemHostGetDevicePointer(&alias, host, 0) != CUDA_SUCCESS ||
        cuMemHostRegister(registered, MAPPED_N, CU_MEMHOSTREGISTER_DEVICEMAP) != CUDA_SUCCESS ||
        cuMemHostGetDevicePointer(&reg_alias, registered, 0) != CUDA_SUCCESS ||
        cuMemAllocManaged(&managed, MAPPED_N, CU_MEM_ATTACH_GLOBAL) != CUDA_SUCCESS ||
        cuMemAlloc(&d, MAPPED_N) != CUDA_SUCCESS || cuArrayCreate(&a, &desc) != CUDA_SUCCESS ||
        cuStreamCreate(&s, 0) != CUDA_SUCCESS) {
        printf("failed: no memory to copy through\n");
        wrong++;
    } else {
        copies_through("cuMemHostAlloc(DEVICEMAP)", alias, host, d, a, s);
        copies_through("cuMemHostRegister(DEVICEMAP)", reg_alias, registered, d, a, s);
        copies_through("cuMemAllocManaged", managed, (unsigned char *)(uintptr_t)managed, d, a, s);
    }
    if (s)
        cuStreamDestroy(s);
    if (a)
        cuArrayDestroy(a);
    if (d)
        cuMemFree(d);
    if (managed)
        cuMemFree(managed);
    if (reg_alias)
        cuMemHostUnregister(registered);
    if (host)
        cuMemFreeHost(host);
    free(registered);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr d = 0;

    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    if (cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS ||
        cuMemAlloc(&d, 4096) != CUDA_SUCCESS) {
        printf("failed: no context or memory\n");
        return 1;
    }
    copies(d);
    arrays();
    textures(d);
    host_memory();
    mapped_copies();
    cuMemFree(d);
    cuDevicePrimaryCtxRelease(dev);
    printf("%d answers differ from the fake's\n", wrong);
    return wrong ? 1 : 0;
}
