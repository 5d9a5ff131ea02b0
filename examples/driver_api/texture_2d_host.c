/* SPDX-License-Identifier: MIT */
/*
 * texture_2d.cu's kernel `mirror` as a host function, for the fake driver:
 * each thread's work of the whole grid in one call, its two tex2D reads made
 * through gpu_fake_texture_read(). Built as libtexture_2d_host.so;
 * GPUSHIM_FAKE_KERNELS naming it makes the fake load it, and its constructor
 * registers the kernel.
 */
#include <stddef.h>
#include <stdint.h>

#include <gpushim/fake.h>

enum { CUDA_ERROR_ILLEGAL_ADDRESS = 700 };

/* tex2D<float>(tex, x, y): the first channel, or false after a fault (the fake said why). */
static int tex2d(const gpu_fake_launch *l, uint64_t tex, float x, float y, float *out)
{
    const float coords[3] = {x, y, 0.0f};
    gpu_fake_texel t;

    if (gpu_fake_texture_read(l, tex, coords, 0.0f, &t) != 0)
        return -1;
    *out = t.f[0];
    return 0;
}

/* One thread of mirror(): out(x, y) = 2 * t(width - 1 - x + 0.5, y + 0.5) + t(x + 0.5, -2.5). */
static int thread(const gpu_fake_launch *l, uint64_t tex, uint64_t out, size_t pitch, int x, int y, int width)
{
    float a, b, *row;

    if (tex2d(l, tex, (float)(width - 1 - x) + 0.5f, (float)y + 0.5f, &a) != 0 ||
        tex2d(l, tex, (float)x + 0.5f, -2.5f, &b) != 0 ||
        !(row = gpu_fake_memory(l, out + (uint64_t)y * pitch + (uint64_t)x * sizeof(float), sizeof(float))))
        return -1;
    *row = 2.0f * a + b;
    return 0;
}

static int mirror(const gpu_fake_launch *l)
{
    uint64_t tex, out;
    size_t pitch;
    int width, height;
    long long nx = (long long)l->grid.x * l->block.x, ny = (long long)l->grid.y * l->block.y;

    /* A parameter of another size than these means the PTX and this file disagree. */
    if (gpu_fake_param(l, 0, &tex, sizeof(tex)) || gpu_fake_param(l, 1, &out, sizeof(out)) ||
        gpu_fake_param(l, 2, &pitch, sizeof(pitch)) || gpu_fake_param(l, 3, &width, sizeof(width)) ||
        gpu_fake_param(l, 4, &height, sizeof(height)))
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    for (long long y = 0; y < ny && y < height; y++)
        for (long long x = 0; x < nx && x < width; x++)
            if (thread(l, tex, out, pitch, (int)x, (int)y, width) != 0)
                return CUDA_ERROR_ILLEGAL_ADDRESS;
    return 0;
}

__attribute__((constructor)) static void register_kernels(void)
{
    gpu_fake_kernel_register("mirror", mirror, NULL);
}
