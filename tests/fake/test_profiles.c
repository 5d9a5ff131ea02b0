/* SPDX-License-Identifier: MIT */
/*
 * The devices the fake can be (fake/core/fake_profiles.c), called as a CUDA program
 * calls them. One case per process (argv[1]).
 *
 *   profiles    each profile (GPUSHIM_FAKE_DEVICE=h200,a100,l4,rtx4090, one a
 *               device) against its board's published figures; every
 *               attribute of CUDA 13.0 answered; gpu_fake_device_profile()
 */
#include <string.h>

#include "fake_test.h"

/*
 * The boards' published figures (NVIDIA's datasheets and the CUDA
 * Programming Guide's table of compute capabilities), written apart from the
 * fake's own table so that a slip in either shows.
 */
static const struct published {
    const char *profile, *name;
    int sms, clock_mhz, memory_gib, bus_bits, l2_mib, major, minor;
    int threads_per_sm, blocks_per_sm, shared_per_sm_kib, optin_kib, ecc, fp64_ratio;
} boards[] = {
    /* The H200's memory bus and L2 as a real one reports them: its datasheet gives neither. */
    {"h200", "NVIDIA H200", 132, 1980, 141, 6016, 60, 9, 0, 2048, 32, 228, 227, 1, 2},
    {"a100", "NVIDIA A100-SXM4-80GB", 108, 1410, 80, 5120, 40, 8, 0, 2048, 32, 164, 163, 1, 2},
    {"l4", "NVIDIA L4", 58, 2040, 24, 192, 48, 8, 9, 1536, 24, 100, 99, 1, 64},
    {"rtx4090", "NVIDIA GeForce RTX 4090", 128, 2520, 24, 384, 72, 8, 9, 1536, 24, 100, 99, 0, 64},
};

/* Device `d` is the board: every figure it publishes, and the limits every board of its generation shares. */
static void check_board(int d, const struct published *b)
{
    char name[64] = "";
    size_t total = 0;
    const size_t gib = (size_t)1 << 30;

    CU_OK(cuDeviceGetName(name, sizeof(name), d));
    assert_string_equal(name, b->name);
    assert_string_equal(gpu_fake_device_profile_name(d), b->profile);
    CU_OK(cuDeviceTotalMem_v2(&total, d));
    /* What a board reports is a little under its capacity: the driver keeps some. */
    assert_true(total <= (size_t)b->memory_gib * gib && total >= (size_t)b->memory_gib * gib / 100 * 90);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), b->sms);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_CLOCK_RATE), b->clock_mhz * 1000);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH), b->bus_bits);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), b->l2_mib << 20);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), b->major);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), b->minor);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), b->threads_per_sm);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR), b->blocks_per_sm);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
                     b->shared_per_sm_kib << 10);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), b->optin_kib << 10);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_ECC_ENABLED), b->ecc);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO), b->fp64_ratio);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH), b->major >= 9);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED), b->major >= 9);
    /* The same on every board since compute 7.0. */
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z), 64);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), 2147483647);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK), 48 << 10);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK), 65536);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR), 65536);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY), 64 << 10);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK), 1024);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_COMPUTE_MODE), 0);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING), 1);
    assert_int_equal(ft_attribute(d, CUABI_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID), d);
}

static void profiles(void **state)
{
    int count = 0, v = 0;
    cuabi_uuid u0, u1;

    (void)state;
    CU_OK(cuInit(0));
    CU_OK(cuDeviceGetCount(&count));
    assert_int_equal(count, 4);
    for (int d = 0; d < 4; d++) {
        check_board(d, &boards[d]);
        /* Every attribute of CUDA 13.0 has an answer, as on the real driver; none past them. */
        for (int a = 1; a < CUABI_DEVICE_ATTRIBUTE_COUNT; a++)
            assert_int_equal(cuDeviceGetAttribute(&v, (cuabi_device_attribute)a, d), CUABI_SUCCESS);
        assert_int_equal(cuDeviceGetAttribute(&v, (cuabi_device_attribute)CUABI_DEVICE_ATTRIBUTE_COUNT, d),
                         CUABI_ERROR_INVALID_VALUE);
    }
    /* A device takes another profile whole: the L4 becomes an H200, with an H200's UUID for its place. */
    CU_OK(cuDeviceGetUuid_v2(&u0, 2));
    assert_int_equal(gpu_fake_device_attribute_set(2, CUABI_DEVICE_ATTRIBUTE_CLOCK_RATE, 1), 0);
    assert_int_equal(gpu_fake_device_profile(2, "h200"), 0);
    check_board(2, &boards[0]);
    CU_OK(cuDeviceGetUuid_v2(&u1, 2));
    assert_memory_not_equal(u0.bytes, u1.bytes, sizeof(u0.bytes));
    assert_int_equal(u1.bytes[0], 2 * 16 + 1);
    assert_int_equal(gpu_fake_device_profile(2, "h100"), -1);
    assert_int_equal(gpu_fake_device_profile(4, "h200"), -1);
    assert_int_equal(gpu_fake_device_profile(0, NULL), -1);
    assert_null(gpu_fake_device_profile_name(4));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"profiles", cmocka_unit_test(profiles)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
