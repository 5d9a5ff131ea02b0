/* SPDX-License-Identifier: MIT */
/*
 * The fake's PTX interpreter, as the rest of the fake sees it: a module's
 * PTX decoded once when it loads (ptx_parse.c), and a launch of one of its
 * entries run over a pool of host threads (ptx_launch.c).
 */
#ifndef FAKE_PTX_H
#define FAKE_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_abi.h"

struct fake_ctx;
struct ptx_module;

/*
 * Decodes every function of a module's PTX text. A function the decoder
 * cannot read is kept with the reason, which a launch of it reports; NULL
 * only when out of memory. The result holds one reference.
 */
struct ptx_module *ptx_module_decode(const char *text);
/*
 * Why the module as a whole cannot load ("PTX line N: ..."), or NULL: text
 * that ends inside a function, a call to an entry, a size over its cap. A
 * module with a reason is refused; one without has every function either
 * fully decoded or kept with the reason it cannot run.
 */
const char *ptx_module_error(const struct ptx_module *m);
/* Reads the interpreter's variables (GPUSHIM_FAKE_THREADS, GPUSHIM_FAKE_WATCHDOG) at the fake's configuration, so
 * that a malformed one fails cuInit; a launch reads them again. */
void ptx_env_configure(void);

void ptx_module_retain(struct ptx_module *m);  /* NULL does nothing */
void ptx_module_release(struct ptx_module *m); /* NULL does nothing */

/* The longest name of a global the module reader takes: far above any compiler's mangled names. */
#define PTX_NAME_MAX 65536u

/* The hash of a name of LEN bytes, for the fake's tables of names (FNV-1a). */
size_t ptx_name_hash(const char *s, size_t len);

/* Gives global (or .const) variable NAME of the module its device address, once the fake declared it. */
void ptx_module_bind_global(struct ptx_module *m, const char *name, size_t len, uint64_t addr);

/*
 * Whether entry NAME of the module can run: success, else NOT_SUPPORTED (or
 * NOT_FOUND without one) with a message naming the instruction, the kernel
 * and the PTX line in `why`.
 */
cuabi_result ptx_entry_check(const struct ptx_module *m, const char *name, char *why, size_t why_size);

/* A launch of an entry: its shape and its parameter buffer (laid out as the entry declares). */
struct ptx_launch {
    const struct ptx_module *module;
    const char *entry;
    const struct fake_ctx *ctx;
    int device;
    unsigned grid[3], block[3], shared;
    const unsigned char *params;
    size_t param_bytes;
    unsigned cluster[3]; /* the launch's cluster shape; all 0: the entry's own (.reqnctapercluster), else 1x1x1 */
    bool cooperative;    /* every block runs at once, with a grid workspace for grid-wide barriers */
};

/*
 * The cluster shape entry NAME declares (.reqnctapercluster) in `dims`:
 * true, or false (dims all 1) when it declares none.
 */
bool ptx_entry_cluster(const struct ptx_module *m, const char *name, unsigned dims[3]);

/*
 * Runs a launch to its end with the fake's lock held (device memory does not
 * change meanwhile). Success, or the fault the stream gets:
 * ILLEGAL_ADDRESS for an access outside live memory (printed with the
 * kernel, block, thread, PTX line and address), LAUNCH_TIMEOUT when the
 * watchdog finds no progress (a wait that cannot end), and the like.
 */
cuabi_result ptx_launch_run(const struct ptx_launch *l);

/* One function of a module, for the JIT linker. */
struct ptx_function_info {
    const char *name; /* NULL for a declaration a later definition replaced */
    bool entry;
    bool defined;     /* its body is in the module */
    bool provided;    /* not defined, and one the driver gives every program (vprintf, malloc, ...) */
};

/* Function `i` of the module into *out; false past the last. */
bool ptx_module_function(const struct ptx_module *m, size_t i, struct ptx_function_info *out);

/*
 * An entry as the decoder read its header: the one front end the module
 * loader (fake_image.c) takes entries from.
 */
struct ptx_entry_info {
    const char *name;
    unsigned line;         /* of its name */
    unsigned nparams;
    size_t param_bytes;    /* the parameter buffer: the last one's end */
    unsigned max_threads;  /* of a block, from .maxntid or .reqntid; 0: not bounded */
    const char *error;     /* why its header could not be read (no parameters then), or NULL */
    size_t index;          /* the decoder's */
};

/* Parameter K of entry `e` (K below its nparams): its offset in the buffer, its size and alignment. */
void ptx_entry_param(const struct ptx_module *m, const struct ptx_entry_info *e, unsigned k, size_t *offset,
                     size_t *size, size_t *align);

/*
 * The architecture the module's PTX is for, as CU_FUNC_ATTRIBUTE_PTX_VERSION
 * tells it: `.target sm_75`'s 75, else `.version 8.5`'s 85; 0 with neither.
 */
int ptx_module_arch(const struct ptx_module *m);

/* A module-scope .global or .const variable as the decoder read it, for the module loader to allocate. */
struct ptx_global_info {
    const char *name;
    unsigned line;               /* of its statement */
    size_t size, align;          /* bytes (at most 1 MiB; 0 for an open array without an initialiser) */
    bool constant;               /* .const */
    bool defined;                /* not .extern */
    const unsigned char *init;   /* its first `init_len` bytes as the initialiser gives them, or NULL: zeros */
    size_t init_len;
};

/* The first .global or .const variable at or after *i (in text order) into *out, *i its index; false for none. */
bool ptx_module_global(const struct ptx_module *m, size_t *i, struct ptx_global_info *out);

/*
 * The next defined entry, or one kept with its reason, at or after function
 * *i (in text order) into *out, *i its index; false for none. An entry
 * defined twice comes twice.
 */
bool ptx_module_entry_next(const struct ptx_module *m, size_t *i, struct ptx_entry_info *out);

/* A line of the fake's own (`.fake_kernel`, `.fake_global`, ...), which the decoder passes over. */
struct ptx_fake_line {
    char *text; /* from the directive to the end of the line */
    unsigned line;
};

/* The module's I-th `.fake_*` line, in text order; NULL past the last. */
const struct ptx_fake_line *ptx_module_fake_line(const struct ptx_module *m, size_t i);

/* What an entry and the functions it calls use, as cuFuncGetAttribute tells it. */
struct ptx_entry_usage {
    size_t shared_static; /* bytes of the static shared variables it reaches */
    size_t local;         /* bytes of a thread's local memory: its own, and its callees' frames */
    size_t regs;          /* registers its PTX declares, its callees' included */
};

/* What entry NAME uses; NOT_FOUND when the module defines no such entry, or OUT_OF_MEMORY. */
cuabi_result ptx_entry_usage(const struct ptx_module *m, const char *name, struct ptx_entry_usage *out);

#endif
