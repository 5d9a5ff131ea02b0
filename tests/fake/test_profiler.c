/* SPDX-License-Identifier: MIT */
/*
 * The profiler's calls (fake/exec/fake_profiler.c), called as a CUDA program
 * calls them. One case per process (argv[1]).
 *
 *   profiler   cuProfilerStart and cuProfilerStop: no-ops with a context,
 *              counted as implemented; their errors
 */

#include "fake_test.h"

static void profiler(void **state)
{
    (void)state;
    CU_OK(cuInit(0));
    assert_int_equal(cuProfilerStart(), CUABI_ERROR_INVALID_CONTEXT);
    ft_retain_current(0);
    CU_OK(cuProfilerStart());
    CU_OK(cuProfilerStop());
    assert_int_equal(gpu_fake_calls("cuProfilerStart"), 2);
    assert_int_equal(gpu_fake_unimplemented_calls(), 0);
    assert_int_equal(gpu_fake_symbol_implemented("cuProfilerStart"), 1);
    assert_int_equal(gpu_fake_symbol_implemented("cuProfilerStop"), 1);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"profiler", cmocka_unit_test(profiler)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
