/* SPDX-License-Identifier: MIT */
/*
 * A library for GPUSHIM_FAKE_KERNELS (test_host_kernel.c's `plugin` case):
 * its constructor registers "vadd" as c = a + b + 1000, so that the test can
 * tell it from its own.
 */
#include <stdint.h>

#include <gpushim/fake.h>

static int vadd_plus_1000(const gpu_fake_launch *l)
{
    uint64_t a, b, c;
    uint32_t n;
    const uint32_t *pa, *pb;
    uint32_t *pc;

    if (gpu_fake_param(l, 0, &a, 8) || gpu_fake_param(l, 1, &b, 8) || gpu_fake_param(l, 2, &c, 8) ||
        gpu_fake_param(l, 3, &n, 4))
        return 0;
    pa = gpu_fake_memory(l, a, n * 4u);
    pb = gpu_fake_memory(l, b, n * 4u);
    pc = gpu_fake_memory(l, c, n * 4u);
    for (uint32_t i = 0; pa && pb && pc && i < n; i++)
        pc[i] = pa[i] + pb[i] + 1000;
    return 0;
}

__attribute__((constructor)) static void register_kernels(void)
{
    /* The device count too, to show that a constructor may call the rest of the control API. */
    if (gpu_fake_device_count() < 1 || gpu_fake_kernel_register("vadd", vadd_plus_1000, 0) != 0)
        __builtin_trap();
}
