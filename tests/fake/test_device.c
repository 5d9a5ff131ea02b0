/* SPDX-License-Identifier: MIT */
/*
 * Devices (fake/core/fake_device.c). The group, against several devices
 * (GPUSHIM_FAKE_DEVICES = 1, 2 or 4): device descriptions,
 * contexts per device, peer queries and peer access, copies between devices,
 * a stream of one device waiting on an event of another, and the calls that
 * mix objects of two devices, which gpushim refuses before the driver sees
 * them. With one device the same program checks that device 1 is no device.
 *
 * Apart from the group, one case per process (argv[1]):
 *
 *   devices    cuDeviceGetByPCIBusId in each form, cuDeviceGetP2PAttribute,
 *              cuDeviceGetTexture1DLinearMaxWidth, cuDeviceGetMemPool,
 *              cuCtxResetPersistingL2Cache, cuThreadExchangeStreamCaptureMode;
 *              their errors
 *   host-memory two devices by default on this host: together they report no
 *               more than half the host's memory, each no more than its board;
 *               with GPUSHIM_FAKE_DEVICE_MEMORY=board, each the board's
 *   attributes  GPUSHIM_FAKE_ATTRIBUTES's overrides, and the API's
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_test.h"

enum { N = 512, MAX_DEV = 4 };

static int ndev;
static gpu_context *ctx[MAX_DEV];
static gpu_stream *stream[MAX_DEV];
static gpu_module *mod[MAX_DEV];

static int setup(void **state)
{
    (void)state;
    FT_OK(gpu_device_get_count(&ndev));
    assert_int_equal(ndev, gpu_fake_device_count());
    assert_true(ndev >= 1 && ndev <= MAX_DEV);
    for (int d = 0; d < ndev; d++) {
        FT_OK(gpu_context_retain_primary(d, &ctx[d]));
        FT_OK(gpu_stream_create(ctx[d], &stream[d]));
        FT_OK(gpu_module_load_data(ctx[d], ft_ptx, strlen(ft_ptx), &mod[d]));
    }
    /* Device 0's default context, which gpushim then keeps for the process: one retain of its own. */
    FT_OK(gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM));
    assert_int_equal(gpu_fake_primary_retains(0), 2);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int d = 0; d < ndev; d++) {
        gpu_module_destroy(mod[d]);
        gpu_stream_destroy(stream[d]);
        gpu_context_destroy(ctx[d]);
        assert_int_equal(gpu_fake_primary_retains(d), d == 0);
    }
    ft_assert_released();
    return 0;
}

static void device_info(void **state)
{
    gpu_device_info info, untouched;
    gpu_fake_device_desc d, changed;

    (void)state;
    for (int i = 0; i < ndev; i++) {
        assert_int_equal(gpu_fake_device_get(i, &d), 0);
        FT_OK(gpu_device_get_info(i, &info));
        assert_string_equal(info.name, d.name);
        assert_int_equal(info.total_memory, d.total_memory);
        assert_int_equal(info.compute_major, d.compute_major);
        assert_int_equal(info.compute_minor, d.compute_minor);
        assert_int_equal(info.multiprocessors, d.multiprocessors);
        assert_string_equal(info.pci_bus_id, d.pci_bus_id);
    }
    /* Asked each time, not remembered. */
    assert_int_equal(gpu_fake_device_get(ndev - 1, &d), 0);
    changed = d;
    snprintf(changed.name, sizeof(changed.name), "Renamed %d", ndev - 1);
    changed.multiprocessors = 7;
    assert_int_equal(gpu_fake_device_set(ndev - 1, &changed), 0);
    FT_OK(gpu_device_get_info(ndev - 1, &info));
    assert_string_equal(info.name, changed.name);
    assert_int_equal(info.multiprocessors, 7);
    assert_int_equal(gpu_fake_device_set(ndev - 1, &d), 0);
    memset(&untouched, 0x3c, sizeof(untouched));
    info = untouched;
    FT_FAIL(gpu_device_get_info(ndev, &info), GPU_ERR_NO_DEVICE, CUABI_ERROR_INVALID_DEVICE, "cuDeviceGet");
    FT_FAIL(gpu_device_get_info(-1, &info), GPU_ERR_INVALID_ARG, 0, "negative");
    FT_FAIL(gpu_device_get_info(0, NULL), GPU_ERR_INVALID_ARG, 0, "out is NULL");
    assert_memory_equal(&info, &untouched, sizeof(info));
}

static void contexts(void **state)
{
    gpu_context *again = NULL, *none = (gpu_context *)&again;

    (void)state;
    for (int d = 0; d < ndev; d++) {
        assert_int_equal(gpu_context_get_device(ctx[d]), d);
        for (int e = 0; e < d; e++)
            assert_ptr_not_equal(gpu_context_get_raw(ctx[d]), gpu_context_get_raw(ctx[e]));
        /* Two gpu_contexts of one device share the driver's primary context, retained twice. */
        FT_OK(gpu_context_retain_primary(d, &again));
        assert_ptr_equal(gpu_context_get_raw(again), gpu_context_get_raw(ctx[d]));
        assert_int_equal(gpu_fake_primary_retains(d), d == 0 ? 3 : 2);
        gpu_context_destroy(again);
    }
    FT_FAIL(gpu_context_retain_primary(ndev, &none), GPU_ERR_NO_DEVICE, CUABI_ERROR_INVALID_DEVICE, "cuDeviceGet");
    FT_FAIL(gpu_context_retain_primary(-2, &none), GPU_ERR_INVALID_ARG, 0, "device -2");
    assert_ptr_equal(none, (gpu_context *)&again);
    assert_int_equal(gpu_context_get_device(NULL), -1);
}

static void peers(void **state)
{
    bool can = true;

    (void)state;
    for (int i = 0; i < ndev; i++)
        for (int j = 0; j < ndev; j++) {
            FT_OK(gpu_device_can_access_peer(i, j, &can));
            assert_int_equal(can, i != j);
        }
    FT_FAIL(gpu_device_can_access_peer(0, ndev, &can), GPU_ERR_NO_DEVICE, CUABI_ERROR_INVALID_DEVICE, "cuDeviceGet");
    FT_FAIL(gpu_device_can_access_peer(ndev, 0, &can), GPU_ERR_NO_DEVICE, CUABI_ERROR_INVALID_DEVICE, "cuDeviceGet");
    FT_FAIL(gpu_device_can_access_peer(0, -1, &can), GPU_ERR_INVALID_ARG, 0, "negative");
    if (ndev < 2)
        return;
    gpu_fake_peer_set(ndev - 1, 0, false);
    FT_OK(gpu_device_can_access_peer(ndev - 1, 0, &can));
    assert_false(can);
    FT_OK(gpu_device_can_access_peer(0, ndev - 1, &can));
    assert_true(can);
    FT_FAIL(gpu_context_enable_peer_access(ctx[ndev - 1], ctx[0]), GPU_ERR_NOT_SUPPORTED,
            CUABI_ERROR_PEER_ACCESS_UNSUPPORTED, "cuCtxEnablePeerAccess");
    assert_false(gpu_fake_peer_enabled(ndev - 1, 0));
    gpu_fake_peer_set(ndev - 1, 0, true);
    for (int i = 0; i < ndev; i++)
        for (int j = 0; j < ndev; j++) {
            long calls = gpu_fake_calls("cuCtxEnablePeerAccess");

            if (i == j) {
                FT_FAIL(gpu_context_enable_peer_access(ctx[i], ctx[j]), GPU_ERR_INVALID_ARG, 0, "both contexts");
                continue;
            }
            FT_OK(gpu_context_enable_peer_access(ctx[i], ctx[j]));
            assert_true(gpu_fake_peer_enabled(i, j));
            /* Already enabled (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) is success. */
            FT_OK(gpu_context_enable_peer_access(ctx[i], ctx[j]));
            assert_int_equal(gpu_fake_calls("cuCtxEnablePeerAccess") - calls, 2);
        }
    FT_FAIL(gpu_context_enable_peer_access(ctx[0], NULL), GPU_ERR_INVALID_ARG, 0, "peer is NULL");
}

static gpu_buffer *seq_buffer(int d, uint32_t base)
{
    return ft_buffer_seq(ctx[d], N, base);
}

static void peer_copies(void **state)
{
    (void)state;
    for (int i = 0; i < ndev; i++)
        for (int j = 0; j < ndev; j++) {
            gpu_buffer *src = seq_buffer(i, 1000u * (unsigned)i), *dst = seq_buffer(j, 7);

            /* On the destination's stream; peer access or not, the driver copies. */
            FT_OK(gpu_buffer_copy_async(dst, src, N * 4, stream[j]));
            FT_OK(gpu_stream_synchronize(stream[j]));
            for (uint32_t k = 0; k < N; k++)
                assert_int_equal(ft_peek(dst, k), 1000u * (unsigned)i + k);
            gpu_buffer_destroy(dst);
            gpu_buffer_destroy(src);
        }
}

/* Device i's kernel, then device i+1 waits for its event and copies the result over: a chain over all devices. */
static void event_across_devices(void **state)
{
    (void)state;
    for (int wait = 0; wait < 2; wait++) {
        gpu_buffer *b[MAX_DEV];
        gpu_event *e[MAX_DEV];
        gpu_stream *nb[MAX_DEV];

        for (int d = 0; d < ndev; d++) {
            b[d] = seq_buffer(d, 0);
            FT_OK(gpu_event_create(ctx[d], &e[d]));
            FT_OK(gpu_stream_create_non_blocking(ctx[d], &nb[d]));
        }
        for (int d = 0; d < ndev; d++) {
            if (d > 0) {
                if (wait)
                    FT_OK(gpu_stream_wait_event(nb[d], e[d - 1]));
                FT_OK(gpu_buffer_copy_async(b[d], b[d - 1], N * 4, nb[d]));
            }
            FT_OK(ft_scale_add(nb[d], mod[d], b[d], 2, 1, N));
            FT_OK(gpu_stream_record_event(nb[d], e[d]));
        }
        FT_OK(gpu_stream_synchronize(nb[ndev - 1]));
        for (uint32_t k = 0; k < N; k++) {
            uint32_t v = k;

            /* Waiting: each device took its predecessor's finished result, x -> 2x + 1 per device. */
            for (int d = 0; d < (wait ? ndev : 1); d++)
                v = 2 * v + 1;
            /* Not waiting: the last device copied what its predecessor held before its work. */
            assert_int_equal(ft_peek(b[ndev - 1], k), v);
        }
        /* All of it done before anything is freed: a copy still queued would read freed memory. */
        for (int d = 0; d < ndev; d++)
            FT_OK(gpu_context_synchronize(ctx[d]));
        for (int d = 0; d < ndev; d++) {
            gpu_stream_destroy(nb[d]);
            gpu_event_destroy(e[d]);
            gpu_buffer_destroy(b[d]);
        }
    }
}

/* A device's legacy stream orders that device's streams only. */
static void legacy_stream_per_device(void **state)
{
    gpu_buffer *b0, *b1;
    uint32_t r[N];

    (void)state;
    if (ndev < 2)
        return;
    b0 = seq_buffer(0, 0);
    b1 = seq_buffer(1, 0);
    FT_OK(ft_add_one(stream[1], mod[1], b1, N));
    FT_OK(gpu_buffer_copy_to_host(b0, r, sizeof(r)));
    assert_int_equal(gpu_fake_pending(), 1);
    FT_OK(gpu_buffer_copy_to_host(b1, r, sizeof(r)));
    assert_int_equal(gpu_fake_pending(), 0);
    assert_int_equal(r[5], 6);
    gpu_buffer_destroy(b1);
    gpu_buffer_destroy(b0);
}

/* Objects of two devices mixed in one call: refused, naming both, before the driver is asked. */
static void wrong_device(void **state)
{
    const char *calls[] = {"cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2",
                           "cuMemcpyPeerAsync", "cuEventRecord", "cuLaunchKernel"};
    long before[6];
    gpu_buffer *b0, *b1;
    gpu_event *e0 = NULL;
    gpu_function *f0 = NULL;
    uint32_t host[N];
    uint64_t ptr;
    uint32_t n = N;
    void *args[] = {&ptr, &n};
    gpu_launch_config c = gpu_launch_config_1d(2, 256);

    (void)state;
    if (ndev < 2)
        return;
    b0 = seq_buffer(0, 0);
    b1 = seq_buffer(1, 0);
    ptr = gpu_buffer_get_device_ptr(b0);
    FT_OK(gpu_event_create(ctx[0], &e0));
    FT_OK(gpu_module_get_function(mod[0], "add_one", &f0));
    for (int i = 0; i < 6; i++)
        before[i] = gpu_fake_calls(calls[i]);
    FT_FAIL(gpu_buffer_copy_from_host_async(b0, host, sizeof(host), stream[1]), GPU_ERR_INVALID_ARG, 0,
            "gpu_buffer_copy_from_host_async: the buffer is device 0's, the stream device 1's");
    FT_FAIL(gpu_buffer_copy_to_host_async(b0, host, sizeof(host), stream[1]), GPU_ERR_INVALID_ARG, 0,
            "gpu_buffer_copy_to_host_async: the buffer is device 0's, the stream device 1's");
    FT_FAIL(gpu_buffer_copy_async(b0, b1, sizeof(host), stream[1]), GPU_ERR_INVALID_ARG, 0,
            "gpu_buffer_copy_async: the buffer is device 0's, the stream device 1's");
    FT_FAIL(gpu_buffer_copy_to_host_async(b1, host, sizeof(host), GPU_DEVICE0_LEGACY_STREAM), GPU_ERR_INVALID_ARG, 0,
            "the buffer is device 1's, the stream device 0's");
    FT_FAIL(gpu_stream_record_event(stream[1], e0), GPU_ERR_INVALID_ARG, 0,
            "gpu_stream_record_event: the event is device 0's, the stream device 1's");
    FT_FAIL(gpu_stream_launch_function(stream[1], f0, &c, args), GPU_ERR_INVALID_ARG, 0,
            "\"add_one\" is loaded on device 0, the stream is device 1's");
    FT_FAIL(gpu_stream_launch_kernel(stream[1], mod[0], "add_one", &c, args), GPU_ERR_INVALID_ARG, 0,
            "\"add_one\" is loaded on device 0, the stream is device 1's");
    for (int i = 0; i < 6; i++)
        if (gpu_fake_calls(calls[i]) != before[i])
            fail_msg("%s was called", calls[i]);
    /* The same function on its own device's stream works. */
    FT_OK(gpu_stream_launch_function(stream[0], f0, &c, args));
    FT_OK(gpu_stream_synchronize(stream[0]));
    assert_int_equal(ft_peek(b0, 9), 10);
    gpu_event_destroy(e0);
    gpu_buffer_destroy(b1);
    gpu_buffer_destroy(b0);
}

/* Each device's memory is its own: allocations count against it, and run out. */
static void memory_per_device(void **state)
{
    gpu_buffer *b = NULL, *none = (gpu_buffer *)&b;
    gpu_fake_device_desc d;

    (void)state;
    for (int i = 0; i < ndev; i++) {
        size_t used = gpu_fake_device_used(i);

        assert_int_equal(gpu_fake_device_get(i, &d), 0);
        FT_OK(gpu_buffer_create(ctx[i], 1u << 20, &b));
        assert_int_equal(gpu_fake_device_used(i), used + (1u << 20));
        assert_ptr_equal(gpu_buffer_get_context(b), ctx[i]);
        FT_FAIL(gpu_buffer_create(ctx[i], d.total_memory, &none), GPU_ERR_OUT_OF_MEMORY, CUABI_ERROR_OUT_OF_MEMORY,
                "cuMemAlloc");
        assert_ptr_equal(none, (gpu_buffer *)&b);
        gpu_buffer_destroy(b);
        assert_int_equal(gpu_fake_device_used(i), used);
    }
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

/* The host's memory in bytes (MemTotal), or 0 where /proc/meminfo cannot say. */
static size_t host_total(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kib = 0;

    if (!f)
        return 0;
    if (fscanf(f, "MemTotal: %llu kB", &kib) != 1)
        kib = 0;
    fclose(f);
    return (size_t)kib << 10;
}

/* Two devices: by default no more memory together than half the host has; with "board" each the board's. */
static void host_memory(void **state)
{
    const size_t board = 150109880320; /* the H200 profile's */
    const char *asked = getenv("GPUSHIM_FAKE_DEVICE_MEMORY");
    size_t total[2] = {0, 0}, host = host_total();

    (void)state;
    CU_OK(cuInit(0));
    for (int d = 0; d < 2; d++) {
        CU_OK(cuDeviceTotalMem_v2(&total[d], d));
        if (asked && strcmp(asked, "board") == 0)
            assert_int_equal(total[d], board);
        else
            assert_true(total[d] > 0 && total[d] <= board);
    }
    if (host && !asked)
        assert_true(total[0] + total[1] <= host / 2);
}

static void attributes(void **state)
{
    (void)state;
    CU_OK(cuInit(0));
    /* GPUSHIM_FAKE_ATTRIBUTES=COMPUTE_MODE=2,1:CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE=4096 */
    assert_int_equal(ft_attribute(0, CUABI_DEVICE_ATTRIBUTE_COMPUTE_MODE), 2);
    assert_int_equal(ft_attribute(1, CUABI_DEVICE_ATTRIBUTE_COMPUTE_MODE), 2);
    assert_int_equal(ft_attribute(0, CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 60 << 20);
    assert_int_equal(ft_attribute(1, CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 4096);
    /* And through the API: one attribute, one device. */
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 7), 0);
    assert_int_equal(ft_attribute(0, CUABI_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT), 7);
    assert_int_equal(ft_attribute(1, CUABI_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT), 3);
    assert_int_equal(gpu_fake_device_attribute_set(0, 200, 5), 0); /* newer than CUDA 13.0: now known */
    assert_int_equal(ft_attribute(0, 200), 5);
    assert_int_equal(gpu_fake_device_attribute_forget(1, CUABI_DEVICE_ATTRIBUTE_WARP_SIZE), 0);
    assert_int_equal(cuDeviceGetAttribute(&(int){0}, CUABI_DEVICE_ATTRIBUTE_WARP_SIZE, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_device_attribute_set(0, 256, 5), -1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_info),
        cmocka_unit_test(contexts),
        cmocka_unit_test(peers),
        cmocka_unit_test(peer_copies),
        cmocka_unit_test(event_across_devices),
        cmocka_unit_test(legacy_stream_per_device),
        cmocka_unit_test(wrong_device),
        cmocka_unit_test(memory_per_device),
    };
    static const ft_case cases[] = {
        {"devices", cmocka_unit_test(devices)},
        {"host-memory", cmocka_unit_test(host_memory)},
        {"host-memory-board", cmocka_unit_test(host_memory)},
        {"attributes", cmocka_unit_test(attributes)},
    };

    return ft_run(argc, argv, "devices", tests, sizeof(tests) / sizeof(tests[0]), setup, teardown,
                  cases, sizeof(cases) / sizeof(cases[0]));
}
