/* SPDX-License-Identifier: MIT */
/*
 * Texture and surface instructions on the fake's PTX interpreter: kernels in
 * PTX of the forms nvcc writes for tex2D, tex2DLayered, tex1Dfetch,
 * tex2DLod, surf2Dread and the rest read texture objects and access surface
 * objects, and the test compares what they got with what a host kernel gets
 * for the same reads through gpu_fake_texture_read() (the same sampler), and
 * with values computed here; texCubemap's forms (which host kernels do not
 * read) with values computed here. A trap-mode access outside a surface and a bad
 * handle fail the launch with the PTX line; a texture reference is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_test.h"

/*
 * One texture kernel: thread i reads record i of `in` (x, y, z as floats,
 * then an integer: a layer or an index), runs `inst` and stores its four
 * results as record i of `out`.
 */
#define TEX_KERNEL(name, inst, store) \
    ".visible .entry " name "(.param .u64 t, .param .u64 in, .param .u64 out)\n{\n" \
    "\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<8>;\n" \
    "\tld.param.u64 %rd1, [t];\n\tld.param.u64 %rd2, [in];\n\tld.param.u64 %rd3, [out];\n" \
    "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd4, %r1, 16;\n" \
    "\tadd.s64 %rd5, %rd2, %rd4;\n\tadd.s64 %rd6, %rd3, %rd4;\n" \
    "\tld.global.v2.f32 {%f1, %f2}, [%rd5];\n\tld.global.f32 %f3, [%rd5+8];\n\tld.global.u32 %r2, [%rd5+12];\n" \
    "\t" inst ";\n\t" store ";\n\tret;\n}\n"
#define TEX_F(name, inst) TEX_KERNEL(name, inst, "st.global.v4.f32 [%rd6], {%f4, %f5, %f6, %f7}")
#define TEX_I(name, inst) TEX_KERNEL(name, inst, "st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r6}")

/*
 * One surface kernel: thread i reads record i of `in` (x in bytes, y, z or
 * the layer, a value) and runs `inst`, whose result (a load's) goes to
 * record i of `out`.
 */
#define SURF_KERNEL(name, inst, store) \
    ".visible .entry " name "(.param .u64 s, .param .u64 in, .param .u64 out)\n{\n" \
    "\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<10>;\n" \
    "\tld.param.u64 %rd1, [s];\n\tld.param.u64 %rd2, [in];\n\tld.param.u64 %rd3, [out];\n" \
    "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd4, %r1, 16;\n" \
    "\tadd.s64 %rd5, %rd2, %rd4;\n\tadd.s64 %rd6, %rd3, %rd4;\n" \
    "\tld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];\n\tld.global.v4.u8 {%rs1, %rs2, %rs3, %rs4}, [%rd5+12];\n" \
    "\t" inst ";\n\t" store ";\n\tret;\n}\n"
#define SURF_LD(name, inst) SURF_KERNEL(name, inst, "st.global.u32 [%rd6], %r6")
#define SURF_ST(name, inst) SURF_KERNEL(name, inst, "mov.u32 %r6, 0")

/* The module's text in parts (a C11 compiler need take no longer literal than 4095 characters); setup() joins them. */
static const char *const ptx_parts[] = {
    ".version 7.8\n.target sm_75\n.address_size 64\n\n"
    /* a host kernel: the reference reads */
    ".visible .entry expect(.param .u64 t, .param .u64 in, .param .u64 out, .param .u32 n, .param .u32 kind) { ret; }\n",
    TEX_F("tex1d", "tex.1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1}]"),
    TEX_F("tex2d", "tex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}]"),
    TEX_F("tex3d", "tex.3d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2, %f3, %f3}]"),
    TEX_F("texa1d", "tex.a1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r2, %f1}]"),
    TEX_F("texa2d", "tex.a2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r2, %f1, %f2, %f2}]"),
    TEX_F("fetch", "tex.1d.v4.f32.s32 {%f4, %f5, %f6, %f7}, [%rd1, {%r2}]"),
    TEX_F("level", "tex.level.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], %f3"),
    TEX_F("grad", "mov.f32 %f0, 0f00000000;\n\ttex.grad.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], "
                  "{%f3, %f0}, {%f0, %f3}"),
    TEX_F("texcube", "tex.cube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2, %f3, %f3}]"),
    TEX_F("texacube", "tex.acube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r2, %f1, %f2, %f3}]"),
    /* the integer the level of detail; the gradients (0, 0, i / 4) and (0, i / 4, 0), z being 0 */
    TEX_F("levelcube", "cvt.rn.f32.s32 %f0, %r2;\n\ttex.level.cube.v4.f32.f32 {%f4, %f5, %f6, %f7}, "
                       "[%rd1, {%f1, %f2, %f3, %f3}], %f0"),
    TEX_F("gradcube", "cvt.rn.f32.s32 %f0, %r2;\n\tmul.f32 %f0, %f0, 0f3E800000;\n\t"
                      "tex.grad.cube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2, %f3, %f3}], "
                      "{%f3, %f3, %f0, %f3}, {%f3, %f0, %f3, %f3}"),
    TEX_I("tex2d_s32", "tex.2d.v4.s32.f32 {%r3, %r4, %r5, %r6}, [%rd1, {%f1, %f2}]"),
    TEX_I("tex2d_u32", "tex.2d.v4.u32.f32 {%r3, %r4, %r5, %r6}, [%rd1, {%f1, %f2}]"),
    SURF_LD("ld_zero", "suld.b.2d.b32.zero {%r6}, [%rd1, {%r2, %r3}]"),
    SURF_LD("ld_clamp", "suld.b.2d.b32.clamp {%r6}, [%rd1, {%r2, %r3}]"),
    SURF_LD("ld_trap", "suld.b.2d.b32.trap {%r6}, [%rd1, {%r2, %r3}]"),
    SURF_ST("st_zero", "sust.b.2d.b32.zero [%rd1, {%r2, %r3}], {%r5}"),
    SURF_ST("st_clamp", "sust.b.2d.b32.clamp [%rd1, {%r2, %r3}], {%r5}"),
    SURF_ST("st_trap", "sust.b.2d.b32.trap [%rd1, {%r2, %r3}], {%r5}"),
    SURF_LD("ld_1d", "suld.b.1d.b32.trap {%r6}, [%rd1, {%r2}]"),
    SURF_LD("ld_3d", "suld.b.3d.b32.trap {%r6}, [%rd1, {%r2, %r3, %r4, %r4}]"),
    SURF_LD("ld_a1d", "suld.b.a1d.b32.trap {%r6}, [%rd1, {%r4, %r2}]"),
    SURF_LD("ld_a2d", "suld.b.a2d.b32.trap {%r6}, [%rd1, {%r4, %r2, %r3, %r3}]"),
    SURF_ST("st_a2d", "sust.b.a2d.b32.trap [%rd1, {%r4, %r2, %r3, %r3}], {%r5}"),
    SURF_LD("ld_v4b8", "suld.b.2d.v4.b8.clamp {%rs5, %rs6, %rs7, %rs4}, [%rd1, {%r2, %r3}];\n"
                       "\tmov.b32 %r6, {%rs5, %rs6, %rs7, %rs4}"),
    SURF_ST("st_v4b8", "sust.b.2d.v4.b8.zero [%rd1, {%r2, %r3}], {%rs1, %rs2, %rs3, %rs4}"),
    SURF_LD("ld_b16", "suld.b.2d.b16.trap {%rs5}, [%rd1, {%r2, %r3}];\n\tcvt.u32.u16 %r6, %rs5"),
    SURF_LD("ld_v2b32", "suld.b.2d.v2.b32.trap {%r6, %r7}, [%rd1, {%r2, %r3}];\n\tadd.s32 %r6, %r6, %r7"),
    SURF_LD("ld_b64", "suld.b.2d.b64.trap {%rd7}, [%rd1, {%r2, %r3}];\n\tshr.u64 %rd8, %rd7, 32;\n"
                      "\tcvt.u32.u64 %r6, %rd7;\n\tcvt.u32.u64 %r7, %rd8;\n\tadd.s32 %r6, %r6, %r7"),
};
static char ptx[20000];

/* A module whose kernel reads through a texture reference, as CUDA 11 wrote it. */
static const char texref_ptx[] = ".version 7.8\n.target sm_75\n.address_size 64\n\n"
                                 ".global .texref tr;\n"
                                 ".visible .entry old(.param .u64 out)\n{\n"
                                 "\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n"
                                 "\tmov.f32 %f1, 0f3F000000;\n"
                                 "\ttex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [tr, {%f1, %f1}];\n"
                                 "\tret;\n}\n"
                                 ".visible .entry gather(.param .u64 t)\n{\n"
                                 "\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n"
                                 "\tld.param.u64 %rd1, [t];\n\tmov.f32 %f1, 0f3F000000;\n"
                                 "\ttld4.r.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f1}];\n"
                                 "\tret;\n}\n";

/* A record of a texture kernel's input. */
struct coord {
    float x, y, z;
    int32_t i;
};

/* Geometries the reference kernel reads as. */
enum { K_1D, K_2D, K_3D, K_A1D, K_A2D, K_FETCH, K_LEVEL };

/* The reference: gpu_fake_texture_read() for each record, the coordinates as the PTX kernel of `kind` passes them. */
static int expect_kernel(const gpu_fake_launch *l)
{
    uint64_t tex, in, out;
    uint32_t n, kind;
    const struct coord *c;
    uint32_t *o;

    if (gpu_fake_param(l, 0, &tex, 8) || gpu_fake_param(l, 1, &in, 8) || gpu_fake_param(l, 2, &out, 8) ||
        gpu_fake_param(l, 3, &n, 4) || gpu_fake_param(l, 4, &kind, 4) ||
        !(c = gpu_fake_memory(l, in, n * sizeof(*c))) || !(o = gpu_fake_memory(l, out, n * 16)))
        return 700;
    for (uint32_t i = 0; i < n; i++) {
        float xyz[3] = {c[i].x, c[i].y, c[i].z}, lod = 0.0f;
        gpu_fake_texel t;

        if (kind == K_1D)
            xyz[1] = xyz[2] = 0.0f;
        else if (kind == K_2D)
            xyz[2] = 0.0f;
        else if (kind == K_A1D)
            xyz[1] = (float)c[i].i;
        else if (kind == K_A2D)
            xyz[2] = (float)c[i].i;
        else if (kind == K_FETCH)
            xyz[0] = (float)c[i].i;
        else if (kind == K_LEVEL)
            lod = c[i].z;
        if (gpu_fake_texture_read(l, tex, xyz, lod, &t) != 0)
            return 700;
        for (int k = 0; k < 4; k++)
            if (t.integer)
                memcpy(&o[i * 4 + k], &t.i[k], 4);
            else
                memcpy(&o[i * 4 + k], &t.f[k], 4);
    }
    return 0;
}

static cuabi_module module;

static int setup(void **state)
{
    cuabi_context ctx = NULL;

    (void)state;
    ptx[0] = '\0';
    for (size_t i = 0; i < sizeof(ptx_parts) / sizeof(ptx_parts[0]); i++) {
        assert_true(strlen(ptx) + strlen(ptx_parts[i]) < sizeof(ptx));
        strcat(ptx, ptx_parts[i]);
    }
    gpu_fake_kernel_register("expect", expect_kernel, NULL);
    CU_OK(cuInit(0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxSetCurrent(ctx));
    CU_OK(cuModuleLoadData(&module, ptx));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuModuleUnload(module));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    return 0;
}

/* The PTX line of the first instruction that starts with `inst` in `text`. */
static unsigned line_of(const char *text, const char *inst)
{
    const char *at = strstr(text, inst);
    unsigned line = 1;

    assert_non_null(at);
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* Launches `name` of the module with n threads on (handle, in, out); the result at synchronisation. */
static cuabi_result launch(const char *name, uint64_t handle, const void *in, void *out, unsigned n)
{
    cuabi_function f = NULL;
    cuabi_deviceptr din = 0, dout = 0;
    void *params[] = {&handle, &din, &dout};
    cuabi_result rc;

    CU_OK(cuModuleGetFunction(&f, module, name));
    CU_OK(cuMemAlloc_v2(&din, n * 16));
    CU_OK(cuMemAlloc_v2(&dout, n * 16));
    CU_OK(cuMemcpyHtoD_v2(din, in, n * 16));
    CU_OK(cuMemsetD8_v2(dout, 0xee, n * 16));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, NULL, params, NULL));
    rc = cuCtxSynchronize();
    CU_OK(cuMemcpyDtoH_v2(out, dout, n * 16));
    CU_OK(cuMemFree_v2(din));
    CU_OK(cuMemFree_v2(dout));
    return rc;
}

/* What the reference kernel reads for the records, as `kind`. */
static void reference(uint64_t tex, const struct coord *c, void *out, unsigned n, unsigned kind)
{
    cuabi_function f = NULL;
    cuabi_deviceptr din = 0, dout = 0;
    void *params[] = {&tex, &din, &dout, &n, &kind};

    CU_OK(cuModuleGetFunction(&f, module, "expect"));
    CU_OK(cuMemAlloc_v2(&din, n * 16));
    CU_OK(cuMemAlloc_v2(&dout, n * 16));
    CU_OK(cuMemcpyHtoD_v2(din, c, n * 16));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, dout, n * 16));
    CU_OK(cuMemFree_v2(din));
    CU_OK(cuMemFree_v2(dout));
}

/* Runs PTX kernel `name` and the reference on the same records; both results must be the same bits. */
static void same_as_reference(const char *name, uint64_t tex, const struct coord *c, unsigned n, unsigned kind,
                              float (*got)[4])
{
    float want[64][4];

    assert_true(n <= 64);
    CU_OK(launch(name, tex, c, got, n));
    reference(tex, c, want, n, kind);
    for (unsigned i = 0; i < n; i++)
        if (memcmp(got[i], want[i], 16) != 0)
            fail_msg("%s, record %u (%g, %g, %g, %d): got %g %g %g %g, the sampler gives %g %g %g %g", name, i,
                     (double)c[i].x, (double)c[i].y, (double)c[i].z, c[i].i, (double)got[i][0], (double)got[i][1],
                     (double)got[i][2], (double)got[i][3], (double)want[i][0], (double)want[i][1],
                     (double)want[i][2], (double)want[i][3]);
}

/* Coordinates inside, on edges, between texels and far outside, for a 4x3 texture. */
static const struct coord coords2d[] = {
    {0.5f, 0.5f, 0, 0},   {2.5f, 1.5f, 0, 0},  {3.99f, 2.99f, 0, 0}, {1.0f, 1.0f, 0, 0},    {1.25f, 0.75f, 0, 0},
    {-7.0f, 9.0f, 0, 0},  {4.0f, 0.5f, 0, 0},  {5.5f, 0.5f, 0, 0},   {-0.25f, 2.9f, 0, 0},  {0.6f, 1.3f, 0, 0},
    {0.125f, 0.5f, 0, 0}, {0.875f, 0.3f, 0, 0}, {1.375f, 0.5f, 0, 0}, {-0.125f, 0.9f, 0, 0}, {0.5f, -0.5f, 0, 0},
};
enum { N2D = sizeof(coords2d) / sizeof(coords2d[0]) };

/* 2D float textures: point and linear filtering, clamp, border and wrap, normalized coordinates. */
static void float_2d(void **state)
{
    static const unsigned modes[] = {CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_ADDRESS_MODE_BORDER,
                                     CUABI_TR_ADDRESS_MODE_WRAP, CUABI_TR_ADDRESS_MODE_MIRROR};
    float v[3][4], got[64][4];
    cuabi_array a;
    cuabi_tex_object t;

    (void)state;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            v[y][x] = (float)(y * 10 + x);
    a = ft_array_of(4, 3, 0, CUABI_AD_FORMAT_FLOAT, 1, 0, v, sizeof(v));
    for (unsigned m = 0; m < 4; m++)
        for (unsigned filter = 0; filter < 2; filter++)
            for (unsigned norm = 0; norm < 2; norm++) {
                if (m >= 2 && !norm)
                    continue; /* wrap and mirror need normalized coordinates */
                t = ft_texture_of(a, modes[m], filter, norm ? CUABI_TRSF_NORMALIZED_COORDINATES : 0);
                same_as_reference("tex2d", t, coords2d, N2D, K_2D, got);
                if (m == 0 && filter == 0 && !norm) {
                    assert_true(got[1][0] == 12.0f);  /* (2.5, 1.5): texel (2, 1) */
                    assert_true(got[2][0] == 23.0f);
                    assert_true(got[5][0] == 20.0f);  /* clamped to (0, 2) */
                    assert_true(got[1][1] == 0.0f && got[1][3] == 0.0f);
                }
                if (m == 0 && filter == 1 && !norm)
                    assert_true(got[3][0] == 5.5f); /* (1, 1): the four texels around it, equally */
                if (m == 1 && filter == 0 && !norm) {
                    assert_true(got[6][0] == 100.0f); /* the border colour */
                    assert_true(got[6][3] == 103.0f);
                }
                if (m == 2 && filter == 0 && norm)
                    assert_true(got[12][0] == 11.0f); /* 1.375 wraps to 0.375: texel (1, 1) */
                CU_OK(cuTexObjectDestroy(t));
            }
    CU_OK(cuArrayDestroy(a));
}

/* 1D and 3D float textures, linear. */
static void float_1d_3d(void **state)
{
    float line[8], cube[2][3][4], got[64][4];
    struct coord c[8];
    cuabi_array a;
    cuabi_tex_object t;

    (void)state;
    for (int i = 0; i < 8; i++) {
        line[i] = (float)(i * i);
        c[i] = (struct coord){(float)i * 0.7f - 1.0f, (float)i * 0.4f, (float)i * 0.3f - 0.2f, 0};
    }
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 4; x++)
                cube[z][y][x] = (float)(z * 100 + y * 10 + x);
    a = ft_array_of(8, 0, 0, CUABI_AD_FORMAT_FLOAT, 1, 0, line, sizeof(line));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_LINEAR, 0);
    same_as_reference("tex1d", t, c, 8, K_1D, got);
    assert_true(got[3][0] == 154.0f / 256.0f); /* x = 1.1: texels 0 and 1, weights of 8 fractional bits */
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(4, 3, 2, CUABI_AD_FORMAT_FLOAT, 1, 0, cube, sizeof(cube));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_BORDER, CUABI_TR_FILTER_MODE_LINEAR, 0);
    same_as_reference("tex3d", t, c, 8, K_3D, got);
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    same_as_reference("tex3d", t, c, 8, K_3D, got);
    assert_true(got[5][0] == 122.0f); /* (2.5, 2, 1.3): texel (2, 2, 1) */
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}

/* Integer textures: 32-bit signed and 8-bit read as integers; four channels. */
static void integer_2d(void **state)
{
    int32_t v[3][4];
    uint8_t rgba[2][2][4] = {{{1, 2, 3, 4}, {5, 6, 7, 8}}, {{9, 10, 11, 12}, {13, 14, 15, 255}}};
    uint32_t got[64][4];
    cuabi_array a;
    cuabi_tex_object t;

    (void)state;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            v[y][x] = -1000 * y - x;
    a = ft_array_of(4, 3, 0, CUABI_AD_FORMAT_SIGNED_INT32, 1, 0, v, sizeof(v));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    same_as_reference("tex2d_s32", t, coords2d, N2D, K_2D, (float (*)[4])got);
    assert_int_equal((int32_t)got[1][0], -1002);
    assert_int_equal((int32_t)got[5][0], -2000);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(2, 2, 0, CUABI_AD_FORMAT_UNSIGNED_INT8, 4, 0, rgba, sizeof(rgba));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_BORDER, CUABI_TR_FILTER_MODE_POINT, CUABI_TRSF_READ_AS_INTEGER);
    same_as_reference("tex2d_u32", t, coords2d, N2D, K_2D, (float (*)[4])got);
    assert_int_equal(got[3][0], 13);
    assert_int_equal(got[3][3], 255);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}

/* Layered textures (1D and 2D): the layer an integer before the coordinates, clamped to the layers. */
static void layered(void **state)
{
    float layers[3][2][4], line[3][4], got[64][4];
    struct coord c[] = {{0.5f, 0.5f, 0, 0}, {2.5f, 1.5f, 0, 1}, {1.0f, 1.0f, 0, 2}, {3.5f, 0.5f, 0, 7},
                        {0.5f, 1.5f, 0, -1}};
    cuabi_array a;
    cuabi_tex_object t;

    (void)state;
    for (int l = 0; l < 3; l++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 4; x++) {
                layers[l][y][x] = (float)(l * 100 + y * 10 + x);
                line[l][x] = (float)(l * 100 + x);
            }
    a = ft_array_of(4, 2, 3, CUABI_AD_FORMAT_FLOAT, 1, CUABI_ARRAY3D_LAYERED, layers, sizeof(layers));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    same_as_reference("texa2d", t, c, 5, K_A2D, got);
    assert_true(got[1][0] == 112.0f);
    assert_true(got[3][0] == 203.0f); /* layer 7 of 3: the last */
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_LINEAR, 0);
    same_as_reference("texa2d", t, c, 5, K_A2D, got);
    assert_true(got[2][0] == 205.5f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(4, 0, 3, CUABI_AD_FORMAT_FLOAT, 1, CUABI_ARRAY3D_LAYERED, line, sizeof(line));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    same_as_reference("texa1d", t, c, 5, K_A1D, got);
    assert_true(got[1][0] == 102.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));
}

/* tex1Dfetch of linear memory (an integer coordinate, zeros outside); tex.level and tex.grad of mipmaps. */
static void fetch_and_levels(void **state)
{
    float data[16], got[64][4];
    struct coord c[] = {{0, 0, 0, 0}, {0, 0, 0, 5}, {0, 0, 0, 15}, {0, 0, 0, 16}, {0, 0, 0, -1}};
    struct coord lod[] = {{0.5f, 0.5f, 0.0f, 0}, {0.5f, 0.5f, 0.75f, 0}, {0.3f, 0.6f, 1.5f, 0}, {0.5f, 0.5f, 9.0f, 0}};
    cuabi_mipmapped_array m = NULL;
    cuabi_deviceptr buf = 0;
    cuabi_resource_desc res;
    cuabi_texture_desc td;
    cuabi_tex_object t = 0;

    (void)state;
    for (int i = 0; i < 16; i++)
        data[i] = (float)i + 0.25f;
    CU_OK(cuMemAlloc_v2(&buf, sizeof(data)));
    CU_OK(cuMemcpyHtoD_v2(buf, data, sizeof(data)));
    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_LINEAR;
    res.res.linear.ptr = buf;
    res.res.linear.format = CUABI_AD_FORMAT_FLOAT;
    res.res.linear.channels = 1;
    res.res.linear.bytes = sizeof(data);
    memset(&td, 0, sizeof(td));
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    same_as_reference("fetch", t, c, 5, K_FETCH, got);
    assert_true(got[1][0] == 5.25f);
    assert_true(got[3][0] == 0.0f && got[4][0] == 0.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuMemFree_v2(buf));

    m = ft_mipmap_levels(&res);
    td.flags = CUABI_TRSF_NORMALIZED_COORDINATES;
    td.mipmap_filter_mode = CUABI_TR_FILTER_MODE_LINEAR;
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    same_as_reference("level", t, lod, 4, K_LEVEL, got);
    assert_true(got[0][0] == 1.0f && got[1][0] == 1.75f && got[2][0] == 2.5f && got[3][0] == 3.0f);
    /* Gradients of 1/8 and 1/4 of the 8 texels of level 0: levels of detail 0 and 1. */
    lod[0].z = 0.125f;
    lod[1].z = 0.25f;
    CU_OK(launch("grad", t, lod, got, 2));
    assert_true(got[0][0] == 1.0f && got[1][0] == 2.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuMipmappedArrayDestroy(m));
}

/*
 * Cubemaps: the face the direction's major axis picks (x before y before z
 * where two are as large), s and t by the programming guide's table, a
 * cubemap array's index clamped to its cubemaps, a face clamped at its edges
 * whatever the address mode, levels and gradients of a mipmapped cubemap.
 */
static void cubemaps(void **state)
{
    /* Texel (i, j) of face F of a 2x2 cubemap holds F * 10 + j * 2 + i; of cubemap c of an array, 100 c more. */
    float faces[2][6][2][2], levels[8 * 8 * 6], got[64][4];
    /* The direction through the centre of texel (1, 0) of each face, then ties and a longer vector. */
    const struct coord dirs[] = {
        {1, 0.5f, -0.5f, 0}, {-1, 0.5f, 0.5f, 0}, {0.5f, 1, -0.5f, 0}, {0.5f, -1, 0.5f, 0}, {0.5f, 0.5f, 1, 0},
        {-0.5f, 0.5f, -1, 0}, {1, 1, 0.5f, 0}, {0.5f, -1, -1, 0}, {-8, 4, 4, 0},
    };
    const float want[] = {1, 11, 21, 31, 41, 51, 0, 33, 11};
    const struct coord in_array[] = {{1, 0.5f, -0.5f, 1}, {1, 0.5f, -0.5f, 7}, {-1, 0.5f, 0.5f, -3}};
    /* s = 0.95, t = 0.25 on face +x: linear between texel 1 and, past the edge, texel 1 again (not wrapped to 0) */
    const struct coord edge[] = {{1, 0.5f, -0.9f, 0}};
    const struct coord lods[] = {{1, 0, 0, 0}, {1, 0, 0, 1}, {0, 0, -1, 2}, {0, 0, -1, 9}};
    const struct coord grads[] = {{1, 0, 0, 1}, {1, 0, 0, 2}, {-1, 0, 0, 4}};
    cuabi_array3d_descriptor d = {8, 8, 6, CUABI_AD_FORMAT_FLOAT, 1, CUABI_ARRAY3D_CUBEMAP};
    cuabi_mipmapped_array m = NULL;
    cuabi_resource_desc res;
    cuabi_texture_desc td;
    cuabi_array a;
    cuabi_tex_object t = 0;

    (void)state;
    for (int c = 0; c < 2; c++)
        for (int f = 0; f < 6; f++)
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 2; i++)
                    faces[c][f][j][i] = (float)(c * 100 + f * 10 + j * 2 + i);
    a = ft_array_of(2, 2, 6, CUABI_AD_FORMAT_FLOAT, 1, CUABI_ARRAY3D_CUBEMAP, faces[0], sizeof(faces[0]));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_WRAP, CUABI_TR_FILTER_MODE_POINT, CUABI_TRSF_NORMALIZED_COORDINATES);
    CU_OK(launch("texcube", t, dirs, got, 9));
    for (unsigned k = 0; k < 9; k++)
        if (got[k][0] != want[k])
            fail_msg("direction %u (%g, %g, %g): got %g, want %g", k, (double)dirs[k].x, (double)dirs[k].y,
                     (double)dirs[k].z, (double)got[k][0], (double)want[k]);
    CU_OK(cuTexObjectDestroy(t));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_WRAP, CUABI_TR_FILTER_MODE_LINEAR, CUABI_TRSF_NORMALIZED_COORDINATES);
    CU_OK(launch("texcube", t, edge, got, 1));
    assert_true(got[0][0] == 1.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));

    a = ft_array_of(2, 2, 12, CUABI_AD_FORMAT_FLOAT, 1, CUABI_ARRAY3D_CUBEMAP | CUABI_ARRAY3D_LAYERED, faces,
                    sizeof(faces));
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, CUABI_TRSF_NORMALIZED_COORDINATES);
    CU_OK(launch("texacube", t, in_array, got, 3));
    assert_true(got[0][0] == 101.0f && got[1][0] == 101.0f && got[2][0] == 11.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuArrayDestroy(a));

    /* A mipmapped 8x8 cubemap of three levels: level L's face F all (L + 1) * 10 + F. */
    CU_OK(cuMipmappedArrayCreate(&m, &d, 3));
    for (unsigned l = 0; l < 3; l++) {
        cuabi_array level = NULL;
        size_t each = (size_t)(8 >> l) * (8 >> l);

        for (size_t k = 0; k < 6 * each; k++)
            levels[k] = (float)((l + 1) * 10 + k / each);
        CU_OK(cuMipmappedArrayGetLevel(&level, m, l));
        CU_OK(cuMemcpyHtoA_v2(level, 0, levels, 6 * each * 4));
    }
    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    res.res.mipmap.mipmap = m;
    memset(&td, 0, sizeof(td));
    td.flags = CUABI_TRSF_NORMALIZED_COORDINATES;
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    CU_OK(launch("levelcube", t, lods, got, 4));
    assert_true(got[0][0] == 10.0f && got[1][0] == 20.0f && got[2][0] == 35.0f && got[3][0] == 35.0f);
    /* Gradients of 1/4, 1/2 and 1 move s by 1/8, 1/4 and 1/2: 1, 2 and 4 texels of level 0's 8. */
    CU_OK(launch("gradcube", t, grads, got, 3));
    assert_true(got[0][0] == 10.0f && got[1][0] == 20.0f && got[2][0] == 31.0f);
    CU_OK(cuTexObjectDestroy(t));
    CU_OK(cuMipmappedArrayDestroy(m));
}

/* A record of a surface kernel's input: x in bytes, y, z or layer, and a value. */
struct access {
    int32_t x, y, z;
    uint32_t v;
};

static cuabi_surf_object surface_of(cuabi_array a)
{
    cuabi_resource_desc res;
    cuabi_surf_object s = 0;

    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_ARRAY;
    res.res.array.array = a;
    CU_OK(cuSurfObjectCreate(&s, &res));
    return s;
}

/* Runs surface kernel `name` on the accesses; their loads' results in got[i][0]. */
static cuabi_result surf_run(const char *name, cuabi_surf_object s, const struct access *acc, unsigned n,
                             uint32_t (*got)[4])
{
    return launch(name, s, acc, got, n);
}

/* An 8x4 surface of 32-bit elements, v = 1 + 100 y + x: loads and stores in each boundary mode. */
static void surface_2d_modes(void **state)
{
    uint32_t v[4][8], back[4][8], got[64][4];
    const struct access zero[] = {{8, 1, 0, 0}, {-4, 0, 0, 0}, {32, 0, 0, 0}, {0, 4, 0, 0}, {28, 3, 0, 0}};
    const uint32_t zero_want[] = {103, 0, 0, 0, 308};
    const struct access clamp[] = {{-4, 0, 0, 0}, {32, 1, 0, 0}, {4, -5, 0, 0}, {4, 9, 0, 0}, {100, 100, 0, 0}};
    const uint32_t clamp_want[] = {1, 108, 2, 302, 308};
    const struct access trap[] = {{0, 0, 0, 0}, {28, 3, 0, 0}, {12, 2, 0, 0}};
    const uint32_t trap_want[] = {1, 308, 204};
    const struct access stores[] = {{32, 0, 0, 555}, {8, 2, 0, 556}, {-8, 1, 0, 557}};
    const struct access stores_clamp[] = {{-8, 1, 0, 777}, {40, 3, 0, 778}, {12, -2, 0, 779}};
    cuabi_array a;
    cuabi_surf_object s;

    (void)state;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++)
            v[y][x] = (uint32_t)(1 + 100 * y + x);
    a = ft_array_of(8, 4, 0, CUABI_AD_FORMAT_UNSIGNED_INT32, 1, CUABI_ARRAY3D_SURFACE_LDST, v, sizeof(v));
    s = surface_of(a);
    CU_OK(surf_run("ld_zero", s, zero, 5, got));
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(got[i][0], zero_want[i]);
    CU_OK(surf_run("ld_clamp", s, clamp, 5, got));
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(got[i][0], clamp_want[i]);
    CU_OK(surf_run("ld_trap", s, trap, 3, got));
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(got[i][0], trap_want[i]);
    /* Stores: outside under zero writes nothing; clamp moves the store onto the edge; trap inside writes. */
    CU_OK(surf_run("st_zero", s, stores, 3, got));
    CU_OK(surf_run("st_clamp", s, stores_clamp, 3, got));
    CU_OK(surf_run("st_trap", s, (const struct access[]){{20, 3, 0, 999}}, 1, got));
    v[2][2] = 556;
    v[1][0] = 777;
    v[3][7] = 778;
    v[0][3] = 779;
    v[3][5] = 999;
    CU_OK(cuMemcpyAtoH_v2(back, a, 0, sizeof(back)));
    assert_memory_equal(back, v, sizeof(v));
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
}

/* 1D, 3D and layered surfaces; element sizes of 1 (four channels), 2, 8 and 16 bytes. */
static void surface_shapes(void **state)
{
    uint32_t line[6], vol[3][2][4], lay[2][2][4], got[64][4];
    uint8_t rgba[2][2][4] = {{{1, 2, 3, 4}, {5, 6, 7, 8}}, {{9, 10, 11, 12}, {13, 14, 15, 16}}}, rback[2][2][4];
    uint16_t halves[2][3] = {{7, 8, 9}, {10, 11, 12}};
    uint32_t pairs[2][2][2] = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
    uint32_t quads[2][4] = {{1, 10, 100, 1000}, {2, 20, 200, 2000}};
    cuabi_array a;
    cuabi_surf_object s;

    (void)state;
    for (int i = 0; i < 6; i++)
        line[i] = (uint32_t)(i * 3);
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 4; x++)
                vol[z][y][x] = (uint32_t)(z * 100 + y * 10 + x);
    memcpy(lay, vol, sizeof(lay));
    a = ft_array_of(6, 0, 0, CUABI_AD_FORMAT_UNSIGNED_INT32, 1, CUABI_ARRAY3D_SURFACE_LDST, line, sizeof(line));
    s = surface_of(a);
    CU_OK(surf_run("ld_1d", s, (const struct access[]){{20, 0, 0, 0}, {4, 0, 0, 0}}, 2, got));
    assert_int_equal(got[0][0], 15);
    assert_int_equal(got[1][0], 3);
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(4, 2, 3, CUABI_AD_FORMAT_UNSIGNED_INT32, 1, CUABI_ARRAY3D_SURFACE_LDST, vol, sizeof(vol));
    s = surface_of(a);
    CU_OK(surf_run("ld_3d", s, (const struct access[]){{12, 1, 2, 0}, {4, 0, 1, 0}}, 2, got));
    assert_int_equal(got[0][0], 213);
    assert_int_equal(got[1][0], 101);
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
    /* A layered 2D surface: a store into layer 1, read back by layer. */
    a = ft_array_of(4, 2, 2, CUABI_AD_FORMAT_UNSIGNED_INT32, 1, CUABI_ARRAY3D_SURFACE_LDST | CUABI_ARRAY3D_LAYERED, lay,
                 sizeof(lay));
    s = surface_of(a);
    CU_OK(surf_run("st_a2d", s, (const struct access[]){{8, 1, 1, 4242}}, 1, got));
    CU_OK(surf_run("ld_a2d", s, (const struct access[]){{8, 1, 1, 0}, {8, 1, 0, 0}, {0, 0, 1, 0}}, 3, got));
    assert_int_equal(got[0][0], 4242);
    assert_int_equal(got[1][0], 12);
    assert_int_equal(got[2][0], 100);
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(4, 0, 2, CUABI_AD_FORMAT_UNSIGNED_INT32, 1, CUABI_ARRAY3D_SURFACE_LDST | CUABI_ARRAY3D_LAYERED, lay,
                 sizeof(lay[0]));
    s = surface_of(a);
    CU_OK(surf_run("ld_a1d", s, (const struct access[]){{12, 0, 1, 0}}, 1, got));
    assert_int_equal(got[0][0], 13);
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
    /* uchar4: four bytes at once, clamped loads and zero-mode stores. */
    a = ft_array_of(2, 2, 0, CUABI_AD_FORMAT_UNSIGNED_INT8, 4, CUABI_ARRAY3D_SURFACE_LDST, rgba, sizeof(rgba));
    s = surface_of(a);
    CU_OK(surf_run("ld_v4b8", s, (const struct access[]){{4, 1, 0, 0}, {-4, 7, 0, 0}}, 2, got));
    assert_int_equal(got[0][0], 0x100f0e0du);
    assert_int_equal(got[1][0], 0x0c0b0a09u); /* clamped onto (0, 1) */
    CU_OK(surf_run("st_v4b8", s, (const struct access[]){{0, 1, 0, 0x44332211u}, {8, 0, 0, 0x55555555u}}, 2, got));
    CU_OK(cuMemcpyAtoH_v2(rback, a, 0, sizeof(rback)));
    rgba[1][0][0] = 0x11, rgba[1][0][1] = 0x22, rgba[1][0][2] = 0x33, rgba[1][0][3] = 0x44;
    assert_memory_equal(rback, rgba, sizeof(rgba));
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(3, 2, 0, CUABI_AD_FORMAT_UNSIGNED_INT16, 1, CUABI_ARRAY3D_SURFACE_LDST, halves, sizeof(halves));
    s = surface_of(a);
    CU_OK(surf_run("ld_b16", s, (const struct access[]){{4, 1, 0, 0}}, 1, got));
    assert_int_equal(got[0][0], 12);
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(2, 2, 0, CUABI_AD_FORMAT_UNSIGNED_INT32, 2, CUABI_ARRAY3D_SURFACE_LDST, pairs, sizeof(pairs));
    s = surface_of(a);
    CU_OK(surf_run("ld_v2b32", s, (const struct access[]){{8, 1, 0, 0}}, 1, got));
    assert_int_equal(got[0][0], 15);
    CU_OK(surf_run("ld_b64", s, (const struct access[]){{0, 1, 0, 0}}, 1, got));
    assert_int_equal(got[0][0], 11);
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
    a = ft_array_of(2, 1, 0, CUABI_AD_FORMAT_UNSIGNED_INT32, 4, CUABI_ARRAY3D_SURFACE_LDST, quads, sizeof(quads));
    s = surface_of(a);
    CU_OK(surf_run("ld_v2b32", s, (const struct access[]){{24, 0, 0, 0}}, 1, got));
    assert_int_equal(got[0][0], 2200); /* the last 8 bytes of the second 16-byte element */
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
}

/* Kernel `name` reading a texture of array `a` fails the launch, saying `why`. */
static void geometry_fault(const char *name, cuabi_array a, const char *why)
{
    struct coord c = {0.5f, 0.5f, 0, 0};
    float got[1][4];
    cuabi_tex_object t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    ft_capture cap;
    const char *text;

    ft_capture_begin(&cap, 2);
    assert_int_equal(launch(name, t, &c, got, 1), CUABI_ERROR_ILLEGAL_ADDRESS);
    text = ft_capture_end(&cap);
    if (!strstr(text, why))
        fail_msg("%s: wanted \"%s\" in: %s", name, why, text);
    CU_OK(cuTexObjectDestroy(t));
}

/* Faults: a trap-mode access outside, a bad handle, each with its kernel, thread and PTX line; a dead texture. */
static void faults(void **state)
{
    uint32_t v[2][2] = {{1, 2}, {3, 4}}, got[64][4];
    struct coord c[2] = {{0.5f, 0.5f, 0, 0}, {0.5f, 0.5f, 0, 0}};
    char want[200];
    ft_capture cap;
    const char *text;
    cuabi_array a, cube;
    cuabi_surf_object s;
    cuabi_tex_object t;

    (void)state;
    a = ft_array_of(2, 2, 0, CUABI_AD_FORMAT_UNSIGNED_INT32, 1, CUABI_ARRAY3D_SURFACE_LDST, v, sizeof(v));
    s = surface_of(a);
    ft_capture_begin(&cap, 2);
    assert_int_equal(surf_run("ld_trap", s, (const struct access[]){{0, 0, 0, 0}, {8, 1, 0, 0}}, 2, got),
                     CUABI_ERROR_ILLEGAL_ADDRESS);
    text = ft_capture_end(&cap);
    snprintf(want, sizeof(want), "kernel \"ld_trap\": block (0,0,0) thread (1,0,0): PTX line %u: suld: accessed",
             line_of(ptx, "suld.b.2d.b32.trap"));
    if (!strstr(text, want) || !strstr(text, "(8, 1, 0), outside it (boundary mode trap)"))
        fail_msg("wanted \"%s\" in: %s", want, text);
    ft_capture_begin(&cap, 2);
    assert_int_equal(surf_run("st_trap", s, (const struct access[]){{0, -1, 0, 5}}, 1, got),
                     CUABI_ERROR_ILLEGAL_ADDRESS);
    text = ft_capture_end(&cap);
    snprintf(want, sizeof(want), "kernel \"st_trap\": block (0,0,0) thread (0,0,0): PTX line %u: sust:",
             line_of(ptx, "sust.b.2d.b32.trap"));
    assert_non_null(strstr(text, want));
    /* A texture instruction given a surface object: no live texture object. */
    ft_capture_begin(&cap, 2);
    assert_int_equal(launch("tex2d", s, c, got, 2), CUABI_ERROR_ILLEGAL_ADDRESS);
    text = ft_capture_end(&cap);
    snprintf(want, sizeof(want), "kernel \"tex2d\": block (0,0,0) thread (0,0,0): PTX line %u: tex: read texture object",
             line_of(ptx, "tex.2d.v4.f32.f32"));
    if (!strstr(text, want) || !strstr(text, "which is no live texture object"))
        fail_msg("wanted \"%s\" in: %s", want, text);
    /* A 2D texture read as a cubemap, and a cubemap as a 2D texture. */
    geometry_fault("texcube", a, "as a cubemap (tex.cube), which is no cubemap");
    cube = ft_array_of(1, 1, 6, CUABI_AD_FORMAT_UNSIGNED_INT32, 1, CUABI_ARRAY3D_CUBEMAP, NULL, 0);
    geometry_fault("tex2d", cube, "other than as a cubemap");
    CU_OK(cuArrayDestroy(cube));
    /* A texture whose array is gone. */
    t = ft_texture_of(a, CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_FILTER_MODE_POINT, 0);
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
    ft_capture_begin(&cap, 2);
    assert_int_equal(launch("tex2d", t, c, got, 1), CUABI_ERROR_ILLEGAL_ADDRESS);
    text = ft_capture_end(&cap);
    assert_non_null(strstr(text, "whose memory is no longer allocated"));
    CU_OK(cuTexObjectDestroy(t));
    /* The module still runs afterwards. */
    a = ft_array_of(2, 2, 0, CUABI_AD_FORMAT_UNSIGNED_INT32, 1, CUABI_ARRAY3D_SURFACE_LDST, v, sizeof(v));
    s = surface_of(a);
    CU_OK(surf_run("ld_trap", s, (const struct access[]){{4, 1, 0, 0}}, 1, got));
    assert_int_equal(got[0][0], 4);
    CU_OK(cuSurfObjectDestroy(s));
    CU_OK(cuArrayDestroy(a));
}

/* What the interpreter refuses: a texture reference, tld4; each names the instruction, kernel and line. */
static void refused(void **state)
{
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    uint64_t handle = 0;
    void *params[] = {&handle};
    char want[200];
    ft_capture cap;
    const char *text;

    (void)state;
    CU_OK(cuModuleLoadData(&m, texref_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "old"));
    ft_capture_begin(&cap, 2);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL), CUABI_ERROR_NOT_SUPPORTED);
    text = ft_capture_end(&cap);
    snprintf(want, sizeof(want),
             "PTX line %u: \"tex.2d.v4.f32.f32\" of texture or surface reference \"tr\"",
             line_of(texref_ptx, "tex.2d"));
    if (!strstr(text, want) || !strstr(text, "(kernel \"old\")"))
        fail_msg("wanted \"%s\" in: %s", want, text);
    CU_OK(cuModuleGetFunction(&f, m, "gather"));
    ft_capture_begin(&cap, 2);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL), CUABI_ERROR_NOT_SUPPORTED);
    text = ft_capture_end(&cap);
    snprintf(want, sizeof(want), "PTX line %u: unsupported instruction \"tld4.r.2d.v4.f32.f32\" (kernel \"gather\")",
             line_of(texref_ptx, "tld4"));
    if (!strstr(text, want))
        fail_msg("wanted \"%s\" in: %s", want, text);
    CU_OK(cuModuleUnload(m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_2d),         cmocka_unit_test(float_1d_3d),    cmocka_unit_test(integer_2d),
        cmocka_unit_test(layered),          cmocka_unit_test(fetch_and_levels), cmocka_unit_test(cubemaps),
        cmocka_unit_test(surface_2d_modes),
        cmocka_unit_test(surface_shapes),   cmocka_unit_test(faults),         cmocka_unit_test(refused),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
