/*
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
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_create(gpu_context *ctx, size_t bytes, gpu_buffer **out);

/** Frees the buffer; NULL does nothing. Work using it must be done. */
GPU_API void gpu_buffer_destroy(gpu_buffer *buffer);

/** The device address (CUdeviceptr); 0 for NULL. */
GPU_API uint64_t gpu_buffer_device_ptr(const gpu_buffer *buffer);

/** The size in bytes; 0 for NULL. */
GPU_API size_t gpu_buffer_size(const gpu_buffer *buffer);

/** The buffer's context (borrowed). */
GPU_API gpu_context *gpu_buffer_context(const gpu_buffer *buffer);

/**
 * Copies `bytes` from host memory to the start of the buffer, synchronously,
 * on the legacy default stream (cuMemcpyHtoD): ordered against streams from
 * gpu_stream_create(), NOT against non-blocking streams. Zero bytes is a
 * no-op. GPU_ERR_INVALID_ARG (NULL, or more bytes than the buffer holds),
 * GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 */
GPU_API gpu_status gpu_buffer_copy_from_host(gpu_buffer *buffer, const void *src, size_t bytes);

/** Copies the first `bytes` of the buffer to host memory; as gpu_buffer_copy_from_host(). */
GPU_API gpu_status gpu_buffer_copy_to_host(const gpu_buffer *buffer, void *dst, size_t bytes);

/**
 * Stream-ordered copies: queued on `stream` after its earlier work, returning
 * before the copy is done (truly asynchronous only from page-locked host
 * memory; from pageable memory the driver may stage the data first).
 * The host memory must stay valid and unchanged until the stream reaches the
 * copy. Same returns as the synchronous copies.
 */
GPU_API gpu_status gpu_buffer_copy_from_host_async(gpu_buffer *buffer, const void *src, size_t bytes,
                                                   gpu_stream *stream);
GPU_API gpu_status gpu_buffer_copy_to_host_async(const gpu_buffer *buffer, void *dst, size_t bytes,
                                                 gpu_stream *stream);

/**
 * Copies `bytes` from the start of `src` to the start of `dst`, on the stream.
 * Buffers of two devices are copied with cuMemcpyPeerAsync, directly where peer
 * access is enabled and staged by the driver where it is not.
 * GPU_ERR_INVALID_ARG (NULL, too many bytes), GPU_ERR_NOT_SUPPORTED, GPU_ERR_TRANSFER.
 */
GPU_API gpu_status gpu_buffer_copy_async(gpu_buffer *dst, const gpu_buffer *src, size_t bytes,
                                         gpu_stream *stream);

/**
 * Allocates `bytes` (at least 1) of page-locked host memory, usable from every
 * context (cuMemHostAlloc with CU_MEMHOSTALLOC_PORTABLE).
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_CONTEXT, GPU_ERR_OUT_OF_MEMORY.
 */
GPU_API GPU_NODISCARD gpu_status gpu_host_buffer_create(gpu_context *ctx, size_t bytes, gpu_host_buffer **out);

/**
 * Page-locks existing host memory [ptr, ptr + bytes) (cuMemHostRegister,
 * portable). The memory stays the caller's; destroying the object unregisters
 * it. Already registered memory is GPU_ERR_INVALID_ARG, and so is a range
 * that wraps around the address space (ptr + bytes overflows, e.g. bytes ==
 * SIZE_MAX), refused before the driver is asked.
 */
GPU_API GPU_NODISCARD gpu_status gpu_host_buffer_register(gpu_context *ctx, void *ptr, size_t bytes,
                                                          gpu_host_buffer **out);

/** Frees (or unregisters) the host buffer; NULL does nothing. */
GPU_API void gpu_host_buffer_destroy(gpu_host_buffer *buffer);

/** The host address; NULL for NULL. */
GPU_API void *gpu_host_buffer_data(const gpu_host_buffer *buffer);

/** The size in bytes; 0 for NULL. */
GPU_API size_t gpu_host_buffer_size(const gpu_host_buffer *buffer);

/* ---- Memory and interop (issue 12): stream-ordered allocation, foreign pointers, managed memory, IPC ---- */

/**
 * Allocates `bytes` (at least 1) of device memory on `stream` (cuMemAllocAsync),
 * from the default memory pool of the stream's device: the memory may be used
 * by work queued on the stream after this call (or on streams ordered after
 * it). GPU_DEFAULT_STREAM allocates on device 0's legacy stream. Free it with
 * gpu_buffer_free_async() (or gpu_buffer_destroy(), which frees it at once,
 * waiting for the device). GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED (no stream-ordered allocator), GPU_ERR_CONTEXT,
 * GPU_ERR_OUT_OF_MEMORY, GPU_ERR_TRANSFER. Any thread.
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
 */
GPU_API gpu_status gpu_buffer_free_async(gpu_buffer *buffer, gpu_stream *stream);

/**
 * The default memory pool of `ctx`'s device (NULL: device 0), which
 * gpu_buffer_create_async() draws from. Memory freed to the pool stays
 * reserved for reuse up to the release threshold (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
 * 0 by default: everything is released at the next synchronisation);
 * gpu_context_pool_trim() releases what is not in use beyond `keep_bytes` now.
 * gpu_context_pool_usage() reads the bytes reserved from the device and in use
 * (either out-pointer may be NULL). All: GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED,
 * GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 */
GPU_API gpu_status gpu_context_pool_set_release_threshold(gpu_context *ctx, uint64_t bytes);
GPU_API gpu_status gpu_context_pool_release_threshold(gpu_context *ctx, uint64_t *bytes);
GPU_API gpu_status gpu_context_pool_trim(gpu_context *ctx, size_t keep_bytes);
GPU_API gpu_status gpu_context_pool_usage(gpu_context *ctx, uint64_t *reserved, uint64_t *used);

/**
 * Free and total bytes of device memory of `ctx`'s device (NULL: device 0),
 * as the driver sees it now (cuMemGetInfo). Both out-pointers are required.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 */
GPU_API gpu_status gpu_context_memory_info(gpu_context *ctx, size_t *free_bytes, size_t *total_bytes);

/* What memory an address is (CUmemorytype; GPU_MEMORY_UNKNOWN: not CUDA's). */
typedef enum gpu_memory_type {
    GPU_MEMORY_UNKNOWN = 0,
    GPU_MEMORY_HOST = 1,    /* page-locked or registered host memory */
    GPU_MEMORY_DEVICE = 2,  /* device memory */
    GPU_MEMORY_ARRAY = 3,   /* a CUDA array */
    GPU_MEMORY_UNIFIED = 4, /* managed memory */
} gpu_memory_type;

typedef struct gpu_pointer_info {
    gpu_memory_type type;
    int device;     /* the ordinal it was allocated or registered on; -1 if unknown */
    bool managed;   /* managed (cuMemAllocManaged) memory */
    void *context;  /* the CUcontext it was allocated in (compare gpu_context_raw()); NULL if none */
    uint64_t base;  /* the allocation holding the address: its start, 0 if unknown */
    size_t size;    /* and its size */
} gpu_pointer_info;

/**
 * What the address `ptr` is, whoever allocated it (PyTorch, the runtime,
 * another library): cuPointerGetAttributes, which needs no current context.
 * An address CUDA does not know is GPU_OK with type GPU_MEMORY_UNKNOWN and
 * device -1. GPU_ERR_INVALID_ARG (out NULL), GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_DRIVER. Any thread.
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
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_wrap(gpu_context *ctx, uint64_t ptr, size_t bytes, gpu_buffer **out);

/** Whether the buffer owns its memory (false for gpu_buffer_wrap() and NULL). */
GPU_API bool gpu_buffer_is_owner(const gpu_buffer *buffer);

/**
 * Allocates `bytes` (at least 1) of managed memory in `ctx` (NULL: device 0),
 * reachable from the host and every device (cuMemAllocManaged,
 * CU_MEM_ATTACH_GLOBAL). gpu_buffer_managed_data() is the host's view of it:
 * touch it from the host only while no device work uses it (synchronise
 * first). GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED,
 * GPU_ERR_CONTEXT, GPU_ERR_OUT_OF_MEMORY, GPU_ERR_TRANSFER.
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_create_managed(gpu_context *ctx, size_t bytes, gpu_buffer **out);

/** The host address of a managed buffer; NULL for any other buffer and for NULL. */
GPU_API void *gpu_buffer_managed_data(const gpu_buffer *buffer);

/* Where gpu_buffer_prefetch_async() moves managed memory, and where advice applies. */
typedef enum gpu_memory_location {
    GPU_LOCATION_DEVICE = 0, /* the buffer's device */
    GPU_LOCATION_HOST = 1,   /* the host (CU_DEVICE_CPU) */
} gpu_memory_location;

/**
 * Migrates a managed buffer's pages to `where` on `stream`, ahead of their
 * use (cuMemPrefetchAsync, the 12.0 ABI). The stream must be the buffer's
 * device's. GPU_ERR_INVALID_ARG (NULL, not managed, unknown location, another
 * device's stream), GPU_ERR_NOT_SUPPORTED (the device cannot: no concurrent
 * managed access), GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 */
GPU_API gpu_status gpu_buffer_prefetch_async(gpu_buffer *buffer, gpu_memory_location where, gpu_stream *stream);

/* cuMemAdvise's advice (CUmem_advise). */
typedef enum gpu_memory_advice {
    GPU_ADVISE_SET_READ_MOSTLY = 1,
    GPU_ADVISE_UNSET_READ_MOSTLY = 2,
    GPU_ADVISE_SET_PREFERRED_LOCATION = 3,
    GPU_ADVISE_UNSET_PREFERRED_LOCATION = 4,
    GPU_ADVISE_SET_ACCESSED_BY = 5,
    GPU_ADVISE_UNSET_ACCESSED_BY = 6,
} gpu_memory_advice;

/**
 * Advises the driver how a managed buffer will be used, for `where` (the
 * buffer's device or the host) (cuMemAdvise, the 12.0 ABI). GPU_ERR_INVALID_ARG
 * (NULL, not managed, unknown advice or location), GPU_ERR_NOT_SUPPORTED,
 * GPU_ERR_CONTEXT, GPU_ERR_TRANSFER.
 */
GPU_API gpu_status gpu_buffer_advise(gpu_buffer *buffer, gpu_memory_advice advice, gpu_memory_location where);

/*
 * A buffer's interprocess handle: the driver's (CUipcMemHandle) and the
 * buffer's size. Plain bytes: send them to another process any way you like.
 */
typedef struct gpu_ipc_handle {
    unsigned char cuda[64];
    uint64_t size;
} gpu_ipc_handle;

/**
 * The handle another process opens `buffer` with (cuIpcGetMemHandle). Only
 * memory from gpu_buffer_create() can be exported. The handle is valid while
 * the buffer lives and its process runs. GPU_ERR_INVALID_ARG (NULL, a buffer of
 * another kind), GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 */
GPU_API gpu_status gpu_buffer_ipc_handle(const gpu_buffer *buffer, gpu_ipc_handle *out);

/**
 * Opens another process's buffer in `ctx` (NULL: device 0), with peer access
 * enabled as needed (cuIpcOpenMemHandle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS).
 * Destroying the buffer closes the mapping (cuIpcCloseMemHandle); the memory
 * stays the exporter's. A handle of this very process, or of one that has
 * exited or freed the buffer, is refused by the driver: GPU_ERR_DRIVER (or
 * GPU_ERR_INVALID_ARG, GPU_ERR_CONTEXT) with the driver's reason in
 * gpu_last_error(). GPU_ERR_INVALID_ARG (NULL, size 0), GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_OUT_OF_MEMORY.
 */
GPU_API GPU_NODISCARD gpu_status gpu_buffer_open_ipc(gpu_context *ctx, const gpu_ipc_handle *handle,
                                                     gpu_buffer **out);
/* ---- end of memory and interop (issue 12) ---- */

#ifdef __cplusplus
}
#endif

#endif
