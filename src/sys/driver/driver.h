/* SPDX-License-Identifier: MIT */
/*
 * The driver table: what the modules above src/sys/ see of CUDA.
 */
#ifndef GPUSHIM_SYS_DRIVER_H
#define GPUSHIM_SYS_DRIVER_H

#include <stdatomic.h>

#include "cuda_abi.h"
#include "gpushim/status.h"

/* One typed pointer per entry point; NULL for an optional one the driver lacks. */
struct gpu__driver {
#define GPU__ENTRY(need, name, symbol, params, args) cuabi_result (*name) params;
#include "entry_points.h"
#undef GPU__ENTRY
};

/* GPU__OPTIONAL_<name>: 1 for an optional entry point (its pointer may be NULL), 0 for a required one. */
enum {
#define GPU__IS_OPTIONAL_REQUIRED 0
#define GPU__IS_OPTIONAL_OPTIONAL 1
#define GPU__ENTRY(need, name, symbol, params, args) GPU__OPTIONAL_##name = GPU__IS_OPTIONAL_##need,
#include "entry_points.h"
#undef GPU__ENTRY
#undef GPU__IS_OPTIONAL_REQUIRED
#undef GPU__IS_OPTIONAL_OPTIONAL
};

#if defined(__GNUC__)
#define GPU__HIDDEN __attribute__((visibility("hidden")))
#else
#define GPU__HIDDEN
#endif

/*
 * The table while a usable driver is loaded in this process image: NULL
 * before the load, after a failed one, and in a child after fork().
 */
extern GPU__HIDDEN const struct gpu__driver *_Atomic gpu__driver_ready;

/*
 * The table gpu__driver_ready points to once a driver loaded. Only loader.c
 * writes it. The hot path (call.h) calls through it by address once it has
 * seen gpu__driver_hot set.
 */
extern GPU__HIDDEN struct gpu__driver gpu__driver_table;

/*
 * Whether the hot path may call gpu__driver_table's pointers as they are:
 * set with gpu__driver_ready, except where tracing put its wrappers in the
 * table (those want the stream's context current, which only the cold way
 * makes sure of), and cleared with it (after fork(), in the child).
 */
extern GPU__HIDDEN atomic_bool gpu__driver_hot;

/* gpu__driver_get()'s slow half: loads the driver, or says why there is none. */
gpu_status gpu__driver_load(const struct gpu__driver **out);

/*
 * The loaded driver, loading it on first use. GPU_OK and *out set, or
 * GPU_ERR_NO_DRIVER / GPU_ERR_FORKED with the thread's error set.
 * Once loaded this costs one load.
 */
static inline gpu_status gpu__driver_get(const struct gpu__driver **out)
{
    const struct gpu__driver *table = atomic_load_explicit(&gpu__driver_ready, memory_order_acquire);

    if (table) {
        *out = table;
        return GPU_OK;
    }
    return gpu__driver_load(out);
}

/*
 * The driver library the load opened, loading it on first use: GPU_OK and
 * *out set also when the load then failed at cuInit or at resolving gpushim's
 * own entry points (a library that exports cuInit and cuDriverGetVersion is
 * the process's driver, for libgpushim-cuda to forward to, and answers for
 * itself). Else the load's GPU_ERR_NO_DRIVER or GPU_ERR_FORKED, with the
 * thread's error saying why. Never closed.
 */
gpu_status gpu__driver_handle(void **out);

/* The table if the driver is loaded and usable, else NULL; never loads it. */
const struct gpu__driver *gpu__driver_peek(void);

/*
 * gpu__check() turns a CUresult into a status: GPU_OK for CUDA_SUCCESS; otherwise the
 * thread's error becomes "<what>: <NAME> (<code>): <description>" and the
 * status is the one the result implies (out of memory, no device, not
 * supported), else `category`. gpu__check_detail() appends `detail`.
 */
gpu_status gpu__check_detail(cuabi_result result, gpu_status category, const char *what,
                             const char *detail);

static inline gpu_status gpu__check(cuabi_result result, gpu_status category, const char *what)
{
    if (result == CUABI_SUCCESS)
        return GPU_OK;
    return gpu__check_detail(result, category, what, NULL);
}

/* gpushim's own name for a CUresult ("CUDA_ERROR_NOT_READY"), or NULL. */
const char *gpu__result_name_own(cuabi_result result);

/* GPU_ERR_NOT_SUPPORTED, naming the optional entry point the driver lacks. */
gpu_status gpu__unsupported(const char *entry);

#endif
