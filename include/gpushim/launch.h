/* SPDX-License-Identifier: MIT */
/** @file
 * Kernel launches on streams, and their configuration.
 */
#ifndef GPUSHIM_LAUNCH_H
#define GPUSHIM_LAUNCH_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A launch's shape. Every dimension must be at least 1; a block may hold at
 * most 1024 threads (x and y at most 1024, z at most 64); grid y and z at most
 * 65535. Anything else is GPU_ERR_INVALID_ARG before the driver sees it:
 * during a stream capture, a launch the driver itself refuses invalidates the
 * capture (CUDA 13.0 driver, measured by gpu-capture), and one refused here
 * leaves it active.
 *
 * More than 48 KiB (GPU_SHARED_MEMORY_DEFAULT_MAX) of dynamic shared memory
 * needs the function's opt-in (gpu_function_set_attribute() with
 * GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES); without it, or beyond what the
 * device allows a block, the launch is GPU_ERR_INVALID_ARG before the driver
 * sees it, naming the limit.
 *
 * The fields after shared_mem_bytes ask for more than a plain launch; zero
 * (what an initializer that leaves them out gives) means "not asked for".
 * Any of them makes the launch a cuLaunchKernelEx; a cooperative launch
 * alone falls back to cuLaunchCooperativeKernel on a driver without it.
 */
typedef struct gpu_launch_config {
    unsigned grid[3];          /**< blocks in x, y, z */
    unsigned block[3];         /**< threads a block in x, y, z */
    unsigned shared_mem_bytes; /**< dynamic shared memory a block, in bytes */
    /**
     * Thread-block cluster dimensions in blocks (compute capability 9.0):
     * all 0 for none; otherwise each at least 1 and dividing the grid's.
     */
    unsigned cluster[3];
    /** Every block resident at once, so that they may meet at a grid-wide barrier. */
    bool cooperative;
    /**
     * Programmatic stream serialization: the kernel may begin before the
     * previous kernel on the stream ends (it waits with griddepcontrol.wait
     * where it needs that kernel's results; compute capability 9.0).
     */
    bool programmatic_serialization;
    /** The launch's priority (lower numbers run first; 0 is the default). */
    int priority;
} gpu_launch_config;

/**
 * A one-dimensional launch of `blocks` blocks of `threads` threads.
 * @param blocks the grid's x dimension
 * @param threads the block's x dimension
 * @return the configuration, y and z 1 and no dynamic shared memory; not checked
 */
GPU_API gpu_launch_config gpu_launch_config_1d(unsigned blocks, unsigned threads);

/**
 * GPU_OK if the configuration is possible, else GPU_ERR_INVALID_ARG with the
 * reason. Checks the shape (and the cluster's) only: the shared memory a
 * function allows is checked at launch.
 * @param config the configuration
 * @return GPU_OK or GPU_ERR_INVALID_ARG
 */
GPU_API gpu_status gpu_launch_config_check(const gpu_launch_config *config);

/**
 * Launches the module's kernel `name` on the stream. `args` holds one
 * pointer to each kernel parameter, as cuLaunchKernel takes them; NULL for a
 * kernel without parameters. The caller guarantees they match the kernel.
 * GPU_ERR_INVALID_ARG, GPU_ERR_FUNCTION_NOT_FOUND, GPU_ERR_CONTEXT, GPU_ERR_KERNEL_LAUNCH.
 * @param stream the stream to launch on
 * @param module the module holding the kernel
 * @param name the kernel's name
 * @param config the launch's shape
 * @param args one pointer to each kernel parameter, or NULL
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_launch_kernel(gpu_stream *stream, gpu_module *module, const char *name,
                                            const gpu_launch_config *config, void **args);

/**
 * As gpu_stream_launch_kernel(), with a function already looked up.
 * @param stream the stream to launch on
 * @param function the kernel
 * @param config the launch's shape
 * @param args one pointer to each kernel parameter, or NULL
 * @return as gpu_stream_launch_kernel()
 */
GPU_API gpu_status gpu_stream_launch_function(gpu_stream *stream, gpu_function *function,
                                              const gpu_launch_config *config, void **args);

#ifdef __cplusplus
}
#endif

#endif
