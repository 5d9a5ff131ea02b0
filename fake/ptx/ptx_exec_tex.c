/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor's texture and surface instructions (tex, suld, sust),
 * read and written through fake_texture_sample() and the surface's array:
 * the TEX rows of ptx_ops.def.
 */

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sample.h"
#include "ptx_exec.h"

_Static_assert((int)SU_ZERO == (int)GPU_FAKE_BOUNDARY_ZERO && (int)SU_CLAMP == (int)GPU_FAKE_BOUNDARY_CLAMP &&
                   (int)SU_TRAP == (int)GPU_FAKE_BOUNDARY_TRAP,
               "suld/sust's boundary modes are gpu_fake_boundary's");

/* ---- Textures and surfaces ---- */

/*
 * tex for lane l: the coordinates (a layered geometry's layer first, an
 * integer; a cube's a direction), the level of detail (tex.level's, or what
 * tex.grad's gradients make), read through fake_texture_sample() as host
 * kernels read, or fake_texture_sample_cube(); four channels into the
 * destination, an integer texture's as its integers, a float texture's as
 * floats. False after a fault.
 */
static bool run_tex(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in)
{
    static const unsigned char dims[] = {0, 1, 2, 3, 1, 2, 3, 3}; /* a geometry's coordinates but its layer */
    const struct ptx_opd *c = &in->o[2];
    bool layered = in->geom == G_A1D || in->geom == G_A2D || in->geom == G_ACUBE;
    bool cube = in->geom == G_CUBE || in->geom == G_ACUBE;
    unsigned n = dims[in->geom];
    float coords[4] = {0, 0, 0, 0}, lod = 0.0f;
    uint64_t handle = w->regs[(size_t)in->o[1].reg * PTX_WARP + l];
    gpu_fake_texel t;
    char why[200];
    int32_t layer = 0;
    bool ok;

    for (unsigned i = 0; i < n; i++) {
        uint64_t v = ptx_vec_elem(b, w, c, i + layered, l);

        coords[i] = in->type2 == T_F32 ? f32_of(v) : (float)(int32_t)v;
    }
    if (layered) {
        layer = (int32_t)ptx_vec_elem(b, w, c, 0, l);
        coords[n] = (float)layer;
    }
    if (in->cmp == TX_LEVEL) {
        lod = f32_of(val(b, w, &in->o[3], l));
    } else if (in->cmp == TX_GRAD) {
        float dx[3] = {0, 0, 0}, dy[3] = {0, 0, 0};

        for (unsigned i = 0; i < n; i++) {
            dx[i] = f32_of(ptx_vec_elem(b, w, &in->o[3], i, l));
            dy[i] = f32_of(ptx_vec_elem(b, w, &in->o[4], i, l));
        }
        lod = cube ? fake_texture_cube_gradient_lod(handle, coords, dx, dy)
                   : fake_texture_gradient_lod(handle, n, dx, dy);
    }
    ok = cube ? fake_texture_sample_cube(b->mem.ctx, handle, coords, layer, lod, &t, why, sizeof(why))
              : fake_texture_sample(b->mem.ctx, handle, coords, lod, &t, why, sizeof(why));
    if (!ok) {
        ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "tex: %s", why);
        return false;
    }
    for (unsigned i = 0; i < 4; i++)
        put_reg(w, in->o[0].v[i], l, t.integer ? (uint64_t)(uint32_t)t.i[i] : bits_f32(t.f[i]));
    return true;
}

/*
 * suld.b / sust.b for lane l: x in bytes, then y, then z or the layer (a
 * layered geometry gives its layer first), through fake_surface_access() in
 * the instruction's boundary mode. False after a fault.
 */
static bool run_surface(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in)
{
    bool load = in->op == X_SULD;
    const struct ptx_opd *c = &in->o[load ? 2 : 1], *v = &in->o[load ? 0 : 2];
    bool layered = in->geom == G_A1D || in->geom == G_A2D;
    unsigned n = in->geom == G_A1D ? 1 : in->geom == G_A2D ? 2 : in->geom == G_3D ? 3 : in->geom;
    unsigned es = ptx_types[in->type].size;
    long long at[3] = {0, 0, 0};
    uint64_t handle = w->regs[(size_t)in->o[load ? 1 : 0].reg * PTX_WARP + l];
    unsigned char bytes[32];
    char why[200];

    for (unsigned i = 0; i < n; i++)
        at[i] = (int32_t)ptx_vec_elem(b, w, c, i + layered, l);
    if (layered)
        at[2] = (int32_t)ptx_vec_elem(b, w, c, 0, l);
    for (unsigned i = 0; i < in->vec && !load; i++) {
        uint64_t e = ptx_vec_elem(b, w, v, i, l);

        memcpy(bytes + i * es, &e, es);
    }
    if (!fake_surface_access(b->mem.ctx, handle, at, bytes, (size_t)es * in->vec, in->cmp, !load, why, sizeof(why))) {
        ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "%s: %s", load ? "suld" : "sust", why);
        return false;
    }
    for (unsigned i = 0; i < in->vec && load; i++) {
        uint64_t e = 0;

        memcpy(&e, bytes + i * es, es);
        put_reg(w, v->v[i], l, e);
    }
    return true;
}

/* tex */
enum flow ptx_exec_tex(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) {
        if (!run_tex(b, w, l, in))
            return STOPPED;
    }
    return GO;
}

/* suld, sust */
enum flow ptx_exec_surface(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) {
        if (!run_surface(b, w, l, in))
            return STOPPED;
    }
    return GO;
}
