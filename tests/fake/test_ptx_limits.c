/* SPDX-License-Identifier: MIT */
/*
 * PTX as compilers emit it, past the sizes a hand-written kernel reaches:
 *
 *  - names of globals and functions hundreds of characters long load, and
 *    cuModuleGetGlobal finds them; a name past the cap is refused, the cap
 *    named in the log;
 *  - a .func of 40 parameters, called with 40 arguments, gets each in its
 *    place and returns its result;
 *  - the launch of a kernel with a long name that the interpreter cannot
 *    run says which instruction it refused;
 *  - CU_JIT_MAX_REGISTERS, to cuModuleLoadDataEx or to cuLinkCreate, holds a
 *    function's register count to its value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

static int setup(void **state)
{
    (void)state;
    ft_retain_current(0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    return 0;
}

/* A buffer of `n` bytes, which the test fails without. */
static char *buffer_new(size_t n)
{
    char *p = malloc(n);

    assert_non_null(p);
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

/* A refusal that names a long global says what it refused before the name. */
static void long_name_refused_first(void **state)
{
    char *g = long_name("g_", 600), *text = buffer_new(1024);
    char log[1024];
    cuabi_module m = NULL;

    (void)state;
    snprintf(text, 1024, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .global .b8 %s[4194304];\n", g);
    assert_int_equal(load_logged(text, &m, log, sizeof(log)), CUABI_ERROR_INVALID_PTX);
    if (!strstr(log, "line 4: a global larger than 1 MiB")) {
        print_error("log: %s\n", log);
        fail();
    }
    free(text);
    free(g);
}

enum { MANY = 40 };

/* f(p0 .. p39) = ((p0 * 3 + p1) * 3 + p2) ...: a result that tells every argument's place. */
static char *many_parameters_module(void)
{
    char *text = buffer_new(MANY * 256 + 1024), *p = text;

    p += sprintf(p, ".version 8.0\n.target sm_80\n.address_size 64\n.func (.param .b32 r) f(");
    for (unsigned i = 0; i < MANY; i++)
        p += sprintf(p, "%s.param .b32 p%u", i ? ", " : "", i);
    p += sprintf(p, ")\n{\n.reg .b32 %%a<2>;\n.reg .b32 %%x<2>;\nmov.u32 %%a1, 0;\n");
    for (unsigned i = 0; i < MANY; i++)
        p += sprintf(p, "ld.param.b32 %%x1, [p%u];\nmad.lo.u32 %%a1, %%a1, 3, %%x1;\n", i);
    p += sprintf(p, "st.param.b32 [r], %%a1;\nret;\n}\n"
                    ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %%v<2>;\n.reg .b64 %%rd<2>;\n"
                    "ld.param.u64 %%rd1, [out];\n{\n.param .b32 rv;\n");
    for (unsigned i = 0; i < MANY; i++)
        p += sprintf(p, ".param .b32 a%u;\nmov.u32 %%v1, %u;\nst.param.b32 [a%u], %%v1;\n", i, i + 1, i);
    p += sprintf(p, "call.uni (rv), f, (");
    for (unsigned i = 0; i < MANY; i++)
        p += sprintf(p, "%sa%u", i ? ", " : "", i);
    sprintf(p, ");\nld.param.b32 %%v1, [rv];\n}\nst.global.u32 [%%rd1], %%v1;\nret;\n}\n");
    return text;
}

static void many_parameters(void **state)
{
    char *text = many_parameters_module();
    char log[1024];
    cuabi_module m = NULL;
    cuabi_function k = NULL;
    cuabi_deviceptr out = 0;
    void *args[] = {&out};
    uint32_t back = 0, want = 0;

    (void)state;
    for (unsigned i = 0; i < MANY; i++)
        want = want * 3 + (i + 1);
    if (load_logged(text, &m, log, sizeof(log)) != CUABI_SUCCESS) {
        print_error("refused: %s\n", log);
        fail();
    }
    CU_OK(cuModuleGetFunction(&k, m, "k"));
    CU_OK(cuMemAlloc_v2(&out, sizeof(back)));
    CU_OK(cuLaunchKernel(k, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(&back, out, sizeof(back)));
    assert_int_equal(back, want);
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));
    free(text);
}

static void refusal_names_instruction(void **state)
{
    char *name = long_name("k_", 600), *text = buffer_new(1024 + 2 * 600);
    char log[1024];
    const char *msg = NULL;
    cuabi_module m = NULL;
    cuabi_function k = NULL;

    (void)state;
    sprintf(text, ".version 8.0\n.target sm_80\n.address_size 64\n"
                  ".visible .entry %s()\n{\nbrkpt;\nret;\n}\n", name);
    if (load_logged(text, &m, log, sizeof(log)) != CUABI_SUCCESS) {
        print_error("refused: %s\n", log);
        fail();
    }
    CU_OK(cuModuleGetFunction(&k, m, name));
    assert_int_equal(cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUABI_ERROR_NOT_SUPPORTED);
    CU_OK(cuGetErrorString(CUABI_ERROR_NOT_SUPPORTED, &msg));
    if (!strstr(msg, "PTX line 6: unsupported instruction \"brkpt\"")) {
        print_error("message: %s\n", msg);
        fail();
    }
    CU_OK(cuModuleUnload(m));
    free(text);
    free(name);
}

/* A kernel that declares 200 registers: more than ptxas keeps under a limit of 32. */
static const char many_registers[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                                     ".visible .entry k()\n{\n.reg .b32 %r<200>;\nmov.u32 %r199, 1;\nret;\n}\n";

static int registers_of(cuabi_module m)
{
    cuabi_function k = NULL;
    int regs = -1;

    CU_OK(cuModuleGetFunction(&k, m, "k"));
    CU_OK(cuFuncGetAttribute(&regs, CUABI_FUNC_ATTRIBUTE_NUM_REGS, k));
    return regs;
}

static void max_registers(void **state)
{
    cuabi_jit_option opt = CUABI_JIT_MAX_REGISTERS;
    void *value = (void *)(uintptr_t)32;
    cuabi_module m = NULL;
    int regs;

    (void)state;
    CU_OK(cuModuleLoadData(&m, many_registers));
    regs = registers_of(m);
    assert_true(regs > 32);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuModuleLoadDataEx(&m, many_registers, 1, &opt, &value));
    regs = registers_of(m);
    assert_true(regs > 0 && regs <= 32);
    CU_OK(cuModuleUnload(m));
}

/* Links many_registers as input `name` with CU_JIT_MAX_REGISTERS 32, and loads a copy of the image. */
static void link_registers_capped(const char *name)
{
    cuabi_jit_option opt = CUABI_JIT_MAX_REGISTERS;
    void *value = (void *)(uintptr_t)32;
    cuabi_link_state l = NULL;
    cuabi_module m = NULL;
    void *image = NULL;
    size_t size = 0;
    char *copy;
    int regs;

    CU_OK(cuLinkCreate_v2(1, &opt, &value, &l));
    CU_OK(cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)many_registers, sizeof(many_registers), name, 0, NULL,
                           NULL));
    CU_OK(cuLinkComplete(l, &image, &size));
    /* A client may keep a copy of the image past cuLinkDestroy: the limit goes with the bytes. */
    copy = buffer_new(size);
    memcpy(copy, image, size);
    CU_OK(cuLinkDestroy(l));
    CU_OK(cuModuleLoadData(&m, copy));
    regs = registers_of(m);
    assert_true(regs > 0 && regs <= 32);
    CU_OK(cuModuleUnload(m));
    free(copy);
}

static void link_max_registers(void **state)
{
    (void)state;
    link_registers_capped("k.ptx");
    /* The limit's line goes where the decoder reads it, whatever the input's name says. */
    link_registers_capped("k.version.ptx");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(long_names),
        cmocka_unit_test(name_capped),
        cmocka_unit_test(long_name_refused_first),
        cmocka_unit_test(many_parameters),
        cmocka_unit_test(refusal_names_instruction),
        cmocka_unit_test(max_registers),
        cmocka_unit_test(link_max_registers),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
