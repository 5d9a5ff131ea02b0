/* SPDX-License-Identifier: MIT */
/*
 * cuGetProcAddress by version (src/sys/driver/cuda_proc_versions.h), the legacy
 * pre-_v2 forms it hands out at old versions, and CUDA 13's _v2 forms, called
 * on the fake as a CUDA program calls them. Run with two devices, and once
 * more with device memory that 32 bits can express (GPUSHIM_FAKE_DEVICE_MEMORY).
 * With the argument no-callback: cuInit's answer when GPUSHIM_FAKE_INIT_CALLBACK
 * names no function.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_proc_rows.h"
#include "fake_test.h"

static void *lib;

/* Every row of the table, as the fake's answer must follow it. */
static const struct gpu__cuda_proc *const rows = gpu__cuda_procs;

/*
 * Asks both forms of cuGetProcAddress for `base` at `version`: the answer is
 * `symbol` as this library exports it, "not found" where it does not, or
 * "version not sufficient" for a NULL `symbol`.
 */
static void expect(const char *base, int version, bool per_thread, const char *symbol)
{
    cuabi_uint64 flags = per_thread ? CUABI_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;
    cuabi_proc_address_query_result st = 99;
    void *fn = (void *)&st, *plain = (void *)&st;
    void *want = symbol ? dlsym(lib, symbol) : NULL;

    CU_OK(cuGetProcAddress_v2(base, &fn, version, flags, &st));
    /* The plain form, as the driver: CUDA_ERROR_NOT_FOUND wherever it hands out no pointer. */
    assert_int_equal(cuGetProcAddress(base, &plain, version, flags), want ? CUABI_SUCCESS : CUABI_ERROR_NOT_FOUND);
    if (fn != want || plain != want)
        fail_msg("%s at %d%s: %p (plain form %p), want %s %p", base, version, per_thread ? " per-thread" : "", fn,
                 plain, symbol ? symbol : "none", want);
    assert_int_equal(st, !symbol ? CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                         : want  ? CUABI_GET_PROC_ADDRESS_SUCCESS
                                 : CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
}

/* Examples of the rule, each checked against the exported symbol; the fake exports every one named here. */
static void versions_examples(void **state)
{
    static const struct {
        const char *base;
        int version;
        bool per_thread;
        const char *symbol;
    } cases[] = {
        {"cuCtxCreate", 1000, false, NULL},
        {"cuCtxCreate", 2000, false, "cuCtxCreate"},
        {"cuCtxCreate", 3010, false, "cuCtxCreate"},
        {"cuCtxCreate", 3020, false, "cuCtxCreate_v2"},
        {"cuCtxCreate", 11030, false, "cuCtxCreate_v2"},
        {"cuCtxCreate", 11040, false, "cuCtxCreate_v3"},
        {"cuCtxCreate", 12040, false, "cuCtxCreate_v3"},
        {"cuCtxCreate", 12050, false, "cuCtxCreate_v4"},
        {"cuCtxCreate", 13000, true, "cuCtxCreate_v4"},
        {"cuCtxGetDevice", 12090, false, "cuCtxGetDevice"},
        {"cuCtxGetDevice", 13000, false, "cuCtxGetDevice_v2"},
        {"cuCtxSynchronize", 12000, false, "cuCtxSynchronize"},
        {"cuCtxSynchronize", 13000, false, "cuCtxSynchronize_v2"},
        {"cuEventElapsedTime", 12070, false, "cuEventElapsedTime"},
        {"cuEventElapsedTime", 12080, false, "cuEventElapsedTime_v2"},
        {"cuDevicePrimaryCtxRelease", 6050, false, NULL},
        {"cuDevicePrimaryCtxRelease", 7000, false, "cuDevicePrimaryCtxRelease"},
        {"cuDevicePrimaryCtxRelease", 10020, false, "cuDevicePrimaryCtxRelease"},
        {"cuDevicePrimaryCtxRelease", 11000, false, "cuDevicePrimaryCtxRelease_v2"},
        {"cuDevicePrimaryCtxReset", 7000, false, "cuDevicePrimaryCtxReset"},
        {"cuDevicePrimaryCtxReset", 11000, false, "cuDevicePrimaryCtxReset_v2"},
        {"cuDevicePrimaryCtxSetFlags", 10000, false, "cuDevicePrimaryCtxSetFlags"},
        {"cuDevicePrimaryCtxSetFlags", 13000, false, "cuDevicePrimaryCtxSetFlags_v2"},
        {"cuMemAlloc", 2000, false, "cuMemAlloc"},
        {"cuMemAlloc", 3020, false, "cuMemAlloc_v2"},
        {"cuMemAlloc", 7000, true, "cuMemAlloc_v2"},
        {"cuMemcpyHtoD", 2000, true, "cuMemcpyHtoD"},
        {"cuMemcpyHtoD", 6050, true, "cuMemcpyHtoD_v2"},
        {"cuMemcpyHtoD", 7000, false, "cuMemcpyHtoD_v2"},
        {"cuMemcpyHtoD", 7000, true, "cuMemcpyHtoD_v2_ptds"},
        {"cuMemcpyHtoDAsync", 12000, true, "cuMemcpyHtoDAsync_v2_ptsz"},
        {"cuStreamBeginCapture", 9020, false, NULL},
        {"cuStreamBeginCapture", 10000, false, "cuStreamBeginCapture"},
        {"cuStreamBeginCapture", 10000, true, "cuStreamBeginCapture_ptsz"},
        {"cuStreamBeginCapture", 10010, false, "cuStreamBeginCapture_v2"},
        {"cuStreamBeginCapture", 10010, true, "cuStreamBeginCapture_v2_ptsz"},
        {"cuStreamGetCaptureInfo", 10010, false, "cuStreamGetCaptureInfo"},
        {"cuStreamGetCaptureInfo", 11030, false, "cuStreamGetCaptureInfo_v2"},
        {"cuStreamGetCaptureInfo", 12030, false, "cuStreamGetCaptureInfo_v3"},
        {"cuStreamGetCaptureInfo", 12030, true, "cuStreamGetCaptureInfo_v3_ptsz"},
        {"cuLaunchKernel", 3020, false, NULL},
        {"cuLaunchKernel", 4000, true, "cuLaunchKernel"},
        {"cuLaunchKernel", 7000, true, "cuLaunchKernel_ptsz"},
        {"cuStreamQuery", 7000, true, "cuStreamQuery_ptsz"},
        {"cuStreamQuery", 13000, false, "cuStreamQuery"},
        {"cuGetProcAddress", 11020, false, NULL},
        {"cuGetProcAddress", 11030, false, "cuGetProcAddress"},
        {"cuGetProcAddress", 12000, false, "cuGetProcAddress_v2"},
        {"cuTexRefSetAddress2D", 2020, false, "cuTexRefSetAddress2D"},
        {"cuTexRefSetAddress2D", 3020, false, "cuTexRefSetAddress2D_v2"},
        {"cuTexRefSetAddress2D", 4010, false, "cuTexRefSetAddress2D_v3"},
        {"cuGraphInstantiate", 10000, false, "cuGraphInstantiate"},
        {"cuGraphInstantiate", 11000, false, "cuGraphInstantiate_v2"},
        {"cuGraphInstantiateWithFlags", 11030, false, NULL},
        {"cuGraphInstantiateWithFlags", 11040, false, "cuGraphInstantiateWithFlags"},
        {"cuMemAdvise", 12010, false, "cuMemAdvise"},
        {"cuMemAdvise", 12020, false, "cuMemAdvise_v2"},
        {"cuLinkCreate", 6000, false, "cuLinkCreate"},
        {"cuLinkCreate", 6050, false, "cuLinkCreate_v2"},
    };
    cuabi_proc_address_query_result st = 99;
    void *fn = &st;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cases[i].symbol && !dlsym(lib, cases[i].symbol))
            fail_msg("the fake does not export %s", cases[i].symbol);
        expect(cases[i].base, cases[i].version, cases[i].per_thread, cases[i].symbol);
    }
    /* Base names only; the status is the reason; the plain form leaves a NULL pointer and CUDA_ERROR_NOT_FOUND. */
    CU_OK(cuGetProcAddress_v2("cuCtxCreate_v2", &fn, 13000, 0, &st));
    assert_null(fn);
    assert_int_equal(st, CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    fn = &st;
    assert_int_equal(cuGetProcAddress("cuNoSuchFunction", &fn, 13000, 0), CUABI_ERROR_NOT_FOUND);
    assert_null(fn);
    assert_int_equal(cuGetProcAddress("cuMemAlloc", &fn, gpu_fake_driver_version() + 10, 0),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuGetProcAddress(NULL, &fn, 13000, 0), CUABI_ERROR_INVALID_VALUE);
    /* The plain form is counted under its own name ("cuGetProcAddress" means gpushim's _v2 to the control API). */
    {
        long v2 = gpu_fake_calls("cuGetProcAddress_v2");
        unsigned long total = gpu_fake_calls_total();

        CU_OK(cuGetProcAddress("cuMemAlloc", &fn, 13000, 0));
        assert_int_equal(gpu_fake_calls("cuGetProcAddress_v2"), v2);
        assert_int_equal(gpu_fake_calls_total(), total + 1);
    }
}

/* Every row at its own version, and the newest of each base at the driver's version. */
static void versions_whole_table(void **state)
{
    size_t n = GPU__CUDA_PROC_COUNT;

    (void)state;
    assert_true(n > 600);
    for (size_t i = 0; i < n; i++) {
        expect(rows[i].base, rows[i].version, rows[i].per_thread, rows[i].symbol);
        /* Below the first version of a function the fake has (it lacks the graphics interop). */
        if ((i == 0 || strcmp(rows[i - 1].base, rows[i].base) != 0) && dlsym(lib, rows[i].symbol))
            expect(rows[i].base, rows[i].version - 1, false, NULL);
        if (i + 1 == n || strcmp(rows[i + 1].base, rows[i].base) != 0) {
            /* The last default row of a base precedes its per-thread rows. */
            size_t d = i;

            while (rows[d].per_thread)
                d--;
            expect(rows[i].base, 13000, false, rows[d].symbol);
        }
    }
}

/* The default version is CUDA 13.0's: CUDA 13's runtime wants at least that. */
static void default_version(void **state)
{
    int v = 0;

    (void)state;
    CU_OK(cuDriverGetVersion(&v));
    assert_int_equal(v, 13000);
}

/*
 * Every legacy form the fake does not serve answers CUDA_ERROR_NOT_SUPPORTED
 * (the graphics interop CUDA_ERROR_INVALID_GRAPHICS_CONTEXT), says so on
 * stderr, and never aborts: called with no arguments, which a
 * function that reads none tolerates.
 */
static void legacy_unserved_answer(void **state)
{
    size_t n = GPU__CUDA_PROC_COUNT, tried = 0;

    (void)state;
    for (size_t i = 0; i + 1 < n; i++) {
        void *sym;
        cuabi_result (*fn)(void);
        cuabi_result rc;

        /* A legacy form: a default row with a newer default row after it. */
        if (rows[i].per_thread || rows[i + 1].per_thread || strcmp(rows[i].base, rows[i + 1].base) != 0)
            continue;
        if (gpu_fake_symbol_implemented(rows[i].symbol) != 0 || !(sym = dlsym(lib, rows[i].symbol)))
            continue;
        memcpy(&fn, &sym, sizeof(fn));
        rc = fn();
        /* The graphics interop's answer is that there is no graphics context to share with. */
        if (rc != CUABI_ERROR_NOT_SUPPORTED && rc != CUABI_ERROR_INVALID_GRAPHICS_CONTEXT)
            fail_msg("%s: %d", rows[i].symbol, rc);
        tried++;
    }
    assert_true(tried > 10);
}

/*
 * The legacy forms the fake serves: none aborts, each counted under its own
 * name, never its successor's (the control API's base names, "cuMemAlloc",
 * mean gpushim's _v2 entries, so those are counted here by their _v2 names).
 */
static void legacy_served(void **state)
{
    cuabi_context ctx = NULL, popped = NULL, primary = NULL;
    cuabi_stream s = NULL;
    cuabi_event e = NULL;
    cuabi_graph g = NULL;
    unsigned int p32 = 7, total32 = 0, free32 = 0;
    size_t total = 0, free_now = 0;
    static char host[4096];
    char out[16] = {0};
    void *release = NULL;
    cuabi_result (*release_fn)(cuabi_device);

    (void)state;
    CU_OK(cuCtxCreate(&ctx, 0, 1));
    assert_int_equal(gpu_fake_calls("cuCtxCreate"), 1);
    assert_int_equal(gpu_fake_calls("cuCtxCreate_v2"), 0);
    CU_OK(cuCtxPopCurrent(&popped));
    assert_ptr_equal(popped, ctx);
    CU_OK(cuCtxPushCurrent(ctx));
    assert_int_equal(gpu_fake_calls("cuCtxPushCurrent_v2"), 0);
    assert_int_equal(gpu_fake_calls("cuCtxPopCurrent_v2"), 0);
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuStreamBeginCapture(s));
    CU_OK(cuStreamEndCapture(s, &g));
    CU_OK(cuGraphDestroy(g));
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuEventDestroy(e));
    assert_int_equal(gpu_fake_calls("cuStreamDestroy_v2"), 0);
    assert_int_equal(gpu_fake_calls("cuStreamBeginCapture_v2"), 0);
    assert_int_equal(gpu_fake_calls("cuEventDestroy_v2"), 0);
    assert_int_equal(cuEventDestroy(e), CUABI_ERROR_INVALID_HANDLE);

    /* 32-bit device addresses: no fake allocation has one. */
    assert_int_equal(cuMemAlloc(&p32, 256), CUABI_ERROR_OUT_OF_MEMORY);
    assert_int_equal(p32, 7);
    assert_int_equal(cuMemAlloc(NULL, 256), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemAlloc(&p32, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_calls("cuMemAlloc_v2"), 0);
    assert_int_not_equal(cuMemFree(0x1000), CUABI_SUCCESS);
    assert_int_not_equal(cuMemcpyHtoD(0x1000, host, 16), CUABI_SUCCESS);
    assert_int_not_equal(cuMemcpyDtoH(out, 0x1000, 16), CUABI_SUCCESS);
    assert_int_not_equal(cuMemcpyDtoD(0x1000, 0x2000, 16), CUABI_SUCCESS);
    assert_int_not_equal(cuMemcpyHtoDAsync(0x1000, host, 16, NULL), CUABI_SUCCESS);
    assert_int_not_equal(cuMemcpyDtoHAsync(out, 0x1000, 16, NULL), CUABI_SUCCESS);
    assert_int_not_equal(cuMemcpyDtoDAsync(0x1000, 0x2000, 16, NULL), CUABI_SUCCESS);
    assert_int_not_equal(cuMemsetD8(0x1000, 1, 16), CUABI_SUCCESS);
    assert_int_not_equal(cuMemsetD16(0x1000, 1, 8), CUABI_SUCCESS);
    assert_int_not_equal(cuMemsetD32(0x1000, 1, 4), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_calls("cuMemcpyHtoD_v2"), 0);
    assert_int_equal(gpu_fake_calls("cuMemsetD32_v2"), 0);
    assert_int_equal(gpu_fake_calls("cuMemFree_v2"), 0);
    assert_int_equal(out[0], 0);

    /* Sizes coming out: the value where 32 bits hold it, refused where they do not. */
    CU_OK(cuDeviceTotalMem_v2(&total, 0));
    CU_OK(cuMemGetInfo_v2(&free_now, &total));
    if (total <= UINT32_MAX) {
        CU_OK(cuDeviceTotalMem(&total32, 0));
        assert_int_equal(total32, total);
        CU_OK(cuMemGetInfo(&free32, &total32));
        assert_int_equal(total32, total);
    } else {
        assert_int_equal(cuDeviceTotalMem(&total32, 0), CUABI_ERROR_INVALID_VALUE);
        assert_int_equal(cuMemGetInfo(&free32, &total32), CUABI_ERROR_INVALID_VALUE);
    }
    assert_int_equal(cuDeviceTotalMem(NULL, 0), CUABI_ERROR_INVALID_VALUE);

    CU_OK(cuMemHostRegister(host, sizeof(host), 0));
    CU_OK(cuMemHostUnregister(host));
    CU_OK(cuCtxDestroy(ctx));
    assert_int_equal(gpu_fake_calls("cuCtxDestroy"), 1);
    assert_int_equal(gpu_fake_calls("cuCtxDestroy_v2"), 0);

    /* CUDA's runtime at exit: the release it asked for at 7000, after a retain. */
    CU_OK(cuGetProcAddress_v2("cuDevicePrimaryCtxRelease", &release, 7000, 0, NULL));
    assert_ptr_equal(release, dlsym(lib, "cuDevicePrimaryCtxRelease"));
    memcpy(&release_fn, &release, sizeof(release));
    CU_OK(cuDevicePrimaryCtxRetain(&primary, 0));
    CU_OK(release_fn(0));
    assert_int_equal(gpu_fake_primary_retains(0), 0);
    assert_int_equal(release_fn(0), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(gpu_fake_calls("cuDevicePrimaryCtxRelease_v2"), 0);
    /* A fault rule on the legacy name fails the legacy form, not its successor. */
    assert_int_equal(gpu_fake_fail("cuCtxCreate", 1, CUABI_ERROR_UNKNOWN), 0);
    assert_int_equal(cuCtxCreate(&ctx, 0, 0), CUABI_ERROR_UNKNOWN);
    CU_OK(cuCtxCreate_v2(&ctx, 0, 0));
    CU_OK(cuCtxDestroy_v2(ctx));
    gpu_fake_fail_reset();
}

/* The legacy forms of the linker, memory operations, capture, graphs and host memory. */
static void legacy_served_more(void **state)
{
    cuabi_context c = NULL;
    cuabi_stream s = NULL;
    cuabi_deviceptr d = 0, mapped = 0;
    cuabi_link_state link = NULL;
    cuabi_stream_capture_status status = 9;
    cuabi_uint64 id = 0, values[2] = {0, 0};
    cuabi_graph g = NULL;
    cuabi_graph_exec exec = NULL, exec2 = NULL;
    cuabi_graph_node blamed = (cuabi_graph_node)(void *)&blamed;
    cuabi_graph_exec_update_result result = 99;
    cuabi_graph_exec_update_result_info info = {0};
    cuabi_ipc_mem_handle handle;
    char log[16] = "x";
    void *host = NULL;
    unsigned int p32 = 0, size32 = 0;
    cuabi_result rc;

    (void)state;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    CU_OK(cuLinkCreate(0, NULL, NULL, &link));
    CU_OK(cuLinkDestroy(link));
    assert_int_equal(gpu_fake_calls("cuLinkCreate"), 1);
    assert_int_equal(gpu_fake_calls("cuLinkCreate_v2"), 0);

    CU_OK(cuMemAlloc_v2(&d, sizeof(values)));
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuStreamWriteValue32(s, d, 7, 0));
    CU_OK(cuStreamWriteValue64(s, d + 8, 9, 0));
    CU_OK(cuStreamWaitValue32(s, d, 7, 0));
    CU_OK(cuStreamWaitValue64(s, d + 8, 9, 0));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuMemcpyDtoH_v2(values, d, sizeof(values)));
    assert_int_equal(values[0] & 0xffffffffu, 7);
    assert_int_equal(values[1], 9);
    assert_int_equal(gpu_fake_calls("cuStreamWriteValue32_v2"), 0);

    CU_OK(cuStreamBeginCapture_v2(s, CUABI_STREAM_CAPTURE_MODE_RELAXED));
    CU_OK(cuMemsetD32Async(d, 1, 2, s));
    CU_OK(cuStreamGetCaptureInfo(s, &status, &id));
    assert_int_equal(status, CUABI_STREAM_CAPTURE_STATUS_ACTIVE);
    assert_true(id != 0);
    CU_OK(cuStreamEndCapture(s, &g));
    CU_OK(cuGraphInstantiate(&exec, g, &blamed, log, sizeof(log)));
    assert_null(blamed);
    assert_string_equal(log, "");
    CU_OK(cuGraphInstantiate_v2(&exec2, g, NULL, NULL, 0));
    rc = cuGraphExecUpdate_v2(exec2, g, &info);
    assert_int_equal(cuGraphExecUpdate(exec, g, &blamed, &result), rc);
    assert_int_equal(result, info.result);
    assert_int_equal(gpu_fake_calls("cuGraphInstantiate"), 1);
    assert_int_equal(gpu_fake_calls("cuGraphInstantiate_v2"), 1);
    CU_OK(cuGraphExecDestroy(exec));
    CU_OK(cuGraphExecDestroy(exec2));
    CU_OK(cuGraphDestroy(g));
    CU_OK(cuStreamDestroy_v2(s));

    /* Host memory: allocated with a 32-bit size; its device address is the host's, above 4 GiB or not. */
    CU_OK(cuMemAllocHost(&host, 4096));
    CU_OK(cuMemHostGetDevicePointer_v2(&mapped, host, 0));
    rc = cuMemHostGetDevicePointer(&p32, host, 0);
    assert_int_equal(rc, mapped > UINT32_MAX ? CUABI_ERROR_INVALID_VALUE : CUABI_SUCCESS);
    CU_OK(cuMemFreeHost(host));
    assert_int_not_equal(cuMemGetAddressRange(&p32, &size32, 0x1000), CUABI_SUCCESS);
    memset(&handle, 0, sizeof(handle));
    assert_int_not_equal(cuIpcOpenMemHandle(&mapped, handle, 1), CUABI_SUCCESS);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    ft_no_context();
}

/* CUDA 13's forms that name their context: NULL is the current one. */
static void context_v2(void **state)
{
    cuabi_context c0 = NULL, c1 = NULL;
    cuabi_device dev = -1;
    float ms = -1;
    cuabi_event a = NULL, b = NULL;

    (void)state;
    ft_no_context();
    assert_int_equal(cuCtxGetDevice_v2(&dev, NULL), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxSynchronize_v2(NULL), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuDevicePrimaryCtxRetain(&c0, 0));
    CU_OK(cuDevicePrimaryCtxRetain(&c1, 1));
    CU_OK(cuCtxSetCurrent(c0));
    CU_OK(cuCtxGetDevice_v2(&dev, NULL));
    assert_int_equal(dev, 0);
    CU_OK(cuCtxGetDevice_v2(&dev, c1));
    assert_int_equal(dev, 1);
    assert_int_equal(cuCtxGetDevice_v2(NULL, c1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxGetDevice_v2(&dev, (cuabi_context)(void *)&dev), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuCtxSynchronize_v2(NULL));
    CU_OK(cuCtxSynchronize_v2(c1));
    assert_int_equal(cuCtxSynchronize_v2((cuabi_context)(void *)&dev), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(gpu_fake_calls("cuCtxSynchronize_v2"), 4);
    assert_int_equal(gpu_fake_calls("cuCtxSynchronize"), 0);

    CU_OK(cuEventCreate(&a, 0));
    CU_OK(cuEventCreate(&b, 0));
    assert_int_equal(cuEventElapsedTime_v2(&ms, a, b), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuEventRecord(a, NULL));
    CU_OK(cuEventRecord(b, NULL));
    CU_OK(cuEventSynchronize(b));
    CU_OK(cuEventElapsedTime_v2(&ms, a, b));
    assert_true(ms >= 0);
    assert_int_equal(cuEventElapsedTime_v2(NULL, a, b), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_calls("cuEventElapsedTime_v2"), 3);
    CU_OK(cuEventDestroy_v2(a));
    CU_OK(cuEventDestroy_v2(b));
    CU_OK(cuDevicePrimaryCtxRelease_v2(1));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    ft_no_context();
}

/* The primary context's reset and flags, in both forms. */
static void primary_v2(void **state)
{
    cuabi_context c = NULL;
    cuabi_deviceptr d = 0;
    unsigned flags = 99;
    int active = -1;

    (void)state;
    ft_no_context();
    /* Inactive: both forms set the flags it will be made with; a reset has nothing to do. */
    CU_OK(cuDevicePrimaryCtxSetFlags(0, 4));
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(flags, 4);
    assert_int_equal(active, 0);
    CU_OK(cuDevicePrimaryCtxReset(0));
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    /* Active: CUDA 7.0's form refuses, 11.0's sets them. */
    assert_int_equal(cuDevicePrimaryCtxSetFlags(0, 1), CUABI_ERROR_PRIMARY_CONTEXT_ACTIVE);
    CU_OK(cuDevicePrimaryCtxSetFlags_v2(0, 1));
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(flags, 1);
    assert_int_equal(active, 1);
    assert_int_equal(cuDevicePrimaryCtxSetFlags_v2(0, 3), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDevicePrimaryCtxSetFlags_v2(0, 0x10000), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuDevicePrimaryCtxSetFlags_v2(9, 0), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuDevicePrimaryCtxReset_v2(9), CUABI_ERROR_INVALID_DEVICE);
    /* A reset frees what the context holds and keeps it retained. */
    CU_OK(cuMemAlloc_v2(&d, 256));
    CU_OK(cuDevicePrimaryCtxReset_v2(0));
    assert_int_equal(gpu_fake_primary_retains(0), 1);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    assert_int_equal(cuMemFree_v2(d), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemAlloc_v2(&d, 256));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxSetFlags_v2(0, 0));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    ft_no_context();
}

/* CUDA 12's _v2 and _v3 forms that cuda.h names: a CUmemLocation for managed memory, a capture's edge data. */
static void revisions_v2(void **state)
{
    const cuabi_mem_location dev1 = {CUABI_MEM_LOCATION_TYPE_DEVICE, 1}, host = {CUABI_MEM_LOCATION_TYPE_HOST, 0};
    const cuabi_mem_location numa = {CUABI_MEM_LOCATION_TYPE_HOST + 1, 0};
    const cuabi_graph_edge_data *edges = (const cuabi_graph_edge_data *)&edges;
    const cuabi_graph_node *deps = NULL;
    cuabi_stream_capture_status status = 9;
    cuabi_context c = NULL;
    cuabi_stream s = NULL;
    cuabi_deviceptr p = 0;
    cuabi_graph g = NULL;
    size_t ndeps = 9;
    int where = 9;

    (void)state;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    CU_OK(cuMemAllocManaged(&p, 4096, CUABI_MEM_ATTACH_GLOBAL));
    CU_OK(cuMemAdvise_v2(p, 4096, CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION, dev1));
    CU_OK(cuMemRangeGetAttribute(&where, sizeof(where), CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 4096));
    assert_int_equal(where, 1);
    CU_OK(cuMemAdvise_v2(p, 4096, CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
    CU_OK(cuMemRangeGetAttribute(&where, sizeof(where), CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 4096));
    assert_int_equal(where, CUABI_DEVICE_CPU);
    assert_int_equal(cuMemAdvise_v2(p, 4096, CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION, numa),
                     CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemPrefetchAsync_v2(p, 4096, dev1, 0, NULL));
    CU_OK(cuCtxSynchronize_v2(NULL));
    CU_OK(cuMemRangeGetAttribute(&where, sizeof(where), CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 4096));
    assert_int_equal(where, 1);
    assert_int_equal(cuMemPrefetchAsync_v2(p, 4096, dev1, 1, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_calls("cuMemAdvise_v2"), 3);
    assert_int_equal(gpu_fake_calls("cuMemPrefetchAsync_v2"), 2);
    CU_OK(cuMemFree_v2(p));

    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuStreamGetCaptureInfo_v3(s, &status, NULL, NULL, NULL, NULL, NULL));
    assert_int_equal(status, CUABI_STREAM_CAPTURE_STATUS_NONE);
    CU_OK(cuStreamBeginCapture_v2(s, CUABI_STREAM_CAPTURE_MODE_RELAXED));
    CU_OK(cuStreamGetCaptureInfo_v3(s, &status, NULL, &g, &deps, &edges, &ndeps));
    assert_int_equal(status, CUABI_STREAM_CAPTURE_STATUS_ACTIVE);
    assert_non_null(g);
    assert_null(edges);
    assert_int_equal(ndeps, 0);
    assert_int_equal(cuStreamGetCaptureInfo_v3(s, NULL, NULL, NULL, NULL, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuStreamEndCapture(s, &g));
    CU_OK(cuGraphDestroy(g));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    ft_no_context();
}

static int setup(void **state)
{
    (void)state;
    lib = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW);
    if (!lib || cuInit(0) != CUABI_SUCCESS)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_version),   cmocka_unit_test(versions_examples), cmocka_unit_test(versions_whole_table),
        cmocka_unit_test(legacy_unserved_answer), cmocka_unit_test(legacy_served),
        cmocka_unit_test(legacy_served_more), cmocka_unit_test(context_v2),
        cmocka_unit_test(primary_v2),        cmocka_unit_test(revisions_v2),
    };

    /* GPUSHIM_FAKE_INIT_CALLBACK naming no function: cuInit's error, not the end of the process. */
    if (argc == 2 && strcmp(argv[1], "no-callback") == 0)
        return cuInit(0) == CUABI_ERROR_NOT_FOUND && cuInit(0) == CUABI_ERROR_NOT_FOUND ? 0 : 1;
    return cmocka_run_group_tests_name("proc-versions", tests, setup, NULL);
}
