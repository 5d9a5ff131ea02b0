// SPDX-License-Identifier: MIT
// The pipeline's two kernels. extern "C" keeps their names unmangled.

// x[i] = x[i] * mul + add for i < n (unsigned arithmetic: it wraps).
extern "C" __global__ void affine(unsigned *x, unsigned mul, unsigned add, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        x[i] = x[i] * mul + add;
}

// y[i] = x[i] + x[n - 1 - i] for i < n: each element needs one written by
// another block of affine, so it shows that affine had finished.
extern "C" __global__ void mirror_add(unsigned *y, const unsigned *x, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        y[i] = x[i] + x[n - 1 - i];
}
