/* SPDX-License-Identifier: MIT */
/*
 * What kernels need, against the fake: function attributes, the opt-in to more than
 * 48 KiB of dynamic shared memory, occupancy, extended launches (clusters,
 * cooperative, programmatic serialization, priority), memset, module
 * globals, context limits and device attributes. Argument errors must come
 * before the driver; what reaches a kernel is read back from device memory.
 * The failures of each driver call are test_sweep.c's.
 *
 * `test-launch` runs everything with GPUSHIM_FAKE_DEVICES=2; `test-launch-fakecuda-noex
 * no-ex` runs against libgpushim-fakecuda-noex.so, a driver without cuLaunchKernelEx
 * and the other optional entry points fake_noex.map leaves out (the
 * cooperative fallback, and GPU_ERR_NOT_SUPPORTED naming what is missing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

static const char kernels_ptx[] = ".version 8.0\n"
                                  ".target sm_90\n"
                                  ".fake_kernel launch_ex_info\n"
                                  ".fake_kernel launch_info\n"
                                  ".fake_kernel fill_u32\n"
                                  ".fake_kernel copy_u32\n"
                                  ".fake_global table 64\n"
                                  ".fake_global small 4\n";

static gpu_module *mod;
static gpu_function *ex_info, *info, *fill, *copy;
static gpu_stream *stream;
static gpu_buffer *out;

/* What the fake's multiprocessor holds (gpushim/fake.h). */
enum { SM_THREADS = 2048, SM_SHARED = 233472, RESERVED = 1024, OPTIN = 232448 };

static int setup(void **state)
{
    (void)state;
    FT_OK(gpu_module_load_data(NULL, kernels_ptx, strlen(kernels_ptx), &mod));
    FT_OK(gpu_module_get_function(mod, "launch_ex_info", &ex_info));
    FT_OK(gpu_module_get_function(mod, "launch_info", &info));
    FT_OK(gpu_module_get_function(mod, "fill_u32", &fill));
    FT_OK(gpu_module_get_function(mod, "copy_u32", &copy));
    FT_OK(gpu_stream_create(NULL, &stream));
    FT_OK(gpu_buffer_create(NULL, 256, &out));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    FT_OK(gpu_stream_synchronize(stream));
    gpu_buffer_destroy(out);
    gpu_stream_destroy(stream);
    gpu_module_destroy(mod);
    ft_assert_released();
    return 0;
}

static int sms(void)
{
    gpu_fake_device_desc d;

    assert_int_equal(gpu_fake_device_get(0, &d), 0);
    return d.multiprocessors;
}

/* ---- Device attributes ---- */

static void device_attributes(void **state)
{
    gpu_device_info a, b;
    gpu_uuid u;
    int v = -1;

    (void)state;
    FT_OK(gpu_device_get_attribute(0, GPU_DEVICE_ATTR_WARP_SIZE, &v));
    assert_int_equal(v, 32);
    FT_OK(gpu_device_get_attribute(0, GPU_DEVICE_ATTR_MULTIPROCESSOR_COUNT, &v));
    assert_int_equal(v, sms());
    FT_OK(gpu_device_get_attribute(1, GPU_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &v));
    assert_int_equal(v, OPTIN);
    /* A value the driver does not know is the caller's mistake; the fake knows none past CUDA 13.0's. */
    v = -1;
    FT_FAIL(gpu_device_get_attribute(0, (gpu_device_attribute)CUABI_DEVICE_ATTRIBUTE_COUNT, &v), GPU_ERR_INVALID_ARG,
            CUABI_ERROR_INVALID_VALUE, "cuDeviceGetAttribute");
    assert_int_equal(v, -1);
    FT_FAIL(gpu_device_get_attribute(5, GPU_DEVICE_ATTR_WARP_SIZE, &v), GPU_ERR_NO_DEVICE, CUABI_ERROR_INVALID_DEVICE,
            "cuDeviceGet");
    FT_INVALID(gpu_device_get_attribute(0, GPU_DEVICE_ATTR_WARP_SIZE, NULL), "out is NULL");
    FT_INVALID(gpu_device_get_attribute(-1, GPU_DEVICE_ATTR_WARP_SIZE, &v), "negative");
    FT_INVALID(gpu_device_get_attribute(0, (gpu_device_attribute)-2, &v), "negative");

    FT_OK(gpu_device_get_uuid(1, &u));
    for (int i = 0; i < 16; i++)
        assert_int_equal(u.bytes[i], 16 + i + 1);
    FT_INVALID(gpu_device_get_uuid(0, NULL), "out is NULL");
    FT_INVALID(gpu_device_get_uuid(-1, &u), "negative");

    FT_OK(gpu_device_get_info(0, &a));
    assert_int_equal(a.warp_size, 32);
    assert_int_equal(a.max_threads_per_block, 1024);
    assert_int_equal(a.max_threads_per_multiprocessor, SM_THREADS);
    assert_int_equal(a.max_shared_memory_per_block, 49152);
    assert_int_equal(a.max_shared_memory_per_block_optin, OPTIN);
    assert_int_equal(a.max_shared_memory_per_multiprocessor, SM_SHARED);
    assert_int_equal(a.max_registers_per_block, 65536);
    assert_int_equal(a.l2_cache_size, 62914560);
    assert_int_equal(a.clock_rate_khz, 1980000);
    assert_int_equal(a.memory_clock_rate_khz, 3201000);
    assert_int_equal(a.memory_bus_width, 6016);
    assert_true(a.cooperative_launch && a.cluster_launch);
    assert_int_equal(a.uuid.bytes[0], 1);
    /* Each field is the attribute of its name, not a neighbour's. */
    assert_int_equal(gpu_fake_device_attribute_set(1, CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 1234), 0);
    assert_int_equal(gpu_fake_device_attribute_set(1, CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0), 0);
    FT_OK(gpu_device_get_info(1, &b));
    assert_int_equal(b.l2_cache_size, 1234);
    assert_false(b.cooperative_launch);
    assert_true(b.cluster_launch);
    assert_int_equal(b.uuid.bytes[0], 17);
    assert_int_equal(gpu_fake_device_attribute_set(1, CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 62914560), 0);
    assert_int_equal(gpu_fake_device_attribute_set(1, CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1), 0);
}

/* ---- Function attributes ---- */

static void function_attributes(void **state)
{
    int v = -1;

    (void)state;
    FT_OK(gpu_function_get_attribute(fill, GPU_FUNCTION_ATTR_NUM_REGS, &v));
    assert_int_equal(v, 32);
    FT_OK(gpu_function_get_attribute(fill, GPU_FUNCTION_ATTR_MAX_THREADS_PER_BLOCK, &v));
    assert_int_equal(v, 1024);
    FT_OK(gpu_function_get_attribute(fill, GPU_FUNCTION_ATTR_SHARED_BYTES, &v));
    assert_int_equal(v, 0);
    FT_OK(gpu_function_get_attribute(fill, GPU_FUNCTION_ATTR_PTX_VERSION, &v));
    assert_int_equal(v, 90); /* .target sm_90 */
    FT_OK(gpu_function_get_attribute(fill, GPU_FUNCTION_ATTR_BINARY_VERSION, &v));
    assert_int_equal(v, 90);
    FT_OK(gpu_function_get_attribute(copy, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, &v));
    assert_int_equal(v, 48 * 1024);
    FT_OK(gpu_function_set_attribute(copy, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 100000));
    FT_OK(gpu_function_get_attribute(copy, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, &v));
    assert_int_equal(v, 100000);
    /* Past the device's opt-in: the driver refuses, and that is the caller's argument. */
    FT_FAIL(gpu_function_set_attribute(copy, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, OPTIN + 1), GPU_ERR_INVALID_ARG,
            CUABI_ERROR_INVALID_VALUE, "cuFuncSetAttribute");
    FT_OK(gpu_function_set_attribute(copy, GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT, 75));
    FT_OK(gpu_function_get_attribute(copy, GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT, &v));
    assert_int_equal(v, 75);
    FT_OK(gpu_function_set_attribute(copy, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 48 * 1024));
    FT_OK(gpu_function_set_cache_config(copy, GPU_CACHE_PREFER_SHARED));

    FT_INVALID(gpu_function_get_attribute(NULL, GPU_FUNCTION_ATTR_NUM_REGS, &v), "function is NULL");
    FT_INVALID(gpu_function_get_attribute(fill, GPU_FUNCTION_ATTR_NUM_REGS, NULL), "out is NULL");
    FT_INVALID(gpu_function_get_attribute(fill, (gpu_function_attribute)7, &v), "not a gpu_function_attribute");
    FT_INVALID(gpu_function_get_attribute(fill, (gpu_function_attribute)10, &v), "not a gpu_function_attribute");
    FT_INVALID(gpu_function_set_attribute(NULL, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 1), "function is NULL");
    FT_INVALID(gpu_function_set_attribute(fill, GPU_FUNCTION_ATTR_NUM_REGS, 1), "cannot be set");
    FT_INVALID(gpu_function_set_attribute(fill, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, -1), "-1 bytes");
    FT_INVALID(gpu_function_set_attribute(fill, GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT, 101), "carveout of 101");
    FT_INVALID(gpu_function_set_cache_config(NULL, GPU_CACHE_PREFER_L1), "function is NULL");
    FT_INVALID(gpu_function_set_cache_config(fill, (gpu_cache_config)4), "not a gpu_cache_config");
}

/* ---- More than 48 KiB of dynamic shared memory ---- */

static void fill_launch(gpu_function *f, unsigned shared, uint32_t value, gpu_status want, const char *needle)
{
    uint64_t ptr = gpu_buffer_get_device_ptr(out);
    uint32_t n = 64;
    void *args[] = {&ptr, &value, &n};
    gpu_launch_config c = gpu_launch_config_1d(1, 64);
    long launches = gpu_fake_calls("cuLaunchKernel");

    c.shared_mem_bytes = shared;
    if (want == GPU_OK) {
        FT_OK(gpu_stream_launch_function(stream, f, &c, args));
        assert_int_equal(gpu_fake_calls("cuLaunchKernel"), launches + 1);
        return;
    }
    FT_FAIL(gpu_stream_launch_function(stream, f, &c, args), want, 0, needle);
    /* Refused before the driver saw the launch. */
    assert_int_equal(gpu_fake_calls("cuLaunchKernel"), launches);
}

static void shared_memory_opt_in(void **state)
{
    uint32_t want[64];
    uint64_t ptr = gpu_buffer_get_device_ptr(out);
    gpu_launch_config c = gpu_launch_config_1d(1, 1);

    (void)state;
    fill_launch(fill, 48 * 1024, 1, GPU_OK, NULL);
    fill_launch(fill, 200 * 1024, 2, GPU_ERR_INVALID_ARG, "more than the function's limit of 49152");
    fill_launch(fill, 200 * 1024, 2, GPU_ERR_INVALID_ARG, "GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES");
    fill_launch(fill, OPTIN + 1, 2, GPU_ERR_INVALID_ARG, "more than device 0 allows a block (232448)");
    FT_OK(gpu_function_set_attribute(fill, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 200 * 1024));
    fill_launch(fill, 200 * 1024, 3, GPU_OK, NULL);
    FT_OK(gpu_stream_synchronize(stream));
    for (int i = 0; i < 64; i++)
        want[i] = 3;
    FT_BUFFER_EQ(out, want, 64);
    fill_launch(fill, 200 * 1024 + 4, 4, GPU_ERR_INVALID_ARG, "limit of 204800");
    FT_OK(gpu_function_set_attribute(fill, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 48 * 1024));
    /* The bytes reach the launch as asked. */
    FT_OK(gpu_function_set_attribute(info, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 100000));
    c.shared_mem_bytes = 99999;
    FT_OK(gpu_stream_launch_function(stream, info, &c, (void *[]){&ptr}));
    FT_OK(gpu_stream_synchronize(stream));
    assert_int_equal(ft_peek(out, 6), 99999);
}

/* ---- Occupancy ---- */

static void occupancy(void **state)
{
    gpu_launch_config c = {.grid = {2, 1, 1}, .block = {128, 1, 1}, .cluster = {2, 1, 1}};
    int grid = 0, block = 0;
    int n = -1;

    (void)state;
    FT_OK(gpu_function_get_max_active_blocks(fill, 256, 0, &n));
    assert_int_equal(n, SM_THREADS / 256);
    FT_OK(gpu_function_get_max_active_blocks(fill, 1000, 0, &n));
    assert_int_equal(n, 2);
    FT_OK(gpu_function_get_max_active_blocks(fill, 32, 0, &n));
    assert_int_equal(n, 32); /* blocks a multiprocessor, not threads, bound it */
    FT_OK(gpu_function_set_attribute(fill, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 200 * 1024));
    FT_OK(gpu_function_get_max_active_blocks(fill, 64, 100 * 1024, &n));
    assert_int_equal(n, SM_SHARED / (100 * 1024 + RESERVED));
    FT_OK(gpu_function_set_attribute(fill, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 48 * 1024));
    FT_OK(gpu_function_get_max_active_blocks(fill, 64, 100 * 1024, &n));
    assert_int_equal(n, 0); /* more than the function allows: none fits */

    FT_OK(gpu_function_get_occupancy_block_size(fill, 0, 0, &grid, &block));
    assert_int_equal(block, 1024);
    assert_int_equal(grid, 2 * sms());
    FT_OK(gpu_function_get_occupancy_block_size(fill, 0, 100, &grid, &block));
    assert_int_equal(block, 100);
    assert_int_equal(grid, 16 * sms());

    FT_OK(gpu_function_get_max_active_clusters(ex_info, &c, &n));
    assert_int_equal(n, 16 * sms() / 2);

    FT_INVALID(gpu_function_get_max_active_blocks(NULL, 32, 0, &n), "function is NULL");
    FT_INVALID(gpu_function_get_max_active_blocks(fill, 32, 0, NULL), "out is NULL");
    FT_INVALID(gpu_function_get_max_active_blocks(fill, 0, 0, &n), "a block of 0 threads");
    FT_INVALID(gpu_function_get_max_active_blocks(fill, 1025, 0, &n), "a block of 1025 threads");
    FT_INVALID(gpu_function_get_occupancy_block_size(fill, 0, 0, NULL, &block), "min_grid_size is NULL");
    FT_INVALID(gpu_function_get_occupancy_block_size(fill, 0, 0, &grid, NULL), "block_size is NULL");
    FT_INVALID(gpu_function_get_occupancy_block_size(fill, 0, 2000, &grid, &block), "limit of 2000");
    FT_INVALID(gpu_function_get_occupancy_block_size(fill, 0, -1, &grid, &block), "limit of -1");
    FT_INVALID(gpu_function_get_max_active_clusters(ex_info, &(gpu_launch_config){.grid = {2, 1, 1}, .block = {1, 1, 1}},
                                                &n),
               "asks for no cluster");
    c.cluster[0] = 3;
    FT_INVALID(gpu_function_get_max_active_clusters(ex_info, &c, &n), "not a multiple of cluster x");
    c.grid[0] = 16;
    c.cluster[0] = 16;
    FT_FAIL(gpu_function_get_max_active_clusters(ex_info, &c, &n), GPU_ERR_INVALID_ARG, CUABI_ERROR_INVALID_CLUSTER_SIZE,
            "cuOccupancyMaxActiveClusters");
}

/* ---- Extended launches ---- */

/* Launches launch_ex_info with `c` and checks what it recorded: cluster xyz, cooperative, serialized, priority. */
static void ex_launch(const gpu_launch_config *c, const uint32_t want[6])
{
    uint64_t ptr = gpu_buffer_get_device_ptr(out);

    FT_OK(gpu_buffer_memset(out, 0, 6, 4, 0xeeeeeeee));
    FT_OK(gpu_stream_launch_function(stream, ex_info, c, (void *[]){&ptr}));
    FT_OK(gpu_stream_synchronize(stream));
    FT_BUFFER_EQ(out, want, 6);
}

static void extended_launches(void **state)
{
    static const uint32_t plain[6] = {0, 0, 0, 0, 0, 0}, cluster[6] = {2, 1, 1, 0, 1, (uint32_t)-2},
                          cooperative[6] = {0, 0, 0, 1, 0, 3};
    long ex = gpu_fake_calls("cuLaunchKernelEx"), kernel = gpu_fake_calls("cuLaunchKernel");
    uint64_t ptr = gpu_buffer_get_device_ptr(out);
    int per_sm = 0;
    gpu_launch_config c = {.grid = {4, 2, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1},
                           .programmatic_serialization = true, .priority = -2};

    (void)state;
    /* A plain launch stays a cuLaunchKernel. */
    ex_launch(&(gpu_launch_config){.grid = {1, 1, 1}, .block = {1, 1, 1}}, plain);
    assert_int_equal(gpu_fake_calls("cuLaunchKernel"), kernel + 1);
    assert_int_equal(gpu_fake_calls("cuLaunchKernelEx"), ex);
    ex_launch(&c, cluster);
    ex_launch(&(gpu_launch_config){.grid = {4, 1, 1}, .block = {32, 1, 1}, .cooperative = true, .priority = 3},
              cooperative);
    assert_int_equal(gpu_fake_calls("cuLaunchKernelEx"), ex + 2);
    assert_int_equal(gpu_fake_calls("cuLaunchCooperativeKernel"), 0);

    /* Cooperative: as many blocks as fit at once, and not one more. */
    FT_OK(gpu_function_get_max_active_blocks(ex_info, 256, 0, &per_sm));
    c = (gpu_launch_config){.grid = {(unsigned)(per_sm * sms()), 1, 1}, .block = {256, 1, 1}, .cooperative = true};
    FT_OK(gpu_stream_launch_function(stream, ex_info, &c, (void *[]){&ptr}));
    c.grid[0]++;
    FT_FAIL(gpu_stream_launch_function(stream, ex_info, &c, (void *[]){&ptr}), GPU_ERR_KERNEL_LAUNCH,
            CUABI_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "cuLaunchKernelEx");

    /* Shapes refused before the driver. */
    FT_INVALID(gpu_stream_launch_function(stream, ex_info,
                                          &(gpu_launch_config){.grid = {3, 1, 1}, .block = {1, 1, 1},
                                                               .cluster = {2, 1, 1}},
                                          (void *[]){&ptr}),
               "grid x (3) is not a multiple of cluster x (2)");
    FT_INVALID(gpu_stream_launch_function(stream, ex_info,
                                          &(gpu_launch_config){.grid = {2, 1, 1}, .block = {1, 1, 1},
                                                               .cluster = {2, 0, 1}},
                                          (void *[]){&ptr}),
               "cluster y is 0");
    /* A cluster too large for the device: the driver's answer. */
    FT_FAIL(gpu_stream_launch_function(stream, ex_info,
                                       &(gpu_launch_config){.grid = {16, 1, 1}, .block = {1, 1, 1},
                                                            .cluster = {16, 1, 1}},
                                       (void *[]){&ptr}),
            GPU_ERR_KERNEL_LAUNCH, CUABI_ERROR_INVALID_CLUSTER_SIZE, "cuLaunchKernelEx");

    /* A device without the feature: GPU_ERR_NOT_SUPPORTED naming it. */
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0), 0);
    FT_FAIL(gpu_stream_launch_function(stream, ex_info,
                                       &(gpu_launch_config){.grid = {2, 1, 1}, .block = {1, 1, 1},
                                                            .cluster = {2, 1, 1}},
                                       (void *[]){&ptr}),
            GPU_ERR_NOT_SUPPORTED, CUABI_ERROR_NOT_SUPPORTED, "device 0 does not support cluster launches");
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 1), 0);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0), 0);
    FT_FAIL(gpu_stream_launch_function(stream, ex_info,
                                       &(gpu_launch_config){.grid = {1, 1, 1}, .block = {1, 1, 1},
                                                            .cooperative = true},
                                       (void *[]){&ptr}),
            GPU_ERR_NOT_SUPPORTED, CUABI_ERROR_NOT_SUPPORTED, "does not support cooperative launches");
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1), 0);
    FT_OK(gpu_stream_synchronize(stream));
}

static void serialization_needs_hopper(void **state)
{
    gpu_fake_device_desc d, ampere;
    uint64_t ptr = gpu_buffer_get_device_ptr(out);

    (void)state;
    assert_int_equal(gpu_fake_device_get(0, &d), 0);
    ampere = d;
    ampere.compute_major = 8;
    assert_int_equal(gpu_fake_device_set(0, &ampere), 0);
    FT_FAIL(gpu_stream_launch_function(stream, ex_info,
                                       &(gpu_launch_config){.grid = {1, 1, 1}, .block = {1, 1, 1},
                                                            .programmatic_serialization = true},
                                       (void *[]){&ptr}),
            GPU_ERR_NOT_SUPPORTED, CUABI_ERROR_NOT_SUPPORTED, "programmatic stream serialization");
    assert_int_equal(gpu_fake_device_set(0, &d), 0);
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
/* A caller's initializer from before the extended fields: it compiles and means a plain launch. */
static const gpu_launch_config old_style = {{2, 1, 1}, {3, 1, 1}, 16};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static void old_initializers_mean_the_same(void **state)
{
    long ex = gpu_fake_calls("cuLaunchKernelEx"), kernel = gpu_fake_calls("cuLaunchKernel");
    uint64_t ptr = gpu_buffer_get_device_ptr(out);
    static const uint32_t want[7] = {2, 1, 1, 3, 1, 1, 16};

    (void)state;
    assert_true(old_style.cluster[0] == 0 && !old_style.cooperative && !old_style.programmatic_serialization &&
                old_style.priority == 0);
    FT_OK(gpu_stream_launch_function(stream, info, &old_style, (void *[]){&ptr}));
    FT_OK(gpu_stream_synchronize(stream));
    FT_BUFFER_EQ(out, want, 7);
    assert_int_equal(gpu_fake_calls("cuLaunchKernel"), kernel + 1);
    assert_int_equal(gpu_fake_calls("cuLaunchKernelEx"), ex);
}

/* ---- Memset ---- */

static void memset_values(void **state)
{
    gpu_buffer *b = NULL, *other = NULL;
    gpu_context *ctx1 = NULL;
    gpu_stream *s1 = NULL;
    unsigned char bytes[64], want[64];
    long calls;

    (void)state;
    FT_OK(gpu_buffer_create(NULL, 64, &b));
    FT_OK(gpu_buffer_memset(b, 0, 64, 1, 0x11));
    memset(want, 0x11, 64);
    FT_OK(gpu_buffer_memset(b, 3, 5, 1, 0xab));
    memset(want + 3, 0xab, 5);
    FT_OK(gpu_buffer_memset(b, 10, 3, 2, 0xbeef));
    for (int i = 0; i < 3; i++) {
        want[10 + 2 * i] = 0xef;
        want[11 + 2 * i] = 0xbe;
    }
    FT_OK(gpu_buffer_memset_async(b, 60, 1, 4, 0x01020304u, stream));
    want[60] = 4, want[61] = 3, want[62] = 2, want[63] = 1;
    FT_OK(gpu_buffer_memset_async(b, 16, 2, 2, 0x5566, stream));
    want[16] = 0x66, want[17] = 0x55, want[18] = 0x66, want[19] = 0x55;
    FT_OK(gpu_buffer_memset_async(b, 20, 4, 1, 0x7f, stream));
    memset(want + 20, 0x7f, 4);
    FT_OK(gpu_stream_synchronize(stream));
    FT_OK(gpu_buffer_memset(b, 24, 9, 4, 0xffffffffu));
    memset(want + 24, 0xff, 36);
    assert_int_equal(gpu_fake_peek(gpu_buffer_get_device_ptr(b), bytes, 64), 0);
    assert_memory_equal(bytes, want, 64);

    calls = gpu_fake_calls_total();
    FT_OK(gpu_buffer_memset(b, 64, 0, 4, 1)); /* nothing, at the very end */
    FT_OK(gpu_buffer_memset_async(b, 0, 0, 1, 1, stream));
    assert_int_equal(gpu_fake_calls_total(), calls);
    FT_INVALID(gpu_buffer_memset(NULL, 0, 1, 1, 0), "buffer is NULL");
    FT_INVALID(gpu_buffer_memset(b, 1, 1, 2, 0), "offset 1 is not a multiple of 2");
    FT_INVALID(gpu_buffer_memset(b, 2, 1, 4, 0), "offset 2 is not a multiple of 4");
    FT_INVALID(gpu_buffer_memset(b, 0, 17, 4, 0), "17 elements of 4 bytes from byte 0 do not fit a buffer of 64");
    FT_INVALID(gpu_buffer_memset(b, 60, 2, 4, 0), "do not fit");
    FT_INVALID(gpu_buffer_memset(b, 68, 0, 4, 0), "do not fit");
    FT_INVALID(gpu_buffer_memset(b, 0, SIZE_MAX, 2, 0), "do not fit");
    FT_INVALID(gpu_buffer_memset(b, 0, 1, 3, 0), "elements of 3 bytes");
    FT_INVALID(gpu_buffer_memset(b, 0, 1, 1, 0x100), "value 0x100 does not fit 1 byte");
    FT_INVALID(gpu_buffer_memset(b, 0, 1, 2, 0x10000), "value 0x10000 does not fit 2 byte");
    FT_INVALID(gpu_buffer_memset_async(b, 0, 1, 1, 0x100, stream), "does not fit");
    /* A stream of another device. */
    FT_OK(gpu_context_retain_primary(1, &ctx1));
    FT_OK(gpu_stream_create(ctx1, &s1));
    FT_INVALID(gpu_buffer_memset_async(b, 0, 1, 1, 0, s1), "device");
    FT_OK(gpu_buffer_create(ctx1, 16, &other));
    FT_OK(gpu_buffer_memset_async(other, 0, 4, 4, 9, s1));
    FT_OK(gpu_stream_synchronize(s1));
    assert_int_equal(ft_peek(other, 3), 9);
    gpu_buffer_destroy(other);
    gpu_stream_destroy(s1);
    gpu_context_destroy(ctx1);
    gpu_buffer_destroy(b);
}

/* Fills longer than the fake's fill block (4 KiB), of 2 and 4 bytes, ending inside it: every element, and nothing past. */
static void memset_long(void **state)
{
    enum { BYTES = 5 * 4096 };
    gpu_buffer *b = NULL;
    unsigned char *got = malloc(BYTES), *want = malloc(BYTES);

    (void)state;
    assert_non_null(got);
    assert_non_null(want);
    FT_OK(gpu_buffer_create(NULL, BYTES, &b));
    FT_OK(gpu_buffer_memset(b, 0, BYTES, 1, 0x11));
    memset(want, 0x11, BYTES);
    FT_OK(gpu_buffer_memset(b, 2, 4097, 2, 0xbeef));
    for (size_t i = 0; i < 4097; i++) {
        want[2 + 2 * i] = 0xef;
        want[3 + 2 * i] = 0xbe;
    }
    FT_OK(gpu_buffer_memset(b, 8200, 3000, 4, 0x01020304u));
    for (size_t i = 0; i < 3000; i++)
        memcpy(want + 8200 + 4 * i, (const unsigned char[]){4, 3, 2, 1}, 4);
    assert_int_equal(gpu_fake_peek(gpu_buffer_get_device_ptr(b), got, BYTES), 0);
    assert_memory_equal(got, want, BYTES);
    gpu_buffer_destroy(b);
    free(got);
    free(want);
}

/* ---- Module globals ---- */

static void module_globals(void **state)
{
    uint32_t table[16], back[16];
    uint64_t address = 0, ptr = gpu_buffer_get_device_ptr(out);
    size_t bytes = 0;
    uint32_t n = 16;

    (void)state;
    FT_OK(gpu_module_get_global(mod, "table", &address, &bytes));
    assert_true(address != 0);
    assert_int_equal(bytes, 64);
    bytes = 0;
    FT_OK(gpu_module_get_global(mod, "small", NULL, &bytes));
    assert_int_equal(bytes, 4);
    for (uint32_t i = 0; i < 16; i++)
        table[i] = 1000 + i * i;
    FT_OK(gpu_module_copy_to_global(mod, "table", table, sizeof(table)));
    /* A kernel reads the global. */
    FT_OK(gpu_stream_launch_function(stream, copy, &(gpu_launch_config){.grid = {1, 1, 1}, .block = {16, 1, 1}},
                                     (void *[]){&ptr, &address, &n}));
    FT_OK(gpu_stream_synchronize(stream));
    FT_BUFFER_EQ(out, table, 16);
    memset(back, 0, sizeof(back));
    FT_OK(gpu_module_copy_from_global(mod, "table", back, 8));
    assert_memory_equal(back, table, 8);
    assert_int_equal(back[2], 0);
    FT_OK(gpu_module_copy_to_global(mod, "table", NULL, 0));
    /* Synchronous legacy-stream copies: refused while a global capture of an ordered stream is open. */
    {
        gpu_stream *capturing = NULL;

        FT_OK(gpu_stream_create_with_flags(NULL, GPU_STREAM_DEFAULT, &capturing));
        FT_OK(gpu_stream_begin_capture(capturing, GPU_CAPTURE_MODE_GLOBAL));
        FT_FAIL(gpu_module_copy_to_global(mod, "table", table, 8), GPU_ERR_GRAPH_CAPTURE,
                CUABI_ERROR_STREAM_CAPTURE_IMPLICIT, "gpu_module_copy_to_global: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
        FT_FAIL(gpu_module_copy_from_global(mod, "table", back, 8), GPU_ERR_GRAPH_CAPTURE,
                CUABI_ERROR_STREAM_CAPTURE_IMPLICIT, "refused without calling the driver");
        gpu_stream_destroy(capturing);
        FT_OK(gpu_module_copy_from_global(mod, "table", back, 8));
    }

    address = 7;
    FT_FAIL(gpu_module_get_global(mod, "nothing", &address, NULL), GPU_ERR_FUNCTION_NOT_FOUND, CUABI_ERROR_NOT_FOUND,
            "the module has no global \"nothing\"");
    assert_int_equal(address, 7);
    FT_FAIL(gpu_module_copy_to_global(mod, "nothing", table, 4), GPU_ERR_FUNCTION_NOT_FOUND, CUABI_ERROR_NOT_FOUND,
            "no global");
    FT_FAIL(gpu_module_copy_to_global(mod, "small", table, 8), GPU_ERR_INVALID_ARG, 0,
            "8 bytes do not fit global \"small\" of 4");
    FT_FAIL(gpu_module_copy_from_global(mod, "small", back, 8), GPU_ERR_INVALID_ARG, 0, "do not fit");
    FT_INVALID(gpu_module_get_global(NULL, "table", &address, &bytes), "module is NULL");
    FT_INVALID(gpu_module_get_global(mod, NULL, &address, &bytes), "name is NULL");
    FT_INVALID(gpu_module_get_global(mod, "table", NULL, NULL), "address and bytes are NULL");
    FT_INVALID(gpu_module_copy_to_global(mod, "table", NULL, 4), "the host pointer is NULL");
    FT_INVALID(gpu_module_copy_from_global(NULL, "table", back, 4), "module is NULL");
}

/* ---- Context limits ---- */

static void context_limits(void **state)
{
    gpu_context *ctx1 = NULL;
    size_t v = 0;

    (void)state;
    FT_OK(gpu_context_get_limit(NULL, GPU_LIMIT_PRINTF_FIFO_SIZE, &v));
    assert_int_equal(v, 8650752); /* the H200's driver's default */
    FT_OK(gpu_context_set_limit(NULL, GPU_LIMIT_PRINTF_FIFO_SIZE, 4 << 20));
    FT_OK(gpu_context_get_limit(NULL, GPU_LIMIT_PRINTF_FIFO_SIZE, &v));
    assert_int_equal(v, 4 << 20);
    FT_OK(gpu_context_set_limit(NULL, GPU_LIMIT_STACK_SIZE, 1000));
    FT_OK(gpu_context_get_limit(NULL, GPU_LIMIT_STACK_SIZE, &v));
    assert_int_equal(v, 1008); /* the fake's rounding, read back */
    FT_OK(gpu_context_retain_primary(1, &ctx1));
    FT_OK(gpu_context_set_limit(ctx1, GPU_LIMIT_MALLOC_HEAP_SIZE, 64 << 20));
    FT_OK(gpu_context_get_limit(ctx1, GPU_LIMIT_MALLOC_HEAP_SIZE, &v));
    assert_int_equal(v, 64 << 20);
    FT_OK(gpu_context_get_limit(NULL, GPU_LIMIT_MALLOC_HEAP_SIZE, &v));
    assert_int_equal(v, 8 << 20); /* device 0's is its own */
    gpu_context_destroy(ctx1);
    FT_INVALID(gpu_context_get_limit(NULL, GPU_LIMIT_STACK_SIZE, NULL), "out is NULL");
    FT_INVALID(gpu_context_get_limit(NULL, (gpu_limit)3, &v), "limit 3 is not a gpu_limit");
    FT_INVALID(gpu_context_set_limit(NULL, (gpu_limit)-1, 1), "not a gpu_limit");
}

/* ---- Tensor maps ---- */

static void tensor_maps(void **state)
{
    gpu_buffer *b = NULL;
    gpu_tensor_map map, untouched;
    gpu_tensor_tiled d = {.type = GPU_TENSOR_UINT32, .rank = 2, .dims = {256, 128}, .strides = {1024},
                          .box = {32, 16}, .swizzle = GPU_TENSOR_SWIZZLE_128B, .l2_promotion = GPU_TENSOR_L2_PROMOTION_128B};
    gpu_tensor_tiled bad;

    (void)state;
    FT_OK(gpu_buffer_create(NULL, 256 * 128 * 4 + 64, &b));
    FT_OK(gpu_tensor_map_encode_tiled(b, 16, &d, &map));
    assert_true(map.opaque[0] == 0x50414d54454b4146ull);
    assert_true(map.opaque[1] == gpu_buffer_get_device_ptr(b) + 16);
    assert_true(map.opaque[2] == (2u | 2u << 8 | 3u << 16 | 2u << 20));
    assert_true(map.opaque[3] == 256 && map.opaque[4] == 128 && map.opaque[8] == 1024);
    assert_true(map.opaque[12] == (32u | 16u << 12));
    assert_true(map.opaque[13] == (1u | 1u << 4)); /* element strides 0 mean 1 */
    /* A 1-D map needs no stride. */
    FT_OK(gpu_tensor_map_encode_tiled(b, 0, &(gpu_tensor_tiled){.type = GPU_TENSOR_FLOAT16, .rank = 1, .dims = {100},
                                                                .box = {8}},
                                      &map));

    memset(&untouched, 0x33, sizeof(untouched));
    map = untouched;
    FT_INVALID(gpu_tensor_map_encode_tiled(NULL, 0, &d, &map), "buffer is NULL");
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, NULL, &map), "desc is NULL");
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &d, NULL), "out is NULL");
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 4, &d, &map), "not 16-byte aligned");
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 128, &d, &map), "the tensor reaches byte 131072 past byte 128");
    bad = d, bad.rank = 0;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "rank 0");
    bad = d, bad.rank = 6;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "rank 6");
    bad = d, bad.type = (gpu_tensor_type)13;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "not of its enum");
    bad = d, bad.dims[1] = 0;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "dimension 1 has 0 elements");
    bad = d, bad.box[1] = 257;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "box 1 is 257");
    bad = d, bad.box[0] = 30;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "a box row of 120 bytes: a multiple of 16");
    bad = d, bad.box[0] = 64;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "more than the swizzle's 128");
    bad = d, bad.strides[0] = 1000;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "stride 0 is 1000 bytes");
    bad = d, bad.strides[0] = 512;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "at least 1024");
    bad = d, bad.element_strides[0] = 9;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "element stride 0 is 9");
    bad = d, bad.oob_fill = GPU_TENSOR_OOB_FILL_NAN;
    FT_INVALID(gpu_tensor_map_encode_tiled(b, 0, &bad, &map), "a NaN fill needs a floating-point type");
    assert_memory_equal(&map, &untouched, sizeof(map));
    gpu_buffer_destroy(b);
}

/* ---- A driver without cuLaunchKernelEx and other optional entry points (the no-ex configuration) ---- */

static void without_launch_ex(void **state)
{
    static const uint32_t cooperative[6] = {0, 0, 0, 1, 0, 0};
    uint64_t ptr = gpu_buffer_get_device_ptr(out);
    size_t v = 0;
    int n = 0;

    (void)state;
    ex_launch(&(gpu_launch_config){.grid = {2, 1, 1}, .block = {32, 1, 1}, .cooperative = true}, cooperative);
    assert_int_equal(gpu_fake_calls("cuLaunchCooperativeKernel"), 1);
    assert_int_equal(gpu_fake_calls("cuLaunchKernelEx"), 0);
    FT_FAIL(gpu_stream_launch_function(stream, ex_info,
                                       &(gpu_launch_config){.grid = {2, 1, 1}, .block = {1, 1, 1},
                                                            .cooperative = true, .priority = 1},
                                       (void *[]){&ptr}),
            GPU_ERR_NOT_SUPPORTED, 0, "cuLaunchKernelEx");
    FT_FAIL(gpu_context_get_limit(NULL, GPU_LIMIT_STACK_SIZE, &v), GPU_ERR_NOT_SUPPORTED, 0, "cuCtxGetLimit");
    FT_FAIL(gpu_buffer_memset(out, 0, 1, 1, 0), GPU_ERR_NOT_SUPPORTED, 0, "cuMemsetD8");
    FT_FAIL(gpu_function_get_max_active_blocks(fill, 32, 0, &n), GPU_ERR_NOT_SUPPORTED, 0,
            "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    /* The opt-in check needs cuFuncGetAttribute: without it the launch says so rather than guessing. */
    fill_launch(fill, 64 * 1024, 1, GPU_ERR_NOT_SUPPORTED, "cuFuncGetAttribute");
    FT_OK(gpu_stream_synchronize(stream));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest all[] = {
        cmocka_unit_test(device_attributes),
        cmocka_unit_test(function_attributes),
        cmocka_unit_test(shared_memory_opt_in),
        cmocka_unit_test(occupancy),
        cmocka_unit_test(extended_launches),
        cmocka_unit_test(serialization_needs_hopper),
        cmocka_unit_test(old_initializers_mean_the_same),
        cmocka_unit_test(memset_values),
        cmocka_unit_test(memset_long),
        cmocka_unit_test(module_globals),
        cmocka_unit_test(context_limits),
        cmocka_unit_test(tensor_maps),
    };
    const struct CMUnitTest no_ex[] = {
        cmocka_unit_test(without_launch_ex),
    };

    if (argc > 1 && strcmp(argv[1], "no-ex") == 0)
        return cmocka_run_group_tests_name("kernels without cuLaunchKernelEx", no_ex, setup, teardown);
    return cmocka_run_group_tests_name("kernels", all, setup, teardown);
}
