/* SPDX-License-Identifier: MIT */
/*
 * runtime_mix: the runtime API (cudart) and the driver API in one program, as
 * programs that load their own modules do. The runtime makes the device's
 * primary context current, allocates and copies (cudaMalloc, cudaMemcpy);
 * the driver API finds that context (cuCtxGetCurrent), loads vector_add from
 * PTX into it (cuModuleLoadData) and launches it on the runtime's pointers
 * (cuLaunchKernel); the runtime synchronizes and copies the result back.
 *
 * usage: runtime_mix VECTOR_ADD_PTX
 */
#include "common.h"

#include <cuda_runtime_api.h>
#include <stdint.h>

enum { N = 30000, BLOCK = 256 };

#define CHECK_RT(call) \
    do { \
        cudaError_t rt_ = (call); \
        if (rt_ != cudaSuccess) { \
            fprintf(stderr, "%s failed: %s (%d): %s\n", #call, cudaGetErrorName(rt_), (int)rt_, \
                    cudaGetErrorString(rt_)); \
            exit(1); \
        } \
    } while (0)

int main(int argc, char **argv)
{
    CUcontext ctx = NULL, primary = NULL;
    CUdevice dev;
    CUmodule module;
    CUfunction kernel;
    float *a, *b, *c;
    static float ha[N], hb[N], hc[N];
    int runtime_version = 0, n = N;

    if (argc != 2)
        usage(argv[0], "VECTOR_ADD_PTX");
    CHECK(cuInit(0));
    CHECK_RT(cudaRuntimeGetVersion(&runtime_version));
    CHECK_RT(cudaSetDevice(0));
    CHECK_RT(cudaFree(NULL)); /* makes the runtime's context current */
    CHECK(cuCtxGetCurrent(&ctx));
    if (ctx == NULL)
        result_wrong("cuCtxGetCurrent: no context after the runtime's first call");
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&primary, dev));
    if (primary != ctx)
        result_wrong("the runtime's context is not the device's primary context");
    printf("runtime_mix: runtime %d.%d; the driver API sees its context, the primary one\n",
           runtime_version / 1000, runtime_version % 1000 / 10);

    for (int i = 0; i < N; i++) {
        ha[i] = (float)(i % 977);
        hb[i] = (float)(i / 3);
    }
    CHECK_RT(cudaMalloc((void **)&a, sizeof(ha)));
    CHECK_RT(cudaMalloc((void **)&b, sizeof(hb)));
    CHECK_RT(cudaMalloc((void **)&c, sizeof(hc)));
    CHECK_RT(cudaMemcpy(a, ha, sizeof(ha), cudaMemcpyHostToDevice));
    CHECK_RT(cudaMemcpy(b, hb, sizeof(hb), cudaMemcpyHostToDevice));

    kernel = kernel_load(argv[1], "vector_add", &module);
    {
        CUdeviceptr da = (CUdeviceptr)(uintptr_t)a, db = (CUdeviceptr)(uintptr_t)b, dc = (CUdeviceptr)(uintptr_t)c;
        void *args[] = {&da, &db, &dc, &n};

        CHECK(cuLaunchKernel(kernel, (N + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL));
    }
    CHECK_RT(cudaDeviceSynchronize());
    CHECK_RT(cudaMemcpy(hc, c, sizeof(hc), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (hc[i] != ha[i] + hb[i]) {
            fprintf(stderr, "c[%d] = %g, expected %g\n", i, (double)hc[i], (double)(ha[i] + hb[i]));
            result_wrong("vector_add launched by the driver API on cudaMalloc'd memory");
        }
    printf("runtime_mix: cuLaunchKernel on cudaMalloc'd memory, read back by cudaMemcpy: %d sums right\n", N);

    CHECK(cuModuleUnload(module));
    CHECK_RT(cudaFree(a));
    CHECK_RT(cudaFree(b));
    CHECK_RT(cudaFree(c));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("runtime_mix: ok\n");
    return 0;
}
