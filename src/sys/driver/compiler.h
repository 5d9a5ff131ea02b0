/* SPDX-License-Identifier: MIT */
/*
 * The NVRTC table (the compiler): what the modules above src/sys/ see of libnvrtc.
 */
#ifndef GPUSHIM_SYS_COMPILER_H
#define GPUSHIM_SYS_COMPILER_H

#include "gpushim/status.h"
#include "nvrtc_abi.h"

/* One typed pointer per entry point; NULL for an optional one the library lacks. */
struct gpu__nvrtc {
#define GPU__NVRTC_ENTRY(need, ret, name, params) ret (*name) params;
#include "nvrtc_entry_points.h"
#undef GPU__NVRTC_ENTRY
    int major; /* nvrtcVersion's */
    int minor;
    /* The loaded file's size: told apart, two builds of one major.minor (updates) key different cache entries. */
    unsigned long long file_size;
};

/*
 * The loaded NVRTC, loading it on first use. GPU_OK and *out set, or
 * GPU_ERR_NO_COMPILER with the thread's error set to the load's reason.
 */
gpu_status gpu__nvrtc_get(const struct gpu__nvrtc **out);

/*
 * An nvrtcResult as a status: GPU_OK for NVRTC_SUCCESS; otherwise the
 * thread's error becomes "<what>: <NAME> (<code>): <text>[: detail]" and the
 * status is GPU_ERR_OUT_OF_MEMORY for NVRTC's out of memory, else `category`.
 */
gpu_status gpu__nvrtc_check(const struct gpu__nvrtc *nv, nvrtcabi_result result, gpu_status category,
                            const char *what, const char *detail);

/* gpushim's name for an nvrtcResult ("NVRTC_ERROR_COMPILATION"), or NULL. */
const char *gpu__nvrtc_result_name(nvrtcabi_result result);

/* Calls entry point `fn` of table `nv` and checks the result; names `fn` in errors. */
#define GPU__NVRTC_CALL(nv, fn, category, ...) gpu__nvrtc_check((nv), (nv)->fn(__VA_ARGS__), (category), #fn, NULL)

#endif
