/* SPDX-License-Identifier: MIT */
/*
 * Managed memory (fake/memory/fake_managed.c), called as a CUDA program calls it.
 * One case per process (argv[1]).
 *
 *   ranges     cuMemRangeGetAttribute and cuMemRangeGetAttributes on managed
 *              memory after advice and prefetches; their errors
 *   attach     cuStreamAttachMemAsync: each flag, a whole allocation, and
 *              its errors
 */

#include "fake_test.h"

static void ranges(void **state)
{
    cuabi_deviceptr m = 0, d = 0;
    int mostly = -1, preferred = -1, last = -1, by[3] = {7, 7, 7}, one = 7;
    void *data[4] = {&mostly, &preferred, by, &last};
    size_t sizes[4] = {sizeof(int), sizeof(int), sizeof(by), sizeof(int)};
    cuabi_mem_range_attribute attrs[4] = {CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                          CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
                                          CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
                                          CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION};

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemAllocManaged(&m, 4096, CUABI_MEM_ATTACH_GLOBAL));
    CU_OK(cuMemAlloc_v2(&d, 4096));
    /* No advice, no prefetch. */
    CU_OK(cuMemRangeGetAttributes(data, sizes, attrs, 4, m, 4096));
    assert_int_equal(mostly, 0);
    assert_int_equal(preferred, CUABI_DEVICE_INVALID);
    assert_int_equal(by[0], CUABI_DEVICE_INVALID);
    assert_int_equal(by[2], CUABI_DEVICE_INVALID);
    assert_int_equal(last, CUABI_DEVICE_INVALID);
    /* What the advice and prefetches left, over all of it or part. */
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_READ_MOSTLY, 0));
    CU_OK(cuMemRangeGetAttribute(&mostly, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + 100, 200));
    assert_int_equal(mostly, 1);
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION, 1));
    CU_OK(cuMemRangeGetAttribute(&preferred, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096));
    assert_int_equal(preferred, 1);
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION, CUABI_DEVICE_CPU));
    CU_OK(cuMemRangeGetAttribute(&preferred, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096));
    assert_int_equal(preferred, CUABI_DEVICE_CPU);
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_ACCESSED_BY, 1));
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_ACCESSED_BY, CUABI_DEVICE_CPU));
    CU_OK(cuMemRangeGetAttribute(by, sizeof(by), CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096));
    assert_int_equal(by[0], 1);
    assert_int_equal(by[1], CUABI_DEVICE_CPU);
    assert_int_equal(by[2], CUABI_DEVICE_INVALID);
    CU_OK(cuMemRangeGetAttribute(&one, sizeof(one), CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096));
    assert_int_equal(one, 1);
    CU_OK(cuMemPrefetchAsync(m, 4096, 1, NULL));
    CU_OK(cuMemRangeGetAttribute(&last, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 1));
    assert_int_equal(last, 1);
    CU_OK(cuMemPrefetchAsync(m, 4096, CUABI_DEVICE_CPU, NULL));
    CU_OK(cuMemRangeGetAttribute(&last, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 1));
    assert_int_equal(last, CUABI_DEVICE_CPU);
    /* Undone. */
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_UNSET_READ_MOSTLY, 0));
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_UNSET_PREFERRED_LOCATION, 0));
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_UNSET_ACCESSED_BY, 1));
    CU_OK(cuMemRangeGetAttributes(data, sizes, attrs, 4, m + 4000, 96));
    assert_int_equal(mostly, 0);
    assert_int_equal(preferred, CUABI_DEVICE_INVALID);
    assert_int_equal(by[0], CUABI_DEVICE_CPU);
    assert_int_equal(by[1], CUABI_DEVICE_INVALID);
    assert_int_equal(last, CUABI_DEVICE_CPU);
    /* Errors: NULL, a size not the attribute's, an attribute unknown, a range not all managed memory. */
    assert_int_equal(cuMemRangeGetAttribute(NULL, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, 8, CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(by, 0, CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(by, 6, CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, sizeof(int), 99, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 0),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4097),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(NULL, sizes, attrs, 4, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(data, NULL, attrs, 4, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(data, sizes, NULL, 4, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(data, sizes, attrs, 0, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(data, sizes, attrs, 4, d, 16), CUABI_ERROR_INVALID_VALUE);
    /* One bad attribute: none written. */
    mostly = 7;
    attrs[3] = 99;
    assert_int_equal(cuMemRangeGetAttributes(data, sizes, attrs, 4, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(mostly, 7);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuMemFree_v2(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void attach(void **state)
{
    cuabi_deviceptr m = 0, d = 0;
    cuabi_stream s = NULL;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemAllocManaged(&m, 4096, CUABI_MEM_ATTACH_GLOBAL));
    CU_OK(cuMemAlloc_v2(&d, 4096));
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuStreamAttachMemAsync(s, m, 0, CUABI_MEM_ATTACH_SINGLE));
    CU_OK(cuStreamAttachMemAsync(s, m, 4096, CUABI_MEM_ATTACH_HOST));
    CU_OK(cuStreamAttachMemAsync(NULL, m, 0, CUABI_MEM_ATTACH_GLOBAL));
    CU_OK(cuStreamSynchronize(s));
    ((volatile unsigned char *)(uintptr_t)m)[0] = 1;
    /* One stream alone is never the NULL stream; a whole managed allocation; one flag. */
    assert_int_equal(cuStreamAttachMemAsync(NULL, m, 0, CUABI_MEM_ATTACH_SINGLE), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, m, 100, CUABI_MEM_ATTACH_GLOBAL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, m + 16, 0, CUABI_MEM_ATTACH_GLOBAL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, d, 0, CUABI_MEM_ATTACH_GLOBAL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, m, 0, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, m, 0, CUABI_MEM_ATTACH_GLOBAL | CUABI_MEM_ATTACH_HOST),
                     CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuMemFree_v2(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"ranges", cmocka_unit_test(ranges)},
        {"attach", cmocka_unit_test(attach)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
