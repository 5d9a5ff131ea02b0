// SPDX-License-Identifier: MIT
// Texture and surface objects in kernels (textures.c runs them and checks each result against a
// C reference): 2D float reads, point and linear, in each address mode; integer reads; layered
// reads; surface loads and stores in each boundary mode. Coordinates are chosen so that linear
// filtering's weights are exact in the texture unit's 8 fractional bits.

// out[i] = tex2D(t, c[i].x, c[i].y): all four channels.
extern "C" __global__ void tex_2d(cudaTextureObject_t t, const float2 *c, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

// The same read of a texture of integers.
extern "C" __global__ void tex_2d_int(cudaTextureObject_t t, const float2 *c, int4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        out[i] = tex2D<int4>(t, c[i].x, c[i].y);
}

// out[i] = tex2DLayered(t, c[i].x, c[i].y, c[i].z): the layer an integer.
extern "C" __global__ void tex_layered(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        out[i] = tex2DLayered<float>(t, c[i].x, c[i].y, (int)c[i].z);
}

// Thread (x, y) of a grid one element larger than the surface on each side: each element
// inside becomes 3 v + 1 (a zero-mode load and store; those outside read 0 and store nothing),
// and out gets a clamped load at (x, y) and a zero-mode load.
extern "C" __global__ void surf_2d(cudaSurfaceObject_t s, int w, int h, int *out)
{
    int x = (int)threadIdx.x - 1, y = (int)threadIdx.y - 1;
    int i = threadIdx.y * blockDim.x + threadIdx.x;
    int v = surf2Dread<int>(s, x * 4, y, cudaBoundaryModeZero);

    out[3 * i] = v;
    out[3 * i + 1] = surf2Dread<int>(s, x * 4, y, cudaBoundaryModeClamp);
    __syncthreads();
    surf2Dwrite(3 * v + 1, s, x * 4, y, cudaBoundaryModeZero);
    __syncthreads();
    out[3 * i + 2] = surf2Dread<int>(s, x * 4, y, cudaBoundaryModeZero);
}

// uchar4 elements, four bytes at once: each element's bytes reversed (trap mode, inside only).
extern "C" __global__ void surf_rgba(cudaSurfaceObject_t s)
{
    uchar4 v = surf2Dread<uchar4>(s, threadIdx.x * 4, threadIdx.y);

    surf2Dwrite(make_uchar4(v.w, v.z, v.y, v.x), s, threadIdx.x * 4, threadIdx.y);
}
