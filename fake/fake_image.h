/* SPDX-License-Identifier: MIT */
/*
 * The module loader's reader of PTX and fatbins (fake_image.c).
 */
#ifndef FAKE_IMAGE_H
#define FAKE_IMAGE_H

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
 * Reads a module image (PTX text, the fake's own lines, a fatbin carrying
 * PTX; cuModuleLoadDataEx's `image`) into m's functions and globals through
 * `sink`; on failure writes the reason to `log`.
 */
cuabi_result fake_image_load(const void *image, struct fake_module *m, const struct fake_image_sink *sink, char *log,
                             size_t log_size);

/*
 * The PTX an input of `size` bytes carries (PTX itself, or a fatbin's
 * uncompressed PTX), NUL-terminated into *out (the caller frees it); else
 * NOT_SUPPORTED or INVALID_IMAGE with the reason and its fix in `log`.
 */
cuabi_result fake_image_ptx(const void *image, size_t size, char **out, char *log, size_t log_size);

#endif
