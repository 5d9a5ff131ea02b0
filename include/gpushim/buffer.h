/** @file
 * Device buffers, page-locked host buffers, and copies between them.
 */
#ifndef GPUSHIM_BUFFER_H
#define GPUSHIM_BUFFER_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Allocates `bytes` (at least 1) of device memory in `ctx` (NULL: device 0).
 * The contents are undefined. GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER,
 * GPU_ERR_NO_DEVICE, GPU_ERR_CONTEXT, GPU_ERR_OUT_OF_MEMORY, GPU_ERR_TRANSFER.
 * @param ctx the context; NULL: device 0's primary context
 * @param bytes how many bytes, at least 1
 * @param[out] out the new buffer, the caller's to free with gpu_buffer_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_create(gpu_context *ctx, size_t bytes, gpu_buffer **out);

/**
 * Frees the buffer; NULL does nothing. Work using it must be done.
 * @param buffer the buffer, or NULL
 */
GPU_API void gpu_buffer_destroy(gpu_buffer *buffer);

/**
 * The device address (CUdeviceptr); 0 for NULL.
 * @param buffer the buffer, or NULL
 * @return the device address, or 0
 */
GPU_API uint64_t gpu_buffer_device_ptr(const gpu_buffer *buffer);

/**
 * The size in bytes; 0 for NULL.
 * @param buffer the buffer, or NULL
 * @return the size in bytes, or 0
 */
GPU_API size_t gpu_buffer_size(const gpu_buffer *buffer);

/**
 * The buffer's context (borrowed).
 * @param buffer the buffer, or NULL
 * @return the context, owned by the buffer; NULL for NULL
 */
GPU_API gpu_context *gpu_buffer_context(const gpu_buffer *buffer);

/**
 * Copies `bytes` from host memory to the start of the buffer, synchronously,
 * on the legacy default stream (cuMemcpyHtoD): ordered against streams from
 * gpu_stream_create(), NOT against non-blocking streams. Zero bytes is a
 * no-op. GPU_ERR_INVALID_ARG (NULL, or more bytes than the buffer holds),
 * GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 * @param buffer the destination
 * @param src host memory holding at least `bytes`
 * @param bytes how many bytes; at most gpu_buffer_size()
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_buffer_copy_from_host(gpu_buffer *buffer, const void *src, size_t bytes);

/**
 * Copies the first `bytes` of the buffer to host memory; as gpu_buffer_copy_from_host().
 * @param buffer the source
 * @param dst host memory with room for `bytes`
 * @param bytes how many bytes; at most gpu_buffer_size()
 * @return as gpu_buffer_copy_from_host()
 */
GPU_API gpu_status gpu_buffer_copy_to_host(const gpu_buffer *buffer, void *dst, size_t bytes);

/**
 * Stream-ordered copies: queued on `stream` after its earlier work, returning
 * before the copy is done (truly asynchronous only from page-locked host
 * memory; from pageable memory the driver may stage the data first).
 * The host memory must stay valid and unchanged until the stream reaches the
 * copy. Same returns as the synchronous copies.
 * @param buffer the destination
 * @param src host memory holding at least `bytes`
 * @param bytes how many bytes; at most gpu_buffer_size()
 * @param stream the stream to queue the copy on
 * @return as gpu_buffer_copy_from_host()
 */
GPU_API gpu_status gpu_buffer_copy_from_host_async(gpu_buffer *buffer, const void *src, size_t bytes,
                                                   gpu_stream *stream);
/**
 * As gpu_buffer_copy_from_host_async(), the other way: the first `bytes` of
 * the buffer to host memory, queued on the stream.
 * @param buffer the source
 * @param dst host memory with room for `bytes`
 * @param bytes how many bytes; at most gpu_buffer_size()
 * @param stream the stream to queue the copy on
 * @return as gpu_buffer_copy_from_host()
 */
GPU_API gpu_status gpu_buffer_copy_to_host_async(const gpu_buffer *buffer, void *dst, size_t bytes,
                                                 gpu_stream *stream);

/**
 * Copies `bytes` from the start of `src` to the start of `dst`, on the stream.
 * Buffers of two devices are copied with cuMemcpyPeerAsync, directly where peer
 * access is enabled and staged by the driver where it is not.
 * GPU_ERR_INVALID_ARG (NULL, too many bytes), GPU_ERR_NOT_SUPPORTED, GPU_ERR_TRANSFER.
 * @param dst the destination buffer
 * @param src the source buffer
 * @param bytes how many bytes; at most the size of each
 * @param stream the stream to queue the copy on
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_buffer_copy_async(gpu_buffer *dst, const gpu_buffer *src, size_t bytes,
                                         gpu_stream *stream);

/**
 * Allocates `bytes` (at least 1) of page-locked host memory, usable from every
 * context (cuMemHostAlloc with CU_MEMHOSTALLOC_PORTABLE).
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_CONTEXT, GPU_ERR_OUT_OF_MEMORY.
 * @param ctx the context; NULL: device 0's primary context
 * @param bytes how many bytes, at least 1
 * @param[out] out the new host buffer, the caller's to free with gpu_host_buffer_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_host_buffer_create(gpu_context *ctx, size_t bytes, gpu_host_buffer **out);

/**
 * Page-locks existing host memory [ptr, ptr + bytes) (cuMemHostRegister,
 * portable). The memory stays the caller's; destroying the object unregisters
 * it. Already registered memory is GPU_ERR_INVALID_ARG.
 * @param ctx the context; NULL: device 0's primary context
 * @param ptr the start of the caller's memory
 * @param bytes its length, at least 1
 * @param[out] out the new host buffer, the caller's to free with gpu_host_buffer_destroy(); set only on success
 * @return GPU_OK, GPU_ERR_INVALID_ARG, or a code of gpu_host_buffer_create()
 */
GPU_API GPU_NODISCARD gpu_status gpu_host_buffer_register(gpu_context *ctx, void *ptr, size_t bytes,
                                                          gpu_host_buffer **out);

/**
 * Frees (or unregisters) the host buffer; NULL does nothing.
 * @param buffer the host buffer, or NULL
 */
GPU_API void gpu_host_buffer_destroy(gpu_host_buffer *buffer);

/**
 * The host address; NULL for NULL.
 * @param buffer the host buffer, or NULL
 * @return the host address, or NULL
 */
GPU_API void *gpu_host_buffer_data(const gpu_host_buffer *buffer);

/**
 * The size in bytes; 0 for NULL.
 * @param buffer the host buffer, or NULL
 * @return the size in bytes, or 0
 */
GPU_API size_t gpu_host_buffer_size(const gpu_host_buffer *buffer);

#ifdef __cplusplus
}
#endif

#endif
