/* SPDX-License-Identifier: MIT */
/*
 * Host implementations of pipeline.cu's kernels, for the fake driver: each
 * does the whole grid's work in one call. Built as libpipeline_host.so;
 * GPUSHIM_FAKE_KERNELS=$PWD/libpipeline_host.so makes the fake load it.
 */
#include <stdint.h>

#include <gpushim/fake.h>

enum { CUDA_ERROR_ILLEGAL_ADDRESS = 700 };

/* The elements the launch's threads cover: n, or fewer when the grid is smaller. */
static unsigned covered(const gpu_fake_launch *launch, unsigned n)
{
    uint64_t threads = (uint64_t)launch->grid.x * launch->block.x;

    return threads < n ? (unsigned)threads : n;
}

static int affine(const gpu_fake_launch *launch)
{
    uint64_t x_addr;
    unsigned mul, add, n;
    unsigned *x;

    if (gpu_fake_param(launch, 0, &x_addr, sizeof(x_addr)) || gpu_fake_param(launch, 1, &mul, sizeof(mul)) ||
        gpu_fake_param(launch, 2, &add, sizeof(add)) || gpu_fake_param(launch, 3, &n, sizeof(n)))
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    if ((n = covered(launch, n)) == 0)
        return 0;
    if (!(x = gpu_fake_memory(launch, x_addr, (size_t)n * sizeof(*x))))
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    for (unsigned i = 0; i < n; i++)
        x[i] = x[i] * mul + add;
    return 0;
}

static int mirror_add(const gpu_fake_launch *launch)
{
    uint64_t y_addr, x_addr;
    unsigned n, m;
    unsigned *y;
    const unsigned *x;

    if (gpu_fake_param(launch, 0, &y_addr, sizeof(y_addr)) || gpu_fake_param(launch, 1, &x_addr, sizeof(x_addr)) ||
        gpu_fake_param(launch, 2, &n, sizeof(n)))
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    if ((m = covered(launch, n)) == 0)
        return 0;
    /* Thread i reads x[i] and x[n - 1 - i], so all of x[0, n) may be read. */
    y = gpu_fake_memory(launch, y_addr, (size_t)m * sizeof(*y));
    x = gpu_fake_memory(launch, x_addr, (size_t)n * sizeof(*x));
    if (!y || !x)
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    for (unsigned i = 0; i < m; i++)
        y[i] = x[i] + x[n - 1 - i];
    return 0;
}

__attribute__((constructor)) static void register_kernels(void)
{
    gpu_fake_kernel_register("affine", affine, NULL);
    gpu_fake_kernel_register("mirror_add", mirror_add, NULL);
}
