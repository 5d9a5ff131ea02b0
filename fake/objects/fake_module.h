/* SPDX-License-Identifier: MIT */
/*
 * Modules, functions and globals (fake_module.c).
 */
#ifndef FAKE_MODULE_H
#define FAKE_MODULE_H

#include "fake_core.h"

struct fake_alloc;
struct fake_layout;

enum { FAKE_NUM_REGS = 32 }; /* registers a thread of every function uses */

/* What a function's attributes hold: the settable ones, then what its code fixes. */
struct fake_func_attrs {
    int max_dynamic_shared;
    int carveout;
    unsigned cache_config;
    int regs;              /* a thread's registers */
    size_t static_shared;  /* bytes of static shared memory a block uses */
    size_t local;          /* bytes of local memory a thread uses */
    unsigned max_threads;  /* of a block: .maxntid's or .reqntid's, else 1024 */
};

struct fake_layout;

/* The legacy launch API's state of a function (fake_launch_legacy.c). */
enum { FAKE_LEGACY_PARAM_MAX = 32764 }; /* the bytes a kernel's parameters may take */
struct fake_legacy_launch {
    unsigned block[3];      /* cuFuncSetBlockShape's; 0s: none set */
    unsigned shared;        /* cuFuncSetSharedSize's */
    size_t size;            /* cuParamSetSize's */
    unsigned char *params;  /* what cuParamSet* wrote, zeros elsewhere */
    size_t capacity;
};

struct fake_function {
    struct fake_module *module;
    const struct fake_kernel *kernel; /* a built-in kernel, or NULL */
    struct fake_layout *layout;       /* else an entry of the PTX, run by its host implementation */
    struct fake_func_attrs attrs;
    struct fake_legacy_launch *legacy; /* made by the first legacy launch call, or NULL */
};

struct fake_library;

struct fake_module {
    struct fake_module *next_live;
    struct fake_ctx *ctx;
    size_t count, capacity;
    struct fake_function *functions; /* handed out only once the load succeeded: they do not move after */
    struct fake_library *library;    /* the library it was loaded for in its context, or NULL: the client's */
    bool probe;        /* read to check and list an image, never run: not live, its globals have no memory */
    int ptx_version;   /* .target sm_75: 75; .version 8.5: 85 where there is no target */
    size_t const_bytes; /* of its .const variables */
    struct fake_global **global_map; /* its globals by name (fake_module.c), open addressing */
    size_t global_map_cap, nglobals;
};

/* Unloads every module of the context; returns how many were the client's own. */
unsigned long fake_modules_reset(struct fake_ctx *ctx);

/*
 * Loads PTX text (NUL-terminated; an image's, from fake_image_ptx()) into a
 * new module of `ctx`: a live one (the client's, or `lib`'s), or with `probe`
 * one that is only read. The text is read as PTX only, never as another
 * image. The reason for a failure in `log`.
 */
cuabi_result fake_module_new(const char *ptx, struct fake_ctx *ctx, struct fake_library *lib, bool probe, char *log,
                             size_t log_size, struct fake_module **out);

/* CU_JIT_MAX_REGISTERS's value among checked JIT options, or 0 without it. */
unsigned fake_jit_max_registers(unsigned n, const cuabi_jit_option *options, void **values);
/* Holds every function's register count to `max` (0: no limit), as ptxas's -maxrregcount does. */
void fake_module_max_registers(struct fake_module *m, unsigned max);

/*
 * A module file's bytes for `caller` (an entry point's name, for messages),
 * NUL-terminated into *out (freed by the caller), their count into *size
 * unless NULL: a regular file, not a link, of the user or root, writable by
 * no one else, bounded. FILE_NOT_FOUND; INVALID_VALUE for one refused (said on stderr and
 * to cuGetErrorString, fake_module_note()).
 */
cuabi_result fake_module_file_read(const char *caller, const char *path, char **out, size_t *size);

/* Frees a module fake_module_new() made. */
void fake_module_free(struct fake_module *m);

/* INVALID_VALUE for JIT options the driver refuses: missing arrays, an option it does not know. */
cuabi_result fake_jit_options_check(unsigned n, const cuabi_jit_option *options, void **values);

/*
 * Writes `text` into the JIT log the options name (buffer_opt, size_opt),
 * and the bytes written with the NUL into its size option; false when they name none.
 */
bool fake_jit_log(unsigned n, const cuabi_jit_option *options, void **values, unsigned buffer_opt, unsigned size_opt,
                  const char *text);

/* Sets what fake_module_note() tells for `result`: a load's reason, for a caller that gave no error log. */
void fake_module_note_set(cuabi_result result, const char *text);

/* A live module, or NULL. */
struct fake_module *fake_module_find(cuabi_module handle);

/* Why the calling thread's last module load failed with `result` (its JIT error log), or NULL: cuGetErrorString's. */
const char *fake_module_note(cuabi_result result);

/* A live function, or NULL; a CUkernel (fake_library.c) is its function in the current context. */
struct fake_function *fake_function_find(cuabi_function handle);

/* Sets what a CUkernel is in the current context, for fake_function_find(): fake_library.c's, at its first load. */
void fake_function_kernels(struct fake_function *(*fn)(cuabi_kernel kernel));

/* A function's name: its built-in kernel's, or its entry's. */
const char *fake_function_name(const struct fake_function *f);

/* Attribute `attrib` (a CUfunction_attribute) of the function on `device`; INVALID_VALUE for one there is not. */
cuabi_result fake_function_attribute(const struct fake_function *f, int device, unsigned attrib, int *value);

/* Global NAME of the module: its address and size (either NULL: not wanted); NOT_FOUND, INVALID_VALUE. */
cuabi_result fake_module_global(const struct fake_module *m, const char *name, cuabi_deviceptr *ptr, size_t *bytes);

/* A live function's attributes and its module's context, or NULL. */
struct fake_func_attrs *fake_function_attrs(cuabi_function f, struct fake_ctx **ctx);

/* The defaults a function is loaded with: a built-in kernel's (FAKE_NUM_REGS registers, no static memory). */
void fake_func_attrs_init(struct fake_func_attrs *a);

/*
 * A global "NAME BYTES" of the module (a `.fake_global` line's text after the
 * directive, or a PTX variable), zeroed; its memory in *out unless NULL. A log line on failure.
 */
cuabi_result fake_global_declare(struct fake_module *m, const char *text, size_t len, char *log, size_t log_size,
                                 struct fake_alloc **out);

/* Frees the module's globals (at unload, or when its load failed). */
void fake_globals_drop(struct fake_module *m);

#endif
