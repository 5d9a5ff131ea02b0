/* SPDX-License-Identifier: MIT */
/*
 * Streams and their queued work (fake/core/fake_stream.c): ordering and error
 * semantics, queries, callbacks and attributes, as a CUDA program sees them
 * through the driver API. One case per process (argv[1]).
 *
 *   sticky      a kernel that faults corrupts its context: the next copy, and
 *               every later call on that context, returns the fault until the
 *               context is destroyed (a primary one: released to zero); other
 *               contexts go on
 *   told-once   GPUSHIM_FAKE_STICKY=0: the fault is told once by the stream's
 *               synchronisation, and the context goes on
 *   free-queued freeing memory, page-locked memory (or unregistering it) or
 *               unloading a module that queued work still uses: the work runs
 *               first, on the live memory; cuMemFree with no context current
 *   pageable    asynchronous copies from pageable memory staged at the call,
 *               into pageable memory done at the call; page-locked memory
 *               read and written when the stream reaches the copy
 *   progress-poll       (GPUSHIM_FAKE_PROGRESS=1) polling cuStreamQuery or
 *               cuEventQuery sees the work end; gpu_fake_progress(false) makes
 *               the fake lazy again
 *   progress-callbacks  (GPUSHIM_FAKE_PROGRESS=1) host functions and callbacks
 *               fire, on another thread, while the host calls nothing
 *   queries    cuStreamGetCtx (and _v2), cuStreamGetFlags, cuStreamGetId,
 *              cuCtxGetId, cuDevicePrimaryCtxGetState, cuCtxSet/GetCacheConfig;
 *              their errors
 *   callbacks  cuStreamAddCallback after earlier work, told the stream and
 *              status; cuEventRecordWithFlags; their errors
 *   attributes cuStreamGetAttribute, cuStreamSetAttribute and
 *              cuStreamCopyAttributes: access policy window, synchronization
 *              policy, priority; their errors
 *   sweep      each driver call of queries, callbacks, attributes and the
 *              driver-API cases of test_copy.c, test_module.c, test_device.c
 *              and test_managed.c failed in turn: nothing is left alive
 *   assert     a device-side assert (__assertfail) that fails prints the GPU's
 *              line for each failing thread; the launch fails with the sticky
 *              CUDA_ERROR_ASSERT
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_test.h"

#define CU_IS(call, want) assert_int_equal((call), (want))

enum { N = 64 };

static const char kernels[] = ".version 8.0\n.fake_kernel fill_u32\n.fake_kernel add_one\n";

static cuabi_function function(cuabi_module *m, const char *name)
{
    cuabi_function f = NULL;

    CU_OK(cuModuleLoadData(m, kernels));
    CU_OK(cuModuleGetFunction(&f, *m, name));
    return f;
}

/* Queues fill_u32(p, value, n) on the stream. */
static cuabi_result fill(cuabi_function f, cuabi_stream s, cuabi_deviceptr p, uint32_t value, uint32_t n)
{
    void *params[] = {&p, &value, &n};

    return cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, s, params, NULL);
}

/* ---- sticky ---- */

static void sticky(void **state)
{
    uint32_t host[N], back[N];
    cuabi_context primary, other = NULL, cur = NULL;
    cuabi_module m = NULL;
    cuabi_function f;
    cuabi_deviceptr p = 0, q = 0;
    cuabi_stream s = NULL;
    cuabi_event e = NULL;
    void *pinned = NULL;

    (void)state;
    primary = ft_retain_current(0);
    f = function(&m, "fill_u32");
    CU_OK(cuMemAlloc_v2(&p, sizeof(host)));
    CU_OK(cuStreamCreate(&s, CUABI_STREAM_NON_BLOCKING));
    CU_OK(cuEventCreate(&e, 0));
    for (int i = 0; i < N; i++)
        host[i] = (uint32_t)i;
    CU_OK(cuMemcpyHtoD_v2(p, host, sizeof(host)));
    /* Far past the allocation: an illegal address when the kernel runs. */
    CU_OK(fill(f, NULL, p + (1u << 20), 5, N));
    memset(back, 0xee, sizeof(back));
    CU_IS(cuMemcpyDtoH_v2(back, p, sizeof(back)), CUABI_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(back[0], 0xeeeeeeeeu); /* not copied: no stale data passed off as the result */
    /* Every later call on the context returns it, however often. */
    CU_IS(cuCtxSynchronize(), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuCtxSynchronize(), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemcpyDtoH_v2(back, p, sizeof(back)), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemcpyHtoD_v2(p, host, sizeof(host)), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemsetD32_v2(p, 1, N), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemAlloc_v2(&q, 16), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemAllocHost_v2(&pinned, 16), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(fill(f, s, p, 1, N), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(fill(f, NULL, p, 1, N), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemcpyHtoDAsync_v2(p, host, sizeof(host), s), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuStreamSynchronize(s), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuStreamQuery(s), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuStreamSynchronize(NULL), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuEventRecord(e, s), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuEventSynchronize(e), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuEventQuery(e), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemFree_v2(p), CUABI_ERROR_ILLEGAL_ADDRESS);
    /* A context of its own on the same device is another context: it goes on. */
    CU_OK(cuCtxCreate_v2(&other, 0, 0));
    CU_OK(cuMemAlloc_v2(&q, sizeof(host)));
    CU_OK(cuMemcpyHtoD_v2(q, host, sizeof(host)));
    CU_OK(cuMemcpyDtoH_v2(back, q, sizeof(back)));
    assert_memory_equal(host, back, sizeof(host));
    CU_OK(cuCtxDestroy_v2(other));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, primary);
    /* Released to zero, the corrupted primary context is not made afresh: a retain returns the error (the H200's driver). */
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    cur = NULL;
    CU_IS(cuDevicePrimaryCtxRetain(&cur, 0), CUABI_ERROR_ILLEGAL_ADDRESS);
    assert_null(cur);
    (void)primary;
}

/* A created context that faults: destroying it ends the error; the primary context never had it. */
static void sticky_created(void **state)
{
    cuabi_context c = NULL;
    cuabi_module m = NULL;
    cuabi_function f;
    cuabi_deviceptr p = 0;
    uint32_t v = 0;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuCtxCreate_v2(&c, 0, 0));
    f = function(&m, "fill_u32");
    CU_OK(cuMemAlloc_v2(&p, 4));
    CU_OK(fill(f, NULL, p + 4096, 1, 1));
    CU_IS(cuCtxSynchronize(), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_IS(cuMemcpyDtoH_v2(&v, p, 4), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuCtxDestroy_v2(c));
    CU_OK(cuMemAlloc_v2(&p, 4));
    CU_OK(cuMemcpyDtoH_v2(&v, p, 4));
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* GPUSHIM_FAKE_STICKY=0: told once by the stream's synchronisation, then the context goes on. */
static void told_once(void **state)
{
    cuabi_module m = NULL;
    cuabi_function f;
    cuabi_deviceptr p = 0;
    uint32_t v = 0;

    (void)state;
    ft_retain_current(0);
    f = function(&m, "fill_u32");
    CU_OK(cuMemAlloc_v2(&p, 4));
    CU_OK(fill(f, NULL, p + 4096, 1, 1));
    CU_IS(cuStreamSynchronize(NULL), CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuStreamSynchronize(NULL));
    CU_OK(fill(f, NULL, p, 9, 1));
    CU_OK(cuMemcpyDtoH_v2(&v, p, 4));
    assert_int_equal(v, 9);
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* ---- free-queued ---- */

static void free_queued(void **state)
{
    unsigned long faults = gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT);
    cuabi_context ctx, cur = NULL;
    cuabi_module m = NULL;
    cuabi_function f;
    cuabi_deviceptr p = 0;
    cuabi_stream s = NULL;
    uint32_t *pinned = NULL, v = 0;

    (void)state;
    ctx = ft_retain_current(0);
    f = function(&m, "fill_u32");
    CU_OK(cuStreamCreate(&s, CUABI_STREAM_NON_BLOCKING));
    /* A kernel queued on the buffer, the buffer freed before any synchronisation: it ran on the live buffer. */
    CU_OK(cuMemAlloc_v2(&p, N * 4));
    CU_OK(fill(f, s, p, 3, N));
    assert_int_equal(gpu_fake_pending(), 1);
    CU_OK(cuMemFree_v2(p));
    assert_int_equal(gpu_fake_pending(), 0);
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuCtxSynchronize());
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT), faults);
    /* A copy into page-locked memory freed before it ran: the copy ran first. */
    CU_OK(cuMemAlloc_v2(&p, 4));
    CU_OK(cuMemAllocHost_v2((void **)&pinned, 4));
    CU_OK(fill(f, s, p, 42, 1));
    CU_OK(cuMemcpyDtoHAsync_v2(pinned, p, 4, s));
    CU_OK(cuMemFreeHost(pinned));
    assert_int_equal(gpu_fake_pending(), 0);
    CU_OK(cuStreamSynchronize(s));
    /* Registered memory unregistered while a copy into it is queued: the copy ran first. */
    {
        uint32_t *mine = malloc(4096);

        assert_non_null(mine);
        CU_OK(cuMemHostRegister_v2(mine, 4096, 0));
        CU_OK(fill(f, s, p, 43, 1));
        CU_OK(cuMemcpyDtoHAsync_v2(mine, p, 4, s));
        assert_int_equal(gpu_fake_pending(), 2);
        CU_OK(cuMemHostUnregister(mine));
        assert_int_equal(gpu_fake_pending(), 0);
        assert_int_equal(mine[0], 43);
        free(mine);
    }
    /* A module unloaded while its launch is queued: the launch ran first. */
    CU_OK(fill(f, s, p, 7, 1));
    CU_OK(cuModuleUnload(m));
    assert_int_equal(gpu_fake_pending(), 0);
    CU_OK(cuMemcpyDtoH_v2(&v, p, 4));
    assert_int_equal(v, 7);
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_EXEC_FAULT), faults);
    /* With no context current, a valid pointer is still freed (its context's); an unknown one is not. */
    CU_OK(cuCtxSetCurrent(NULL));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_null(cur);
    CU_OK(cuMemFree_v2(p));
    CU_IS(cuMemFree_v2(p), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    CU_OK(cuCtxSetCurrent(ctx));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* ---- pageable ---- */

/*
 * Asynchronous copies and host memory, as CUDA documents them: from pageable
 * memory the source is staged when the call returns; into pageable memory
 * the copy has completed when it returns; page-locked memory waits for the stream.
 */
static void pageable(void **state)
{
    cuabi_module m = NULL;
    cuabi_function f;
    cuabi_deviceptr p = 0;
    cuabi_stream s = NULL;
    uint32_t *src = malloc(N * 4), dst[N], *pinned = NULL, v = 0;
    cuabi_memcpy2d c2;

    (void)state;
    assert_non_null(src);
    ft_retain_current(0);
    f = function(&m, "fill_u32");
    CU_OK(cuStreamCreate(&s, CUABI_STREAM_NON_BLOCKING));
    CU_OK(cuMemAlloc_v2(&p, N * 4));
    /* Host to device, behind a kernel: the source may be reused, even freed, as soon as the call returns. */
    for (int i = 0; i < N; i++)
        src[i] = (uint32_t)(i * 5 + 1);
    CU_OK(fill(f, s, p, 0, N));
    CU_OK(cuMemcpyHtoDAsync_v2(p, src, N * 4, s));
    assert_int_equal(gpu_fake_pending(), 2);
    memset(src, 0xff, N * 4);
    free(src);
    /* Device to host, behind a kernel: done when the call returns, with no synchronisation. */
    CU_OK(fill(f, s, p + 8, 77, 1));
    memset(dst, 0, sizeof(dst));
    CU_OK(cuMemcpyDtoHAsync_v2(dst, p, sizeof(dst), s));
    assert_int_equal(gpu_fake_pending(), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(dst[i], i == 2 ? 77u : (uint32_t)(i * 5 + 1));
    /* The same for cuMemcpyAsync and a 2D copy into pageable memory. */
    CU_OK(fill(f, s, p, 9, 1));
    CU_OK(cuMemcpyAsync((cuabi_deviceptr)(uintptr_t)&v, p, 4, s));
    assert_int_equal(v, 9);
    memset(&c2, 0, sizeof(c2));
    c2.src_type = CUABI_MEMORYTYPE_DEVICE;
    c2.src_device = p;
    c2.src_pitch = 8;
    c2.dst_type = CUABI_MEMORYTYPE_HOST;
    c2.dst_host = dst;
    c2.dst_pitch = 4;
    c2.width = 4;
    c2.height = 2;
    CU_OK(fill(f, s, p + 8, 31, 1));
    CU_OK(cuMemcpy2DAsync_v2(&c2, s));
    assert_int_equal(dst[0], 9);
    assert_int_equal(dst[1], 31);
    /* Page-locked memory is the stream's: read and written when the stream reaches the copy. */
    CU_OK(cuMemAllocHost_v2((void **)&pinned, 4));
    *pinned = 1;
    CU_OK(cuMemcpyHtoDAsync_v2(p, pinned, 4, s));
    *pinned = 2;
    CU_OK(cuMemcpyDtoHAsync_v2(pinned, p + 8, 4, s));
    assert_int_equal(*pinned, 2);
    assert_int_equal(gpu_fake_pending(), 2);
    CU_OK(cuStreamSynchronize(s));
    assert_int_equal(*pinned, 31);
    CU_OK(cuMemcpyDtoH_v2(&v, p, 4));
    assert_int_equal(v, 2);
    CU_OK(cuMemFreeHost(pinned));
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* ---- progress ---- */

enum { POLLS_MAX = 1000000 }; /* a bound, so that work that never ends fails the test rather than hang it */

/* Polls the stream until it answers something other than NOT_READY; that answer. */
static cuabi_result poll_stream(cuabi_stream s)
{
    cuabi_result rc = CUABI_ERROR_NOT_READY;

    for (int i = 0; i < POLLS_MAX && rc == CUABI_ERROR_NOT_READY; i++)
        rc = cuStreamQuery(s);
    return rc;
}

/* A program that polls sees its work end, with no synchronisation; in lazy mode it stays pending. */
static void progress_poll(void **state)
{
    cuabi_module m = NULL;
    cuabi_function f;
    cuabi_deviceptr p = 0;
    cuabi_stream s = NULL;
    cuabi_event e = NULL;
    uint32_t *pinned = NULL;
    cuabi_result rc = CUABI_ERROR_NOT_READY;

    (void)state;
    ft_retain_current(0);
    f = function(&m, "fill_u32");
    CU_OK(cuStreamCreate(&s, CUABI_STREAM_NON_BLOCKING));
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuMemAlloc_v2(&p, 4));
    CU_OK(cuMemAllocHost_v2((void **)&pinned, 4));
    *pinned = 0;
    CU_OK(fill(f, s, p, 21, 1));
    CU_OK(cuMemcpyDtoHAsync_v2(pinned, p, 4, s));
    CU_OK(poll_stream(s));
    assert_int_equal(*pinned, 21);
    /* An event polled the same way. */
    CU_OK(fill(f, s, p, 22, 1));
    CU_OK(cuMemcpyDtoHAsync_v2(pinned, p, 4, s));
    CU_OK(cuEventRecord(e, s));
    for (int i = 0; i < POLLS_MAX && rc == CUABI_ERROR_NOT_READY; i++)
        rc = cuEventQuery(e);
    CU_OK(rc);
    assert_int_equal(*pinned, 22);
    /* Lazy: the work waits for something that needs it done. */
    gpu_fake_progress(false);
    CU_OK(fill(f, s, p, 23, 1));
    for (int i = 0; i < 1000; i++)
        CU_IS(cuStreamQuery(s), CUABI_ERROR_NOT_READY);
    assert_int_equal(gpu_fake_pending(), 1);
    gpu_fake_progress(true);
    CU_OK(poll_stream(s));
    CU_OK(cuMemFreeHost(pinned));
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuEventDestroy_v2(e));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

struct fired {
    atomic_int count;
    atomic_int refused; /* a CUDA call from the host function was refused, not deadlocked */
    pthread_t host;
    atomic_int other_thread;
};

static void host_fn(void *arg)
{
    struct fired *f = arg;

    atomic_store(&f->other_thread, !pthread_equal(pthread_self(), f->host));
    atomic_fetch_add(&f->refused, cuStreamQuery(NULL) == CUABI_ERROR_NOT_PERMITTED);
    atomic_fetch_add(&f->count, 1);
}

static void callback(cuabi_stream stream, cuabi_result status, void *arg)
{
    (void)stream;
    if (status == CUABI_SUCCESS)
        host_fn(arg);
}

/* Host functions fire while the host does something else: it never calls the driver until they have. */
static void progress_callbacks(void **state)
{
    static struct fired fired;
    cuabi_stream s = NULL;
    struct timespec ms = {0, 1000000L};

    (void)state;
    fired.host = pthread_self();
    ft_retain_current(0);
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuLaunchHostFunc(s, host_fn, &fired));
    CU_OK(cuStreamAddCallback(s, callback, &fired, 0));
    CU_OK(cuLaunchHostFunc(NULL, host_fn, &fired));
    /* At most a minute: a bound, not a measure. */
    for (int i = 0; i < 60000 && atomic_load(&fired.count) < 3; i++)
        nanosleep(&ms, NULL);
    assert_int_equal(atomic_load(&fired.count), 3);
    assert_int_equal(atomic_load(&fired.refused), 3);
    assert_true(atomic_load(&fired.other_thread));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
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

static void on_nothing(cuabi_stream stream, cuabi_result status, void *user_data)
{
    (void)stream;
    (void)status;
    ++*(int *)user_data;
}

/*
 * The calls of the cases copies and peer3d (test_copy.c), queries, callbacks and
 * attributes, modules (test_module.c), devices (test_device.c) and ranges
 * (test_managed.c) as one sequence of driver calls, stopping at the first
 * failure and cleaning up.
 */
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
        rc = cuModuleLoadData(&m, ft_two_kernels);
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
    gpu_fake_live_counts before;
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
        ft_live_same(&before, calls[i]);
    }
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 0);
}

/* assert(x < 2) in `void check(int)` of a.cu, line 12, as nvcc writes it: x is the thread's index, 2 a parameter. */
static const char assert_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".extern .func __assertfail(.param .b64 __assertfail_param_0, .param .b64 __assertfail_param_1,\n"
    "\t.param .b32 __assertfail_param_2, .param .b64 __assertfail_param_3, .param .b64 __assertfail_param_4);\n"
    ".global .align 1 .b8 $str[6] = {120, 32, 60, 32, 50, 0};\n"
    ".global .align 1 .b8 $str$1[5] = {97, 46, 99, 117, 0};\n"
    ".global .align 1 .b8 __unnamed_1[16] = {118, 111, 105, 100, 32, 99, 104, 101, 99, 107, 40, 105, 110, 116, 41, 0};\n"
    ".visible .entry check(.param .u32 limit)\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<3>;\n"
    "\t.reg .b64 %rd<7>;\n"
    "\tld.param.u32 %r1, [limit];\n"
    "\tmov.u32 %r2, %tid.x;\n"
    "\tsetp.lt.u32 %p1, %r2, %r1;\n"
    "\t@%p1 bra $L__BB0_2;\n"
    "\tmov.u64 %rd1, $str;\n"
    "\tcvta.global.u64 %rd2, %rd1;\n"
    "\tmov.u64 %rd3, $str$1;\n"
    "\tcvta.global.u64 %rd4, %rd3;\n"
    "\tmov.u64 %rd5, __unnamed_1;\n"
    "\tcvta.global.u64 %rd6, %rd5;\n"
    "\t{\n"
    "\t.param .b64 param0;\n"
    "\tst.param.b64 [param0+0], %rd2;\n"
    "\t.param .b64 param1;\n"
    "\tst.param.b64 [param1+0], %rd4;\n"
    "\t.param .b32 param2;\n"
    "\tst.param.b32 [param2+0], 12;\n"
    "\t.param .b64 param3;\n"
    "\tst.param.b64 [param3+0], %rd6;\n"
    "\t.param .b64 param4;\n"
    "\tst.param.b64 [param4+0], 1;\n"
    "\tcall.uni __assertfail, (param0, param1, param2, param3, param4);\n"
    "\t}\n"
    "$L__BB0_2:\n"
    "\tret;\n"
    "}\n";

static void device_assert(void **state)
{
    cuabi_module m = NULL;
    cuabi_deviceptr p = 0;
    uint32_t limit = 4;
    void *params[] = {&limit};
    ft_capture c;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuModuleLoadData(&m, assert_ptx));
    if (ft_launch_said(m, "check", 1, 4, params, &c) != CUABI_SUCCESS)
        fail_msg("%s", c.text);
    /* Threads 2 and 3 fail the assert: each prints its line, and the launch fails with a sticky error. */
    limit = 2;
    CU_IS(ft_launch_said(m, "check", 1, 4, params, &c), CUABI_ERROR_ASSERT);
    FT_ASSERT_SAID(&c, "a.cu:12: void check(int): block: [0,0,0], thread: [2,0,0] Assertion `x < 2` failed.");
    FT_ASSERT_SAID(&c, "a.cu:12: void check(int): block: [0,0,0], thread: [3,0,0] Assertion `x < 2` failed.");
    CU_IS(cuCtxSynchronize(), CUABI_ERROR_ASSERT);
    CU_IS(cuMemAlloc_v2(&p, 16), CUABI_ERROR_ASSERT);
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"sticky", cmocka_unit_test(sticky)},
        {"sticky-created", cmocka_unit_test(sticky_created)},
        {"told-once", cmocka_unit_test(told_once)},
        {"free-queued", cmocka_unit_test(free_queued)},
        {"pageable", cmocka_unit_test(pageable)},
        {"progress-poll", cmocka_unit_test(progress_poll)},
        {"progress-callbacks", cmocka_unit_test(progress_callbacks)},
        {"queries", cmocka_unit_test(queries)},
        {"callbacks", cmocka_unit_test(callbacks)},
        {"attributes", cmocka_unit_test(attributes)},
        {"sweep", cmocka_unit_test(sweep)},
        {"assert", cmocka_unit_test(device_assert)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
