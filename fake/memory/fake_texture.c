/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's texture and surface objects: a resource (an array, a
 * mipmapped array, linear or pitched device memory) with how it is read,
 * checked as the driver checks them, and described back. A handle is a
 * number from 1 never handed out again. Host kernels read them through
 * fake_sample.c; the resource is looked up again at each read, so one
 * destroyed meanwhile is a fault there, not a dangling pointer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_array.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_memory.h"
#include "fake_texture.h"

static struct fake_texture *textures;
static uint64_t next_handle = 1; /* textures and surfaces alike; 0 is no object */

#define TEXTURE_FLAGS \
    (CUABI_TRSF_READ_AS_INTEGER | CUABI_TRSF_NORMALIZED_COORDINATES | CUABI_TRSF_SRGB | \
     CUABI_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | CUABI_TRSF_SEAMLESS_CUBEMAP)

static struct fake_texture *find(uint64_t handle, bool surface)
{
    for (struct fake_texture *t = textures; t; t = t->next_live)
        if (t->handle == handle && t->surface == surface)
            return t;
    return NULL;
}

const struct fake_texture *fake_texture_find(uint64_t handle, bool surface)
{
    return find(handle, surface);
}

/* ---- Resources ---- */

/* A format with 1, 2 or 4 channels that the fake stores; else INVALID_VALUE. */
static size_t element_bytes(cuabi_array_format format, unsigned channels)
{
    size_t b = fake_format_bytes(format);

    return channels == 1 || channels == 2 || channels == 4 ? b * channels : 0;
}

/* Device memory a texture reads: aligned as the device requires, inside a live allocation the context reaches. */
static cuabi_result memory_check(const struct fake_ctx *ctx, uint64_t ptr, size_t bytes)
{
    const struct fake_alloc *a;

    if (ptr % (uint64_t)fake_attribute(ctx->device, CUABI_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT))
        return CUABI_ERROR_INVALID_VALUE;
    a = fake_alloc_find(ptr, bytes ? bytes : 1);
    return a && fake_ctx_reaches(ctx, a->device) ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
}

static cuabi_result linear_check(const struct fake_ctx *ctx, const cuabi_resource_desc *r)
{
    size_t elem = element_bytes(r->res.linear.format, r->res.linear.channels);

    if (!elem || r->res.linear.bytes / elem >
                     (size_t)fake_attribute(ctx->device, CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH))
        return CUABI_ERROR_INVALID_VALUE;
    return memory_check(ctx, r->res.linear.ptr, r->res.linear.bytes);
}

static cuabi_result pitch2d_check(const struct fake_ctx *ctx, const cuabi_resource_desc *r)
{
    size_t elem = element_bytes(r->res.pitch2d.format, r->res.pitch2d.channels), w = r->res.pitch2d.width;
    size_t h = r->res.pitch2d.height, pitch = r->res.pitch2d.pitch;
    int d = ctx->device;

    if (!elem || w == 0 || h == 0 || w > pitch / elem ||
        pitch % (size_t)fake_attribute(d, CUABI_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT) ||
        w > (size_t)fake_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH) ||
        h > (size_t)fake_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT) ||
        pitch > (size_t)fake_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH))
        return CUABI_ERROR_INVALID_VALUE;
    return memory_check(ctx, r->res.pitch2d.ptr, (h - 1) * pitch + w * elem);
}

/*
 * A resource the driver takes: flags 0; a live array or mipmapped array, or
 * device memory as the device's limits allow. A surface takes an array (an
 * H200 makes one over an array created without CUDA_ARRAY3D_SURFACE_LDST
 * too).
 */
static cuabi_result resource_check(const struct fake_ctx *ctx, const cuabi_resource_desc *r, bool surface)
{
    const struct fake_array *a;

    if (r->flags)
        return CUABI_ERROR_INVALID_VALUE;
    switch (r->type) {
    case CUABI_RESOURCE_TYPE_ARRAY:
        a = fake_array_find(r->res.array.array);
        if (!a)
            return CUABI_ERROR_INVALID_VALUE;
        return CUABI_SUCCESS;
    case CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        return !surface && fake_mipmap_find(r->res.mipmap.mipmap) ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
    case CUABI_RESOURCE_TYPE_LINEAR:
        return surface ? CUABI_ERROR_INVALID_VALUE : linear_check(ctx, r);
    case CUABI_RESOURCE_TYPE_PITCH2D:
        return surface ? CUABI_ERROR_INVALID_VALUE : pitch2d_check(ctx, r);
    default:
        return CUABI_ERROR_INVALID_VALUE;
    }
}

/* ---- Texture descriptors and views ---- */

/* The array a texture's resource holds (a mipmapped array's level 0), or NULL for memory. */
static const struct fake_array *resource_array(const cuabi_resource_desc *r, unsigned *levels)
{
    const struct fake_mipmap *m;
    const struct fake_array *a;

    *levels = 1;
    if (r->type == CUABI_RESOURCE_TYPE_ARRAY)
        return fake_array_find(r->res.array.array);
    if (r->type != CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY)
        return NULL;
    m = fake_mipmap_find(r->res.mipmap.mipmap);
    for (a = fake_mipmap_level(m, 0); fake_mipmap_level(m, *levels); (*levels)++)
        ;
    return a;
}

/*
 * Modes and flags cuda.h names; normalized coordinates for a mipmapped array;
 * a seamless cubemap only of a cubemap. Linear filtering of what is read as
 * integers is taken, as an H200 takes it, and samples as point filtering
 * (fake_sample.c).
 */
static cuabi_result desc_check(const cuabi_resource_desc *r, const cuabi_texture_desc *d)
{
    const struct fake_array *a;
    unsigned levels;

    for (int i = 0; i < 3; i++)
        if (d->address_mode[i] > CUABI_TR_ADDRESS_MODE_BORDER)
            return CUABI_ERROR_INVALID_VALUE;
    if (d->filter_mode > CUABI_TR_FILTER_MODE_LINEAR || d->mipmap_filter_mode > CUABI_TR_FILTER_MODE_LINEAR ||
        (d->flags & ~(unsigned)TEXTURE_FLAGS))
        return CUABI_ERROR_INVALID_VALUE;
    if (d->flags & CUABI_TRSF_SRGB) {
        fprintf(stderr, "gpushim-fakecuda: the fake driver does not convert sRGB textures (CU_TRSF_SRGB): "
                        "CUDA_ERROR_NOT_SUPPORTED\n");
        return CUABI_ERROR_NOT_SUPPORTED;
    }
    a = resource_array(r, &levels);
    if (r->type == CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY && !(d->flags & CUABI_TRSF_NORMALIZED_COORDINATES))
        return CUABI_ERROR_INVALID_VALUE;
    if ((d->flags & CUABI_TRSF_SEAMLESS_CUBEMAP) && !(a && (a->desc.flags & CUABI_ARRAY3D_CUBEMAP)))
        return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

/*
 * A view of an array or mipmapped array in its own format: its extents the
 * resource's, its levels and layers within the resource's. A view in
 * another format (block-compressed ones) is not played: NOT_SUPPORTED.
 */
static cuabi_result view_check(const cuabi_resource_desc *r, const cuabi_resource_view_desc *v)
{
    unsigned levels;
    const struct fake_array *a = resource_array(r, &levels);
    size_t layers;

    if (!a)
        return CUABI_ERROR_INVALID_VALUE;
    if (v->format) {
        fprintf(stderr, "gpushim-fakecuda: the fake driver reads a resource view in the resource's own format only "
                        "(CU_RES_VIEW_FORMAT_NONE), not format 0x%x: CUDA_ERROR_NOT_SUPPORTED\n", v->format);
        return CUABI_ERROR_NOT_SUPPORTED;
    }
    layers = a->desc.flags & CUABI_ARRAY3D_LAYERED ? a->desc.depth : 1;
    if (v->width != a->desc.width || v->height != a->desc.height || v->depth != a->desc.depth ||
        v->first_mipmap_level > v->last_mipmap_level || v->last_mipmap_level >= levels ||
        v->first_layer > v->last_layer || v->last_layer >= layers)
        return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

/* ---- Objects ---- */

static cuabi_result object_new(const struct fake_ctx *ctx, bool surface, const cuabi_resource_desc *r,
                               unsigned long long *handle, struct fake_texture **out)
{
    struct fake_texture *t = calloc(1, sizeof(*t));

    if (!t)
        return CUABI_ERROR_OUT_OF_MEMORY;
    t->ctx = ctx;
    t->surface = surface;
    t->res = *r;
    t->handle = next_handle++;
    t->next_live = textures;
    textures = t;
    fake.live[surface ? GPU_FAKE_LIVE_SURFACES : GPU_FAKE_LIVE_TEXTURES]++;
    *handle = t->handle;
    *out = t;
    return CUABI_SUCCESS;
}

static void object_free(struct fake_texture *t)
{
    for (struct fake_texture **p = &textures; *p; p = &(*p)->next_live)
        if (*p == t) {
            *p = t->next_live;
            break;
        }
    fake.live[t->surface ? GPU_FAKE_LIVE_SURFACES : GPU_FAKE_LIVE_TEXTURES]--;
    free(t);
}

cuabi_result cuTexObjectCreate(cuabi_tex_object *tex, const cuabi_resource_desc *res, const cuabi_texture_desc *desc,
                               const cuabi_resource_view_desc *view)
{
    cuabi_result rc = fake_begin(FAKE_E_cuTexObjectCreate, true);
    struct fake_ctx *c = NULL;
    struct fake_texture *t = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && (!tex || !res || !desc))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = resource_check(c, res, false);
    if (rc == CUABI_SUCCESS)
        rc = desc_check(res, desc);
    if (rc == CUABI_SUCCESS && view)
        rc = view_check(res, view);
    if (rc == CUABI_SUCCESS)
        rc = object_new(c, false, res, tex, &t);
    if (rc == CUABI_SUCCESS) {
        t->desc = *desc;
        if (view)
            t->view = *view;
    }
    return fake_end(rc);
}

cuabi_result cuSurfObjectCreate(cuabi_surf_object *surf, const cuabi_resource_desc *res)
{
    cuabi_result rc = fake_begin(FAKE_E_cuSurfObjectCreate, true);
    struct fake_ctx *c = NULL;
    struct fake_texture *t = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && (!surf || !res))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = resource_check(c, res, true);
    if (rc == CUABI_SUCCESS)
        rc = object_new(c, true, res, surf, &t);
    return fake_end(rc);
}

/* What the destroys and descriptions share: the live object, or INVALID_HANDLE. */
static cuabi_result object_of(enum fake_entry entry, uint64_t handle, bool surface, bool out_ok,
                              struct fake_texture **t)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS && !out_ok)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !(*t = find(handle, surface)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    return rc;
}

cuabi_result cuTexObjectDestroy(cuabi_tex_object tex)
{
    struct fake_texture *t = NULL;
    cuabi_result rc = object_of(FAKE_E_cuTexObjectDestroy, tex, false, true, &t);

    if (rc == CUABI_SUCCESS)
        object_free(t);
    return fake_end(rc);
}

cuabi_result cuSurfObjectDestroy(cuabi_surf_object surf)
{
    struct fake_texture *t = NULL;
    cuabi_result rc = object_of(FAKE_E_cuSurfObjectDestroy, surf, true, true, &t);

    if (rc == CUABI_SUCCESS)
        object_free(t);
    return fake_end(rc);
}

cuabi_result cuTexObjectGetResourceDesc(cuabi_resource_desc *res, cuabi_tex_object tex)
{
    struct fake_texture *t = NULL;
    cuabi_result rc = object_of(FAKE_E_cuTexObjectGetResourceDesc, tex, false, res != NULL, &t);

    if (rc == CUABI_SUCCESS)
        *res = t->res;
    return fake_end(rc);
}

cuabi_result cuTexObjectGetTextureDesc(cuabi_texture_desc *desc, cuabi_tex_object tex)
{
    struct fake_texture *t = NULL;
    cuabi_result rc = object_of(FAKE_E_cuTexObjectGetTextureDesc, tex, false, desc != NULL, &t);

    if (rc == CUABI_SUCCESS)
        *desc = t->desc;
    return fake_end(rc);
}

cuabi_result cuTexObjectGetResourceViewDesc(cuabi_resource_view_desc *view, cuabi_tex_object tex)
{
    struct fake_texture *t = NULL;
    cuabi_result rc = object_of(FAKE_E_cuTexObjectGetResourceViewDesc, tex, false, view != NULL, &t);

    if (rc == CUABI_SUCCESS)
        *view = t->view;
    return fake_end(rc);
}

cuabi_result cuSurfObjectGetResourceDesc(cuabi_resource_desc *res, cuabi_surf_object surf)
{
    struct fake_texture *t = NULL;
    cuabi_result rc = object_of(FAKE_E_cuSurfObjectGetResourceDesc, surf, true, res != NULL, &t);

    if (rc == CUABI_SUCCESS)
        *res = t->res;
    return fake_end(rc);
}

/* ---- The context's end, and the control API's view ---- */

unsigned long fake_textures_reset(struct fake_ctx *ctx)
{
    unsigned long n = 0;

    for (struct fake_texture *t = textures, *next; t; t = next) {
        next = t->next_live;
        if (t->ctx == ctx) {
            object_free(t);
            n++;
        }
    }
    return n;
}

void *fake_texture_newest(int kind)
{
    for (const struct fake_texture *t = textures; t; t = t->next_live)
        if (t->surface == (kind == GPU_FAKE_LIVE_SURFACES))
            return (void *)(uintptr_t)t->handle;
    return NULL;
}
