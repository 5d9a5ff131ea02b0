// SPDX-License-Identifier: MIT
// Variables in device memory: a __constant__ array written with cudaMemcpyToSymbol, a __device__ variable
// read with cudaMemcpyFromSymbol and by address (cudaGetSymbolAddress).
#include "check.h"

__constant__ float coefficients[4];
__device__ int counter;

__global__ void polynomial(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        float v = x[i];
        y[i] = coefficients[0] + v * (coefficients[1] + v * (coefficients[2] + v * coefficients[3]));
        atomicAdd(&counter, 1);
    }
}

int main()
{
    const int n = 256;
    float x[n], y[n], *dx, *dy;
    const float c[4] = {1.0f, 2.0f, 3.0f, 4.0f};

    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 8) * 0.5f;
    CHECK_CUDA(cudaMalloc(&dx, sizeof(x)));
    CHECK_CUDA(cudaMalloc(&dy, sizeof(y)));
    CHECK_CUDA(cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpyToSymbol(coefficients, c, sizeof(c)));
    int zero = 0;
    CHECK_CUDA(cudaMemcpyToSymbol(counter, &zero, sizeof(zero), 0, cudaMemcpyHostToDevice));
    // Past the variable's end.
    CHECK_ERROR(cudaMemcpyToSymbol(coefficients, c, sizeof(c), sizeof(float)), cudaErrorInvalidValue);
    CHECK_ERROR(cudaMemcpyToSymbol(x, c, sizeof(c)), cudaErrorInvalidSymbol);
    CHECK_ERROR(cudaGetLastError(), cudaErrorInvalidSymbol);
    CHECK_CUDA(cudaGetLastError());

    polynomial<<<(n + 63) / 64, 64>>>(dx, dy, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(y, dy, sizeof(y), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float v = x[i];
        CHECK(y[i] == 1.0f + v * (2.0f + v * (3.0f + v * 4.0f)));
    }

    int count = 0;
    CHECK_CUDA(cudaMemcpyFromSymbol(&count, counter, sizeof(count)));
    CHECK(count == n);
    int *counter_address = nullptr;
    size_t size = 0;
    CHECK_CUDA(cudaGetSymbolAddress((void **)&counter_address, counter));
    CHECK_CUDA(cudaGetSymbolSize(&size, counter));
    CHECK(counter_address != nullptr && size == sizeof(int));
    count = 0;
    CHECK_CUDA(cudaMemcpy(&count, counter_address, sizeof(count), cudaMemcpyDeviceToHost));
    CHECK(count == n);
    float back[4];
    CHECK_CUDA(cudaMemcpyFromSymbol(back, coefficients, 2 * sizeof(float), 2 * sizeof(float)));
    CHECK(back[0] == 3.0f && back[1] == 4.0f);

    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
    std::printf("symbols: ok\n");
    return 0;
}
