/* SPDX-License-Identifier: MIT */
/*
 * Texture reads and surface accesses for kernel code on the host (the PTX
 * interpreter, and host kernels through gpu_fake_texture_read() and
 * gpu_fake_surface_read/write(), which fake_host_kernel.c defines):
 * a texture object's resource found again at each read, its elements decoded
 * as a GPU's texture unit decodes them, addressed and filtered as its
 * descriptor says. Runs under the fake's lock, as host kernels do.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fake_array.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_memory.h"
#include "fake_sample.h"
#include "fake_texture.h"

/* What a read samples: one array (or mipmap level), or pitched device memory. */
struct image {
    const unsigned char *data;
    size_t elem, pitch, slice;
    size_t dims[3];      /* width, height, depth; 1 where the image has none */
    unsigned ndims;      /* dimensions addressed and filtered: 1, 2 or 3 */
    size_t layers;       /* a layered array's layers, else 1 */
    cuabi_array_format format;
    unsigned channels;
};

/* ---- Elements ---- */

static float half_to_float(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v = exp == 0    ? ldexpf((float)mant, -24)
              : exp == 31 ? (mant ? NAN : INFINITY)
                          : ldexpf((float)(mant | 0x400), exp - 25);

    return h & 0x8000 ? -v : v;
}

/* Channel c of an element: its integer value, and as a float as the read mode promotes it. */
static void channel_decode(const unsigned char *p, cuabi_array_format format, bool integer, int32_t *i, float *f)
{
    uint16_t u16;
    int16_t s16;

    switch (format) {
    case CUABI_AD_FORMAT_UNSIGNED_INT8:
        *i = p[0];
        *f = integer ? (float)*i : (float)*i / 255.0f;
        return;
    case CUABI_AD_FORMAT_SIGNED_INT8:
        *i = (int8_t)p[0];
        *f = integer ? (float)*i : fmaxf((float)*i / 127.0f, -1.0f);
        return;
    case CUABI_AD_FORMAT_UNSIGNED_INT16:
        memcpy(&u16, p, 2);
        *i = u16;
        *f = integer ? (float)*i : (float)*i / 65535.0f;
        return;
    case CUABI_AD_FORMAT_SIGNED_INT16:
        memcpy(&s16, p, 2);
        *i = s16;
        *f = integer ? (float)*i : fmaxf((float)*i / 32767.0f, -1.0f);
        return;
    case CUABI_AD_FORMAT_HALF:
        memcpy(&u16, p, 2);
        *f = half_to_float(u16);
        *i = 0;
        return;
    case CUABI_AD_FORMAT_FLOAT:
        memcpy(f, p, 4);
        *i = 0;
        return;
    default: /* 32-bit integers: read as integers always */
        memcpy(i, p, 4);
        *f = format == CUABI_AD_FORMAT_UNSIGNED_INT32 ? (float)(uint32_t)*i : (float)*i;
        return;
    }
}

static void element_decode(const struct image *im, const unsigned char *p, bool integer, gpu_fake_texel *out)
{
    size_t each = im->elem / im->channels;

    memset(out, 0, sizeof(*out));
    out->integer = integer;
    for (unsigned c = 0; c < im->channels; c++)
        channel_decode(p + c * each, im->format, integer, &out->i[c], &out->f[c]);
}

/* Whether a texture of that format returns integers. */
static bool reads_integers(cuabi_array_format format, unsigned flags)
{
    if (format == CUABI_AD_FORMAT_FLOAT || format == CUABI_AD_FORMAT_HALF)
        return false;
    return fake_format_bytes(format) == 4 || (flags & CUABI_TRSF_READ_AS_INTEGER);
}

/* ---- Images ---- */

static void image_of_array(const struct fake_array *a, struct image *im)
{
    /* A cubemap's faces are its layers, six a cube. */
    bool layered = a->desc.flags & (CUABI_ARRAY3D_LAYERED | CUABI_ARRAY3D_CUBEMAP);

    *im = (struct image){a->data, a->elem, a->pitch, a->pitch * a->rows, {a->desc.width, a->rows, 1}, 1, 1,
                         a->desc.format, a->desc.channels};
    if (a->desc.height)
        im->ndims = 2;
    if (layered)
        im->layers = a->slices;
    else if (a->desc.depth) {
        im->ndims = 3;
        im->dims[2] = a->slices;
    }
}

/* Pitched device memory as an image: still allocated, and reachable from the context. */
static bool image_of_pitch2d(const struct fake_ctx *ctx, const cuabi_resource_desc *r, struct image *im)
{
    size_t elem = fake_format_bytes(r->res.pitch2d.format) * r->res.pitch2d.channels;
    size_t span = (r->res.pitch2d.height - 1) * r->res.pitch2d.pitch + r->res.pitch2d.width * elem;
    const struct fake_alloc *a = fake_alloc_find(r->res.pitch2d.ptr, span);

    if (!a || !fake_ctx_reaches(ctx, a->device))
        return false;
    *im = (struct image){a->data + (r->res.pitch2d.ptr - a->addr), elem, r->res.pitch2d.pitch, 0,
                         {r->res.pitch2d.width, r->res.pitch2d.height, 1}, 2, 1, r->res.pitch2d.format,
                         r->res.pitch2d.channels};
    return true;
}

/* The image a texture reads at mipmap level `level` (0 for others); false when its resource is gone. */
static bool image_of(const struct fake_ctx *ctx, const struct fake_texture *t, unsigned level, struct image *im)
{
    const struct fake_array *a = NULL;

    if (t->res.type == CUABI_RESOURCE_TYPE_PITCH2D)
        return image_of_pitch2d(ctx, &t->res, im);
    if (t->res.type == CUABI_RESOURCE_TYPE_ARRAY)
        a = fake_array_find(t->res.res.array.array);
    else if (t->res.type == CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY)
        a = fake_mipmap_level(fake_mipmap_find(t->res.res.mipmap.mipmap), level);
    if (!a || !fake_ctx_reaches(ctx, a->ctx->device))
        return false;
    image_of_array(a, im);
    return true;
}

/* ---- Addressing and filtering ---- */

/* Index i of an extent of n as an address mode makes it; -1 for the border. */
static long long address(long long i, long long n, unsigned mode, bool normalized)
{
    if (!normalized && (mode == CUABI_TR_ADDRESS_MODE_WRAP || mode == CUABI_TR_ADDRESS_MODE_MIRROR))
        mode = CUABI_TR_ADDRESS_MODE_CLAMP; /* only clamp and border without normalized coordinates */
    switch (mode) {
    case CUABI_TR_ADDRESS_MODE_WRAP:
        return ((i % n) + n) % n;
    case CUABI_TR_ADDRESS_MODE_MIRROR: {
        long long m = ((i % (2 * n)) + 2 * n) % (2 * n);

        return m < n ? m : 2 * n - 1 - m;
    }
    case CUABI_TR_ADDRESS_MODE_BORDER:
        return i < 0 || i >= n ? -1 : i;
    default:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

/* The texel at integer coordinates (a layer too), after the address modes. */
static void texel_at(const struct image *im, const struct fake_texture *t, const long long at[3], size_t layer,
                     bool integer, gpu_fake_texel *out)
{
    size_t idx[3] = {0, 0, 0};
    bool normalized = t->desc.flags & CUABI_TRSF_NORMALIZED_COORDINATES;

    for (unsigned d = 0; d < im->ndims && d < 3; d++) {
        long long i = address(at[d], (long long)im->dims[d], t->desc.address_mode[d], normalized);

        if (i < 0) {
            memset(out, 0, sizeof(*out));
            out->integer = integer;
            for (int c = 0; c < 4; c++) {
                out->f[c] = t->desc.border_color[c];
                out->i[c] = (int32_t)t->desc.border_color[c];
            }
            return;
        }
        idx[d] = (size_t)i;
    }
    element_decode(im, im->data + (idx[2] + layer) * im->slice + idx[1] * im->pitch + idx[0] * im->elem, integer, out);
}

/*
 * A texel of one image at coordinates in its own texels (after normalization):
 * point or linear; linear filtering of integers is point filtering, since a GPU
 * filters only what it returns as floats.
 */
static void image_sample(const struct image *im, const struct fake_texture *t, const float xyz[3], size_t layer,
                         bool integer, gpu_fake_texel *out)
{
    long long base[3] = {0, 0, 0};
    float frac[3] = {0, 0, 0};
    bool linear = t->desc.filter_mode == CUABI_TR_FILTER_MODE_LINEAR && !integer;

    for (unsigned d = 0; d < im->ndims && d < 3; d++) {
        float x = linear ? xyz[d] - 0.5f : xyz[d];

        base[d] = (long long)floorf(x);
        /* The texture unit's weights: 8 fractional bits. */
        frac[d] = linear ? roundf((x - floorf(x)) * 256.0f) / 256.0f : 0.0f;
    }
    if (!linear) {
        texel_at(im, t, base, layer, integer, out);
        return;
    }
    memset(out, 0, sizeof(*out));
    for (unsigned corner = 0; corner < (1u << im->ndims); corner++) {
        long long at[3] = {base[0], base[1], base[2]};
        float w = 1.0f;
        gpu_fake_texel one;

        for (unsigned d = 0; d < im->ndims && d < 3; d++) {
            at[d] += (corner >> d) & 1;
            w *= (corner >> d) & 1 ? frac[d] : 1.0f - frac[d];
        }
        texel_at(im, t, at, layer, integer, &one);
        for (int c = 0; c < 4; c++)
            out->f[c] += w * one.f[c];
    }
}

/* The layer a layered texture's coordinate after its dimensions names, within the view's layers. */
static size_t layer_of(const struct image *im, const struct fake_texture *t, const float coords[3])
{
    long long l = im->layers > 1 ? (long long)coords[im->ndims] : 0;
    long long last = t->view.last_layer || t->view.first_layer ? (long long)(t->view.last_layer - t->view.first_layer)
                                                              : (long long)im->layers - 1;

    l = l < 0 ? 0 : l > last ? last : l;
    return (size_t)l + t->view.first_layer;
}

/* A texel of one level: coordinates scaled to its texels (normalized ones by its extents). */
static bool level_sample(const struct fake_ctx *ctx, const struct fake_texture *t, unsigned level,
                         const float coords[3], gpu_fake_texel *out)
{
    struct image im;
    float xyz[3] = {0, 0, 0};
    bool normalized = t->desc.flags & CUABI_TRSF_NORMALIZED_COORDINATES;

    if (!image_of(ctx, t, level, &im))
        return false;
    for (unsigned d = 0; d < im.ndims && d < 3; d++)
        xyz[d] = normalized ? coords[d] * (float)im.dims[d] : coords[d];
    image_sample(&im, t, xyz, layer_of(&im, t, coords), reads_integers(im.format, t->desc.flags), out);
    return true;
}

/* A mipmapped texture: the level of detail biased and clamped, the nearest level or the two nearest blended. */
static bool mipmap_sample(const struct fake_ctx *ctx, const struct fake_texture *t, float lod, const float coords[3],
                          gpu_fake_texel *out)
{
    const struct fake_mipmap *m = fake_mipmap_find(t->res.res.mipmap.mipmap);
    unsigned levels = 1, first = t->view.first_mipmap_level;
    float top, l = lod + t->desc.mipmap_level_bias;
    gpu_fake_texel next;

    while (fake_mipmap_level(m, levels))
        levels++;
    top = (float)((t->view.last_mipmap_level ? t->view.last_mipmap_level : levels - 1) - first);
    l = fmaxf(l, t->desc.min_mipmap_level_clamp);
    if (t->desc.max_mipmap_level_clamp > 0.0f)
        l = fminf(l, t->desc.max_mipmap_level_clamp);
    l = fminf(fmaxf(l, 0.0f), top);
    if (t->desc.mipmap_filter_mode != CUABI_TR_FILTER_MODE_LINEAR || l == floorf(l))
        return level_sample(ctx, t, first + (unsigned)roundf(l), coords, out);
    if (!level_sample(ctx, t, first + (unsigned)floorf(l), coords, out) ||
        !level_sample(ctx, t, first + (unsigned)floorf(l) + 1, coords, &next))
        return false;
    for (int c = 0; c < 4; c++)
        out->f[c] += (l - floorf(l)) * (next.f[c] - out->f[c]);
    return true;
}

/* tex1Dfetch: element (int)x of linear memory, zeros outside it. */
static bool linear_fetch(const struct fake_ctx *ctx, const struct fake_texture *t, float x, gpu_fake_texel *out)
{
    const cuabi_resource_desc *r = &t->res;
    struct image im = {NULL, fake_format_bytes(r->res.linear.format) * r->res.linear.channels, 0, 0, {0, 1, 1}, 1, 1,
                       r->res.linear.format, r->res.linear.channels};
    const struct fake_alloc *a = fake_alloc_find(r->res.linear.ptr, r->res.linear.bytes ? r->res.linear.bytes : 1);
    long long i = (long long)x;

    if (!a || !fake_ctx_reaches(ctx, a->device))
        return false;
    im.data = a->data + (r->res.linear.ptr - a->addr);
    memset(out, 0, sizeof(*out));
    out->integer = reads_integers(im.format, t->desc.flags);
    if (i >= 0 && (size_t)i < r->res.linear.bytes / im.elem)
        element_decode(&im, im.data + (size_t)i * im.elem, out->integer, out);
    return true;
}

/* The array a texture reads (its first level's for a mipmapped one); NULL for memory, or an array gone. */
static const struct fake_array *array_of(const struct fake_texture *t)
{
    if (t->res.type == CUABI_RESOURCE_TYPE_ARRAY)
        return fake_array_find(t->res.res.array.array);
    if (t->res.type == CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY)
        return fake_mipmap_level(fake_mipmap_find(t->res.res.mipmap.mipmap), 0);
    return NULL;
}

static bool is_cubemap(const struct fake_array *a)
{
    return a && (a->desc.flags & CUABI_ARRAY3D_CUBEMAP);
}

bool fake_texture_sample(const struct fake_ctx *ctx, uint64_t tex, const float coords[3], float lod,
                         gpu_fake_texel *out, char *why, size_t why_size)
{
    const struct fake_texture *t = fake_texture_find(tex, false);
    bool ok;

    if (!t) {
        snprintf(why, why_size, "read texture object %llu, which is no live texture object", (unsigned long long)tex);
        return false;
    }
    if (is_cubemap(array_of(t))) {
        snprintf(why, why_size, "read cubemap texture object %llu other than as a cubemap (tex.cube, texCubemap)",
                 (unsigned long long)tex);
        return false;
    }
    if (t->res.type == CUABI_RESOURCE_TYPE_LINEAR)
        ok = linear_fetch(ctx, t, coords[0], out);
    else if (t->res.type == CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY)
        ok = mipmap_sample(ctx, t, lod, coords, out);
    else
        ok = level_sample(ctx, t, 0, coords, out);
    if (!ok)
        snprintf(why, why_size, "read texture object %llu, whose memory is no longer allocated (or not reachable)",
                 (unsigned long long)tex);
    return ok;
}

/* fake_texture_gradient_lod() of texture `t`, its coordinates normalized when `normalized`. */
static float gradient_lod(const struct fake_texture *t, bool normalized, unsigned n, const float dx[3],
                          const float dy[3])
{
    const struct fake_array *a;
    float lx = 0.0f, ly = 0.0f;

    if (!t || t->res.type != CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY ||
        !(a = fake_mipmap_level(fake_mipmap_find(t->res.res.mipmap.mipmap), t->view.first_mipmap_level)))
        return 0.0f;
    for (unsigned d = 0; d < n && d < 3; d++) {
        size_t extent = d == 0 ? a->desc.width : d == 1 ? a->rows : a->slices;
        float scale = normalized ? (float)extent : 1.0f;

        lx += dx[d] * scale * dx[d] * scale;
        ly += dy[d] * scale * dy[d] * scale;
    }
    return lx > 0.0f || ly > 0.0f ? 0.5f * log2f(fmaxf(lx, ly)) : 0.0f;
}

float fake_texture_gradient_lod(uint64_t tex, unsigned n, const float dx[3], const float dy[3])
{
    const struct fake_texture *t = fake_texture_find(tex, false);

    return gradient_lod(t, t && (t->desc.flags & CUABI_TRSF_NORMALIZED_COORDINATES), n, dx, dy);
}

/* ---- Cubemaps ---- */

/*
 * The face a direction points at, as the cubemap table of CUDA's programming
 * guide picks it: the coordinate of largest magnitude, ma (x before y before
 * z where two are as large), and its sign give the face (+x 0, -x 1, +y 2,
 * -y 3, +z 4, -z 5); the face's s and t come from two other coordinates, sc
 * and tc, each with the sign the table gives it, as (sc / |ma| + 1) / 2.
 */
struct cube_face {
    unsigned face, major;
    unsigned axis[2]; /* the coordinates sc and tc are */
    float sign[3];    /* sc's, tc's and ma's signs */
};

static void cube_face_of(const float d[3], struct cube_face *f)
{
    static const unsigned char axes[6][2] = {{2, 1}, {2, 1}, {0, 2}, {0, 2}, {0, 1}, {0, 1}};
    static const signed char signs[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {1, -1}, {1, -1}, {-1, -1}};
    float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]);

    f->major = ax >= ay && ax >= az ? 0 : ay >= az ? 1 : 2;
    f->face = 2 * f->major + (d[f->major] < 0.0f);
    for (unsigned i = 0; i < 2; i++) {
        f->axis[i] = axes[f->face][i];
        f->sign[i] = signs[f->face][i];
    }
    f->sign[2] = d[f->major] < 0.0f ? -1.0f : 1.0f;
}

/* The face's coordinate i (s 0, t 1), normalized; a zero or not finite direction reads the face's middle. */
static float cube_coord(const float d[3], const struct cube_face *f, unsigned i)
{
    float q = f->sign[i] * d[f->axis[i]] / fabsf(d[f->major]);

    return isnan(q) ? 0.5f : (fminf(fmaxf(q, -1.0f), 1.0f) + 1.0f) * 0.5f;
}

/*
 * A cubemap's face reads as a layer of a layered texture, with normalized
 * coordinates and clamped at its edges whatever the descriptor's address
 * modes (a seamless cubemap's filtering across edges is not modelled); the
 * index of a cubemap array is clamped to its cubemaps.
 */
bool fake_texture_sample_cube(const struct fake_ctx *ctx, uint64_t tex, const float dir[3], int32_t index, float lod,
                              gpu_fake_texel *out, char *why, size_t why_size)
{
    const struct fake_texture *t = fake_texture_find(tex, false);
    const struct fake_array *a = t ? array_of(t) : NULL;
    struct fake_texture face;
    struct cube_face f;
    long long cubes;
    float coords[3];
    bool ok;

    if (!t) {
        snprintf(why, why_size, "read texture object %llu, which is no live texture object", (unsigned long long)tex);
        return false;
    }
    if (!is_cubemap(a)) {
        snprintf(why, why_size, "read texture object %llu as a cubemap (tex.cube), which %s", (unsigned long long)tex,
                 a || (t->res.type != CUABI_RESOURCE_TYPE_ARRAY && t->res.type != CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY)
                     ? "is no cubemap"
                     : "reads an array no longer allocated");
        return false;
    }
    face = *t;
    face.desc.flags |= CUABI_TRSF_NORMALIZED_COORDINATES;
    for (unsigned d = 0; d < 3; d++)
        face.desc.address_mode[d] = CUABI_TR_ADDRESS_MODE_CLAMP;
    cubes = (long long)(t->view.last_layer || t->view.first_layer ? t->view.last_layer - t->view.first_layer + 1
                                                                   : a->slices) / 6;
    cube_face_of(dir, &f);
    coords[0] = cube_coord(dir, &f, 0);
    coords[1] = cube_coord(dir, &f, 1);
    coords[2] = (float)(f.face + 6 * (index < 0 ? 0 : index >= cubes ? cubes - 1 : index));
    if (t->res.type == CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY)
        ok = mipmap_sample(ctx, &face, lod, coords, out);
    else
        ok = level_sample(ctx, &face, 0, coords, out);
    if (!ok)
        snprintf(why, why_size, "read texture object %llu, whose memory is no longer allocated (or not reachable)",
                 (unsigned long long)tex);
    return ok;
}

/*
 * The face coordinates' gradients by the quotient rule: d(sc / |ma|) =
 * (dsc |ma| - sc d|ma|) / ma^2, halved as s is.
 */
float fake_texture_cube_gradient_lod(uint64_t tex, const float dir[3], const float dx[3], const float dy[3])
{
    const float *g[2] = {dx, dy};
    float st[2][3] = {{0, 0, 0}, {0, 0, 0}}, ma;
    struct cube_face f;

    cube_face_of(dir, &f);
    ma = fabsf(dir[f.major]);
    if (!(ma > 0.0f) || !isfinite(ma))
        return 0.0f;
    for (unsigned k = 0; k < 2; k++)
        for (unsigned i = 0; i < 2; i++)
            st[k][i] = 0.5f *
                       (f.sign[i] * g[k][f.axis[i]] * ma - f.sign[i] * dir[f.axis[i]] * f.sign[2] * g[k][f.major]) /
                       (ma * ma);
    return gradient_lod(fake_texture_find(tex, false), true, 2, st[0], st[1]);
}

/* ---- Surfaces ---- */

/* at[] moved as the boundary mode says; false when the access is outside under ZERO (or TRAP). */
static bool surface_place(const struct image *im, long long at[3], size_t size, int boundary)
{
    long long hi[3] = {(long long)(im->dims[0] * im->elem - size), (long long)im->dims[1] - 1,
                       (long long)(im->ndims == 3 ? im->dims[2] : im->layers) - 1};
    bool inside = true;

    for (int d = 0; d < 3; d++) {
        if (at[d] >= 0 && at[d] <= hi[d])
            continue;
        inside = false;
        if (boundary == GPU_FAKE_BOUNDARY_CLAMP)
            at[d] = at[d] < 0 ? 0 : hi[d];
    }
    return inside || boundary == GPU_FAKE_BOUNDARY_CLAMP;
}

bool fake_surface_access(const struct fake_ctx *ctx, uint64_t surf, const long long at_in[3], void *bytes,
                         size_t size, int boundary, bool write, char *why, size_t why_size)
{
    const struct fake_texture *t = fake_texture_find(surf, true);
    long long at[3] = {at_in[0], at_in[1], at_in[2]};
    struct image im;
    unsigned char *p;

    if (!t || !image_of(ctx, t, 0, &im)) {
        snprintf(why, why_size, "accessed surface object %llu, which is no live surface object over a live array",
                 (unsigned long long)surf);
        return false;
    }
    if (size == 0 || size > im.elem || size > 16) {
        snprintf(why, why_size, "accessed %zu bytes of surface object %llu, whose elements are %zu bytes", size,
                 (unsigned long long)surf, im.elem);
        return false;
    }
    if (!surface_place(&im, at, size, boundary)) {
        if (boundary == GPU_FAKE_BOUNDARY_ZERO) {
            if (!write)
                memset(bytes, 0, size);
            return true;
        }
        snprintf(why, why_size, "accessed surface object %llu at (%lld, %lld, %lld), outside it (boundary mode trap)",
                 (unsigned long long)surf, at_in[0], at_in[1], at_in[2]);
        return false;
    }
    p = (unsigned char *)(uintptr_t)im.data + (size_t)at[2] * im.slice + (size_t)at[1] * im.pitch + (size_t)at[0];
    if (write)
        memcpy(p, bytes, size);
    else
        memcpy(bytes, p, size);
    return true;
}
