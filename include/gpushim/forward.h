/* SPDX-License-Identifier: MIT */
/** @file
 * libgpushim-cuda: the whole CUDA driver API for programs written against
 * the toolkit's own cuda.h, with no link-time dependency on libcuda.
 *
 * A program compiled with any cuda.h from CUDA 12.0 to 13.x links
 * `-lgpushim-cuda` (pkg-config `gpushim-cuda`, CMake `gpushim::cuda`, Meson
 * `dependency('gpushim-cuda')`) instead of `-lcuda`, with no change to its
 * source, and then starts on any machine.
 *
 * libgpushim-cuda.so exports every function symbol of libcuda (the list is
 * src/sys/driver/cuda_symbols.h: the base names, the `_vN` versions and the
 * per-thread `_ptsz`/`_ptds` names). Each forwards, unchanged, to the
 * driver's export of the very same name: the caller's cuda.h chose the ABI
 * when it was compiled, so no other version is ever substituted.
 * cuGetProcAddress, cuGetProcAddress_v2 and cuGetExportTable forward the same
 * way, so the CUDA runtime, which resolves through them, works beside it.
 *
 * The first call of any of them loads the driver through gpushim's one loader
 * (gpu_driver_load(): the same search, GPUSHIM_LIBCUDA, report and fork rule;
 * one load per process whether the program calls gpu_* functions, cu*
 * functions or both) and resolves every symbol at once. That load calls
 * cuInit(0); a program's own cuInit then returns CUDA_SUCCESS, as a second
 * cuInit does. Later calls cost one indirect jump more than -lcuda's.
 *
 * What a call returns when gpushim cannot give it the driver's function:
 * - No driver could be loaded (none found; GPUSHIM_LIBCUDA naming something
 *   else; the toolkit's stub library, whose cuInit says it is one; or, in a
 *   child of fork(), the parent was loading it at the time): every function returns
 *   **CUDA_ERROR_STUB_LIBRARY (34)**. That is the code every function of
 *   NVIDIA's own stub libcuda.so returns, so programs linked against the
 *   toolkit's stubs already take their no-driver path on it; a new code
 *   would reach no existing error path, and CUDA_ERROR_NO_DEVICE (100) would
 *   claim a driver that found no device. Then cuGetErrorName and
 *   cuGetErrorString answer from gpushim: cuGetErrorString(34) gives the
 *   load's whole reason ("no CUDA driver could be loaded: libcuda.so.1:
 *   cannot open shared object file: ..."), the same text as gpu_last_error_get_message()
 *   after a failed gpu_driver_load().
 * - The driver lacks a symbol (an older driver than the program's cuda.h):
 *   that function returns **CUDA_ERROR_NOT_SUPPORTED (801)**, the driver's
 *   own answer for an operation it does not provide; gpu_cuda_get_symbol() names
 *   it, and gpushim-info lists them (`--json`, all of them).
 * - A library that opened and exports cuInit is the driver whatever its
 *   cuInit answered: its functions give their own errors (the stub's 34, a
 *   driver's CUDA_ERROR_NO_DEVICE), as they would under -lcuda.
 *
 * Never a call of itself: the driver is opened RTLD_LOCAL and each symbol is
 * looked up in its handle only (never RTLD_DEFAULT or RTLD_NEXT), and an
 * export that lies inside gpushim (libgpushim.so, or libgpushim-cuda itself,
 * named by GPUSHIM_LIBCUDA by mistake or found through a wrapper library
 * that links it) is refused: calls of that symbol answer
 * CUDA_ERROR_NOT_SUPPORTED. libgpushim-cuda.so exports one name besides the
 * driver's, gpu_cuda_forwarder, which tells it apart.
 *
 * With GPUSHIM_TRACE (or GPUSHIM_TRACE_SUMMARY) set, each call is traced like
 * gpushim's own, category "cuda": the symbol's name, its time, its CUresult
 * and its arguments by name up to the first one passed as a struct. With
 * neither set the slots hold the driver's own functions.
 *
 * The forwarders exist on x86-64 and AArch64 Linux; elsewhere libgpushim-cuda
 * is not built.
 */
#ifndef GPUSHIM_FORWARD_H
#define GPUSHIM_FORWARD_H

#include <stddef.h>

#include "common.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * How many symbols libgpushim-cuda forwards (637 for CUDA 13.0's list).
 * @return the count; every index below it names one
 */
GPU_API size_t gpu_cuda_get_symbol_count(void);

/**
 * The forwarder of symbol `index`: its name, and the function its calls land
 * on. Resolves every forwarder first, as their first call does (loading the
 * driver). Thread-safe.
 * @param index a number below gpu_cuda_get_symbol_count()
 * @param[out] name the symbol's name (static); set unless the arguments are invalid
 * @param[out] target the driver's own export of that name, which calls reach
 *             (through a traced stub when tracing); NULL when they reach none
 * @return GPU_OK; GPU_ERR_NOT_SUPPORTED when the driver does not export it
 *         (calls return CUDA_ERROR_NOT_SUPPORTED); GPU_ERR_DRIVER when its
 *         export lay inside gpushim and was refused; GPU_ERR_NO_DRIVER or
 *         GPU_ERR_FORKED when there is no driver (calls return
 *         CUDA_ERROR_STUB_LIBRARY); GPU_ERR_INVALID_ARG for an index past
 *         the last or a NULL pointer. gpu_last_error_get_message() says which.
 */
GPU_API gpu_status gpu_cuda_get_symbol(size_t index, const char **name, void **target);

/**
 * The loaded driver's own export of `symbol` (dlsym on the driver's handle,
 * nothing else), loading the driver on first use: e.g. a function that
 * gpushim does not wrap, for a program that calls it directly.
 * @param symbol the exported name, versioned as the ABI wants it ("cuMemAlloc_v2")
 * @param[out] out the function's address; written only on success
 * @return GPU_OK; GPU_ERR_NOT_SUPPORTED when the driver does not export it;
 *         GPU_ERR_DRIVER when the export lies inside gpushim (refused);
 *         GPU_ERR_NO_DRIVER or GPU_ERR_FORKED; GPU_ERR_INVALID_ARG for NULL
 */
GPU_API gpu_status gpu_driver_get_symbol(const char *symbol, void **out);

#ifdef __cplusplus
}
#endif

#endif
