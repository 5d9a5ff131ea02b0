/* SPDX-License-Identifier: MIT */
/** @file
 * Programs: CUDA C++ compiled at run time by NVRTC, with an on-disk cache.
 *
 * NVRTC (libnvrtc) is loaded the way the driver is: at the first call that
 * needs it, once per process, from any thread, never unloaded. Compiling
 * needs neither a driver nor a GPU; only a target of "the context's device"
 * and loading the result as a module do.
 *
 * Which file: GPUSHIM_LIBNVRTC, when set, names the one file to load (an
 * absolute path; anything else is refused). Otherwise an NVRTC already
 * loaded in the process (libnvrtc.so.13, libnvrtc.so.12); those two names
 * through the system loader; the lib64 and targets/x86_64-linux/lib folders
 * under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda; then each folder of
 * GPUSHIM_LIBRARY_PATH (colon-separated absolute folders, e.g. a pip wheel's
 * site-packages/nvidia/cu13/lib). Never the bare libnvrtc.so. When NVRTC
 * comes from a folder, its libnvrtc-builtins is loaded from that folder
 * first, since NVRTC itself looks for it by name only.
 *
 * The cache: compiled output is kept under GPUSHIM_CACHE_DIR, else
 * $XDG_CACHE_HOME/gpushim, else ~/.cache/gpushim (made 0700);
 * GPUSHIM_CACHE=0 (or off, false, no) turns it off; GPUSHIM_CACHE_MAX_BYTES
 * caps its size (default 256 MiB; the least recently used entries go first).
 * An entry is keyed by the source, the headers, the options, the name
 * expressions, the NVRTC version and the target. A cache that cannot be read
 * or written costs a warning (gpu_program_get_cache_warning()), never a failure.
 *
 * Never stale: NVRTC does not report which files a compile read, so a
 * program whose compile may read one from disk is not cached at all; it is
 * compiled every time, its state GPU_CACHE_OFF and its warning saying what
 * reads the disk ("cache skipped: ..."). That is an option naming a file or
 * folder to read (-I, --include-path, -include, --pre-include, the
 * precompiled-header options), or in the source or an in-memory header an
 * \#include, \#include_next, \#import or \#embed of a name that is no in-memory
 * header (NVRTC looks for it beside the program's name, at an absolute path
 * or in the include paths), one computed by a macro, or __has_include of such
 * a name. In-memory headers are in the key, so programs that use only those
 * are cached.
 *
 * What the cache trusts: an entry is code that gets loaded, so only what the
 * user alone could have written is used. The folder must belong to the user
 * (or root) and be writable by no one else unless it is sticky; any other is
 * not used at all (the compile runs uncached, the warning names the folder).
 * It is checked at every compile, and entries are reached only through it. An
 * entry is opened without following a symbolic link and without blocking (a
 * FIFO), and used only if it is a regular file with one link, owned by the
 * user and writable by no one else, of at most 1 GiB; its header's sizes are
 * checked against the file's before anything is allocated. Each entry carries
 * its key and a checksum of its payload: the checksum catches corruption and
 * truncation, not a hostile writer, since anyone can compute it; the checks
 * above are that defence. An entry that fails any check is compiled again and
 * replaced. New entries are written 0600 to a temporary file of an
 * unguessable name, then renamed. Eviction removes only files that are the
 * cache's own by name, owner and header. A failed write (EFBIG past
 * `ulimit -f`, ENOSPC, EDQUOT) is a warning and leaves no temporary file;
 * SIGXFSZ is held off meanwhile, so it never kills the process.
 */
#ifndef GPUSHIM_PROGRAM_H
#define GPUSHIM_PROGRAM_H

#include "driver.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A CUDA C++ source, its headers and name expressions, and once compiled its output (opaque). */
typedef struct gpu_program gpu_program;

/** An in-memory header: `#include "name"` in the source finds `source`. */
typedef struct gpu_program_header {
    const char *name;   /**< the name the source includes it by; not NULL, not empty */
    const char *source; /**< its text, NUL-terminated; not NULL */
} gpu_program_header;

/** What a compile produces. */
typedef enum gpu_compile_target {
    GPU_COMPILE_CUBIN = 0, /**< machine code for one architecture (sm_XY), loadable on it alone */
    GPU_COMPILE_PTX,       /**< PTX for a virtual architecture (compute_XY), JIT-compiled at load */
} gpu_compile_target;

/**
 * How to compile. Zero-initialised, it means: a cubin for the device of the
 * context passed to gpu_program_compile(), no extra options, the cache on.
 */
typedef struct gpu_compile_options {
    gpu_compile_target target; /**< a cubin (the default) or PTX */
    /** The architecture as 10 * major + minor (90 for sm_90 / compute_90);
     * 0: the compute capability of the context's device (needs the driver). */
    int arch;
    /** NVRTC options ("-std=c++17", "-DN=4", ...), except the architecture,
     * which is `arch`'s: an option naming one is GPU_ERR_INVALID_ARG. */
    const char *const *options;
    size_t option_count; /**< the length of `options` (at most 4096); `options` may be NULL when it is 0 */
    bool no_cache; /**< compile even if the cache holds the output, and do not store it */
} gpu_compile_options;

/** Where a compile's output came from. */
typedef enum gpu_cache_state {
    GPU_CACHE_OFF = 0,  /**< not compiled yet, or the cache was off, unusable or skipped (the program reads from disk) */
    GPU_CACHE_MISS,     /**< compiled by NVRTC; stored in the cache (unless a warning says why not) */
    GPU_CACHE_HIT,      /**< read from the cache; NVRTC did not compile */
    GPU_CACHE_REPLACED, /**< the entry was corrupt, truncated or foreign: compiled again, replaced */
} gpu_cache_state;

/**
 * A program from CUDA C++ `source` (NUL-terminated), called `name` in NVRTC's
 * messages (NULL: "gpushim.cu"), with `header_count` in-memory headers
 * (`headers` may be NULL when the count is 0). Everything is copied: the
 * caller's strings may go once this returns. Needs no NVRTC yet.
 * A program is used by one thread at a time; different programs compile
 * concurrently. GPU_ERR_INVALID_ARG, GPU_ERR_OUT_OF_MEMORY.
 * @param source the CUDA C++ source, NUL-terminated; not NULL
 * @param name the program's name in NVRTC's messages; NULL or "": "gpushim.cu"
 * @param headers `header_count` headers, each with a name and a source; may be NULL when the count is 0
 * @param header_count how many headers, at most 65536
 * @param[out] out the new program, the caller's to free with gpu_program_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_program_create(const char *source, const char *name,
                                                    const gpu_program_header *headers, size_t header_count,
                                                    gpu_program **out);

/**
 * Frees the program, its output and its names. NULL does nothing.
 * Modules loaded from it stay loaded.
 * @param program the program, or NULL
 */
GPU_API void gpu_program_destroy(gpu_program *program);

/**
 * Asks for the lowered (mangled) name of a __global__ function or template
 * instance, e.g. "scale<float>", to be known after the compile
 * (nvrtcAddNameExpression). Only before gpu_program_compile().
 * GPU_ERR_INVALID_ARG (NULL, empty, or already compiled), GPU_ERR_OUT_OF_MEMORY.
 * @param program the program, not compiled yet
 * @param expression the C++ name of the function or instance, e.g. "scale<float>"; copied
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_program_add_name_expression(gpu_program *program, const char *expression);

/**
 * Compiles the program, or finds its output in the cache. `ctx` is used only
 * when options->arch is 0, for its device's compute capability (NULL: device
 * 0); `options` NULL means all defaults. A program compiles once: a second
 * call is GPU_ERR_INVALID_ARG.
 * GPU_ERR_COMPILE: NVRTC rejected the source; gpu_last_error_get_message() holds its log
 * (cut to fit), gpu_program_get_log() all of it.
 * GPU_ERR_NO_COMPILER: no usable NVRTC (gpu_last_error_get_message() lists each path
 * tried and why it failed). GPU_ERR_NOT_SUPPORTED: a cubin target with an
 * NVRTC older than 11.1. GPU_ERR_INVALID_ARG, GPU_ERR_OUT_OF_MEMORY, and with
 * arch 0 the driver's GPU_ERR_NO_DRIVER, GPU_ERR_NO_DEVICE, GPU_ERR_CONTEXT.
 * A failure before NVRTC is asked (a bad option, no NVRTC, no cubin support,
 * no device for arch 0) leaves the program as it was, so it may be compiled
 * again; any later outcome, GPU_ERR_COMPILE too, is its one compile.
 * @param program the program
 * @param ctx the context whose device gives the architecture when options->arch
 *            is 0; NULL: device 0's primary context; unused otherwise
 * @param options how to compile; NULL: all defaults (a cubin for ctx's device, the cache on)
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_program_compile(gpu_program *program, gpu_context *ctx,
                                                     const gpu_compile_options *options);

/**
 * The compiled output (PTX text, NUL included, or a cubin image) and its size
 * in bytes, into *data and *size. It belongs to the program.
 * GPU_ERR_INVALID_ARG when an argument is NULL or the program has not
 * compiled successfully.
 * @param program the program
 * @param[out] data the output, valid while the program lives; set only on success
 * @param[out] size its size in bytes; set only on success
 * @return GPU_OK or GPU_ERR_INVALID_ARG
 */
GPU_API gpu_status gpu_program_get_output(const gpu_program *program, const void **data, size_t *size);

/**
 * NVRTC's log of the compile (warnings; errors after GPU_ERR_COMPILE), NUL
 * terminated, and its length without the NUL; "" with 0 before a compile.
 * Kept in the cache with the output, so a hit has the compile's warnings.
 * The string belongs to the program. GPU_ERR_INVALID_ARG when program or log
 * is NULL (size may be NULL).
 * @param program the program
 * @param[out] log the log, valid while the program lives; set only on success
 * @param[out] size the log's length in bytes without the NUL, or NULL to skip it
 * @return GPU_OK or GPU_ERR_INVALID_ARG
 */
GPU_API gpu_status gpu_program_get_log(const gpu_program *program, const char **log, size_t *size);

/**
 * The lowered name of `expression`, given to gpu_program_add_name_expression()
 * before the compile, e.g. "_Z5scaleIfEvPT_S0_j" for "scale<float>": the name
 * to look up in the module. It belongs to the program.
 * GPU_ERR_INVALID_ARG (NULL, not compiled), GPU_ERR_FUNCTION_NOT_FOUND (the
 * expression was not added).
 * @param program the compiled program
 * @param expression the expression, as it was added
 * @param[out] out the lowered name, valid while the program lives; set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_program_get_lowered_name(const gpu_program *program, const char *expression,
                                            const char **out);

/**
 * Where the last compile's output came from.
 * @param program the program, or NULL
 * @return the cache state; GPU_CACHE_OFF for NULL and before a compile
 */
GPU_API gpu_cache_state gpu_program_get_cache_state(const gpu_program *program);

/**
 * The cache entry's file of the last compile, whether it was read, written or
 * neither (a warning says why).
 * @param program the program, or NULL
 * @return the path, valid while the program lives; NULL when the cache was
 *         off or unusable, before a compile, and for NULL
 */
GPU_API const char *gpu_program_get_cache_path(const gpu_program *program);

/**
 * Why the cache could not be used or written for the last compile (e.g. an
 * unwritable folder), or NULL when nothing went wrong. The compile itself
 * succeeded regardless.
 * @param program the program, or NULL
 * @return the warning, valid while the program lives; NULL when there is none and for NULL
 */
GPU_API const char *gpu_program_get_cache_warning(const gpu_program *program);

/**
 * Loads the compiled output into `ctx` (NULL: device 0) as a module, through
 * gpu_module_load_data(). The module does not depend on the program.
 * GPU_ERR_INVALID_ARG (not compiled) and gpu_module_load_data()'s codes.
 * @param program the compiled program
 * @param ctx the context to load into; NULL: device 0's primary context
 * @param[out] out the new module, the caller's to free with gpu_module_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_program_load_module(const gpu_program *program, gpu_context *ctx,
                                                         gpu_module **out);

/**
 * One call: compiles `source` (no headers, no name expressions) for the
 * device of `ctx` (NULL: device 0) with `options` (NULL: defaults) and loads
 * it as a module. The kernels must be extern "C" to be found by name.
 * The codes of gpu_program_compile() and gpu_program_load_module().
 * @param ctx the context to compile for and load into; NULL: device 0's primary context
 * @param source the CUDA C++ source, NUL-terminated; not NULL
 * @param options how to compile; NULL: all defaults
 * @param[out] out the new module, the caller's to free with gpu_module_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_module_load_source(gpu_context *ctx, const char *source,
                                                        const gpu_compile_options *options, gpu_module **out);

/* ---- Loading NVRTC, and what the load found. ---- */

/**
 * Loads NVRTC if that has not happened yet (idempotent, thread-safe; a
 * failed load is not retried). GPU_OK, or GPU_ERR_NO_COMPILER with each path
 * tried and its error in gpu_last_error_get_message(). Needs no driver.
 * @return GPU_OK or GPU_ERR_NO_COMPILER
 */
GPU_API gpu_status gpu_compiler_load(void);

/**
 * NVRTC's version, e.g. 13 and 0, into *major and *minor; loads NVRTC if
 * that has not happened yet (as gpu_compiler_load()).
 * @param[out] major the major version; set only on success
 * @param[out] minor the minor version; set only on success
 * @return GPU_OK, GPU_ERR_INVALID_ARG (either NULL) or GPU_ERR_NO_COMPILER
 */
GPU_API gpu_status gpu_compiler_get_version(int *major, int *minor);

/** What the NVRTC load did, from gpu_compiler_get_report(); the fields as gpu_load_report's. */
typedef struct gpu_compiler_report {
    gpu_load_stage stage;             /**< NOT_STARTED, OPEN, RESOLVE (not an NVRTC), INIT (nvrtcVersion failed), READY */
    const char *message;              /**< the whole reason when stage != READY; "" when ready */
    const char *file;                 /**< the file loaded (dladdr), or NULL */
    int version_major;                /**< NVRTC's major version; 0 if not known */
    int version_minor;                /**< its minor version; 0 if not known */
    const char *builtins;             /**< the libnvrtc-builtins gpushim loaded beside it, or NULL */
    const char *builtins_note;        /**< why none was loaded, or NULL */
    size_t arch_count;                /**< the length of archs; 0 when NVRTC does not say */
    const int *archs;                 /**< what nvrtcGetSupportedArchs lists, as 10 * major + minor, e.g. 75 ... 121 */
    size_t attempt_count;             /**< the length of attempts */
    const gpu_load_attempt *attempts; /**< each file tried, in order */
    size_t entry_count;               /**< 0 until a library opened */
    const gpu_entry_point *entries;   /**< each NVRTC entry point, entry_count of them; via is "dlsym"; exported equals found */
    size_t missing_required;          /**< entries required and not found */
    size_t missing_optional;          /**< entries optional and not found */
    uint64_t open_ns;                 /**< finding and opening the library, ns */
    uint64_t resolve_ns;              /**< resolving the entry points, ns */
} gpu_compiler_report;

/**
 * What the NVRTC load did, without causing one (GPU_LOAD_NOT_STARTED before).
 * Static, unchanged once the load is over; any thread may read it.
 * @return the report; never NULL
 */
GPU_API const gpu_compiler_report *gpu_compiler_get_report(void);

#ifdef __cplusplus
}
#endif

#endif
