/* SPDX-License-Identifier: MIT */
/*
 * Devices: the driver's initialisation, each device's primary context, the
 * thread's current device, and what the runtime reports of a device.
 */
#include "runtime.h"

#include <cudaProfiler.h>
#include <cuda_profiler_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The most devices the runtime serves; a process with more sees the first ones. */
#define MAX_DEVICES 64

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static cudaError_t init_error;
static int device_count;

static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary[MAX_DEVICES]; /* retained once, at first use; NULL before */
/* How many times cudaDeviceReset reset each device: written with primary_lock held. */
static atomic_uint resets[MAX_DEVICES];

static _Thread_local int thread_device; /* cudaSetDevice's, 0 until then */
/*
 * The primary context the runtime made current on this thread, its device, and
 * that device's reset count then: a reset in any thread leaves that context
 * destroyed, and the thread's next call makes the device's new one current.
 */
static _Thread_local CUcontext thread_ctx;
static _Thread_local int thread_ctx_device;
static _Thread_local unsigned thread_ctx_resets;

static void init(void)
{
    CUresult r = cuInit(0);

    if (r == CUDA_SUCCESS)
        r = cuDeviceGetCount(&device_count);
    if (r == CUDA_SUCCESS && device_count == 0)
        r = CUDA_ERROR_NO_DEVICE;
    if (device_count > MAX_DEVICES)
        device_count = MAX_DEVICES;
    if (r == CUDA_ERROR_STUB_LIBRARY || r == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED) {
        /* No driver could be loaded: libgpushim-cuda says why, for cudaGetErrorString. */
        const char *why = NULL;

        if (cuGetErrorString(r, &why) != CUDA_SUCCESS || !why)
            why = "the driver library did not load";
        gpu__cudart_set_init_reason(why);
        init_error = cudaErrorInsufficientDriver;
        return;
    }
    init_error = gpu__cudart_map(r);
}

cudaError_t gpu__cudart_init(void)
{
    pthread_once(&init_once, init);
    return init_error;
}

/* gpu__cudart_primary(), and the device's reset count when the context was read. */
static cudaError_t primary_of(int device, CUcontext *out, unsigned *reset_count)
{
    cudaError_t e = gpu__cudart_init();
    CUresult r = CUDA_SUCCESS;

    if (e != cudaSuccess)
        return e;
    if (device < 0 || device >= device_count)
        return cudaErrorInvalidDevice;
    pthread_mutex_lock(&primary_lock);
    if (!primary[device]) {
        CUdevice dev;

        r = cuDeviceGet(&dev, device);
        if (r == CUDA_SUCCESS)
            r = cuDevicePrimaryCtxRetain(&primary[device], dev);
    }
    *out = primary[device];
    *reset_count = atomic_load(&resets[device]);
    pthread_mutex_unlock(&primary_lock);
    return gpu__cudart_map(r);
}

cudaError_t gpu__cudart_primary(int device, CUcontext *out)
{
    unsigned reset_count;

    return primary_of(device, out, &reset_count);
}

/* Makes `device`'s primary context current on the calling thread, and remembers it as the runtime's. */
static cudaError_t make_current(int device)
{
    CUcontext ctx = NULL;
    unsigned reset_count = 0;
    cudaError_t e = primary_of(device, &ctx, &reset_count);

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxSetCurrent(ctx));
    if (e == cudaSuccess) {
        thread_ctx = ctx;
        thread_ctx_device = device;
        thread_ctx_resets = reset_count;
    }
    return e;
}

/* Whether `current` is a primary context the runtime made current here, and its device was reset since. */
static bool reset_since(CUcontext current)
{
    return current == thread_ctx && atomic_load(&resets[thread_ctx_device]) != thread_ctx_resets;
}

cudaError_t gpu__cudart_context(void)
{
    cudaError_t e = gpu__cudart_init();
    CUcontext current = NULL;

    if (e != cudaSuccess)
        return e;
    /* A context the program made current through the driver API is the one the runtime uses. */
    if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current && !reset_since(current))
        return cudaSuccess;
    return make_current(thread_device);
}

cudaError_t cudaGetDeviceCount(int *count)
{
    cudaError_t e = gpu__cudart_init();

    if (!count)
        return gpu__cudart_set(cudaErrorInvalidValue);
    *count = e == cudaSuccess ? device_count : 0;
    return gpu__cudart_set(e);
}

cudaError_t cudaSetDevice(int device)
{
    cudaError_t e = make_current(device);

    if (e == cudaSuccess)
        thread_device = device;
    return gpu__cudart_set(e);
}

cudaError_t cudaGetDevice(int *device)
{
    cudaError_t e = gpu__cudart_init();
    CUcontext current = NULL;
    CUdevice dev;

    if (!device)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current && !reset_since(current) &&
        cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
        *device = (int)dev;
        return cudaSuccess;
    }
    *device = thread_device;
    return cudaSuccess;
}

/* The driver's device for the runtime's ordinal. */
static cudaError_t device_handle(int device, CUdevice *out)
{
    cudaError_t e = gpu__cudart_init();

    if (e != cudaSuccess)
        return e;
    if (device < 0 || device >= device_count)
        return cudaErrorInvalidDevice;
    return gpu__cudart_map(cuDeviceGet(out, device));
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    CUdevice dev;
    cudaError_t e = device_handle(device, &dev);

    if (!value)
        return gpu__cudart_set(cudaErrorInvalidValue);
    /* cudaDeviceAttr's values are CUdevice_attribute's. */
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuDeviceGetAttribute(value, (CUdevice_attribute)attr, dev));
    return gpu__cudart_set(e);
}

/* Where each attribute goes in cudaDeviceProp, and how wide the field is. */
struct property {
    size_t offset;
    CUdevice_attribute attribute;
};

#define P(field, name) {offsetof(struct cudaDeviceProp, field), CU_DEVICE_ATTRIBUTE_##name}
static const struct property int_properties[] = {
    P(regsPerBlock, MAX_REGISTERS_PER_BLOCK),
    P(warpSize, WARP_SIZE),
    P(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK),
    P(maxThreadsDim[0], MAX_BLOCK_DIM_X),
    P(maxThreadsDim[1], MAX_BLOCK_DIM_Y),
    P(maxThreadsDim[2], MAX_BLOCK_DIM_Z),
    P(maxGridSize[0], MAX_GRID_DIM_X),
    P(maxGridSize[1], MAX_GRID_DIM_Y),
    P(maxGridSize[2], MAX_GRID_DIM_Z),
    P(major, COMPUTE_CAPABILITY_MAJOR),
    P(minor, COMPUTE_CAPABILITY_MINOR),
    P(multiProcessorCount, MULTIPROCESSOR_COUNT),
    P(integrated, INTEGRATED),
    P(canMapHostMemory, CAN_MAP_HOST_MEMORY),
    P(maxTexture1D, MAXIMUM_TEXTURE1D_WIDTH),
    P(maxTexture1DMipmap, MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH),
    P(maxTexture2D[0], MAXIMUM_TEXTURE2D_WIDTH),
    P(maxTexture2D[1], MAXIMUM_TEXTURE2D_HEIGHT),
    P(maxTexture2DMipmap[0], MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH),
    P(maxTexture2DMipmap[1], MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT),
    P(maxTexture2DLinear[0], MAXIMUM_TEXTURE2D_LINEAR_WIDTH),
    P(maxTexture2DLinear[1], MAXIMUM_TEXTURE2D_LINEAR_HEIGHT),
    P(maxTexture2DLinear[2], MAXIMUM_TEXTURE2D_LINEAR_PITCH),
    P(maxTexture2DGather[0], MAXIMUM_TEXTURE2D_GATHER_WIDTH),
    P(maxTexture2DGather[1], MAXIMUM_TEXTURE2D_GATHER_HEIGHT),
    P(maxTexture3D[0], MAXIMUM_TEXTURE3D_WIDTH),
    P(maxTexture3D[1], MAXIMUM_TEXTURE3D_HEIGHT),
    P(maxTexture3D[2], MAXIMUM_TEXTURE3D_DEPTH),
    P(maxTexture3DAlt[0], MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE),
    P(maxTexture3DAlt[1], MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE),
    P(maxTexture3DAlt[2], MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE),
    P(maxTextureCubemap, MAXIMUM_TEXTURECUBEMAP_WIDTH),
    P(maxTexture1DLayered[0], MAXIMUM_TEXTURE1D_LAYERED_WIDTH),
    P(maxTexture1DLayered[1], MAXIMUM_TEXTURE1D_LAYERED_LAYERS),
    P(maxTexture2DLayered[0], MAXIMUM_TEXTURE2D_LAYERED_WIDTH),
    P(maxTexture2DLayered[1], MAXIMUM_TEXTURE2D_LAYERED_HEIGHT),
    P(maxTexture2DLayered[2], MAXIMUM_TEXTURE2D_LAYERED_LAYERS),
    P(maxTextureCubemapLayered[0], MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH),
    P(maxTextureCubemapLayered[1], MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS),
    P(maxSurface1D, MAXIMUM_SURFACE1D_WIDTH),
    P(maxSurface2D[0], MAXIMUM_SURFACE2D_WIDTH),
    P(maxSurface2D[1], MAXIMUM_SURFACE2D_HEIGHT),
    P(maxSurface3D[0], MAXIMUM_SURFACE3D_WIDTH),
    P(maxSurface3D[1], MAXIMUM_SURFACE3D_HEIGHT),
    P(maxSurface3D[2], MAXIMUM_SURFACE3D_DEPTH),
    P(maxSurface1DLayered[0], MAXIMUM_SURFACE1D_LAYERED_WIDTH),
    P(maxSurface1DLayered[1], MAXIMUM_SURFACE1D_LAYERED_LAYERS),
    P(maxSurface2DLayered[0], MAXIMUM_SURFACE2D_LAYERED_WIDTH),
    P(maxSurface2DLayered[1], MAXIMUM_SURFACE2D_LAYERED_HEIGHT),
    P(maxSurface2DLayered[2], MAXIMUM_SURFACE2D_LAYERED_LAYERS),
    P(maxSurfaceCubemap, MAXIMUM_SURFACECUBEMAP_WIDTH),
    P(maxSurfaceCubemapLayered[0], MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH),
    P(maxSurfaceCubemapLayered[1], MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS),
    P(concurrentKernels, CONCURRENT_KERNELS),
    P(ECCEnabled, ECC_ENABLED),
    P(pciBusID, PCI_BUS_ID),
    P(pciDeviceID, PCI_DEVICE_ID),
    P(pciDomainID, PCI_DOMAIN_ID),
    P(tccDriver, TCC_DRIVER),
    P(asyncEngineCount, ASYNC_ENGINE_COUNT),
    P(unifiedAddressing, UNIFIED_ADDRESSING),
    P(memoryBusWidth, GLOBAL_MEMORY_BUS_WIDTH),
    P(l2CacheSize, L2_CACHE_SIZE),
    P(persistingL2CacheMaxSize, MAX_PERSISTING_L2_CACHE_SIZE),
    P(maxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR),
    P(streamPrioritiesSupported, STREAM_PRIORITIES_SUPPORTED),
    P(globalL1CacheSupported, GLOBAL_L1_CACHE_SUPPORTED),
    P(localL1CacheSupported, LOCAL_L1_CACHE_SUPPORTED),
    P(regsPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR),
    P(managedMemory, MANAGED_MEMORY),
    P(isMultiGpuBoard, MULTI_GPU_BOARD),
    P(multiGpuBoardGroupID, MULTI_GPU_BOARD_GROUP_ID),
    P(hostNativeAtomicSupported, HOST_NATIVE_ATOMIC_SUPPORTED),
    P(pageableMemoryAccess, PAGEABLE_MEMORY_ACCESS),
    P(concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS),
    P(computePreemptionSupported, COMPUTE_PREEMPTION_SUPPORTED),
    P(canUseHostPointerForRegisteredMem, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM),
    P(cooperativeLaunch, COOPERATIVE_LAUNCH),
    P(pageableMemoryAccessUsesHostPageTables, PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES),
    P(directManagedMemAccessFromHost, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
    P(maxBlocksPerMultiProcessor, MAX_BLOCKS_PER_MULTIPROCESSOR),
    P(accessPolicyMaxWindowSize, MAX_ACCESS_POLICY_WINDOW_SIZE),
    P(hostRegisterSupported, HOST_REGISTER_SUPPORTED),
    P(sparseCudaArraySupported, SPARSE_CUDA_ARRAY_SUPPORTED),
    P(hostRegisterReadOnlySupported, READ_ONLY_HOST_REGISTER_SUPPORTED),
    P(timelineSemaphoreInteropSupported, TIMELINE_SEMAPHORE_INTEROP_SUPPORTED),
    P(memoryPoolsSupported, MEMORY_POOLS_SUPPORTED),
    P(gpuDirectRDMASupported, GPU_DIRECT_RDMA_SUPPORTED),
    P(gpuDirectRDMAWritesOrdering, GPU_DIRECT_RDMA_WRITES_ORDERING),
    P(deferredMappingCudaArraySupported, DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED),
    P(ipcEventSupported, IPC_EVENT_SUPPORTED),
    P(clusterLaunch, CLUSTER_LAUNCH),
    P(unifiedFunctionPointers, UNIFIED_FUNCTION_POINTERS),
    P(deviceNumaConfig, NUMA_CONFIG),
    P(deviceNumaId, NUMA_ID),
    P(mpsEnabled, MPS_ENABLED),
    P(hostNumaId, HOST_NUMA_ID),
    P(hostNumaMultinodeIpcSupported, HOST_NUMA_MULTINODE_IPC_SUPPORTED),
};
static const struct property size_properties[] = {
    P(sharedMemPerBlock, MAX_SHARED_MEMORY_PER_BLOCK),
    P(memPitch, MAX_PITCH),
    P(totalConstMem, TOTAL_CONSTANT_MEMORY),
    P(textureAlignment, TEXTURE_ALIGNMENT),
    P(texturePitchAlignment, TEXTURE_PITCH_ALIGNMENT),
    P(surfaceAlignment, SURFACE_ALIGNMENT),
    P(sharedMemPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    P(sharedMemPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
    P(reservedSharedMemPerBlock, RESERVED_SHARED_MEMORY_PER_BLOCK),
};
/* The unsigned fields, which hold the attribute's bits as they are. */
static const struct property unsigned_properties[] = {
    P(gpuDirectRDMAFlushWritesOptions, GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS),
    P(memoryPoolSupportedHandleTypes, MEMPOOL_SUPPORTED_HANDLE_TYPES),
    P(gpuPciDeviceID, GPU_PCI_DEVICE_ID),
    P(gpuPciSubsystemID, GPU_PCI_SUBSYSTEM_ID),
};
#undef P

static void fill_properties(struct cudaDeviceProp *p, CUdevice dev)
{
    char *base = (char *)p;
    size_t total = 0;

    memset(p, 0, sizeof(*p));
    if (cuDeviceGetName(p->name, (int)sizeof(p->name), dev) != CUDA_SUCCESS)
        p->name[0] = '\0';
    (void)cuDeviceGetUuid((CUuuid *)&p->uuid, dev);
    if (cuDeviceTotalMem(&total, dev) == CUDA_SUCCESS)
        p->totalGlobalMem = total;
    /* An attribute the driver does not answer stays 0. */
    for (size_t i = 0; i < sizeof(int_properties) / sizeof(int_properties[0]); i++) {
        int v = 0;

        if (cuDeviceGetAttribute(&v, int_properties[i].attribute, dev) == CUDA_SUCCESS)
            *(int *)(void *)(base + int_properties[i].offset) = v;
    }
    for (size_t i = 0; i < sizeof(size_properties) / sizeof(size_properties[0]); i++) {
        int v = 0;

        if (cuDeviceGetAttribute(&v, size_properties[i].attribute, dev) == CUDA_SUCCESS && v > 0)
            *(size_t *)(void *)(base + size_properties[i].offset) = (size_t)v;
    }
    for (size_t i = 0; i < sizeof(unsigned_properties) / sizeof(unsigned_properties[0]); i++) {
        int v = 0;

        if (cuDeviceGetAttribute(&v, unsigned_properties[i].attribute, dev) == CUDA_SUCCESS)
            *(unsigned int *)(void *)(base + unsigned_properties[i].offset) = (unsigned int)v;
    }
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    CUdevice dev;
    cudaError_t e = device_handle(device, &dev);

    if (!prop)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        fill_properties(prop, dev);
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceSynchronize(void)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxSynchronize());
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceReset(void)
{
    int device = 0;
    CUdevice dev;
    cudaError_t e = cudaGetDevice(&device);

    if (e == cudaSuccess)
        e = device_handle(device, &dev);
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    /*
     * The runtime's retain is given back too, and the thread left with no context: the next call retains the
     * device's primary context afresh, as the first call did. Another thread where the runtime made the old
     * one current sees the reset count move, and does the same at its next call (reset_since()).
     */
    pthread_mutex_lock(&primary_lock);
    e = gpu__cudart_map(cuDevicePrimaryCtxReset(dev));
    if (e == cudaSuccess && primary[device]) {
        CUcontext current = NULL;

        if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == primary[device])
            (void)cuCtxSetCurrent(NULL);
        (void)cuDevicePrimaryCtxRelease(dev);
        primary[device] = NULL;
    }
    if (e == cudaSuccess)
        atomic_fetch_add(&resets[device], 1);
    pthread_mutex_unlock(&primary_lock);
    return gpu__cudart_set(e);
}

cudaError_t cudaDriverGetVersion(int *version)
{
    CUresult r;

    if (!version)
        return gpu__cudart_set(cudaErrorInvalidValue);
    /* No driver is version 0, and no error (the runtime's documented answer). */
    r = cuDriverGetVersion(version);
    if (r != CUDA_SUCCESS)
        *version = 0;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    if (!version)
        return gpu__cudart_set(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    int device = 0;
    CUdevice dev;
    cudaError_t e = cudaGetDevice(&device);

    if (e == cudaSuccess)
        e = device_handle(device, &dev);
    /* cudaDeviceScheduleMask's and cudaDeviceLmemResizeToMax are the driver's CU_CTX_ flags; mapping is always on. */
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuDevicePrimaryCtxSetFlags(dev, flags & ~(unsigned)cudaDeviceMapHost));
    return gpu__cudart_set(e);
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    int device = 0, active = 0;
    CUdevice dev;
    cudaError_t e = cudaGetDevice(&device);

    if (!flags)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = device_handle(device, &dev);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuDevicePrimaryCtxGetState(dev, flags, &active));
    if (e == cudaSuccess)
        *flags |= cudaDeviceMapHost;
    return gpu__cudart_set(e);
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    cudaError_t e = gpu__cudart_init();

    if (!device || !prop)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        *device = 0;
    return gpu__cudart_set(e);
}

/* cudaLimit's values are CUlimit's. */
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxSetLimit((CUlimit)limit, value));
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxGetLimit(pValue, (CUlimit)limit));
    return gpu__cudart_set(e);
}

/* cudaFuncCache's values are CUfunc_cache's. */
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxSetCacheConfig((CUfunc_cache)cacheConfig));
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    CUfunc_cache c = CU_FUNC_CACHE_PREFER_NONE;
    cudaError_t e = gpu__cudart_context();

    if (!pCacheConfig)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxGetCacheConfig(&c));
    if (e == cudaSuccess)
        *pCacheConfig = (enum cudaFuncCache)c;
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    CUdevice a, b;
    cudaError_t e = device_handle(device, &a);

    if (!canAccessPeer)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = device_handle(peerDevice, &b);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuDeviceCanAccessPeer(canAccessPeer, a, b));
    return gpu__cudart_set(e);
}

cudaError_t cudaProfilerStart(void)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuProfilerStart());
    return gpu__cudart_set(e);
}

cudaError_t cudaProfilerStop(void)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuProfilerStop());
    return gpu__cudart_set(e);
}

/* Peer access from the current context to the peer device's primary context, which is retained for it. */
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    CUcontext peer = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_primary(peerDevice, &peer);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxEnablePeerAccess(peer, flags));
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    CUcontext peer = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_primary(peerDevice, &peer);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxDisablePeerAccess(peer));
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    CUdevice dev;
    cudaError_t e = device_handle(device, &dev);

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuDeviceGetPCIBusId(pciBusId, len, dev));
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    CUdevice dev;
    cudaError_t e = gpu__cudart_init();

    if (!device)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuDeviceGetByPCIBusId(&dev, pciBusId));
    if (e == cudaSuccess)
        *device = (int)dev;
    return gpu__cudart_set(e);
}

/* A driver function by name, through the driver's own cuGetProcAddress; the query results have its values. */
cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    cudaError_t e = gpu__cudart_init();

    if (!symbol || !funcPtr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGetProcAddress(symbol, funcPtr, (int)cudaVersion, flags, &status));
    if (driverStatus)
        *driverStatus = (enum cudaDriverEntryPointQueryResult)status;
    return gpu__cudart_set(e);
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return cudaGetDriverEntryPointByVersion(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

/* A cudaMemPool_t is the driver's CUmemoryPool. */
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    CUmemoryPool pool = NULL;
    CUdevice dev;
    cudaError_t e = device_handle(device, &dev);

    if (!memPool)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuDeviceGetDefaultMemPool(&pool, dev));
    if (e == cudaSuccess)
        *memPool = (cudaMemPool_t)pool;
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    CUmemoryPool pool = NULL;
    CUdevice dev;
    cudaError_t e = device_handle(device, &dev);

    if (!memPool)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuDeviceGetMemPool(&pool, dev));
    if (e == cudaSuccess)
        *memPool = (cudaMemPool_t)pool;
    return gpu__cudart_set(e);
}

cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxResetPersistingL2Cache());
    return gpu__cudart_set(e);
}
