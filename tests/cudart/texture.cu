// SPDX-License-Identifier: MIT
// Arrays, texture and surface objects: a 2D float array filled with cudaMemcpy2DToArray, read through a texture
// (point and linear filtering, clamped and normalized coordinates), written through a surface, read back with
// cudaMemcpy2DFromArray and the row-wrapping cudaMemcpyFromArray; 3D copies; a texture over linear memory.
#include "check.h"

#include <cuda_runtime.h>
#include <vector>

__global__ void sample(cudaTextureObject_t tex, float *out, int width, int height, float dx)
{
    int x = threadIdx.x, y = blockIdx.x;

    if (x < width && y < height)
        out[y * width + x] = tex2D<float>(tex, x + 0.5f + dx, y + 0.5f);
}

__global__ void double_in_place(cudaSurfaceObject_t surf, int width, int height)
{
    int x = threadIdx.x, y = blockIdx.x;

    if (x < width && y < height) {
        float v = surf2Dread<float>(surf, x * sizeof(float), y);
        surf2Dwrite(2.0f * v, surf, x * sizeof(float), y);
    }
}

__global__ void fetch(cudaTextureObject_t tex, int *out, int n)
{
    int i = threadIdx.x;

    if (i < n)
        out[i] = tex1Dfetch<int>(tex, i);
}

int main()
{
    const int width = 8, height = 4;
    std::vector<float> host(width * height), out(width * height);
    for (int i = 0; i < width * height; i++)
        host[i] = (float)i;

    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    CHECK(desc.x == 32 && desc.y == 0 && desc.f == cudaChannelFormatKindFloat);
    cudaArray_t array;
    CHECK_CUDA(cudaMallocArray(&array, &desc, width, height, cudaArraySurfaceLoadStore));
    CHECK_CUDA(cudaMemcpy2DToArray(array, 0, 0, host.data(), width * sizeof(float), width * sizeof(float), height,
                                   cudaMemcpyHostToDevice));

    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CHECK_CUDA(cudaCreateTextureObject(&tex, &res, &td, nullptr));
    float *dout;
    CHECK_CUDA(cudaMalloc(&dout, out.size() * sizeof(float)));
    sample<<<height, width>>>(tex, dout, width, height, 0.0f);
    CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < width * height; i++)
        CHECK(out[i] == host[i]);
    CHECK_CUDA(cudaDestroyTextureObject(tex));

    // Linear filtering half a texel right: the mean of two neighbours, the last column clamped.
    td.filterMode = cudaFilterModeLinear;
    CHECK_CUDA(cudaCreateTextureObject(&tex, &res, &td, nullptr));
    sample<<<height, width>>>(tex, dout, width, height, 0.5f);
    CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float want = x + 1 < width ? host[y * width + x] + 0.5f : host[y * width + x];
            CHECK(out[y * width + x] > want - 0.01f && out[y * width + x] < want + 0.01f);
        }
    CHECK_CUDA(cudaDestroyTextureObject(tex));

    cudaSurfaceObject_t surf;
    CHECK_CUDA(cudaCreateSurfaceObject(&surf, &res));
    double_in_place<<<height, width>>>(surf, width, height);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy2DFromArray(out.data(), width * sizeof(float), array, 0, 0, width * sizeof(float), height,
                                     cudaMemcpyDeviceToHost));
    for (int i = 0; i < width * height; i++)
        CHECK(out[i] == 2.0f * host[i]);
    // From the middle of row 1, across rows: 3 floats of row 1, all of row 2, 2 of row 3.
    std::vector<float> part(3 + width + 2, -1.0f);
    CHECK_CUDA(cudaMemcpyFromArray(part.data(), array, 5 * sizeof(float), 1, part.size() * sizeof(float),
                                   cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < part.size(); i++)
        CHECK(part[i] == 2.0f * host[width + 5 + i]);
    CHECK_CUDA(cudaDestroySurfaceObject(surf));
    CHECK_CUDA(cudaFreeArray(array));

    // A 3D array of 4x3x2 floats, filled from pitched device memory and read back to the host (cudaMemcpy3D).
    cudaExtent extent = make_cudaExtent(4, 3, 2);
    cudaArray_t volume;
    CHECK_CUDA(cudaMalloc3DArray(&volume, &desc, extent, 0));
    cudaPitchedPtr pitched;
    CHECK_CUDA(cudaMalloc3D(&pitched, make_cudaExtent(4 * sizeof(float), 3, 2)));
    float cube[2][3][4], cube_back[2][3][4];
    for (int i = 0; i < 24; i++)
        (&cube[0][0][0])[i] = 0.25f * i;
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(cube, 4 * sizeof(float), 4, 3);
    p.dstPtr = pitched;
    p.extent = make_cudaExtent(4 * sizeof(float), 3, 2);
    p.kind = cudaMemcpyHostToDevice;
    CHECK_CUDA(cudaMemcpy3D(&p));
    p = {};
    p.srcPtr = pitched;
    p.dstArray = volume;
    p.extent = extent;
    p.kind = cudaMemcpyDeviceToDevice;
    CHECK_CUDA(cudaMemcpy3D(&p));
    p = {};
    p.srcArray = volume;
    p.dstPtr = make_cudaPitchedPtr(cube_back, 4 * sizeof(float), 4, 3);
    p.extent = extent;
    p.kind = cudaMemcpyDeviceToHost;
    CHECK_CUDA(cudaMemcpy3D(&p));
    for (int i = 0; i < 24; i++)
        CHECK((&cube_back[0][0][0])[i] == 0.25f * i);
    CHECK_CUDA(cudaFreeArray(volume));
    CHECK_CUDA(cudaFree(pitched.ptr));

    // A texture over linear device memory of ints, fetched by index.
    const int n = 16;
    int *lin, *iout, got[n];
    CHECK_CUDA(cudaMalloc(&lin, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&iout, n * sizeof(int)));
    int values[n];
    for (int i = 0; i < n; i++)
        values[i] = 100 - i;
    CHECK_CUDA(cudaMemcpy(lin, values, sizeof(values), cudaMemcpyHostToDevice));
    cudaResourceDesc lres = {};
    lres.resType = cudaResourceTypeLinear;
    lres.res.linear.devPtr = lin;
    lres.res.linear.desc = cudaCreateChannelDesc<int>();
    lres.res.linear.sizeInBytes = n * sizeof(int);
    cudaTextureDesc ltd = {};
    ltd.readMode = cudaReadModeElementType;
    CHECK_CUDA(cudaCreateTextureObject(&tex, &lres, &ltd, nullptr));
    fetch<<<1, n>>>(tex, iout, n);
    CHECK_CUDA(cudaMemcpy(got, iout, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK(got[i] == values[i]);
    CHECK_CUDA(cudaDestroyTextureObject(tex));
    cudaChannelFormatDesc bad = {32, 16, 0, 0, cudaChannelFormatKindFloat};
    CHECK_ERROR(cudaMallocArray(&array, &bad, 4, 4, 0), cudaErrorInvalidChannelDescriptor);
    CHECK_CUDA(cudaFree(lin));
    CHECK_CUDA(cudaFree(iout));
    CHECK_CUDA(cudaFree(dout));
    std::printf("texture: ok\n");
    return 0;
}
