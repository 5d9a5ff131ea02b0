/* SPDX-License-Identifier: MIT */
/*
 * matrix_mul: a tiled matrix product with shared memory (matrix_mul.cu), its
 * occupancy per multiprocessor, cuLaunchKernel on a 2D grid, and the product
 * compared with a CPU reference. The matrices hold small integers, so every
 * sum is exact in float whatever its order, and the comparison is exact.
 *
 * usage: matrix_mul MATRIX_MUL_PTX
 */
#include "common.h"

enum { TILE = 16, M = 200, K = 136, N = 152 };

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction kernel;
    CUdeviceptr d_a, d_b, d_c;
    int blocks_per_sm = 0, m = M, n = N, k = K, static_smem = 0;
    float *a, *b, *c, *ref;

    if (argc != 2)
        usage(argv[0], "MATRIX_MUL_PTX");
    CHECK(cuInit(0));
    ctx = context_create(&dev);
    kernel = kernel_load(argv[1], "matrix_mul", &module);
    CHECK(cuFuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, TILE * TILE, 0));
    if (blocks_per_sm <= 0)
        result_wrong("a block of TILE x TILE threads does not fit on a multiprocessor");
    printf("matrix_mul: %d bytes of shared memory per block, %d blocks of %d threads per multiprocessor\n",
           static_smem, blocks_per_sm, TILE * TILE);

    a = malloc(sizeof(float) * M * K);
    b = malloc(sizeof(float) * K * N);
    c = malloc(sizeof(float) * M * N);
    ref = malloc(sizeof(float) * M * N);
    if (a == NULL || b == NULL || c == NULL || ref == NULL)
        result_wrong("out of host memory");
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 7 - 3);
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 5 - 2);
    for (int r = 0; r < M; r++)
        for (int col = 0; col < N; col++) {
            float sum = 0.0f;
            for (int i = 0; i < K; i++)
                sum += a[r * K + i] * b[i * N + col];
            ref[r * N + col] = sum;
        }

    CHECK(cuMemAlloc(&d_a, sizeof(float) * M * K));
    CHECK(cuMemAlloc(&d_b, sizeof(float) * K * N));
    CHECK(cuMemAlloc(&d_c, sizeof(float) * M * N));
    CHECK(cuMemcpyHtoD(d_a, a, sizeof(float) * M * K));
    CHECK(cuMemcpyHtoD(d_b, b, sizeof(float) * K * N));
    CHECK(cuMemsetD32(d_c, 0xffffffffu, M * N));
    {
        unsigned gx = (N + TILE - 1) / TILE, gy = (M + TILE - 1) / TILE;
        void *args[] = {&d_a, &d_b, &d_c, &m, &n, &k};

        CHECK(cuLaunchKernel(kernel, gx, gy, 1, TILE, TILE, 1, 0, NULL, args, NULL));
        CHECK(cuCtxSynchronize());
        printf("matrix_mul: C(%dx%d) = A(%dx%d) * B(%dx%d) on a %ux%u grid\n", M, N, M, K, K, N, gx, gy);
    }
    CHECK(cuMemcpyDtoH(c, d_c, sizeof(float) * M * N));
    for (int i = 0; i < M * N; i++)
        if (c[i] != ref[i]) {
            fprintf(stderr, "C[%d][%d] = %g, the CPU gives %g\n", i / N, i % N, (double)c[i], (double)ref[i]);
            result_wrong("matrix_mul");
        }

    free(a);
    free(b);
    free(c);
    free(ref);
    /* Destroying the context frees its memory and modules too. */
    CHECK(cuCtxDestroy(ctx));
    printf("matrix_mul: ok\n");
    return 0;
}
