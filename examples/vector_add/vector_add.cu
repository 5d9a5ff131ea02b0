// SPDX-License-Identifier: MIT
// c[i] = a[i] + b[i] for i < n. extern "C" keeps the name unmangled, so the
// host program and the host implementation both call it "vector_add".
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        c[i] = a[i] + b[i];
}
