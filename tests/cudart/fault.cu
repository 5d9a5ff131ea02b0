// SPDX-License-Identifier: MIT
// A kernel that writes far past its allocation: the launch itself succeeds, and the fault comes back as
// cudaErrorIllegalAddress from cudaDeviceSynchronize, then from every later call (it is sticky). A stream
// callback queued after the kernel is told its fault.
#include <cstdlib>

#include "check.h"

static void CUDART_CB record_status(cudaStream_t, cudaError_t status, void *data)
{
    *static_cast<cudaError_t *>(data) = status;
}

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
    // A GPU may have met the fault already, and refuse the callback with it; the fake (lazy) has not.
    cudaError_t told = cudaErrorUnknown;
    cudaError_t added = cudaStreamAddCallback(0, record_status, &told, 0);
    CHECK(added == cudaSuccess || added == cudaErrorIllegalAddress);
    CHECK(added == cudaSuccess || !std::getenv("GPUSHIM_LIBCUDA"));
    CHECK_ERROR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    // Where the driver calls it, it is told the fault (on the fake, it must call it).
    CHECK(told == cudaErrorIllegalAddress || (told == cudaErrorUnknown && !std::getenv("GPUSHIM_LIBCUDA")));
    CHECK_ERROR(cudaGetLastError(), cudaErrorIllegalAddress);
    int v = 0;
    CHECK_ERROR(cudaMemcpy(&v, p, sizeof(v), cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
    std::printf("fault: ok\n");
    return 0;
}
