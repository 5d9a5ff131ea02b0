/* SPDX-License-Identifier: MIT */
/*
 * Kernels with bugs, on the fake's PTX interpreter: each must end as a CUDA
 * error with a message (or run as a GPU runs it), never touch the host's
 * memory or hang. A device function that writes its local array at a
 * negative index; local memory read before it is written; calls past the
 * thread's stack; spins the watchdog must end (GPUSHIM_FAKE_WATCHDOG is 1 s
 * here); a printf format with a `*` width after many flags; launch shapes
 * over the limits the device reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_test.h"

#define HEAD ".version 7.8\n.target sm_75\n.address_size 64\n\n"

static const char calls_ptx[] =
    HEAD
    /* int a[4]; a[i] = v; in a __noinline__ function, as nvcc writes it */
    ".func store(.param .b32 store_i, .param .b32 store_v)\n{\n"
    "\t.local .align 4 .b8 __local_depot0[16];\n\t.reg .b64 %SPL;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n"
    "\tmov.u64 %SPL, __local_depot0;\n\tld.param.u32 %r1, [store_i];\n\tld.param.u32 %r2, [store_v];\n"
    "\tmul.wide.s32 %rd1, %r1, 4;\n\tadd.s64 %rd2, %SPL, %rd1;\n\tst.local.u32 [%rd2], %r2;\n\tret;\n}\n"
    ".visible .entry negative_index(.param .u64 out, .param .u32 i, .param .u32 v)\n{\n"
    "\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r1, [i];\n\tld.param.u32 %r2, [v];\n"
    "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r1;\n\t.param .b32 param1;\n"
    "\tst.param.b32 [param1], %r2;\n\tcall store, (param0, param1);\n\t}\n"
    "\tmov.u32 %r3, %tid.x;\n\tmul.wide.u32 %rd2, %r3, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tmov.u32 %r4, 42;\n\tst.global.u32 [%rd3], %r4;\n\tret;\n}\n"
    /* a frame larger than the whole stack */
    ".func big()\n{\n\t.local .align 4 .b8 __local_depot1[65536];\n\t.reg .b64 %SPL;\n\t.reg .b32 %r<2>;\n"
    "\tmov.u64 %SPL, __local_depot1;\n\tmov.u32 %r1, 1;\n\tst.local.u32 [%SPL], %r1;\n\tret;\n}\n"
    ".visible .entry call_big()\n{\n\tcall big, ();\n\tret;\n}\n"
    /* recursion without end, with a result and a parameter, and with no frame at all */
    ".func (.param .b32 rv) down(.param .b32 n)\n{\n\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [n];\n"
    "\tadd.s32 %r2, %r1, 1;\n\t{\n\t.param .b32 p0;\n\tst.param.b32 [p0], %r2;\n\t.param .b32 r0;\n"
    "\tcall (r0), down, (p0);\n\tld.param.b32 %r3, [r0];\n\t}\n\tst.param.b32 [rv], %r3;\n\tret;\n}\n"
    ".visible .entry recurse()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 0;\n"
    "\t{\n\t.param .b32 p0;\n\tst.param.b32 [p0], %r1;\n\t.param .b32 r0;\n\tcall (r0), down, (p0);\n\t}\n\tret;\n}\n"
    ".func again()\n{\n\tcall again, ();\n\tret;\n}\n"
    ".visible .entry recurse_bare()\n{\n\tcall again, ();\n\tret;\n}\n";

static cuabi_module module;

static int setup(void **state)
{
    cuabi_context ctx;

    (void)state;
    /* A kernel that hangs is a failure here, not a test that never ends. */
    alarm(100);
    CU_OK(cuInit(0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxSetCurrent(ctx));
    CU_OK(cuModuleLoadData(&module, calls_ptx));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuModuleUnload(module) == CUABI_SUCCESS && cuDevicePrimaryCtxRelease_v2(0) == CUABI_SUCCESS ? 0 : -1;
}

/* ---- Calls ---- */

/*
 * A device function writes its local array at a negative index: small ones
 * land below its frame, in the caller's part of the lane's stack, as on a
 * GPU; the return still comes back to the caller. Below the stack's start,
 * or past the innermost frame, is an illegal address.
 */
static void local_negative_index(void **state)
{
    static const int32_t indices[] = {-1, -2, -3, -4, -5, -6, -7, -8, 0, 3, 4};
    cuabi_deviceptr out = 0;
    uint32_t got[64];
    ft_capture c;

    (void)state;
    CU_OK(cuMemAlloc_v2(&out, sizeof(got)));
    for (size_t k = 0; k < sizeof(indices) / sizeof(indices[0]); k++) {
        int32_t i = indices[k];
        uint32_t v = 0xffffffffu;
        void *params[] = {&out, &i, &v};

        CU_OK(cuMemsetD8_v2(out, 0, sizeof(got)));
        if (ft_launch_said(module, "negative_index", 1, 64, params, &c) != CUABI_SUCCESS)
            fail_msg("index %d: %s", (int)i, c.text);
        CU_OK(cuMemcpyDtoH_v2(got, out, sizeof(got)));
        for (unsigned t = 0; t < 64; t++)
            assert_int_equal(got[t], 42);
    }
    /* Below the stack, and past the innermost frame (inside the stack, but no live function's). */
    for (int32_t i = -100000; i <= 1000; i += 101000) {
        uint32_t v = 1;
        void *params[] = {&out, &i, &v};

        assert_int_equal(ft_launch_said(module, "negative_index", 1, 32, params, &c), CUABI_ERROR_ILLEGAL_ADDRESS);
        FT_ASSERT_SAID(&c, "is outside the thread's local memory: an illegal address");
    }
    CU_OK(cuMemFree_v2(out));
}

/*
 * Each thread ORs together the words of its local array before writing any
 * of them, then sets them all, and calls a function that does the same with
 * its own array and the 16 bytes below it: every word it reads is zero, in
 * every block (the host's heap never reaches a kernel, nor does a block's
 * data the next block run on the same memory).
 */
#define OR_WORDS(from, count, acc)                                                                                     \
    "\tmov.u32 %r2, 0;\n$L_" acc ":\n\tmul.wide.u32 %rd1, %r2, 4;\n\tadd.s64 %rd2, " from ", %rd1;\n"                  \
    "\tld.local.u32 %r3, [%rd2];\n\tor.b32 %" acc ", %" acc ", %r3;\n\tst.local.u32 [%rd2], %r6;\n"                   \
    "\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, " count ";\n\t@%p1 bra $L_" acc ";\n"

static const char unwritten_ptx[] =
    HEAD ".func (.param .b32 rv) peek()\n{\n\t.local .align 4 .b8 __local_depot0[64];\n\t.reg .pred %p<2>;\n"
    "\t.reg .b64 %SPL;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\tmov.u64 %SPL, __local_depot0;\n"
    "\tsub.s64 %rd3, %SPL, 16;\n\tmov.u32 %r6, -1;\n\tmov.u32 %r7, 0;\n" OR_WORDS("%rd3", "20", "r7")
    "\tst.param.b32 [rv], %r7;\n\tret;\n}\n"
    ".visible .entry unwritten(.param .u64 out)\n{\n\t.local .align 4 .b8 __local_depot1[256];\n\t.reg .pred %p<2>;\n"
    "\t.reg .b64 %SPL;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<6>;\n\tmov.u64 %SPL, __local_depot1;\n"
    "\tmov.u32 %r6, -1;\n\tmov.u32 %r7, 0;\n" OR_WORDS("%SPL", "64", "r7")
    "\t{\n\t.param .b32 r0;\n\tcall (r0), peek, ();\n\tld.param.b32 %r8, [r0];\n\t}\n\tor.b32 %r7, %r7, %r8;\n"
    "\tmov.u32 %r4, %tid.x;\n\tmov.u32 %r5, %ctaid.x;\n\tmov.u32 %r9, %ntid.x;\n\tmad.lo.s32 %r4, %r5, %r9, %r4;\n"
    "\tld.param.u64 %rd3, [out];\n\tmul.wide.u32 %rd4, %r4, 4;\n\tadd.s64 %rd5, %rd3, %rd4;\n"
    "\tst.global.u32 [%rd5], %r7;\n\tret;\n}\n";

static void local_starts_zeroed(void **state)
{
    enum { BLOCKS = 8, THREADS = 64 };
    cuabi_module m = NULL;
    cuabi_deviceptr out = 0;
    void *params[] = {&out};
    uint32_t got[BLOCKS * THREADS];
    ft_capture c;

    (void)state;
    CU_OK(cuModuleLoadData(&m, unwritten_ptx));
    CU_OK(cuMemAlloc_v2(&out, sizeof(got)));
    /* A few launches, so that a block's memory comes from the heap's reused chunks too. */
    for (int run = 0; run < 4; run++) {
        CU_OK(cuMemsetD8_v2(out, 0xa5, sizeof(got)));
        if (ft_launch_said(m, "unwritten", BLOCKS, THREADS, params, &c) != CUABI_SUCCESS)
            fail_msg("%s", c.text);
        CU_OK(cuMemcpyDtoH_v2(got, out, sizeof(got)));
        for (unsigned t = 0; t < BLOCKS * THREADS; t++)
            if (got[t] != 0)
                fail_msg("run %d, thread %u read 0x%08x in local memory it had not written", run, t, got[t]);
    }
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));
}

/* A frame larger than the stack, and recursion without end: a stack overflow that names the stack's size. */
static void stack_overflow(void **state)
{
    static const char *const entries[] = {"call_big", "recurse", "recurse_bare"};
    ft_capture c;

    (void)state;
    for (size_t k = 0; k < sizeof(entries) / sizeof(entries[0]); k++) {
        assert_int_equal(ft_launch_said(module, entries[k], 1, 32, NULL, &c), CUABI_ERROR_HARDWARE_STACK_ERROR);
        FT_ASSERT_SAID(&c, "stack overflow");
        FT_ASSERT_SAID(&c, "16384 bytes for calls");
    }
}

/*
 * A module that ptxas would refuse: refused at load, or, if it loads, the
 * launch of `entry` fails with `want` and says `needle`.
 */
static void refused_or_fails(const char *ptx, const char *entry, cuabi_result want, const char *needle)
{
    cuabi_module m = NULL;
    cuabi_result rc = cuModuleLoadData(&m, ptx);
    ft_capture c;

    if (rc != CUABI_SUCCESS) {
        assert_int_equal(rc, CUABI_ERROR_INVALID_PTX);
        return;
    }
    assert_int_equal(ft_launch_said(m, entry, 1, 64, NULL, &c), want);
    FT_ASSERT_SAID(&c, needle);
    CU_OK(cuModuleUnload(m));
}

/* A call to a kernel with more registers than the stack can save (ptxas refuses a call to an .entry). */
static void call_entry(void **state)
{
    (void)state;
    refused_or_fails(HEAD ".visible .entry wide()\n{\n\t.reg .b32 %r<4000>;\n\tmov.u32 %r3999, 1;\n\tret;\n}\n"
                          ".visible .entry calls_wide()\n{\n\tcall wide, ();\n\tret;\n}\n",
                     "calls_wide", CUABI_ERROR_HARDWARE_STACK_ERROR, "stack overflow");
}

/*
 * A module whose text ends inside a function (an unbalanced `(` in a
 * .pragma): the launch fails before the program counter or a register
 * leaves its array.
 */
static void unterminated_body(void **state)
{
    (void)state;
    refused_or_fails(HEAD ".visible .entry cut()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 1;\n.pragma (\n}\n", "cut",
                     CUABI_ERROR_INVALID_PTX, "kernel \"cut\": function \"cut\": no code the interpreter read: the "
                                              "interpreter does not run it");
}

/* ---- The watchdog ---- */

#define SPIN(name, body) \
    ".visible .entry " name "(.param .u64 p)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n" \
    "\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r3, 0;\n\tsetp.ne.u32 %p1, %r3, 0;\n" \
    "$L_spin:\n" body "\tbra.uni $L_spin;\n$L_end:\n\tret;\n}\n"

static const char spin_ptx[] =
    HEAD SPIN("spin_pred_store", "\t@%p1 st.global.u32 [%rd1], %r1;\n")
    SPIN("spin_store", "\tst.global.u32 [%rd1], %r1;\n")
    SPIN("spin_atomic", "\tatom.global.add.u32 %r2, [%rd1], 1;\n")
    SPIN("spin_exch", "\tadd.u32 %r3, %r3, 1;\n\tatom.global.exch.b32 %r2, [%rd1], %r3;\n")
    SPIN("spin_barrier", "\tbar.sync 0;\n")
    /* block 0 spins, the others end */
    SPIN("spin_one_block", "\tmov.u32 %r2, %ctaid.x;\n\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $L_end;\n")
    /* a loop that ends: 2000 stores a thread (a block's work well under the watchdog's second, under valgrind too) */
    ".visible .entry loop_ends(.param .u64 p)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tmov.u32 %r2, 0;\n$L_loop:\n\tst.global.u32 [%rd3], %r2;\n\tadd.u32 %r2, %r2, 1;\n"
    "\tsetp.lt.u32 %p1, %r2, 2000;\n\t@%p1 bra $L_loop;\n\tret;\n}\n";

/* Each spin ends with CUDA_ERROR_LAUNCH_TIMEOUT after the watchdog's second; a loop that ends runs. */
static void watchdog(void **state)
{
    static const char *const spins[] = {"spin_pred_store", "spin_store", "spin_atomic", "spin_exch", "spin_barrier"};
    cuabi_module m = NULL;
    cuabi_deviceptr d = 0;
    void *params[] = {&d};
    uint32_t got[64];
    ft_capture c;

    (void)state;
    CU_OK(cuModuleLoadData(&m, spin_ptx));
    CU_OK(cuMemAlloc_v2(&d, sizeof(got)));
    for (size_t k = 0; k < sizeof(spins) / sizeof(spins[0]); k++) {
        assert_int_equal(ft_launch_said(m, spins[k], 1, 64, params, &c), CUABI_ERROR_LAUNCH_TIMEOUT);
        FT_ASSERT_SAID(&c, "no progress in the launch for 1 s (GPUSHIM_FAKE_WATCHDOG)");
    }
    assert_int_equal(ft_launch_said(m, "spin_one_block", 4, 32, params, &c), CUABI_ERROR_LAUNCH_TIMEOUT);
    FT_ASSERT_SAID(&c, "block (0,0,0)");
    CU_OK(ft_launch_said(m, "loop_ends", 8, 64, params, &c));
    CU_OK(cuMemcpyDtoH_v2(got, d, sizeof(got)));
    for (unsigned t = 0; t < 64; t++)
        assert_int_equal(got[t], 1999);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuModuleUnload(m));
}

/* ---- printf ---- */

/*
 * printf("%" 28 flags "*.*d", INT_MIN, 3, 7): the format's flags are kept
 * once and the width is capped at a line's length; the line printed is 007
 * left-justified, cut at the line's end.
 */
static void printf_star_width(void **state)
{
    char ptx[4096], bytes[256] = "";
    const char *fmt = "%----------------------------*.*d\n";
    cuabi_module m = NULL;
    ft_capture c, out;
    const char *text;
    size_t len;

    (void)state;
    for (size_t i = 0; i <= strlen(fmt); i++)
        snprintf(bytes + strlen(bytes), sizeof(bytes) - strlen(bytes), "%s%d", i ? ", " : "", fmt[i]);
    snprintf(ptx, sizeof(ptx),
             HEAD ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 "
                  "vprintf_param_1);\n"
                  ".global .align 1 .b8 fmt[%zu] = {%s};\n"
                  ".visible .entry print_star()\n{\n\t.local .align 8 .b8 __local_depot0[16];\n\t.reg .b64 %%SP;\n"
                  "\t.reg .b64 %%SPL;\n\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<4>;\n"
                  "\tmov.u64 %%SPL, __local_depot0;\n\tcvta.local.u64 %%SP, %%SPL;\n"
                  "\tmov.u32 %%r1, -2147483648;\n\tst.local.u32 [%%SPL], %%r1;\n\tmov.u32 %%r2, 3;\n"
                  "\tst.local.u32 [%%SPL+4], %%r2;\n\tmov.u32 %%r3, 7;\n\tst.local.u32 [%%SPL+8], %%r3;\n"
                  "\tmov.u64 %%rd1, fmt;\n\tcvta.global.u64 %%rd2, %%rd1;\n\tadd.u64 %%rd3, %%SP, 0;\n"
                  "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %%rd2;\n\t.param .b64 param1;\n"
                  "\tst.param.b64 [param1], %%rd3;\n\t.param .b32 retval0;\n"
                  "\tcall.uni (retval0), vprintf, (param0, param1);\n\t}\n\tret;\n}\n",
             strlen(fmt) + 1, bytes);
    CU_OK(cuModuleLoadData(&m, ptx));
    ft_capture_begin(&out, 1);
    CU_OK(ft_launch_said(m, "print_star", 1, 1, NULL, &c));
    ft_capture_end(&out);
    text = out.text;
    len = strlen(text);
    if (len < 1000 || strncmp(text, "007 ", 4) != 0 || strspn(text, "07 ") != len)
        fail_msg("printed \"%.60s\" (%zu bytes)", text, len);
    CU_OK(cuModuleUnload(m));
}

/* ---- Launch limits ---- */

/*
 * Every dimension one past what the device reports, and blocks and shared
 * memory over theirs: CUDA_ERROR_INVALID_VALUE; a cluster over the limit,
 * however its dimensions multiply: CUDA_ERROR_INVALID_CLUSTER_SIZE.
 */
static void launch_limits(void **state)
{
    static const char ptx[] = HEAD ".visible .entry stop()\n{\n\ttrap;\n}\n";
    static const unsigned attrs[6] = {CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,  CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                      CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,  CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                      CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    ft_capture c;
    int max_shared = 0;

    (void)state;
    CU_OK(cuModuleLoadData(&m, ptx));
    CU_OK(cuModuleGetFunction(&f, m, "stop"));
    for (unsigned i = 0; i < 6; i++) {
        unsigned dim[6] = {1, 1, 1, 1, 1, 1};
        int limit = 0;

        CU_OK(cuDeviceGetAttribute(&limit, (int)attrs[i], 0));
        dim[i] = (unsigned)limit + 1;
        ft_capture_begin(&c, 2);
        assert_int_equal(cuLaunchKernel(f, dim[0], dim[1], dim[2], dim[3], dim[4], dim[5], 0, NULL, NULL, NULL),
                         CUABI_ERROR_INVALID_VALUE);
        ft_capture_end(&c);
        FT_ASSERT_SAID(&c, "CU_DEVICE_ATTRIBUTE_MAX_");
    }
    ft_capture_begin(&c, 2);
    assert_int_equal(cuLaunchKernel(f, 4294967295u, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    ft_capture_end(&c);
    FT_ASSERT_SAID(&c, "gridDim.x 4294967295, over the device's limit of 2147483647 (CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)");
    ft_capture_begin(&c, 2);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 32, 32, 2, 0, NULL, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    ft_capture_end(&c);
    FT_ASSERT_SAID(&c, "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK");
    {
        /* A cluster of 2^32 blocks, whose size would wrap to 0 in 32 bits. */
        cuabi_launch_attribute at;
        cuabi_launch_config config = {131072, 32768, 1, 1, 1, 1, 0, NULL, &at, 1};

        memset(&at, 0, sizeof(at));
        at.id = CUABI_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        at.value.cluster_dim.x = 131072;
        at.value.cluster_dim.y = 32768;
        at.value.cluster_dim.z = 1;
        assert_int_equal(cuLaunchKernelEx(&config, f, NULL, NULL), CUABI_ERROR_INVALID_CLUSTER_SIZE);
    }
    CU_OK(cuFuncGetAttribute(&max_shared, CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
    ft_capture_begin(&c, 2);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, (unsigned)max_shared + 1, NULL, NULL, NULL),
                     CUABI_ERROR_INVALID_VALUE);
    ft_capture_end(&c);
    CU_OK(cuModuleUnload(m));
}

/* An argument runs only the tests whose name matches it (cmocka's pattern). */
int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(local_negative_index),
        cmocka_unit_test(local_starts_zeroed),
        cmocka_unit_test(stack_overflow),
        cmocka_unit_test(call_entry),
        cmocka_unit_test(unterminated_body),
        cmocka_unit_test(watchdog),
        cmocka_unit_test(printf_star_width),
        cmocka_unit_test(launch_limits),
    };

    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, setup, teardown);
}
