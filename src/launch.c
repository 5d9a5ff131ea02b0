/*
 * Launch configurations, and kernel launches on streams.
 */
#include "call.h"

gpu_launch_config gpu_launch_config_1d(unsigned blocks, unsigned threads)
{
    gpu_launch_config c = {{blocks, 1, 1}, {threads, 1, 1}, 0};

    return c;
}

/* Says what is wrong with a configuration that config_fits() refused. */
static gpu_status config_refuse(const gpu_launch_config *c, const char *func)
{
    static const unsigned block_max[3] = {1024, 1024, 64};
    static const unsigned grid_max[3] = {2147483647u, 65535, 65535};
    static const char axis[3] = {'x', 'y', 'z'};
    unsigned long long threads = 1;

    for (int i = 0; i < 3; i++) {
        if (c->grid[i] == 0 || c->block[i] == 0)
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s %c is 0", func, c->grid[i] == 0 ? "grid" : "block",
                             axis[i]);
        if (c->grid[i] > grid_max[i])
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: grid %c is %u, more than %u", func, axis[i], c->grid[i],
                             grid_max[i]);
        if (c->block[i] > block_max[i])
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: block %c is %u, more than %u", func, axis[i], c->block[i],
                             block_max[i]);
        threads *= c->block[i];
    }
    return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %llu threads a block, more than 1024", func, threads);
}

/*
 * Whether every dimension is at least 1 and within its limit, and the block
 * holds at most 1024 threads: on the launch path, so without branches on each
 * (an unsigned d - 1 wraps around for d == 0).
 */
static inline bool config_fits(const gpu_launch_config *c)
{
    unsigned bad = (c->grid[0] - 1u > 2147483646u) | (c->grid[1] - 1u > 65534u) | (c->grid[2] - 1u > 65534u) |
                   (c->block[0] - 1u > 1023u) | (c->block[1] - 1u > 1023u) | (c->block[2] - 1u > 63u);

    /* With each block dimension at most 1024 the product fits 64 bits. */
    return !bad && (unsigned long long)c->block[0] * c->block[1] * c->block[2] <= 1024u;
}

static inline gpu_status config_check(const gpu_launch_config *c, const char *func)
{
    if (!c)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: config is NULL", func);
    return config_fits(c) ? GPU_OK : config_refuse(c, func);
}

gpu_status gpu_launch_config_check(const gpu_launch_config *c)
{
    return config_check(c, __func__);
}

/* A launch of a function already looked up, its configuration checked. */
static gpu_status launch(gpu_stream *stream, gpu_function *f, const gpu_launch_config *config, void **args,
                         const char *func)
{
    struct gpu__call c;

    if (!gpu__call_stream_for(&c, stream, f->module->obj.ctx, func, "the function", f->name))
        return c.st;
    return GPU__INVOKE_END(&c, cuLaunchKernel, GPU_ERR_KERNEL_LAUNCH, f->cu, config->grid[0], config->grid[1],
                           config->grid[2], config->block[0], config->block[1], config->block[2],
                           config->shared_mem_bytes, c.stream, args, NULL);
}

gpu_status gpu_stream_launch_function(gpu_stream *stream, gpu_function *function, const gpu_launch_config *config,
                                      void **args)
{
    gpu_status st;

    if (!function)
        return GPU__INVALID("function is NULL");
    st = config_check(config, __func__);
    if (st != GPU_OK)
        return st;
    return launch(stream, function, config, args, __func__);
}

gpu_status gpu_stream_launch_kernel(gpu_stream *stream, gpu_module *module, const char *name,
                                    const gpu_launch_config *config, void **args)
{
    gpu_function *f;
    gpu_status st;

    if (!module || !name)
        return GPU__INVALID(module ? "name is NULL" : "module is NULL");
    st = config_check(config, __func__);
    if (st == GPU_OK)
        st = gpu__module_function(module, name, __func__, &f);
    if (st != GPU_OK)
        return st;
    return launch(stream, f, config, args, __func__);
}
