/* SPDX-License-Identifier: MIT */
/*
 * Page-locked host memory (fake/memory/fake_host_memory.c). With no argument, the
 * group: host ranges that wrap around the address space or are registered
 * twice, checked in gpushim and in the fake, which must be as strict as the
 * driver. With one, that case alone, called as a CUDA program calls the driver:
 *
 *   mapped     fills (cuMemsetD8/16/32, 2D, async) and cuMemGetAddressRange
 *              at mapped page-locked memory's device alias; their errors
 *   zero-copy  a PTX kernel loads from cuMemHostAlloc'd memory and stores to
 *              cuMemHostRegister'ed memory through their device pointers
 *              (simpleZeroCopy); a load past the end is an illegal address
 *   mapped-copies  every copy, synchronous and queued (HtoD, DtoH, DtoD,
 *              2D, 3D, to and from an array), with the device pointer of
 *              cuMemHostAlloc'd, cuMemHostRegister'ed and managed memory
 *              on its device side; one a byte past its end refused
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

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

/* dst[i] = 2 * src[i] for the first n threads. */
static const char double_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry twice(.param .u64 src, .param .u64 dst, .param .u32 n)\n"
    "{\n"
    "\t.reg .pred %p;\n"
    "\t.reg .b32 %t, %n, %v;\n"
    "\t.reg .b64 %s, %d, %o;\n"
    "\tld.param.u64 %s, [src];\n"
    "\tld.param.u64 %d, [dst];\n"
    "\tld.param.u32 %n, [n];\n"
    "\tmov.u32 %t, %tid.x;\n"
    "\tsetp.ge.u32 %p, %t, %n;\n"
    "\t@%p ret;\n"
    "\tmul.wide.u32 %o, %t, 4;\n"
    "\tadd.u64 %s, %s, %o;\n"
    "\tadd.u64 %d, %d, %o;\n"
    "\tld.global.u32 %v, [%s];\n"
    "\tshl.b32 %v, %v, 1;\n"
    "\tst.global.u32 [%d], %v;\n"
    "\tret;\n"
    "}\n";

static void zero_copy(void **state)
{
    enum { N = 256, PAGE = 4096 };
    uint32_t *src = NULL, *dst = aligned_alloc(PAGE, PAGE);
    cuabi_deviceptr d_src = 0, d_dst = 0;
    cuabi_module m = NULL;
    uint32_t n = N;
    void *params[] = {&d_src, &d_dst, &n};
    ft_capture c;

    (void)state;
    assert_non_null(dst);
    ft_retain_current(0);
    CU_OK(cuMemHostAlloc((void **)&src, N * sizeof(uint32_t), CUABI_MEMHOSTALLOC_DEVICEMAP));
    CU_OK(cuMemHostRegister_v2(dst, PAGE, CUABI_MEMHOSTREGISTER_DEVICEMAP));
    CU_OK(cuMemHostGetDevicePointer_v2(&d_src, src, 0));
    CU_OK(cuMemHostGetDevicePointer_v2(&d_dst, dst, 0));
    for (uint32_t i = 0; i < N; i++)
        src[i] = i + 1;
    memset(dst, 0, PAGE);
    CU_OK(cuModuleLoadData(&m, double_ptx));
    if (ft_launch_said(m, "twice", 1, N, params, &c) != CUABI_SUCCESS)
        fail_msg("%s", c.text);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(dst[i], 2 * (i + 1));
    /* One word past the allocation: the host's heap is not the kernel's. */
    n = N + 1;
    assert_int_equal(ft_launch_said(m, "twice", 1, N + 1, params, &c), CUABI_ERROR_ILLEGAL_ADDRESS);
    FT_ASSERT_SAID(&c, "illegal address");
    cuMemHostUnregister(dst);
    cuMemFreeHost(src);
    free(dst);
}

enum { COPY_N = 256 };

/* Bytes 0..COPY_N-1 of a pattern that `seed` tells apart from the others. */
static void pattern(unsigned char *p, unsigned seed)
{
    for (unsigned i = 0; i < COPY_N; i++)
        p[i] = (unsigned char)(i * 7 + seed * 31 + 1);
}

static void check_bytes(const char *what, const unsigned char *got, unsigned seed)
{
    unsigned char want[COPY_N];

    pattern(want, seed);
    if (memcmp(got, want, COPY_N) != 0)
        fail_msg("%s: the bytes differ", what);
}

static cuabi_memcpy2d rows_2d(unsigned dst_type, void *dst_host, cuabi_deviceptr dst, unsigned src_type,
                              const void *src_host, cuabi_deviceptr src)
{
    cuabi_memcpy2d c;

    memset(&c, 0, sizeof(c));
    c.src_type = src_type;
    c.src_host = src_host;
    c.src_device = src;
    c.src_pitch = COPY_N / 4;
    c.dst_type = dst_type;
    c.dst_host = dst_host;
    c.dst_device = dst;
    c.dst_pitch = COPY_N / 4;
    c.width = COPY_N / 4;
    c.height = 4;
    return c;
}

static cuabi_memcpy3d slices_3d(unsigned dst_type, void *dst_host, cuabi_deviceptr dst, unsigned src_type,
                                const void *src_host, cuabi_deviceptr src)
{
    cuabi_memcpy3d c;

    memset(&c, 0, sizeof(c));
    c.src_type = src_type;
    c.src_host = src_host;
    c.src_device = src;
    c.src_pitch = COPY_N / 8;
    c.src_height = 4;
    c.dst_type = dst_type;
    c.dst_host = dst_host;
    c.dst_device = dst;
    c.dst_pitch = COPY_N / 8;
    c.dst_height = 4;
    c.width = COPY_N / 8;
    c.height = 4;
    c.depth = 2;
    return c;
}

/*
 * Every copy with `m` on its device side, whose COPY_N bytes the host sees
 * at `view`; `d` device memory and `a` an array of COPY_N bytes to copy
 * through; each checked by the bytes it leaves. Then the same copies one
 * byte past m's end: refused, as for device memory.
 */
static void copies_through(const char *what, cuabi_deviceptr m, unsigned char *view, cuabi_deviceptr d, cuabi_array a,
                           cuabi_stream s)
{
    enum { H = CUABI_MEMORYTYPE_HOST, D = CUABI_MEMORYTYPE_DEVICE };
    unsigned char in[COPY_N], out[COPY_N];
    cuabi_memcpy2d c2;
    cuabi_memcpy3d c3;
    const cuabi_deviceptr end = m + COPY_N - 8;

    print_message("%s\n", what);
    pattern(in, 1);
    CU_OK(cuMemcpyHtoD_v2(m, in, COPY_N));
    check_bytes("cuMemcpyHtoD", view, 1);
    pattern(view, 2);
    CU_OK(cuMemcpyDtoH_v2(out, m, COPY_N));
    check_bytes("cuMemcpyDtoH", out, 2);
    pattern(in, 3);
    CU_OK(cuMemcpyHtoD_v2(d, in, COPY_N));
    CU_OK(cuMemcpyDtoD_v2(m, d, COPY_N));
    check_bytes("cuMemcpyDtoD to it", view, 3);
    pattern(view, 4);
    CU_OK(cuMemcpyDtoD_v2(d, m, COPY_N));
    CU_OK(cuMemcpyDtoH_v2(out, d, COPY_N));
    check_bytes("cuMemcpyDtoD from it", out, 4);

    pattern(in, 5);
    CU_OK(cuMemcpyHtoDAsync_v2(m, in, COPY_N, s));
    CU_OK(cuStreamSynchronize(s));
    check_bytes("cuMemcpyHtoDAsync", view, 5);
    pattern(view, 6);
    CU_OK(cuMemcpyDtoHAsync_v2(out, m, COPY_N, s));
    CU_OK(cuStreamSynchronize(s));
    check_bytes("cuMemcpyDtoHAsync", out, 6);
    pattern(in, 7);
    CU_OK(cuMemcpyHtoD_v2(d, in, COPY_N));
    CU_OK(cuMemcpyDtoDAsync_v2(m, d, COPY_N, s));
    CU_OK(cuStreamSynchronize(s));
    check_bytes("cuMemcpyDtoDAsync to it", view, 7);
    pattern(view, 8);
    CU_OK(cuMemcpyDtoDAsync_v2(d, m, COPY_N, s));
    CU_OK(cuMemcpyDtoHAsync_v2(out, d, COPY_N, s));
    CU_OK(cuStreamSynchronize(s));
    check_bytes("cuMemcpyDtoDAsync from it", out, 8);

    pattern(in, 9);
    c2 = rows_2d(D, NULL, m, H, in, 0);
    CU_OK(cuMemcpy2D_v2(&c2));
    check_bytes("cuMemcpy2D to it", view, 9);
    pattern(view, 10);
    c2 = rows_2d(H, out, 0, D, NULL, m);
    CU_OK(cuMemcpy2DAsync_v2(&c2, s));
    CU_OK(cuStreamSynchronize(s));
    check_bytes("cuMemcpy2DAsync from it", out, 10);
    pattern(in, 11);
    c3 = slices_3d(D, NULL, m, H, in, 0);
    CU_OK(cuMemcpy3DAsync_v2(&c3, s));
    CU_OK(cuStreamSynchronize(s));
    check_bytes("cuMemcpy3DAsync to it", view, 11);
    pattern(view, 12);
    c3 = slices_3d(D, NULL, d, D, NULL, m);
    CU_OK(cuMemcpy3D_v2(&c3));
    CU_OK(cuMemcpyDtoH_v2(out, d, COPY_N));
    check_bytes("cuMemcpy3D from it", out, 12);
    pattern(view, 13);
    CU_OK(cuMemcpyDtoA_v2(a, 0, m, COPY_N));
    memset(view, 0, COPY_N);
    CU_OK(cuMemcpyAtoD_v2(m, a, 0, COPY_N));
    check_bytes("cuMemcpyDtoA and cuMemcpyAtoD", view, 13);

    /* A byte past its end. */
    assert_int_equal(cuMemcpyHtoD_v2(end, in, 9), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoH_v2(out, end, 9), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoD_v2(end, d, 9), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoD_v2(d, end, 9), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyHtoDAsync_v2(end, in, 9, s), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoHAsync_v2(out, end, 9, s), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoDAsync_v2(end, d, 9, s), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoDAsync_v2(d, end, 9, s), CUABI_ERROR_INVALID_VALUE);
    c2 = rows_2d(D, NULL, m + 1, H, in, 0);
    assert_int_equal(cuMemcpy2D_v2(&c2), CUABI_ERROR_INVALID_VALUE);
    c3 = slices_3d(H, out, 0, D, NULL, m + 1);
    assert_int_equal(cuMemcpy3DAsync_v2(&c3, s), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoA_v2(a, 0, m + 1, COPY_N), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyAtoD_v2(m + 1, a, 0, COPY_N), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuStreamSynchronize(s));
}

static void mapped_copies(void **state)
{
    enum { PAGE = 4096 };
    unsigned char *host = NULL, *registered = aligned_alloc(PAGE, PAGE);
    cuabi_deviceptr alias = 0, reg_alias = 0, d = 0, managed = 0;
    cuabi_array_descriptor desc = {COPY_N, 0, CUABI_AD_FORMAT_UNSIGNED_INT8, 1};
    cuabi_array a = NULL;
    cuabi_stream s = NULL;

    (void)state;
    assert_non_null(registered);
    ft_retain_current(0);
    CU_OK(cuMemHostAlloc((void **)&host, COPY_N, CUABI_MEMHOSTALLOC_DEVICEMAP));
    CU_OK(cuMemHostGetDevicePointer_v2(&alias, host, 0));
    /* Registered memory, COPY_N bytes of it at the end of its page. */
    CU_OK(cuMemHostRegister_v2(registered + PAGE - COPY_N, COPY_N, CUABI_MEMHOSTREGISTER_DEVICEMAP));
    CU_OK(cuMemHostGetDevicePointer_v2(&reg_alias, registered + PAGE - COPY_N, 0));
    CU_OK(cuMemAllocManaged(&managed, COPY_N, CUABI_MEM_ATTACH_GLOBAL));
    CU_OK(cuMemAlloc_v2(&d, COPY_N));
    CU_OK(cuArrayCreate_v2(&a, &desc));
    CU_OK(cuStreamCreate(&s, 0));

    copies_through("cuMemHostAlloc(DEVICEMAP)", alias, host, d, a, s);
    copies_through("cuMemHostRegister(DEVICEMAP)", reg_alias, registered + PAGE - COPY_N, d, a, s);
    copies_through("cuMemAllocManaged", managed, (unsigned char *)(uintptr_t)managed, d, a, s);

    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuMemFree_v2(managed));
    CU_OK(cuMemHostUnregister(registered + PAGE - COPY_N));
    CU_OK(cuMemFreeHost(host));
    free(registered);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static int setup(void **state)
{
    (void)state;
    /* Device 0's primary context, made once here, so that later refusals make no driver call at all. */
    FT_OK(gpu_context_synchronize(NULL));
    return 0;
}

static void host_register_overflow(void **state)
{
    gpu_host_buffer *h = (gpu_host_buffer *)&h;
    static uint32_t mem[64];
    void *high = (void *)(UINTPTR_MAX - 4095);

    (void)state;
    FT_INVALID(gpu_host_buffer_register(NULL, mem, SIZE_MAX, &h), "ptr + bytes");
    FT_INVALID(gpu_host_buffer_register(NULL, mem, SIZE_MAX - (size_t)(uintptr_t)mem + 1, &h), "overflows");
    FT_INVALID(gpu_host_buffer_register(NULL, high, 4097, &h), "overflows");
    FT_INVALID(gpu_host_buffer_register(NULL, high, 4096, &h), "overflows");
    assert_ptr_equal(h, (gpu_host_buffer *)&h);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 0);
}

/* The fake called as a CUDA program would: as strict as the driver. */
static void fake_register_strict(void **state)
{
    static uint32_t mem[1024];
    cuabi_context ctx = NULL;

    (void)state;
    assert_int_equal(cuDevicePrimaryCtxRetain(&ctx, 0), CUABI_SUCCESS);
    assert_int_equal(cuCtxPushCurrent_v2(ctx), CUABI_SUCCESS);
    assert_int_equal(cuMemHostRegister_v2(mem, SIZE_MAX, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemHostRegister_v2((void *)(UINTPTR_MAX - 15), 32, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 0);
    assert_int_equal(cuMemHostRegister_v2(mem + 256, 1024, 0), CUABI_SUCCESS);
    /* The same range again, one inside it, ones that overlap either end: already registered. */
    assert_int_equal(cuMemHostRegister_v2(mem + 256, 1024, 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    assert_int_equal(cuMemHostRegister_v2(mem + 300, 16, 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    assert_int_equal(cuMemHostRegister_v2(mem, 1028, 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    assert_int_equal(cuMemHostRegister_v2(mem + 511, 64, 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    /* A larger range around it, too (the check must look both ways). */
    assert_int_equal(cuMemHostRegister_v2(mem, sizeof(mem), 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    /* Ranges that only touch it are free. */
    assert_int_equal(cuMemHostRegister_v2(mem, 1024, 0), CUABI_SUCCESS);
    assert_int_equal(cuMemHostRegister_v2(mem + 512, 1024, 0), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 3);
    assert_int_equal(cuMemHostUnregister(mem), CUABI_SUCCESS);
    assert_int_equal(cuMemHostUnregister(mem + 256), CUABI_SUCCESS);
    assert_int_equal(cuMemHostUnregister(mem + 512), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 0);
    assert_int_equal(cuCtxPopCurrent_v2(&ctx), CUABI_SUCCESS);
    assert_int_equal(cuDevicePrimaryCtxRelease_v2(0), CUABI_SUCCESS);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_register_overflow),
        cmocka_unit_test(fake_register_strict),
    };
    static const ft_case cases[] = {
        {"mapped", cmocka_unit_test(mapped)},
        {"zero-copy", cmocka_unit_test(zero_copy)},
        {"mapped-copies", cmocka_unit_test(mapped_copies)},
    };

    return ft_run(argc, argv, "host-memory", tests, sizeof(tests) / sizeof(tests[0]), setup, NULL, cases,
                  sizeof(cases) / sizeof(cases[0]));
}
