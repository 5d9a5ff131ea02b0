/* SPDX-License-Identifier: MIT */
/*
 * Copies and fills (fake/memory/fake_copy.c), called as a CUDA program calls them.
 * One case per process (argv[1]).
 *
 *   copies     cuMemcpy and cuMemcpyAsync between unified addresses in every
 *              direction, cuMemcpyPeer between two devices' contexts; their
 *              errors
 *   peer3d     cuMemcpy3DPeer and cuMemcpy3DPeerAsync between host memory and
 *              two devices' contexts, in rows and slices; their errors
 */
#include <string.h>

#include "fake_test.h"

static void copies(void **state)
{
    enum { N = 256 };
    unsigned char in[N], out[N];
    cuabi_context c0, c1;
    cuabi_deviceptr a = 0, b = 0, p1 = 0;
    cuabi_stream s = NULL;

    (void)state;
    for (int i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 3 + 1);
    c1 = ft_retain_current(1);
    CU_OK(cuMemAlloc_v2(&p1, N));
    c0 = ft_retain_current(0);
    CU_OK(cuMemAlloc_v2(&a, N));
    CU_OK(cuMemAlloc_v2(&b, N));
    /* Host to device, device to device, device to host: the addresses say which. */
    CU_OK(cuMemcpy(a, (cuabi_deviceptr)(uintptr_t)in, N));
    CU_OK(cuMemcpy(b, a, N));
    memset(out, 0, N);
    CU_OK(cuMemcpy((cuabi_deviceptr)(uintptr_t)out, b, N));
    assert_memory_equal(in, out, N);
    /* Host to host too, as unified addressing allows. */
    memset(out, 0, N);
    CU_OK(cuMemcpy((cuabi_deviceptr)(uintptr_t)out, (cuabi_deviceptr)(uintptr_t)in, N));
    assert_memory_equal(in, out, N);
    /* Asynchronous: nothing read back until the stream ran. */
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuMemsetD8_v2(a, 0, N));
    CU_OK(cuMemcpyAsync(a + 16, (cuabi_deviceptr)(uintptr_t)in, 32, s));
    memset(out, 0xee, N);
    CU_OK(cuMemcpyAsync((cuabi_deviceptr)(uintptr_t)out, a, N, s));
    CU_OK(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        assert_int_equal(out[i], i >= 16 && i < 48 ? in[i - 16] : 0);
    CU_OK(cuMemcpyAsync(b, a, N, NULL));
    /* Errors: past an allocation's end, an unallocated device address, NULL, a bad stream. */
    assert_int_equal(cuMemcpy(a + 1, b, N), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpy(b, 0xa0000000000ull + 0x7000000000000ull, 16), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpy(0, a, 16), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyAsync(a, b, 16, (cuabi_stream)(uintptr_t)0x1234), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuMemcpy(a, p1, 16), CUABI_ERROR_INVALID_VALUE); /* device 1's, no peer access */
    CU_OK(cuMemcpy(a, b, 0));
    /* Peer: each address its own context's device's. */
    CU_OK(cuMemcpyPeer(p1, c1, a, c0, N));
    memset(out, 0, N);
    CU_OK(cuCtxSetCurrent(c1));
    CU_OK(cuMemcpyDtoH_v2(out, p1, N));
    CU_OK(cuCtxSetCurrent(c0));
    for (int i = 0; i < N; i++)
        assert_int_equal(out[i], i >= 16 && i < 48 ? in[i - 16] : 0);
    assert_int_equal(cuMemcpyPeer(p1, c0, a, c0, N), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyPeer(p1, (cuabi_context)(uintptr_t)0x99, a, c0, N), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuMemcpyPeer(p1, c1, a, c0, N + 1), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(a));
    CU_OK(cuMemFree_v2(b));
    CU_OK(cuCtxSetCurrent(NULL));
    assert_int_equal(cuMemcpy((cuabi_deviceptr)(uintptr_t)out, (cuabi_deviceptr)(uintptr_t)in, N),
                     CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuMemcpyPeer(p1, c1, p1, c1, N), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

static void peer3d(void **state)
{
    enum { SRC_PITCH = 16, SRC_HEIGHT = 6, DST_PITCH = 32, DST_HEIGHT = 4, W = 8, H = 4, D = 2 };
    unsigned char in[SRC_PITCH * SRC_HEIGHT * D], out[DST_PITCH * DST_HEIGHT * D];
    cuabi_context c0, c1;
    cuabi_deviceptr p1 = 0, p0 = 0;
    cuabi_stream s = NULL;
    cuabi_memcpy3d_peer p;

    (void)state;
    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (unsigned char)(i * 7 + 3);
    c1 = ft_retain_current(1);
    CU_OK(cuMemAlloc_v2(&p1, sizeof(out)));
    CU_OK(cuMemsetD8_v2(p1, 0, sizeof(out)));
    c0 = ft_retain_current(0);
    CU_OK(cuMemAlloc_v2(&p0, sizeof(out)));
    CU_OK(cuStreamCreate(&s, 0));
    /* Host memory (in context 0's name) to device 1: W bytes of H rows of D slices, at offsets. */
    memset(&p, 0, sizeof(p));
    p.src_type = CUABI_MEMORYTYPE_HOST;
    p.src_host = in;
    p.src_context = c0;
    p.src_x = 2;
    p.src_y = 1;
    p.src_pitch = SRC_PITCH;
    p.src_height = SRC_HEIGHT;
    p.dst_type = CUABI_MEMORYTYPE_DEVICE;
    p.dst_device = p1;
    p.dst_context = c1;
    p.dst_x = 4;
    p.dst_pitch = DST_PITCH;
    p.dst_height = DST_HEIGHT;
    p.width = W;
    p.height = H;
    p.depth = D;
    CU_OK(cuMemcpy3DPeer(&p));
    /* Device 1 to device 0, all its bytes as one row, on a stream of context 0. */
    memset(&p, 0, sizeof(p));
    p.src_type = CUABI_MEMORYTYPE_DEVICE;
    p.src_device = p1;
    p.src_context = c1;
    p.dst_type = CUABI_MEMORYTYPE_DEVICE;
    p.dst_device = p0;
    p.dst_context = c0;
    p.width = sizeof(out);
    p.height = 1;
    p.depth = 1;
    CU_OK(cuMemcpy3DPeerAsync(&p, s));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuMemcpyDtoH_v2(out, p0, sizeof(out)));
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < DST_HEIGHT; y++)
            for (size_t x = 0; x < DST_PITCH; x++) {
                size_t at = z * DST_PITCH * DST_HEIGHT + y * DST_PITCH + x;
                unsigned char want = x >= 4 && x < 4 + W && y < H ? in[z * SRC_PITCH * SRC_HEIGHT +
                                                                         (y + 1) * SRC_PITCH + 2 + (x - 4)]
                                                                   : 0;

                if (out[at] != want)
                    fail_msg("byte %zu is %u, not %u", at, out[at], want);
            }
    /* Nothing to copy: nothing done, the contexts still checked. */
    p.width = 0;
    CU_OK(cuMemcpy3DPeer(&p));
    CU_OK(cuMemcpy3DPeerAsync(&p, s));
    p.dst_context = NULL;
    assert_int_equal(cuMemcpy3DPeer(&p), CUABI_ERROR_INVALID_CONTEXT);
    p.width = sizeof(out);
    /* Errors: NULL, a context unknown, an address not its context's device's, a bad type, a bad stream. */
    assert_int_equal(cuMemcpy3DPeer(NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpy3DPeerAsync(NULL, s), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpy3DPeer(&p), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuMemcpy3DPeerAsync(&p, s), CUABI_ERROR_INVALID_CONTEXT);
    p.dst_context = (cuabi_context)(uintptr_t)0x99;
    assert_int_equal(cuMemcpy3DPeer(&p), CUABI_ERROR_INVALID_CONTEXT);
    p.dst_context = c0;
    p.src_context = c0;
    assert_int_equal(cuMemcpy3DPeer(&p), CUABI_ERROR_INVALID_VALUE);
    p.src_context = c1;
    p.dst_device = p0 + 1;
    assert_int_equal(cuMemcpy3DPeer(&p), CUABI_ERROR_INVALID_VALUE);
    p.dst_device = p0;
    p.src_type = 7;
    assert_int_equal(cuMemcpy3DPeerAsync(&p, s), CUABI_ERROR_INVALID_VALUE);
    p.src_type = CUABI_MEMORYTYPE_DEVICE;
    assert_int_equal(cuMemcpy3DPeerAsync(&p, (cuabi_stream)(uintptr_t)0x1234), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(p0));
    CU_OK(cuCtxSetCurrent(c1));
    CU_OK(cuMemFree_v2(p1));
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"copies", cmocka_unit_test(copies)},
        {"peer3d", cmocka_unit_test(peer3d)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
