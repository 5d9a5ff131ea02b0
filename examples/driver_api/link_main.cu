// SPDX-License-Identifier: MIT
// A kernel that calls poly(), defined in link_lib.cu: compiled with -rdc=true,
// it leaves poly() to the linker (cuLink* in jit_link.c).
extern "C" __device__ float poly(float x);

extern "C" __global__ void apply_poly(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        out[i] = poly(in[i]);
}
