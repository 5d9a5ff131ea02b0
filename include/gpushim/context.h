/* SPDX-License-Identifier: MIT */
/** @file
 * Contexts: one device's primary context.
 */
#ifndef GPUSHIM_CONTEXT_H
#define GPUSHIM_CONTEXT_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Retains device `device`'s primary context (cuDevicePrimaryCtxRetain).
 * Two calls for one device share the driver's context. The object is
 * reference-counted: every stream, event, buffer, module and graph made in it
 * holds a reference, so destroying the context while they live is safe, and
 * the primary context is released when the last of them goes.
 *
 * Wherever a gpu_context * is taken, NULL means device 0's primary context
 * (retained once, on first use, for the life of the process).
 *
 * Any call on any object works from any thread, whatever context the thread
 * holds. The hot calls on a stream (launches, event records and waits,
 * gpu_stream_is_complete(), the async copies) are made as they are: the driver runs
 * them in the stream's context, and the thread's context is left as it was.
 * Should a driver want the stream's context current for them, gpushim makes
 * it current and calls again. Every other call makes the object's context
 * current where it is not: a thread with no current context is given the
 * object's; a thread with another context current gets it back when the call
 * returns.
 *
 * Returns GPU_ERR_INVALID_ARG (out NULL, device negative), GPU_ERR_NO_DRIVER,
 * GPU_ERR_NO_DEVICE, GPU_ERR_CONTEXT, GPU_ERR_OUT_OF_MEMORY.
 * @param device the device ordinal, from 0
 * @param[out] out the new context, the caller's to free with gpu_context_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_context_retain_primary(int device, gpu_context **out);

/**
 * Drops this reference; NULL does nothing.
 * @param ctx the context, or NULL
 */
GPU_API void gpu_context_destroy(gpu_context *ctx);

/**
 * The context's device ordinal; -1 for NULL.
 * @param ctx the context, or NULL
 * @return the device ordinal, or -1
 */
GPU_API int gpu_context_get_device(const gpu_context *ctx);

/**
 * The driver's CUcontext, for mixing with code that calls CUDA directly.
 * @param ctx the context, or NULL
 * @return the CUcontext, or NULL for NULL
 */
GPU_API void *gpu_context_get_raw(const gpu_context *ctx);

/**
 * Waits for all work in the context (cuCtxSynchronize).
 * GPU_ERR_NO_DRIVER, GPU_ERR_CONTEXT, GPU_ERR_STREAM_SYNC.
 * @param ctx the context; NULL: device 0's primary context
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_context_synchronize(gpu_context *ctx);

/**
 * Lets `ctx` address memory of `peer`'s device (cuCtxEnablePeerAccess). Already
 * enabled is success. GPU_ERR_INVALID_ARG (peer NULL, or the same device),
 * GPU_ERR_NOT_SUPPORTED (no peer access between the two, or no entry point),
 * GPU_ERR_CONTEXT.
 * @param ctx the context that is to reach the other device; NULL: device 0's
 * @param peer a context of the other device
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_context_enable_peer_access(gpu_context *ctx, gpu_context *peer);

/** A limit of a context's kernels; the values are CUlimit's. */
typedef enum gpu_limit {
    GPU_LIMIT_STACK_SIZE = 0,       /**< bytes of stack per thread */
    GPU_LIMIT_PRINTF_FIFO_SIZE = 1, /**< bytes of the FIFO device printf writes to */
    GPU_LIMIT_MALLOC_HEAP_SIZE = 2  /**< bytes of the heap device malloc allocates from */
} gpu_limit;

/**
 * The context's (NULL: device 0's) current value of `limit` into *out
 * (cuCtxGetLimit). GPU_ERR_INVALID_ARG (out NULL, a limit outside the enum),
 * GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param ctx the context; NULL: device 0's primary context
 * @param limit which limit
 * @param[out] out its value in bytes; set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_context_get_limit(gpu_context *ctx, gpu_limit limit, size_t *out);

/**
 * Sets `limit` of the context (cuCtxSetLimit). The driver may round the value
 * up (read it back with gpu_context_get_limit()); the FIFO and the heap can be
 * set only before the context has run a kernel that uses them.
 * GPU_ERR_INVALID_ARG (a limit outside the enum, a value the driver refuses),
 * GPU_ERR_OUT_OF_MEMORY, GPU_ERR_NOT_SUPPORTED (a limit the device lacks),
 * GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param ctx the context; NULL: device 0's primary context
 * @param limit which limit
 * @param value the value asked for, in bytes
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_context_set_limit(gpu_context *ctx, gpu_limit limit, size_t value);

#ifdef __cplusplus
}
#endif

#endif
