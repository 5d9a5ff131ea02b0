/* SPDX-License-Identifier: MIT */
/*
 * vector_add: its own context (cuCtxCreate, in common.h), the kernel loaded from PTX
 * (cuModuleLoadData), a block size from cuOccupancyMaxPotentialBlockSize,
 * cuLaunchKernel, and the sum checked on the host.
 *
 * usage: vector_add VECTOR_ADD_PTX
 */
#include "common.h"

enum { N = 50000 };

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction kernel;
    CUdeviceptr d_a, d_b, d_c;
    int min_grid = 0, block = 0, n = N;
    float *a, *b, *c;

    if (argc != 2)
        usage(argv[0], "VECTOR_ADD_PTX");
    CHECK(cuInit(0));
    ctx = context_create(&dev);
    kernel = kernel_load(argv[1], "vector_add", &module);
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, NULL, 0, 0));
    if (block <= 0)
        result_wrong("cuOccupancyMaxPotentialBlockSize gave no block size");

    a = malloc(N * sizeof(float));
    b = malloc(N * sizeof(float));
    c = malloc(N * sizeof(float));
    if (a == NULL || b == NULL || c == NULL)
        result_wrong("out of host memory");
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(3 * i) - 7.0f;
        c[i] = -1.0f;
    }
    CHECK(cuMemAlloc(&d_a, N * sizeof(float)));
    CHECK(cuMemAlloc(&d_b, N * sizeof(float)));
    CHECK(cuMemAlloc(&d_c, N * sizeof(float)));
    CHECK(cuMemcpyHtoD(d_a, a, N * sizeof(float)));
    CHECK(cuMemcpyHtoD(d_b, b, N * sizeof(float)));

    {
        unsigned grid = (unsigned)((N + block - 1) / block);
        void *args[] = {&d_a, &d_b, &d_c, &n};

        CHECK(cuLaunchKernel(kernel, grid, 1, 1, (unsigned)block, 1, 1, 0, NULL, args, NULL));
        CHECK(cuCtxSynchronize());
        printf("vector_add: %d elements, %u blocks of %d threads (occupancy's choice)\n", N, grid, block);
    }
    CHECK(cuMemcpyDtoH(c, d_c, N * sizeof(float)));
    for (int i = 0; i < N; i++)
        if (c[i] != a[i] + b[i]) {
            fprintf(stderr, "c[%d] = %g, expected %g\n", i, (double)c[i], (double)(a[i] + b[i]));
            result_wrong("vector_add");
        }

    CHECK(cuMemFree(d_a));
    CHECK(cuMemFree(d_b));
    CHECK(cuMemFree(d_c));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));
    free(a);
    free(b);
    free(c);
    printf("vector_add: ok\n");
    return 0;
}
