/* SPDX-License-Identifier: MIT */
/*
 * The legacy launch API (fake/exec/fake_launch_legacy.c), called as a CUDA program
 * calls it. One case per process (argv[1]).
 *
 *   legacy-launch  the legacy launch API: cuFuncSetBlockShape, cuParamSet*,
 *               cuLaunch, cuLaunchGrid, cuLaunchGridAsync, and their refusals
 */

#include <string.h>

#include "fake_test.h"

/*
 * The legacy launch API: a PTX add_one's pointer and count written at their byte
 * offsets (cuParamSetv, cuParamSeti, then cuParamSetf with the count's bits),
 * its block shape and a 2D grid; the refusals of a launch with no block
 * shape, a buffer of the wrong size, offsets past the parameter space.
 */
static const char legacy_ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                                 ".visible .entry add_one(.param .u64 p, .param .u32 n)\n{\n"
                                 "  .reg .pred %q;\n  .reg .b32 %r<6>;\n  .reg .b64 %d<4>;\n"
                                 "  ld.param.u64 %d1, [p];\n  ld.param.u32 %r1, [n];\n"
                                 "  mov.u32 %r2, %ctaid.y;\n  mov.u32 %r3, %nctaid.x;\n  mov.u32 %r4, %ctaid.x;\n"
                                 "  mad.lo.u32 %r2, %r2, %r3, %r4;\n  mov.u32 %r3, %ntid.x;\n  mul.lo.u32 %r3, %r3, %ntid.y;\n"
                                 "  mov.u32 %r4, %tid.y;\n  mov.u32 %r5, %ntid.x;\n  mad.lo.u32 %r4, %r4, %r5, %tid.x;\n"
                                 "  mad.lo.u32 %r2, %r2, %r3, %r4;\n  setp.ge.u32 %q, %r2, %r1;\n  @%q bra done;\n"
                                 "  cvta.to.global.u64 %d1, %d1;\n  mul.wide.u32 %d2, %r2, 4;\n  add.s64 %d1, %d1, %d2;\n"
                                 "  ld.global.u32 %r3, [%d1];\n  add.s32 %r3, %r3, 1;\n  st.global.u32 [%d1], %r3;\n"
                                 "done:\n  ret;\n}\n";

static void legacy_launch(void **state)
{
    enum { N = 1000 };
    static uint32_t in[N], out[N];
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    cuabi_deviceptr d = 0;
    unsigned half = 500;
    float half_bits;

    (void)state;
    ft_retain_current(0);
    for (unsigned i = 0; i < N; i++)
        in[i] = i * 3;
    CU_OK(cuModuleLoadData(&m, legacy_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "add_one"));
    CU_OK(cuMemAlloc_v2(&d, sizeof(in)));
    CU_OK(cuMemcpyHtoD_v2(d, in, sizeof(in)));
    CU_OK(cuParamSetv(f, 0, &d, sizeof(d)));
    CU_OK(cuParamSeti(f, 8, N));
    CU_OK(cuParamSetSize(f, 12));
    assert_int_equal(cuLaunchGrid(f, 4, 1), CUABI_ERROR_INVALID_VALUE); /* no block shape yet */
    CU_OK(cuFuncSetBlockShape(f, 128, 2, 1));
    CU_OK(cuFuncSetSharedSize(f, 0));
    CU_OK(cuLaunchGrid(f, 2, 2)); /* 4 blocks of 256 threads */
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof(out)));
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(out[i], in[i] + 1);
    /* A count of 500 by its bits, as a float; one block of 256, then the rest on a stream. */
    memcpy(&half_bits, &half, sizeof(half_bits));
    CU_OK(cuParamSetf(f, 8, half_bits));
    CU_OK(cuFuncSetBlockShape(f, 256, 1, 1));
    CU_OK(cuLaunch(f));
    CU_OK(cuLaunchGridAsync(f, 2, 1, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof(out)));
    /* The first 256 took two more, the rest of the first 500 one more: add_one runs blocks x 256 threads below n. */
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(out[i], in[i] + 1 + (i < 256) + (i < half));
    /* The parameter buffer's size must be what the entry declares. */
    CU_OK(cuParamSetSize(f, 16));
    assert_int_equal(cuLaunchGrid(f, 1, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSetSize(f, 1 << 20), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSeti(f, 32764, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSeti(f, -4, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSetv(f, 0, NULL, 8), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncSetBlockShape(f, 0, 1, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchGrid(f, 0, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncSetBlockShape(NULL, 1, 1, 1), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLaunch(NULL), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"legacy-launch", cmocka_unit_test(legacy_launch)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
