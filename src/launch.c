/* SPDX-License-Identifier: MIT */
/*
 * Launch configurations, and kernel launches on streams.
 */
#include <stdio.h>
#include <string.h>

#include "launch_ex.h"

gpu_launch_config gpu_launch_config_1d(unsigned blocks, unsigned threads)
{
    gpu_launch_config c = {{blocks, 1, 1}, {threads, 1, 1}, 0, {0, 0, 0}, false, false, 0};

    return c;
}

/* What is wrong with a configuration that gpu__launch_config_fits() refused; GPU_OK for a good one with a cluster. */
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
    if (threads > 1024)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %llu threads a block, more than 1024", func, threads);
    for (int i = 0; i < 3 && (c->cluster[0] | c->cluster[1] | c->cluster[2]); i++) {
        if (c->cluster[i] == 0)
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: cluster %c is 0 (a cluster needs all three at least 1)",
                             func, axis[i]);
        if (c->grid[i] % c->cluster[i] != 0)
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: grid %c (%u) is not a multiple of cluster %c (%u)", func,
                             axis[i], c->grid[i], axis[i], c->cluster[i]);
    }
    return GPU_OK;
}

static inline gpu_status config_check(const gpu_launch_config *c, const char *func)
{
    if (!c)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: config is NULL", func);
    return gpu__launch_config_fits(c) ? GPU_OK : config_refuse(c, func);
}

gpu_status gpu_launch_config_check(const gpu_launch_config *c)
{
    return config_check(c, __func__);
}

void gpu__launch_config_ex(const gpu_launch_config *c, cuabi_stream stream,
                           cuabi_launch_attribute attrs[GPU__LAUNCH_ATTRS_MAX], cuabi_launch_config *out)
{
    unsigned n = 0;

    memset(attrs, 0, sizeof(*attrs) * GPU__LAUNCH_ATTRS_MAX);
    if (c->cluster[0] | c->cluster[1] | c->cluster[2]) {
        attrs[n].id = CUABI_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[n].value.cluster_dim.x = c->cluster[0];
        attrs[n].value.cluster_dim.y = c->cluster[1];
        attrs[n++].value.cluster_dim.z = c->cluster[2];
    }
    if (c->cooperative) {
        attrs[n].id = CUABI_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attrs[n++].value.cooperative = 1;
    }
    if (c->programmatic_serialization) {
        attrs[n].id = CUABI_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attrs[n++].value.programmatic_stream_serialization_allowed = 1;
    }
    if (c->priority) {
        attrs[n].id = CUABI_LAUNCH_ATTRIBUTE_PRIORITY;
        attrs[n++].value.priority = c->priority;
    }
    *out = (cuabi_launch_config){c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2],
                                 c->shared_mem_bytes, stream, n ? attrs : NULL, n};
}

/*
 * More than 48 KiB of dynamic shared memory: within what the device allows a
 * block, and within the function's opt-in, before the driver sees the launch.
 */
static gpu_status shared_check(struct gpu__call *c, const gpu_function *f, unsigned bytes, const char *func)
{
    const gpu_context *ctx = f->module->obj.ctx;
    int optin = 0, allowed = 0, fixed = 0;
    gpu_status st;

    st = GPU__INVOKE(c, cuDeviceGetAttribute, GPU_ERR_KERNEL_LAUNCH, &optin,
                     CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, ctx->device);
    if (st == GPU_OK)
        st = GPU__INVOKE(c, cuFuncGetAttribute, GPU_ERR_KERNEL_LAUNCH, &fixed, CUABI_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                         f->cu);
    if (st == GPU_OK)
        st = GPU__INVOKE(c, cuFuncGetAttribute, GPU_ERR_KERNEL_LAUNCH, &allowed,
                         CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f->cu);
    if (st != GPU_OK)
        return st;
    if ((unsigned long long)bytes + (unsigned)fixed > (unsigned)optin)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0,
                         "%s: \"%s\": %u bytes of dynamic shared memory (and %d static), more than device %d allows "
                         "a block (%d)",
                         func, f->name, bytes, fixed, ctx->ordinal, optin);
    if (bytes > (unsigned)allowed)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0,
                         "%s: \"%s\": %u bytes of dynamic shared memory, more than the function's limit of %d: more "
                         "than 48 KiB needs the opt-in, gpu_function_set_attribute(GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES)",
                         func, f->name, bytes, allowed);
    return GPU_OK;
}

/*
 * After a failed extended launch: GPU_ERR_NOT_SUPPORTED where the device
 * lacks what was asked for, naming it; else `st`, unchanged.
 */
static gpu_status feature_check(struct gpu__call *c, const gpu_function *f, const gpu_launch_config *config,
                                gpu_status st, const char *func)
{
    static const struct {
        cuabi_device_attribute attribute;
        int below; /* the feature is missing where the attribute is less */
        const char *what;
    } features[3] = {
        {CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1, "cooperative launches"},
        {CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 1, "cluster launches"},
        {CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9, "programmatic stream serialization"},
    };
    const bool asked[3] = {config->cooperative, (config->cluster[0] | config->cluster[1] | config->cluster[2]) != 0,
                           config->programmatic_serialization};
    const cuabi_result rc = c->rc;
    char why[512];
    int value;

    snprintf(why, sizeof(why), "%s", gpu_last_error_get_message());
    for (int i = 0; i < 3; i++) {
        value = features[i].below;
        if (!asked[i] || GPU__INVOKE_RAW(c, cuDeviceGetAttribute, &value, features[i].attribute,
                                         f->module->obj.ctx->device) != GPU_OK || c->rc != CUABI_SUCCESS ||
            value >= features[i].below)
            continue;
        return gpu__fail(GPU_ERR_NOT_SUPPORTED, (int)rc, "%s: device %d does not support %s (%s)", func,
                         f->module->obj.ctx->ordinal, features[i].what, why);
    }
    /* The queries set no error: the launch's stands. */
    return st;
}

/* What launch_slow() does in its open call. */
static gpu_status launch_slow_in(struct gpu__call *c, const gpu_function *f, const gpu_launch_config *config,
                                 void **args, const char *func)
{
    cuabi_launch_attribute attrs[GPU__LAUNCH_ATTRS_MAX];
    cuabi_launch_config ex;
    gpu_status st = GPU_OK;

    if (config->shared_mem_bytes > GPU_SHARED_MEMORY_DEFAULT_MAX)
        st = shared_check(c, f, config->shared_mem_bytes, func);
    if (st != GPU_OK)
        return st;
    if (!gpu__launch_is_extended(config))
        return GPU__INVOKE(c, cuLaunchKernel, GPU_ERR_KERNEL_LAUNCH, f->cu, config->grid[0], config->grid[1],
                           config->grid[2], config->block[0], config->block[1], config->block[2],
                           config->shared_mem_bytes, c->stream, args, NULL);
    gpu__launch_config_ex(config, c->stream, attrs, &ex);
    /* Cooperative alone needs no cuLaunchKernelEx: drivers older than 11.8 have the older entry point. */
    if (!c->drv->cuLaunchKernelEx && ex.num_attrs == 1 && config->cooperative)
        st = GPU__INVOKE(c, cuLaunchCooperativeKernel, GPU_ERR_KERNEL_LAUNCH, f->cu, config->grid[0], config->grid[1],
                         config->grid[2], config->block[0], config->block[1], config->block[2],
                         config->shared_mem_bytes, c->stream, args);
    else
        st = GPU__INVOKE(c, cuLaunchKernelEx, GPU_ERR_KERNEL_LAUNCH, &ex, f->cu, args, NULL);
    if (st != GPU_OK && c->rc != CUABI_SUCCESS)
        st = feature_check(c, f, config, st, func);
    return st;
}

/*
 * A launch with shared memory past 48 KiB or extended fields: off the plain
 * launch's path, in a call of its own (the plain one's stays in registers).
 */
static GPU__NOINLINE gpu_status launch_slow(gpu_stream *stream, gpu_function *f, const gpu_launch_config *config,
                                            void **args, const char *func)
{
    struct gpu__call c;

    if (!gpu__call_stream_for(&c, stream, f->module->obj.ctx, func, "the function", f->name))
        return c.st;
    return gpu__call_end(&c, launch_slow_in(&c, f, config, args, func));
}

/* cuLaunchKernel's arguments for a plain launch of `f` on CUstream `cu_stream`. */
#define PLAIN_LAUNCH_ARGS(f, config, cu_stream, args) \
    (f)->cu, (config)->grid[0], (config)->grid[1], (config)->grid[2], (config)->block[0], (config)->block[1], \
        (config)->block[2], (config)->shared_mem_bytes, (cu_stream), (args), NULL

/* A launch of a function already looked up, its configuration checked. */
static gpu_status launch(gpu_stream *stream, gpu_function *f, const gpu_launch_config *config, void **args,
                         const char *func)
{
    struct gpu__call c;

    if (config->shared_mem_bytes > GPU_SHARED_MEMORY_DEFAULT_MAX || gpu__launch_is_extended(config))
        return launch_slow(stream, f, config, args, func);
    if (!gpu__call_stream_for(&c, stream, f->module->obj.ctx, func, "the function", f->name))
        return c.st;
    return GPU__INVOKE_END(&c, cuLaunchKernel, GPU_ERR_KERNEL_LAUNCH, PLAIN_LAUNCH_ARGS(f, config, c.stream, args));
}

/*
 * The hot path of a launch (GPU__STREAM_HOT): a plain configuration on a
 * stream of the function's device whose context is the thread's. True: the
 * driver answered, GPU__HOT_RESULT says how. False: launch_checked() does it
 * all, messages included.
 */
#define LAUNCH_HOT(c, s, f, config, args) \
    (gpu__launch_config_plain(config) && \
     GPU__STREAM_HOT(c, s, (f)->ctx_cu, cuLaunchKernel, PLAIN_LAUNCH_ARGS(f, config, (c)->stream, args)))

/* Every launch the hot path did not make: the configuration's check with its message, then launch(). */
static GPU__NOINLINE gpu_status launch_checked(gpu_stream *stream, gpu_function *f, const gpu_launch_config *config,
                                               void **args, const char *func)
{
    gpu_status st = config_check(config, func);

    return st != GPU_OK ? st : launch(stream, f, config, args, func);
}

GPU__HOT_ENTRY
gpu_status gpu_stream_launch_function(gpu_stream *stream, gpu_function *function, const gpu_launch_config *config,
                                      void **args)
{
    struct gpu__call c;

    GPU__NOT_NULL(function);
    if (LAUNCH_HOT(&c, stream, function, config, args))
        return GPU__HOT_RESULT(&c, cuLaunchKernel, GPU_ERR_KERNEL_LAUNCH);
    return launch_checked(stream, function, config, args, __func__);
}

GPU__HOT_ENTRY
gpu_status gpu_stream_launch_kernel(gpu_stream *stream, gpu_module *module, const char *name,
                                    const gpu_launch_config *config, void **args)
{
    struct gpu__call c;
    gpu_function *f;
    gpu_status st;

    GPU__NOT_NULL(module, name);
    st = config_check(config, __func__);
    if (st == GPU_OK)
        st = gpu__module_function(module, name, __func__, &f);
    if (st != GPU_OK)
        return st;
    if (LAUNCH_HOT(&c, stream, f, config, args))
        return GPU__HOT_RESULT(&c, cuLaunchKernel, GPU_ERR_KERNEL_LAUNCH);
    return launch(stream, f, config, args, __func__);
}
