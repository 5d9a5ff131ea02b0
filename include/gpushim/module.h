/** @file
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
 * @param ctx the context; NULL: device 0's primary context
 * @param image the image; gpushim does not keep it
 * @param size its length in bytes
 * @param[out] out the new module, the caller's to free with gpu_module_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_module_load_data(gpu_context *ctx, const void *image, size_t size,
                                                      gpu_module **out);

/**
 * Loads a module from a file (read by gpushim, then as gpu_module_load_data()).
 * @param ctx the context; NULL: device 0's primary context
 * @param path the file's path
 * @param[out] out the new module, the caller's to free with gpu_module_destroy(); set only on success
 * @return GPU_OK, GPU_ERR_INVALID_ARG, GPU_ERR_MODULE_LOAD (the file cannot be read), or a code of
 *         gpu_module_load_data()
 */
GPU_API GPU_NODISCARD gpu_status gpu_module_load_file(gpu_context *ctx, const char *path,
                                                      gpu_module **out);

/**
 * Unloads the module; its functions become invalid. NULL does nothing.
 * @param module the module, or NULL
 */
GPU_API void gpu_module_destroy(gpu_module *module);

/**
 * Looks up a kernel by name, once per name: later calls for the name return
 * the same gpu_function without asking the driver. The function belongs to the
 * module. Thread-safe. GPU_ERR_INVALID_ARG, GPU_ERR_CONTEXT,
 * GPU_ERR_FUNCTION_NOT_FOUND.
 * @param module the module
 * @param name the kernel's (mangled, for C++) name
 * @param[out] out set to the function, owned by the module; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_module_get_function(gpu_module *module, const char *name, gpu_function **out);

/**
 * The CUfunction.
 * @param function the function, or NULL
 * @return the CUfunction, or NULL for NULL
 */
GPU_API void *gpu_function_raw(const gpu_function *function);

#ifdef __cplusplus
}
#endif

#endif
