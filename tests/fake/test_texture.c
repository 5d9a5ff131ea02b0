/* SPDX-License-Identifier: MIT */
/*
 * The fake's texture and surface objects, as a CUDA program makes them and
 * as its kernels read them: host kernels registered here read texels
 * (gpu_fake_texture_read()) and access surfaces (gpu_fake_surface_read/write())
 * for coordinates the test gives, and the test checks what a GPU's texture
 * unit returns. Also the driver's checks, descriptions, a resource gone
 * before the kernel runs, and each driver call failed in turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
                          ".visible .entry sample(.param .u64 t, .param .u64 in, .param .u64 out, .param .u32 n) { ret; }\n"
                          ".visible .entry surface(.param .u64 s, .param .u64 ops, .param .u32 n) { ret; }\n"
                          ".visible .entry store(.param .u64 dst, .param .u32 v) { ret; }\n";

/* One read: coordinates and level of detail in; the texel out. */
struct read {
    float coords[3], lod;
    gpu_fake_texel texel;
};

/* One surface access. */
struct op {
    long long x, y, z;
    unsigned size, boundary, write;
    unsigned char bytes[16];
};

static int sample_kernel(const gpu_fake_launch *l)
{
    uint64_t tex, in;
    uint32_t n;
    struct read *r;

    if (gpu_fake_param(l, 0, &tex, 8) || gpu_fake_param(l, 1, &in, 8) || gpu_fake_param(l, 3, &n, 4) ||
        !(r = gpu_fake_memory(l, in, n * sizeof(*r))))
        return 700;
    for (uint32_t i = 0; i < n; i++)
        if (gpu_fake_texture_read(l, tex, r[i].coords, r[i].lod, &r[i].texel) != 0)
            return 700;
    return 0;
}

static int surface_kernel(const gpu_fake_launch *l)
{
    uint64_t surf, ops;
    uint32_t n;
    struct op *o;

    if (gpu_fake_param(l, 0, &surf, 8) || gpu_fake_param(l, 1, &ops, 8) || gpu_fake_param(l, 2, &n, 4) ||
        !(o = gpu_fake_memory(l, ops, n * sizeof(*o))))
        return 700;
    for (uint32_t i = 0; i < n; i++) {
        int rc = o[i].write ? gpu_fake_surface_write(l, surf, o[i].x, o[i].y, o[i].z, o[i].bytes, o[i].size,
                                                     (gpu_fake_boundary)o[i].boundary)
                            : gpu_fake_surface_read(l, surf, o[i].x, o[i].y, o[i].z, o[i].bytes, o[i].size,
                                                    (gpu_fake_boundary)o[i].boundary);

        if (rc != 0)
            return 700;
    }
    return 0;
}

/* *dst = v, where dst may be page-locked host memory's device address. */
static int store_kernel(const gpu_fake_launch *l)
{
    uint64_t dst;
    uint32_t v, *p;

    if (gpu_fake_param(l, 0, &dst, 8) || gpu_fake_param(l, 1, &v, 4) || !(p = gpu_fake_memory(l, dst, 4)))
        return 700;
    *p = v;
    return 0;
}

static cuabi_module module;
static cuabi_function sample_fn, surface_fn, store_fn;

static int setup(void **state)
{
    cuabi_context ctx = NULL;

    (void)state;
    gpu_fake_kernel_register("sample", sample_kernel, NULL);
    gpu_fake_kernel_register("surface", surface_kernel, NULL);
    gpu_fake_kernel_register("store", store_kernel, NULL);
    CU_OK(cuInit(0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxSetCurrent(ctx));
    CU_OK(cuModuleLoadData(&module, ptx));
    CU_OK(cuModuleGetFunction(&sample_fn, module, "sample"));
    CU_OK(cuModuleGetFunction(&surface_fn, module, "surface"));
    CU_OK(cuModuleGetFunction(&store_fn, module, "store"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuModuleUnload(module));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    return 0;
}

/* Runs the reads through the kernel; the launch's result at synchronisation. */
static cuabi_result run_reads(cuabi_tex_object tex, struct read *r, unsigned n)
{
    cuabi_deviceptr d = 0;
    uint64_t t = tex, out = 0;
    void *params[] = {&t, &d, &out, &n};
    cuabi_result rc;

    CU_OK(cuMemAlloc_v2(&d, n * sizeof(*r)));
    CU_OK(cuMemcpyHtoD_v2(d, r, n * sizeof(*r)));
    CU_OK(cuLaunchKernel(sample_fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    rc = cuCtxSynchronize();
    CU_OK(cuMemcpyDtoH_v2(r, d, n * sizeof(*r)));
    CU_OK(cuMemFree_v2(d));
    return rc;
}

/* The first channel of one read as a float. */
static float read1(cuabi_tex_object tex, float x, float y, float z, float lod)
{
    struct read r = {{x, y, z}, lod, {{0}, {0}, false}};

    CU_OK(run_reads(tex, &r, 1));
    return r.texel.f[0];
}

/* Point reads of a 4x3 float array: texel centres, each address mode, normalized coordinates. */
static void point_modes(void **state)
{
    float v[3][4];
    cuabi_array a;
    cuabi_tex_object t;

    (void)state;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            v[y][x] = (float)(y * 10 + x);
    a = ft_array_of(4, 3, 0, CUABI_AD_FORMAT_FLOAT, 1, 0, v, sizeof(v));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    assert_true(read1(t, 2.5f, 1.5f, 0, 0) == 12.0f);
    assert_true(read1(t, 2.99f, 1.0f, 0, 0) == 12.0f);
    assert_true(read1(t, -7.0f, 9.0f, 0, 0) == 20.0f); /* clamped to (0, 2) */
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_BORDER, CUABI_TR_FILTER_MODE_POINT, 0);
    assert_true(read1(t, 4.0f, 0.5f, 0, 0) == 100.0f);
    assert_true(read1(t, 3.5f, 0.5f, 0, 0) == 3.0f);
    CU_OK(cuTexObjectDestroy(t));
    /* Without normalized coordinates, wrap is clamp; with them, it wraps. */
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_WRAP, CUABI_TR_FILTER_MODE_POINT, 0);
    assert_true(read1(t, 5.5f, 0.5f, 0, 0) == 3.0f);
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_WRAP, CUABI_TR_FILTER_MODE_POINT, CUABI_TRSF_NORMALIZED_COORDINATES);
    assert_true(read1(t, 1.375f, 0.5f, 0, 0) == 11.0f); /* 1.375 wraps to 0.375: texel 1 of 4 */
    assert_true(read1(t, -0.125f, 0.5f, 0, 0) == 13.0f);
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_MIRROR, CUABI_TR_FILTER_MODE_POINT, CUABI_TRSF_NORMALIZED_COORDINATES);
    assert_true(read1(t, 1.125f, 0.5f, 0, 0) == 13.0f); /* mirrored: texel 3 - 0 */
    assert_true(read1(t, -0.125f, 0.5f, 0, 0) == 10.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}

/* Linear filtering of a 1D array, with the texture unit's 8-bit weights; the border blended in. */
static void linear_filter(void **state)
{
    const float v[4] = {0, 10, 20, 30};
    cuabi_array a = ft_array_of(4, 0, 0, CUABI_AD_FORMAT_FLOAT, 1, 0, v, sizeof(v));
    cuabi_tex_object t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_LINEAR, 0);

    (void)state;
    assert_true(read1(t, 1.0f, 0, 0, 0) == 5.0f);
    assert_true(read1(t, 1.25f, 0, 0, 0) == 7.5f);
    assert_true(read1(t, 1.0f + 1.0f / 1024, 0, 0, 0) == 5.0f); /* 0.5 + 1/1024 weighs as 0.5 */
    assert_true(read1(t, 0.25f, 0, 0, 0) == 0.0f);
    assert_true(read1(t, 9.0f, 0, 0, 0) == 30.0f);
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_BORDER, CUABI_TR_FILTER_MODE_LINEAR, 0);
    assert_true(read1(t, 0.25f, 0, 0, 0) == 25.0f); /* a quarter of the border's 100 */
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}

/* Element formats: 8- and 16-bit integers promoted or read as integers, half, 32-bit integers, two channels. */
static void formats(void **state)
{
    const unsigned char u8[2] = {255, 51};
    const signed char s8[2] = {-128, 127};
    const uint16_t half[2] = {0x3c00, 0xc000};
    const int32_t i32[2] = {-5, 7};
    struct read r = {{1.5f, 0, 0}, 0, {{0}, {0}, false}};
    cuabi_array a;
    cuabi_tex_object t;

    (void)state;
    a = ft_array_of(2, 0, 0, CUABI_AD_FORMAT_UNSIGNED_INT8, 1, 0, u8, 2);
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    assert_true(read1(t, 0.5f, 0, 0, 0) == 1.0f);
    assert_true(read1(t, 1.5f, 0, 0, 0) == 0.2f);
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, CUABI_TRSF_READ_AS_INTEGER);
    r.coords[0] = 0.5f;
    CU_OK(run_reads(t, &r, 1));
    assert_true(r.texel.integer);
    assert_int_equal(r.texel.i[0], 255);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(2, 0, 0, CUABI_AD_FORMAT_SIGNED_INT8, 1, 0, s8, 2);
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    assert_true(read1(t, 0.5f, 0, 0, 0) == -1.0f);
    assert_true(read1(t, 1.5f, 0, 0, 0) == 1.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(1, 0, 0, CUABI_AD_FORMAT_HALF, 2, 0, half, 4);
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    r.coords[0] = 0.5f;
    CU_OK(run_reads(t, &r, 1));
    assert_false(r.texel.integer);
    assert_true(r.texel.f[0] == 1.0f && r.texel.f[1] == -2.0f && r.texel.f[2] == 0.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(2, 0, 0, CUABI_AD_FORMAT_SIGNED_INT32, 1, 0, i32, 8);
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    CU_OK(run_reads(t, &r, 1));
    assert_true(r.texel.integer);
    assert_int_equal(r.texel.i[0], -5);
    CU_OK(cuTexObjectDestroy(t));
    /* Linear filtering of integers is taken, and reads as point filtering: 1.4 is texel 1's value, not a mix. */
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_LINEAR, 0);
    r.coords[0] = 1.4f;
    CU_OK(run_reads(t, &r, 1));
    assert_true(r.texel.integer);
    assert_int_equal(r.texel.i[0], 7);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}

/* Pitched and linear device memory, a layered array, a 3D array. */
static void resources(void **state)
{
    float rows[2][64], layers[3][2], cube[2][2][2];
    cuabi_deviceptr d = 0;
    size_t pitch = 0;
    cuabi_resource_desc res;
    cuabi_texture_desc td;
    cuabi_tex_object t = 0;
    cuabi_array a;

    (void)state;
    for (int i = 0; i < 64; i++)
        rows[0][i] = (float)i, rows[1][i] = (float)(100 + i);
    CU_OK(cuMemAllocPitch_v2(&d, &pitch, sizeof(rows[0]), 2, 4));
    CU_OK(cuMemcpyHtoD_v2(d + pitch, rows[1], sizeof(rows[1])));
    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_PITCH2D;
    res.res.pitch2d.ptr = d;
    res.res.pitch2d.format = CUABI_AD_FORMAT_FLOAT;
    res.res.pitch2d.channels = 1;
    res.res.pitch2d.width = 64;
    res.res.pitch2d.height = 2;
    res.res.pitch2d.pitch = pitch;
    memset(&td, 0, sizeof(td));
    td.address_mode[0] = td.address_mode[1] = CUABI_TR_ADDRESS_MODE_CLAMP;
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    assert_true(read1(t, 7.5f, 1.5f, 0, 0) == 107.0f);
    CU_OK(cuTexObjectDestroy(t));
    /* Linear memory: tex1Dfetch's integer index, zeros outside. */
    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_LINEAR;
    res.res.linear.ptr = d + pitch;
    res.res.linear.format = CUABI_AD_FORMAT_FLOAT;
    res.res.linear.channels = 1;
    res.res.linear.bytes = sizeof(rows[1]);
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    assert_true(read1(t, 5, 0, 0, 0) == 105.0f);
    assert_true(read1(t, 64, 0, 0, 0) == 0.0f);
    assert_true(read1(t, -1, 0, 0, 0) == 0.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuMemFree_v2(d));
    /* A layered 1D array: the layer after x. */
    for (int l = 0; l < 3; l++)
        layers[l][0] = (float)l, layers[l][1] = (float)(l + 10);
    a = ft_array_of(2, 0, 3, CUABI_AD_FORMAT_FLOAT, 1, CUABI_ARRAY3D_LAYERED, layers, sizeof(layers));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    assert_true(read1(t, 1.5f, 2, 0, 0) == 12.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    for (int i = 0; i < 8; i++)
        (&cube[0][0][0])[i] = (float)i;
    a = ft_array_of(2, 2, 2, CUABI_AD_FORMAT_FLOAT, 1, 0, cube, sizeof(cube));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    assert_true(read1(t, 1.5f, 0.5f, 1.5f, 0) == 5.0f);
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_LINEAR, 0);
    assert_true(read1(t, 1.0f, 1.0f, 1.0f, 0) == 3.5f); /* the mean of all eight */
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}

/* A mipmapped array: level i holds i + 1 everywhere; the level of detail picks, blends and is clamped. */
static void mipmap_levels(void **state)
{
    cuabi_mipmapped_array m = NULL;
    cuabi_resource_desc res;
    cuabi_texture_desc td;
    cuabi_tex_object t = 0;

    (void)state;
    m = ft_mipmap_levels(&res);
    memset(&td, 0, sizeof(td));
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE); /* needs normalized */
    td.flags = CUABI_TRSF_NORMALIZED_COORDINATES;
    td.max_mipmap_level_clamp = 1.0f;
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    assert_true(read1(t, 0.5f, 0.5f, 0, 0.25f) == 1.0f);
    assert_true(read1(t, 0.5f, 0.5f, 0, 0.75f) == 2.0f);
    assert_true(read1(t, 0.5f, 0.5f, 0, 5.0f) == 2.0f); /* clamped to level 1 */
    CU_OK(cuTexObjectDestroy(t));
    td.mipmap_filter_mode = CUABI_TR_FILTER_MODE_LINEAR;
    td.max_mipmap_level_clamp = 0;
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    assert_true(read1(t, 0.5f, 0.5f, 0, 1.5f) == 2.5f);
    assert_true(read1(t, 0.5f, 0.5f, 0, 9.0f) == 3.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuMipmappedArrayDestroy(m));
}

/* Descriptions back as created; what cuTexObjectCreate refuses. */
static void texture_objects(void **state)
{
    cuabi_array a = ft_array_of(4, 4, 0, CUABI_AD_FORMAT_SIGNED_INT32, 1, 0, NULL, 0);
    cuabi_resource_desc res, got_res;
    cuabi_texture_desc td, got_td;
    cuabi_resource_view_desc view, got_view;
    cuabi_tex_object t = 0;
    cuabi_deviceptr d = 0;

    (void)state;
    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_ARRAY;
    res.res.array.array = a;
    memset(&td, 0, sizeof(td));
    td.address_mode[0] = CUABI_TR_ADDRESS_MODE_BORDER;
    td.border_color[2] = 0.5f;
    memset(&view, 0, sizeof(view));
    view.width = 4;
    view.height = 4;
    CU_OK(cuTexObjectCreate(&t, &res, &td, &view));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_TEXTURES), 1);
    CU_OK(cuTexObjectGetResourceDesc(&got_res, t));
    assert_memory_equal(&got_res, &res, sizeof(res));
    CU_OK(cuTexObjectGetTextureDesc(&got_td, t));
    assert_memory_equal(&got_td, &td, sizeof(td));
    CU_OK(cuTexObjectGetResourceViewDesc(&got_view, t));
    assert_memory_equal(&got_view, &view, sizeof(view));
    assert_int_equal(cuTexObjectGetResourceDesc(NULL, t), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuTexObjectDestroy(t));
    assert_int_equal(cuTexObjectDestroy(t), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuTexObjectGetTextureDesc(&got_td, t), CUABI_ERROR_INVALID_HANDLE);
    /* Refused: missing arguments, flags, an unknown resource, unknown modes, views. */
    assert_int_equal(cuTexObjectCreate(NULL, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuTexObjectCreate(&t, &res, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    res.flags = 1;
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    res.flags = 0;
    res.type = 9;
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    res.type = CUABI_RESOURCE_TYPE_ARRAY;
    td.address_mode[1] = 4;
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    td.address_mode[1] = 0;
    view.width = 5;
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, &view), CUABI_ERROR_INVALID_VALUE);
    view.width = 4;
    view.format = 0x42;
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, &view), CUABI_ERROR_NOT_SUPPORTED);
    /* Device memory: aligned, pitched as the device requires, allocated. */
    CU_OK(cuMemAlloc_v2(&d, 4096));
    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_PITCH2D;
    res.res.pitch2d.ptr = d;
    res.res.pitch2d.format = CUABI_AD_FORMAT_FLOAT;
    res.res.pitch2d.channels = 1;
    res.res.pitch2d.width = 16;
    res.res.pitch2d.height = 4;
    res.res.pitch2d.pitch = 64;
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    CU_OK(cuTexObjectDestroy(t));
    res.res.pitch2d.pitch = 48; /* not a multiple of the pitch alignment */
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    res.res.pitch2d.pitch = 64;
    res.res.pitch2d.width = 17; /* wider than the pitch */
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    res.res.pitch2d.width = 16;
    res.res.pitch2d.ptr = d + 4; /* misaligned */
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    res.res.pitch2d.ptr = d;
    res.res.pitch2d.height = 65; /* past the allocation */
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    res.res.pitch2d.height = 4;
    res.res.pitch2d.channels = 3;
    assert_int_equal(cuTexObjectCreate(&t, &res, &td, NULL), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuArrayDestroy(a));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_TEXTURES), 0);
}

/* A kernel reading a handle that is no texture, or a texture whose array is gone: the stream's fault. */
static void read_faults(void **state)
{
    const float v[2] = {1, 2};
    cuabi_array a = ft_array_of(2, 0, 0, CUABI_AD_FORMAT_FLOAT, 1, 0, v, sizeof(v));
    cuabi_tex_object t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    struct read r = {{0.5f, 0, 0}, 0, {{0}, {0}, false}};
    unsigned long faults = gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT);

    (void)state;
    assert_int_equal(run_reads(t + 1000, &r, 1), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuArrayDestroy(a));
    assert_int_equal(run_reads(t, &r, 1), CUABI_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT), faults + 2);
    CU_OK(cuTexObjectDestroy(t));
}

static cuabi_result run_ops(cuabi_surf_object s, struct op *o, unsigned n)
{
    cuabi_deviceptr d = 0;
    uint64_t h = s;
    void *params[] = {&h, &d, &n};
    cuabi_result rc;

    CU_OK(cuMemAlloc_v2(&d, n * sizeof(*o)));
    CU_OK(cuMemcpyHtoD_v2(d, o, n * sizeof(*o)));
    CU_OK(cuLaunchKernel(surface_fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    rc = cuCtxSynchronize();
    CU_OK(cuMemcpyDtoH_v2(o, d, n * sizeof(*o)));
    CU_OK(cuMemFree_v2(d));
    return rc;
}

/* Surfaces: written and read by a kernel at byte offsets, each boundary mode; what cuSurfObjectCreate refuses. */
static void surfaces(void **state)
{
    cuabi_array a = ft_array_of(4, 2, 0, CUABI_AD_FORMAT_UNSIGNED_INT16, 2, CUABI_ARRAY3D_SURFACE_LDST, NULL, 0);
    cuabi_array plain = ft_array_of(4, 2, 0, CUABI_AD_FORMAT_UNSIGNED_INT16, 2, 0, NULL, 0);
    cuabi_resource_desc res, got;
    cuabi_surf_object s = 0;
    uint16_t back[2][4][2];
    struct op o[4];

    (void)state;
    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_ARRAY;
    res.res.array.array = plain;
    CU_OK(cuSurfObjectCreate(&s, &res)); /* not made for surfaces: taken, as an H200 takes it */
    CU_OK(cuSurfObjectDestroy(s));
    res.type = CUABI_RESOURCE_TYPE_LINEAR;
    assert_int_equal(cuSurfObjectCreate(&s, &res), CUABI_ERROR_INVALID_VALUE);
    res.type = CUABI_RESOURCE_TYPE_ARRAY;
    res.res.array.array = a;
    CU_OK(cuSurfObjectCreate(&s, &res));
    CU_OK(cuSurfObjectGetResourceDesc(&got, s));
    assert_memory_equal(&got, &res, sizeof(res));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_SURFACES), 1);
    memset(o, 0, sizeof(o));
    o[0] = (struct op){12, 1, 0, 4, GPU_FAKE_BOUNDARY_TRAP, 1, {1, 2, 3, 4}};  /* element (3, 1) */
    o[1] = (struct op){16, 1, 0, 4, GPU_FAKE_BOUNDARY_CLAMP, 1, {9, 9, 9, 9}}; /* clamped onto (3, 1) */
    o[2] = (struct op){12, 7, 0, 4, GPU_FAKE_BOUNDARY_ZERO, 0, {5, 5, 5, 5}};  /* outside: zeros */
    o[3] = (struct op){-4, 0, 0, 4, GPU_FAKE_BOUNDARY_ZERO, 1, {7, 7, 7, 7}};  /* outside: nothing written */
    CU_OK(run_ops(s, o, 4));
    assert_memory_equal(o[2].bytes, "\0\0\0\0", 4);
    CU_OK(cuMemcpyAtoH_v2(back, a, 0, sizeof(back)));
    assert_memory_equal(&back[1][3], "\x09\x09\x09\x09", 4);
    assert_int_equal(back[0][0][0], 0);
    o[0] = (struct op){12, 2, 0, 4, GPU_FAKE_BOUNDARY_TRAP, 0, {0}};
    assert_int_equal(run_ops(s, o, 1), CUABI_ERROR_ILLEGAL_ADDRESS);
    o[0] = (struct op){0, 0, 0, 8, GPU_FAKE_BOUNDARY_TRAP, 0, {0}}; /* more than an element */
    assert_int_equal(run_ops(s, o, 1), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuSurfObjectDestroy(s));
    assert_int_equal(cuSurfObjectDestroy(s), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuArrayDestroy(plain));
}

/* A host kernel writes page-locked memory through its device address; past its end is a fault. */
static void mapped_host_memory(void **state)
{
    uint32_t *p = NULL, v = 0xfeedf00d;
    cuabi_deviceptr d = 0;
    void *params[] = {&d, &v};

    (void)state;
    CU_OK(cuMemHostAlloc((void **)&p, 8, CUABI_MEMHOSTALLOC_DEVICEMAP));
    CU_OK(cuMemHostGetDevicePointer_v2(&d, p, 0));
    d += 4;
    CU_OK(cuLaunchKernel(store_fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    CU_OK(cuCtxSynchronize());
    assert_int_equal(p[1], 0xfeedf00d);
    d += 4;
    CU_OK(cuLaunchKernel(store_fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    assert_int_equal(cuCtxSynchronize(), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuMemFreeHost(p));
}

/* Destroying a context destroys its texture and surface objects. */
static void context_end(void **state)
{
    cuabi_context ctx = NULL, primary = NULL;
    cuabi_array a;
    cuabi_resource_desc res;
    cuabi_surf_object s = 0;

    (void)state;
    CU_OK(cuCtxGetCurrent(&primary));
    CU_OK(cuCtxCreate_v2(&ctx, 0, 0));
    a = ft_array_of(4, 4, 0, CUABI_AD_FORMAT_FLOAT, 1, CUABI_ARRAY3D_SURFACE_LDST, NULL, 0);
    ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_ARRAY;
    res.res.array.array = a;
    CU_OK(cuSurfObjectCreate(&s, &res));
    CU_OK(cuCtxDestroy_v2(ctx));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_TEXTURES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_SURFACES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_ARRAYS), 0);
    CU_OK(cuCtxSetCurrent(primary));
}

/* Textures and surfaces as a program uses them, stopping at the first failure and cleaning up. */
static cuabi_result sequence(void)
{
    cuabi_array3d_descriptor d = {8, 8, 0, CUABI_AD_FORMAT_FLOAT, 1, CUABI_ARRAY3D_SURFACE_LDST};
    cuabi_resource_desc res, got;
    cuabi_texture_desc td;
    cuabi_array a = NULL;
    cuabi_tex_object t = 0;
    cuabi_surf_object s = 0;
    cuabi_result rc = cuArray3DCreate_v2(&a, &d);

    memset(&res, 0, sizeof(res));
    memset(&td, 0, sizeof(td));
    res.type = CUABI_RESOURCE_TYPE_ARRAY;
    res.res.array.array = a;
    if (rc == CUABI_SUCCESS)
        rc = cuTexObjectCreate(&t, &res, &td, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuSurfObjectCreate(&s, &res);
    if (rc == CUABI_SUCCESS)
        rc = cuTexObjectGetResourceDesc(&got, t);
    if (rc == CUABI_SUCCESS)
        rc = cuSurfObjectGetResourceDesc(&got, s);
    if (s && cuSurfObjectDestroy(s) != CUABI_SUCCESS)
        cuSurfObjectDestroy(s); /* a failed destroy is tried again, as a careful program would */
    if (t && cuTexObjectDestroy(t) != CUABI_SUCCESS)
        cuTexObjectDestroy(t);
    if (a && cuArrayDestroy(a) != CUABI_SUCCESS)
        cuArrayDestroy(a);
    return rc;
}

static void sweep(void **state)
{
    static const char *const calls[] = {"cuArray3DCreate_v2",         "cuTexObjectCreate",
                                        "cuSurfObjectCreate",         "cuTexObjectGetResourceDesc",
                                        "cuSurfObjectGetResourceDesc", "cuSurfObjectDestroy",
                                        "cuTexObjectDestroy",         "cuArrayDestroy"};
    ft_mark mark;

    (void)state;
    ft_mark_take(&mark);
    CU_OK(sequence());
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        assert_int_equal(gpu_fake_fail(calls[i], 1, CUABI_ERROR_UNKNOWN), 0);
        assert_int_equal(sequence(), strstr(calls[i], "Destroy") ? CUABI_SUCCESS : CUABI_ERROR_UNKNOWN);
        gpu_fake_fail_reset();
        print_message("%s failed in turn\n", calls[i]);
        FT_MARK_CHECK(&mark);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(point_modes),     cmocka_unit_test(linear_filter), cmocka_unit_test(formats),
        cmocka_unit_test(resources),       cmocka_unit_test(mipmap_levels), cmocka_unit_test(texture_objects),
        cmocka_unit_test(read_faults),     cmocka_unit_test(surfaces),      cmocka_unit_test(context_end),
        cmocka_unit_test(mapped_host_memory), cmocka_unit_test(sweep),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
