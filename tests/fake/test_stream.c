/* SPDX-License-Identifier: MIT */
/*
 * The ordering and error semantics of the fake's queued work, as a CUDA
 * program sees them through the driver API. One case per process (argv[1]).
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
    /* Destroying the corrupted context ends it: the primary one released to zero, then retained afresh. */
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    primary = ft_retain_current(0);
    CU_OK(cuMemAlloc_v2(&p, sizeof(host)));
    CU_OK(cuMemcpyHtoD_v2(p, host, sizeof(host)));
    CU_OK(cuMemcpyDtoH_v2(back, p, sizeof(back)));
    assert_memory_equal(host, back, sizeof(host));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
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
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
