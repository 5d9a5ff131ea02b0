/* SPDX-License-Identifier: MIT */
/*
 * vector_add's host implementation, for the fake driver: the whole grid's
 * work in one call, element by element, as vector_add.cu does it per thread.
 * Built as libvector_add_host.so; GPUSHIM_FAKE_KERNELS=$PWD/libvector_add_host.so
 * makes the fake load it, and its constructor registers the kernel.
 */
#include <stdint.h>

#include <gpushim/fake.h>

enum { CUDA_ERROR_ILLEGAL_ADDRESS = 700 };

static int vector_add(const gpu_fake_launch *launch)
{
    uint64_t a_addr, b_addr, c_addr;
    unsigned n;
    const float *a, *b;
    float *c;
    uint64_t threads = (uint64_t)launch->grid.x * launch->block.x;

    /* A parameter of another size than these means the PTX and this file disagree. */
    if (gpu_fake_param(launch, 0, &a_addr, sizeof(a_addr)) || gpu_fake_param(launch, 1, &b_addr, sizeof(b_addr)) ||
        gpu_fake_param(launch, 2, &c_addr, sizeof(c_addr)) || gpu_fake_param(launch, 3, &n, sizeof(n)))
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    if (threads < n)
        n = (unsigned)threads; /* threads past the grid do not exist */
    if (n == 0)
        return 0;
    a = gpu_fake_memory(launch, a_addr, (size_t)n * sizeof(*a));
    b = gpu_fake_memory(launch, b_addr, (size_t)n * sizeof(*b));
    c = gpu_fake_memory(launch, c_addr, (size_t)n * sizeof(*c));
    if (!a || !b || !c)
        return CUDA_ERROR_ILLEGAL_ADDRESS; /* the fake has said what was out of bounds */
    for (unsigned i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    return 0;
}

__attribute__((constructor)) static void register_kernels(void)
{
    gpu_fake_kernel_register("vector_add", vector_add, NULL);
}
