/*
 * Modules (PTX, cubin or fatbin images) and their functions; launch.h
 * launches the functions on streams.
 */
#ifndef GPUSHIM_MODULE_H
#define GPUSHIM_MODULE_H

#include "launch.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif
