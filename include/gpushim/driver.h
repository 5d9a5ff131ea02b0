/* SPDX-License-Identifier: MIT */
/** @file
 * The driver: loading it, and what the load found.
 *
 * The driver (libcuda.so.1) is loaded at the first call that needs it, once
 * per process, from any thread; gpu_driver_load() only makes that moment
 * explicit. The outcome is kept: a failed load is not retried, and later
 * calls cost a pointer load. The library is never unloaded.
 *
 * Which file: GPUSHIM_LIBCUDA, when set, names the one file to load (an
 * absolute path; anything else is refused). Otherwise a driver already loaded
 * in the process, then libcuda.so.1 through the system loader, then by full
 * path each libcuda.so.1 that /etc/ld.so.cache lists and each of the usual
 * driver folders (/usr/lib/x86_64-linux-gnu or /usr/lib/aarch64-linux-gnu,
 * /usr/lib64, /usr/lib, /usr/local/nvidia/lib64, WSL's /usr/lib/wsl/lib,
 * /run/opengl-driver/lib), or instead of these two the folders of
 * GPUSHIM_LIBCUDA_DIRS. A candidate that is gpushim's own libgpushim-cuda
 * (which a folder first on LD_LIBRARY_PATH may hold as libcuda.so.1), a file
 * tried already under another name, or a library without cuInit is skipped,
 * and the search goes on. Never the bare libcuda.so, which is the toolkit's
 * stub on most machines.
 */
#ifndef GPUSHIM_DRIVER_H
#define GPUSHIM_DRIVER_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The CUDA ABI version every entry point is resolved at (CUDA 12.0). */
#define GPU_CUDA_ABI_VERSION 12000

/**
 * Loads and initialises the driver if that has not happened yet (idempotent,
 * thread-safe). Returns GPU_OK when a usable driver is loaded,
 * GPU_ERR_NO_DRIVER (gpu_last_error_get_message() says which paths were tried and why each
 * failed, or which stage failed) or GPU_ERR_FORKED in a child of a process
 * that had loaded it or was loading it when it forked (cuInit never runs
 * twice in one process image).
 *
 * The load waits for the driver: a cuInit that never returns blocks this
 * call, and every other thread's first call that needs the driver, for as
 * long (gpu_driver_get_report() says so meanwhile; `gpushim-info --timeout`
 * reports it). A call into gpushim from inside the load, on the loading
 * thread (a driver calling back from cuInit), does not wait for itself: it
 * returns GPU_ERR_NO_DRIVER at once, saying so.
 * @return GPU_OK, GPU_ERR_NO_DRIVER or GPU_ERR_FORKED
 */
GPU_API gpu_status gpu_driver_load(void);

/**
 * The driver's CUDA version (cuDriverGetVersion), e.g. 13000, into *out.
 * GPU_ERR_INVALID_ARG when out is NULL; GPU_ERR_NO_DRIVER.
 * @param[out] out the version; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_driver_get_version(int *out);

/* ---- What the load found, for diagnostics (gpushim-info prints all of it). ---- */

/** How far the load got: where it stopped, or GPU_LOAD_READY. */
typedef enum gpu_load_stage {
    GPU_LOAD_NOT_STARTED = 0, /**< nothing has asked for the driver yet */
    GPU_LOAD_OPEN,            /**< no driver library could be opened (each candidate failed or was skipped) */
    GPU_LOAD_RESOLVE,         /**< a library opened, but it lacks what a CUDA driver has */
    GPU_LOAD_INIT,            /**< cuInit(0) or cuDriverGetVersion failed */
    GPU_LOAD_READY,           /**< the driver is usable */
    GPU_LOAD_IN_PROGRESS,     /**< a thread is loading it now; `step` says where it is */
} gpu_load_stage;

/**
 * The stage's name: "not started", "open", "resolve", "init", "ready", "in progress".
 * @param stage the stage
 * @return the name; static; "unknown" for a value outside the enum
 */
GPU_API const char *gpu_load_stage_get_name(gpu_load_stage stage);

/** One file the load tried. */
typedef struct gpu_load_attempt {
    const char *path;   /**< as given to dlopen, whole */
    const char *error;  /**< NULL if it opened; else dlerror()'s text or gpushim's reason, naming the path */
} gpu_load_attempt;

/** One driver entry point gpushim uses, and how the load resolved it. */
typedef struct gpu_entry_point {
    const char *name;       /**< base name, e.g. "cuMemAlloc" */
    const char *symbol;     /**< the versioned symbol meant, e.g. "cuMemAlloc_v2" */
    bool required;          /**< without it the driver is unusable */
    bool found;             /**< resolved */
    const char *via;        /**< "cuGetProcAddress", "dlsym", or NULL if not found */
    const char *missing;    /**< why not found, e.g. "symbol not found"; NULL if found */
    /* Whether the driver exports `symbol`, and if so whether it is the pointer resolved. */
    bool exported;          /**< the driver exports `symbol` */
    bool matches_export;    /**< the pointer resolved is the exported one */
} gpu_entry_point;

/*
 * (Strings in the report (message, file, attempts) are whole for any path
 * dlopen can take (PATH_MAX). Longer text, which no dlopen can open anyway,
 * is cut and ends with " [... cut: N bytes in all]": never cut silently.)
 */
/** What the load did, from gpu_driver_get_report(). */
typedef struct gpu_load_report {
    gpu_load_stage stage;         /**< how far the load got, or GPU_LOAD_IN_PROGRESS */
    const char *message;          /**< the whole reason when stage != READY; "" when ready */
    const char *file;             /**< the file loaded (dladdr), or NULL */
    int driver_version;           /**< 0 if not known */
    int abi_version;              /**< GPU_CUDA_ABI_VERSION */
    unsigned init_result;         /**< cuInit's CUresult, when init_called (any value, 0xFFFFFFFF too) */
    bool used_get_proc_address;   /**< cuGetProcAddress_v2 was asked for each entry (dlsym the fallback) */
    size_t attempt_count;         /**< the length of attempts */
    const gpu_load_attempt *attempts; /**< each file tried, in order */
    size_t entry_count;               /**< 0 until resolution ran (stage init or later passed) */
    const gpu_entry_point *entries;   /**< each entry point, entry_count of them */
    size_t missing_required;      /**< entries required and not found */
    size_t missing_optional;      /**< entries optional and not found */
    /* Wall time of each stage, in nanoseconds. */
    uint64_t open_ns;             /**< opening the library, ns */
    uint64_t init_ns;             /**< cuInit, ns */
    uint64_t resolve_ns;          /**< resolving the entry points, ns */
    bool init_called;             /**< cuInit(0) was called and returned */
    /* How the entries found were found, counted from each entry's `via`. */
    size_t via_get_proc_address;  /**< entries found with cuGetProcAddress_v2 */
    size_t via_dlsym;             /**< entries found with dlsym */
    /*
     * While stage is GPU_LOAD_IN_PROGRESS, what the loading thread is doing:
     * "dlopen", "cuInit" (cuInit or cuDriverGetVersion) or "resolve"; NULL
     * otherwise. started_ns: when the load began (CLOCK_MONOTONIC,
     * nanoseconds; 0 before); the time it has taken so far is now minus it.
     */
    const char *step;             /**< while in progress: "dlopen", "cuInit" or "resolve"; else NULL */
    uint64_t started_ns;          /**< when the load began (CLOCK_MONOTONIC ns); 0 before */
    /**
     * What the loaded library says it is when it is gpushim's fake driver
     * (its gpu_fake_identify(), e.g. "gpushim-fakecuda 0.2.0"): a CUDA
     * driver simulated in host memory, not a GPU. NULL for any other
     * library, and before the library is opened.
     */
    const char *fake;
    /**
     * Why `file` is the library opened: where it was found ("GPUSHIM_LIBCUDA
     * names it", "/etc/ld.so.cache lists it as libcuda.so.1", ...), and
     * whether candidates before it were skipped (`attempts` says why each
     * was). NULL while no library is opened.
     */
    const char *choice;
    /**
     * At stage GPU_LOAD_OPEN: every library found was gpushim's own
     * libgpushim-cuda (a forwarder under the name libcuda.so.1), no driver.
     */
    bool only_gpushim;
} gpu_load_report;

/**
 * What the load did, without causing one: before the first load the stage is
 * GPU_LOAD_NOT_STARTED; while a thread loads the driver, GPU_LOAD_IN_PROGRESS
 * with the step and its start (a driver whose cuInit never returns stays
 * there). Each report returned and its arrays are static and never change;
 * call again for a newer one. Any thread may call it and read what it
 * returns, a driver's callback from inside cuInit too.
 * @return the report; never NULL
 */
GPU_API const gpu_load_report *gpu_driver_get_report(void);

#ifdef __cplusplus
}
#endif

#endif
