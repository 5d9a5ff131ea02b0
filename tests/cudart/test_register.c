/* SPDX-License-Identifier: MIT */
/*
 * libgpushim-cudart's registration calls (crt/host_runtime.h), called as nvcc's
 * generated code calls them and as it never would: NULL names and handles,
 * handles it never handed out, a fatbin unregistered twice. Each refusal is
 * cudaErrorInvalidValue, seen by the next runtime call; none crashes.
 */
#include <fatbinary_section.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
char __cudaInitModule(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);

/* Never loaded: these cases register and unregister only. */
static const unsigned long long fatbin[4] = {0xba55ed50ull};
static __fatBinC_Wrapper_t wrapper = {FATBINC_MAGIC, 1, fatbin, NULL};

static void stub_a(void) {}
static void stub_b(void) {}
static char shadow_a[4], shadow_b[4];

static void register_fn(void **h, void (*stub)(void), const char *name)
{
    __cudaRegisterFunction(h, (const char *)(uintptr_t)stub, (char *)(uintptr_t)name, name, -1, NULL, NULL, NULL,
                           NULL, NULL);
}

static void unregister_twice(void **state)
{
    void **h = __cudaRegisterFatBinary(&wrapper);
    cudaKernel_t k;

    (void)state;
    assert_non_null(h);
    register_fn(h, stub_a, "a");
    __cudaRegisterVar(h, shadow_a, (char *)"va", "va", 0, sizeof(shadow_a), 0, 0);
    __cudaRegisterFatBinaryEnd(h);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    __cudaUnregisterFatBinary(h);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    assert_int_equal(__cudaGetKernel(&k, (const void *)(uintptr_t)stub_a), cudaErrorInvalidDeviceFunction);
    (void)cudaGetLastError();
    /* The handle is gone: each further use is refused, and the registry stays whole. */
    __cudaUnregisterFatBinary(h);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    __cudaRegisterFatBinaryEnd(h);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    register_fn(h, stub_b, "b");
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(__cudaGetKernel(&k, (const void *)(uintptr_t)stub_b), cudaErrorInvalidDeviceFunction);
    (void)cudaGetLastError();
    assert_int_equal(__cudaInitModule(h), 0);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
}

static void function_null_names(void **state)
{
    void **h = __cudaRegisterFatBinary(&wrapper);
    cudaKernel_t k;

    (void)state;
    assert_non_null(h);
    __cudaRegisterFunction(h, (const char *)(uintptr_t)stub_a, NULL, NULL, -1, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    /* A launch of that stub is refused with the same code. */
    assert_int_equal(cudaLaunchKernel((const void *)(uintptr_t)stub_a, (dim3){1, 1, 1}, (dim3){1, 1, 1}, NULL, 0, 0),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    /* No host stub: nothing to launch it by. */
    __cudaRegisterFunction(h, NULL, (char *)"b", "b", -1, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(__cudaGetKernel(&k, NULL), cudaErrorInvalidDeviceFunction);
    (void)cudaGetLastError();
    /* A NULL or unknown handle. */
    register_fn(NULL, stub_b, "b");
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    register_fn((void **)&wrapper, stub_b, "b");
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    assert_int_equal(__cudaGetKernel(&k, (const void *)(uintptr_t)stub_b), cudaErrorInvalidDeviceFunction);
    (void)cudaGetLastError();
    __cudaUnregisterFatBinary(h);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
}

static void vars_refused(void **state)
{
    void **h = __cudaRegisterFatBinary(&wrapper);
    void *managed = NULL;
    void *address = NULL;

    (void)state;
    assert_non_null(h);
    __cudaRegisterVar(h, shadow_a, NULL, NULL, 0, 4, 0, 0);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    __cudaRegisterVar(h, NULL, (char *)"v", "v", 0, 4, 0, 0);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    __cudaRegisterManagedVar(h, NULL, (char *)"m", "m", 0, 4, 0, 0);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    __cudaRegisterManagedVar((void **)shadow_b, &managed, (char *)"m", "m", 0, 4, 0, 0);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    /* The refused variable is one the runtime reports as refused. */
    assert_int_equal(cudaGetSymbolAddress(&address, shadow_a), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    __cudaUnregisterFatBinary(h);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
}

static void fatbin_refused(void **state)
{
    (void)state;
    assert_null(__cudaRegisterFatBinary(NULL));
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    __cudaUnregisterFatBinary(NULL);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    __cudaRegisterFatBinaryEnd(NULL);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
    /* A pointer the runtime never handed out is not read. */
    __cudaUnregisterFatBinary((void **)&wrapper);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
}

static void same_twice(void **state)
{
    void **h = __cudaRegisterFatBinary(&wrapper);
    void **again = __cudaRegisterFatBinary(&wrapper);
    cudaKernel_t k1, k2;

    (void)state;
    assert_non_null(h);
    assert_ptr_equal(h, again);
    register_fn(h, stub_a, "a");
    register_fn(h, stub_a, "a");
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    assert_int_equal(__cudaGetKernel(&k1, (const void *)(uintptr_t)stub_a), cudaSuccess);
    /* Each registration is given back: the first leaves the fatbin registered for the second. */
    __cudaUnregisterFatBinary(h);
    assert_int_equal(__cudaGetKernel(&k2, (const void *)(uintptr_t)stub_a), cudaSuccess);
    assert_ptr_equal(k1, k2);
    __cudaUnregisterFatBinary(again);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    assert_int_equal(__cudaGetKernel(&k2, (const void *)(uintptr_t)stub_a), cudaErrorInvalidDeviceFunction);
    (void)cudaGetLastError();
    __cudaUnregisterFatBinary(h);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidValue);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unregister_twice), cmocka_unit_test(function_null_names), cmocka_unit_test(vars_refused),
        cmocka_unit_test(fatbin_refused),   cmocka_unit_test(same_twice),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
