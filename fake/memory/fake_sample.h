/* SPDX-License-Identifier: MIT */
/*
 * Texture reads and surface accesses for kernel code (fake_sample.c).
 */
#ifndef FAKE_SAMPLE_H
#define FAKE_SAMPLE_H

#include "fake_core.h"

/*
 * A texel of texture object `tex` as kernel code of `ctx` reads it
 * (gpu_fake_texture_read()); false on a fault, why in `why`.
 */
bool fake_texture_sample(const struct fake_ctx *ctx, uint64_t tex, const float coords[3], float lod,
                         gpu_fake_texel *out, char *why, size_t why_size);

/*
 * `size` bytes of surface object `surf` at byte x, row y, slice z, read into
 * or written from `bytes` (gpu_fake_surface_read() and _write()); false on a
 * fault, why in `why`.
 */
bool fake_surface_access(const struct fake_ctx *ctx, uint64_t surf, const long long at[3], void *bytes, size_t size,
                         int boundary, bool write, char *why, size_t why_size);

/*
 * The level of detail tex.grad's gradients (of `n` coordinates) make for
 * texture object `tex`: log2 of the longer gradient in texels of its first
 * level; 0 for a texture without mipmaps (or no live texture).
 */
float fake_texture_gradient_lod(uint64_t tex, unsigned n, const float dx[3], const float dy[3]);

/*
 * A texel of cubemap texture object `tex` in direction `dir` (tex.cube;
 * tex.acube in cubemap `index` of a cubemap array), at level of detail `lod`
 * for a mipmapped one; false on a fault (no cubemap among them), why in `why`.
 */
bool fake_texture_sample_cube(const struct fake_ctx *ctx, uint64_t tex, const float dir[3], int32_t index, float lod,
                              gpu_fake_texel *out, char *why, size_t why_size);

/*
 * The level of detail tex.grad.cube's gradients of direction `dir` make for
 * cubemap texture object `tex`: as fake_texture_gradient_lod(), of the face
 * coordinates the gradients move.
 */
float fake_texture_cube_gradient_lod(uint64_t tex, const float dir[3], const float dx[3], const float dy[3]);

#endif
