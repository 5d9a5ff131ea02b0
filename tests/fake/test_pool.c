/* SPDX-License-Identifier: MIT */
/*
 * Stream-ordered pools (fake/memory/fake_pool.c), called as a CUDA program calls them.
 * One case per process (argv[1]).
 *
 *   created    a pool cuMemPoolCreate makes: allocations from it, its own
 *              accounting and release threshold, its access from the other
 *              device, the device's current pool, its destruction while an
 *              allocation of it is still live; the errors of each call
 */

#include <string.h>

#include "fake_test.h"

static cuabi_mem_pool_props props_on(int device)
{
    cuabi_mem_pool_props p;

    memset(&p, 0, sizeof(p));
    p.type = CUABI_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CUABI_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    return p;
}

static uint64_t attribute(cuabi_mem_pool pool, cuabi_mem_pool_attribute attr)
{
    uint64_t v = UINT64_MAX;

    CU_OK(cuMemPoolGetAttribute(pool, attr, &v));
    return v;
}

static void created(void **state)
{
    cuabi_mem_pool_props props = props_on(0);
    cuabi_mem_pool pool = NULL, other = NULL, dflt = NULL, got = NULL;
    cuabi_deviceptr a = 0, b = 0, c = 0;
    cuabi_mem_access_desc desc = {{CUABI_MEM_LOCATION_TYPE_DEVICE, 1}, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE};
    cuabi_mem_location where = {CUABI_MEM_LOCATION_TYPE_DEVICE, 1};
    unsigned flags = 7;
    uint64_t big = 1u << 20;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemPoolCreate(&pool, &props));
    CU_OK(cuDeviceGetDefaultMemPool(&dflt, 0));
    assert_ptr_not_equal(pool, dflt);
    /* Its allocations are its own: the default pool's use stays 0. */
    CU_OK(cuMemAllocFromPoolAsync(&a, 4096, pool, NULL));
    CU_OK(cuMemAllocFromPoolAsync(&b, 1024, pool, NULL));
    assert_int_equal(attribute(pool, CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT), 5120);
    assert_int_equal(attribute(dflt, CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
    CU_OK(cuMemsetD8_v2(a, 0x5a, 4096));
    /* Under its release threshold, a freed allocation stays with it for reuse. */
    CU_OK(cuMemPoolSetAttribute(pool, CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD, &big));
    CU_OK(cuMemFreeAsync(b, NULL));
    CU_OK(cuCtxSynchronize());
    assert_int_equal(attribute(pool, CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT), 4096);
    assert_int_equal(attribute(pool, CUABI_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 5120);
    assert_int_equal(gpu_fake_pool_cached(0), 1024);
    /* Access: its own device reads and writes; the other one as set. */
    where.id = 0;
    CU_OK(cuMemPoolGetAccess(&flags, pool, &where));
    assert_int_equal(flags, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE);
    where.id = 1;
    CU_OK(cuMemPoolGetAccess(&flags, pool, &where));
    assert_int_equal(flags, CUABI_MEM_ACCESS_FLAGS_PROT_NONE);
    CU_OK(cuMemPoolSetAccess(pool, &desc, 1));
    CU_OK(cuMemPoolGetAccess(&flags, pool, &where));
    assert_int_equal(flags, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE);
    /* The device's current pool: cuMemAllocAsync takes from it. */
    CU_OK(cuDeviceSetMemPool(0, pool));
    CU_OK(cuDeviceGetMemPool(&got, 0));
    assert_ptr_equal(got, pool);
    CU_OK(cuMemAllocAsync(&c, 512, NULL));
    assert_int_equal(attribute(pool, CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT), 4608);
    CU_OK(cuMemFreeAsync(c, NULL));
    /* Destroyed with `a` live: what it held goes now, the default pool is current again, the handle is dead. */
    CU_OK(cuMemPoolDestroy(pool));
    assert_int_equal(gpu_fake_pool_cached(0), 0);
    CU_OK(cuDeviceGetMemPool(&got, 0));
    assert_ptr_equal(got, dflt);
    assert_int_equal(cuMemAllocFromPoolAsync(&b, 16, pool, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolDestroy(pool), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemFreeAsync(a, NULL));
    CU_OK(cuCtxSynchronize());
    assert_int_equal(gpu_fake_pool_cached(0), 0);
    /* A pool with a maximum size. */
    props.max_size = 8192;
    CU_OK(cuMemPoolCreate(&other, &props));
    assert_int_equal(cuMemAllocFromPoolAsync(&a, 8193, other, NULL), CUABI_ERROR_OUT_OF_MEMORY);
    CU_OK(cuMemAllocFromPoolAsync(&a, 8192, other, NULL));
    assert_int_equal(cuMemAllocFromPoolAsync(&b, 1, other, NULL), CUABI_ERROR_OUT_OF_MEMORY);
    CU_OK(cuMemFreeAsync(a, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemPoolDestroy(other));
    /* The errors. */
    assert_int_equal(cuMemPoolDestroy(dflt), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolCreate(NULL, &props), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolCreate(&other, NULL), CUABI_ERROR_INVALID_VALUE);
    props = props_on(5);
    assert_int_equal(cuMemPoolCreate(&other, &props), CUABI_ERROR_INVALID_DEVICE);
    props = props_on(0);
    props.type = 0;
    assert_int_equal(cuMemPoolCreate(&other, &props), CUABI_ERROR_INVALID_VALUE);
    props = props_on(0);
    props.handle_types = CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    assert_int_equal(cuMemPoolCreate(&other, &props), CUABI_ERROR_NOT_SUPPORTED);
    props = props_on(0);
    CU_OK(cuMemPoolCreate(&pool, &props));
    desc.location.id = 0;
    desc.flags = CUABI_MEM_ACCESS_FLAGS_PROT_NONE; /* its own device's access is not to be taken away */
    assert_int_equal(cuMemPoolSetAccess(pool, &desc, 1), CUABI_ERROR_INVALID_VALUE);
    desc.location.id = 9;
    desc.flags = CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE;
    assert_int_equal(cuMemPoolSetAccess(pool, &desc, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolSetAccess(pool, NULL, 1), CUABI_ERROR_INVALID_VALUE);
    where.type = CUABI_MEM_LOCATION_TYPE_DEVICE;
    where.id = 9;
    assert_int_equal(cuMemPoolGetAccess(&flags, pool, &where), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolGetAccess(NULL, pool, &where), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceSetMemPool(1, pool), CUABI_ERROR_INVALID_VALUE); /* a pool of device 0 */
    assert_int_equal(cuDeviceSetMemPool(9, pool), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuMemAllocFromPoolAsync(NULL, 16, pool, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemAllocFromPoolAsync(&a, 0, pool, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemAllocFromPoolAsync(&a, 16, (cuabi_mem_pool)(void *)&flags, NULL), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemPoolDestroy(pool));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"created", cmocka_unit_test(created)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
