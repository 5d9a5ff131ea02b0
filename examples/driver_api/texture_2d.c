/* SPDX-License-Identifier: MIT */
/*
 * texture_2d: pitched device memory (cuMemAllocPitch) filled by cuMemcpy2D,
 * copied into a CUDA array and back out of it (cuArrayCreate, cuMemcpy2D),
 * a texture object on the array (cuTexObjectCreate: point filtering, clamped
 * addresses, unnormalized coordinates) read by a kernel with tex2D into
 * another pitched buffer, and every value checked.
 *
 * usage: texture_2d TEXTURE_2D_PTX
 */
#include "common.h"

enum { W = 61, H = 37, BLOCK = 16 };

/* One end of a 2D copy: host or device memory with its pitch, or a CUDA array. */
struct end {
    CUmemorytype type;
    void *host;
    CUdeviceptr device;
    CUarray array;
    size_t pitch;
};

#define HOST_END(p) ((struct end){CU_MEMORYTYPE_HOST, (p), 0, NULL, W * sizeof(float)})
#define DEVICE_END(d, pitch) ((struct end){CU_MEMORYTYPE_DEVICE, NULL, (d), NULL, (pitch)})
#define ARRAY_END(a) ((struct end){CU_MEMORYTYPE_ARRAY, NULL, 0, (a), 0})

/* cuMemcpy2D of the W x H floats from `from` to `to`. */
static void copy_2d(struct end from, struct end to)
{
    CUDA_MEMCPY2D copy;

    memset(&copy, 0, sizeof(copy));
    copy.srcMemoryType = from.type;
    copy.srcHost = from.host;
    copy.srcDevice = from.device;
    copy.srcArray = from.array;
    copy.srcPitch = from.pitch;
    copy.dstMemoryType = to.type;
    copy.dstHost = to.host;
    copy.dstDevice = to.device;
    copy.dstArray = to.array;
    copy.dstPitch = to.pitch;
    copy.WidthInBytes = W * sizeof(float);
    copy.Height = H;
    CHECK(cuMemcpy2D(&copy));
}

/* The texel at (x, y): small integers, exact in float. */
static float texel(int x, int y)
{
    return (float)(y * 1000 + x);
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction kernel;
    CUdeviceptr d_src, d_out;
    size_t src_pitch = 0, out_pitch = 0;
    CUarray array;
    CUDA_ARRAY_DESCRIPTOR desc;
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC td;
    CUtexObject tex;
    int width = W, height = H;
    static float host[H][W], back[H][W], out[H][W];

    if (argc != 2)
        usage(argv[0], "TEXTURE_2D_PTX");
    CHECK(cuInit(0));
    ctx = context_create(&dev);
    kernel = kernel_load(argv[1], "mirror", &module);

    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            host[y][x] = texel(x, y);

    /* Host to pitched device memory, to a CUDA array, and the array back to the host. */
    CHECK(cuMemAllocPitch(&d_src, &src_pitch, W * sizeof(float), H, sizeof(float)));
    if (src_pitch < W * sizeof(float))
        result_wrong("cuMemAllocPitch gave a pitch narrower than a row");
    copy_2d(HOST_END(host), DEVICE_END(d_src, src_pitch));
    memset(&desc, 0, sizeof(desc));
    desc.Width = W;
    desc.Height = H;
    desc.Format = CU_AD_FORMAT_FLOAT;
    desc.NumChannels = 1;
    CHECK(cuArrayCreate(&array, &desc));
    copy_2d(DEVICE_END(d_src, src_pitch), ARRAY_END(array));
    copy_2d(ARRAY_END(array), HOST_END(back));
    if (memcmp(back, host, sizeof(host)) != 0)
        result_wrong("the CUDA array did not hold what was copied into it");
    printf("texture_2d: %dx%d floats through pitched memory into a CUDA array and back\n", W, H);

    /* A texture object on the array, read by the kernel into pitched memory. */
    memset(&res, 0, sizeof(res));
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array;
    memset(&td, 0, sizeof(td));
    td.addressMode[0] = CU_TR_ADDRESS_MODE_CLAMP;
    td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    td.flags = 0; /* unnormalized coordinates, values read as stored */
    CHECK(cuTexObjectCreate(&tex, &res, &td, NULL));
    CHECK(cuMemAllocPitch(&d_out, &out_pitch, W * sizeof(float), H, sizeof(float)));
    {
        void *args[] = {&tex, &d_out, &out_pitch, &width, &height};

        CHECK(cuLaunchKernel(kernel, (W + BLOCK - 1) / BLOCK, (H + BLOCK - 1) / BLOCK, 1, BLOCK, BLOCK, 1, 0, NULL,
                             args, NULL));
    }
    CHECK(cuCtxSynchronize());
    copy_2d(DEVICE_END(d_out, out_pitch), HOST_END(out));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float want = 2.0f * texel(W - 1 - x, y) + texel(x, 0);

            if (out[y][x] != want) {
                fprintf(stderr, "out(%d, %d) = %g, expected %g\n", x, y, (double)out[y][x], (double)want);
                result_wrong("tex2D through the texture object");
            }
        }
    printf("texture_2d: a kernel read the array through a texture object with tex2D: %d texels right\n", W * H);

    CHECK(cuTexObjectDestroy(tex));
    CHECK(cuArrayDestroy(array));
    CHECK(cuMemFree(d_src));
    CHECK(cuMemFree(d_out));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));
    printf("texture_2d: ok\n");
    return 0;
}
