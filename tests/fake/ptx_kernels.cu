// SPDX-License-Identifier: MIT
// Kernels whose PTX the fake's reader is tested on (tests/fake/test_image.c).
struct pod {
    unsigned long long base;
    unsigned add;
    float scale[3];
};

__constant__ unsigned table[4] = {11, 22, 33, 44};
__device__ unsigned counter;
__device__ float weights[16];

__device__ __noinline__ unsigned twice(unsigned x) { return 2 * x; }

extern "C" __global__ void __launch_bounds__(256, 2) add_table(unsigned *data, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += table[i % 4] + twice(counter);
}

extern "C" __global__ void with_struct(pod p, unsigned *out)
{
    __shared__ unsigned s[32];
    s[threadIdx.x] = p.add;
    __syncthreads();
    out[0] = (unsigned)p.base + s[0] + (unsigned)p.scale[1];
    weights[0] = p.scale[0];
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) clustered(char c, short s, double d, unsigned long long *out)
{
    out[0] = c + s + (unsigned long long)d;
}

template <typename T> __global__ void scale(T *data, T k, int n)
{
    int i = threadIdx.x;
    if (i < n)
        data[i] *= k;
}
template __global__ void scale<float>(float *, float, int);
