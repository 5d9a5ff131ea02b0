// SPDX-License-Identifier: MIT
// Vector add through <<<...>>>, a template kernel, cudaLaunchKernel by hand, and what the runtime
// reports of the device and of a kernel.
#include "check.h"

#include <cstring>
#include <thread>
#include <vector>

__global__ void add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        c[i] = a[i] + b[i];
}

template <typename T> __global__ void scale(T *p, T by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        p[i] *= by;
}

int main()
{
    const int n = 1000;
    std::vector<float> a(n), b(n), c(n);
    float *da, *db, *dc;
    int count = 0, device = -1, version = 0;

    CHECK_CUDA(cudaGetDeviceCount(&count));
    CHECK(count >= 1);
    CHECK_CUDA(cudaSetDevice(0));
    CHECK_CUDA(cudaGetDevice(&device));
    CHECK(device == 0);
    CHECK_CUDA(cudaRuntimeGetVersion(&version));
    CHECK(version == CUDART_VERSION);
    CHECK_CUDA(cudaDriverGetVersion(&version));
    CHECK(version >= 12000);

    cudaDeviceProp prop;
    std::memset(&prop, 0xff, sizeof(prop));
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    CHECK(prop.name[0] != '\0' && std::memchr(prop.name, '\0', sizeof(prop.name)));
    CHECK(prop.major >= 3 && prop.warpSize == 32 && prop.maxThreadsPerBlock >= 1024);
    CHECK(prop.totalGlobalMem > 0 && prop.multiProcessorCount > 0 && prop.maxGridSize[0] > 0);
    int attr = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&attr, cudaDevAttrMaxThreadsPerBlock, 0));
    CHECK(attr == prop.maxThreadsPerBlock);
    CHECK_ERROR(cudaGetDeviceProperties(&prop, count), cudaErrorInvalidDevice);
    CHECK_ERROR(cudaGetLastError(), cudaErrorInvalidDevice);
    CHECK_CUDA(cudaGetLastError());

    for (int i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 2.0f * (float)i;
    }
    CHECK_CUDA(cudaMalloc(&da, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&db, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dc, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyDefault));
    CHECK_CUDA(cudaMemset(dc, 0, n * sizeof(float)));

    add<<<(n + 127) / 128, 128>>>(da, db, dc, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(c[i] == 3.0f * (float)i);

    scale<float><<<(n + 255) / 256, 256>>>(dc, 2.0f, n);
    CHECK_CUDA(cudaGetLastError());
    // The same kernel through cudaLaunchKernel, as a program that builds its own argument array does.
    int m = n;
    void *args[] = {&da, &db, &da, &m};
    CHECK_CUDA(cudaLaunchKernel((const void *)add, dim3((n + 127) / 128), dim3(128), args, 0, 0));
    CHECK_CUDA(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(c[i] == 6.0f * (float)i);
    CHECK_CUDA(cudaMemcpy(c.data(), da, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(c[i] == 3.0f * (float)i);
    // And through its kernel handle: da = da + db once more.
    cudaKernel_t handle;
    CHECK_CUDA(cudaGetKernel(&handle, (const void *)add));
    CHECK_CUDA(cudaLaunchKernel((const void *)handle, dim3((n + 127) / 128), dim3(128), args, 0, 0));
    CHECK_CUDA(cudaMemcpy(c.data(), da, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(c[i] == 5.0f * (float)i);

    cudaFuncAttributes fa;
    CHECK_CUDA(cudaFuncGetAttributes(&fa, (const void *)add));
    CHECK(fa.maxThreadsPerBlock >= 128 && fa.ptxVersion > 0);
    // A host function that is no kernel.
    CHECK_ERROR(cudaLaunchKernel((const void *)main, dim3(1), dim3(1), nullptr, 0, 0), cudaErrorInvalidDeviceFunction);
    CHECK_ERROR(cudaPeekAtLastError(), cudaErrorInvalidDeviceFunction);
    CHECK_ERROR(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    // A block over the device's limit: the launch fails, and the error is the thread's last.
    add<<<1, prop.maxThreadsPerBlock + 1>>>(da, db, dc, n);
    CHECK_ERROR(cudaGetLastError(), cudaErrorInvalidConfiguration);
    // A function the library does not implement answers cudaErrorNotSupported, recorded.
    CHECK_ERROR(cudaGraphicsUnregisterResource(nullptr), cudaErrorNotSupported);
    CHECK_ERROR(cudaGetLastError(), cudaErrorNotSupported);
    // The last error is each thread's own: one thread's failure is not another's.
    CHECK_ERROR(cudaSetDevice(-1), cudaErrorInvalidDevice);
    cudaError_t other = cudaErrorUnknown;
    std::thread([&other] { other = cudaGetLastError(); }).join();
    CHECK(other == cudaSuccess);
    CHECK_ERROR(cudaGetLastError(), cudaErrorInvalidDevice);
    CHECK(std::strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") == 0);
    CHECK(std::strcmp(cudaGetErrorString(cudaErrorLaunchOutOfResources), "launch out of resources") == 0);

    size_t free_bytes = 0, total = 0;
    CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
    CHECK(total > 0 && free_bytes <= total);
    CHECK_CUDA(cudaFree(da));
    CHECK_CUDA(cudaFree(db));
    CHECK_CUDA(cudaFree(dc));
    CHECK_CUDA(cudaFree(nullptr));
    CHECK_CUDA(cudaDeviceReset());
    // After a reset the device starts afresh: the kernels load again, into its new context.
    CHECK_CUDA(cudaMalloc(&dc, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dc, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    scale<float><<<(n + 255) / 256, 256>>>(dc, 2.0f, n);
    CHECK_CUDA(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(c[i] == 2.0f * (float)i);
    CHECK_CUDA(cudaFree(dc));
    std::printf("vector add: ok\n");
    return 0;
}
