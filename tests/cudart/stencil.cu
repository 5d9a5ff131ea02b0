// SPDX-License-Identifier: MIT
// A 1D stencil with a run-time radius: each block keeps its part of the input in shared memory and reads a
// neighbour from there where it is inside the block's part, else from global memory. Built with nvcc's
// default optimisation, the shared index is formed as tile + 4 * (threadIdx.x + c - radius) and read at
// small offsets from it: a 32-bit shared address below the tile for the first threads that comes back inside
// it at the offset, as the PTX ISA's 32-bit shared addresses allow. Checked against the host's sum for several
// radii (a radius over the block's size included), and the same for a frame array read with an offset
// below it.
#include "check.h"

#include <vector>

__global__ void weighted_sum(const int *in, int *out, int n, int radius)
{
    extern __shared__ int tile[];
    int t = (int)threadIdx.x, g = (int)(blockIdx.x * blockDim.x) + t, width = (int)blockDim.x;

    tile[t] = g < n ? in[g] : 0;
    __syncthreads();
    if (g >= n)
        return;
    int sum = 0;
    for (int j = -radius; j <= radius; j++) {
        int k = t + j, v;

        if (k >= 0 && k < width)
            v = tile[k];
        else
            v = g + j >= 0 && g + j < n ? in[g + j] : 0;
        sum += v * (j + radius + 1);
    }
    out[g] = sum;
}

// The same sum from a per-thread array of the 8 inputs at g - 3 .. g + 4, indexed from the run-time
// `from` (below the array for a negative one) plus the loop's count.
__global__ void frame_sum(const int *in, int *out, int n, int from, int count)
{
    int own[8];
    int g = (int)(blockIdx.x * blockDim.x + threadIdx.x);

    if (g >= n)
        return;
    for (int i = 0; i < 8; i++)
        own[i] = g + i - 3 >= 0 && g + i - 3 < n ? in[g + i - 3] : 0;
    int sum = 0;
    for (int i = 0; i < count; i++) {
        int k = from + i;

        if (k >= 0 && k < 8)
            sum += own[k] * (i + 1);
    }
    out[g] = sum;
}

static int host_value(const std::vector<int> &in, int i)
{
    return i >= 0 && i < (int)in.size() ? in[(size_t)i] : 0;
}

int main()
{
    const int n = 1000, block = 128;
    std::vector<int> in(n), out(n);
    int *din, *dout;

    for (int i = 0; i < n; i++)
        in[(size_t)i] = (i * 37 + 11) % 101 - 50;
    CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dout, n * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    for (int radius : {0, 1, 2, 3, 5, 8, 130}) {
        CHECK_CUDA(cudaMemset(dout, 0xff, n * sizeof(int)));
        weighted_sum<<<(n + block - 1) / block, block, block * sizeof(int)>>>(din, dout, n, radius);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
        for (int g = 0; g < n; g++) {
            int want = 0;

            for (int j = -radius; j <= radius; j++)
                want += host_value(in, g + j) * (j + radius + 1);
            if (out[(size_t)g] != want) {
                std::fprintf(stderr, "weighted_sum radius %d: out[%d] = %d, want %d\n", radius, g, out[(size_t)g], want);
                return 1;
            }
        }
    }

    for (int from : {-5, -1, 0, 2}) {
        const int count = 9;

        CHECK_CUDA(cudaMemset(dout, 0xff, n * sizeof(int)));
        frame_sum<<<(n + block - 1) / block, block>>>(din, dout, n, from, count);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
        for (int g = 0; g < n; g++) {
            int want = 0;

            for (int i = 0; i < count; i++)
                if (from + i >= 0 && from + i < 8)
                    want += host_value(in, g + from + i - 3) * (i + 1);
            if (out[(size_t)g] != want) {
                std::fprintf(stderr, "frame_sum from %d: out[%d] = %d, want %d\n", from, g, out[(size_t)g], want);
                return 1;
            }
        }
    }
    CHECK_CUDA(cudaFree(din));
    CHECK_CUDA(cudaFree(dout));
    std::puts("stencil: the shared and the frame sums match the host's");
    return 0;
}
