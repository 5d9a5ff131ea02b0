/* SPDX-License-Identifier: MIT */
/*
 * The fake's core (fake/fake_core.c): initialisation, and a process forked
 * before or after it, called as a CUDA program calls it. One case per process
 * (argv[1]).
 *
 *   fork       a child forked before cuInit initialises its own driver; one
 *              forked after it gets NOT_INITIALIZED from cuInit and every
 *              call that needs it, as from the driver
 */
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

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"fork", cmocka_unit_test(forked)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
