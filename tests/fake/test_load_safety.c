/* SPDX-License-Identifier: MIT */
/*
 * PTX text that must not hurt the process at load time, and device
 * addresses that come back after a free, as a CUDA program meets them:
 *
 *  - a module is fully decoded or refused: text that ends inside a function
 *    body (an unbalanced `(` in a .pragma), a call to an .entry, counts and
 *    sizes past their caps (registers, a frame of .local arrays, a .func's
 *    parameters), static shared memory over the device's 48 KiB;
 *  - the decoder lays out an entry's parameters as the module reader does;
 *  - a 20000-deep chain of .func calls and 20000 functions load (or are
 *    refused) on a thread with a 256 KiB stack, and the chain's launch ends
 *    with an error of its own;
 *  - 20000 pairs of a 1 GiB allocation and its free all succeed, and a
 *    pointer into a freed allocation stays an error while fresh addresses last.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

static cuabi_context ctx;

static int setup(void **state)
{
    (void)state;
    ctx = ft_retain_current(0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    return 0;
}

/* A buffer for a module's text of `n` bytes; the process ends when there is no memory for it. */
static char *text_new(size_t n)
{
    char *text = malloc(n);

    if (!text) {
        print_error("no memory for a text of %zu bytes\n", n);
        exit(1);
    }
    return text;
}

/* Loads `text`, which must be refused as INVALID_PTX with `needle` in its log. */
static void refused(const char *text, const char *needle)
{
    char log[1024] = "";
    cuabi_jit_option opts[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
    cuabi_module m = NULL;
    cuabi_result rc = cuModuleLoadDataEx(&m, text, 2, opts, values);

    if (rc != CUABI_ERROR_INVALID_PTX || !strstr(log, needle)) {
        print_error("want INVALID_PTX with \"%s\", got %d: \"%s\"\n", needle, (int)rc, log);
        if (rc == CUABI_SUCCESS)
            cuModuleUnload(m);
        fail();
    }
    assert_null(m);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

static void body_not_ended(void **state)
{
    (void)state;
    /* A .pragma's statement ends at a `;` outside brackets, which never comes: the body never ends. */
    refused(".version 8.0\n.target sm_80\n.address_size 64\n"
            ".visible .entry k()\n{\n.reg .b32 %r<2>;\n.pragma (\"nounroll\";\nmov.u32 %r1, 1;\nret;\n}\n",
            "the text ends inside the body of function \"k\"");
    refused(".version 8.0\n.target sm_80\n.address_size 64\n"
            ".visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, 1;\n",
            "PTX line 8: the text ends inside the body of function \"k\"");
}

static void call_to_entry(void **state)
{
    (void)state;
    refused(".version 8.0\n.target sm_80\n.address_size 64\n"
            ".visible .entry e()\n{\nret;\n}\n"
            ".visible .entry k()\n{\ncall e;\nret;\n}\n",
            "PTX line 10: a call to entry \"e\": only a .func can be called");
}

/* An entry of `count` declarations, each `head`, its number and `tail`: refused, with `needle` in the log. */
static void refused_entry_of(const char *head, const char *tail, unsigned count, const char *needle)
{
    char *text = text_new((size_t)count * 64 + 256), *p = text;

    p += sprintf(p, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n");
    for (unsigned i = 0; i < count; i++)
        p += sprintf(p, "%s%u%s", head, i, tail);
    sprintf(p, "ret;\n}\n");
    refused(text, needle);
    free(text);
}

static void registers_capped(void **state)
{
    (void)state;
    /* 65536 ranges of 65536 registers: 2^32, which a 32-bit count wraps to 0. */
    refused_entry_of(".reg .b32 %r", "_<65536>;\n", 65536, "more than 16777216 registers in the module");
}

static void frame_capped(void **state)
{
    (void)state;
    /* 4096 .local arrays of 1 MiB: a frame of 2^32 bytes. */
    refused_entry_of(".local .align 4 .b8 a", "[1048576];\n", 4096,
                     "makes the frame of function \"k\" larger than 524288 bytes");
}

static void parameters_capped(void **state)
{
    (void)state;
    /* A .func's parameter of 4 GiB. */
    refused(".version 8.0\n.target sm_80\n.address_size 64\n"
            ".func f(.param .b32 p[1073741824])\n{\nret;\n}\n",
            "\"p\" of 4294967296 bytes makes the frame of function \"f\" larger than 524288 bytes");
}

static void shared_variable_capped(void **state)
{
    (void)state;
    refused(".version 8.0\n.target sm_80\n.address_size 64\n"
            ".shared .align 4 .b8 big[1073741824];\n"
            ".visible .entry k()\n{\nret;\n}\n",
            "shared variable \"big\" of 1073741824 bytes is larger than the device's 49152");
}

static void shared_kernel_capped(void **state)
{
    (void)state;
    /* Two variables of 32 KiB, each within the limit, reached by one kernel. */
    refused(".version 8.0\n.target sm_80\n.address_size 64\n"
            ".shared .align 4 .b8 a[32768];\n.shared .align 4 .b8 b[32768];\n"
            ".visible .entry k()\n{\n.reg .b32 %r<2>;\nst.shared.u32 [a], 1;\nst.shared.u32 [b], 1;\nret;\n}\n",
            "kernel \"k\" uses 65536 bytes of static shared memory, more than the device's 49152");
}

/* 20000 .func, each calling the next, and an entry calling the first: a module of `n` functions. */
static char *chain(unsigned n)
{
    size_t size = (size_t)n * 80 + 256;
    char *text = text_new(size), *p = text;

    p += sprintf(p, ".version 8.0\n.target sm_80\n.address_size 64\n");
    for (unsigned i = n; i-- > 0;) {
        if (i + 1 < n)
            p += sprintf(p, ".func f%u()\n{\ncall f%u;\nret;\n}\n", i, i + 1);
        else
            p += sprintf(p, ".func f%u()\n{\nret;\n}\n", i);
    }
    sprintf(p, ".visible .entry k()\n{\ncall f0;\nret;\n}\n");
    return text;
}

struct deep {
    cuabi_result load, get, launch, attr;
    int regs;
};

static void *deep_run(void *arg)
{
    struct deep *r = arg;
    char *text = chain(20000);
    cuabi_module m = NULL;
    cuabi_function f = NULL;

    r->load = cuCtxSetCurrent(ctx);
    if (r->load == CUABI_SUCCESS)
        r->load = cuModuleLoadData(&m, text);
    free(text);
    if (r->load != CUABI_SUCCESS)
        return NULL;
    r->get = cuModuleGetFunction(&f, m, "k");
    if (r->get == CUABI_SUCCESS)
        r->attr = cuFuncGetAttribute(&r->regs, CUABI_FUNC_ATTRIBUTE_NUM_REGS, f);
    if (r->get == CUABI_SUCCESS) {
        r->launch = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
        if (r->launch == CUABI_SUCCESS)
            r->launch = cuCtxSynchronize();
    }
    cuModuleUnload(m);
    return NULL;
}

static void deep_chain_small_stack(void **state)
{
    pthread_attr_t attr;
    pthread_t t;
    struct deep r;

    (void)state;
    memset(&r, 0, sizeof(r));
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
    assert_int_equal(pthread_create(&t, &attr, deep_run, &r), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&attr);
    CU_OK(r.load);
    CU_OK(r.get);
    CU_OK(r.attr);
    /* The chain is deeper than a thread's stack of frames: its launch fails, and says so. */
    assert_int_equal(r.launch, CUABI_ERROR_HARDWARE_STACK_ERROR);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

/* An integer instruction's decimal number beyond 64 bits: the kernel cannot run, and its launch says why. */
static void number_out_of_range(void **state)
{
    static const char text[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                               ".visible .entry k()\n{\n.reg .b64 %rd<2>;\nmov.b64 %rd1, 1e60;\nret;\n}\n";
    cuabi_module m = NULL;
    cuabi_function f = NULL;

    (void)state;
    CU_OK(cuModuleLoadData(&m, text));
    CU_OK(cuModuleGetFunction(&f, m, "k"));
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUABI_ERROR_NOT_SUPPORTED);
    CU_OK(cuModuleUnload(m));
}

/* A pointer parameter's `.ptr .align 1` is its pointee's alignment: the parameter keeps 8, as the module reader has it. */
static void pointer_parameter_aligned(void **state)
{
    static const char text[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                               ".visible .entry k(.param .u32 a, .param .u64 .ptr .global .align 1 b)\n{\n"
                               ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n"
                               "ld.param.u32 %r1, [a];\nld.param.u64 %rd1, [b];\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    cuabi_deviceptr out = 0;
    uint32_t a = 0x5eed1e55, back = 0;
    void *args[] = {&a, &out};

    (void)state;
    CU_OK(cuModuleLoadData(&m, text));
    CU_OK(cuModuleGetFunction(&f, m, "k"));
    CU_OK(cuMemAlloc_v2(&out, sizeof(back)));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(&back, out, sizeof(back)));
    assert_int_equal(back, a);
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));
}

static void many_functions(void **state)
{
    const unsigned n = 20000;
    char *text = text_new((size_t)n * 40 + 256), *p = text;
    cuabi_module m = NULL;
    cuabi_function f = NULL;

    (void)state;
    p += sprintf(p, ".version 8.0\n.target sm_80\n.address_size 64\n");
    for (unsigned i = 0; i < n; i++)
        p += sprintf(p, ".func f%u()\n{\nret;\n}\n", i);
    sprintf(p, ".visible .entry k()\n{\ncall f%u;\nret;\n}\n", n - 1);
    CU_OK(cuModuleLoadData(&m, text));
    free(text);
    CU_OK(cuModuleGetFunction(&f, m, "k"));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuModuleUnload(m));
}

static void addresses_reused(void **state)
{
    const size_t gib = (size_t)1 << 30;
    cuabi_deviceptr first = 0, p = 0, q = 0;
    uint32_t v = 7;

    (void)state;
    CU_OK(cuMemAlloc_v2(&first, gib));
    CU_OK(cuMemFree_v2(first));
    /* A stale pointer faults while fresh addresses last. */
    assert_int_equal(cuMemcpyHtoD_v2(first, &v, sizeof(v)), CUABI_ERROR_INVALID_VALUE);
    for (unsigned i = 0; i < 20000; i++) {
        if (cuMemAlloc_v2(&p, gib) != CUABI_SUCCESS) {
            print_error("allocation %u of 1 GiB failed\n", i);
            fail();
        }
        CU_OK(cuMemFree_v2(p));
    }
    /* Past 16 TiB, the region's addresses came round again: the lowest freed ones first. */
    CU_OK(cuMemAlloc_v2(&p, gib));
    CU_OK(cuMemAlloc_v2(&q, 4096));
    assert_true(p < q || q + 4096 <= p);
    CU_OK(cuMemcpyHtoD_v2(p + gib - sizeof(v), &v, sizeof(v)));
    assert_int_equal(cuMemcpyHtoD_v2(p + gib, &v, sizeof(v)), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuMemFree_v2(q));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(body_not_ended),
        cmocka_unit_test(call_to_entry),
        cmocka_unit_test(registers_capped),
        cmocka_unit_test(frame_capped),
        cmocka_unit_test(parameters_capped),
        cmocka_unit_test(shared_variable_capped),
        cmocka_unit_test(shared_kernel_capped),
        cmocka_unit_test(number_out_of_range),
        cmocka_unit_test(pointer_parameter_aligned),
        cmocka_unit_test(many_functions),
        cmocka_unit_test(addresses_reused),
        /* Last: the context keeps the launch's fault. */
        cmocka_unit_test(deep_chain_small_stack),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
