// SPDX-License-Identifier: MIT
// With no driver to load (GPUSHIM_LIBCUDA names a missing file, argv[1]), every call that needs one fails
// with cudaErrorInsufficientDriver, whose string says why, and a launch fails the same way.
#include "check.h"

#include <cstring>

__global__ void touch(int *p)
{
    *p = 1;
}

int main(int argc, char **argv)
{
    int count = -1, version = -1;
    void *p = nullptr;

    CHECK(argc == 2);
    CHECK_ERROR(cudaGetDeviceCount(&count), cudaErrorInsufficientDriver);
    CHECK(count == 0);
    CHECK(std::strstr(cudaGetErrorString(cudaErrorInsufficientDriver), argv[1]) != nullptr);
    CHECK_ERROR(cudaMalloc(&p, 64), cudaErrorInsufficientDriver);
    CHECK_ERROR(cudaSetDevice(0), cudaErrorInsufficientDriver);
    touch<<<1, 1>>>((int *)p);
    CHECK_ERROR(cudaGetLastError(), cudaErrorInsufficientDriver);
    CHECK_CUDA(cudaDriverGetVersion(&version));
    CHECK(version == 0);
    std::printf("no driver: %s\n", cudaGetErrorString(cudaErrorInsufficientDriver));
    return 0;
}
