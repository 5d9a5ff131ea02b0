// SPDX-License-Identifier: MIT
// Memory beyond cudaMalloc: pitched allocations and 2D copies, registered host memory, what
// cudaPointerGetAttributes says of each kind of pointer, stream-ordered allocation and memory pools, host
// callbacks, peer copies, PCI bus ids, driver entry points, limits and cache preferences.
#include "check.h"

#include <cuda_profiler_api.h>
#include <vector>

__global__ void add_row(int *p, size_t pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;

    if (x < width && y < height)
        ((int *)((char *)p + y * pitch))[x] += y;
}

static int callbacks;

static void host_fn(void *data)
{
    *(int *)data += 1;
}

static void stream_callback(cudaStream_t, cudaError_t status, void *data)
{
    if (status == cudaSuccess)
        *(int *)data += 10;
}

int main()
{
    const int width = 37, height = 5;
    std::vector<int> host(width * height), back(width * height);
    int *dev;
    size_t pitch = 0;

    for (int i = 0; i < width * height; i++)
        host[i] = i;
    CHECK_CUDA(cudaMallocPitch((void **)&dev, &pitch, width * sizeof(int), height));
    CHECK(pitch >= width * sizeof(int));
    CHECK_CUDA(cudaMemcpy2D(dev, pitch, host.data(), width * sizeof(int), width * sizeof(int), height,
                            cudaMemcpyHostToDevice));
    add_row<<<dim3(1, height), 64>>>(dev, pitch, width, height);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy2D(back.data(), width * sizeof(int), dev, pitch, width * sizeof(int), height,
                            cudaMemcpyDefault));
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            CHECK(back[y * width + x] == y * width + x + y);

    // A 2D fill of the first two rows' first 8 bytes, then the same kernel launched cooperatively.
    CHECK_CUDA(cudaMemset2D(dev, pitch, 0, 2 * sizeof(int), 2));
    CHECK_CUDA(cudaFuncSetCacheConfig((const void *)add_row, cudaFuncCachePreferL1));
    size_t row_pitch = pitch;
    int w = width, h = height;
    void *args[] = {&dev, &row_pitch, &w, &h};
    CHECK_CUDA(cudaLaunchCooperativeKernel((const void *)add_row, dim3(1, height), dim3(64), args, 0, 0));
    CHECK_CUDA(cudaMemcpy2D(back.data(), width * sizeof(int), dev, pitch, width * sizeof(int), height,
                            cudaMemcpyDeviceToHost));
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            CHECK(back[y * width + x] == (y < 2 && x < 2 ? 0 : y * width + x + y) + y);

    cudaPointerAttributes a;
    CHECK_CUDA(cudaPointerGetAttributes(&a, dev));
    CHECK(a.type == cudaMemoryTypeDevice && a.device == 0 && a.devicePointer == dev);
    CHECK_CUDA(cudaPointerGetAttributes(&a, host.data()));
    CHECK(a.type == cudaMemoryTypeUnregistered);
    CHECK_CUDA(cudaHostRegister(host.data(), host.size() * sizeof(int), cudaHostRegisterDefault));
    CHECK_CUDA(cudaPointerGetAttributes(&a, host.data()));
    CHECK(a.type == cudaMemoryTypeHost && a.hostPointer == host.data());
    CHECK_CUDA(cudaHostUnregister(host.data()));
    int *managed;
    CHECK_CUDA(cudaMallocManaged(&managed, 64));
    CHECK_CUDA(cudaPointerGetAttributes(&a, managed));
    CHECK(a.type == cudaMemoryTypeManaged);
    CHECK_CUDA(cudaFree(managed));

    cudaStream_t s;
    int *async_mem = nullptr;
    CHECK_CUDA(cudaStreamCreate(&s));
    CHECK_CUDA(cudaMallocAsync(&async_mem, 1024, s));
    CHECK_CUDA(cudaMemsetAsync(async_mem, 0, 1024, s));
    CHECK_CUDA(cudaLaunchHostFunc(s, host_fn, &callbacks));
    CHECK_CUDA(cudaStreamAddCallback(s, stream_callback, &callbacks, 0));
    CHECK_CUDA(cudaFreeAsync(async_mem, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(callbacks == 11);
    cudaStreamAttrValue policy = {}, got_policy = {};
    policy.syncPolicy = cudaSyncPolicyYield;
    CHECK_CUDA(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &policy));
    CHECK_CUDA(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &got_policy));
    CHECK(got_policy.syncPolicy == cudaSyncPolicyYield);
    CHECK_CUDA(cudaCtxResetPersistingL2Cache());
    CHECK_CUDA(cudaStreamDestroy(s));

    // The device by its PCI bus id, and back.
    char bus[32];
    int by_bus = -1;
    CHECK_CUDA(cudaDeviceGetPCIBusId(bus, sizeof(bus), 0));
    CHECK_CUDA(cudaDeviceGetByPCIBusId(&by_bus, bus));
    CHECK(by_bus == 0);
    // A driver function through the runtime, called.
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuDriverGetVersion", &fn, CUDART_VERSION, cudaEnableDefault, &found));
    CHECK(found == cudaDriverEntryPointSuccess && fn != nullptr);
    int driver_version = 0, runtime_driver_version = 0;
    CHECK(((int (*)(int *))fn)(&driver_version) == 0);
    CHECK_CUDA(cudaDriverGetVersion(&runtime_driver_version));
    CHECK(driver_version == runtime_driver_version);
    // A peer copy on one device is a device-to-device copy.
    int *peer_dst;
    CHECK_CUDA(cudaMalloc(&peer_dst, width * sizeof(int)));
    CHECK_CUDA(cudaMemcpyPeer(peer_dst, 0, dev, 0, width * sizeof(int)));
    std::vector<int> row(width);
    CHECK_CUDA(cudaMemcpy(row.data(), peer_dst, width * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(row[width - 1] == back[width - 1]);
    CHECK_CUDA(cudaFree(peer_dst));
    // The device's default memory pool keeps what the threshold says.
    cudaMemPool_t pool;
    unsigned long long threshold = 1 << 20, got_threshold = 0;
    CHECK_CUDA(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got_threshold));
    CHECK(got_threshold == threshold);
    CHECK_CUDA(cudaMemPoolTrimTo(pool, 0));
    cudaEvent_t recorded;
    CHECK_CUDA(cudaEventCreate(&recorded));
    CHECK_CUDA(cudaEventRecordWithFlags(recorded, 0, cudaEventRecordDefault));
    CHECK_CUDA(cudaEventSynchronize(recorded));
    CHECK_CUDA(cudaEventDestroy(recorded));

    size_t stack = 0;
    CHECK_CUDA(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    CHECK_CUDA(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    CHECK(stack >= 4096);
    cudaFuncCache cache;
    CHECK_CUDA(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    CHECK_CUDA(cudaDeviceGetCacheConfig(&cache));
    // A device and itself are no peers: no access, or the driver's refusal of the question.
    int peer = -1;
    cudaError_t e = cudaDeviceCanAccessPeer(&peer, 0, 0);
    CHECK((e == cudaSuccess && peer == 0) || e == cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    e = cudaProfilerStart();
    CHECK(e == cudaSuccess || e == cudaErrorProfilerDisabled);
    e = cudaProfilerStop();
    CHECK(e == cudaSuccess || e == cudaErrorProfilerDisabled);
    (void)cudaGetLastError();
    CHECK_CUDA(cudaFree(dev));
    std::printf("memory: ok\n");
    return 0;
}
