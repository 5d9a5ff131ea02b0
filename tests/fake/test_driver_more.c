/* SPDX-License-Identifier: MIT */
/*
 * Host-side driver calls that CUDA programs make often, called directly as
 * such a program calls them. One case per process (argv[1]).
 *
 *   copies     cuMemcpy and cuMemcpyAsync between unified addresses in every
 *              direction, cuMemcpyPeer between two devices' contexts; their
 *              errors
 *   queries    cuStreamGetCtx (and _v2), cuStreamGetFlags, cuStreamGetId,
 *              cuCtxGetId, cuDevicePrimaryCtxGetState, cuCtxSet/GetCacheConfig;
 *              their errors
 *   callbacks  cuStreamAddCallback after earlier work, told the stream and
 *              status; cuEventRecordWithFlags; their errors
 *   modules    cuFuncGetName, cuFuncGetModule, cuModuleGetFunctionCount,
 *              cuModuleEnumerateFunctions, cuModuleGetLoadingMode; their errors
 *   devices    cuDeviceGetByPCIBusId in each form, cuDeviceGetP2PAttribute,
 *              cuDeviceGetTexture1DLinearMaxWidth, cuDeviceGetMemPool,
 *              cuCtxResetPersistingL2Cache, cuThreadExchangeStreamCaptureMode;
 *              their errors
 *   attributes cuStreamGetAttribute, cuStreamSetAttribute and
 *              cuStreamCopyAttributes: access policy window, synchronization
 *              policy, priority; their errors
 *   peer3d     cuMemcpy3DPeer and cuMemcpy3DPeerAsync between host memory and
 *              two devices' contexts, in rows and slices; their errors
 *   ranges     cuMemRangeGetAttribute and cuMemRangeGetAttributes on managed
 *              memory after advice and prefetches; their errors
 *   sweep      each driver call of those operations failed in turn: nothing
 *              is left alive
 */
#include <stdio.h>
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

static void queries(void **state)
{
    cuabi_context c0 = NULL, mine = NULL, got = NULL;
    cuabi_green_ctx green = (cuabi_green_ctx)(uintptr_t)1;
    cuabi_stream s = NULL, t = NULL;
    unsigned flags = 99;
    unsigned long long id_s = 0, id_t = 0, id_l = 0, again = 0, ctx_a = 0, ctx_b = 0, ctx_again = 0;
    int active = -1;
    cuabi_func_cache cache = CUABI_FUNC_CACHE_PREFER_EQUAL;

    (void)state;
    CU_OK(cuInit(0));
    /* A primary context not yet retained: inactive, flags 0. */
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(flags, 0);
    assert_int_equal(active, 0);
    c0 = ft_retain_current(0);
    CU_OK(cuCtxSetFlags(4));
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(flags, 4);
    assert_int_equal(active, 1);
    assert_int_equal(cuDevicePrimaryCtxGetState(9, &flags, &active), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDevicePrimaryCtxGetState(0, NULL, &active), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDevicePrimaryCtxGetState(0, &flags, NULL), CUABI_ERROR_INVALID_VALUE);

    CU_OK(cuStreamCreate(&s, CUABI_STREAM_NON_BLOCKING));
    CU_OK(cuStreamCreate(&t, 0));
    CU_OK(cuStreamGetCtx(s, &got));
    assert_ptr_equal(got, c0);
    got = NULL;
    CU_OK(cuStreamGetCtx(NULL, &got));
    assert_ptr_equal(got, c0);
    got = NULL;
    CU_OK(cuStreamGetCtx_v2(t, &got, &green));
    assert_ptr_equal(got, c0);
    assert_null(green);
    CU_OK(cuStreamGetFlags(s, &flags));
    assert_int_equal(flags, CUABI_STREAM_NON_BLOCKING);
    CU_OK(cuStreamGetFlags(t, &flags));
    assert_int_equal(flags, 0);
    CU_OK(cuStreamGetFlags(CUABI_STREAM_LEGACY, &flags));
    assert_int_equal(flags, 0);
    /* IDs: distinct, and the same at every ask. */
    CU_OK(cuStreamGetId(s, &id_s));
    CU_OK(cuStreamGetId(t, &id_t));
    CU_OK(cuStreamGetId(NULL, &id_l));
    CU_OK(cuStreamGetId(s, &again));
    assert_true(id_s != 0 && id_t != 0 && id_l != 0);
    assert_true(id_s != id_t && id_s != id_l && id_t != id_l);
    assert_true(again == id_s);
    CU_OK(cuCtxGetId(NULL, &ctx_a));
    CU_OK(cuCtxGetId(c0, &ctx_again));
    assert_true(ctx_a == ctx_again);
    /* A created context: its own ID; the stream of another context says its context, not the current one. */
    CU_OK(cuCtxCreate_v2(&mine, 0, 0));
    CU_OK(cuCtxGetId(mine, &ctx_b));
    assert_true(ctx_b != ctx_a);
    CU_OK(cuStreamGetCtx(s, &got));
    assert_ptr_equal(got, c0);
    CU_OK(cuCtxDestroy_v2(mine));
    assert_int_equal(cuCtxGetId(mine, &ctx_b), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuCtxSetCurrent(c0));
    /* The cache preference: kept per context, told back; an unknown one refused. */
    CU_OK(cuCtxGetCacheConfig(&cache));
    assert_int_equal(cache, CUABI_FUNC_CACHE_PREFER_NONE);
    CU_OK(cuCtxSetCacheConfig(CUABI_FUNC_CACHE_PREFER_L1));
    CU_OK(cuCtxGetCacheConfig(&cache));
    assert_int_equal(cache, CUABI_FUNC_CACHE_PREFER_L1);
    assert_int_equal(cuCtxSetCacheConfig((cuabi_func_cache)4), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxGetCacheConfig(NULL), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuCtxSetCacheConfig(CUABI_FUNC_CACHE_PREFER_NONE));
    /* Errors. */
    assert_int_equal(cuStreamGetCtx(s, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetCtx_v2(s, &got, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetFlags(s, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetId(s, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxGetId(c0, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxGetId((cuabi_context)(uintptr_t)0x99, &ctx_b), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuStreamDestroy_v2(t));
    assert_int_equal(cuStreamGetCtx(t, &got), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamGetFlags(t, &flags), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamGetId(t, &id_t), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuCtxSetCurrent(NULL));
    assert_int_equal(cuStreamGetCtx(NULL, &got), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxGetId(NULL, &ctx_b), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxGetCacheConfig(&cache), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 0);
}

struct told {
    cuabi_stream stream;
    cuabi_result status;
    int calls;
    unsigned char seen;
    const unsigned char *watch;
};

static void on_done(cuabi_stream stream, cuabi_result status, void *user_data)
{
    struct told *t = user_data;

    t->stream = stream;
    t->status = status;
    t->seen = *t->watch;
    t->calls++;
}

static void callbacks(void **state)
{
    static unsigned char host[64];
    static const unsigned char src[64] = {42};
    cuabi_stream s = NULL;
    cuabi_event e = NULL;
    cuabi_deviceptr d = 0;
    cuabi_graph g = NULL;
    struct told t = {.watch = host, .status = 77};

    (void)state;
    ft_retain_current(0);
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuMemAlloc_v2(&d, sizeof(host)));
    CU_OK(cuMemcpyHtoDAsync_v2(d, src, sizeof(src), s));
    CU_OK(cuMemcpyDtoHAsync_v2(host, d, sizeof(host), s));
    /* After the copies it follows: it sees their result. */
    CU_OK(cuStreamAddCallback(s, on_done, &t, 0));
    CU_OK(cuStreamSynchronize(s));
    assert_int_equal(t.calls, 1);
    assert_ptr_equal(t.stream, s);
    assert_int_equal(t.status, CUABI_SUCCESS);
    assert_int_equal(t.seen, 42);
    /* On the legacy stream, told the handle it was given. */
    t.stream = s;
    CU_OK(cuStreamAddCallback(NULL, on_done, &t, 0));
    CU_OK(cuCtxSynchronize());
    assert_int_equal(t.calls, 2);
    assert_null(t.stream);
    assert_int_equal(cuStreamAddCallback(s, NULL, &t, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAddCallback(s, on_done, &t, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAddCallback((cuabi_stream)(uintptr_t)0x1234, on_done, &t, 0),
                     CUABI_ERROR_INVALID_HANDLE);
    /* A capturing stream refuses it, and the capture is broken. */
    CU_OK(cuStreamBeginCapture_v2(s, CUABI_STREAM_CAPTURE_MODE_RELAXED));
    assert_int_equal(cuStreamAddCallback(s, on_done, &t, 0), CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    assert_int_equal(cuStreamEndCapture(s, &g), CUABI_ERROR_STREAM_CAPTURE_INVALIDATED);
    assert_int_equal(t.calls, 2);

    /* Records with flags: default and external are plain records. */
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuEventRecordWithFlags(e, s, CUABI_EVENT_RECORD_DEFAULT));
    CU_OK(cuEventSynchronize(e));
    CU_OK(cuMemcpyHtoDAsync_v2(d, src, sizeof(src), s));
    CU_OK(cuEventRecordWithFlags(e, s, CUABI_EVENT_RECORD_EXTERNAL));
    CU_OK(cuEventSynchronize(e));
    CU_OK(cuEventQuery(e));
    assert_int_equal(cuEventRecordWithFlags(e, s, 2), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuEventRecordWithFlags(NULL, s, 0), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventRecordWithFlags(e, (cuabi_stream)(uintptr_t)0x1234, 0), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuEventDestroy_v2(e));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static const char two_kernels[] = ".version 8.0\n.fake_kernel add_one\n.fake_kernel scale_add\n";

static void modules(void **state)
{
    cuabi_module m = NULL, got = NULL;
    cuabi_function f = NULL, g = NULL, all[3] = {NULL, NULL, NULL};
    const char *name = NULL;
    unsigned count = 0;
    cuabi_module_loading_mode mode = 0;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuModuleLoadData(&m, two_kernels));
    CU_OK(cuModuleGetFunctionCount(&count, m));
    assert_int_equal(count, 2);
    /* Up to numFunctions handles, in the image's order: those cuModuleGetFunction gives. */
    CU_OK(cuModuleGetFunction(&f, m, "add_one"));
    CU_OK(cuModuleGetFunction(&g, m, "scale_add"));
    CU_OK(cuModuleEnumerateFunctions(all, 1, m));
    assert_ptr_equal(all[0], f);
    assert_null(all[1]);
    CU_OK(cuModuleEnumerateFunctions(all, 3, m));
    assert_ptr_equal(all[0], f);
    assert_ptr_equal(all[1], g);
    assert_null(all[2]);
    CU_OK(cuFuncGetName(&name, g));
    assert_string_equal(name, "scale_add");
    CU_OK(cuFuncGetName(&name, all[0]));
    assert_string_equal(name, "add_one");
    CU_OK(cuFuncGetModule(&got, f));
    assert_ptr_equal(got, m);
    CU_OK(cuModuleGetLoadingMode(&mode));
    assert_int_equal(mode, CUABI_MODULE_EAGER_LOADING);
    /* Errors. */
    assert_int_equal(cuFuncGetName(NULL, f), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetName(&name, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetName(&name, (cuabi_function)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetModule(NULL, f), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetModule(&got, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetModule(&got, (cuabi_function)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetFunctionCount(NULL, m), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleGetFunctionCount(&count, NULL), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleEnumerateFunctions(NULL, 2, m), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleEnumerateFunctions(all, 2, (cuabi_module)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetLoadingMode(NULL), CUABI_ERROR_INVALID_VALUE);
    /* Unloaded: its handles are no longer known. */
    CU_OK(cuModuleUnload(m));
    assert_int_equal(cuModuleGetFunctionCount(&count, m), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleEnumerateFunctions(all, 2, m), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetName(&name, f), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetModule(&got, f), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

static void devices(void **state)
{
    static const char *const forms[] = {"0000:29:00.0", "0000:29:00", "29:00.0", "0:29:0.0", "0000:29:00.0",
                                        "00000000:29:00.0"};
    static const char *const bad[] = {"", "29", "29:00", "0000:29:00.", "0000:29:00.0 ", "0000:29:00:00",
                                      "g:29:00.0", "000000000:29:00.0", ":29:00.0", "0x29:00.0", "+29:00.0"};
    char id[32], upper[32];
    cuabi_device dev = -1;
    int value = -1, can = -1;
    size_t width = 0;
    cuabi_mem_pool pool = NULL, def = NULL;
    cuabi_stream_capture_mode mode = CUABI_STREAM_CAPTURE_MODE_RELAXED;

    (void)state;
    CU_OK(cuInit(0));
    /* Each device's own bus ID names it, in either case, and in each form the driver takes. */
    for (int d = 0; d < 2; d++) {
        CU_OK(cuDeviceGetPCIBusId(id, (int)sizeof(id), d));
        CU_OK(cuDeviceGetByPCIBusId(&dev, id));
        assert_int_equal(dev, d);
        for (size_t i = 0; i <= strlen(id); i++)
            upper[i] = (char)(id[i] >= 'a' && id[i] <= 'f' ? id[i] - 'a' + 'A' : id[i]);
        dev = -1;
        CU_OK(cuDeviceGetByPCIBusId(&dev, upper));
        assert_int_equal(dev, d);
    }
    CU_OK(cuDeviceGetPCIBusId(id, (int)sizeof(id), 1));
    assert_string_equal(id, "0000:29:00.0");
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        dev = -1;
        CU_OK(cuDeviceGetByPCIBusId(&dev, forms[i]));
        assert_int_equal(dev, 1);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (cuDeviceGetByPCIBusId(&dev, bad[i]) != CUABI_ERROR_INVALID_VALUE)
            fail_msg("\"%s\" was taken", bad[i]);
    assert_int_equal(cuDeviceGetByPCIBusId(&dev, "0000:39:00.0"), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetByPCIBusId(&dev, "0001:19:00.0"), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetByPCIBusId(&dev, "19:00.1"), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetByPCIBusId(NULL, "19:00.0"), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetByPCIBusId(&dev, NULL), CUABI_ERROR_INVALID_VALUE);

    /* The link, as cuDeviceCanAccessPeer tells it. */
    CU_OK(cuDeviceCanAccessPeer(&can, 0, 1));
    CU_OK(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
    assert_int_equal(value, can);
    CU_OK(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 0, 1));
    assert_int_equal(value, can);
    CU_OK(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, 0, 1));
    assert_int_equal(value, can);
    CU_OK(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED, 0, 1));
    assert_int_equal(value, 0);
    CU_OK(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_PERFORMANCE_RANK, 1, 0));
    assert_int_equal(value, 0);
    gpu_fake_peer_set(0, 1, false);
    CU_OK(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
    assert_int_equal(value, 0);
    CU_OK(cuDeviceCanAccessPeer(&can, 0, 1));
    assert_int_equal(can, 0);
    gpu_fake_peer_set(0, 1, true);
    CU_OK(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1));
    assert_int_equal(value, 1);
    assert_int_equal(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0),
                     CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetP2PAttribute(&value, CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 2),
                     CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetP2PAttribute(&value, 0, 0, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetP2PAttribute(&value, 6, 0, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetP2PAttribute(NULL, CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1),
                     CUABI_ERROR_INVALID_VALUE);

    /* The profile's attribute, for each format and channel count. */
    CU_OK(cuDeviceGetAttribute(&value, 69, 0)); /* CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH */
    CU_OK(cuDeviceGetTexture1DLinearMaxWidth(&width, CUABI_AD_FORMAT_FLOAT, 4, 0));
    assert_true(value > 0 && width == (size_t)value);
    CU_OK(cuDeviceGetTexture1DLinearMaxWidth(&width, CUABI_AD_FORMAT_UNSIGNED_INT8, 1, 1));
    assert_true(width == (size_t)value);
    assert_int_equal(cuDeviceGetTexture1DLinearMaxWidth(&width, CUABI_AD_FORMAT_FLOAT, 3, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetTexture1DLinearMaxWidth(&width, 0x77, 1, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetTexture1DLinearMaxWidth(NULL, CUABI_AD_FORMAT_FLOAT, 1, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetTexture1DLinearMaxWidth(&width, CUABI_AD_FORMAT_FLOAT, 1, 2), CUABI_ERROR_INVALID_DEVICE);

    /* The current pool is the default one. */
    CU_OK(cuDeviceGetMemPool(&pool, 1));
    CU_OK(cuDeviceGetDefaultMemPool(&def, 1));
    assert_non_null(pool);
    assert_ptr_equal(pool, def);
    CU_OK(cuDeviceGetMemPool(&pool, 0));
    assert_ptr_not_equal(pool, def);
    assert_int_equal(cuDeviceGetMemPool(NULL, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDeviceGetMemPool(&pool, 2), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDeviceGetMemPool(&pool, -1), CUABI_ERROR_INVALID_DEVICE);

    /* Persisting L2 lines: nothing to reset, but a context is needed. */
    assert_int_equal(cuCtxResetPersistingL2Cache(), CUABI_ERROR_INVALID_CONTEXT);
    ft_retain_current(0);
    CU_OK(cuCtxResetPersistingL2Cache());

    /* The thread's capture mode: global at first, then what it was given. */
    CU_OK(cuThreadExchangeStreamCaptureMode(&mode));
    assert_int_equal(mode, CUABI_STREAM_CAPTURE_MODE_GLOBAL);
    mode = CUABI_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    CU_OK(cuThreadExchangeStreamCaptureMode(&mode));
    assert_int_equal(mode, CUABI_STREAM_CAPTURE_MODE_RELAXED);
    mode = 3;
    assert_int_equal(cuThreadExchangeStreamCaptureMode(&mode), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(mode, 3);
    assert_int_equal(cuThreadExchangeStreamCaptureMode(NULL), CUABI_ERROR_INVALID_VALUE);
    mode = CUABI_STREAM_CAPTURE_MODE_GLOBAL;
    CU_OK(cuThreadExchangeStreamCaptureMode(&mode));
    assert_int_equal(mode, CUABI_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void attributes(void **state)
{
    cuabi_stream s = NULL, t = NULL;
    cuabi_deviceptr d = 0;
    cuabi_launch_attribute_value v, w;
    int priority = 1;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemAlloc_v2(&d, 4096));
    CU_OK(cuStreamCreateWithPriority(&s, 0, -2));
    CU_OK(cuStreamCreate(&t, 0));
    /* At first: the stream's priority, an automatic policy, no window. */
    memset(&v, 0x5a, sizeof(v));
    CU_OK(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    assert_int_equal(v.priority, -2);
    CU_OK(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    assert_int_equal(v.sync_policy, CUABI_SYNC_POLICY_AUTO);
    CU_OK(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v));
    assert_null(v.access_policy_window.base_ptr);
    assert_int_equal(v.access_policy_window.num_bytes, 0);
    CU_OK(cuStreamGetAttribute(NULL, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    assert_int_equal(v.priority, 0);
    /* What was set is told back. */
    memset(&v, 0, sizeof(v));
    v.access_policy_window = (cuabi_access_policy_window){(void *)(uintptr_t)d, 4096, 0.5f,
                                                          CUABI_ACCESS_PROPERTY_PERSISTING, 1};
    CU_OK(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v));
    memset(&w, 0, sizeof(w));
    CU_OK(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
    assert_ptr_equal(w.access_policy_window.base_ptr, (void *)(uintptr_t)d);
    assert_int_equal(w.access_policy_window.num_bytes, 4096);
    assert_true(w.access_policy_window.hit_ratio == 0.5f);
    assert_int_equal(w.access_policy_window.hit_prop, CUABI_ACCESS_PROPERTY_PERSISTING);
    assert_int_equal(w.access_policy_window.miss_prop, 1);
    v.sync_policy = CUABI_SYNC_POLICY_BLOCKING_SYNC;
    CU_OK(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    CU_OK(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &w));
    assert_int_equal(w.sync_policy, CUABI_SYNC_POLICY_BLOCKING_SYNC);
    /* A priority past the range is clamped to it, as at creation. */
    v.priority = -100;
    CU_OK(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    CU_OK(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, &w));
    assert_int_equal(w.priority, -5);
    CU_OK(cuStreamGetPriority(s, &priority));
    assert_int_equal(priority, -5);
    /* All of them to another stream. */
    CU_OK(cuStreamCopyAttributes(t, s));
    CU_OK(cuStreamGetAttribute(t, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, &w));
    assert_int_equal(w.priority, -5);
    CU_OK(cuStreamGetAttribute(t, CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &w));
    assert_int_equal(w.sync_policy, CUABI_SYNC_POLICY_BLOCKING_SYNC);
    CU_OK(cuStreamGetAttribute(t, CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
    assert_int_equal(w.access_policy_window.num_bytes, 4096);
    /* Errors: NULL, a bad stream, an attribute not a stream's, values out of range; nothing changed. */
    assert_int_equal(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetAttribute((cuabi_stream)(uintptr_t)0x1234, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, &w),
                     CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamSetAttribute((cuabi_stream)(uintptr_t)0x1234, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, &v),
                     CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamCopyAttributes(t, (cuabi_stream)(uintptr_t)0x1234), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamCopyAttributes((cuabi_stream)(uintptr_t)0x1234, s), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_COOPERATIVE, &w), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_COOPERATIVE, &v), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetAttribute(s, 99, &w), CUABI_ERROR_INVALID_VALUE);
    v.access_policy_window.hit_ratio = 1.5f;
    assert_int_equal(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v),
                     CUABI_ERROR_INVALID_VALUE);
    v.access_policy_window.hit_ratio = 1.0f;
    v.access_policy_window.miss_prop = 3;
    assert_int_equal(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v),
                     CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
    assert_true(w.access_policy_window.hit_ratio == 0.5f);
    memset(&v, 0, sizeof(v));
    assert_int_equal(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v),
                     CUABI_ERROR_INVALID_VALUE);
    v.sync_policy = 5;
    assert_int_equal(cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v),
                     CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &w));
    assert_int_equal(w.sync_policy, CUABI_SYNC_POLICY_BLOCKING_SYNC);
    CU_OK(cuStreamDestroy_v2(t));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
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

static void ranges(void **state)
{
    cuabi_deviceptr m = 0, d = 0;
    int mostly = -1, preferred = -1, last = -1, by[3] = {7, 7, 7}, one = 7;
    void *data[4] = {&mostly, &preferred, by, &last};
    size_t sizes[4] = {sizeof(int), sizeof(int), sizeof(by), sizeof(int)};
    cuabi_mem_range_attribute attrs[4] = {CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                          CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
                                          CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
                                          CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION};

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemAllocManaged(&m, 4096, CUABI_MEM_ATTACH_GLOBAL));
    CU_OK(cuMemAlloc_v2(&d, 4096));
    /* No advice, no prefetch. */
    CU_OK(cuMemRangeGetAttributes(data, sizes, attrs, 4, m, 4096));
    assert_int_equal(mostly, 0);
    assert_int_equal(preferred, CUABI_DEVICE_INVALID);
    assert_int_equal(by[0], CUABI_DEVICE_INVALID);
    assert_int_equal(by[2], CUABI_DEVICE_INVALID);
    assert_int_equal(last, CUABI_DEVICE_INVALID);
    /* What the advice and prefetches left, over all of it or part. */
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_READ_MOSTLY, 0));
    CU_OK(cuMemRangeGetAttribute(&mostly, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + 100, 200));
    assert_int_equal(mostly, 1);
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION, 1));
    CU_OK(cuMemRangeGetAttribute(&preferred, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096));
    assert_int_equal(preferred, 1);
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION, CUABI_DEVICE_CPU));
    CU_OK(cuMemRangeGetAttribute(&preferred, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096));
    assert_int_equal(preferred, CUABI_DEVICE_CPU);
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_ACCESSED_BY, 1));
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_SET_ACCESSED_BY, CUABI_DEVICE_CPU));
    CU_OK(cuMemRangeGetAttribute(by, sizeof(by), CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096));
    assert_int_equal(by[0], 1);
    assert_int_equal(by[1], CUABI_DEVICE_CPU);
    assert_int_equal(by[2], CUABI_DEVICE_INVALID);
    CU_OK(cuMemRangeGetAttribute(&one, sizeof(one), CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096));
    assert_int_equal(one, 1);
    CU_OK(cuMemPrefetchAsync(m, 4096, 1, NULL));
    CU_OK(cuMemRangeGetAttribute(&last, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 1));
    assert_int_equal(last, 1);
    CU_OK(cuMemPrefetchAsync(m, 4096, CUABI_DEVICE_CPU, NULL));
    CU_OK(cuMemRangeGetAttribute(&last, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 1));
    assert_int_equal(last, CUABI_DEVICE_CPU);
    /* Undone. */
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_UNSET_READ_MOSTLY, 0));
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_UNSET_PREFERRED_LOCATION, 0));
    CU_OK(cuMemAdvise(m, 4096, CUABI_MEM_ADVISE_UNSET_ACCESSED_BY, 1));
    CU_OK(cuMemRangeGetAttributes(data, sizes, attrs, 4, m + 4000, 96));
    assert_int_equal(mostly, 0);
    assert_int_equal(preferred, CUABI_DEVICE_INVALID);
    assert_int_equal(by[0], CUABI_DEVICE_CPU);
    assert_int_equal(by[1], CUABI_DEVICE_INVALID);
    assert_int_equal(last, CUABI_DEVICE_CPU);
    /* Errors: NULL, a size not the attribute's, an attribute unknown, a range not all managed memory. */
    assert_int_equal(cuMemRangeGetAttribute(NULL, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, 8, CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(by, 0, CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(by, 6, CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, sizeof(int), 99, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 0),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4097),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttribute(&mostly, sizeof(int), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 4096),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(NULL, sizes, attrs, 4, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(data, NULL, attrs, 4, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(data, sizes, NULL, 4, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(data, sizes, attrs, 0, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemRangeGetAttributes(data, sizes, attrs, 4, d, 16), CUABI_ERROR_INVALID_VALUE);
    /* One bad attribute: none written. */
    mostly = 7;
    attrs[3] = 99;
    assert_int_equal(cuMemRangeGetAttributes(data, sizes, attrs, 4, m, 4096), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(mostly, 7);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuMemFree_v2(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void on_nothing(cuabi_stream stream, cuabi_result status, void *user_data)
{
    (void)stream;
    (void)status;
    ++*(int *)user_data;
}

/* The operations above as one sequence of driver calls, stopping at the first failure and cleaning up. */
static cuabi_result sequence(void)
{
    static unsigned char host[64];
    cuabi_context ctx = NULL, got = NULL, c1 = NULL;
    cuabi_green_ctx green = NULL;
    cuabi_stream s = NULL;
    cuabi_event e = NULL;
    cuabi_deviceptr d = 0, p1 = 0;
    unsigned flags = 0;
    unsigned long long id = 0;
    int active = 0, called = 0;
    cuabi_func_cache cache = CUABI_FUNC_CACHE_PREFER_NONE;
    cuabi_module m = NULL, owner = NULL;
    cuabi_function f = NULL;
    const char *name = NULL;
    unsigned count = 0;
    cuabi_module_loading_mode loading = 0;
    cuabi_device dev = 0;
    size_t width = 0;
    cuabi_mem_pool pool = NULL;
    cuabi_stream_capture_mode mode = CUABI_STREAM_CAPTURE_MODE_GLOBAL;
    cuabi_launch_attribute_value value = {.priority = -1};
    cuabi_memcpy3d_peer peer = {.src_type = CUABI_MEMORYTYPE_HOST, .src_host = host, .src_pitch = sizeof(host),
                                .dst_type = CUABI_MEMORYTYPE_DEVICE, .dst_pitch = sizeof(host),
                                .width = sizeof(host), .height = 1, .depth = 1};
    cuabi_deviceptr managed = 0;
    int mostly = 0, last = 0;
    void *range_data[2] = {&mostly, &last};
    size_t range_sizes[2] = {sizeof(int), sizeof(int)};
    cuabi_mem_range_attribute range_attrs[2] = {CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                                CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION};
    cuabi_result rc = cuCtxCreate_v2(&c1, 0, 1);

    if (rc == CUABI_SUCCESS)
        rc = cuMemAlloc_v2(&p1, sizeof(host));
    if (rc == CUABI_SUCCESS)
        rc = cuCtxCreate_v2(&ctx, 0, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamCreate(&s, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuEventCreate(&e, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuMemAlloc_v2(&d, sizeof(host));
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpy(d, (cuabi_deviceptr)(uintptr_t)host, sizeof(host));
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpyAsync((cuabi_deviceptr)(uintptr_t)host, d, sizeof(host), s);
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpyPeer(p1, c1, d, ctx, sizeof(host));
    if (rc == CUABI_SUCCESS)
        rc = cuStreamAddCallback(s, on_nothing, &called, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuEventRecordWithFlags(e, s, CUABI_EVENT_RECORD_EXTERNAL);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamGetCtx(s, &got);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamGetCtx_v2(s, &got, &green);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamGetFlags(s, &flags);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamGetId(s, &id);
    if (rc == CUABI_SUCCESS)
        rc = cuCtxGetId(ctx, &id);
    if (rc == CUABI_SUCCESS)
        rc = cuDevicePrimaryCtxGetState(0, &flags, &active);
    if (rc == CUABI_SUCCESS)
        rc = cuCtxSetCacheConfig(CUABI_FUNC_CACHE_PREFER_SHARED);
    if (rc == CUABI_SUCCESS)
        rc = cuCtxGetCacheConfig(&cache);
    if (rc == CUABI_SUCCESS)
        rc = cuModuleLoadData(&m, two_kernels);
    if (rc == CUABI_SUCCESS)
        rc = cuModuleGetFunctionCount(&count, m);
    if (rc == CUABI_SUCCESS)
        rc = cuModuleEnumerateFunctions(&f, 1, m);
    if (rc == CUABI_SUCCESS)
        rc = cuFuncGetName(&name, f);
    if (rc == CUABI_SUCCESS)
        rc = cuFuncGetModule(&owner, f);
    if (rc == CUABI_SUCCESS)
        rc = cuModuleGetLoadingMode(&loading);
    if (rc == CUABI_SUCCESS)
        rc = cuDeviceGetByPCIBusId(&dev, "0000:29:00.0");
    if (rc == CUABI_SUCCESS)
        rc = cuDeviceGetP2PAttribute(&active, CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1);
    if (rc == CUABI_SUCCESS)
        rc = cuDeviceGetTexture1DLinearMaxWidth(&width, CUABI_AD_FORMAT_FLOAT, 2, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuDeviceGetMemPool(&pool, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuCtxResetPersistingL2Cache();
    if (rc == CUABI_SUCCESS)
        rc = cuThreadExchangeStreamCaptureMode(&mode);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamSetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_PRIORITY, &value);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamGetAttribute(s, CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &value);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamCopyAttributes(s, NULL);
    if (rc == CUABI_SUCCESS) {
        peer.src_context = ctx;
        peer.dst_context = c1;
        peer.dst_device = p1;
        rc = cuMemcpy3DPeer(&peer);
    }
    if (rc == CUABI_SUCCESS) {
        peer.dst_context = ctx;
        peer.dst_device = d;
        rc = cuMemcpy3DPeerAsync(&peer, s);
    }
    if (rc == CUABI_SUCCESS)
        rc = cuMemAllocManaged(&managed, sizeof(host), CUABI_MEM_ATTACH_GLOBAL);
    if (rc == CUABI_SUCCESS)
        rc = cuMemAdvise(managed, sizeof(host), CUABI_MEM_ADVISE_SET_READ_MOSTLY, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuMemRangeGetAttribute(&mostly, sizeof(mostly), CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, managed,
                                    sizeof(host));
    if (rc == CUABI_SUCCESS)
        rc = cuMemRangeGetAttributes(range_data, range_sizes, range_attrs, 2, managed, sizeof(host));
    if (rc == CUABI_SUCCESS)
        rc = cuStreamSynchronize(s);
    if (m)
        cuModuleUnload(m);
    if (e)
        cuEventDestroy_v2(e);
    if (s)
        cuStreamDestroy_v2(s);
    if (managed)
        cuMemFree_v2(managed);
    if (d)
        cuMemFree_v2(d);
    if (ctx && cuCtxDestroy_v2(ctx) != CUABI_SUCCESS)
        cuCtxDestroy_v2(ctx); /* a failed destroy is tried again, as a careful program would */
    if (c1 && cuCtxDestroy_v2(c1) != CUABI_SUCCESS)
        cuCtxDestroy_v2(c1);
    return rc;
}

static void sweep(void **state)
{
    static const char *const calls[] = {
        "cuCtxCreate_v2", "cuMemAlloc_v2",    "cuStreamCreate",          "cuEventCreate",
        "cuMemcpy",       "cuMemcpyAsync",    "cuMemcpyPeer",            "cuStreamAddCallback",
        "cuEventRecordWithFlags", "cuStreamGetCtx", "cuStreamGetCtx_v2", "cuStreamGetFlags",
        "cuStreamGetId",  "cuCtxGetId",       "cuDevicePrimaryCtxGetState", "cuCtxSetCacheConfig",
        "cuCtxGetCacheConfig", "cuModuleLoadData", "cuModuleGetFunctionCount", "cuModuleEnumerateFunctions",
        "cuFuncGetName",  "cuFuncGetModule",  "cuModuleGetLoadingMode",  "cuDeviceGetByPCIBusId",
        "cuDeviceGetP2PAttribute", "cuDeviceGetTexture1DLinearMaxWidth", "cuDeviceGetMemPool",
        "cuCtxResetPersistingL2Cache", "cuThreadExchangeStreamCaptureMode", "cuStreamSetAttribute",
        "cuStreamGetAttribute", "cuStreamCopyAttributes", "cuMemcpy3DPeer", "cuMemcpy3DPeerAsync", "cuMemAllocManaged",
        "cuMemAdvise", "cuMemRangeGetAttribute", "cuMemRangeGetAttributes", "cuStreamSynchronize",
        "cuModuleUnload", "cuEventDestroy_v2", "cuStreamDestroy_v2", "cuMemFree_v2", "cuCtxDestroy_v2"};
    gpu_fake_live_counts before, after;
    bool cleaning = false;

    (void)state;
    CU_OK(cuInit(0));
    CU_OK(sequence());
    gpu_fake_live_get(&before);
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        assert_int_equal(gpu_fake_fail(calls[i], 1, CUABI_ERROR_UNKNOWN), 0);
        /* A failed call fails the sequence, up to the clean-up, whose failures it rides over. */
        cleaning = cleaning || strcmp(calls[i], "cuModuleUnload") == 0;
        assert_int_equal(sequence(), cleaning ? CUABI_SUCCESS : CUABI_ERROR_UNKNOWN);
        gpu_fake_fail_reset();
        gpu_fake_live_get(&after);
        for (int k = 0; k < GPU_FAKE_LIVE_KIND_COUNT; k++)
            if (after.count[k] != before.count[k])
                fail_msg("%s failed: live kind %d went from %ld to %ld", calls[i], k, before.count[k], after.count[k]);
    }
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        struct CMUnitTest test;
    } cases[] = {
        {"copies", cmocka_unit_test(copies)},
        {"queries", cmocka_unit_test(queries)},
        {"callbacks", cmocka_unit_test(callbacks)},
        {"modules", cmocka_unit_test(modules)},
        {"devices", cmocka_unit_test(devices)},
        {"attributes", cmocka_unit_test(attributes)},
        {"peer3d", cmocka_unit_test(peer3d)},
        {"ranges", cmocka_unit_test(ranges)},
        {"sweep", cmocka_unit_test(sweep)},
    };

    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++)
        if (strcmp(argv[1], cases[i].name) == 0)
            return _cmocka_run_group_tests(cases[i].name, &cases[i].test, 1, NULL, NULL);
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
}
