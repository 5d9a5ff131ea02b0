/* SPDX-License-Identifier: MIT */
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
GPU_API uint64_t gpu_buffer_get_device_ptr(const gpu_buffer *buffer);

/**
 * The size in bytes; 0 for NULL.
 * @param buffer the buffer, or NULL
 * @return the size in bytes, or 0
 */
GPU_API size_t gpu_buffer_get_size(const gpu_buffer *buffer);

/**
 * The buffer's context (borrowed).
 * @param buffer the buffer, or NULL
 * @return the context, owned by the buffer; NULL for NULL
 */
GPU_API gpu_context *gpu_buffer_get_context(const gpu_buffer *buffer);

/**
 * Copies `bytes` from host memory to the start of the buffer, synchronously,
 * on the legacy default stream (cuMemcpyHtoD): ordered against streams from
 * gpu_stream_create(), NOT against non-blocking streams. Zero bytes is a
 * no-op. GPU_ERR_INVALID_ARG (NULL, or more bytes than the buffer holds),
 * GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 * @param buffer the destination
 * @param src host memory holding at least `bytes`
 * @param bytes how many bytes; at most gpu_buffer_get_size()
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_buffer_copy_from_host(gpu_buffer *buffer, const void *src, size_t bytes);

/**
 * Copies the first `bytes` of the buffer to host memory; as gpu_buffer_copy_from_host().
 * @param buffer the source
 * @param dst host memory with room for `bytes`
 * @param bytes how many bytes; at most gpu_buffer_get_size()
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
 * @param bytes how many bytes; at most gpu_buffer_get_size()
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
 * @param bytes how many bytes; at most gpu_buffer_get_size()
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
 * Fills `count` elements of `element_size` bytes (1, 2 or 4) from byte
 * `offset` of the buffer with `value` (cuMemsetD8, D16, D32). The offset must
 * be a multiple of the element size and the range must lie in the buffer;
 * `value` must fit the element (at most 0xff for 1 byte, 0xffff for 2). A
 * count of 0 is a no-op. Ordered on the legacy default stream as the
 * synchronous copies are (a later synchronous copy sees the values), but it
 * may return before the device has written them.
 * GPU_ERR_INVALID_ARG (NULL, a misaligned or out-of-range request, a size
 * other than 1, 2 or 4), GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 * @param buffer the buffer to fill
 * @param offset where to start, in bytes from the buffer's start; a multiple of `element_size`
 * @param count how many elements to write
 * @param element_size the size of one element in bytes: 1, 2 or 4
 * @param value the element's value; it must fit `element_size` bytes
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_buffer_memset(gpu_buffer *buffer, size_t offset, size_t count, unsigned element_size,
                                     uint32_t value);

/**
 * As gpu_buffer_memset(), queued on `stream` (cuMemsetD8Async, ...), which
 * must be on the buffer's device (GPU_ERR_INVALID_ARG otherwise).
 * @param buffer the buffer to fill
 * @param offset where to start, in bytes from the buffer's start; a multiple of `element_size`
 * @param count how many elements to write
 * @param element_size the size of one element in bytes: 1, 2 or 4
 * @param value the element's value; it must fit `element_size` bytes
 * @param stream the stream to queue the fill on; GPU_DEVICE0_LEGACY_STREAM: device 0's legacy stream
 * @return as gpu_buffer_memset()
 */
GPU_API gpu_status gpu_buffer_memset_async(gpu_buffer *buffer, size_t offset, size_t count, unsigned element_size,
                                           uint32_t value, gpu_stream *stream);

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
 * it. Already registered memory is GPU_ERR_INVALID_ARG, and so is a range
 * that wraps around the address space (ptr + bytes overflows, e.g. bytes ==
 * SIZE_MAX), refused before the driver is asked.
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
GPU_API void *gpu_host_buffer_get_data(const gpu_host_buffer *buffer);

/**
 * The size in bytes; 0 for NULL.
 * @param buffer the host buffer, or NULL
 * @return the size in bytes, or 0
 */
GPU_API size_t gpu_host_buffer_get_size(const gpu_host_buffer *buffer);

/* ---- Memory and interop: stream-ordered allocation, foreign pointers, managed memory, IPC ---- */

/**
 * Allocates `bytes` (at least 1) of device memory on `stream` (cuMemAllocAsync),
 * from the default memory pool of the stream's device: the memory may be used
 * by work queued on the stream after this call (or on streams ordered after
 * it). GPU_DEVICE0_LEGACY_STREAM allocates on device 0's legacy stream. Free it with
 * gpu_buffer_destroy_async() (or gpu_buffer_destroy(), which frees it at once,
 * waiting for the device). GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED (no stream-ordered allocator), GPU_ERR_CONTEXT,
 * GPU_ERR_OUT_OF_MEMORY, GPU_ERR_TRANSFER. Any thread.
 * @param stream the stream the allocation is ordered on; its context's device owns the memory
 * @param bytes how many bytes, at least 1
 * @param[out] out the new buffer, the caller's to free with gpu_buffer_destroy_async()
 *             or gpu_buffer_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_create_async(gpu_stream *stream, size_t bytes, gpu_buffer **out);

/**
 * Frees a buffer from gpu_buffer_create_async() on `stream` (cuMemFreeAsync):
 * the memory returns to the pool once the stream's earlier work is done.
 * Like free(), the call consumes the buffer whatever it returns: the
 * gpu_buffer object is gone and must not be used again (gpushim cannot tell a
 * stream-freed address from a live one). Where the stream-ordered free cannot
 * be made (a stream of another device, the context, the driver refusing it),
 * the buffer is freed at once, as by gpu_buffer_destroy(), and the status says
 * why. Only NULL and a buffer not from gpu_buffer_create_async() are left
 * alone (GPU_ERR_INVALID_ARG). GPU_ERR_INVALID_ARG, GPU_ERR_NOT_SUPPORTED,
 * GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 * @param buffer a buffer from gpu_buffer_create_async(); gone when this returns,
 *               unless it is NULL or of another kind
 * @param stream the stream to order the free on, of the buffer's device;
 *               GPU_DEVICE0_LEGACY_STREAM: device 0's legacy stream
 * @return GPU_OK (freed on the stream), or one of the codes above
 */
GPU_API gpu_status gpu_buffer_destroy_async(gpu_buffer *buffer, gpu_stream *stream);

/**
 * Sets the release threshold of the default memory pool of `ctx`'s device
 * (NULL: device 0), which gpu_buffer_create_async() draws from. Memory freed
 * to the pool stays reserved for reuse up to the release threshold
 * (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 0 by default: everything is released
 * at the next synchronisation). This and the three calls after it return
 * GPU_ERR_NO_DRIVER, GPU_ERR_NO_DEVICE, GPU_ERR_NOT_SUPPORTED (no
 * stream-ordered allocator), GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param ctx the context; NULL: device 0's primary context
 * @param bytes the threshold in bytes; UINT64_MAX keeps everything
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_context_pool_set_release_threshold(gpu_context *ctx, uint64_t bytes);
/**
 * The release threshold of the default memory pool of `ctx`'s device (see
 * gpu_context_pool_set_release_threshold()).
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] bytes the threshold in bytes; set only on success
 * @return GPU_OK, GPU_ERR_INVALID_ARG (bytes NULL), or a code of
 *         gpu_context_pool_set_release_threshold()
 */
GPU_API gpu_status gpu_context_pool_get_release_threshold(gpu_context *ctx, uint64_t *bytes);
/**
 * Releases to the device now the memory of the default pool of `ctx`'s
 * device that is not in use, keeping at least `keep_bytes` reserved
 * (cuMemPoolTrimTo).
 * @param ctx the context; NULL: device 0's primary context
 * @param keep_bytes how many reserved bytes to keep; 0 releases all that is unused
 * @return GPU_OK, or a code of gpu_context_pool_set_release_threshold()
 */
GPU_API gpu_status gpu_context_pool_trim(gpu_context *ctx, size_t keep_bytes);
/**
 * The bytes the default pool of `ctx`'s device has reserved from the device
 * and the bytes of them in use by live allocations now.
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] reserved the bytes reserved, or NULL to skip it; set only on success
 * @param[out] used the bytes in use, or NULL to skip it; set only on success
 * @return GPU_OK, or a code of gpu_context_pool_set_release_threshold()
 */
GPU_API gpu_status gpu_context_pool_get_usage(gpu_context *ctx, uint64_t *reserved, uint64_t *used);

/**
 * Free and total bytes of device memory of `ctx`'s device (NULL: device 0),
 * as the driver sees it now (cuMemGetInfo). Both out-pointers are required.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] free_bytes the free bytes; set only on success
 * @param[out] total_bytes the device's total bytes; set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_context_get_memory_info(gpu_context *ctx, size_t *free_bytes, size_t *total_bytes);

/** What memory an address is (CUmemorytype). */
typedef enum gpu_memory_type {
    GPU_MEMORY_UNKNOWN = 0, /**< not CUDA's */
    GPU_MEMORY_HOST = 1,    /**< page-locked or registered host memory */
    GPU_MEMORY_DEVICE = 2,  /**< device memory */
    GPU_MEMORY_ARRAY = 3,   /**< a CUDA array */
    GPU_MEMORY_UNIFIED = 4, /**< managed memory */
} gpu_memory_type;

/** What gpu_pointer_get_info() found out about an address. */
typedef struct gpu_pointer_info {
    gpu_memory_type type; /**< what memory it is */
    int device;     /**< the ordinal it was allocated or registered on; -1 if unknown */
    bool managed;   /**< managed (cuMemAllocManaged) memory */
    void *context;  /**< the CUcontext it was allocated in (compare gpu_context_get_raw()); NULL if none */
    uint64_t base;  /**< the allocation holding the address: its start, 0 if unknown */
    size_t size;    /**< and its size in bytes, 0 if unknown */
} gpu_pointer_info;

/**
 * What the address `ptr` is, whoever allocated it (PyTorch, the runtime,
 * another library): cuPointerGetAttributes, which needs no current context.
 * An address CUDA does not know is GPU_OK with type GPU_MEMORY_UNKNOWN and
 * device -1. GPU_ERR_INVALID_ARG (out NULL), GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_DRIVER. Any thread.
 * @param ptr the address, of the host or of a device
 * @param[out] out what it is; set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_pointer_get_info(uint64_t ptr, gpu_pointer_info *out);

/**
 * A gpu_buffer over device memory gpushim did not allocate: [ptr, ptr + bytes)
 * of `ctx`'s device (NULL: device 0), which must lie inside one allocation
 * (checked with cuMemGetAddressRange). Every copy and stream operation works
 * on it; gpu_buffer_destroy() frees only the view, never the memory, which
 * must outlive it. GPU_ERR_INVALID_ARG (NULL, 0, bytes past the allocation's
 * end, memory the driver does not know in this context), GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_OUT_OF_MEMORY.
 * @param ctx the context the memory belongs to; NULL: device 0's primary context
 * @param ptr the device address of the view's start; not 0
 * @param bytes the view's length, at least 1
 * @param[out] out the new view, the caller's to free with gpu_buffer_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_wrap(gpu_context *ctx, uint64_t ptr, size_t bytes, gpu_buffer **out);

/**
 * Whether the buffer owns its memory, i.e. gpu_buffer_destroy() frees it.
 * @param buffer the buffer, or NULL
 * @return false for a view from gpu_buffer_wrap() and for NULL; true otherwise
 */
GPU_API bool gpu_buffer_is_owner(const gpu_buffer *buffer);

/**
 * Allocates `bytes` (at least 1) of managed memory in `ctx` (NULL: device 0),
 * reachable from the host and every device (cuMemAllocManaged,
 * CU_MEM_ATTACH_GLOBAL). gpu_buffer_get_managed_data() is the host's view of it:
 * touch it from the host only while no device work uses it (synchronise
 * first). GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED,
 * GPU_ERR_CONTEXT, GPU_ERR_OUT_OF_MEMORY, GPU_ERR_TRANSFER.
 * @param ctx the context; NULL: device 0's primary context
 * @param bytes how many bytes, at least 1
 * @param[out] out the new buffer, the caller's to free with gpu_buffer_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_create_managed(gpu_context *ctx, size_t bytes, gpu_buffer **out);

/**
 * The host address of a managed buffer (the same as its device address).
 * @param buffer a buffer from gpu_buffer_create_managed(), or NULL
 * @return the host address; NULL for any other buffer and for NULL
 */
GPU_API void *gpu_buffer_get_managed_data(const gpu_buffer *buffer);

/** Where gpu_buffer_prefetch_async() moves managed memory, and where advice applies. */
typedef enum gpu_memory_location {
    GPU_LOCATION_DEVICE = 0, /**< the buffer's device */
    GPU_LOCATION_HOST = 1,   /**< the host (CU_DEVICE_CPU) */
} gpu_memory_location;

/**
 * Migrates a managed buffer's pages to `where` on `stream`, ahead of their
 * use (cuMemPrefetchAsync, the 12.0 ABI). The stream must be the buffer's
 * device's. GPU_ERR_INVALID_ARG (NULL, not managed, unknown location, another
 * device's stream), GPU_ERR_NOT_SUPPORTED (the device cannot: no concurrent
 * managed access), GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 * @param buffer a buffer from gpu_buffer_create_managed(); all of it moves
 * @param where where its pages go
 * @param stream the stream to queue the migration on; GPU_DEVICE0_LEGACY_STREAM: device 0's legacy stream
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_buffer_prefetch_async(gpu_buffer *buffer, gpu_memory_location where, gpu_stream *stream);

/** cuMemAdvise's advice (CUmem_advise), with the driver's values. */
typedef enum gpu_memory_advice {
    GPU_ADVISE_SET_READ_MOSTLY = 1,          /**< the memory is mostly read: each reader may keep a copy */
    GPU_ADVISE_UNSET_READ_MOSTLY = 2,        /**< undoes GPU_ADVISE_SET_READ_MOSTLY */
    GPU_ADVISE_SET_PREFERRED_LOCATION = 3,   /**< keep the pages at the location where possible */
    GPU_ADVISE_UNSET_PREFERRED_LOCATION = 4, /**< undoes GPU_ADVISE_SET_PREFERRED_LOCATION */
    GPU_ADVISE_SET_ACCESSED_BY = 5,          /**< the location accesses the memory: keep it mapped there */
    GPU_ADVISE_UNSET_ACCESSED_BY = 6,        /**< undoes GPU_ADVISE_SET_ACCESSED_BY */
} gpu_memory_advice;

/**
 * Advises the driver how a managed buffer will be used, for `where` (the
 * buffer's device or the host) (cuMemAdvise, the 12.0 ABI). GPU_ERR_INVALID_ARG
 * (NULL, not managed, unknown advice or location), GPU_ERR_NOT_SUPPORTED,
 * GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 * @param buffer a buffer from gpu_buffer_create_managed(); the advice covers all of it
 * @param advice the advice
 * @param where the location the advice is about
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_buffer_advise(gpu_buffer *buffer, gpu_memory_advice advice, gpu_memory_location where);

/**
 * A buffer's interprocess handle: the driver's (CUipcMemHandle) and the
 * buffer's size. Plain bytes: send them to another process any way you like.
 */
typedef struct gpu_ipc_handle {
    unsigned char cuda[64]; /**< the driver's CUipcMemHandle, as it gave it */
    uint64_t size;          /**< the buffer's size in bytes */
} gpu_ipc_handle;

/**
 * The handle another process opens `buffer` with (cuIpcGetMemHandle). Only
 * memory from gpu_buffer_create() can be exported. The handle is valid while
 * the buffer lives and its process runs. GPU_ERR_INVALID_ARG (NULL, a buffer of
 * another kind), GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param buffer a buffer from gpu_buffer_create()
 * @param[out] out the handle; set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_buffer_get_ipc_handle(const gpu_buffer *buffer, gpu_ipc_handle *out);

/**
 * Opens another process's buffer in `ctx` (NULL: device 0), with peer access
 * enabled as needed (cuIpcOpenMemHandle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS).
 * Destroying the buffer closes the mapping (cuIpcCloseMemHandle); the memory
 * stays the exporter's. A handle of this very process, or of one that has
 * exited or freed the buffer, is refused by the driver: GPU_ERR_DRIVER (or
 * GPU_ERR_INVALID_ARG, GPU_ERR_CONTEXT) with the driver's reason in
 * gpu_last_error_get_message(). The size in the handle is the other process's claim:
 * the allocation's own size is asked of the driver (cuMemGetAddressRange on
 * the opened pointer), and a claim beyond it is GPU_ERR_INVALID_ARG, the
 * mapping closed again, so that no bounds check of gpushim's ever trusts a
 * larger size. GPU_ERR_INVALID_ARG (NULL, size 0, a size beyond the
 * allocation), GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_OUT_OF_MEMORY.
 * @param ctx the context to map it in; NULL: device 0's primary context
 * @param handle the handle from gpu_buffer_get_ipc_handle() in the exporting process
 * @param[out] out the new buffer, of the handle's size (at most the
 *             allocation's), the caller's to free with gpu_buffer_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_open_ipc(gpu_context *ctx, const gpu_ipc_handle *handle,
                                                     gpu_buffer **out);
/* ---- end of memory and interop ---- */

#ifdef __cplusplus
}
#endif

#endif
