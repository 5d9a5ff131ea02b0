/* SPDX-License-Identifier: MIT */
/*
 * The fake's contexts as a CUDA program sees them through the driver API. One
 * case per process (argv[1]).
 *
 *   attach      the legacy usage count: cuCtxAttach and cuCtxDetach on
 *               created and primary contexts, PyCUDA's create-then-detach
 *               many times over; their errors
 */
#include <stdio.h>
#include <string.h>

#include "fake_test.h"

#define CU_IS(call, want) assert_int_equal((call), (want))

static void attach(void **state)
{
    cuabi_context c = NULL, h = NULL, cur = NULL, primary = NULL;
    cuabi_deviceptr p = 0;

    (void)state;
    CU_OK(cuInit(0));
    /* Nothing current: nothing to attach. */
    CU_IS(cuCtxAttach(&h, 0), CUABI_ERROR_INVALID_CONTEXT);
    /* PyCUDA's pattern: a context created (and pushed), then detached; far more than a thread's stack holds. */
    for (int i = 0; i < 100; i++) {
        CU_OK(cuCtxCreate_v2(&c, 0, 0));
        CU_OK(cuMemAlloc_v2(&p, 16));
        CU_OK(cuCtxDetach(c));
        assert_int_equal(gpu_fake_context_depth(), 0);
    }
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    /* Attached once more, it takes two detaches; the first leaves it current and working. */
    CU_OK(cuCtxCreate_v2(&c, 0, 0));
    CU_OK(cuCtxAttach(&h, 0));
    assert_ptr_equal(h, c);
    CU_OK(cuCtxDetach(c));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, c);
    CU_OK(cuMemAlloc_v2(&p, 16));
    CU_OK(cuMemFree_v2(p));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 1);
    CU_OK(cuCtxDetach(c));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 0);
    assert_int_equal(gpu_fake_context_depth(), 0);
    CU_IS(cuCtxPushCurrent_v2(c), CUABI_ERROR_INVALID_CONTEXT);
    CU_IS(cuCtxDetach(c), CUABI_ERROR_INVALID_CONTEXT);
    /* Errors: flags, no handle, a context that is not current. */
    CU_OK(cuCtxCreate_v2(&c, 0, 0));
    CU_IS(cuCtxAttach(&h, 1), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuCtxAttach(NULL, 0), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuDevicePrimaryCtxRetain(&primary, 0));
    CU_OK(cuCtxPushCurrent_v2(primary));
    CU_IS(cuCtxDetach(c), CUABI_ERROR_INVALID_CONTEXT);
    /* A primary context's uses are its retains. */
    CU_OK(cuCtxAttach(&h, 0));
    assert_ptr_equal(h, primary);
    assert_int_equal(gpu_fake_primary_retains(0), 2);
    CU_OK(cuCtxDetach(primary));
    assert_int_equal(gpu_fake_primary_retains(0), 1);
    CU_OK(cuCtxDetach(primary));
    assert_int_equal(gpu_fake_primary_retains(0), 0);
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, c);
    CU_OK(cuCtxDestroy_v2(c));
    assert_int_equal(gpu_fake_context_depth(), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXT_RETAINS), 0);
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"attach", cmocka_unit_test(attach)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
