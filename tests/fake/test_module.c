/* SPDX-License-Identifier: MIT */
/*
 * Modules and their functions (fake/fake_module.c), called as a CUDA program
 * calls them. One case per process (argv[1]).
 *
 *   modules    cuFuncGetName, cuFuncGetModule, cuModuleGetFunctionCount,
 *              cuModuleEnumerateFunctions, cuModuleGetLoadingMode; their errors
 */
#include <string.h>

#include "fake_test.h"

static void modules(void **state)
{
    cuabi_module m = NULL, got = NULL;
    cuabi_function f = NULL, g = NULL, all[3] = {NULL, NULL, NULL};
    const char *name = NULL;
    unsigned count = 0;
    cuabi_module_loading_mode mode = 0;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuModuleLoadData(&m, ft_two_kernels));
    CU_OK(cuModuleGetFunctionCount(&count, m));
    assert_int_equal(count, 2);
    /* Up to numFunctions handles, in the image's order: those cuModuleGetFunction gives. */
    CU_OK(cuModuleGetFunction(&f, m, "add_one"));
    CU_OK(cuModuleGetFunction(&g, m, "scale_add"));
    CU_OK(cuModuleEnumerateFunctions(all, 1, m));
    assert_ptr_equal(all[0], f);
    assert_null(all[1]);
    CU_OK(cuModuleEnumerateFunctions(all, 3, m));
    assert_ptr_equal(all[0], f);
    assert_ptr_equal(all[1], g);
    assert_null(all[2]);
    CU_OK(cuFuncGetName(&name, g));
    assert_string_equal(name, "scale_add");
    CU_OK(cuFuncGetName(&name, all[0]));
    assert_string_equal(name, "add_one");
    CU_OK(cuFuncGetModule(&got, f));
    assert_ptr_equal(got, m);
    CU_OK(cuModuleGetLoadingMode(&mode));
    assert_int_equal(mode, CUABI_MODULE_EAGER_LOADING);
    /* Errors. */
    assert_int_equal(cuFuncGetName(NULL, f), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetName(&name, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetName(&name, (cuabi_function)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetModule(NULL, f), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetModule(&got, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetModule(&got, (cuabi_function)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetFunctionCount(NULL, m), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleGetFunctionCount(&count, NULL), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleEnumerateFunctions(NULL, 2, m), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleEnumerateFunctions(all, 2, (cuabi_module)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetLoadingMode(NULL), CUABI_ERROR_INVALID_VALUE);
    /* Unloaded: its handles are no longer known. */
    CU_OK(cuModuleUnload(m));
    assert_int_equal(cuModuleGetFunctionCount(&count, m), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleEnumerateFunctions(all, 2, m), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetName(&name, f), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetModule(&got, f), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"modules", cmocka_unit_test(modules)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
