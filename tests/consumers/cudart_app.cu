// SPDX-License-Identifier: MIT
// A CUDA runtime program as a user's project has one: a kernel launched with <<<...>>>, memory copied both
// ways. run.sh builds it with nvcc -cudart=shared against the installed libgpushim-cudart (pkg-config and
// CMake) and runs it on the installed fake driver.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, float by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= by;
}

static int check(cudaError_t err, const char *what)
{
    if (err != cudaSuccess)
        std::fprintf(stderr, "cudart consumer: %s: %s: %s\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
    return err != cudaSuccess;
}

int main()
{
    enum { N = 1000 };
    static float host[N];
    float *dev = nullptr;

    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    if (check(cudaMalloc(&dev, sizeof(host)), "cudaMalloc") ||
        check(cudaMemcpy(dev, host, sizeof(host), cudaMemcpyHostToDevice), "cudaMemcpy to the device"))
        return 1;
    scale<<<(N + 127) / 128, 128>>>(dev, 3.0f, N);
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "cudaDeviceSynchronize") ||
        check(cudaMemcpy(host, dev, sizeof(host), cudaMemcpyDeviceToHost), "cudaMemcpy to the host") ||
        check(cudaFree(dev), "cudaFree"))
        return 1;
    for (int i = 0; i < N; i++) {
        if (host[i] != 3.0f * (float)i) {
            std::fprintf(stderr, "cudart consumer: element %d is %g, not %g\n", i, host[i], 3.0 * i);
            return 1;
        }
    }
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    std::printf("cudart consumer: ok: %d floats times 3, runtime %d\n", N, runtime);
    return 0;
}
