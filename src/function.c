/* SPDX-License-Identifier: MIT */
/*
 * A kernel function's attributes, and occupancy.
 */
#include "launch_ex.h"

_Static_assert((int)GPU_FUNCTION_ATTR_MAX_THREADS_PER_BLOCK == (int)CUABI_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK &&
                   (int)GPU_FUNCTION_ATTR_SHARED_BYTES == (int)CUABI_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES &&
                   (int)GPU_FUNCTION_ATTR_CONST_BYTES == (int)CUABI_FUNC_ATTRIBUTE_CONST_SIZE_BYTES &&
                   (int)GPU_FUNCTION_ATTR_LOCAL_BYTES == (int)CUABI_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES &&
                   (int)GPU_FUNCTION_ATTR_NUM_REGS == (int)CUABI_FUNC_ATTRIBUTE_NUM_REGS &&
                   (int)GPU_FUNCTION_ATTR_PTX_VERSION == (int)CUABI_FUNC_ATTRIBUTE_PTX_VERSION &&
                   (int)GPU_FUNCTION_ATTR_BINARY_VERSION == (int)CUABI_FUNC_ATTRIBUTE_BINARY_VERSION &&
                   (int)GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES == (int)CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
                   (int)GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT == (int)CUABI_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
               "gpu_function_attribute is CUfunction_attribute");
_Static_assert((int)GPU_CACHE_PREFER_NONE == (int)CUABI_FUNC_CACHE_PREFER_NONE &&
                   (int)GPU_CACHE_PREFER_SHARED == (int)CUABI_FUNC_CACHE_PREFER_SHARED &&
                   (int)GPU_CACHE_PREFER_L1 == (int)CUABI_FUNC_CACHE_PREFER_L1 &&
                   (int)GPU_CACHE_PREFER_EQUAL == (int)CUABI_FUNC_CACHE_PREFER_EQUAL,
               "gpu_cache_config is CUfunc_cache");

static bool is_attribute(gpu_function_attribute a)
{
    return (unsigned)a <= GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT && (int)a != (int)CUABI_FUNC_ATTRIBUTE_CACHE_MODE_CA;
}

/* Opens a call in the function's context (made current: occupancy needs it). */
static bool function_call(struct gpu__call *c, const gpu_function *f)
{
    return gpu__call_object(c, f->module->obj.ctx);
}

gpu_status gpu_function_get_attribute(gpu_function *function, gpu_function_attribute attribute, int *out)
{
    struct gpu__call c;
    int value = 0;
    gpu_status st;

    GPU__NOT_NULL(function, out);
    if (!is_attribute(attribute))
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "attribute %d is not a gpu_function_attribute", (int)attribute);
    if (!function_call(&c, function))
        return c.st;
    st = GPU__INVOKE_END(&c, cuFuncGetAttribute, GPU_ERR_DRIVER, &value, (cuabi_function_attribute)attribute,
                         function->cu);
    if (st == GPU_OK)
        *out = value;
    return st;
}

gpu_status gpu_function_set_attribute(gpu_function *function, gpu_function_attribute attribute, int value)
{
    struct gpu__call c;
    gpu_status st;

    GPU__NOT_NULL(function);
    if (attribute == GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES && value < 0)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "%d bytes of dynamic shared memory", value);
    else if (attribute == GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT && (value < -1 || value > 100))
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "a carveout of %d%%: -1 or 0 to 100", value);
    else if (attribute != GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES && attribute != GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "attribute %d cannot be set", (int)attribute);
    if (!function_call(&c, function))
        return c.st;
    st = GPU__INVOKE_RAW(&c, cuFuncSetAttribute, function->cu, (cuabi_function_attribute)attribute, value);
    /* A value the device cannot have (more shared memory than it allows) is the caller's. */
    if (st == GPU_OK)
        st = GPU__RESULT(&c, cuFuncSetAttribute,
                         c.rc == CUABI_ERROR_INVALID_VALUE ? GPU_ERR_INVALID_ARG : GPU_ERR_DRIVER);
    return gpu__call_end(&c, st);
}

gpu_status gpu_function_set_cache_config(gpu_function *function, gpu_cache_config config)
{
    struct gpu__call c;

    GPU__NOT_NULL(function);
    if ((unsigned)config > GPU_CACHE_PREFER_EQUAL)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "cache config %d is not a gpu_cache_config", (int)config);
    if (!function_call(&c, function))
        return c.st;
    return GPU__INVOKE_END(&c, cuFuncSetCacheConfig, GPU_ERR_DRIVER, function->cu, (cuabi_func_cache)config);
}

gpu_status gpu_function_get_max_active_blocks(gpu_function *function, unsigned block_size, size_t dynamic_shared_bytes,
                                          int *out)
{
    struct gpu__call c;
    int blocks = 0;
    gpu_status st;

    GPU__NOT_NULL(function, out);
    if (block_size == 0 || block_size > 1024)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "a block of %u threads: 1 to 1024", block_size);
    if (!function_call(&c, function))
        return c.st;
    st = GPU__INVOKE_END(&c, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, GPU_ERR_DRIVER, &blocks,
                         function->cu, (int)block_size, dynamic_shared_bytes, CUABI_OCCUPANCY_DEFAULT);
    if (st == GPU_OK)
        *out = blocks;
    return st;
}

gpu_status gpu_function_get_occupancy_block_size(gpu_function *function, size_t dynamic_shared_bytes,
                                             int block_size_limit, int *min_grid_size, int *block_size)
{
    struct gpu__call c;
    int grid = 0, block = 0;
    gpu_status st;

    GPU__NOT_NULL(function, min_grid_size, block_size);
    if (block_size_limit < 0 || block_size_limit > 1024)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "a block size limit of %d: 0 (none) to 1024", block_size_limit);
    if (!function_call(&c, function))
        return c.st;
    st = GPU__INVOKE_END(&c, cuOccupancyMaxPotentialBlockSizeWithFlags, GPU_ERR_DRIVER, &grid, &block, function->cu,
                         NULL, dynamic_shared_bytes, block_size_limit, CUABI_OCCUPANCY_DEFAULT);
    if (st == GPU_OK && (grid < 0 || block <= 0))
        st = GPU__FAIL(GPU_ERR_DRIVER, "cuOccupancyMaxPotentialBlockSize answered a grid of %d blocks of %d", grid,
                       block);
    if (st == GPU_OK) {
        *min_grid_size = grid;
        *block_size = block;
    }
    return st;
}

gpu_status gpu_function_get_max_active_clusters(gpu_function *function, const gpu_launch_config *config, int *out)
{
    cuabi_launch_attribute attrs[GPU__LAUNCH_ATTRS_MAX];
    cuabi_launch_config ex;
    struct gpu__call c;
    int clusters = 0;
    gpu_status st;

    GPU__NOT_NULL(function, out);
    st = gpu_launch_config_check(config);
    if (st != GPU_OK)
        return st;
    if ((config->cluster[0] | config->cluster[1] | config->cluster[2]) == 0)
        return GPU__INVALID("the configuration asks for no cluster");
    if (!function_call(&c, function))
        return c.st;
    gpu__launch_config_ex(config, NULL, attrs, &ex);
    st = GPU__INVOKE_RAW(&c, cuOccupancyMaxActiveClusters, &clusters, function->cu, &ex);
    if (st == GPU_OK)
        st = GPU__RESULT(&c, cuOccupancyMaxActiveClusters,
                         c.rc == CUABI_ERROR_INVALID_CLUSTER_SIZE ? GPU_ERR_INVALID_ARG : GPU_ERR_DRIVER);
    st = gpu__call_end(&c, st);
    if (st == GPU_OK)
        *out = clusters;
    return st;
}
