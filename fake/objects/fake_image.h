/* SPDX-License-Identifier: MIT */
/*
 * The module loader's reader of PTX and fatbins (fake_image.c).
 */
#ifndef FAKE_IMAGE_H
#define FAKE_IMAGE_H

#include <stdint.h>

#include "fake_core.h"

struct fake_alloc;
struct ptx_module;

enum { FAKE_PARAM_BYTES_MAX = 4096 }; /* a launch's parameters, as CUDA allows */

/* An entry's parameters as its PTX declares them. */
struct fake_layout {
    char *name;
    unsigned count;
    size_t bytes;   /* the parameter buffer: the last one's end */
    size_t *size;   /* [count] */
    size_t *align;  /* [count] */
    size_t *offset; /* [count] each one's place in the buffer */
    unsigned max_threads;   /* of a block, from .maxntid or .reqntid; 0: not bounded */
    struct ptx_module *ptx; /* the module's decoded PTX (ptx/ptx.h), a reference; NULL for .fake_entry */
};

void fake_layout_free(struct fake_layout *l);

/*
 * What the reader does with what it reads: the module's own functions
 * (fake_module.c), passed in so that the reader names none of them.
 */
struct fake_image_sink {
    /* Adds built-in kernel NAME (a `.fake_kernel` line); a log line on failure. */
    cuabi_result (*add_builtin)(struct fake_module *m, const char *name, size_t len, unsigned line, char *log,
                                size_t log_size);
    /* Adds an entry the PTX declares, taking `layout` (freed on failure too); a log line on failure. */
    cuabi_result (*add_entry)(struct fake_module *m, struct fake_layout *layout, unsigned line, char *log,
                              size_t log_size);
    /* Declares a global "NAME BYTES" (a `.fake_global` line, or a PTX variable); its memory in *out unless NULL. */
    cuabi_result (*declare_global)(struct fake_module *m, const char *text, size_t len, char *log, size_t log_size,
                                   struct fake_alloc **out);
    /* Holds every function's register count to `max` (.fake_max_registers; 0: no limit). */
    void (*max_registers)(struct fake_module *m, unsigned max);
};

/*
 * Reads PTX text (with the fake's own lines), NUL-terminated, into m's
 * functions and globals through `sink`; on failure writes the reason to
 * `log`. The text is only ever PTX: a binary image becomes PTX through
 * fake_image_ptx() first.
 */
cuabi_result fake_image_load(const char *ptx, struct fake_module *m, const struct fake_image_sink *sink, char *log,
                             size_t log_size);

/* The size of an image in the caller's memory that the API gives none for: its own headers, or its NUL, bound it. */
#define FAKE_IMAGE_UNSIZED SIZE_MAX

/* Where an image's bytes come from, which says whether a pointer in them may be followed. */
enum fake_image_source {
    /* Bytes alone (a file, a link input): a fatbin wrapper, which holds a pointer, is refused. */
    FAKE_IMAGE_BYTES,
    /* The caller's memory, as cuModuleLoadData and cuLibraryLoadData take it: nvcc's wrapper's pointer is followed. */
    FAKE_IMAGE_CALLER,
};

/*
 * The PTX an image of `size` bytes (FAKE_IMAGE_UNSIZED: as its headers say)
 * carries: PTX itself, a fatbin's PTX (compressed or not), or with
 * FAKE_IMAGE_CALLER that of the fatbin nvcc's wrapper points at;
 * NUL-terminated into *out (the caller frees it). Else NOT_SUPPORTED,
 * NO_BINARY_FOR_GPU or INVALID_IMAGE with the reason and its fix in `log`.
 * Nothing is read past `size`, or past what a fatbin's header declares.
 */
cuabi_result fake_image_ptx(const void *image, size_t size, enum fake_image_source from, char **out, char *log,
                            size_t log_size);

#endif
