/* SPDX-License-Identifier: MIT */
/*
 * libgpushim-cudart's internals: the CUDA runtime API over the driver API,
 * written from the toolkit's public headers (cuda_runtime_api.h,
 * driver_types.h, crt/host_runtime.h) and NVIDIA's documentation. The driver
 * is reached through libgpushim-cuda, which loads it at first use.
 *
 * Each runtime function makes a context current (gpu__cudart_context(): the
 * primary context of the thread's device, or the one a driver API caller
 * made current), calls the driver, and maps its CUresult (gpu__cudart_result()),
 * recording any error as the thread's last error.
 */
#ifndef GPUSHIM_CUDART_RUNTIME_H
#define GPUSHIM_CUDART_RUNTIME_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- error.c ---- */

/* The runtime error that documents the same condition as the driver's `r`. */
cudaError_t gpu__cudart_map(CUresult r);
/* Records `e` as the calling thread's last error when it is one; returns `e`. */
cudaError_t gpu__cudart_set(cudaError_t e);
/* gpu__cudart_set(gpu__cudart_map(r)). */
cudaError_t gpu__cudart_result(CUresult r);
/* For a function this runtime does not implement: cudaErrorNotSupported, recorded. */
cudaError_t gpu__cudart_not_supported(void);
/* Why no driver could be used, in words: cudaGetErrorString(cudaErrorInsufficientDriver) says it from then on. */
void gpu__cudart_set_init_reason(const char *why);

/* ---- device.c ---- */

/* cuInit once per process; its mapped result every time after. Records no error. */
cudaError_t gpu__cudart_init(void);
/* A context current on the calling thread (see above); records no error. */
cudaError_t gpu__cudart_context(void);
/* The primary context of the runtime's `device`, retained at its first use; records no error. */
cudaError_t gpu__cudart_primary(int device, CUcontext *out);

/* ---- register.c ---- */

struct cudart_function;

/* The function nvcc registered for `host_fun` (a kernel's host stub), or NULL. */
struct cudart_function *gpu__cudart_function_find(const void *host_fun);
/* Whether `handle` is one gpu__cudart_function_find() or __cudaGetKernel handed out. */
bool gpu__cudart_function_valid(const struct cudart_function *handle);
/* The function's CUkernel, its fatbin loaded first: needs gpu__cudart_init(). Records no error. */
cudaError_t gpu__cudart_function_kernel(struct cudart_function *fn, CUkernel *out);
/* The device address and size of the variable nvcc registered for `symbol`, in the current context. */
cudaError_t gpu__cudart_symbol(const void *symbol, CUdeviceptr *address, size_t *size);

/* ---- launch.c ---- */

/* Launches `fn` (NULL: no kernel the runtime knows) on `stream`, whose 0 is the legacy default stream or,
 * `per_thread`, the thread's; with `nattrs` launch attributes. Records any error. */
cudaError_t gpu__cudart_launch(struct cudart_function *fn, dim3 grid, dim3 block, void **args, size_t shared,
                               cudaStream_t stream, bool per_thread, const cudaLaunchAttribute *attrs,
                               unsigned int nattrs);
/* cudaLaunchKernelExC's launch, in either default stream's form. */
cudaError_t gpu__cudart_launch_config(const cudaLaunchConfig_t *config, const void *func, void **args,
                                      bool per_thread);
/* The function `func` names: a kernel handle (cudaGetKernel's) or a kernel's host stub; NULL for neither. */
struct cudart_function *gpu__cudart_function_of(const void *func);

/* ---- memory.c: these record no error ---- */

/* A copy of `count` bytes, `kind` saying which side each pointer is on; on `stream` when `async`. */
cudaError_t gpu__cudart_copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, bool async,
                             CUstream stream);
/* The driver's memory types of a copy's source and destination for `kind`; false for no kind of copy. */
bool gpu__cudart_copy_sides(enum cudaMemcpyKind kind, CUmemorytype *src, CUmemorytype *dst);
/* A cudaMemcpy3DParms as the driver's CUDA_MEMCPY3D (array.c); records no error. */
cudaError_t gpu__cudart_copy_3d_params(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *out);
/* `count` bytes of `value` at `devPtr`; on `stream` when `async`. */
cudaError_t gpu__cudart_fill(void *devPtr, int value, size_t count, bool async, CUstream stream);

/* ---- stream.c and event.c: on the driver's stream; these record any error ---- */

/* The driver's stream for a runtime one; `per_thread`: 0 is the per-thread default stream. */
CUstream gpu__cudart_stream(cudaStream_t stream, bool per_thread);
cudaError_t gpu__cudart_stream_synchronize(CUstream stream);
cudaError_t gpu__cudart_stream_query(CUstream stream);
cudaError_t gpu__cudart_stream_wait_event(CUstream stream, cudaEvent_t event, unsigned int flags);
cudaError_t gpu__cudart_event_record(cudaEvent_t event, CUstream stream);

#endif
