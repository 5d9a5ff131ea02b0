/* SPDX-License-Identifier: MIT */
/*
 * The per-thread default stream, as a program built with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM calls it (the _ptsz and _ptds names),
 * and the handles CU_STREAM_LEGACY and CU_STREAM_PER_THREAD. One case per
 * process (argv[1]):
 *
 *   names      every variant exported; the ones whose base the fake
 *              implements are its own, counted and failed by their own names
 *   ordering   stream 0 of a variant is the thread's own stream: a blocking
 *              one (the legacy stream waits for it), which a _ptds copy waits
 *              for and another thread's does not, nor other blocking streams;
 *              captured; gone with its context without counting as a leak
 *   sweep      each call of a per-thread sequence failed in turn: nothing is
 *              left alive
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

/* The variants this test calls, as cuda.h declares them under CUDA_API_PER_THREAD_DEFAULT_STREAM. */
cuabi_result cuMemsetD32Async_ptsz(cuabi_deviceptr dst, unsigned int value, size_t count, cuabi_stream stream);
cuabi_result cuMemcpyHtoDAsync_v2_ptsz(cuabi_deviceptr dst, const void *src, size_t bytes, cuabi_stream stream);
cuabi_result cuMemcpyDtoH_v2_ptds(void *dst, cuabi_deviceptr src, size_t bytes);
cuabi_result cuStreamSynchronize_ptsz(cuabi_stream stream);
cuabi_result cuStreamQuery_ptsz(cuabi_stream stream);
cuabi_result cuLaunchKernel_ptsz(cuabi_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared, cuabi_stream stream, void **params, void **extra);
cuabi_result cuStreamBeginCapture_v2_ptsz(cuabi_stream stream, cuabi_stream_capture_mode mode);
cuabi_result cuStreamEndCapture_ptsz(cuabi_stream stream, cuabi_graph *graph);
cuabi_result cuStreamIsCapturing_ptsz(cuabi_stream stream, cuabi_stream_capture_status *status);

enum { N = 64 };

/* The first u32 of a buffer, read by a legacy-stream copy (which waits for every blocking stream) unless `ptds`. */
static uint32_t first_word(cuabi_deviceptr d, bool ptds)
{
    uint32_t v = 0xdeadbeefu;

    CU_OK(ptds ? cuMemcpyDtoH_v2_ptds(&v, d, sizeof(v)) : cuMemcpyDtoH_v2(&v, d, sizeof(v)));
    return v;
}

static void names(void **state)
{
    void *lib = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    cuabi_result (*fn)(void) = NULL;
    void *sym;
    cuabi_deviceptr d = 0;

    (void)state;
    assert_non_null(lib);
    assert_int_equal(gpu_fake_symbol_implemented("cuLaunchKernel_ptsz"), 1);
    assert_int_equal(gpu_fake_symbol_implemented("cuMemcpyDtoH_v2_ptds"), 1);
    assert_int_equal(gpu_fake_symbol_implemented("cuStreamSynchronize_ptsz"), 1);
    /* A variant of a function the fake does not implement is not its own either, and says so by its name. */
    assert_int_equal(gpu_fake_symbol_implemented("cuSignalExternalSemaphoresAsync_ptsz"), 0);
    assert_int_equal(gpu_fake_symbol_implemented("cuMemPrefetchAsync_v2_ptsz"), 0);
    ft_retain_current(0);
    sym = dlsym(lib, "cuSignalExternalSemaphoresAsync_ptsz");
    assert_non_null(sym);
    memcpy(&fn, &sym, sizeof(fn));
    assert_int_equal(fn(), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(gpu_fake_calls("cuSignalExternalSemaphoresAsync_ptsz"), 1);
    assert_int_equal(gpu_fake_calls("cuSignalExternalSemaphoresAsync"), 0);
    /* Counted, and failed, under the variant's name; the base's count does not move. */
    CU_OK(cuMemAlloc_v2(&d, N * 4));
    CU_OK(cuMemsetD32Async_ptsz(d, 1, N, NULL));
    assert_int_equal(gpu_fake_calls("cuMemsetD32Async_ptsz"), 1);
    assert_int_equal(gpu_fake_calls("cuMemsetD32Async"), 0);
    assert_int_equal(gpu_fake_fail("cuMemsetD32Async_ptsz", 1, CUABI_ERROR_LAUNCH_FAILED), 0);
    assert_int_equal(cuMemsetD32Async_ptsz(d, 1, N, NULL), CUABI_ERROR_LAUNCH_FAILED);
    CU_OK(cuMemsetD32Async(d, 1, N, NULL));
    /* cuGetProcAddress with the per-thread flag hands out the variant. */
    {
        void *pfn = NULL;
        cuabi_proc_address_query_result st = 0;

        CU_OK(cuGetProcAddress_v2("cuStreamSynchronize", &pfn, 12000,
                                  CUABI_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
        assert_ptr_equal(pfn, dlsym(lib, "cuStreamSynchronize_ptsz"));
    }
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_STREAMS), 0);
}

struct other {
    cuabi_context ctx;
    cuabi_deviceptr d;
    uint32_t seen;
};

/* Another thread: its own per-thread stream is empty, so its _ptds copy sees what the first thread has not run. */
static void *other_thread(void *arg)
{
    struct other *o = arg;

    if (cuCtxSetCurrent(o->ctx) == CUABI_SUCCESS)
        cuMemcpyDtoH_v2_ptds(&o->seen, o->d, sizeof(o->seen));
    return NULL;
}

static void per_thread_capture(void)
{
    cuabi_graph g = NULL;
    cuabi_stream_capture_status st = 9;
    cuabi_deviceptr d = 0;

    CU_OK(cuMemAlloc_v2(&d, N * 4));
    CU_OK(cuStreamBeginCapture_v2_ptsz(NULL, CUABI_STREAM_CAPTURE_MODE_RELAXED));
    CU_OK(cuStreamIsCapturing_ptsz(NULL, &st));
    assert_int_equal(st, CUABI_STREAM_CAPTURE_STATUS_ACTIVE);
    CU_OK(cuStreamIsCapturing(CUABI_STREAM_PER_THREAD, &st));
    assert_int_equal(st, CUABI_STREAM_CAPTURE_STATUS_ACTIVE);
    CU_OK(cuMemsetD32Async_ptsz(d, 4, N, NULL));
    /* A legacy-stream operation while the (blocking) per-thread stream captures. */
    assert_int_equal(cuMemsetD32Async(d, 4, N, NULL), CUABI_ERROR_STREAM_CAPTURE_IMPLICIT);
    assert_int_equal(cuStreamEndCapture_ptsz(NULL, &g), CUABI_ERROR_STREAM_CAPTURE_INVALIDATED);
    CU_OK(cuStreamBeginCapture_v2_ptsz(NULL, CUABI_STREAM_CAPTURE_MODE_RELAXED));
    CU_OK(cuMemsetD32Async_ptsz(d, 4, N, NULL));
    CU_OK(cuStreamEndCapture(CUABI_STREAM_PER_THREAD, &g));
    assert_non_null(g);
    CU_OK(cuGraphDestroy(g));
    CU_OK(cuMemFree_v2(d));
}

static void ordering(void **state)
{
    cuabi_context ctx = ft_retain_current(0);
    cuabi_module m = NULL;
    cuabi_function hold = NULL;
    cuabi_stream blocking = NULL;
    cuabi_deviceptr d = 0;
    unsigned long freed = gpu_fake_anomalies(GPU_FAKE_ANOMALY_RELEASE_FREED);
    struct other o;
    pthread_t t;

    (void)state;
    CU_OK(cuMemAlloc_v2(&d, N * 4));
    CU_OK(cuMemsetD32_v2(d, 0, N));
    /* Queued on this thread's stream, not yet run: a _ptds copy waits for it, the legacy stream too. */
    CU_OK(cuMemsetD32Async_ptsz(d, 5, N, NULL));
    assert_int_equal(first_word(d, true), 5);
    CU_OK(cuMemsetD32Async(d, 6, N, CUABI_STREAM_PER_THREAD));
    assert_int_equal(first_word(d, false), 6);
    /* Another thread's _ptds copy does not wait for this thread's stream. */
    CU_OK(cuMemsetD32Async_ptsz(d, 7, N, NULL));
    o.ctx = ctx;
    o.d = d;
    o.seen = 0xdeadbeefu;
    assert_int_equal(pthread_create(&t, NULL, other_thread, &o), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(o.seen, 6);
    CU_OK(cuStreamSynchronize_ptsz(NULL));
    assert_int_equal(first_word(d, true), 7);
    /* A _ptds copy does not wait for another blocking stream; a legacy one does. */
    CU_OK(cuStreamCreate(&blocking, 0));
    CU_OK(cuMemsetD32Async(d, 8, N, blocking));
    assert_int_equal(first_word(d, true), 7);
    assert_int_equal(first_word(d, false), 8);
    CU_OK(cuStreamDestroy_v2(blocking));
    /* A kernel held on the per-thread stream: it is busy, the legacy stream's own queue is not. */
    CU_OK(cuModuleLoadData(&m, ft_ptx));
    CU_OK(cuModuleGetFunction(&hold, m, "hold"));
    gpu_fake_gate(false);
    CU_OK(cuLaunchKernel_ptsz(hold, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    assert_int_equal(cuStreamQuery_ptsz(NULL), CUABI_ERROR_NOT_READY);
    assert_int_equal(cuStreamQuery(CUABI_STREAM_PER_THREAD), CUABI_ERROR_NOT_READY);
    CU_OK(cuStreamQuery(CUABI_STREAM_LEGACY));
    gpu_fake_gate(true);
    CU_OK(cuStreamSynchronize(CUABI_STREAM_PER_THREAD));
    CU_OK(cuStreamQuery_ptsz(NULL));
    /* The default streams' handles are no streams of the client's to destroy. */
    assert_int_equal(cuStreamDestroy_v2(CUABI_STREAM_PER_THREAD), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamDestroy_v2(CUABI_STREAM_LEGACY), CUABI_ERROR_INVALID_HANDLE);
    per_thread_capture();
    CU_OK(cuModuleUnload(m));
    CU_OK(cuMemFree_v2(d));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_STREAMS), 0);
    /* Released with its per-thread streams alive: they go with it, and are no leak. */
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    assert_int_equal(gpu_fake_anomalies(GPU_FAKE_ANOMALY_RELEASE_FREED), freed);
    assert_int_equal(cuStreamSynchronize_ptsz(NULL), CUABI_ERROR_INVALID_CONTEXT);
}

/* One per-thread sequence, stopping at the first failure and cleaning up. */
static cuabi_result sequence(void)
{
    static uint32_t host[N];
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    cuabi_deviceptr d = 0;
    uint32_t n = N;
    void *args[] = {&d, &n};
    cuabi_result rc = cuModuleLoadData(&m, ft_ptx);

    if (rc == CUABI_SUCCESS)
        rc = cuModuleGetFunction(&f, m, "add_one");
    if (rc == CUABI_SUCCESS)
        rc = cuMemAlloc_v2(&d, sizeof(host));
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpyHtoDAsync_v2_ptsz(d, host, sizeof(host), NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuLaunchKernel_ptsz(f, 1, 1, 1, N, 1, 1, 0, NULL, args, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamSynchronize_ptsz(NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpyDtoH_v2_ptds(host, d, sizeof(host));
    /* What was queued before a failure runs before its memory goes (a failed synchronisation ran nothing). */
    if (rc != CUABI_SUCCESS)
        cuStreamSynchronize_ptsz(NULL);
    if (d && cuMemFree_v2(d) != CUABI_SUCCESS)
        cuMemFree_v2(d);
    if (m && cuModuleUnload(m) != CUABI_SUCCESS)
        cuModuleUnload(m);
    return rc;
}

static void sweep(void **state)
{
    static const char *const calls[] = {"cuMemcpyHtoDAsync_v2_ptsz", "cuLaunchKernel_ptsz", "cuStreamSynchronize_ptsz",
                                        "cuMemcpyDtoH_v2_ptds"};

    (void)state;
    ft_retain_current(0);
    ft_driver_sweep(sequence, calls, sizeof(calls) / sizeof(calls[0]), CUABI_ERROR_UNKNOWN);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"names", cmocka_unit_test(names)},
        {"ordering", cmocka_unit_test(ordering)},
        {"sweep", cmocka_unit_test(sweep)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
