/*
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
