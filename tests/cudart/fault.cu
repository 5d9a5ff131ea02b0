// SPDX-License-Identifier: MIT
// A kernel that writes far past its allocation: the launch itself succeeds, and the fault comes back as
// cudaErrorIllegalAddress from cudaDeviceSynchronize, then from every later call (it is sticky).
#include "check.h"

__global__ void out_of_bounds(int *p, size_t at)
{
    p[at] = 1;
}

int main()
{
    int *p;

    CHECK_CUDA(cudaMalloc(&p, 16 * sizeof(int)));
    out_of_bounds<<<1, 1>>>(p, (size_t)1 << 36);
    CHECK_CUDA(cudaGetLastError());
    CHECK_ERROR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    CHECK_ERROR(cudaGetLastError(), cudaErrorIllegalAddress);
    int v = 0;
    CHECK_ERROR(cudaMemcpy(&v, p, sizeof(v), cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
    std::printf("fault: ok\n");
    return 0;
}
