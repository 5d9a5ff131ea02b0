/* SPDX-License-Identifier: MIT */
/*
 * PTX as compilers emit it, past the sizes a hand-written kernel reaches:
 *
 *  - names of globals and functions hundreds of characters long load, and
 *    cuModuleGetGlobal finds them; a name past the cap is refused, the cap
 *    named in the log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

#define CU_OK(call) assert_int_equal((call), CUABI_SUCCESS)

static cuabi_context ctx;

static int setup(void **state)
{
    (void)state;
    CU_OK(cuInit(0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxSetCurrent(ctx));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    return 0;
}

/* A buffer of `n` bytes; the process ends when there is no memory for it. */
static char *buffer_new(size_t n)
{
    char *p = malloc(n);

    if (!p) {
        print_error("no memory for %zu bytes\n", n);
        exit(1);
    }
    return p;
}

/* A name of `len` characters: `prefix`, then letters. */
static char *long_name(const char *prefix, size_t len)
{
    char *name = buffer_new(len + 1);
    size_t n = strlen(prefix);

    memcpy(name, prefix, n);
    for (size_t i = n; i < len; i++)
        name[i] = (char)('a' + i % 26);
    name[len] = '\0';
    return name;
}

/* Loads `text` with a log of LOG_SIZE bytes; the result, the log in `log`. */
static cuabi_result load_logged(const char *text, cuabi_module *m, char *log, size_t log_size)
{
    cuabi_jit_option opts[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)log_size};

    log[0] = '\0';
    return cuModuleLoadDataEx(m, text, 2, opts, values);
}

/* A kernel `k` that stores 7 in global G and calls .func F; the caller frees the text. */
static char *named_module(const char *g, const char *f)
{
    char *text = buffer_new(2 * strlen(g) + 2 * strlen(f) + 512);

    sprintf(text, ".version 8.0\n.target sm_80\n.address_size 64\n"
                  ".visible .global .align 4 .u32 %s;\n"
                  ".func %s()\n{\nret;\n}\n"
                  ".visible .entry k()\n{\n.reg .b32 %%r<2>;\n"
                  "mov.u32 %%r1, 7;\nst.global.u32 [%s], %%r1;\ncall %s, ();\nret;\n}\n",
            g, f, g, f);
    return text;
}

static void long_names(void **state)
{
    char *g = long_name("g_", 400), *f = long_name("f_", 3000), *text = named_module(g, f);
    char log[1024];
    cuabi_module m = NULL;
    cuabi_function k = NULL;
    cuabi_deviceptr addr = 0;
    size_t bytes = 0;
    uint32_t back = 0;

    (void)state;
    if (load_logged(text, &m, log, sizeof(log)) != CUABI_SUCCESS) {
        print_error("refused: %s\n", log);
        fail();
    }
    CU_OK(cuModuleGetGlobal_v2(&addr, &bytes, m, g));
    assert_int_equal(bytes, 4);
    CU_OK(cuModuleGetFunction(&k, m, "k"));
    CU_OK(cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(&back, addr, sizeof(back)));
    assert_int_equal(back, 7);
    CU_OK(cuModuleUnload(m));
    free(text);
    free(g);
    free(f);
}

static void name_capped(void **state)
{
    char *g = long_name("g_", 70000), *text = named_module(g, "f");
    char log[1024];
    cuabi_module m = NULL;

    (void)state;
    assert_int_equal(load_logged(text, &m, log, sizeof(log)), CUABI_ERROR_INVALID_PTX);
    if (!strstr(log, "longer than 65536 characters")) {
        print_error("log: %s\n", log);
        fail();
    }
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
    free(text);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(long_names),
        cmocka_unit_test(name_capped),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
