/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's CUDA arrays and mipmapped arrays: elements in host
 * memory, row after row and slice after slice, counted against their
 * device's memory. A handle is a number never handed out again, so a
 * destroyed array's handle stays invalid; handles are looked up, never
 * dereferenced. Copies reach arrays through fake_array_bytes() (fake_copy.c),
 * texture and surface objects through fake_array_find() (fake_texture.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_array.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_faults.h"
#include "fake_stream.h"

struct fake_mipmap {
    struct fake_mipmap *next_live;
    struct fake_ctx *ctx;
    uintptr_t handle;
    cuabi_array3d_descriptor desc;
    unsigned count;
    struct fake_array *levels[]; /* [count], each also a live array */
};

static struct fake_array *arrays;
static struct fake_mipmap *mipmaps;
static uintptr_t next_handle = 0x1000; /* arrays and mipmapped arrays alike */

/* Flags the fake stores an array with; the others are refused (see flags_check()). */
#define KNOWN_FLAGS \
    (CUABI_ARRAY3D_LAYERED | CUABI_ARRAY3D_SURFACE_LDST | CUABI_ARRAY3D_CUBEMAP | CUABI_ARRAY3D_TEXTURE_GATHER | \
     CUABI_ARRAY3D_DEPTH_TEXTURE | CUABI_ARRAY3D_COLOR_ATTACHMENT)

struct fake_array *fake_array_find(const void *handle)
{
    for (struct fake_array *a = arrays; a && handle; a = a->next_live)
        if (a->handle == (uintptr_t)handle)
            return a;
    return NULL;
}

unsigned char *fake_array_bytes(const void *handle, size_t offset, size_t bytes)
{
    struct fake_array *a = fake_array_find(handle);

    return a && offset <= a->bytes && bytes <= a->bytes - offset ? a->data + offset : NULL;
}

struct fake_mipmap *fake_mipmap_find(const void *handle)
{
    for (struct fake_mipmap *m = mipmaps; m && handle; m = m->next_live)
        if (m->handle == (uintptr_t)handle)
            return m;
    return NULL;
}

struct fake_array *fake_mipmap_level(const struct fake_mipmap *m, unsigned level)
{
    return m && level < m->count ? m->levels[level] : NULL;
}

/* ---- Descriptors ---- */

/* The largest extents a device gives an array of that shape: {width, height, depth or layers}. */
static void extent_limits(int device, const cuabi_array3d_descriptor *d, int lim[3])
{
    bool layered = d->flags & CUABI_ARRAY3D_LAYERED, cube = d->flags & CUABI_ARRAY3D_CUBEMAP;
    unsigned w, h = 0, z = 0;

    if (cube) {
        w = layered ? CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH
                    : CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH;
        h = w;
        z = layered ? CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS : 0;
    } else if (layered && d->height == 0) {
        w = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH;
        z = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS;
    } else if (layered) {
        w = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH;
        h = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT;
        z = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS;
    } else if (d->depth) {
        w = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH;
        h = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT;
        z = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH;
    } else if (d->height) {
        w = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH;
        h = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT;
    } else {
        w = CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH;
    }
    lim[0] = fake_attribute(device, w);
    lim[1] = h ? fake_attribute(device, h) : 0;
    lim[2] = z ? fake_attribute(device, z) : cube ? 6 : 0;
}

/*
 * A descriptor the driver takes: a format and 1, 2 or 4 channels; a width;
 * a depth only with a height, unless layered; a cubemap square with 6 faces
 * (a multiple of 6 layered); every extent within the device's limits.
 */
static cuabi_result desc_check(int device, const cuabi_array3d_descriptor *d)
{
    bool layered = d->flags & CUABI_ARRAY3D_LAYERED, cube = d->flags & CUABI_ARRAY3D_CUBEMAP;
    int lim[3];

    if (d->channels != 1 && d->channels != 2 && d->channels != 4)
        return CUABI_ERROR_INVALID_VALUE;
    if (d->width == 0 || (d->depth && !d->height && !layered) || (layered && !d->depth))
        return CUABI_ERROR_INVALID_VALUE;
    if (cube && (d->width != d->height || d->depth == 0 || d->depth % 6 || (!layered && d->depth != 6)))
        return CUABI_ERROR_INVALID_VALUE;
    extent_limits(device, d, lim);
    if (d->width > (size_t)lim[0] || d->height > (size_t)lim[1] || d->depth > (size_t)lim[2])
        return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

/* Flags and formats the driver has that the fake does not store: said on stderr, NOT_SUPPORTED. */
static cuabi_result format_check(const cuabi_array3d_descriptor *d)
{
    if (d->flags & ~(unsigned)(KNOWN_FLAGS | CUABI_ARRAY3D_SPARSE | CUABI_ARRAY3D_DEFERRED_MAPPING |
                               CUABI_ARRAY3D_VIDEO_ENCODE_DECODE))
        return CUABI_ERROR_INVALID_VALUE;
    if ((d->flags & ~(unsigned)KNOWN_FLAGS) || !fake_format_bytes(d->format)) {
        fprintf(stderr,
                "gpushim-fakecuda: the fake driver does not store CUDA arrays of format 0x%x with flags 0x%x "
                "(sparse, deferred-mapping and video arrays, and formats other than 8-, 16- and 32-bit integers, "
                "half and float): CUDA_ERROR_NOT_SUPPORTED\n",
                d->format, d->flags);
        return CUABI_ERROR_NOT_SUPPORTED;
    }
    return CUABI_SUCCESS;
}

/* ---- Arrays ---- */

/* A new live array of the context, its elements zeroed; OUT_OF_MEMORY past the device's memory. */
static cuabi_result array_new(struct fake_ctx *ctx, const cuabi_array3d_descriptor *d, struct fake_array **out)
{
    struct fake_device *dev = &fake.devices[ctx->device];
    size_t elem = fake_format_bytes(d->format) * d->channels, rows = d->height ? d->height : 1;
    size_t slices = d->depth ? d->depth : 1, pitch, bytes;
    struct fake_array *a;

    if (d->width > SIZE_MAX / elem || rows > SIZE_MAX / (pitch = d->width * elem) / slices)
        return CUABI_ERROR_OUT_OF_MEMORY;
    bytes = pitch * rows * slices;
    if (bytes > dev->desc.total_memory - dev->used || fake_over_limit(ctx->device, dev->used, bytes))
        return CUABI_ERROR_OUT_OF_MEMORY;
    if (!(a = calloc(1, sizeof(*a))) || !(a->data = calloc(1, bytes))) {
        free(a);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    a->ctx = ctx;
    a->handle = next_handle++;
    a->desc = *d;
    a->elem = elem;
    a->pitch = pitch;
    a->rows = rows;
    a->slices = slices;
    a->bytes = bytes;
    a->next_live = arrays;
    arrays = a;
    dev->used += bytes;
    fake.live[GPU_FAKE_LIVE_ARRAYS]++;
    *out = a;
    return CUABI_SUCCESS;
}

static void array_free(struct fake_array *a)
{
    for (struct fake_array **p = &arrays; *p; p = &(*p)->next_live)
        if (*p == a) {
            *p = a->next_live;
            break;
        }
    fake.devices[a->ctx->device].used -= a->bytes;
    fake.live[GPU_FAKE_LIVE_ARRAYS]--;
    free(a->data);
    free(a);
}

/* What cuArrayCreate and cuArray3DCreate share: the descriptor checked, a new array. */
static cuabi_result array_create(enum fake_entry entry, cuabi_array *out, const cuabi_array3d_descriptor *d)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;
    struct fake_array *a = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && (!out || !d))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = format_check(d);
    if (rc == CUABI_SUCCESS)
        rc = desc_check(c->device, d);
    if (rc == CUABI_SUCCESS)
        rc = array_new(c, d, &a);
    if (rc == CUABI_SUCCESS)
        *out = (cuabi_array)a->handle;
    return fake_end(rc);
}

cuabi_result cuArrayCreate_v2(cuabi_array *array, const cuabi_array_descriptor *desc)
{
    cuabi_array3d_descriptor d = {0};

    if (desc)
        d = (cuabi_array3d_descriptor){desc->width, desc->height, 0, desc->format, desc->channels, 0};
    return array_create(FAKE_E_cuArrayCreate_v2, array, desc ? &d : NULL);
}

cuabi_result cuArray3DCreate_v2(cuabi_array *array, const cuabi_array3d_descriptor *desc)
{
    return array_create(FAKE_E_cuArray3DCreate_v2, array, desc);
}

cuabi_result cuArrayDestroy(cuabi_array array)
{
    cuabi_result rc = fake_begin(FAKE_E_cuArrayDestroy, true);
    struct fake_array *a = NULL;

    if (rc == CUABI_SUCCESS) {
        fake_work_drain(); /* a queued copy may still use it */
        a = fake_array_find(array);
    }

    /* A mipmapped array's level goes with it, never alone. */
    if (rc == CUABI_SUCCESS && (!a || a->mipmap))
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        array_free(a);
    return fake_end(rc);
}

/* What the descriptor queries share: the live array, or the reason. */
static cuabi_result array_describe(enum fake_entry entry, const void *out, cuabi_array array,
                                   const struct fake_array **a)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS && !out)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !(*a = fake_array_find(array)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    return rc;
}

cuabi_result cuArrayGetDescriptor_v2(cuabi_array_descriptor *desc, cuabi_array array)
{
    const struct fake_array *a = NULL;
    cuabi_result rc = array_describe(FAKE_E_cuArrayGetDescriptor_v2, desc, array, &a);

    if (rc == CUABI_SUCCESS)
        *desc = (cuabi_array_descriptor){a->desc.width, a->desc.height, a->desc.format, a->desc.channels};
    return fake_end(rc);
}

cuabi_result cuArray3DGetDescriptor_v2(cuabi_array3d_descriptor *desc, cuabi_array array)
{
    const struct fake_array *a = NULL;
    cuabi_result rc = array_describe(FAKE_E_cuArray3DGetDescriptor_v2, desc, array, &a);

    if (rc == CUABI_SUCCESS)
        *desc = a->desc;
    return fake_end(rc);
}

/* ---- Mipmapped arrays ---- */

/* How many levels a mipmap of those extents can have: down to 1 in the largest. */
static unsigned levels_most(const cuabi_array3d_descriptor *d)
{
    bool layered = d->flags & CUABI_ARRAY3D_LAYERED;
    size_t big = d->width > d->height ? d->width : d->height;
    unsigned n = 1;

    if (!layered && d->depth > big)
        big = d->depth;
    while (big >>= 1)
        n++;
    return n;
}

static void mipmap_free(struct fake_mipmap *m)
{
    for (struct fake_mipmap **p = &mipmaps; *p; p = &(*p)->next_live)
        if (*p == m) {
            *p = m->next_live;
            break;
        }
    for (unsigned i = 0; i < m->count; i++)
        if (m->levels[i])
            array_free(m->levels[i]);
    free(m);
}

/* Level i's descriptor: each extent halved i times, down to 1; layers and 0 extents kept. */
static cuabi_array3d_descriptor level_desc(const cuabi_array3d_descriptor *d, unsigned i)
{
    cuabi_array3d_descriptor l = *d;
    bool layered = d->flags & CUABI_ARRAY3D_LAYERED;

    l.width = d->width >> i ? d->width >> i : 1;
    if (d->height)
        l.height = d->height >> i ? d->height >> i : 1;
    if (d->depth && !layered && !(d->flags & CUABI_ARRAY3D_CUBEMAP))
        l.depth = d->depth >> i ? d->depth >> i : 1;
    return l;
}

static cuabi_result mipmap_new(struct fake_ctx *c, const cuabi_array3d_descriptor *d, unsigned levels,
                               struct fake_mipmap **out)
{
    struct fake_mipmap *m = calloc(1, sizeof(*m) + levels * sizeof(m->levels[0]));
    cuabi_result rc = m ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;

    if (!m)
        return rc;
    m->ctx = c;
    m->handle = next_handle++;
    m->desc = *d;
    m->next_live = mipmaps;
    mipmaps = m;
    for (unsigned i = 0; rc == CUABI_SUCCESS && i < levels; i++) {
        cuabi_array3d_descriptor l = level_desc(d, i);

        rc = array_new(c, &l, &m->levels[i]);
        if (rc == CUABI_SUCCESS) {
            m->levels[i]->mipmap = m;
            m->count++;
        }
    }
    if (rc != CUABI_SUCCESS)
        mipmap_free(m);
    else
        *out = m;
    return rc;
}

cuabi_result cuMipmappedArrayCreate(cuabi_mipmapped_array *mipmap, const cuabi_array3d_descriptor *desc,
                                    unsigned int levels)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMipmappedArrayCreate, true);
    struct fake_ctx *c = NULL;
    struct fake_mipmap *m = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && (!mipmap || !desc || levels == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = format_check(desc);
    if (rc == CUABI_SUCCESS)
        rc = desc_check(c->device, desc);
    /* More levels than the extents allow make as many as they allow: an H200 takes 6 levels of 16 x 16. */
    if (rc == CUABI_SUCCESS && levels > levels_most(desc))
        levels = levels_most(desc);
    if (rc == CUABI_SUCCESS)
        rc = mipmap_new(c, desc, levels, &m);
    if (rc == CUABI_SUCCESS) {
        fake.live[GPU_FAKE_LIVE_MIPMAPPED_ARRAYS]++;
        *mipmap = (cuabi_mipmapped_array)m->handle;
    }
    return fake_end(rc);
}

cuabi_result cuMipmappedArrayGetLevel(cuabi_array *array, cuabi_mipmapped_array mipmap, unsigned int level)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMipmappedArrayGetLevel, true);
    struct fake_mipmap *m = rc == CUABI_SUCCESS ? fake_mipmap_find(mipmap) : NULL;

    if (rc == CUABI_SUCCESS && !array)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !m)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS && level >= m->count)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *array = (cuabi_array)m->levels[level]->handle;
    return fake_end(rc);
}

cuabi_result cuMipmappedArrayDestroy(cuabi_mipmapped_array mipmap)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMipmappedArrayDestroy, true);
    struct fake_mipmap *m = NULL;

    if (rc == CUABI_SUCCESS) {
        fake_work_drain(); /* a queued copy or launch may still use it */
        m = fake_mipmap_find(mipmap);
    }

    if (rc == CUABI_SUCCESS && !m)
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS) {
        mipmap_free(m);
        fake.live[GPU_FAKE_LIVE_MIPMAPPED_ARRAYS]--;
    }
    return fake_end(rc);
}

/* ---- The context's end, and the control API's view ---- */

unsigned long fake_arrays_reset(struct fake_ctx *ctx)
{
    unsigned long n = 0;

    for (struct fake_mipmap *m = mipmaps, *next; m; m = next) {
        next = m->next_live;
        if (m->ctx == ctx) {
            mipmap_free(m);
            fake.live[GPU_FAKE_LIVE_MIPMAPPED_ARRAYS]--;
            n++;
        }
    }
    for (struct fake_array *a = arrays, *next; a; a = next) {
        next = a->next_live;
        if (a->ctx == ctx) {
            array_free(a);
            n++;
        }
    }
    return n;
}

void *fake_array_newest(int kind)
{
    if (kind == GPU_FAKE_LIVE_MIPMAPPED_ARRAYS)
        return mipmaps ? (void *)mipmaps->handle : NULL;
    for (const struct fake_array *a = arrays; a; a = a->next_live)
        if (!a->mipmap)
            return (void *)a->handle;
    return NULL;
}
