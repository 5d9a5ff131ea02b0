/* SPDX-License-Identifier: MIT */
/*
 * The fake's 2D and 3D copies, CUDA arrays and mipmapped arrays, as a CUDA
 * program calls them (no gpushim): every memory type, the driver's argument
 * checks, queued copies that outlive their array, page-locked memory's
 * flags and device address, and each driver call of a sequence failed in
 * turn with nothing left alive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

static int setup(void **state)
{
    cuabi_context ctx = NULL;

    (void)state;
    CU_OK(cuInit(0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxSetCurrent(ctx));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    return 0;
}

/* A 2D copy of width bytes by height rows, src and dst host or device memory with their pitches. */
static cuabi_memcpy2d plain_2d(unsigned src_type, const void *src, size_t src_pitch, unsigned dst_type, void *dst,
                               size_t dst_pitch, size_t width, size_t height)
{
    cuabi_memcpy2d c;

    memset(&c, 0, sizeof(c));
    c.src_type = src_type;
    c.dst_type = dst_type;
    if (src_type == CUABI_MEMORYTYPE_HOST)
        c.src_host = src;
    else
        c.src_device = (cuabi_deviceptr)(uintptr_t)src;
    if (dst_type == CUABI_MEMORYTYPE_HOST)
        c.dst_host = dst;
    else
        c.dst_device = (cuabi_deviceptr)(uintptr_t)dst;
    c.src_pitch = src_pitch;
    c.dst_pitch = dst_pitch;
    c.width = width;
    c.height = height;
    return c;
}

#define DEV(d) ((void *)(uintptr_t)(d))

/* Host rows into pitched device memory at an offset, back out with other offsets; padding untouched. */
static void copy_2d(void **state)
{
    enum { W = 40, H = 9 };
    static unsigned char host[H][W], back[H][64], whole[H + 2][512];
    cuabi_deviceptr d = 0;
    size_t pitch = 0;
    cuabi_memcpy2d c;

    (void)state;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            host[y][x] = (unsigned char)(y * 16 + x + 1);
    CU_OK(cuMemAllocPitch_v2(&d, &pitch, 100, H + 2, 4));
    assert_int_equal(pitch, 512);
    CU_OK(cuMemsetD8_v2(d, 0xee, pitch * (H + 2)));
    c = plain_2d(CUABI_MEMORYTYPE_HOST, host, W, CUABI_MEMORYTYPE_DEVICE, DEV(d), pitch, W, H);
    c.dst_x = 7;
    c.dst_y = 1;
    CU_OK(cuMemcpy2D_v2(&c));
    CU_OK(cuMemcpyDtoH_v2(whole, d, sizeof(whole)));
    for (int y = 0; y < H + 2; y++)
        for (int x = 0; x < 512; x++) {
            bool in = y >= 1 && y <= H && x >= 7 && x < 7 + W;

            assert_int_equal(whole[y][x], in ? host[y - 1][x - 7] : 0xee);
        }
    /* Rows 3.. of the copy, from byte 10 of each, into a host buffer with a pitch of its own. */
    memset(back, 0, sizeof(back));
    c = plain_2d(CUABI_MEMORYTYPE_DEVICE, DEV(d), pitch, CUABI_MEMORYTYPE_HOST, back, 64, 20, H - 2);
    c.src_x = 7 + 10;
    c.src_y = 1 + 2;
    c.dst_x = 3;
    c.dst_y = 1;
    CU_OK(cuMemcpy2DUnaligned_v2(&c));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < 64; x++)
            assert_int_equal(back[y][x], y >= 1 && y < H - 1 && x >= 3 && x < 23 ? host[y + 1][x + 7] : 0);
    /* Device to device, then unified addresses of both kinds. */
    c = plain_2d(CUABI_MEMORYTYPE_UNIFIED, DEV(d + pitch + 7), pitch, CUABI_MEMORYTYPE_DEVICE, DEV(d), pitch, W, 1);
    CU_OK(cuMemcpy2D_v2(&c));
    memset(back, 0, sizeof(back));
    c = plain_2d(CUABI_MEMORYTYPE_DEVICE, DEV(d), pitch, CUABI_MEMORYTYPE_UNIFIED, back, 64, W, 1);
    CU_OK(cuMemcpy2D_v2(&c));
    assert_memory_equal(back[0], host[0], W);
    CU_OK(cuMemFree_v2(d));
}

/* What the driver refuses, each with nothing copied. */
static void copy_2d_errors(void **state)
{
    static unsigned char host[4][64];
    cuabi_deviceptr d = 0;
    cuabi_memcpy2d c, ok;
    cuabi_context ctx = NULL;
    int max_pitch = 0;

    (void)state;
    CU_OK(cuMemAlloc_v2(&d, 256));
    CU_OK(cuDeviceGetAttribute(&max_pitch, CUABI_DEVICE_ATTRIBUTE_MAX_PITCH, 0));
    ok = plain_2d(CUABI_MEMORYTYPE_HOST, host, 64, CUABI_MEMORYTYPE_DEVICE, DEV(d), 64, 64, 4);
    CU_OK(cuMemcpy2D_v2(&ok));
    assert_int_equal(cuMemcpy2D_v2(NULL), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.src_pitch = 32; /* a pitch under the width */
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.dst_x = 1; /* the row past the pitch */
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.height = 5; /* past the allocation */
    c.src_pitch = 48;
    c.width = 48;
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.dst_pitch = (size_t)max_pitch + 1;
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.src_type = 0;
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c.src_type = 5;
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.src_host = NULL;
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.src_host = DEV(d); /* a device address is not host memory */
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.dst_type = CUABI_MEMORYTYPE_ARRAY; /* no array */
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c = ok;
    c.dst_device = d + 4096; /* not allocated */
    assert_int_equal(cuMemcpy2DAsync_v2(&c, NULL), CUABI_ERROR_INVALID_VALUE);
    /* An empty copy is done at once. */
    c = ok;
    c.width = 0;
    c.src_host = NULL;
    CU_OK(cuMemcpy2D_v2(&c));
    CU_OK(cuMemFree_v2(d));
    /* No context: nothing is checked further. */
    CU_OK(cuCtxGetCurrent(&ctx));
    CU_OK(cuCtxSetCurrent(NULL));
    assert_int_equal(cuMemcpy2D_v2(&ok), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuCtxSetCurrent(ctx));
}

static cuabi_array array_2d(size_t w, size_t h, cuabi_array_format format, unsigned channels)
{
    cuabi_array_descriptor d = {w, h, format, channels};
    cuabi_array a = NULL;

    CU_OK(cuArrayCreate_v2(&a, &d));
    return a;
}

/* 2D arrays: a descriptor back as given; host to array to array to device to host; 1D array copies. */
static void arrays(void **state)
{
    enum { W = 13, H = 5 };
    static float host[H][W], back[H][W];
    static unsigned short row[64], got[64];
    cuabi_array a = array_2d(W, H, CUABI_AD_FORMAT_FLOAT, 1), b = array_2d(W, H, CUABI_AD_FORMAT_FLOAT, 1);
    cuabi_array line = array_2d(64, 0, CUABI_AD_FORMAT_UNSIGNED_INT16, 1);
    cuabi_array_descriptor desc;
    cuabi_array3d_descriptor d3;
    cuabi_deviceptr dev = 0;
    size_t used = gpu_fake_device_used(0);
    cuabi_memcpy2d c;

    (void)state;
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 3);
    CU_OK(cuArrayGetDescriptor_v2(&desc, a));
    assert_int_equal(desc.width, W);
    assert_int_equal(desc.height, H);
    assert_int_equal(desc.format, CUABI_AD_FORMAT_FLOAT);
    assert_int_equal(desc.channels, 1);
    CU_OK(cuArray3DGetDescriptor_v2(&d3, line));
    assert_int_equal(d3.width, 64);
    assert_int_equal(d3.height, 0);
    assert_int_equal(d3.depth, 0);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            host[y][x] = (float)(y * 100 + x);
    memset(&c, 0, sizeof(c));
    c.src_type = CUABI_MEMORYTYPE_HOST;
    c.src_host = host;
    c.src_pitch = sizeof(host[0]);
    c.dst_type = CUABI_MEMORYTYPE_ARRAY;
    c.dst_array = a;
    c.width = sizeof(host[0]);
    c.height = H;
    CU_OK(cuMemcpy2D_v2(&c));
    /* Rows 1..3, columns 2..9 of a into the same place of b. */
    memset(&c, 0, sizeof(c));
    c.src_type = c.dst_type = CUABI_MEMORYTYPE_ARRAY;
    c.src_array = a;
    c.dst_array = b;
    c.src_x = c.dst_x = 2 * sizeof(float);
    c.src_y = c.dst_y = 1;
    c.width = 8 * sizeof(float);
    c.height = 3;
    CU_OK(cuMemcpy2D_v2(&c));
    /* b through device memory to the host. */
    CU_OK(cuMemAlloc_v2(&dev, sizeof(host)));
    CU_OK(cuMemcpyAtoD_v2(dev, b, 0, sizeof(host)));
    CU_OK(cuMemcpyDtoH_v2(back, dev, sizeof(back)));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            assert_true(back[y][x] == (y >= 1 && y <= 3 && x >= 2 && x < 10 ? host[y][x] : 0.0f));
    /* The array's bounds: a row past its width, a row past its height. */
    c.width = 12 * sizeof(float);
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c.width = 4;
    c.height = H;
    assert_int_equal(cuMemcpy2D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    /* 1D: host to array at an offset, array to array, array to device, array to host. */
    for (int i = 0; i < 64; i++)
        row[i] = (unsigned short)(i * 3 + 1);
    CU_OK(cuMemcpyHtoA_v2(line, 8, row, 100));
    CU_OK(cuMemcpyAtoA_v2(line, 0, line, 8, 20));
    CU_OK(cuMemcpyAtoH_v2(got, line, 0, sizeof(got)));
    assert_memory_equal(got, row, 20);
    assert_memory_equal((char *)got + 20, (char *)row + 12, 88); /* what the overlapping copy left */
    CU_OK(cuMemcpyDtoA_v2(line, 0, dev, 8));
    CU_OK(cuMemcpyAtoH_v2(got, line, 0, 8));
    assert_memory_equal(got, back, 8);
    assert_int_equal(cuMemcpyHtoA_v2(line, 100, row, 29), CUABI_ERROR_INVALID_VALUE); /* past its 128 bytes */
    assert_int_equal(cuMemcpyAtoH_v2(got, line, 129, 0), CUABI_SUCCESS);                /* nothing to copy */
    assert_int_equal(cuMemcpyAtoD_v2(dev, line, 0, 128), CUABI_SUCCESS);
    assert_int_equal(cuMemcpyAtoD_v2(dev + sizeof(host) - 64, line, 0, 128), CUABI_ERROR_INVALID_VALUE);
    /* An array counts against its device's memory. */
    assert_int_equal(gpu_fake_device_used(0), used + sizeof(host));
    CU_OK(cuArrayDestroy(line));
    assert_int_equal(gpu_fake_device_used(0), used + sizeof(host) - 128);
    assert_int_equal(cuArrayDestroy(line), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuMemcpyAtoH_v2(got, line, 0, 8), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuArrayGetDescriptor_v2(&desc, line), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuArrayDestroy(b));
    CU_OK(cuMemFree_v2(dev));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 0);
}

static cuabi_result create_3d(size_t w, size_t h, size_t depth, unsigned channels, unsigned flags, cuabi_array *out)
{
    cuabi_array3d_descriptor d = {w, h, depth, CUABI_AD_FORMAT_UNSIGNED_INT8, channels, flags};

    return cuArray3DCreate_v2(out, &d);
}

/* The descriptors the driver refuses, and those the fake does not store. */
static void array_descriptors(void **state)
{
    cuabi_array a = NULL;
    cuabi_array_descriptor d2 = {16, 16, CUABI_AD_FORMAT_FLOAT, 3};
    cuabi_array3d_descriptor d3 = {16, 16, 0, 0xc0, 1, 0};
    int max1d = 0;

    (void)state;
    CU_OK(cuDeviceGetAttribute(&max1d, CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, 0));
    assert_int_equal(cuArrayCreate_v2(&a, &d2), CUABI_ERROR_INVALID_VALUE); /* 3 channels */
    assert_int_equal(cuArrayCreate_v2(&a, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuArrayCreate_v2(NULL, &d2), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(create_3d(0, 4, 4, 1, 0, &a), CUABI_ERROR_INVALID_VALUE);       /* no width */
    assert_int_equal(create_3d(4, 0, 4, 1, 0, &a), CUABI_ERROR_INVALID_VALUE);       /* a depth without a height */
    assert_int_equal(create_3d(4, 4, 0, 1, CUABI_ARRAY3D_LAYERED, &a), CUABI_ERROR_INVALID_VALUE); /* no layers */
    assert_int_equal(create_3d(8, 4, 6, 1, CUABI_ARRAY3D_CUBEMAP, &a), CUABI_ERROR_INVALID_VALUE); /* not square */
    assert_int_equal(create_3d(8, 8, 7, 1, CUABI_ARRAY3D_CUBEMAP, &a), CUABI_ERROR_INVALID_VALUE); /* 7 faces */
    assert_int_equal(create_3d((size_t)max1d + 1, 0, 0, 1, 0, &a), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(create_3d(4, 4, 4, 1, 0x1000, &a), CUABI_ERROR_INVALID_VALUE); /* no such flag */
    assert_int_equal(cuArray3DCreate_v2(&a, &d3), CUABI_ERROR_NOT_SUPPORTED);       /* a format not stored */
    assert_int_equal(create_3d(4, 4, 4, 1, CUABI_ARRAY3D_SPARSE, &a), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 0);
    /* What it takes: 1D, layered 1D, 2D layered, cubemaps, 3D. */
    CU_OK(create_3d((size_t)max1d, 0, 0, 1, 0, &a));
    CU_OK(cuArrayDestroy(a));
    CU_OK(create_3d(32, 0, 3, 2, CUABI_ARRAY3D_LAYERED, &a));
    CU_OK(cuArrayDestroy(a));
    CU_OK(create_3d(8, 8, 12, 4, CUABI_ARRAY3D_CUBEMAP | CUABI_ARRAY3D_LAYERED, &a));
    CU_OK(cuArrayDestroy(a));
    CU_OK(create_3d(8, 8, 6, 4, CUABI_ARRAY3D_CUBEMAP | CUABI_ARRAY3D_SURFACE_LDST, &a));
    CU_OK(cuArrayDestroy(a));
}

/* A 3D copy: host slices into a 3D array at an offset, back out of it into pitched device memory. */
static void copy_3d(void **state)
{
    enum { W = 6, H = 4, D = 3 };
    static unsigned char host[D][H][W], back[D + 1][H + 1][16];
    cuabi_array a = NULL;
    cuabi_deviceptr dev = 0;
    cuabi_memcpy3d c;

    (void)state;
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                host[z][y][x] = (unsigned char)(z * 50 + y * 10 + x + 1);
    CU_OK(create_3d(W + 1, H + 1, D + 1, 1, 0, &a));
    memset(&c, 0, sizeof(c));
    c.src_type = CUABI_MEMORYTYPE_HOST;
    c.src_host = host;
    c.src_pitch = W;
    c.src_height = H;
    c.dst_type = CUABI_MEMORYTYPE_ARRAY;
    c.dst_array = a;
    c.dst_x = c.dst_y = c.dst_z = 1;
    c.width = W;
    c.height = H;
    c.depth = D;
    CU_OK(cuMemcpy3D_v2(&c));
    CU_OK(cuMemAlloc_v2(&dev, sizeof(back)));
    memset(&c, 0, sizeof(c));
    c.src_type = CUABI_MEMORYTYPE_ARRAY;
    c.src_array = a;
    c.dst_type = CUABI_MEMORYTYPE_DEVICE;
    c.dst_device = dev;
    c.dst_pitch = 16;
    c.dst_height = H + 1;
    c.width = W + 1;
    c.height = H + 1;
    c.depth = D + 1;
    CU_OK(cuMemcpy3DAsync_v2(&c, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(back, dev, sizeof(back)));
    for (int z = 0; z <= D; z++)
        for (int y = 0; y <= H; y++)
            for (int x = 0; x < 16; x++) {
                bool in = z >= 1 && y >= 1 && x >= 1 && x <= W;

                assert_int_equal(back[z][y][x], in ? host[z - 1][y - 1][x - 1] : 0);
            }
    /* Levels of detail and reserved fields are not looked at (as on an H200); a source height must hold its rows. */
    c.src_lod = 1;
    c.reserved1 = &c;
    CU_OK(cuMemcpy3D_v2(&c));
    c.src_lod = 0;
    c.reserved1 = NULL;
    c.dst_height = H;
    assert_int_equal(cuMemcpy3D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    c.dst_height = H + 1;
    c.depth = D + 2; /* past the array's slices */
    assert_int_equal(cuMemcpy3D_v2(&c), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuMemFree_v2(dev));
}

/*
 * An array destroyed while queued copies still use it: the destroy waits for
 * them, as the driver's does, so they copy the live array.
 */
static void queued_copy_outlived(void **state)
{
    unsigned char *in = NULL, *out = NULL;
    cuabi_array a = array_2d(64, 0, CUABI_AD_FORMAT_UNSIGNED_INT8, 1);
    cuabi_stream s = NULL;
    unsigned long faults = gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT);

    (void)state;
    CU_OK(cuMemAllocHost_v2((void **)&in, 64)); /* page-locked: the copies stay queued */
    CU_OK(cuMemAllocHost_v2((void **)&out, 64));
    for (int i = 0; i < 64; i++)
        in[i] = (unsigned char)(i + 7);
    memset(out, 0, 64);
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuMemcpyHtoAAsync_v2(a, 0, in, 64, s));
    CU_OK(cuMemcpyAtoHAsync_v2(out, a, 0, 64, s));
    assert_int_equal(gpu_fake_pending(), 2);
    CU_OK(cuArrayDestroy(a));
    assert_int_equal(gpu_fake_pending(), 0);
    assert_memory_equal(in, out, 64);
    CU_OK(cuStreamSynchronize(s));
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT), faults);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFreeHost(in));
    CU_OK(cuMemFreeHost(out));
}

/* Mipmapped arrays: each level half the last, reached as an array; refused level counts and destroys. */
static void mipmaps(void **state)
{
    cuabi_array3d_descriptor d = {16, 5, 0, CUABI_AD_FORMAT_FLOAT, 4, 0}, got;
    cuabi_mipmapped_array m = NULL;
    cuabi_array level = NULL;
    static float texels[16 * 4];

    (void)state;
    CU_OK(cuMipmappedArrayCreate(&m, &d, 6)); /* 16 has 5 levels: 5 are made */
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 5);
    assert_int_equal(cuMipmappedArrayGetLevel(&level, m, 5), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMipmappedArrayDestroy(m));
    assert_int_equal(cuMipmappedArrayCreate(&m, &d, 0), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMipmappedArrayCreate(&m, &d, 5));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MIPMAPPED_ARRAYS), 1);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 5);
    for (unsigned i = 0; i < 5; i++) {
        CU_OK(cuMipmappedArrayGetLevel(&level, m, i));
        CU_OK(cuArray3DGetDescriptor_v2(&got, level));
        assert_int_equal(got.width, 16 >> i);
        assert_int_equal(got.height, (5 >> i) ? 5 >> i : 1);
        assert_int_equal(got.channels, 4);
    }
    assert_int_equal(cuMipmappedArrayGetLevel(&level, m, 5), CUABI_ERROR_INVALID_VALUE);
    /* The last level, 1 by 1, holds one texel of four floats. */
    CU_OK(cuMemcpyHtoA_v2(level, 0, texels, 16));
    assert_int_equal(cuMemcpyHtoA_v2(level, 0, texels, 17), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuArrayDestroy(level), CUABI_ERROR_INVALID_HANDLE); /* it goes with its mipmap */
    CU_OK(cuMipmappedArrayDestroy(m));
    assert_int_equal(cuMipmappedArrayDestroy(m), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuMipmappedArrayGetLevel(&level, m, 0), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MIPMAPPED_ARRAYS), 0);
}

/* Destroying a context destroys its arrays. */
static void context_end(void **state)
{
    cuabi_context ctx = NULL, primary = NULL;
    cuabi_mipmapped_array m = NULL;
    cuabi_array3d_descriptor d = {8, 8, 0, CUABI_AD_FORMAT_FLOAT, 1, 0};

    (void)state;
    CU_OK(cuCtxGetCurrent(&primary));
    CU_OK(cuCtxCreate_v2(&ctx, 0, 0));
    array_2d(4, 4, CUABI_AD_FORMAT_FLOAT, 1);
    CU_OK(cuMipmappedArrayCreate(&m, &d, 2));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 3);
    CU_OK(cuCtxDestroy_v2(ctx));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MIPMAPPED_ARRAYS), 0);
    CU_OK(cuCtxSetCurrent(primary));
}

/* Page-locked memory's flags and device address, and a 2D copy naming it by its unified address. */
static void host_memory(void **state)
{
    unsigned char *p = NULL, rows[2][8];
    static unsigned char reg[64];
    cuabi_deviceptr d = 0, dev = 0;
    unsigned flags = 99;
    cuabi_memcpy2d c;

    (void)state;
    assert_int_equal(cuMemHostAlloc((void **)&p, 64, 8), CUABI_ERROR_INVALID_VALUE); /* no such flag */
    CU_OK(cuMemHostAlloc((void **)&p, 64, CUABI_MEMHOSTALLOC_PORTABLE | CUABI_MEMHOSTALLOC_WRITECOMBINED));
    CU_OK(cuMemHostGetFlags(&flags, p + 10));
    assert_int_equal(flags, CUABI_MEMHOSTALLOC_PORTABLE | CUABI_MEMHOSTALLOC_WRITECOMBINED | CUABI_MEMHOSTALLOC_DEVICEMAP);
    CU_OK(cuMemHostGetDevicePointer_v2(&d, p + 3, 0));
    assert_true(d == (uintptr_t)(p + 3));
    assert_int_equal(cuMemHostGetDevicePointer_v2(&d, p, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemHostGetDevicePointer_v2(&d, rows, 0), CUABI_ERROR_INVALID_VALUE); /* pageable */
    assert_int_equal(cuMemHostGetFlags(&flags, rows), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemHostGetFlags(NULL, p), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemHostRegister_v2(reg, sizeof(reg), CUABI_MEMHOSTREGISTER_READ_ONLY));
    CU_OK(cuMemHostGetFlags(&flags, reg));
    assert_int_equal(flags, CUABI_MEMHOSTREGISTER_READ_ONLY | CUABI_MEMHOSTALLOC_DEVICEMAP);
    CU_OK(cuMemHostUnregister(reg));
    /* Two rows of 8 from page-locked memory (pitch 32) to device memory and back, by unified addresses. */
    for (int i = 0; i < 64; i++)
        p[i] = (unsigned char)i;
    CU_OK(cuMemAlloc_v2(&dev, 16));
    c = plain_2d(CUABI_MEMORYTYPE_UNIFIED, p, 32, CUABI_MEMORYTYPE_UNIFIED, DEV(dev), 8, 8, 2);
    CU_OK(cuMemcpy2D_v2(&c));
    CU_OK(cuMemcpyDtoH_v2(rows, dev, sizeof(rows)));
    assert_memory_equal(rows[0], p, 8);
    assert_memory_equal(rows[1], p + 32, 8);
    CU_OK(cuMemFree_v2(dev));
    CU_OK(cuMemFreeHost(p));
    assert_int_equal(cuMemHostGetFlags(&flags, p), CUABI_ERROR_INVALID_VALUE);
}

/* A program's use of arrays and 2D copies as one sequence, stopping at the first failure and cleaning up. */
static cuabi_result sequence(void)
{
    static float host[8][8];
    cuabi_array3d_descriptor d = {8, 8, 0, CUABI_AD_FORMAT_FLOAT, 1, 0};
    cuabi_array a = NULL;
    cuabi_mipmapped_array m = NULL;
    cuabi_deviceptr dev = 0;
    size_t pitch = 0;
    cuabi_memcpy2d c;
    cuabi_result rc = cuMemAllocPitch_v2(&dev, &pitch, sizeof(host[0]), 8, 4);

    memset(&c, 0, sizeof(c));
    c = plain_2d(CUABI_MEMORYTYPE_HOST, host, sizeof(host[0]), CUABI_MEMORYTYPE_DEVICE, DEV(dev), pitch,
                 sizeof(host[0]), 8);
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpy2D_v2(&c);
    if (rc == CUABI_SUCCESS)
        rc = cuArray3DCreate_v2(&a, &d);
    if (rc == CUABI_SUCCESS) {
        c.src_type = CUABI_MEMORYTYPE_DEVICE;
        c.src_device = dev;
        c.src_pitch = pitch;
        c.dst_type = CUABI_MEMORYTYPE_ARRAY;
        c.dst_array = a;
        rc = cuMemcpy2DAsync_v2(&c, NULL);
    }
    if (rc == CUABI_SUCCESS)
        rc = cuMipmappedArrayCreate(&m, &d, 3);
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpyAtoH_v2(host, a, 0, sizeof(host));
    cuCtxSynchronize(); /* the queued copy done before its array goes */
    if (m)
        cuMipmappedArrayDestroy(m);
    if (a)
        cuArrayDestroy(a);
    if (dev)
        cuMemFree_v2(dev);
    return rc;
}

static void sweep(void **state)
{
    static const char *const calls[] = {"cuMemAllocPitch_v2", "cuMemcpy2D_v2",         "cuArray3DCreate_v2",
                                        "cuMemcpy2DAsync_v2", "cuMipmappedArrayCreate", "cuMemcpyAtoH_v2",
                                        "cuMipmappedArrayDestroy", "cuArrayDestroy",    "cuMemFree_v2"};
    ft_mark mark;

    (void)state;
    ft_mark_take(&mark);
    CU_OK(sequence());
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        bool destroy = strstr(calls[i], "Destroy") || strstr(calls[i], "Free");

        assert_int_equal(gpu_fake_fail(calls[i], 1, CUABI_ERROR_UNKNOWN), 0);
        assert_int_equal(sequence(), destroy ? CUABI_SUCCESS : CUABI_ERROR_UNKNOWN);
        gpu_fake_fail_reset();
        /* A failed destroy leaves its object: the program frees it again, as a careful one would. */
        if (strcmp(calls[i], "cuMipmappedArrayDestroy") == 0)
            CU_OK(cuMipmappedArrayDestroy((cuabi_mipmapped_array)gpu_fake_newest(GPU_FAKE_LIVE_MIPMAPPED_ARRAYS)));
        if (strcmp(calls[i], "cuArrayDestroy") == 0)
            CU_OK(cuArrayDestroy((cuabi_array)gpu_fake_newest(GPU_FAKE_LIVE_ARRAYS)));
        if (strcmp(calls[i], "cuMemFree_v2") == 0)
            CU_OK(cuMemFree_v2((cuabi_deviceptr)(uintptr_t)gpu_fake_newest(GPU_FAKE_LIVE_DEVICE_ALLOCS)));
        print_message("%s failed in turn\n", calls[i]);
        FT_MARK_CHECK(&mark);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_2d),
        cmocka_unit_test(copy_2d_errors),
        cmocka_unit_test(arrays),
        cmocka_unit_test(array_descriptors),
        cmocka_unit_test(copy_3d),
        cmocka_unit_test(queued_copy_outlived),
        cmocka_unit_test(mipmaps),
        cmocka_unit_test(context_end),
        cmocka_unit_test(host_memory),
        cmocka_unit_test(sweep),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
