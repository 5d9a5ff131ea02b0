/* SPDX-License-Identifier: MIT */
/** @file
 * Streams: ordered queues of device work.
 *
 * Ordering, as measured by the code this is ported from (aprender-gpu's
 * stream module): gpu_buffer_copy_from_host() and gpu_buffer_copy_to_host()
 * are synchronous copies on the legacy default stream. A stream created
 * CU_STREAM_NON_BLOCKING does not order against the legacy stream, so such a
 * copy races kernels in flight on it: four concurrent identical requests gave
 * 11 distinct answers of 40. gpu_stream_create() therefore makes streams that
 * ARE ordered against the legacy stream, which is correct and costs throughput
 * under concurrency (0.893x at 4 workers, 0.817x at 8, as measured there).
 * Stream-ordered copies (gpu_buffer_copy_*_async) on a non-blocking stream
 * are both correct and fast.
 *
 * Wherever a gpu_stream * is taken, GPU_DEVICE0_LEGACY_STREAM (NULL) means the legacy
 * default stream of device 0's primary context.
 */
#ifndef GPUSHIM_STREAM_H
#define GPUSHIM_STREAM_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The legacy default stream (CUDA's stream 0) of device 0's primary context,
 * whatever context the calling thread holds. Another device's legacy stream
 * has no constant: make a stream in its context instead.
 */
#define GPU_DEVICE0_LEGACY_STREAM ((gpu_stream *)0)

/* cuStreamCreate flags. */
#define GPU_STREAM_DEFAULT 0x0u      /**< ordered against the legacy default stream */
#define GPU_STREAM_NON_BLOCKING 0x1u /**< not ordered against it */

/** The environment variable that opts gpu_stream_create() into the racy mode. */
#define GPU_STREAM_NONBLOCKING_ENV "GPUSHIM_STREAM_NONBLOCKING"

/**
 * Creates a stream in `ctx` (NULL: device 0) that is ordered against the
 * legacy stream, unless GPUSHIM_STREAM_NONBLOCKING (or, where it is unset,
 * aprender-gpu's APR_STREAM_NONBLOCKING, deprecated) is exactly "1": a measurement knob that restores the
 * faster, racy behaviour (see above). The variable is read at each call
 * (secure_getenv); a value other than "0" or "1" keeps the ordered streams and
 * is named in a warning on stderr, once a process.
 * Returns GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NO_DEVICE,
 * GPU_ERR_CONTEXT, GPU_ERR_STREAM_CREATE, GPU_ERR_OUT_OF_MEMORY.
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] out the new stream, the caller's to free with gpu_stream_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_stream_create(gpu_context *ctx, gpu_stream **out);

/**
 * Creates a CU_STREAM_NON_BLOCKING stream: not ordered against the legacy
 * stream. Its proper use is stream capture: a capture on an ordered stream
 * makes every legacy-stream operation in the process fail with
 * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (906) while it is open, and the driver
 * then invalidates the capture (901); gpushim refuses those operations
 * itself during its global-mode captures (gpu_stream_begin_capture()). Synchronise this stream (or use the _async copies on it)
 * before reading its results. Same returns as gpu_stream_create().
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] out the new stream, the caller's to free with gpu_stream_destroy(); set only on success
 * @return as gpu_stream_create()
 */
GPU_API GPU_NODISCARD gpu_status gpu_stream_create_non_blocking(gpu_context *ctx, gpu_stream **out);

/**
 * gpu_stream_create() with explicit GPU_STREAM_* flags.
 * @param ctx the context; NULL: device 0's primary context
 * @param flags GPU_STREAM_DEFAULT or GPU_STREAM_NON_BLOCKING
 * @param[out] out the new stream, the caller's to free with gpu_stream_destroy(); set only on success
 * @return as gpu_stream_create(), and GPU_ERR_INVALID_ARG for other flags
 */
GPU_API GPU_NODISCARD gpu_status gpu_stream_create_with_flags(gpu_context *ctx, unsigned flags,
                                                              gpu_stream **out);

/**
 * Destroys the stream (work queued on it still completes); NULL does nothing.
 * @param stream the stream, or NULL
 */
GPU_API void gpu_stream_destroy(gpu_stream *stream);

/**
 * The CUstream; NULL for GPU_DEVICE0_LEGACY_STREAM. Valid while the stream lives.
 * @param stream the stream
 * @return the CUstream
 */
GPU_API void *gpu_stream_get_raw(const gpu_stream *stream);

/**
 * The flags the stream was created with.
 * @param stream the stream
 * @return its GPU_STREAM_* flags; GPU_STREAM_DEFAULT for GPU_DEVICE0_LEGACY_STREAM
 */
GPU_API unsigned gpu_stream_get_flags(const gpu_stream *stream);

/**
 * The stream's context (borrowed); NULL for GPU_DEVICE0_LEGACY_STREAM.
 * @param stream the stream
 * @return the context, owned by the stream
 */
GPU_API gpu_context *gpu_stream_get_context(const gpu_stream *stream);

/**
 * Blocks until all work on the stream is done. GPU_ERR_NO_DRIVER, GPU_ERR_CONTEXT, GPU_ERR_STREAM_SYNC.
 * @param stream the stream
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_synchronize(gpu_stream *stream);

/**
 * Whether all work on the stream is done, without blocking: *done = false
 * while work is pending (CUDA_ERROR_NOT_READY is not an error), as
 * gpu_event_is_complete() for an event.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_CONTEXT, GPU_ERR_STREAM_SYNC.
 * @param stream the stream
 * @param[out] done whether all its work is done; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_is_complete(gpu_stream *stream, bool *done);

/**
 * Synchronous device-to-device copy of `bytes` from device address `src` to
 * `dst` (cuMemcpyDtoD, on the legacy stream), in the stream's context. Zero
 * bytes is a no-op. GPU_ERR_INVALID_ARG (a zero address), GPU_ERR_NO_DRIVER,
 * GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 * @param stream the stream whose context the addresses belong to
 * @param dst the destination device address
 * @param src the source device address
 * @param bytes how many bytes
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_buffer_copy_device_ptr(gpu_stream *stream, uint64_t dst, uint64_t src, size_t bytes);

/**
 * Queues `fn(user_data)` on the stream, run by a driver thread once all work
 * before it is done (cuLaunchHostFunc). fn must not call CUDA.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_KERNEL_LAUNCH.
 * @param stream the stream
 * @param fn the function; not NULL
 * @param user_data passed to fn as it is
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_launch_host_func(gpu_stream *stream, void (*fn)(void *user_data),
                                               void *user_data);

/**
 * Records `event` on the stream: it completes when all work queued before it
 * has. Does not block. The event and the stream must belong to one context
 * (GPU_ERR_INVALID_ARG otherwise). GPU_ERR_NO_DRIVER, GPU_ERR_CONTEXT, GPU_ERR_EVENT.
 * @param stream the stream
 * @param event the event
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_record_event(gpu_stream *stream, gpu_event *event);

/**
 * Makes all later work on the stream wait until `event` completes, without
 * blocking the host. The event may belong to another context or device.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_CONTEXT, GPU_ERR_STREAM_SYNC.
 * @param stream the stream that is to wait
 * @param event the event to wait for
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_wait_event(gpu_stream *stream, gpu_event *event);

/* ---- Stream priorities and stream memory operations ---- */

/**
 * The stream priorities `ctx`'s device (NULL: device 0) offers
 * (cuCtxGetStreamPriorityRange): numerically lower is more urgent, so
 * *greatest <= *least (both 0 on a device without priorities). Both
 * out-pointers are required. GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] least the least urgent priority, the default's; written only on success
 * @param[out] greatest the most urgent priority; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_context_get_stream_priority_range(gpu_context *ctx, int *least, int *greatest);

/**
 * gpu_stream_create_with_flags() with a priority (cuStreamCreateWithPriority);
 * the driver clamps one outside the device's range to it. Same returns, and
 * GPU_ERR_NOT_SUPPORTED.
 * @param ctx the context; NULL: device 0's primary context
 * @param flags GPU_STREAM_DEFAULT or GPU_STREAM_NON_BLOCKING
 * @param priority the priority; lower is more urgent (see gpu_context_get_stream_priority_range())
 * @param[out] out the new stream, the caller's to free with gpu_stream_destroy(); set only on success
 * @return as gpu_stream_create_with_flags(), and GPU_ERR_NOT_SUPPORTED
 */
GPU_API GPU_NODISCARD gpu_status gpu_stream_create_with_priority(gpu_context *ctx, unsigned flags, int priority,
                                                                 gpu_stream **out);

/**
 * The stream's priority (cuStreamGetPriority); GPU_DEVICE0_LEGACY_STREAM's is 0.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_STREAM_SYNC.
 * @param stream the stream; GPU_DEVICE0_LEGACY_STREAM: device 0's legacy stream
 * @param[out] priority its priority; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_get_priority(gpu_stream *stream, int *priority);

/** When a stream waiting on a value goes on (CUstreamWaitValue_flags). */
typedef enum gpu_wait_condition {
    GPU_WAIT_GEQ = 0, /**< (int32_t)(*addr - value) >= 0 (int64_t for 64-bit waits) */
    GPU_WAIT_EQ = 1,  /**< *addr == value */
    GPU_WAIT_AND = 2, /**< (*addr & value) != 0 */
    GPU_WAIT_NOR = 3, /**< ~(*addr | value) != 0 */
} gpu_wait_condition;

/**
 * Stream memory operations, for flags between streams without the host:
 * write a 32- or 64-bit value at byte `offset` of `buffer` when the stream
 * reaches the write (cuStreamWriteValue32/64), or hold the stream's later
 * work until the value there meets `cond` (cuStreamWaitValue32/64; a value
 * written by another stream, another device or the host releases it). The
 * offset must be aligned to the value's size and inside the buffer, and the
 * stream must be the buffer's device's. A device or driver without them:
 * GPU_ERR_NOT_SUPPORTED. GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER,
 * GPU_ERR_CONTEXT, GPU_ERR_STREAM_SYNC.
 *
 * This one writes a 32-bit value.
 * @param stream the stream to queue the write on; GPU_DEVICE0_LEGACY_STREAM: device 0's legacy stream
 * @param buffer the buffer holding the value
 * @param offset the value's place, in bytes from the buffer's start; a multiple of 4
 * @param value the value to write
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_write_value32(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint32_t value);
/**
 * As gpu_stream_write_value32(), with a 64-bit value.
 * @param stream the stream to queue the write on
 * @param buffer the buffer holding the value
 * @param offset the value's place in bytes; a multiple of 8
 * @param value the value to write
 * @return as gpu_stream_write_value32()
 */
GPU_API gpu_status gpu_stream_write_value64(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint64_t value);
/**
 * Holds the stream's later work until the 32-bit value at `offset` of
 * `buffer` meets `cond` against `value` (see gpu_stream_write_value32()).
 * @param stream the stream that is to wait
 * @param buffer the buffer holding the value
 * @param offset the value's place in bytes; a multiple of 4
 * @param value the operand of the condition
 * @param cond the condition; another value is GPU_ERR_INVALID_ARG
 * @return as gpu_stream_write_value32()
 */
GPU_API gpu_status gpu_stream_wait_value32(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint32_t value,
                                           gpu_wait_condition cond);
/**
 * As gpu_stream_wait_value32(), on a 64-bit value.
 * @param stream the stream that is to wait
 * @param buffer the buffer holding the value
 * @param offset the value's place in bytes; a multiple of 8
 * @param value the operand of the condition
 * @param cond the condition; another value is GPU_ERR_INVALID_ARG
 * @return as gpu_stream_write_value32()
 */
GPU_API gpu_status gpu_stream_wait_value64(gpu_stream *stream, gpu_buffer *buffer, size_t offset, uint64_t value,
                                           gpu_wait_condition cond);
/* ---- end of stream priorities and stream memory operations ---- */

#ifdef __cplusplus
}
#endif

#endif
