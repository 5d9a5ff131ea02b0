/* SPDX-License-Identifier: MIT */
/** @file
 * Status codes and per-thread error details.
 */
#ifndef GPUSHIM_STATUS_H
#define GPUSHIM_STATUS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Every status, once: (name, sentence). The enum, gpu_status_get_name() and
 * gpu_status_get_description() all expand from it. The categories from GPU_ERR_STREAM_CREATE
 * on say which kind of operation the driver refused; gpu_last_error_get_cuda_result()
 * and gpu_last_error_get_message() say how.
 */
#define GPU_STATUS_LIST(X) \
    X(GPU_OK, "success") \
    X(GPU_ERR_NO_DRIVER, "no usable CUDA driver was found or it could not be initialised") \
    X(GPU_ERR_NOT_SUPPORTED, "the loaded driver does not provide this operation") \
    X(GPU_ERR_INVALID_ARG, "an argument is invalid") \
    X(GPU_ERR_NO_DEVICE, "no such CUDA device") \
    X(GPU_ERR_OUT_OF_MEMORY, "out of device or host memory") \
    X(GPU_ERR_FORKED, "the driver was loaded before fork(); CUDA cannot be used in the child") \
    X(GPU_ERR_CONTEXT, "a context could not be created or made current") \
    X(GPU_ERR_STREAM_CREATE, "a stream could not be created or destroyed") \
    X(GPU_ERR_STREAM_SYNC, "a stream could not be synchronised, queried or made to wait") \
    X(GPU_ERR_TRANSFER, "a memory transfer or allocation failed") \
    X(GPU_ERR_KERNEL_LAUNCH, "a kernel or host function could not be launched") \
    X(GPU_ERR_GRAPH_CAPTURE, "stream capture could not be started or ended") \
    X(GPU_ERR_GRAPH_LAUNCH, "a graph could not be instantiated or launched") \
    X(GPU_ERR_EVENT, "an event operation failed") \
    X(GPU_ERR_MODULE_LOAD, "a module could not be loaded") \
    X(GPU_ERR_FUNCTION_NOT_FOUND, "the module has no function of that name") \
    X(GPU_ERR_DRIVER, "the driver reported an error") \
    X(GPU_ERR_NO_COMPILER, "no usable NVRTC (libnvrtc) was found") \
    X(GPU_ERR_COMPILE, "NVRTC could not compile the program")

/** What a call did: GPU_OK or the kind of failure (README.md's table says what each means). */
typedef enum gpu_status {
/** One enumerator of GPU_STATUS_LIST. */
#define GPU_STATUS_ENUM(name, text) name,
    GPU_STATUS_LIST(GPU_STATUS_ENUM)
#undef GPU_STATUS_ENUM
    GPU_STATUS_COUNT_ /**< not a status: the number of them */
} gpu_status;

/**
 * The status's name, e.g. "GPU_ERR_NO_DRIVER"; "GPU_STATUS_UNKNOWN" for a
 * value outside the enum. Never NULL; the string is static. Any thread.
 * @param status any value
 * @return the name
 */
GPU_API const char *gpu_status_get_name(gpu_status status);

/**
 * A sentence saying what the status means; static, never NULL. Any thread.
 * @param status any value
 * @return the sentence
 */
GPU_API const char *gpu_status_get_description(gpu_status status);

/**
 * What the calling thread's last failed gpushim call failed on and why, e.g.
 * "cuStreamCreate: CUDA_ERROR_INVALID_CONTEXT (201): invalid device context",
 * or each library path tried with its dlerror text. Like errno, it is set by
 * failing calls only; "" before any failure. The string belongs to the thread
 * and stays valid until its next gpushim call.
 * @return the message; never NULL
 */
GPU_API const char *gpu_last_error_get_message(void);

/**
 * The CUresult of the calling thread's last failed call, or 0 when that
 * failure did not come from the driver (an argument error, no driver).
 * @return the CUresult, or 0
 */
GPU_API int gpu_last_error_get_cuda_result(void);

/**
 * The name of a CUresult, e.g. "CUDA_ERROR_NOT_READY": the driver's own
 * (cuGetErrorName) once one is loaded, gpushim's table otherwise;
 * "CUDA_ERROR_UNRECOGNIZED" for a code neither knows. Static, never NULL.
 * Never loads the driver.
 * @param result any CUresult value
 * @return the name
 */
GPU_API const char *gpu_cuda_result_get_name(int result);

#ifdef __cplusplus
}
#endif

#endif
