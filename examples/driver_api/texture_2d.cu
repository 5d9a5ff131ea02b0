// SPDX-License-Identifier: MIT
// out(x, y) = 2 * t(width - 1 - x, y) + t(x, -3): a mirror image of the texture
// read at texel centres, plus a read above its top edge that the texture's
// clamp address mode brings back to row 0. out is pitched (pitch in bytes).
extern "C" __global__ void mirror(cudaTextureObject_t tex, float *out, size_t pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x < width && y < height) {
        float *row = (float *)((char *)out + y * pitch);

        row[x] = 2.0f * tex2D<float>(tex, (float)(width - 1 - x) + 0.5f, (float)y + 0.5f) +
                 tex2D<float>(tex, (float)x + 0.5f, -2.5f);
    }
}
