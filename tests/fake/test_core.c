/* SPDX-License-Identifier: MIT */
/*
 * The fake's core (fake/core/fake_core.c): initialisation, and a process forked
 * before or after it, called as a CUDA program calls it. One case per process
 * (argv[1]).
 *
 *   fork       a child forked before cuInit initialises its own driver; one
 *              forked after it gets NOT_INITIALIZED from cuInit and every
 *              call that needs it, as from the driver
 *   error-strings  every CUresult of cuda_abi.h has its name and its sentence
 *              (cuGetErrorName, cuGetErrorString), none a placeholder
 *   attribute-domains  every profile's attribute values are ones the
 *              attribute can take; values it cannot are refused; the
 *              occupancy calculators answer at the domains' ends
 */
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

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

static void error_strings(void **state)
{
    static const struct {
        const char *name;
        cuabi_result code;
    } codes[] = {
#define RESULT_ROW(name, value) {"CUDA_" #name, value},
        CUABI_RESULT_LIST(RESULT_ROW)
#undef RESULT_ROW
    };
    const char *text;

    (void)state;
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        const char *name = NULL;

        text = NULL;
        CU_OK(cuGetErrorName(codes[i].code, &name));
        CU_OK(cuGetErrorString(codes[i].code, &text));
        assert_non_null(name);
        assert_non_null(text);
        assert_string_equal(name, codes[i].name);
        if (strlen(text) < 5 || strstr(text, "does not describe") || strcmp(text, name) == 0)
            fail_msg("cuGetErrorString(%s = %d) is \"%s\"", name, (int)codes[i].code, text);
    }
    /* A code the driver does not have has neither. */
    text = "unchanged";
    assert_int_equal(cuGetErrorString((cuabi_result)12345, &text), CUABI_ERROR_INVALID_VALUE);
}

static const char occupancy_ptx[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                                    ".visible .entry k()\n{\nret;\n}\n";

static void attribute_domains(void **state)
{
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    int blocks = -1, grid = -1, size = -1;

    (void)state;
    CU_OK(cuInit(0));
    for (int a = 1; a < CUABI_DEVICE_ATTRIBUTE_COUNT; a++) {
        int v = 0;

        if (cuDeviceGetAttribute(&v, (cuabi_device_attribute)a, 0) != CUABI_SUCCESS)
            continue;
        if (gpu_fake_device_attribute_set(0, a, v) != 0)
            fail_msg("attribute %d: the profile's own value %d is refused", a, v);
    }
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, -1), -1);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 0), -1);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_WARP_SIZE, 0), -1);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 2), -1);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_NUMA_ID, -2), -1);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_NUMA_ID, -1), 0);
    /* An attribute CUDA 13.0 lacks takes any value: the test says what it means. */
    assert_int_equal(gpu_fake_device_attribute_set(0, 200, -5), 0);

    /* The ends of the domains: no division by zero, no overflow (UBSan), an answer. */
    ft_retain_current(0);
    CU_OK(cuModuleLoadData(&m, occupancy_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "k"));
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 128, 1));
    assert_true(blocks > 0);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, INT_MAX), 0);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, INT_MAX), 0);
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, INT_MAX), 0);
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 128, 1));
    assert_int_equal(blocks, 0); /* INT_MAX bytes reserved a block: none fits */
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 32, 0));
    assert_true(blocks > 0);
    CU_OK(cuOccupancyMaxPotentialBlockSize(&grid, &size, f, NULL, 0, 0));
    assert_true(grid > 0 && size > 0);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"fork", cmocka_unit_test(forked)},
        {"error-strings", cmocka_unit_test(error_strings)},
        {"attribute-domains", cmocka_unit_test(attribute_domains)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
