/* SPDX-License-Identifier: MIT */
/*
 * CUDA arrays and mipmapped arrays (fake_array.c), in host memory.
 */
#ifndef FAKE_ARRAY_H
#define FAKE_ARRAY_H

#include "fake_core.h"

struct fake_mipmap;

/* An array: its elements row after row, slice (or layer) after slice, packed. */
struct fake_array {
    struct fake_array *next_live;
    struct fake_ctx *ctx;
    uintptr_t handle;                /* its CUarray: a number never handed out again */
    cuabi_array3d_descriptor desc;   /* as created (height and depth 0 for none) */
    size_t elem;                     /* bytes an element */
    size_t pitch, rows, slices;      /* bytes a row; rows and slices, at least 1 */
    size_t bytes;
    unsigned char *data;
    const struct fake_mipmap *mipmap; /* the mipmapped array it is a level of, else NULL */
};

/* The live array a handle is, or NULL. */
struct fake_array *fake_array_find(const void *handle);

/* The array's memory for [offset, offset + bytes), or NULL when it is not live or that is past its end. */
unsigned char *fake_array_bytes(const void *handle, size_t offset, size_t bytes);

/* The live mipmapped array a handle is, or NULL. */
struct fake_mipmap *fake_mipmap_find(const void *handle);

/* Level `level` of a mipmapped array, or NULL past its last. */
struct fake_array *fake_mipmap_level(const struct fake_mipmap *m, unsigned level);

/* Destroys the context's arrays and mipmapped arrays; returns how many. */
unsigned long fake_arrays_reset(struct fake_ctx *ctx);

/* The newest live array (GPU_FAKE_LIVE_ARRAYS) or mipmapped array's handle, or NULL. */
void *fake_array_newest(int kind);

#endif
