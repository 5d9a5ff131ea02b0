/* SPDX-License-Identifier: MIT */
/** @file
 * A kernel function's attributes and occupancy: what it uses (registers,
 * shared, local and constant memory), the opt-in to more than 48 KiB of
 * dynamic shared memory, and how many of its blocks fit on a multiprocessor.
 * Functions come from gpu_module_get_function() (module.h).
 */
#ifndef GPUSHIM_FUNCTION_H
#define GPUSHIM_FUNCTION_H

#include "launch.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A function attribute; the values are CUfunction_attribute's. */
typedef enum gpu_function_attribute {
    GPU_FUNCTION_ATTR_MAX_THREADS_PER_BLOCK = 0,       /**< most threads a block of it may have (read) */
    GPU_FUNCTION_ATTR_SHARED_BYTES = 1,                /**< static shared memory, bytes (read) */
    GPU_FUNCTION_ATTR_CONST_BYTES = 2,                 /**< user constant memory, bytes (read) */
    GPU_FUNCTION_ATTR_LOCAL_BYTES = 3,                 /**< local memory per thread, bytes (read) */
    GPU_FUNCTION_ATTR_NUM_REGS = 4,                    /**< registers per thread (read) */
    GPU_FUNCTION_ATTR_PTX_VERSION = 5,                 /**< PTX virtual architecture, major*10+minor (read) */
    GPU_FUNCTION_ATTR_BINARY_VERSION = 6,              /**< binary architecture, major*10+minor (read) */
    GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES = 8,    /**< most dynamic shared memory a launch may ask (read, set) */
    GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT = 9    /**< preferred shared-memory share of L1, percent; -1 none (read, set) */
} gpu_function_attribute;

/** Dynamic shared memory a launch may use without raising GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES. */
#define GPU_SHARED_MEMORY_DEFAULT_MAX (48u * 1024u)

/**
 * Reads attribute `attribute` of the function into *out (cuFuncGetAttribute).
 * Any thread. GPU_ERR_INVALID_ARG (NULL, an attribute outside the enum),
 * GPU_ERR_NOT_SUPPORTED (a driver without the entry point), GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param function the function
 * @param attribute which attribute
 * @param[out] out its value; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_function_get_attribute(gpu_function *function, gpu_function_attribute attribute, int *out);

/**
 * Sets attribute `attribute` of the function (cuFuncSetAttribute). Only
 * GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES (0 up to the device's
 * GPU_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN less the function's static
 * shared memory: the opt-in a launch of more than 48 KiB needs) and
 * GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT (-1 to 100) can be set. The setting
 * holds for every later launch of the function, from any thread.
 * GPU_ERR_INVALID_ARG (NULL, a read-only attribute, a value out of range, which
 * the driver refuses too), GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param function the function
 * @param attribute GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES or GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT
 * @param value the new value: bytes, or percent (-1 for no preference)
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_function_set_attribute(gpu_function *function, gpu_function_attribute attribute, int value);

/** A preferred split of on-chip memory between L1 and shared memory; the values are CUfunc_cache's. */
typedef enum gpu_cache_config {
    GPU_CACHE_PREFER_NONE = 0,   /**< no preference */
    GPU_CACHE_PREFER_SHARED = 1, /**< more shared memory, less L1 */
    GPU_CACHE_PREFER_L1 = 2,     /**< more L1, less shared memory */
    GPU_CACHE_PREFER_EQUAL = 3   /**< as much of each */
} gpu_cache_config;

/**
 * Sets the function's preferred cache configuration (cuFuncSetCacheConfig), a
 * hint the driver may ignore. GPU_ERR_INVALID_ARG (NULL, a value outside the
 * enum), GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param function the function
 * @param config the preference
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_function_set_cache_config(gpu_function *function, gpu_cache_config config);

/**
 * How many blocks of `block_size` threads, each with `dynamic_shared_bytes` of
 * dynamic shared memory, can be resident on one multiprocessor at once
 * (cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, default flags); 0
 * when not even one fits. A grid of at most this times the multiprocessor
 * count has every block resident together. GPU_ERR_INVALID_ARG (NULL,
 * block_size outside 1..1024), GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param function the function
 * @param block_size threads a block, 1 to 1024
 * @param dynamic_shared_bytes dynamic shared memory a block, in bytes
 * @param[out] out the number of blocks; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_function_get_max_active_blocks(gpu_function *function, unsigned block_size,
                                                  size_t dynamic_shared_bytes, int *out);

/**
 * The block size that maximises the function's occupancy with a constant
 * `dynamic_shared_bytes` per block, at most `block_size_limit` threads (0: no
 * limit), into *block_size, and the smallest grid that reaches that
 * occupancy on the whole device into *min_grid_size
 * (cuOccupancyMaxPotentialBlockSize, whose types these are). Both are written
 * only on success. GPU_ERR_INVALID_ARG (NULL, block_size_limit outside 0 to
 * 1024), GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param function the function
 * @param dynamic_shared_bytes dynamic shared memory a block, in bytes, whatever the block size
 * @param block_size_limit the largest block size to consider, 1 to 1024; 0: no limit
 * @param[out] min_grid_size the smallest grid, in blocks, that reaches the occupancy
 * @param[out] block_size the block size, in threads
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_function_get_occupancy_block_size(gpu_function *function, size_t dynamic_shared_bytes,
                                                     int block_size_limit, int *min_grid_size, int *block_size);

/**
 * How many clusters of `config->cluster` blocks, each block of `config->block`
 * threads with `config->shared_mem_bytes` of dynamic shared memory, can be
 * resident on the device at once (cuOccupancyMaxActiveClusters); 0 when none
 * fits. GPU_ERR_INVALID_ARG (NULL, a configuration gpu_launch_config_check()
 * refuses, no cluster asked for), GPU_ERR_NOT_SUPPORTED (no entry point, or a
 * device without cluster launches), GPU_ERR_CONTEXT, GPU_ERR_DRIVER.
 * @param function the function
 * @param config the launch's shape, with a cluster
 * @param[out] out the number of clusters; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_function_get_max_active_clusters(gpu_function *function, const gpu_launch_config *config,
                                                    int *out);

#ifdef __cplusplus
}
#endif

#endif
