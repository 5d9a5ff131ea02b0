/* SPDX-License-Identifier: MIT */
/*
 * The corpus's texture and surface kernels (textures.cu, PTX made by nvcc at
 * build time), run through the driver API (linked with gpushim-cuda) and each
 * result compared with a C reference: texture reads bit for bit where the
 * texture unit's 8-bit filtering weights are exact (every coordinate here is
 * chosen so), surface loads and stores exactly.
 *
 *   corpus-textures PTX    on the fake driver (GPUSHIM_LIBCUDA) its PTX interpreter runs the
 *                          kernels; on a real driver the GPU does; 77 where there is no device
 */
#include <cuda.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SKIP = 77, TW = 8, TH = 8, LW = 4, LH = 4, LAYERS = 3, SW = 5, SH = 3, RW = 3, RH = 2 };

static int failures;

#define CHECK(call) \
    do { \
        CUresult rc_ = (call); \
        if (rc_ != CUDA_SUCCESS) { \
            const char *name_ = NULL; \
            cuGetErrorName(rc_, &name_); \
            fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, #call, name_ ? name_ : "?", \
                    (int)rc_); \
            exit(1); \
        } \
    } while (0)

static void failf(const char *what, int i, double got, double want)
{
    fprintf(stderr, "FAIL %s [%d]: got %.9g, expected %.9g\n", what, i, got, want);
    failures++;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1))) {
        if (fread(text, 1, (size_t)n, f) != (size_t)n) {
            free(text);
            text = NULL;
        } else {
            text[n] = '\0';
        }
    }
    fclose(f);
    return text;
}

/* ---- Host memory and arrays ---- */

static CUarray array_create(size_t w, size_t h, size_t d, CUarray_format format, unsigned channels, unsigned flags)
{
    CUDA_ARRAY3D_DESCRIPTOR desc;
    CUarray a;

    memset(&desc, 0, sizeof(desc));
    desc.Width = w;
    desc.Height = h;
    desc.Depth = d;
    desc.Format = format;
    desc.NumChannels = channels;
    desc.Flags = flags;
    CHECK(cuArray3DCreate(&a, &desc));
    return a;
}

/* A whole array (rows of `row` bytes, h rows, d slices or layers) from or to host memory. */
static void array_copy(CUarray a, void *host, size_t row, size_t h, size_t d, int to_array)
{
    CUDA_MEMCPY3D c;

    memset(&c, 0, sizeof(c));
    if (to_array) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = host;
        c.srcPitch = row;
        c.srcHeight = h;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = a;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = a;
        c.dstMemoryType = CU_MEMORYTYPE_HOST;
        c.dstHost = host;
        c.dstPitch = row;
        c.dstHeight = h;
    }
    c.WidthInBytes = row;
    c.Height = h;
    c.Depth = d;
    CHECK(cuMemcpy3D(&c));
}

static CUtexObject texture_create(CUarray a, CUaddress_mode mode, CUfilter_mode filter, unsigned flags)
{
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC td;
    CUtexObject t;

    memset(&res, 0, sizeof(res));
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = a;
    memset(&td, 0, sizeof(td));
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = mode;
    td.filterMode = filter;
    td.flags = flags;
    CHECK(cuTexObjectCreate(&t, &res, &td, NULL));
    return t;
}

static CUsurfObject surface_create(CUarray a)
{
    CUDA_RESOURCE_DESC res;
    CUsurfObject s;

    memset(&res, 0, sizeof(res));
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = a;
    CHECK(cuSurfObjectCreate(&s, &res));
    return s;
}

static CUdeviceptr upload(const void *p, size_t bytes)
{
    CUdeviceptr d;

    CHECK(cuMemAlloc(&d, bytes));
    CHECK(cuMemcpyHtoD(d, p, bytes));
    return d;
}

/* ---- The reference sampler: 2D, one channel ---- */

/* Index i of an extent n under the address mode; -1: the border (zeros). */
static int address(int i, int n, CUaddress_mode mode)
{
    switch (mode) {
    case CU_TR_ADDRESS_MODE_WRAP:
        return ((i % n) + n) % n;
    case CU_TR_ADDRESS_MODE_MIRROR: {
        int m = ((i % (2 * n)) + 2 * n) % (2 * n);

        return m < n ? m : 2 * n - 1 - m;
    }
    case CU_TR_ADDRESS_MODE_BORDER:
        return i < 0 || i >= n ? -1 : i;
    default:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

static float texel(const float *img, int w, int h, int x, int y, CUaddress_mode mode)
{
    int ax = address(x, w, mode), ay = address(y, h, mode);

    return ax < 0 || ay < 0 ? 0.0f : img[ay * w + ax];
}

/* What tex2D returns at (u, v) in texels (normalized ones already scaled); exact for these coordinates. */
static float sample(const float *img, int w, int h, float u, float v, CUaddress_mode mode, int linear)
{
    float fx, fy;
    int x, y;

    if (!linear)
        return texel(img, w, h, (int)floorf(u), (int)floorf(v), mode);
    u -= 0.5f;
    v -= 0.5f;
    x = (int)floorf(u);
    y = (int)floorf(v);
    fx = u - floorf(u);
    fy = v - floorf(v);
    return (1 - fx) * (1 - fy) * texel(img, w, h, x, y, mode) + fx * (1 - fy) * texel(img, w, h, x + 1, y, mode) +
           (1 - fx) * fy * texel(img, w, h, x, y + 1, mode) + fx * fy * texel(img, w, h, x + 1, y + 1, mode);
}

/* ---- The kernels ---- */

static CUmodule module;

static void launch(const char *name, unsigned gx, unsigned bx, unsigned by, void **args)
{
    CUfunction f;

    CHECK(cuModuleGetFunction(&f, module, name));
    CHECK(cuLaunchKernel(f, gx, 1, 1, bx, by, 1, 0, NULL, args, NULL));
    CHECK(cuCtxSynchronize());
}

/* 2D float textures: point and linear, clamp and border unnormalized, wrap and mirror normalized. */
static void float_reads(void)
{
    /* Multiples of 1/16 of a texel: linear weights exact; inside, on edges, outside. */
    static const float xs[] = {0.5f, 1.25f, 3.75f, 7.5f, -1.5f, 9.25f, 4.0f, 0.0625f};
    static const float ys[] = {0.5f, 2.625f, 7.9375f, -0.75f, 11.0f};
    static const struct {
        CUaddress_mode mode;
        int linear, normalized;
    } cases[] = {
        {CU_TR_ADDRESS_MODE_CLAMP, 0, 0},  {CU_TR_ADDRESS_MODE_CLAMP, 1, 0}, {CU_TR_ADDRESS_MODE_BORDER, 0, 0},
        {CU_TR_ADDRESS_MODE_BORDER, 1, 0}, {CU_TR_ADDRESS_MODE_WRAP, 0, 1},  {CU_TR_ADDRESS_MODE_WRAP, 1, 1},
        {CU_TR_ADDRESS_MODE_MIRROR, 0, 1}, {CU_TR_ADDRESS_MODE_CLAMP, 1, 1},
    };
    enum { N = sizeof(xs) / sizeof(xs[0]) * (sizeof(ys) / sizeof(ys[0])) };
    static float img[TH][TW], coords[N][2], out[N][4];
    CUarray a = array_create(TW, TH, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUdeviceptr dc, dout;
    int n = N;

    for (int y = 0; y < TH; y++)
        for (int x = 0; x < TW; x++)
            img[y][x] = (float)(y * 16 + x * x);
    array_copy(a, img, TW * sizeof(float), TH, 1, 1);
    CHECK(cuMemAlloc(&dout, sizeof(out)));
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        CUtexObject t = texture_create(a, cases[k].mode, cases[k].linear ? CU_TR_FILTER_MODE_LINEAR
                                                                         : CU_TR_FILTER_MODE_POINT,
                                       cases[k].normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0);
        void *args[] = {&t, &dc, &dout, &n};
        char what[64];

        for (int i = 0; i < N; i++) {
            /* Normalized: the same texel positions over the extents, multiples of 1/128, and past 1. */
            float s = cases[k].normalized ? 1.0f / TW : 1.0f;

            coords[i][0] = xs[i % 8] * s * (cases[k].normalized && i % 3 == 0 ? 1.5f : 1.0f);
            coords[i][1] = ys[i / 8] * s;
        }
        dc = upload(coords, sizeof(coords));
        launch("tex_2d", 1, N, 1, args);
        CHECK(cuMemcpyDtoH(out, dout, sizeof(out)));
        snprintf(what, sizeof(what), "tex_2d case %zu", k);
        for (int i = 0; i < N; i++) {
            float s = cases[k].normalized ? (float)TW : 1.0f;
            float want = sample(&img[0][0], TW, TH, coords[i][0] * s, coords[i][1] * s, cases[k].mode,
                                cases[k].linear);

            if (out[i][0] != want)
                failf(what, i, out[i][0], want);
            if (out[i][1] != 0.0f || out[i][2] != 0.0f)
                failf(what, i, out[i][1], 0.0);
        }
        CHECK(cuMemFree(dc));
        CHECK(cuTexObjectDestroy(t));
    }
    CHECK(cuMemFree(dout));
    CHECK(cuArrayDestroy(a));
}

/* A texture of int4: point reads, clamped. */
static void int_reads(void)
{
    static const float coords[][2] = {{0.5f, 0.5f}, {3.5f, 2.5f}, {-3.0f, 1.5f}, {2.25f, 9.0f}, {7.9f, 7.9f}};
    enum { N = sizeof(coords) / sizeof(coords[0]) };
    static int32_t img[TH][TW][4], out[N][4];
    CUarray a = array_create(TW, TH, 0, CU_AD_FORMAT_SIGNED_INT32, 4, 0);
    CUtexObject t = texture_create(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_POINT, 0);
    CUdeviceptr dc = upload(coords, sizeof(coords)), dout;
    int n = N;
    void *args[] = {&t, &dc, &dout, &n};

    for (int y = 0; y < TH; y++)
        for (int x = 0; x < TW; x++)
            for (int c = 0; c < 4; c++)
                img[y][x][c] = -1000 * c - 10 * y - x;
    array_copy(a, img, TW * sizeof(img[0][0]), TH, 1, 1);
    CHECK(cuMemAlloc(&dout, sizeof(out)));
    launch("tex_2d_int", 1, N, 1, args);
    CHECK(cuMemcpyDtoH(out, dout, sizeof(out)));
    for (int i = 0; i < N; i++) {
        int x = address((int)floorf(coords[i][0]), TW, CU_TR_ADDRESS_MODE_CLAMP);
        int y = address((int)floorf(coords[i][1]), TH, CU_TR_ADDRESS_MODE_CLAMP);

        for (int c = 0; c < 4; c++)
            if (out[i][c] != img[y][x][c])
                failf("tex_2d_int", i * 4 + c, out[i][c], img[y][x][c]);
    }
    CHECK(cuMemFree(dc));
    CHECK(cuMemFree(dout));
    CHECK(cuTexObjectDestroy(t));
    CHECK(cuArrayDestroy(a));
}

/* A layered texture of 3 layers, linear: each layer filtered on its own. */
static void layered_reads(void)
{
    static const float coords[][4] = {{0.5f, 0.5f, 0, 0}, {1.25f, 2.75f, 1, 0}, {3.75f, 0.125f, 2, 0},
                                      {-1.0f, 5.0f, 1, 0}, {2.0f, 2.0f, 0, 0},  {2.0f, 2.0f, 2, 0}};
    enum { N = sizeof(coords) / sizeof(coords[0]) };
    static float img[LAYERS][LH][LW], out[N];
    CUarray a = array_create(LW, LH, LAYERS, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED);
    CUtexObject t = texture_create(a, CU_TR_ADDRESS_MODE_CLAMP, CU_TR_FILTER_MODE_LINEAR, 0);
    CUdeviceptr dc = upload(coords, sizeof(coords)), dout;
    int n = N;
    void *args[] = {&t, &dc, &dout, &n};

    for (int l = 0; l < LAYERS; l++)
        for (int y = 0; y < LH; y++)
            for (int x = 0; x < LW; x++)
                img[l][y][x] = (float)(l * 64 + y * 8 + x * 2);
    array_copy(a, img, LW * sizeof(float), LH, LAYERS, 1);
    CHECK(cuMemAlloc(&dout, sizeof(out)));
    launch("tex_layered", 1, N, 1, args);
    CHECK(cuMemcpyDtoH(out, dout, sizeof(out)));
    for (int i = 0; i < N; i++) {
        float want = sample(&img[(int)coords[i][2]][0][0], LW, LH, coords[i][0], coords[i][1],
                            CU_TR_ADDRESS_MODE_CLAMP, 1);

        if (out[i] != want)
            failf("tex_layered", i, out[i], want);
    }
    CHECK(cuMemFree(dc));
    CHECK(cuMemFree(dout));
    CHECK(cuTexObjectDestroy(t));
    CHECK(cuArrayDestroy(a));
}

/* Surfaces: zero-mode and clamped loads, zero-mode stores around the edges; four bytes at once. */
static void surfaces(void)
{
    enum { TX = SW + 2, TY = SH + 2 };
    static int32_t img[SH][SW], back[SH][SW], out[TY][TX][3];
    static uint8_t rgba[RH][RW][4], rback[RH][RW][4];
    CUarray a = array_create(SW, SH, 0, CU_AD_FORMAT_SIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST);
    CUarray ra = array_create(RW, RH, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SURFACE_LDST);
    CUsurfObject s = surface_create(a), rs = surface_create(ra);
    CUdeviceptr dout;
    int w = SW, h = SH;
    void *args[] = {&s, &w, &h, &dout};
    void *rargs[] = {&rs};

    for (int y = 0; y < SH; y++)
        for (int x = 0; x < SW; x++)
            img[y][x] = 100 * y + x - 7;
    for (int y = 0; y < RH; y++)
        for (int x = 0; x < RW; x++)
            for (int c = 0; c < 4; c++)
                rgba[y][x][c] = (uint8_t)(40 * y + 10 * x + c);
    array_copy(a, img, sizeof(img[0]), SH, 1, 1);
    array_copy(ra, rgba, sizeof(rgba[0]), RH, 1, 1);
    CHECK(cuMemAlloc(&dout, sizeof(out)));
    launch("surf_2d", 1, TX, TY, args);
    CHECK(cuMemcpyDtoH(out, dout, sizeof(out)));
    array_copy(a, back, sizeof(back[0]), SH, 1, 0);
    for (int ty = 0; ty < TY; ty++)
        for (int tx = 0; tx < TX; tx++) {
            int x = tx - 1, y = ty - 1, i = ty * TX + tx;
            int inside = x >= 0 && x < SW && y >= 0 && y < SH;
            int cx = x < 0 ? 0 : x >= SW ? SW - 1 : x, cy = y < 0 ? 0 : y >= SH ? SH - 1 : y;
            int32_t v = inside ? img[y][x] : 0;

            if (out[ty][tx][0] != v)
                failf("surf_2d zero-mode load", i, out[ty][tx][0], v);
            if (out[ty][tx][1] != img[cy][cx])
                failf("surf_2d clamped load", i, out[ty][tx][1], img[cy][cx]);
            if (out[ty][tx][2] != (inside ? 3 * v + 1 : 0))
                failf("surf_2d load after the store", i, out[ty][tx][2], inside ? 3 * v + 1 : 0);
            if (inside && back[y][x] != 3 * v + 1)
                failf("surf_2d store", i, back[y][x], 3 * v + 1);
        }
    launch("surf_rgba", 1, RW, RH, rargs);
    array_copy(ra, rback, sizeof(rback[0]), RH, 1, 0);
    for (int y = 0; y < RH; y++)
        for (int x = 0; x < RW; x++)
            for (int c = 0; c < 4; c++)
                if (rback[y][x][c] != rgba[y][x][3 - c])
                    failf("surf_rgba", (y * RW + x) * 4 + c, rback[y][x][c], rgba[y][x][3 - c]);
    CHECK(cuMemFree(dout));
    CHECK(cuSurfObjectDestroy(s));
    CHECK(cuSurfObjectDestroy(rs));
    CHECK(cuArrayDestroy(a));
    CHECK(cuArrayDestroy(ra));
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    int count = 0;
    char *ptx;

    if (argc != 2) {
        fprintf(stderr, "usage: %s TEXTURES_PTX\n", argv[0]);
        return 2;
    }
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        fprintf(stderr, "no CUDA device: skipped\n");
        return SKIP;
    }
    if (!(ptx = read_file(argv[1]))) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&module, ptx));
    float_reads();
    int_reads();
    layered_reads();
    surfaces();
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(ptx);
    printf("corpus-textures %s: %s\n", argv[1], failures ? "FAILED" : "all results right");
    return failures ? 1 : 0;
}
