/* SPDX-License-Identifier: MIT */
/*
 * Every symbol of the driver (fake/core/fake_symbols.c), called as a CUDA program
 * calls them. One case per process (argv[1]).
 *
 *   symbols     every function of the driver (src/sys/driver/cuda_symbols.h) found in
 *               the fake with dlsym; prints how many it implements; one it
 *               does not answers CUDA_ERROR_NOT_SUPPORTED, and under
 *               GPUSHIM_FAKE_REPORT=strict fails the run (a child process)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

static const char *const driver_symbols[] = {
#define GPU__CUDA_SYMBOL(name, kinds, params) #name,
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
};

enum { SYMBOL_COUNT = sizeof(driver_symbols) / sizeof(driver_symbols[0]) };

static const char *self_exe;

/* A driver function by name, as a program that links libcuda would find it. */
static cuabi_result (*driver_function(void *lib, const char *name))(void)
{
    void *sym = dlsym(lib, name);
    cuabi_result (*fn)(void) = NULL;

    assert_non_null(sym);
    memcpy(&fn, &sym, sizeof(fn));
    return fn;
}

/*
 * README.md (GPUSHIM_TEST_README) gives the count of the driver's functions as
 * it is, "every one of the N"; how many the fake implements is this test's
 * output, not README's, so that an entry point added to the fake edits no doc.
 */
static void readme_says(int count)
{
    const char *path = getenv("GPUSHIM_TEST_README");
    char text[65536], want[64];
    size_t n;
    FILE *f;

    if (!path)
        return;
    assert_non_null(f = fopen(path, "r"));
    n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    snprintf(want, sizeof(want), "every one of the %d\n", count);
    if (!strstr(text, want))
        fail_msg("README.md does not say \"every one of the %d\" (src/sys/driver/cuda_symbols.h's count)", count);
}

static void symbols(void **state)
{
    void *lib = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    int implemented = 0, status = 0;
    int err[2];
    char text[4096] = "";
    ssize_t got;
    size_t len = 0;
    pid_t pid;

    (void)state;
    assert_non_null(lib);
    for (size_t i = 0; i < SYMBOL_COUNT; i++) {
        int yes = gpu_fake_symbol_implemented(driver_symbols[i]);

        if (!dlsym(lib, driver_symbols[i]))
            fail_msg("%s is not exported", driver_symbols[i]);
        assert_true(yes == 0 || yes == 1);
        implemented += yes;
    }
    printf("fake driver: %d of the %d driver functions implemented (src/sys/driver/cuda_symbols.h)\n", implemented,
           (int)SYMBOL_COUNT);
    readme_says((int)SYMBOL_COUNT);
    assert_int_equal(gpu_fake_symbol_implemented("cuMemAlloc_v2"), 1);
    assert_int_equal(gpu_fake_symbol_implemented("cuNoSuchFunction"), -1);
    /* One the fake does not implement: it says so, and counts the call. */
    assert_int_equal(gpu_fake_symbol_implemented("cuGraphicsMapResources"), 0);
    CU_OK(cuInit(0));
    assert_int_equal(driver_function(lib, "cuGraphicsMapResources")(), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(driver_function(lib, "cuGraphicsMapResources")(), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(gpu_fake_unimplemented_calls(), 2);
    assert_int_equal(gpu_fake_calls("cuGraphicsMapResources"), 2);
    /*
     * The graphics interop is exported (a program that links it starts) and
     * says there is no graphics context; cuGLInit, a no-op, succeeds.
     */
    assert_int_equal(driver_function(lib, "cuGraphicsGLRegisterBuffer")(), CUABI_ERROR_INVALID_GRAPHICS_CONTEXT);
    assert_int_equal(driver_function(lib, "cuGLCtxCreate_v2")(), CUABI_ERROR_INVALID_GRAPHICS_CONTEXT);
    assert_int_equal(driver_function(lib, "cuEGLStreamConsumerConnect")(), CUABI_ERROR_INVALID_GRAPHICS_CONTEXT);
    assert_int_equal(driver_function(lib, "cuVDPAUGetDevice")(), CUABI_ERROR_INVALID_GRAPHICS_CONTEXT);
    assert_int_equal(driver_function(lib, "cuGLInit")(), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_unimplemented_calls(), 6);
    /* A fault rule applies to it as to any entry point. */
    assert_int_equal(gpu_fake_fail("cuGraphicsMapResources", 1, CUABI_ERROR_OUT_OF_MEMORY), 0);
    assert_int_equal(driver_function(lib, "cuGraphicsMapResources")(), CUABI_ERROR_OUT_OF_MEMORY);
    /* Under GPUSHIM_FAKE_REPORT=strict, a run that called one fails, naming it. */
    assert_int_equal(pipe(err), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(err[1], 2);
        close(err[0]);
        setenv("GPUSHIM_FAKE_REPORT", "strict", 1);
        execl(self_exe, self_exe, "symbols-child", (char *)NULL);
        _exit(127);
    }
    close(err[1]);
    while ((got = read(err[0], text + len, sizeof(text) - 1 - len)) > 0)
        len += (size_t)got;
    close(err[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 86);
    assert_non_null(strstr(text, "cuCoredumpGetAttribute is not implemented by the fake driver"));
    assert_non_null(strstr(text, "called, not implemented by the fake (CUDA_ERROR_NOT_SUPPORTED): cuCoredumpGetAttribute (1)"));
}

/* The child of `symbols`: one call of a function the fake does not implement, and a clean exit otherwise. */
static int symbols_child(void)
{
    void *lib = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    void *sym = lib ? dlsym(lib, "cuCoredumpGetAttribute") : NULL;
    cuabi_result (*fn)(void) = NULL;

    if (!sym || cuInit(0) != CUABI_SUCCESS)
        return 1;
    memcpy(&fn, &sym, sizeof(fn));
    return fn() == CUABI_ERROR_NOT_SUPPORTED ? 0 : 2;
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"symbols", cmocka_unit_test(symbols)},
    };

    self_exe = argv[0];
    if (argc == 2 && strcmp(argv[1], "symbols-child") == 0)
        return symbols_child();

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
