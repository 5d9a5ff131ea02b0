/* SPDX-License-Identifier: MIT */
/*
 * Texture and surface objects (fake_texture.c).
 */
#ifndef FAKE_TEXTURE_H
#define FAKE_TEXTURE_H

#include "fake_core.h"

struct fake_texture {
    struct fake_texture *next_live;
    const struct fake_ctx *ctx;
    uint64_t handle;               /* its CUtexObject or CUsurfObject: a number never handed out again */
    bool surface;
    cuabi_resource_desc res;
    cuabi_texture_desc desc;       /* a texture's */
    cuabi_resource_view_desc view; /* a texture's, zero when it was created without one */
};

/* The live texture (surface false) or surface object a handle is, or NULL. */
const struct fake_texture *fake_texture_find(uint64_t handle, bool surface);

/* Destroys the context's texture and surface objects; returns how many. */
unsigned long fake_textures_reset(struct fake_ctx *ctx);

/* The newest live texture or surface object's handle, or NULL. */
void *fake_texture_newest(int kind);

#endif
