/*
 * Modules (PTX, cubin or fatbin images), their functions, and launches.
 */
#ifndef GPUSHIM_MODULE_H
#define GPUSHIM_MODULE_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A launch's shape. Every dimension must be at least 1; a block may hold at
 * most 1024 threads (x and y at most 1024, z at most 64); grid y and z at most
 * 65535. Anything else is GPU_ERR_INVALID_ARG before the driver sees it.
 */
typedef struct gpu_launch_config {
    unsigned grid[3];
    unsigned block[3];
    unsigned shared_mem_bytes;
} gpu_launch_config;

/** A one-dimensional launch of `blocks` blocks of `threads` threads. */
GPU_API gpu_launch_config gpu_launch_config_1d(unsigned blocks, unsigned threads);

/** GPU_OK if the configuration is possible, else GPU_ERR_INVALID_ARG with the reason. */
GPU_API gpu_status gpu_launch_config_check(const gpu_launch_config *config);

/**
 * Loads a module from memory into `ctx` (NULL: device 0): PTX text, or a
 * cubin or fatbin image. `size` is the image's length in bytes; PTX need not
 * be NUL-terminated. When the driver rejects the image, GPU_ERR_MODULE_LOAD
 * and gpu_last_error() holds the driver's JIT log.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NO_DEVICE, GPU_ERR_CONTEXT,
 * GPU_ERR_MODULE_LOAD, GPU_ERR_OUT_OF_MEMORY.
 */
GPU_API GPU_NODISCARD gpu_status gpu_module_load_data(gpu_context *ctx, const void *image, size_t size,
                                                      gpu_module **out);

/** The largest module file gpu_module_load_file() reads: 1 GiB. */
#define GPU_MODULE_FILE_MAX (1024LL * 1024 * 1024)

/**
 * Loads a module from a file: gpushim reads it, then as gpu_module_load_data().
 * `path` must name a regular file (symbolic links are followed) of 1 to
 * GPU_MODULE_FILE_MAX bytes. It is opened with O_NONBLOCK | O_CLOEXEC, so a
 * FIFO or device never blocks the call, and read once at the size fstat
 * gives. A directory, FIFO, device or socket is GPU_ERR_INVALID_ARG naming the
 * file type, checked before anything is read; so is a file over the cap. A
 * file that cannot be opened or read, or is empty, is GPU_ERR_MODULE_LOAD
 * with the reason. Any thread; the file is not kept open.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NO_DEVICE, GPU_ERR_CONTEXT,
 * GPU_ERR_MODULE_LOAD, GPU_ERR_OUT_OF_MEMORY.
 */
GPU_API GPU_NODISCARD gpu_status gpu_module_load_file(gpu_context *ctx, const char *path,
                                                      gpu_module **out);

/** Unloads the module; its functions become invalid. NULL does nothing. */
GPU_API void gpu_module_destroy(gpu_module *module);

/**
 * Looks up a kernel by name, once per name: later calls for the name return
 * the same gpu_function without asking the driver. The function belongs to the
 * module. Thread-safe. GPU_ERR_INVALID_ARG, GPU_ERR_CONTEXT,
 * GPU_ERR_FUNCTION_NOT_FOUND.
 */
GPU_API gpu_status gpu_module_get_function(gpu_module *module, const char *name, gpu_function **out);

/** The CUfunction. */
GPU_API void *gpu_function_raw(const gpu_function *function);

/**
 * Launches the module's kernel `name` on the stream. `args` holds one
 * pointer to each kernel parameter, as cuLaunchKernel takes them; NULL for a
 * kernel without parameters. The caller guarantees they match the kernel.
 * GPU_ERR_INVALID_ARG, GPU_ERR_FUNCTION_NOT_FOUND, GPU_ERR_CONTEXT, GPU_ERR_KERNEL_LAUNCH.
 */
GPU_API gpu_status gpu_stream_launch_kernel(gpu_stream *stream, gpu_module *module, const char *name,
                                            const gpu_launch_config *config, void **args);

/** As gpu_stream_launch_kernel(), with a function already looked up. */
GPU_API gpu_status gpu_stream_launch_function(gpu_stream *stream, gpu_function *function,
                                              const gpu_launch_config *config, void **args);

#ifdef __cplusplus
}
#endif

#endif
