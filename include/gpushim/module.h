/* SPDX-License-Identifier: MIT */
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
 * be NUL-terminated. The driver is given no size and reads a binary image as
 * far as its headers say, so a fatbin or ELF64 cubin shorter than that (its
 * program or section header table, at any offset the image claims, not
 * wholly inside `size` bytes) is GPU_ERR_INVALID_ARG before the driver sees
 * it; so is a fatbin wrapper
 * (__fatBinC_Wrapper_t, a pointer rather than an image). When the driver
 * rejects the image, GPU_ERR_MODULE_LOAD and gpu_last_error_get_message() holds the
 * driver's JIT log.
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
GPU_API void *gpu_function_get_raw(const gpu_function *function);

/**
 * The device address and size in bytes of the module's `__device__` or
 * `__constant__` variable `name` (cuModuleGetGlobal). Either out pointer may
 * be NULL; each is written only on success. Thread-safe.
 * GPU_ERR_INVALID_ARG (NULL module or name, both outs NULL),
 * GPU_ERR_FUNCTION_NOT_FOUND (the module has no global of that name),
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param module the module
 * @param name the variable's (mangled, for C++) name
 * @param[out] address its device address, or NULL to skip it
 * @param[out] bytes its size in bytes, or NULL to skip it
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_module_get_global(gpu_module *module, const char *name, uint64_t *address, size_t *bytes);

/**
 * Copies `bytes` from host memory to the start of the module's global `name`
 * (a `__constant__` a kernel then reads), synchronously on the legacy default
 * stream, as gpu_buffer_copy_from_host() does. Zero bytes looks the global up
 * and copies nothing. GPU_ERR_INVALID_ARG (NULL, more bytes than the global
 * holds), GPU_ERR_FUNCTION_NOT_FOUND, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT,
 * GPU_ERR_TRANSFER.
 * @param module the module
 * @param name the global's (mangled, for C++) name
 * @param src host memory holding at least `bytes`; may be NULL when bytes is 0
 * @param bytes how many bytes; at most the global's size
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_module_copy_to_global(gpu_module *module, const char *name, const void *src, size_t bytes);

/**
 * Copies the first `bytes` of the module's global `name` to host memory; as gpu_module_copy_to_global().
 * @param module the module
 * @param name the global's (mangled, for C++) name
 * @param dst host memory with room for `bytes`; may be NULL when bytes is 0
 * @param bytes how many bytes; at most the global's size
 * @return as gpu_module_copy_to_global()
 */
GPU_API gpu_status gpu_module_copy_from_global(gpu_module *module, const char *name, void *dst, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
