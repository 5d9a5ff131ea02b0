/* SPDX-License-Identifier: MIT */
/*
 * Driver calls that JIT compilers and other ctypes clients make, called
 * directly as such a program calls them. One case per process (argv[1]).
 *
 *   pointers   cuPointerGetAttribute(s)' device and host aliases of device,
 *              managed and page-locked memory; their errors
 *   mapped     fills (cuMemsetD8/16/32, 2D, async) and cuMemGetAddressRange
 *              at mapped page-locked memory's device alias; their errors
 *   fork       a child forked before cuInit initialises its own driver; one
 *              forked after it gets NOT_INITIALIZED from cuInit and every
 *              call that needs it, as from the driver
 *   link-file  cuLinkAddFile of a symbolic link: refused, and told why in
 *              the error log and by cuGetErrorString
 *   profiler   cuProfilerStart and cuProfilerStop: no-ops with a context,
 *              counted as implemented; their errors
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

static void pointers(void **state)
{
    cuabi_deviceptr d = 0, m = 0, alias = 0, got = 1;
    void *host = NULL, *back = NULL;
    cuabi_pointer_attribute both[2] = {CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, CUABI_POINTER_ATTRIBUTE_HOST_POINTER};
    void *data[2] = {&got, &back};

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemAlloc_v2(&d, 256));
    CU_OK(cuMemAllocManaged(&m, 256, 1));
    CU_OK(cuMemHostAlloc(&host, 256, CUABI_MEMHOSTALLOC_DEVICEMAP));
    CU_OK(cuMemHostGetDevicePointer_v2(&alias, host, 0));

    /* Device memory is its own device pointer and has no host alias. */
    CU_OK(cuPointerGetAttribute(&got, CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 8));
    assert_int_equal(got, d + 8);
    assert_int_equal(cuPointerGetAttribute(&back, CUABI_POINTER_ATTRIBUTE_HOST_POINTER, d),
                     CUABI_ERROR_INVALID_VALUE);
    /* The plural answers NULL for the missing alias instead. */
    back = host;
    CU_OK(cuPointerGetAttributes(2, both, data, d));
    assert_int_equal(got, d);
    assert_null(back);

    /* Managed memory is reached at the same address from both sides. */
    CU_OK(cuPointerGetAttribute(&got, CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, m));
    assert_int_equal(got, m);
    CU_OK(cuPointerGetAttribute(&back, CUABI_POINTER_ATTRIBUTE_HOST_POINTER, m + 4));
    assert_int_equal((uintptr_t)back, m + 4);

    /* Mapped page-locked memory: its device alias from the host pointer, the host pointer from the alias. */
    CU_OK(cuPointerGetAttribute(&got, CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, (uintptr_t)host + 16));
    assert_int_equal(got, alias + 16);
    CU_OK(cuPointerGetAttribute(&back, CUABI_POINTER_ATTRIBUTE_HOST_POINTER, alias));
    assert_ptr_equal(back, host);

    /* An address CUDA does not know. */
    assert_int_equal(cuPointerGetAttribute(&got, CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, 0x1000),
                     CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemFreeHost(host));
    CU_OK(cuMemFree_v2(m));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void mapped(void **state)
{
    enum { N = 1024 };
    unsigned char *host = NULL;
    cuabi_deviceptr alias = 0, base = 0;
    size_t size = 0;
    cuabi_stream s = NULL;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemHostAlloc((void **)&host, N, CUABI_MEMHOSTALLOC_DEVICEMAP));
    CU_OK(cuMemHostGetDevicePointer_v2(&alias, host, 0));
    CU_OK(cuStreamCreate(&s, 0));
    memset(host, 0, N);

    CU_OK(cuMemsetD8_v2(alias, 0x11, 16));
    CU_OK(cuMemsetD16_v2(alias + 16, 0x2222, 8));
    CU_OK(cuMemsetD32_v2(alias + 32, 0x33333333u, 4));
    CU_OK(cuMemsetD2D8_v2(alias + 64, 32, 0x44, 8, 2)); /* bytes 64-71 and 96-103 */
    CU_OK(cuMemsetD8Async(alias + 128, 0x55, 16, s));
    CU_OK(cuMemsetD32Async(alias + 144, 0x66666666u, 4, s));
    CU_OK(cuStreamSynchronize(s));
    for (int i = 0; i < 176; i++) {
        unsigned want = i < 16                          ? 0x11
                        : i < 32                        ? 0x22
                        : i < 48                        ? 0x33
                        : (i >= 64 && i < 72) || (i >= 96 && i < 104) ? 0x44
                        : i >= 128 && i < 144           ? 0x55
                        : i >= 144 && i < 160           ? 0x66
                                                        : 0;

        if (host[i] != want)
            fail_msg("byte %d is 0x%02x, not 0x%02x", i, host[i], want);
    }
    /* Past its end, misaligned: refused as for device memory. */
    assert_int_equal(cuMemsetD8_v2(alias + N - 8, 0, 9), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemsetD32_v2(alias + 2, 0, 1), CUABI_ERROR_INVALID_VALUE);

    CU_OK(cuMemGetAddressRange_v2(&base, &size, alias + 100));
    assert_int_equal(base, alias);
    assert_int_equal(size, N);
    assert_int_equal(cuMemGetAddressRange_v2(&base, &size, 0x1000), CUABI_ERROR_NOT_FOUND);

    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFreeHost(host));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* Runs `body` in a child; returns its exit status (the number of its first failed check, or 0). */
static int in_child(int (*body)(void))
{
    pid_t pid = fork();
    int status = 0;

    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(60); /* a hang is a failure too */
        _exit(body());
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static int child_before_init(void)
{
    cuabi_context ctx = NULL;
    cuabi_deviceptr d = 0;

    if (cuInit(0) != CUABI_SUCCESS)
        return 1;
    if (cuDevicePrimaryCtxRetain(&ctx, 0) != CUABI_SUCCESS || cuCtxSetCurrent(ctx) != CUABI_SUCCESS)
        return 2;
    if (cuMemAlloc_v2(&d, 16) != CUABI_SUCCESS || cuMemFree_v2(d) != CUABI_SUCCESS)
        return 3;
    return 0;
}

static int child_after_init(void)
{
    cuabi_context ctx = NULL;
    cuabi_deviceptr d = 0;
    int n = -1, version = 0;

    if (cuInit(0) != CUABI_ERROR_NOT_INITIALIZED)
        return 1;
    if (cuDeviceGetCount(&n) != CUABI_ERROR_NOT_INITIALIZED || n != -1)
        return 2;
    if (cuCtxGetCurrent(&ctx) != CUABI_ERROR_NOT_INITIALIZED)
        return 3;
    if (cuMemAlloc_v2(&d, 16) != CUABI_ERROR_NOT_INITIALIZED || d != 0)
        return 4;
    if (cuCtxSynchronize() != CUABI_ERROR_NOT_INITIALIZED)
        return 5;
    /* A second cuInit does not recover. */
    if (cuInit(0) != CUABI_ERROR_NOT_INITIALIZED || cuDevicePrimaryCtxRetain(&ctx, 0) != CUABI_ERROR_NOT_INITIALIZED)
        return 6;
    /* What needs no initialisation still answers. */
    if (cuDriverGetVersion(&version) != CUABI_SUCCESS || version == 0)
        return 7;
    return 0;
}

static void forked(void **state)
{
    cuabi_deviceptr d = 0;
    cuabi_stream s = NULL;
    unsigned char back[64];

    (void)state;
    assert_int_equal(in_child(child_before_init), 0);
    ft_retain_current(0);
    CU_OK(cuMemAlloc_v2(&d, sizeof(back)));
    CU_OK(cuStreamCreate(&s, 0));
    /* Work queued at the fork: the child neither runs nor waits for it. */
    CU_OK(cuMemsetD8Async(d, 0x5a, sizeof(back), s));
    assert_int_equal(in_child(child_after_init), 0);
    /* The parent goes on. */
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuMemcpyDtoH_v2(back, d, sizeof(back)));
    for (size_t i = 0; i < sizeof(back); i++)
        assert_int_equal(back[i], 0x5a);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void link_file(void **state)
{
    char dir[] = "/tmp/gpushim-gaps-XXXXXX", path[64], link[64], error[512] = "";
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error, (void *)(uintptr_t)sizeof(error)};
    cuabi_link_state l = NULL;
    const char *text = NULL;
    FILE *f;

    (void)state;
    ft_retain_current(0);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/k.ptx", dir);
    snprintf(link, sizeof(link), "%s/link.ptx", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(ft_ptx, f) >= 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(symlink(path, link), 0);

    CU_OK(cuLinkCreate_v2(2, options, values, &l));
    assert_int_equal(cuLinkAddFile_v2(l, CUABI_JIT_INPUT_PTX, link, 0, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    if (!strstr(error, "symbolic link") || !strstr(error, link))
        fail_msg("the error log \"%s\" does not say why", error);
    CU_OK(cuGetErrorString(CUABI_ERROR_INVALID_VALUE, &text));
    if (!strstr(text, "symbolic link"))
        fail_msg("cuGetErrorString says \"%s\"", text);
    /* The file itself is read. */
    CU_OK(cuLinkAddFile_v2(l, CUABI_JIT_INPUT_PTX, path, 0, NULL, NULL));
    CU_OK(cuLinkDestroy(l));
    unlink(link);
    unlink(path);
    rmdir(dir);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

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
        {"pointers", cmocka_unit_test(pointers)},
        {"mapped", cmocka_unit_test(mapped)},
        {"profiler", cmocka_unit_test(profiler)},
        {"fork", cmocka_unit_test(forked)},
        {"link-file", cmocka_unit_test(link_file)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
