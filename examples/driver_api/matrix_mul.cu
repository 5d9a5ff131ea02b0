// SPDX-License-Identifier: MIT
// C = A * B (A: m x k, B: k x n, row-major), one TILE x TILE block of C per
// thread block, through TILE x TILE tiles of A and B staged in shared memory.
#define TILE 16

extern "C" __global__ void matrix_mul(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float tile_a[TILE][TILE];
    __shared__ float tile_b[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;

    for (int t = 0; t < k; t += TILE) {
        int ac = t + threadIdx.x, br = t + threadIdx.y;

        tile_a[threadIdx.y][threadIdx.x] = row < m && ac < k ? a[row * k + ac] : 0.0f;
        tile_b[threadIdx.y][threadIdx.x] = br < k && col < n ? b[br * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; i++)
            sum += tile_a[threadIdx.y][i] * tile_b[i][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}
