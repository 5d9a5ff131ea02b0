/*
 * Launch configurations, and kernel launches on streams.
 */
#include "call.h"

gpu_launch_config gpu_launch_config_1d(unsigned blocks, unsigned threads)
{
    gpu_launch_config c = {{blocks, 1, 1}, {threads, 1, 1}, 0};

    return c;
}

gpu_status gpu_launch_config_check(const gpu_launch_config *c)
{
    static const unsigned block_max[3] = {1024, 1024, 64};
    static const unsigned grid_max[3] = {2147483647u, 65535, 65535};
    static const char axis[3] = {'x', 'y', 'z'};
    unsigned long long threads = 1;

    if (!c)
        return GPU__INVALID("config is NULL");
    for (int i = 0; i < 3; i++) {
        if (c->grid[i] == 0 || c->block[i] == 0)
            return GPU__FAIL(GPU_ERR_INVALID_ARG, "%s %c is 0",
                             c->grid[i] == 0 ? "grid" : "block", axis[i]);
        if (c->grid[i] > grid_max[i])
            return GPU__FAIL(GPU_ERR_INVALID_ARG, "grid %c is %u, more than %u", axis[i],
                             c->grid[i], grid_max[i]);
        if (c->block[i] > block_max[i])
            return GPU__FAIL(GPU_ERR_INVALID_ARG, "block %c is %u, more than %u", axis[i],
                             c->block[i], block_max[i]);
        threads *= c->block[i];
    }
    if (threads > 1024)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "%llu threads a block, more than 1024", threads);
    return GPU_OK;
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
    st = gpu_launch_config_check(config);
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
    st = gpu_launch_config_check(config);
    if (st == GPU_OK)
        st = gpu__module_function(module, name, __func__, &f);
    if (st != GPU_OK)
        return st;
    return launch(stream, f, config, args, __func__);
}
