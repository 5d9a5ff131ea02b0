/* SPDX-License-Identifier: MIT */
/*
 * Launches: the configuration that `<<<...>>>` pushes and the host stub pops
 * (crt/host_runtime.h), the kernel handle nvcc 13's stubs take
 * (__cudaGetKernel, __cudaLaunchKernel), cudaLaunchKernel by host stub, and
 * what the runtime reports of a kernel.
 */
#include "runtime.h"

#include <stdint.h>

/* How deep `<<<...>>>` may nest: a launch inside another's arguments pushes before the outer pops. */
#define CONFIG_DEPTH 16

struct config {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
};

static _Thread_local struct config configs[CONFIG_DEPTH];
static _Thread_local unsigned config_count;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                    cudaStream_t stream);

/* Nonzero skips the launch (the generated code's `push(...) ? (void)0 : stub(...)`). */
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream)
{
    if (config_count == CONFIG_DEPTH) {
        gpu__cudart_set(cudaErrorLaunchOutOfResources);
        return 1;
    }
    configs[config_count++] = (struct config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream)
{
    const struct config *c;

    if (config_count == 0)
        return gpu__cudart_set(cudaErrorMissingConfiguration);
    c = &configs[--config_count];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->shared;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

_Static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute) &&
                   _Alignof(cudaLaunchAttribute) == _Alignof(CUlaunchAttribute),
               "a runtime launch attribute is the driver's: the same ids, values and layout");

cudaError_t gpu__cudart_launch(struct cudart_function *fn, dim3 grid, dim3 block, void **args, size_t shared,
                               cudaStream_t stream, bool per_thread, const cudaLaunchAttribute *attrs,
                               unsigned int nattrs)
{
    CUkernel kernel = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !fn)
        e = cudaErrorInvalidDeviceFunction;
    if (e == cudaSuccess && shared > UINT32_MAX)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = gpu__cudart_function_kernel(fn, &kernel);
    if (e == cudaSuccess) {
        /* A CUkernel is a CUfunction of the current context to the launches (cuda.h). */
        CUfunction f = (CUfunction)(void *)kernel;
        CUstream s = gpu__cudart_stream(stream, per_thread);
        CUlaunchConfig config = {grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shared, s,
                                 (CUlaunchAttribute *)(uintptr_t)attrs, nattrs};
        CUresult r = nattrs ? cuLaunchKernelEx(&config, f, args, NULL)
                            : cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shared,
                                             s, args, NULL);

        /* The driver's invalid value here is a grid, block or shared size out of bounds: the runtime's own code. */
        e = r == CUDA_ERROR_INVALID_VALUE ? cudaErrorInvalidConfiguration : gpu__cudart_map(r);
    }
    return gpu__cudart_set(e);
}

/* The function registered for a kernel handle; NULL for anything else. */
static struct cudart_function *from_handle(cudaKernel_t kernel)
{
    struct cudart_function *fn = (struct cudart_function *)(void *)kernel;

    return gpu__cudart_function_valid(fn) ? fn : NULL;
}

/* A kernel handle is the runtime's record of the kernel: its module loads at the first launch. */
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
    struct cudart_function *fn = gpu__cudart_function_find(func);

    if (!kernel)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (!fn)
        return gpu__cudart_set(cudaErrorInvalidDeviceFunction);
    *kernel = (cudaKernel_t)(void *)fn;
    return cudaSuccess;
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream)
{
    return gpu__cudart_launch(from_handle(kernel), gridDim, blockDim, args, sharedMem, stream, false, NULL, 0);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                    cudaStream_t stream)
{
    return gpu__cudart_launch(from_handle(kernel), gridDim, blockDim, args, sharedMem, stream, true, NULL, 0);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream)
{
    return gpu__cudart_launch(gpu__cudart_function_of(func), gridDim, blockDim, args, sharedMem, stream, false, NULL,
                              0);
}

/* The function `func` names: a kernel handle (cudaGetKernel's) or a kernel's host stub. */
struct cudart_function *gpu__cudart_function_of(const void *func)
{
    struct cudart_function *fn = (struct cudart_function *)(uintptr_t)func;

    return gpu__cudart_function_valid(fn) ? fn : gpu__cudart_function_find(func);
}

cudaError_t gpu__cudart_launch_config(const cudaLaunchConfig_t *config, const void *func, void **args,
                                      bool per_thread)
{
    if (!config)
        return gpu__cudart_set(cudaErrorInvalidValue);
    return gpu__cudart_launch(gpu__cudart_function_of(func), config->gridDim, config->blockDim, args,
                              config->dynamicSmemBytes, config->stream, per_thread, config->attrs, config->numAttrs);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    return gpu__cudart_launch_config(config, func, args, false);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                        cudaStream_t stream)
{
    cudaLaunchAttribute cooperative = {.id = cudaLaunchAttributeCooperative, .val.cooperative = 1};

    return gpu__cudart_launch(gpu__cudart_function_of(func), gridDim, blockDim, args, sharedMem, stream, false,
                              &cooperative, 1);
}

/* The kernel `func` names and the current context's device, its fatbin loaded first. */
static cudaError_t kernel_here(const void *func, CUkernel *kernel, CUdevice *dev)
{
    struct cudart_function *fn = gpu__cudart_function_of(func);
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !fn)
        e = cudaErrorInvalidDeviceFunction;
    if (e == cudaSuccess)
        e = gpu__cudart_function_kernel(fn, kernel);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxGetDevice(dev));
    return e;
}

/* The function's CUfunction in the current context. */
static cudaError_t function_here(const void *func, CUfunction *out)
{
    CUkernel kernel = NULL;
    CUdevice dev = 0;
    cudaError_t e = kernel_here(func, &kernel, &dev);

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuKernelGetFunction(out, kernel));
    return e;
}

/* cudaOccupancyDefault and cudaOccupancyDisableCachingOverride are the driver's CU_OCCUPANCY_ flags. */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags)
{
    CUfunction f = NULL;
    cudaError_t e = function_here(func, &f);

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, f, blockSize,
                                                                                 dynamicSMemSize, flags));
    return gpu__cudart_set(e);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                  cudaOccupancyDefault);
}

static int kernel_attribute(CUkernel kernel, CUfunction_attribute a, CUdevice dev)
{
    int v = 0;

    return cuKernelGetAttribute(&v, a, kernel, dev) == CUDA_SUCCESS ? v : 0;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    CUkernel kernel = NULL;
    CUdevice dev = 0;
    cudaError_t e;

    if (!attr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    e = kernel_here(func, &kernel, &dev);
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    *attr = (struct cudaFuncAttributes){0};
#define A(name) kernel_attribute(kernel, CU_FUNC_ATTRIBUTE_##name, dev)
    attr->sharedSizeBytes = (size_t)A(SHARED_SIZE_BYTES);
    attr->constSizeBytes = (size_t)A(CONST_SIZE_BYTES);
    attr->localSizeBytes = (size_t)A(LOCAL_SIZE_BYTES);
    attr->maxThreadsPerBlock = A(MAX_THREADS_PER_BLOCK);
    attr->numRegs = A(NUM_REGS);
    attr->ptxVersion = A(PTX_VERSION);
    attr->binaryVersion = A(BINARY_VERSION);
    attr->cacheModeCA = A(CACHE_MODE_CA);
    attr->maxDynamicSharedSizeBytes = A(MAX_DYNAMIC_SHARED_SIZE_BYTES);
    attr->preferredShmemCarveout = A(PREFERRED_SHARED_MEMORY_CARVEOUT);
    attr->clusterDimMustBeSet = A(CLUSTER_SIZE_MUST_BE_SET);
    attr->requiredClusterWidth = A(REQUIRED_CLUSTER_WIDTH);
    attr->requiredClusterHeight = A(REQUIRED_CLUSTER_HEIGHT);
    attr->requiredClusterDepth = A(REQUIRED_CLUSTER_DEPTH);
    attr->clusterSchedulingPolicyPreference = A(CLUSTER_SCHEDULING_POLICY_PREFERENCE);
    attr->nonPortableClusterSizeAllowed = A(NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
#undef A
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    CUkernel kernel = NULL;
    CUdevice dev = 0;
    cudaError_t e = kernel_here(func, &kernel, &dev);

    /* cudaFuncAttribute's settable values are CUfunction_attribute's. */
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuKernelSetAttribute((CUfunction_attribute)attr, value, kernel, dev));
    return gpu__cudart_set(e);
}

/* cudaFuncCache's values are CUfunc_cache's. */
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    CUfunction f = NULL;
    cudaError_t e = function_here(func, &f);

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuFuncSetCacheConfig(f, (CUfunc_cache)cacheConfig));
    return gpu__cudart_set(e);
}
