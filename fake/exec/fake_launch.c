/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's launches: cuLaunchKernel, cooperative launches and
 * cuLaunchKernelEx's attributes (clusters, cooperative, programmatic
 * serialization, priority), checked against the device and queued on a stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_builtin.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_host_kernel.h"
#include "fake_ptx_kernel.h"
#include "fake_launch.h"
#include "fake_module.h"
#include "fake_stream.h"

enum { CLUSTER_MAX = 8 }; /* blocks in a portable cluster */

/* A launch dimension over the device's limit: said on stderr, as the driver's CUDA_ERROR_INVALID_VALUE. */
static cuabi_result over_limit(const char *what, unsigned long long value, unsigned long long limit, const char *attribute)
{
    fprintf(stderr,
            "gpushim-fakecuda: a launch with %s %llu, over the device's limit of %llu (%s): CUDA_ERROR_INVALID_VALUE\n",
            what, value, limit, attribute);
    return CUABI_ERROR_INVALID_VALUE;
}

/* What the device reports for `attribute` (a profile's value, else the fake's default); 0 when it has none. */
static int device_limit(int device, unsigned attribute)
{
    int limit = 0;

    return fake_device_attribute(device, attribute, &limit) ? limit : fake_attribute(device, attribute);
}

/* The launch's shape against what the device reports (cuDeviceGetAttribute) and the function allows. */
static cuabi_result check_launch(int device, const unsigned grid[3], const unsigned block[3], unsigned shared,
                                 const struct fake_func_attrs *a)
{
    static const struct {
        const char *what, *attribute;
        unsigned id;
        bool is_grid;
        int axis;
    } dims[] = {
        {"gridDim.x", "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X", CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, true, 0},
        {"gridDim.y", "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y", CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, true, 1},
        {"gridDim.z", "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z", CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, true, 2},
        {"blockDim.x", "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X", CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, false, 0},
        {"blockDim.y", "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y", CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, false, 1},
        {"blockDim.z", "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z", CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, false, 2},
    };
    int max_threads = device_limit(device, CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    unsigned long long threads = 1;

    for (int i = 0; i < 3; i++) {
        if (grid[i] == 0 || block[i] == 0)
            return CUABI_ERROR_INVALID_VALUE;
        threads *= block[i];
    }
    for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
        unsigned v = dims[i].is_grid ? grid[dims[i].axis] : block[dims[i].axis];
        int limit = device_limit(device, dims[i].id);

        if (limit > 0 && v > (unsigned)limit)
            return over_limit(dims[i].what, v, (unsigned)limit, dims[i].attribute);
    }
    if (max_threads > 0 && threads > (unsigned)max_threads)
        return over_limit("a block of threads", threads, (unsigned)max_threads, "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK");
    if (a->max_threads && threads > a->max_threads)
        return over_limit("a block of threads", threads, a->max_threads, "the function's CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK");
    if (shared > (unsigned)a->max_dynamic_shared)
        return over_limit("dynamic shared memory bytes", shared, (unsigned)a->max_dynamic_shared,
                          "the function's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES");
    return CUABI_SUCCESS;
}

cuabi_result fake_launch_op(const struct fake_ctx *ctx, cuabi_function f, const unsigned grid[3],
                            const unsigned block[3], unsigned shared, void **params, void **extra,
                            const struct fake_launch_ex *ex, bool *bad_shape, struct fake_op **out)
{
    struct fake_function *fn = fake_function_find(f);
    struct fake_host_args *host = NULL;
    const struct fake_work *work = &fake_builtin_work;
    struct fake_op *op = NULL;
    cuabi_result rc = CUABI_SUCCESS;
    size_t off = 0;

    *out = NULL;
    if (bad_shape)
        *bad_shape = false;
    if (!fn)
        return CUABI_ERROR_INVALID_HANDLE;
    if (fn->module->ctx != ctx)
        return CUABI_ERROR_INVALID_CONTEXT;
    if (fn->kernel && (extra || (fn->kernel->nparams && !params))) /* built-ins take only kernelParams */
        return CUABI_ERROR_INVALID_VALUE;
    if ((rc = check_launch(ctx->device, grid, block, shared, &fn->attrs)) != CUABI_SUCCESS) {
        if (bad_shape)
            *bad_shape = true;
        return rc;
    }
    if (ex && (rc = fake_launch_ex_check(ctx, &fn->attrs, grid, block, shared, ex)) != CUABI_SUCCESS)
        return rc;
    if (fn->layout && (rc = fake_host_args_new(fn->layout, params, extra, &host)) != CUABI_SUCCESS)
        return rc;
    if (host)
        work = host->fn ? &fake_host_kernel_work : &fake_ptx_kernel_work;
    if (!(op = fake_op_new(FAKE_OP_KERNEL, work))) {
        fake_host_args_release(host);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    op->u.k.kernel = fn->kernel;
    op->u.k.host = host;
    memcpy(op->u.k.grid, grid, sizeof(op->u.k.grid));
    memcpy(op->u.k.block, block, sizeof(op->u.k.block));
    op->u.k.shared = shared;
    if (ex)
        op->u.k.ex = *ex;
    /* The values are copied now, as the driver does: the caller's may be gone when the kernel runs. */
    for (size_t i = 0; fn->kernel && i < fn->kernel->nparams; i++) {
        memcpy(op->u.k.args + off, params[i], fn->kernel->sizes[i]);
        off += fn->kernel->sizes[i];
    }
    *out = op;
    return CUABI_SUCCESS;
}

cuabi_result fake_launch(cuabi_function f, const unsigned grid[3], const unsigned block[3], unsigned shared,
                         cuabi_stream stream, void **params, void **extra, const struct fake_launch_ex *ex)
{
    struct fake_stream *s = NULL;
    cuabi_result rc = fake_stream_for_work(stream, &s);

    if (rc == CUABI_SUCCESS) {
        struct fake_op *op = NULL;
        bool bad_shape = false;

        rc = fake_launch_op(s->ctx, f, grid, block, shared, params, extra, ex, &bad_shape, &op);
        /* As the driver does (580.159.04, gpu-capture's bad_shape case): a shape it refuses breaks the capture. */
        if (bad_shape && s->capture == FAKE_CAPTURE_ACTIVE)
            s->capture = FAKE_CAPTURE_INVALIDATED;
        if (rc == CUABI_SUCCESS)
            rc = fake_enqueue(s, op);
    }
    return rc;
}

cuabi_result cuLaunchKernel(cuabi_function f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                            unsigned int block_x, unsigned int block_y, unsigned int block_z,
                            unsigned int shared_mem_bytes, cuabi_stream stream, void **params, void **extra)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchKernel, true);
    const unsigned grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};

    if (rc == CUABI_SUCCESS)
        rc = fake_launch(f, grid, block, shared_mem_bytes, stream, params, extra, NULL);
    return fake_end(rc);
}

/* ---- Extended launches ---- */

/* The attributes of a cuLaunchKernelEx configuration; CUDA_ERROR_INVALID_VALUE for one the fake does not know. */
cuabi_result fake_launch_ex_parse(const cuabi_launch_config *config, struct fake_launch_ex *ex)
{
    memset(ex, 0, sizeof(*ex));
    if (!config || (config->num_attrs && !config->attrs))
        return CUABI_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < config->num_attrs; i++) {
        const cuabi_launch_attribute *at = &config->attrs[i];

        if (at->id == CUABI_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            ex->cluster[0] = at->value.cluster_dim.x;
            ex->cluster[1] = at->value.cluster_dim.y;
            ex->cluster[2] = at->value.cluster_dim.z;
        } else if (at->id == CUABI_LAUNCH_ATTRIBUTE_COOPERATIVE) {
            ex->cooperative = at->value.cooperative != 0;
        } else if (at->id == CUABI_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) {
            ex->serialized = at->value.programmatic_stream_serialization_allowed != 0;
        } else if (at->id == CUABI_LAUNCH_ATTRIBUTE_PRIORITY) {
            ex->priority = at->value.priority;
        } else {
            return CUABI_ERROR_INVALID_VALUE;
        }
    }
    return CUABI_SUCCESS;
}

static bool has_cluster(const struct fake_launch_ex *ex)
{
    return (ex->cluster[0] | ex->cluster[1] | ex->cluster[2]) != 0;
}

/* A cluster shape the device takes for the grid. */
cuabi_result fake_cluster_check(const unsigned grid[3], const struct fake_launch_ex *ex)
{
    unsigned long long size = 1; /* a product of three 32-bit dimensions, which would wrap in 32 bits */

    for (int i = 0; i < 3; i++) {
        if (ex->cluster[i] == 0 || (grid && grid[i] % ex->cluster[i]))
            return CUABI_ERROR_INVALID_CLUSTER_SIZE;
        size *= ex->cluster[i];
    }
    return size > CLUSTER_MAX ? CUABI_ERROR_INVALID_CLUSTER_SIZE : CUABI_SUCCESS;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/*
 * Blocks of the function resident on one multiprocessor: threads, registers,
 * then shared memory bound it. A cooperative launch's grid must fit them all;
 * the occupancy calculator (fake_occupancy.c) reports them.
 */
int fake_blocks_per_sm(int device, const struct fake_func_attrs *a, unsigned block, size_t shared)
{
    int threads = (int)((block + 31) / 32 * 32);
    int n = fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    size_t per_block = a->static_shared + shared +
                       (size_t)fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);

    if (block == 0 || block > a->max_threads || shared > (size_t)a->max_dynamic_shared)
        return 0;
    n = min_int(n, fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / threads);
    n = min_int(n, fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) /
                       (threads * a->regs));
    /* per_block is 0 only where the sum wraps, which attribute values in their domains (fake_device.c) never make. */
    if ((shared || a->static_shared) && per_block)
        n = min_int(n, (int)((size_t)fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) /
                             per_block));
    return n;
}

cuabi_result fake_launch_ex_check(const struct fake_ctx *ctx, const struct fake_func_attrs *a, const unsigned grid[3],
                                  const unsigned block[3], unsigned shared, const struct fake_launch_ex *ex)
{
    int device = ctx->device;

    if (has_cluster(ex)) {
        if (!fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH))
            return CUABI_ERROR_NOT_SUPPORTED;
        if (fake_cluster_check(grid, ex) != CUABI_SUCCESS)
            return CUABI_ERROR_INVALID_CLUSTER_SIZE;
    }
    if (ex->serialized && fake.devices[device].desc.compute_major < 9)
        return CUABI_ERROR_NOT_SUPPORTED;
    if (ex->cooperative) {
        unsigned long long blocks = (unsigned long long)grid[0] * grid[1] * grid[2];
        int per_sm = fake_blocks_per_sm(device, a, block[0] * block[1] * block[2], shared);

        if (!fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH))
            return CUABI_ERROR_NOT_SUPPORTED;
        if (blocks > (unsigned long long)per_sm * (unsigned)fake.devices[device].desc.multiprocessors)
            return CUABI_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }
    return CUABI_SUCCESS;
}

cuabi_result cuLaunchKernelEx(const cuabi_launch_config *config, cuabi_function f, void **params, void **extra)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchKernelEx, true);
    struct fake_launch_ex ex;

    if (rc == CUABI_SUCCESS)
        rc = fake_launch_ex_parse(config, &ex);
    if (rc == CUABI_SUCCESS) {
        const unsigned grid[3] = {config->grid_x, config->grid_y, config->grid_z};
        const unsigned block[3] = {config->block_x, config->block_y, config->block_z};

        rc = fake_launch(f, grid, block, config->shared_mem_bytes, config->stream, params, extra, &ex);
    }
    return fake_end(rc);
}

cuabi_result cuLaunchCooperativeKernel(cuabi_function f, unsigned int grid_x, unsigned int grid_y,
                                       unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                       unsigned int block_z, unsigned int shared_mem_bytes, cuabi_stream stream,
                                       void **params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchCooperativeKernel, true);
    const unsigned grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
    const struct fake_launch_ex ex = {.cooperative = true};

    if (rc == CUABI_SUCCESS)
        rc = fake_launch(f, grid, block, shared_mem_bytes, stream, params, NULL, &ex);
    return fake_end(rc);
}
