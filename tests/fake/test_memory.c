/* SPDX-License-Identifier: MIT */
/*
 * Memory and interop against the fake: stream-ordered allocation
 * and the pool, foreign pointers and views, memory info, managed memory,
 * stream priorities, graph update, upload, capture info and DOT, IPC (with a
 * handle from a process that has exited), and stream memory operations. The
 * failures of each driver call are test_sweep.c's. Runs with GPUSHIM_FAKE_DEVICES=2.
 *
 * Apart from the group, one case per process (argv[1]):
 *
 *   pointers   cuPointerGetAttribute(s)' device and host aliases of device,
 *              managed and page-locked memory; their errors
 *   big-memory  64 GiB allocated on the default device in a machine with far
 *               less memory, a few pages touched and read back, the rest
 *               zero, freed; the process grew by the pages touched only
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

static gpu_module *mod;
static ft_mark start;
/* This program, to run again as the producer: argv[0] (under valgrind /proc/self/exe is valgrind). */
static const char *self_path = "/proc/self/exe";

static int setup(void **state)
{
    (void)state;
    FT_OK(gpu_module_load_data(NULL, ft_ptx, strlen(ft_ptx), &mod));
    ft_mark_take(&start);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    FT_MARK_CHECK(&start);
    gpu_module_destroy(mod);
    return 0;
}

/* ---- 1. Stream-ordered allocation ---- */

static void async_alloc_use_free(void **state)
{
    uint32_t in[64], out[64];
    gpu_stream *s;
    gpu_buffer *b;
    uint64_t reserved = 1, used = 1;

    (void)state;
    for (uint32_t i = 0; i < 64; i++)
        in[i] = i * 3u;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_buffer_create_async(s, sizeof(in), &b));
    assert_int_equal(gpu_buffer_get_size(b), sizeof(in));
    assert_true(gpu_buffer_is_owner(b));
    FT_OK(gpu_buffer_copy_from_host_async(b, in, sizeof(in), s));
    FT_OK(ft_add_one(s, mod, b, 64));
    FT_OK(gpu_buffer_copy_to_host_async(b, out, sizeof(out), s));
    FT_OK(gpu_context_pool_get_usage(NULL, &reserved, &used));
    assert_int_equal(used, sizeof(in));
    FT_OK(gpu_buffer_destroy_async(b, s));
    /* Freed, not yet run: the memory is still in use until the stream gets there. */
    FT_OK(gpu_context_pool_get_usage(NULL, NULL, &used));
    assert_int_equal(used, sizeof(in));
    FT_OK(gpu_stream_synchronize(s));
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(out[i], i * 3u + 1u);
    FT_OK(gpu_context_pool_get_usage(NULL, &reserved, &used));
    assert_int_equal(used, 0);
    /* Threshold 0 (the default): nothing is kept. */
    assert_int_equal(reserved, 0);
    gpu_stream_destroy(s);
}

static void pool_threshold_and_trim(void **state)
{
    gpu_buffer *b;
    uint64_t t = 1, reserved = 0;

    (void)state;
    FT_OK(gpu_context_pool_get_release_threshold(NULL, &t));
    assert_int_equal(t, 0);
    FT_OK(gpu_context_pool_set_release_threshold(NULL, 1u << 20));
    FT_OK(gpu_context_pool_get_release_threshold(NULL, &t));
    assert_int_equal(t, 1u << 20);
    FT_OK(gpu_buffer_create_async(GPU_DEVICE0_LEGACY_STREAM, 4096, &b));
    FT_OK(gpu_buffer_destroy_async(b, GPU_DEVICE0_LEGACY_STREAM));
    FT_OK(gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM));
    /* Under the threshold: kept for reuse. */
    FT_OK(gpu_context_pool_get_usage(NULL, &reserved, NULL));
    assert_int_equal(reserved, 4096);
    assert_int_equal(gpu_fake_pool_cached(0), 4096);
    FT_OK(gpu_context_pool_trim(NULL, 1024));
    assert_int_equal(gpu_fake_pool_cached(0), 1024);
    FT_OK(gpu_context_pool_trim(NULL, 0));
    FT_OK(gpu_context_pool_get_usage(NULL, &reserved, NULL));
    assert_int_equal(reserved, 0);
    FT_OK(gpu_context_pool_set_release_threshold(NULL, 0));
}

static void async_arguments(void **state)
{
    gpu_buffer *plain, *b;
    gpu_context *c1;
    gpu_stream *s1;

    (void)state;
    FT_INVALID(gpu_buffer_create_async(NULL, 16, NULL), "out is NULL");
    FT_INVALID(gpu_buffer_create_async(NULL, 0, &b), "bytes is 0");
    FT_INVALID(gpu_buffer_destroy_async(NULL, NULL), "buffer is NULL");
    FT_OK(gpu_buffer_create(NULL, 16, &plain));
    FT_INVALID(gpu_buffer_destroy_async(plain, NULL), "not from gpu_buffer_create_async");
    gpu_buffer_destroy(plain);
    /* A stream of another device: refused, and the buffer is still the caller's. */
    FT_OK(gpu_context_retain_primary(1, &c1));
    FT_OK(gpu_stream_create(c1, &s1));
    {
        long allocs = gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS);

        FT_OK(gpu_buffer_create_async(NULL, 16, &b));
        FT_FAIL(gpu_buffer_destroy_async(b, s1), GPU_ERR_INVALID_ARG, 0, "device 0's, the stream device 1's");
        /* Consumed all the same: freed at once. */
        assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), allocs);
        FT_OK(gpu_buffer_create_async(NULL, 16, &b));
        assert_int_equal(gpu_fake_fail("cuMemFreeAsync", 1, CUABI_ERROR_INVALID_VALUE), 0);
        FT_FAIL(gpu_buffer_destroy_async(b, NULL), GPU_ERR_TRANSFER, CUABI_ERROR_INVALID_VALUE, "cuMemFreeAsync");
        gpu_fake_fail_reset();
        assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), allocs);
    }
    gpu_stream_destroy(s1);
    gpu_context_destroy(c1);
}

/* ---- 2. Foreign pointers ---- */

static void pointer_info_and_view(void **state)
{
    gpu_pointer_info info;
    gpu_buffer *b, *view, *view2;
    gpu_host_buffer *h;
    gpu_context *ctx;
    gpu_stream *s;
    uint32_t in[16], out[16];
    int stack_thing = 0;

    (void)state;
    FT_OK(gpu_context_retain_primary(0, &ctx));
    FT_OK(gpu_buffer_create(ctx, 1024, &b));
    FT_OK(gpu_pointer_get_info(gpu_buffer_get_device_ptr(b) + 100, &info));
    assert_int_equal(info.type, GPU_MEMORY_DEVICE);
    assert_int_equal(info.device, 0);
    assert_false(info.managed);
    assert_ptr_equal(info.context, gpu_context_get_raw(ctx));
    assert_int_equal(info.base, gpu_buffer_get_device_ptr(b));
    assert_int_equal(info.size, 1024);
    /* Host memory CUDA never saw: not an error. */
    FT_OK(gpu_pointer_get_info((uintptr_t)&stack_thing, &info));
    assert_int_equal(info.type, GPU_MEMORY_UNKNOWN);
    assert_int_equal(info.device, -1);
    assert_null(info.context);
    FT_OK(gpu_host_buffer_create(NULL, 64, &h));
    FT_OK(gpu_pointer_get_info((uintptr_t)gpu_host_buffer_get_data(h), &info));
    assert_int_equal(info.type, GPU_MEMORY_HOST);
    gpu_host_buffer_destroy(h);
    FT_INVALID(gpu_pointer_get_info(0, NULL), "out is NULL");

    /* A view of the middle of the allocation: every copy works on it; destroying it frees nothing. */
    FT_OK(gpu_buffer_wrap(ctx, gpu_buffer_get_device_ptr(b) + 256, sizeof(in), &view));
    assert_false(gpu_buffer_is_owner(view));
    assert_int_equal(gpu_buffer_get_device_ptr(view), gpu_buffer_get_device_ptr(b) + 256);
    FT_OK(gpu_stream_create_non_blocking(ctx, &s));
    for (uint32_t i = 0; i < 16; i++)
        in[i] = 100 + i;
    FT_OK(gpu_buffer_copy_from_host(view, in, sizeof(in)));
    FT_OK(ft_add_one(s, mod, view, 16));
    FT_OK(gpu_buffer_copy_to_host_async(view, out, sizeof(out), s));
    FT_OK(gpu_stream_synchronize(s));
    for (uint32_t i = 0; i < 16; i++)
        assert_int_equal(out[i], 101 + i);
    FT_OK(gpu_buffer_wrap(ctx, gpu_buffer_get_device_ptr(b), 1024, &view2));
    FT_OK(gpu_buffer_copy_async(view2, view, sizeof(in), s));
    FT_OK(gpu_stream_synchronize(s));
    assert_int_equal(ft_peek(b, 0), 101);
    gpu_buffer_destroy(view2);
    {
        long allocs = gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS);

        gpu_buffer_destroy(view);
        assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), allocs);
    }
    assert_int_equal(ft_peek(b, 64), 101);
    /* Past the end, unknown memory, zero. */
    FT_FAIL(gpu_buffer_wrap(ctx, gpu_buffer_get_device_ptr(b) + 1000, 100, &view), GPU_ERR_INVALID_ARG, 0,
            "pass the end of its allocation");
    FT_FAIL(gpu_buffer_wrap(ctx, (uintptr_t)&stack_thing, 4, &view), GPU_ERR_INVALID_ARG, CUABI_ERROR_NOT_FOUND,
            "cuMemGetAddressRange");
    FT_INVALID(gpu_buffer_wrap(ctx, 0, 4, &view), "ptr is 0");
    FT_INVALID(gpu_buffer_wrap(ctx, 16, 0, &view), "bytes is 0");
    gpu_stream_destroy(s);
    gpu_buffer_destroy(b);
    gpu_context_destroy(ctx);
}

/* ---- 3. Memory info ---- */

static void memory_info(void **state)
{
    size_t free0, total0, free1, total1;
    gpu_device_info info;
    gpu_buffer *b;

    (void)state;
    FT_OK(gpu_device_get_info(0, &info));
    FT_OK(gpu_context_get_memory_info(NULL, &free0, &total0));
    assert_int_equal(total0, info.total_memory);
    FT_OK(gpu_buffer_create(NULL, 1 << 20, &b));
    FT_OK(gpu_context_get_memory_info(NULL, &free1, &total1));
    assert_int_equal(total1, total0);
    assert_int_equal(free0 - free1, 1 << 20);
    gpu_buffer_destroy(b);
    FT_INVALID(gpu_context_get_memory_info(NULL, NULL, &total0), "free_bytes is NULL");
    FT_INVALID(gpu_context_get_memory_info(NULL, &free0, NULL), "total_bytes is NULL");
}

/* ---- 4. Managed memory ---- */

static void managed(void **state)
{
    gpu_pointer_info info;
    gpu_buffer *m, *plain;
    gpu_stream *s;
    uint32_t *host;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_buffer_create_managed(NULL, 64 * sizeof(uint32_t), &m));
    host = gpu_buffer_get_managed_data(m);
    assert_non_null(host);
    for (uint32_t i = 0; i < 64; i++)
        host[i] = i;
    FT_OK(gpu_buffer_prefetch_async(m, GPU_LOCATION_DEVICE, s));
    assert_int_equal(gpu_fake_managed_location(gpu_buffer_get_device_ptr(m)), 0);
    FT_OK(ft_add_one(s, mod, m, 64));
    FT_OK(gpu_buffer_prefetch_async(m, GPU_LOCATION_HOST, s));
    FT_OK(gpu_stream_synchronize(s));
    assert_int_equal(gpu_fake_managed_location(gpu_buffer_get_device_ptr(m)), -1);
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(host[i], i + 1);
    FT_OK(gpu_buffer_advise(m, GPU_ADVISE_SET_READ_MOSTLY, GPU_LOCATION_DEVICE));
    assert_int_equal(gpu_fake_managed_advice(gpu_buffer_get_device_ptr(m)), GPU_ADVISE_SET_READ_MOSTLY);
    FT_OK(gpu_buffer_advise(m, GPU_ADVISE_SET_PREFERRED_LOCATION, GPU_LOCATION_HOST));
    FT_OK(gpu_pointer_get_info(gpu_buffer_get_device_ptr(m), &info));
    assert_true(info.managed);
    FT_INVALID(gpu_buffer_advise(m, (gpu_memory_advice)7, GPU_LOCATION_HOST), "unknown advice 7");
    FT_INVALID(gpu_buffer_prefetch_async(m, (gpu_memory_location)5, s), "unknown location 5");
    FT_OK(gpu_buffer_create(NULL, 16, &plain));
    assert_null(gpu_buffer_get_managed_data(plain));
    FT_INVALID(gpu_buffer_prefetch_async(plain, GPU_LOCATION_HOST, s), "not from gpu_buffer_create_managed");
    FT_INVALID(gpu_buffer_advise(plain, GPU_ADVISE_SET_READ_MOSTLY, GPU_LOCATION_HOST), "not from");
    FT_INVALID(gpu_buffer_create_managed(NULL, 0, &m), "bytes is 0");
    gpu_buffer_destroy(plain);
    gpu_buffer_destroy(m);
    gpu_stream_destroy(s);
}

/* ---- 5. Stream priorities ---- */

static void priorities(void **state)
{
    int least = 1, greatest = 1, p = 1;
    gpu_stream *hi, *clamped;

    (void)state;
    FT_OK(gpu_context_get_stream_priority_range(NULL, &least, &greatest));
    assert_int_equal(least, 0);
    assert_int_equal(greatest, -5);
    FT_OK(gpu_stream_create_with_priority(NULL, GPU_STREAM_NON_BLOCKING, greatest, &hi));
    assert_int_equal(gpu_stream_get_flags(hi), GPU_STREAM_NON_BLOCKING);
    FT_OK(gpu_stream_get_priority(hi, &p));
    assert_int_equal(p, greatest);
    FT_OK(gpu_stream_create_with_priority(NULL, 0, -100, &clamped));
    FT_OK(gpu_stream_get_priority(clamped, &p));
    assert_int_equal(p, greatest);
    FT_OK(gpu_stream_get_priority(GPU_DEVICE0_LEGACY_STREAM, &p));
    assert_int_equal(p, 0);
    FT_INVALID(gpu_stream_create_with_priority(NULL, 8, 0, &hi), "unknown flags 0x8");
    FT_INVALID(gpu_stream_get_priority(hi, NULL), "priority is NULL");
    FT_INVALID(gpu_context_get_stream_priority_range(NULL, NULL, &greatest), "least is NULL");
    gpu_stream_destroy(clamped);
    gpu_stream_destroy(hi);
}

/* ---- 6. Graphs ---- */

static gpu_graph *capture_scale_add(gpu_stream *s, const gpu_buffer *b, uint32_t mul, uint32_t add, int kernels)
{
    gpu_graph *g;

    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    for (int i = 0; i < kernels; i++)
        FT_OK(ft_scale_add(s, mod, b, mul, add, 8));
    FT_OK(gpu_stream_end_capture(s, &g));
    return g;
}

static void graph_update(void **state)
{
    gpu_capture_status status = GPU_CAPTURE_STATUS_INVALIDATED;
    gpu_graph *g1, *g2, *g3;
    gpu_graph_exec *x;
    gpu_stream *s;
    gpu_buffer *b = ft_buffer_seq(NULL, 8, 0);
    uint64_t id = 7, id2 = 0;
    uint32_t want[8];
    char path[] = "/tmp/gpushim-dot-XXXXXX", text[512] = {0};
    FILE *f;
    int fd;

    (void)state;
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    FT_OK(gpu_stream_get_capture_info(s, &status, &id));
    assert_int_equal(status, GPU_CAPTURE_STATUS_NONE);
    assert_int_equal(id, 0);
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    FT_OK(gpu_stream_get_capture_info(s, &status, &id));
    assert_int_equal(status, GPU_CAPTURE_STATUS_ACTIVE);
    assert_true(id != 0);
    FT_OK(ft_scale_add(s, mod, b, 2, 1, 8));
    FT_OK(gpu_stream_end_capture(s, &g1));
    FT_OK(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    FT_OK(gpu_stream_get_capture_info(s, &status, &id2));
    assert_true(id2 != id);
    FT_OK(ft_scale_add(s, mod, b, 3, 5, 8));
    FT_OK(gpu_stream_end_capture(s, &g2));
    g3 = capture_scale_add(s, b, 3, 5, 2);

    FT_OK(gpu_graph_instantiate(g1, &x));
    FT_OK(gpu_graph_exec_upload(x, s));
    /* The update changes the kernel's arguments: the replay computes x * 3 + 5, not x * 2 + 1. */
    FT_OK(gpu_graph_exec_update(x, g2));
    FT_OK(gpu_stream_launch_graph(s, x));
    FT_OK(gpu_stream_synchronize(s));
    for (uint32_t i = 0; i < 8; i++)
        want[i] = i * 3 + 5;
    FT_BUFFER_EQ(b, want, 8);
    /* Another shape: refused, saying why; the executable graph is as it was. */
    FT_FAIL(gpu_graph_exec_update(x, g3), GPU_ERR_GRAPH_LAUNCH, CUABI_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
            "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED");
    FT_OK(gpu_stream_launch_graph(s, x));
    FT_OK(gpu_stream_synchronize(s));
    for (uint32_t i = 0; i < 8; i++)
        want[i] = want[i] * 3 + 5;
    FT_BUFFER_EQ(b, want, 8);

    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    FT_OK(gpu_graph_write_dot(g3, path, true));
    f = fopen(path, "r");
    assert_non_null(f);
    assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
    fclose(f);
    unlink(path);
    assert_non_null(strstr(text, "digraph"));
    assert_non_null(strstr(text, "node0 -> node1"));
    FT_FAIL(gpu_graph_write_dot(g3, "/nonexistent-dir/x.dot", false), GPU_ERR_DRIVER, CUABI_ERROR_OPERATING_SYSTEM,
            "cuGraphDebugDotPrint");
    FT_INVALID(gpu_graph_write_dot(g3, NULL, false), "path is NULL");
    FT_INVALID(gpu_graph_exec_update(NULL, g3), "exec is NULL");
    FT_INVALID(gpu_stream_get_capture_info(GPU_DEVICE0_LEGACY_STREAM, &status, &id), "never captured");
    FT_INVALID(gpu_graph_exec_upload(NULL, s), "exec is NULL");
    gpu_graph_exec_destroy(x);
    gpu_graph_destroy(g1);
    gpu_graph_destroy(g2);
    gpu_graph_destroy(g3);
    gpu_stream_destroy(s);
    gpu_buffer_destroy(b);
}

/* ---- 7. IPC ---- */

static void ipc_same_process(void **state)
{
    gpu_ipc_handle h;
    gpu_ipc_event_handle eh;
    gpu_buffer *b = ft_buffer_seq(NULL, 16, 40), *opened, *m;
    gpu_event *e, *plain, *oe;
    gpu_stream *s;
    long allocs;
    bool done = false;

    (void)state;
    FT_OK(gpu_buffer_get_ipc_handle(b, &h));
    assert_int_equal(h.size, 16 * sizeof(uint32_t));
    allocs = gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS);
    /* The fake opens its own process's handles (a real driver refuses them). */
    FT_OK(gpu_buffer_open_ipc(NULL, &h, &opened));
    assert_int_equal(gpu_buffer_get_size(opened), h.size);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), allocs + 1);
    assert_int_equal(ft_peek(opened, 3), 43);
    gpu_buffer_destroy(opened);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), allocs);

    FT_OK(gpu_event_create_interprocess(NULL, &e));
    FT_OK(gpu_event_get_ipc_handle(e, &eh));
    FT_OK(gpu_event_open_ipc(NULL, &eh, &oe));
    FT_OK(gpu_stream_create(NULL, &s));
    FT_OK(ft_add_one(s, mod, b, 16));
    FT_OK(gpu_stream_record_event(s, e));
    /* An exported event's record runs as it is queued, so that another process never waits for this one. */
    FT_OK(gpu_event_is_complete(oe, &done));
    assert_true(done);
    assert_int_equal(ft_peek(b, 0), 41);
    FT_OK(gpu_event_synchronize(oe));
    assert_int_equal(ft_peek(b, 0), 41);
    gpu_event_destroy(oe);
    gpu_event_destroy(e);

    FT_OK(gpu_event_create(NULL, &plain));
    FT_INVALID(gpu_event_get_ipc_handle(plain, &eh), "not from gpu_event_create_interprocess");
    gpu_event_destroy(plain);
    FT_OK(gpu_buffer_create_managed(NULL, 16, &m));
    FT_INVALID(gpu_buffer_get_ipc_handle(m, &h), "only memory from gpu_buffer_create()");
    gpu_buffer_destroy(m);
    /*
     * The size is the driver's, not the handle's: a 64-byte allocation
     * claimed as 1 GiB is refused (and the mapping closed again); a smaller
     * claim is the buffer's size, within the allocation.
     */
    FT_OK(gpu_buffer_get_ipc_handle(b, &h));
    h.size = 1ull << 30;
    opened = (gpu_buffer *)&opened;
    FT_FAIL(gpu_buffer_open_ipc(NULL, &h, &opened), GPU_ERR_INVALID_ARG, 0,
            "the handle claims 1073741824 bytes, but the allocation it opens holds 64");
    assert_ptr_equal(opened, (gpu_buffer *)&opened);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), allocs);
    h.size = 16 * sizeof(uint32_t) + 1;
    FT_FAIL(gpu_buffer_open_ipc(NULL, &h, &opened), GPU_ERR_INVALID_ARG, 0, "holds 64");
    h.size = 8;
    FT_OK(gpu_buffer_open_ipc(NULL, &h, &opened));
    assert_int_equal(gpu_buffer_get_size(opened), 8);
    gpu_buffer_destroy(opened);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), allocs);
    h.size = 0;
    FT_INVALID(gpu_buffer_open_ipc(NULL, &h, &opened), "size (0)");
    gpu_stream_destroy(s);
    gpu_buffer_destroy(b);
}

static void ipc_dead_producer(void **state)
{
    struct {
        gpu_ipc_handle mem;
        gpu_ipc_event_handle event;
    } handles;
    gpu_buffer *opened = NULL;
    gpu_event *oe = NULL;
    int fds[2], status;
    pid_t pid;

    (void)state;
    assert_int_equal(pipe(fds), 0);
    /* The producer is this program again (exec: CUDA cannot be used after fork). */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char fd[16];

        snprintf(fd, sizeof(fd), "%d", fds[1]);
        close(fds[0]);
        execl(self_path, self_path, "--produce", fd, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &handles, sizeof(handles)), (ssize_t)sizeof(handles));
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* What the real driver says of a buffer whose process is gone. */
    FT_FAIL(gpu_buffer_open_ipc(NULL, &handles.mem, &opened), GPU_ERR_DRIVER, CUABI_ERROR_INVALID_HANDLE,
            "cuIpcOpenMemHandle");
    assert_null(opened);
    FT_FAIL(gpu_event_open_ipc(NULL, &handles.event, &oe), GPU_ERR_EVENT, CUABI_ERROR_INVALID_HANDLE,
            "cuIpcOpenEventHandle");
    assert_null(oe);
}

/* The producer's side of ipc_dead_producer: export a buffer and an event, write the handles, exit. */
static int produce(int fd)
{
    struct {
        gpu_ipc_handle mem;
        gpu_ipc_event_handle event;
    } handles;
    gpu_buffer *b;
    gpu_event *e;

    if (gpu_buffer_create(NULL, 64, &b) != GPU_OK || gpu_buffer_get_ipc_handle(b, &handles.mem) != GPU_OK ||
        gpu_event_create_interprocess(NULL, &e) != GPU_OK || gpu_event_get_ipc_handle(e, &handles.event) != GPU_OK)
        return 1;
    if (write(fd, &handles, sizeof(handles)) != (ssize_t)sizeof(handles))
        return 1;
    gpu_event_destroy(e);
    gpu_buffer_destroy(b);
    return 0;
}

/* ---- 8. Stream memory operations ---- */

static void wait_released_by_write(void **state)
{
    gpu_buffer *flags, *data = ft_buffer_seq(NULL, 8, 0);
    gpu_stream *waiter, *writer;
    uint32_t want[8];
    uint64_t v64 = 0;
    bool idle = true;

    (void)state;
    FT_OK(gpu_buffer_create(NULL, 16, &flags));
    FT_OK(gpu_buffer_copy_from_host(flags, (uint64_t[2]){0, 0}, 16));
    FT_OK(gpu_stream_create_non_blocking(NULL, &waiter));
    FT_OK(gpu_stream_create_non_blocking(NULL, &writer));
    FT_OK(gpu_stream_wait_value32(waiter, flags, 0, 1, GPU_WAIT_GEQ));
    FT_OK(ft_add_one(waiter, mod, data, 8));
    /* Held: nothing the fake can run releases it yet. */
    assert_int_equal(gpu_fake_run(100), 0);
    FT_OK(gpu_stream_is_complete(waiter, &idle));
    assert_false(idle);
    assert_int_equal(ft_peek(data, 0), 0);
    /* The writer's kernel runs first, then its write releases the waiter. */
    FT_OK(ft_scale_add(writer, mod, data, 10, 0, 8));
    FT_OK(gpu_stream_write_value32(writer, flags, 0, 1));
    FT_OK(gpu_stream_synchronize(waiter));
    for (uint32_t i = 0; i < 8; i++)
        want[i] = i * 10 + 1;
    FT_BUFFER_EQ(data, want, 8);
    /* 64-bit, EQ, released by the host. */
    FT_OK(gpu_stream_wait_value64(waiter, flags, 8, 0x100000000ull, GPU_WAIT_EQ));
    FT_OK(gpu_stream_write_value64(writer, flags, 8, 0x100000000ull));
    FT_OK(gpu_stream_synchronize(waiter));
    assert_int_equal(gpu_fake_peek(gpu_buffer_get_device_ptr(flags) + 8, &v64, 8), 0);
    assert_int_equal(v64, 0x100000000ull);
    /* A device without memory operations. */
    assert_int_equal(gpu_fake_fail("cuStreamWaitValue32", 1, CUABI_ERROR_NOT_SUPPORTED), 0);
    FT_FAIL(gpu_stream_wait_value32(waiter, flags, 0, 1, GPU_WAIT_EQ), GPU_ERR_NOT_SUPPORTED, CUABI_ERROR_NOT_SUPPORTED,
            "cuStreamWaitValue32");
    gpu_fake_fail_reset();
    FT_INVALID(gpu_stream_write_value32(writer, flags, 2, 1), "not a multiple of 4");
    FT_INVALID(gpu_stream_write_value64(writer, flags, 16, 1), "do not fit a buffer of 16");
    FT_INVALID(gpu_stream_wait_value32(writer, flags, 0, 1, (gpu_wait_condition)9), "unknown condition 9");
    FT_INVALID(gpu_stream_wait_value64(writer, NULL, 0, 1, GPU_WAIT_AND), "buffer is NULL");
    gpu_stream_destroy(writer);
    gpu_stream_destroy(waiter);
    gpu_buffer_destroy(flags);
    gpu_buffer_destroy(data);
}

static void wait_conditions(void **state)
{
    gpu_buffer *flag;
    gpu_stream *s;
    const struct {
        uint32_t have, want;
        gpu_wait_condition cond;
        bool met;
    } cases[] = {
        {5, 5, GPU_WAIT_EQ, true},   {5, 6, GPU_WAIT_EQ, false},       {7, 6, GPU_WAIT_GEQ, true},
        {5, 6, GPU_WAIT_GEQ, false}, {0, 0x80000000u, GPU_WAIT_GEQ, false},
        {6, 2, GPU_WAIT_AND, true},  {4, 2, GPU_WAIT_AND, false},      {0, 1, GPU_WAIT_NOR, true},
        {0xffffffffu, 0, GPU_WAIT_NOR, false},
    };

    (void)state;
    FT_OK(gpu_buffer_create(NULL, 4, &flag));
    FT_OK(gpu_stream_create_non_blocking(NULL, &s));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool idle = false;

        FT_OK(gpu_buffer_copy_from_host(flag, &cases[i].have, 4));
        FT_OK(gpu_stream_wait_value32(s, flag, 0, cases[i].want, cases[i].cond));
        gpu_fake_run(10);
        FT_OK(gpu_stream_is_complete(s, &idle));
        if (idle != cases[i].met)
            fail_msg("case %zu: have 0x%x want 0x%x cond %d: met %d", i, cases[i].have, cases[i].want,
                     (int)cases[i].cond, idle);
        if (!idle)
            assert_int_equal(gpu_fake_poke(gpu_buffer_get_device_ptr(flag), &cases[i].want, 4), 0);
        FT_OK(gpu_stream_synchronize(s));
    }
    gpu_stream_destroy(s);
    gpu_buffer_destroy(flag);
}

static void pointers(void **state)
{
    cuabi_deviceptr d = 0, m = 0, alias = 0, got = 1;
    void *host = NULL, *back = NULL;
    cuabi_pointer_attribute both[2] = {CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, CUABI_POINTER_ATTRIBUTE_HOST_POINTER};
    void *data[2] = {&got, &back};

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemAlloc_v2(&d, 256));
    CU_OK(cuMemAllocManaged(&m, 256, 1));
    CU_OK(cuMemHostAlloc(&host, 256, CUABI_MEMHOSTALLOC_DEVICEMAP));
    CU_OK(cuMemHostGetDevicePointer_v2(&alias, host, 0));

    /* Device memory is its own device pointer and has no host alias. */
    CU_OK(cuPointerGetAttribute(&got, CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 8));
    assert_int_equal(got, d + 8);
    assert_int_equal(cuPointerGetAttribute(&back, CUABI_POINTER_ATTRIBUTE_HOST_POINTER, d),
                     CUABI_ERROR_INVALID_VALUE);
    /* The plural answers NULL for the missing alias instead. */
    back = host;
    CU_OK(cuPointerGetAttributes(2, both, data, d));
    assert_int_equal(got, d);
    assert_null(back);

    /* Managed memory is reached at the same address from both sides. */
    CU_OK(cuPointerGetAttribute(&got, CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, m));
    assert_int_equal(got, m);
    CU_OK(cuPointerGetAttribute(&back, CUABI_POINTER_ATTRIBUTE_HOST_POINTER, m + 4));
    assert_int_equal((uintptr_t)back, m + 4);

    /* Mapped page-locked memory: its device alias from the host pointer, the host pointer from the alias. */
    CU_OK(cuPointerGetAttribute(&got, CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, (uintptr_t)host + 16));
    assert_int_equal(got, alias + 16);
    CU_OK(cuPointerGetAttribute(&back, CUABI_POINTER_ATTRIBUTE_HOST_POINTER, alias));
    assert_ptr_equal(back, host);

    /* An address CUDA does not know. */
    assert_int_equal(cuPointerGetAttribute(&got, CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, 0x1000),
                     CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemFreeHost(host));
    CU_OK(cuMemFree_v2(m));
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* The process's resident memory in bytes, from /proc/self/statm. */
static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;

    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu %lu", &size, &resident), 2);
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

static void big_memory(void **state)
{
    const size_t gib = (size_t)1 << 30, bytes = 64 * gib, page = 4096;
    const size_t offsets[] = {0, 5 * gib + 123, 32 * gib, bytes - 8};
    cuabi_deviceptr p = 0, q = 0;
    size_t before, total = 0, free_bytes = 0;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuDeviceTotalMem_v2(&total, 0));
    assert_true(total > bytes);
    before = resident_bytes();
    CU_OK(cuMemAlloc_v2(&p, bytes));
    assert_int_equal(gpu_fake_device_used(0), bytes);
    CU_OK(cuMemGetInfo_v2(&free_bytes, &total));
    assert_int_equal(free_bytes, total - bytes);
    for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
        uint64_t v = 0x0123456789abcdefull + i, back = 0, zero = 1;

        CU_OK(cuMemcpyHtoD_v2(p + offsets[i], &v, sizeof(v)));
        CU_OK(cuMemcpyDtoH_v2(&back, p + offsets[i], sizeof(back)));
        assert_int_equal(back, v);
        /* Memory never written reads as zero, as a fresh allocation does here. */
        CU_OK(cuMemcpyDtoH_v2(&zero, p + offsets[i] + (offsets[i] >= page ? -page : page), sizeof(zero)));
        assert_int_equal(zero, 0);
    }
    CU_OK(cuMemsetD8_v2(p + 7 * gib, 0x5a, page));
    /* A few pages touched: the process did not grow by anything like the allocation. */
    assert_true(resident_bytes() - before < 64 * ((size_t)1 << 20));
    /* Past the rest of the device's memory: out of memory, and nothing changes. */
    assert_int_equal(cuMemAlloc_v2(&q, total - bytes + 1), CUABI_ERROR_OUT_OF_MEMORY);
    assert_int_equal(gpu_fake_device_used(0), bytes);
    CU_OK(cuMemFree_v2(p));
    assert_int_equal(gpu_fake_device_used(0), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    /* A limit below the size: the same request is out of memory. */
    assert_int_equal(gpu_fake_memory_limit(0, 32 * gib), 0);
    assert_int_equal(cuMemAlloc_v2(&p, bytes), CUABI_ERROR_OUT_OF_MEMORY);
    CU_OK(cuMemAlloc_v2(&p, 16 * gib));
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/*
 * Whether this process can map `bytes` as the fake does (no swap reserved):
 * not under valgrind, whose address space is smaller. Without it the case is skipped.
 */
static bool can_map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (p == MAP_FAILED)
        return false;
    munmap(p, bytes);
    return true;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(async_alloc_use_free),
        cmocka_unit_test(pool_threshold_and_trim),
        cmocka_unit_test(async_arguments),
        cmocka_unit_test(pointer_info_and_view),
        cmocka_unit_test(memory_info),
        cmocka_unit_test(managed),
        cmocka_unit_test(priorities),
        cmocka_unit_test(graph_update),
        cmocka_unit_test(ipc_same_process),
        cmocka_unit_test(ipc_dead_producer),
        cmocka_unit_test(wait_released_by_write),
        cmocka_unit_test(wait_conditions),
    };
    static const ft_case cases[] = {
        {"pointers", cmocka_unit_test(pointers)},
        {"big-memory", cmocka_unit_test(big_memory)},
    };

    if (argc > 0 && strchr(argv[0], '/'))
        self_path = argv[0];
    if (argc == 3 && strcmp(argv[1], "--produce") == 0)
        return produce(atoi(argv[2]));
    if (argc == 2 && strcmp(argv[1], "big-memory") == 0 && !can_map((size_t)64 << 30)) {
        printf("skipped: this process cannot map 64 GiB (valgrind's address space is smaller)\n");
        return 77;
    }
    return ft_run(argc, argv, "fake-memory", tests, sizeof(tests) / sizeof(tests[0]), setup, teardown,
                  cases, sizeof(cases) / sizeof(cases[0]));
}
