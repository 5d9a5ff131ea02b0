/* SPDX-License-Identifier: MIT */
/*
 * The PTX interpreter checks a warp's loads and stores at once (every lane
 * inside one allocation or the block's shared memory, and aligned) and runs
 * the per-lane check only when that fails. A warp some of whose lanes are at
 * fault must still fail as the per-lane check says: the error of the first
 * lane at fault, by its thread; and a warp wholly inside runs to the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

/* Each thread reads a[tid * stride + skew] and writes it to out[tid]; or writes shared[tid * stride]. */
static const char ptx[] =
    ".version 7.8\n.target sm_75\n.address_size 64\n\n"
    ".visible .entry gather(.param .u64 a, .param .u64 out, .param .u32 stride, .param .u32 skew)\n{\n"
    "\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<8>;\n"
    "\tld.param.u64 %rd1, [a];\n\tld.param.u64 %rd2, [out];\n\tld.param.u32 %r1, [stride];\n"
    "\tld.param.u32 %r2, [skew];\n\tmov.u32 %r3, %tid.x;\n\tmul.lo.s32 %r4, %r3, %r1;\n"
    "\tmul.wide.u32 %rd3, %r4, 4;\n\tcvt.u64.u32 %rd4, %r2;\n\tadd.s64 %rd3, %rd3, %rd4;\n"
    "\tadd.s64 %rd5, %rd1, %rd3;\n\tld.global.u32 %r5, [%rd5];\n"
    "\tmul.wide.u32 %rd6, %r3, 4;\n\tadd.s64 %rd7, %rd2, %rd6;\n\tst.global.u32 [%rd7], %r5;\n\tret;\n}\n"
    ".visible .entry scatter_shared(.param .u32 stride)\n{\n"
    "\t.reg .b32 %r<5>;\n\t.shared .align 4 .b32 buf[64];\n"
    "\tld.param.u32 %r1, [stride];\n\tmov.u32 %r2, %tid.x;\n\tmul.lo.s32 %r3, %r2, %r1;\n"
    "\tshl.b32 %r3, %r3, 2;\n\tmov.u32 %r4, buf;\n\tadd.s32 %r4, %r4, %r3;\n\tst.shared.u32 [%r4], %r2;\n\tret;\n}\n";

/* Thread t writes [wbuf + 4 * t + off + 65536] by a 32-bit sum, then reads wbuf + 4 * t + high by a 64-bit one. */
static const char wrap_ptx[] =
    ".version 7.8\n.target sm_75\n.address_size 64\n\n"
    ".visible .entry wrap_shared(.param .u32 off, .param .u64 high)\n{\n"
    "\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<4>;\n\t.shared .align 4 .b32 wbuf[64];\n"
    "\tld.param.u32 %r1, [off];\n\tld.param.u64 %rd1, [high];\n\tmov.u32 %r2, %tid.x;\n\tshl.b32 %r3, %r2, 2;\n"
    "\tmov.u32 %r4, wbuf;\n\tadd.s32 %r4, %r4, %r3;\n\tadd.s32 %r5, %r4, %r1;\n\tst.shared.u32 [%r5+65536], %r2;\n"
    "\tcvt.u64.u32 %rd2, %r4;\n\tadd.s64 %rd3, %rd2, %rd1;\n\tld.shared.u32 %r1, [%rd3];\n\tret;\n}\n";

static cuabi_module module;

static int setup(void **state)
{
    cuabi_context ctx;

    (void)state;
    CU_OK(cuInit(0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxSetCurrent(ctx));
    CU_OK(cuModuleLoadData(&module, ptx));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuModuleUnload(module) == CUABI_SUCCESS && cuDevicePrimaryCtxRelease_v2(0) == CUABI_SUCCESS ? 0 : -1;
}

/* Every lane inside: the warp's loads, each lane its own. */
static void gather_inside(void **state)
{
    cuabi_deviceptr a = 0, out = 0;
    uint32_t host[64], got[32], stride = 2, skew = 0;
    void *params[] = {&a, &out, &stride, &skew};
    ft_capture c;

    (void)state;
    for (uint32_t i = 0; i < 64; i++)
        host[i] = 1000 + i;
    CU_OK(cuMemAlloc_v2(&a, sizeof(host)));
    CU_OK(cuMemAlloc_v2(&out, sizeof(got)));
    CU_OK(cuMemcpyHtoD_v2(a, host, sizeof(host)));
    assert_int_equal(ft_launch_said(module, "gather", 1, 32, params, &c), CUABI_SUCCESS);
    CU_OK(cuMemcpyDtoH_v2(got, out, sizeof(got)));
    for (uint32_t t = 0; t < 32; t++)
        assert_int_equal(got[t], 1000 + 2 * t);
    CU_OK(cuMemFree_v2(a));
    CU_OK(cuMemFree_v2(out));
}

/* Lanes 20 to 31 past the end of a buffer of 20 words: lane 20's read is the error. */
static void gather_past_end(void **state)
{
    cuabi_deviceptr a = 0, out = 0;
    uint32_t stride = 1, skew = 0;
    void *params[] = {&a, &out, &stride, &skew};
    char want[128];
    ft_capture c;

    (void)state;
    CU_OK(cuMemAlloc_v2(&a, 20 * 4));
    CU_OK(cuMemAlloc_v2(&out, 32 * 4));
    assert_int_equal(ft_launch_said(module, "gather", 1, 32, params, &c), CUABI_ERROR_ILLEGAL_ADDRESS);
    FT_ASSERT_SAID(&c, "thread (20,0,0)");
    snprintf(want, sizeof(want), "read of 4 bytes at global address 0x%llx is outside every live allocation",
             (unsigned long long)(a + 80));
    FT_ASSERT_SAID(&c, want);
    CU_OK(cuMemFree_v2(a));
    CU_OK(cuMemFree_v2(out));
}

/* Every address 2 bytes off a word: lane 0's read is the misaligned one reported. */
static void gather_misaligned(void **state)
{
    cuabi_deviceptr a = 0, out = 0;
    uint32_t stride = 1, skew = 2;
    void *params[] = {&a, &out, &stride, &skew};
    char want[128];
    ft_capture c;

    (void)state;
    CU_OK(cuMemAlloc_v2(&a, 64 * 4));
    CU_OK(cuMemAlloc_v2(&out, 32 * 4));
    assert_int_equal(ft_launch_said(module, "gather", 1, 32, params, &c), CUABI_ERROR_MISALIGNED_ADDRESS);
    FT_ASSERT_SAID(&c, "thread (0,0,0)");
    snprintf(want, sizeof(want), "misaligned global access of 4 bytes at 0x%llx", (unsigned long long)(a + 2));
    FT_ASSERT_SAID(&c, want);
    CU_OK(cuMemFree_v2(a));
    CU_OK(cuMemFree_v2(out));
}

/* Shared memory of 64 words (the module's every variable at least) written at tid * 5: inside for lanes 0 to 12 only. */
static void shared_past_end(void **state)
{
    uint32_t inside = 2, outside = 5;
    void *ok[] = {&inside}, *bad[] = {&outside};
    ft_capture c;

    (void)state;
    assert_int_equal(ft_launch_said(module, "scatter_shared", 1, 32, ok, &c), CUABI_SUCCESS);
    assert_int_equal(ft_launch_said(module, "scatter_shared", 1, 32, bad, &c), CUABI_ERROR_ILLEGAL_ADDRESS);
    FT_ASSERT_SAID(&c, "write of 4 bytes at shared address");
    FT_ASSERT_SAID(&c, "is outside the block's shared memory");
    FT_ASSERT_SAID(&c, "thread (13,0,0)");
}

/*
 * Shared addresses are 32 bits wide. The block's shared memory is wbuf's 64 words: a 32-bit sum below
 * it that comes back inside by the offset, and a 64-bit address over 2^32 whose low 32 bits are inside,
 * reach those words as on a GPU; where the low 32 bits are outside, the lane at fault is reported.
 */
static void shared_wraps(void **state)
{
    uint32_t off = (uint32_t)-65536;
    uint64_t high = 0;
    void *params[] = {&off, &high};
    cuabi_module wrap;
    ft_capture c;

    (void)state;
    CU_OK(cuModuleLoadData(&wrap, wrap_ptx));
    assert_int_equal(ft_launch_said(wrap, "wrap_shared", 1, 32, params, &c), CUABI_SUCCESS);
    high = 1ull << 32;
    assert_int_equal(ft_launch_said(wrap, "wrap_shared", 1, 32, params, &c), CUABI_SUCCESS);
    /* Lanes 20 to 31 past the end once the sum wraps. */
    high = 0;
    off = (uint32_t)(-65536 + 4 * 44);
    assert_int_equal(ft_launch_said(wrap, "wrap_shared", 1, 32, params, &c), CUABI_ERROR_ILLEGAL_ADDRESS);
    FT_ASSERT_SAID(&c, "write of 4 bytes at shared address 0x100 is outside the block's shared memory");
    FT_ASSERT_SAID(&c, "thread (20,0,0)");
    /* Every lane below shared memory's start, at 2^32 - 4096 + 4 * t. */
    off = (uint32_t)(-65536 - 4096);
    assert_int_equal(ft_launch_said(wrap, "wrap_shared", 1, 32, params, &c), CUABI_ERROR_ILLEGAL_ADDRESS);
    FT_ASSERT_SAID(&c, "write of 4 bytes at shared address 0xfffff000 is outside the block's shared memory");
    FT_ASSERT_SAID(&c, "thread (0,0,0)");
    /* The 64-bit read's low 32 bits past the end for every lane. */
    off = (uint32_t)-65536;
    high = (1ull << 32) + 0x10000;
    assert_int_equal(ft_launch_said(wrap, "wrap_shared", 1, 32, params, &c), CUABI_ERROR_ILLEGAL_ADDRESS);
    FT_ASSERT_SAID(&c, "read of 4 bytes at shared address 0x10000 is outside the block's shared memory");
    FT_ASSERT_SAID(&c, "thread (0,0,0)");
    CU_OK(cuModuleUnload(wrap));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gather_inside),
        cmocka_unit_test(gather_past_end),
        cmocka_unit_test(gather_misaligned),
        cmocka_unit_test(shared_past_end),
        cmocka_unit_test(shared_wraps),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
