/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's occupancy calculators: blocks per multiprocessor as
 * threads, registers and shared memory bound them on the device
 * (fake_blocks_per_sm(), which a cooperative launch checks too).
 */
#include <limits.h>
#include <stdlib.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_launch.h"
#include "fake_module.h"
#include "fake_stream.h"

/* A product of a test's attribute values, as an int: INT_MAX where it is more. */
static int clamp_int(long long v)
{
    return v > INT_MAX ? INT_MAX : v < 0 ? 0 : (int)v;
}

/* The function's attributes and device, with a context current: else the CUresult. */
static cuabi_result occupancy_of(cuabi_function f, const struct fake_func_attrs **a, int *device)
{
    struct fake_ctx *cur = NULL, *ctx = NULL;
    cuabi_result rc = fake_need_ctx(&cur);

    if (rc == CUABI_SUCCESS && !(*a = fake_function_attrs(f, &ctx)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        *device = ctx->device;
    return rc;
}

/* cuOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags), their begin done (`rc`). */
static cuabi_result max_active_blocks(cuabi_result rc, int *blocks, cuabi_function f, int block_size,
                                      size_t dynamic_shared, unsigned int flags)
{
    const struct fake_func_attrs *a = NULL;
    int device = 0;

    if (rc == CUABI_SUCCESS)
        rc = occupancy_of(f, &a, &device);
    if (rc == CUABI_SUCCESS && (!blocks || block_size <= 0 || flags > CUABI_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *blocks = fake_blocks_per_sm(device, a, (unsigned)block_size, dynamic_shared);
    return rc;
}

cuabi_result cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, cuabi_function f, int block_size,
                                                                  size_t dynamic_shared, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, true);

    return fake_end(max_active_blocks(rc, blocks, f, block_size, dynamic_shared, flags));
}

cuabi_result cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, cuabi_function f, int block_size,
                                                         size_t dynamic_shared)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyMaxActiveBlocksPerMultiprocessor, true);

    return fake_end(max_active_blocks(rc, blocks, f, block_size, dynamic_shared, 0));
}

/* cuOccupancyMaxPotentialBlockSize(WithFlags), their begin done (`rc`). */
static cuabi_result max_potential_block(cuabi_result rc, int *min_grid_size, int *block_size, cuabi_function f,
                                        cuabi_occupancy_b2d_size shared_of_block, size_t dynamic_shared,
                                        int block_size_limit, unsigned int flags)
{
    const struct fake_func_attrs *a = NULL;
    int device = 0;

    if (rc == CUABI_SUCCESS)
        rc = occupancy_of(f, &a, &device);
    if (rc == CUABI_SUCCESS && (!min_grid_size || !block_size || block_size_limit < 0 ||
                                flags > CUABI_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        int limit = block_size_limit == 0 || block_size_limit > 1024 ? 1024 : block_size_limit;
        int best = 0, best_threads = 0;

        /* The largest block that reaches the highest occupancy, as the driver's search finds it. */
        for (int b = limit; b > 0; b -= 32) {
            size_t shared = shared_of_block ? shared_of_block(b) : dynamic_shared;
            int threads = fake_blocks_per_sm(device, a, (unsigned)b, shared) * b;

            if (threads > best_threads) {
                best_threads = threads;
                best = b;
            }
        }
        *block_size = best;
        *min_grid_size = best ? clamp_int((long long)(best_threads / best) * fake.devices[device].desc.multiprocessors)
                              : 0;
    }
    return rc;
}

cuabi_result cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid_size, int *block_size, cuabi_function f,
                                                       cuabi_occupancy_b2d_size shared_of_block,
                                                       size_t dynamic_shared, int block_size_limit,
                                                       unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyMaxPotentialBlockSizeWithFlags, true);

    return fake_end(max_potential_block(rc, min_grid_size, block_size, f, shared_of_block, dynamic_shared,
                                        block_size_limit, flags));
}

cuabi_result cuOccupancyMaxPotentialBlockSize(int *min_grid_size, int *block_size, cuabi_function f,
                                              cuabi_occupancy_b2d_size shared_of_block, size_t dynamic_shared,
                                              int block_size_limit)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyMaxPotentialBlockSize, true);

    return fake_end(max_potential_block(rc, min_grid_size, block_size, f, shared_of_block, dynamic_shared,
                                        block_size_limit, 0));
}

cuabi_result cuOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, cuabi_function f, int blocks, int block_size)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyAvailableDynamicSMemPerBlock, true);
    const struct fake_func_attrs *a = NULL;
    int device = 0;

    if (rc == CUABI_SUCCESS)
        rc = occupancy_of(f, &a, &device);
    if (rc == CUABI_SUCCESS && (!bytes || blocks <= 0 || block_size <= 0 || block_size > 1024))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        /* The most dynamic shared memory with which `blocks` blocks of that size still fit on a multiprocessor. */
        size_t lo = 0, hi = (size_t)a->max_dynamic_shared;

        if (fake_blocks_per_sm(device, a, (unsigned)block_size, 0) < blocks) {
            *bytes = 0;
        } else {
            while (lo < hi) {
                size_t mid = lo + (hi - lo + 1) / 2;

                if (fake_blocks_per_sm(device, a, (unsigned)block_size, mid) >= blocks)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            *bytes = lo;
        }
    }
    return fake_end(rc);
}

cuabi_result cuOccupancyMaxActiveClusters(int *clusters, cuabi_function f, const cuabi_launch_config *config)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyMaxActiveClusters, true);
    const struct fake_func_attrs *a = NULL;
    struct fake_launch_ex ex;
    int device = 0;

    if (rc == CUABI_SUCCESS)
        rc = occupancy_of(f, &a, &device);
    if (rc == CUABI_SUCCESS && !clusters)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_launch_ex_parse(config, &ex);
    if (rc == CUABI_SUCCESS && !fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH))
        rc = CUABI_ERROR_NOT_SUPPORTED;
    if (rc == CUABI_SUCCESS)
        rc = fake_cluster_check(NULL, &ex);
    if (rc == CUABI_SUCCESS) {
        unsigned size = ex.cluster[0] * ex.cluster[1] * ex.cluster[2];
        int per_sm = fake_blocks_per_sm(device, a, config->block_x * config->block_y * config->block_z,
                                   config->shared_mem_bytes);

        *clusters = clamp_int((long long)per_sm * fake.devices[device].desc.multiprocessors / (long long)size);
    }
    return fake_end(rc);
}
