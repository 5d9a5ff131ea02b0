/* SPDX-License-Identifier: MIT */
/*
 * Every public function that calls the driver, with every driver call it
 * makes failed in turn. For each operation the sweep first runs it and asks
 * the fake which entry points it called and how often; then for each of those
 * calls it runs the operation again with exactly that call failing, and checks
 * the status, gpu_last_error_get_cuda_result(), a message naming the entry point, that
 * out pointers are untouched, that nothing leaked, and that the thread's
 * current context is as it was. It does so with the calling thread holding no
 * context, the operation's own, and another device's (which makes gpushim push
 * and pop), and with two CUresults: one that maps to the operation's category
 * and CUDA_ERROR_OUT_OF_MEMORY, which maps to GPU_ERR_OUT_OF_MEMORY everywhere.
 *
 * Runs with GPUSHIM_FAKE_DEVICES=2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_test.h"

#define SENTINEL ((void *)&fx)

static const struct {
    const char *name;
    const char *symbol;
} entries[] = {
#define GPU__ENTRY(need, name, symbol, params, args) {#name, #symbol},
#include "entry_points.h"
#undef GPU__ENTRY
};
enum { ENTRY_COUNT = sizeof(entries) / sizeof(entries[0]) };

/* The objects the operations work on; made once for the whole program. */
static struct {
    gpu_context *ctx[2];
    gpu_stream *s, *nb, *s1;
    gpu_event *e, *t0, *t1, *e1;
    gpu_module *m;
    gpu_function *f;
    gpu_buffer *b, *b1;
    gpu_graph *g;
    gpu_graph_exec *x;
    char path[64];
    uint32_t host[64];
    /* What prepare() made for the operation under test. */
    void *tmp;
    gpu_module *tmp_module;
    /* Memory and interop. */
    gpu_buffer *managed, *flags; /* flags: u32 1 at 0, u64 1 at 8, written at 16 and 24 */
    gpu_event *ipc_event;
    gpu_ipc_handle ipc;
    gpu_ipc_event_handle ipc_e;
    char dot[64];
} fx;

struct want {
    const char *entry; /* base name */
    gpu_status status; /* GPU_OK: the call still succeeds */
};

typedef struct op {
    const char *name;
    int ctx;                                /* whose objects: device 0's or 1's */
    bool is_void;                           /* a destroy: every failure is swallowed */
    void (*prepare)(void);                  /* before each run, not swept */
    gpu_status (*run)(void **made);         /* swept; *made: what it created */
    void (*undo)(void *made);               /* after a successful run */
    void (*recover)(void);                  /* after a run with an injected failure */
    void (*finish)(void);                   /* after each run */
    struct want wants[8];
} op;

/* ---- Operations ---- */

static gpu_status run_device_count(void **made)
{
    int n = -7;
    gpu_status st = gpu_device_get_count(&n);

    (void)made;
    assert_int_equal(n, st == GPU_OK ? gpu_fake_device_count() : -7);
    return st;
}

static gpu_status run_device_get_info(void **made)
{
    gpu_device_info info, before;
    gpu_fake_device_desc d;
    gpu_status st;

    (void)made;
    memset(&info, 0x5a, sizeof(info));
    before = info;
    st = gpu_device_get_info(0, &info);
    if (st != GPU_OK) {
        assert_memory_equal(&info, &before, sizeof(info));
        return st;
    }
    assert_int_equal(gpu_fake_device_get(0, &d), 0);
    assert_string_equal(info.name, d.name);
    assert_int_equal(info.total_memory, d.total_memory);
    assert_int_equal(info.multiprocessors, d.multiprocessors);
    /* The bus id alone may be missing: a driver that cannot tell still describes the device. */
    assert_true(strcmp(info.pci_bus_id, d.pci_bus_id) == 0 || info.pci_bus_id[0] == '\0');
    return st;
}

static gpu_status run_can_access_peer(void **made)
{
    bool can = false;
    gpu_status st = gpu_device_can_access_peer(0, 1, &can);

    (void)made;
    assert_int_equal(can, st == GPU_OK);
    return st;
}

static gpu_status run_context_create(void **made)
{
    gpu_context *c = SENTINEL;
    gpu_status st = gpu_context_retain_primary(0, &c);

    if (st != GPU_OK)
        assert_ptr_equal(c, SENTINEL);
    *made = c;
    return st;
}

static void undo_context(void *made)
{
    gpu_context_destroy(made);
}

static void prepare_context(void)
{
    FT_OK(gpu_context_retain_primary(0, (gpu_context **)&fx.tmp));
}

static gpu_status run_context_destroy(void **made)
{
    (void)made;
    gpu_context_destroy(fx.tmp);
    return GPU_OK;
}

static gpu_status run_context_synchronize(void **made)
{
    (void)made;
    return gpu_context_synchronize(fx.ctx[0]);
}

static gpu_status run_default_synchronize(void **made)
{
    (void)made;
    return gpu_context_synchronize(NULL);
}

static gpu_status run_enable_peer(void **made)
{
    (void)made;
    return gpu_context_enable_peer_access(fx.ctx[0], fx.ctx[1]);
}

static gpu_status run_stream_create(void **made)
{
    gpu_stream *s = SENTINEL;
    gpu_status st = gpu_stream_create(fx.ctx[0], &s);

    if (st != GPU_OK)
        assert_ptr_equal(s, SENTINEL);
    *made = s;
    return st;
}

static gpu_status run_stream_create_nb(void **made)
{
    gpu_stream *s = SENTINEL;
    gpu_status st = gpu_stream_create_non_blocking(NULL, &s);

    if (st != GPU_OK)
        assert_ptr_equal(s, SENTINEL);
    *made = s;
    return st;
}

static void undo_stream(void *made)
{
    gpu_stream_destroy(made);
}

static void prepare_stream(void)
{
    FT_OK(gpu_stream_create(fx.ctx[0], (gpu_stream **)&fx.tmp));
}

static gpu_status run_stream_destroy(void **made)
{
    (void)made;
    gpu_stream_destroy(fx.tmp);
    return GPU_OK;
}

static gpu_status run_stream_synchronize(void **made)
{
    (void)made;
    return gpu_stream_synchronize(fx.s);
}

static gpu_status run_default_stream_synchronize(void **made)
{
    (void)made;
    return gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM);
}

static gpu_status run_stream_query(void **made)
{
    bool idle = false;
    gpu_status st = gpu_stream_is_complete(fx.s, &idle);

    (void)made;
    assert_int_equal(idle, st == GPU_OK);
    return st;
}

static gpu_status run_dtod_sync(void **made)
{
    (void)made;
    return gpu_buffer_copy_device_ptr(fx.s, gpu_buffer_get_device_ptr(fx.b) + 128, gpu_buffer_get_device_ptr(fx.b), 64);
}

static void count_call(void *user_data)
{
    ++*(int *)user_data;
}

static int host_calls;

static gpu_status run_host_func(void **made)
{
    (void)made;
    return gpu_stream_launch_host_func(fx.s, count_call, &host_calls);
}

static void undo_sync_s(void *made)
{
    (void)made;
    FT_OK(gpu_stream_synchronize(fx.s));
}

static gpu_status run_record_event(void **made)
{
    (void)made;
    return gpu_stream_record_event(fx.s, fx.e);
}

static gpu_status run_wait_event(void **made)
{
    (void)made;
    return gpu_stream_wait_event(fx.s, fx.e1);
}

static void prepare_wait_event(void)
{
    /* An event of the other device, with work still queued before it. */
    FT_OK(gpu_buffer_copy_from_host_async(fx.b1, fx.host, 64, fx.s1));
    FT_OK(gpu_stream_record_event(fx.s1, fx.e1));
}

static gpu_status run_event_create(void **made)
{
    gpu_event *e = SENTINEL;
    gpu_status st = gpu_event_create(fx.ctx[0], &e);

    if (st != GPU_OK)
        assert_ptr_equal(e, SENTINEL);
    *made = e;
    return st;
}

static gpu_status run_event_create_timed(void **made)
{
    gpu_event *e = SENTINEL;
    gpu_status st = gpu_event_create_timed(NULL, &e);

    if (st != GPU_OK)
        assert_ptr_equal(e, SENTINEL);
    *made = e;
    return st;
}

static void undo_event(void *made)
{
    gpu_event_destroy(made);
}

static void prepare_event(void)
{
    FT_OK(gpu_event_create(fx.ctx[0], (gpu_event **)&fx.tmp));
}

static gpu_status run_event_destroy(void **made)
{
    (void)made;
    gpu_event_destroy(fx.tmp);
    return GPU_OK;
}

static gpu_status run_event_is_complete(void **made)
{
    bool done = false;
    gpu_status st = gpu_event_is_complete(fx.e, &done);

    (void)made;
    assert_int_equal(done, st == GPU_OK);
    return st;
}

static gpu_status run_event_synchronize(void **made)
{
    (void)made;
    return gpu_event_synchronize(fx.e);
}

static gpu_status run_elapsed(void **made)
{
    float ms = -3.0f;
    gpu_status st = gpu_event_get_elapsed_ms(fx.t0, fx.t1, &ms);

    (void)made;
    if (st != GPU_OK)
        assert_true(ms == -3.0f);
    else
        assert_true(ms > 0.0f);
    return st;
}

static gpu_status run_begin_capture(void **made)
{
    (void)made;
    return gpu_stream_begin_capture(fx.nb, GPU_CAPTURE_MODE_RELAXED);
}

static void undo_begin_capture(void *made)
{
    gpu_graph *g = NULL;

    (void)made;
    FT_OK(gpu_stream_end_capture(fx.nb, &g));
    gpu_graph_destroy(g);
}

static void prepare_end_capture(void)
{
    FT_OK(gpu_stream_begin_capture(fx.nb, GPU_CAPTURE_MODE_GLOBAL));
    FT_OK(gpu_stream_launch_function(fx.nb, fx.f, &(gpu_launch_config){.grid = {1, 1, 1}, .block = {4, 1, 1}, .shared_mem_bytes = 0},
                                     (void *[]){&(uint64_t){gpu_buffer_get_device_ptr(fx.b)}, &(uint32_t){4}}));
}

static gpu_status run_end_capture(void **made)
{
    gpu_graph *g = SENTINEL;
    gpu_status st = gpu_stream_end_capture(fx.nb, &g);

    if (st != GPU_OK)
        assert_ptr_equal(g, SENTINEL);
    *made = g;
    return st;
}

static void undo_graph(void *made)
{
    gpu_graph_destroy(made);
}

/* An injected failure kept the capture open, which the real driver would have ended. */
static void recover_capture(void)
{
    cuabi_stream_capture_status status = CUABI_STREAM_CAPTURE_STATUS_NONE;
    cuabi_graph g = NULL;

    assert_int_equal(cuCtxSetCurrent(gpu_context_get_raw(fx.ctx[0])), CUABI_SUCCESS);
    assert_int_equal(cuStreamIsCapturing(gpu_stream_get_raw(fx.nb), &status), CUABI_SUCCESS);
    if (status != CUABI_STREAM_CAPTURE_STATUS_NONE && cuStreamEndCapture(gpu_stream_get_raw(fx.nb), &g) == CUABI_SUCCESS)
        assert_int_equal(cuGraphDestroy(g), CUABI_SUCCESS);
}

static gpu_status run_is_capturing(void **made)
{
    bool capturing = true;
    gpu_status st = gpu_stream_is_capturing(fx.nb, &capturing);

    (void)made;
    assert_int_equal(capturing, st != GPU_OK);
    return st;
}

static gpu_status run_instantiate(void **made)
{
    gpu_graph_exec *x = SENTINEL;
    gpu_status st = gpu_graph_instantiate(fx.g, &x);

    if (st != GPU_OK)
        assert_ptr_equal(x, SENTINEL);
    *made = x;
    return st;
}

static void undo_exec(void *made)
{
    gpu_graph_exec_destroy(made);
}

static gpu_status run_launch_graph(void **made)
{
    (void)made;
    return gpu_stream_launch_graph(fx.nb, fx.x);
}

static void undo_sync_nb(void *made)
{
    (void)made;
    FT_OK(gpu_stream_synchronize(fx.nb));
}

static void prepare_graph(void)
{
    FT_OK(gpu_stream_begin_capture(fx.nb, GPU_CAPTURE_MODE_THREAD_LOCAL));
    FT_OK(gpu_stream_end_capture(fx.nb, (gpu_graph **)&fx.tmp));
}

static gpu_status run_graph_destroy(void **made)
{
    (void)made;
    gpu_graph_destroy(fx.tmp);
    return GPU_OK;
}

static void prepare_exec(void)
{
    FT_OK(gpu_graph_instantiate(fx.g, (gpu_graph_exec **)&fx.tmp));
}

static gpu_status run_exec_destroy(void **made)
{
    (void)made;
    gpu_graph_exec_destroy(fx.tmp);
    return GPU_OK;
}

static gpu_status run_module_load(void **made)
{
    gpu_module *m = SENTINEL;
    gpu_status st = gpu_module_load_data(fx.ctx[0], ft_ptx, strlen(ft_ptx) + 1, &m);

    if (st != GPU_OK)
        assert_ptr_equal(m, SENTINEL);
    *made = m;
    return st;
}

static gpu_status run_module_load_file(void **made)
{
    gpu_module *m = SENTINEL;
    gpu_status st = gpu_module_load_file(NULL, fx.path, &m);

    if (st != GPU_OK)
        assert_ptr_equal(m, SENTINEL);
    *made = m;
    return st;
}

static void undo_module(void *made)
{
    gpu_module_destroy(made);
}

static void prepare_module(void)
{
    FT_OK(gpu_module_load_data(fx.ctx[0], ft_ptx, strlen(ft_ptx), &fx.tmp_module));
}

static void finish_module(void)
{
    FT_OK(gpu_context_synchronize(fx.ctx[0]));
    gpu_module_destroy(fx.tmp_module);
    fx.tmp_module = NULL;
}

static gpu_status run_module_destroy(void **made)
{
    (void)made;
    gpu_module_destroy(fx.tmp_module);
    fx.tmp_module = NULL;
    return GPU_OK;
}

static gpu_status run_get_function(void **made)
{
    gpu_function *f = SENTINEL;
    gpu_status st = gpu_module_get_function(fx.tmp_module, "scale_add", &f);

    (void)made;
    if (st != GPU_OK)
        assert_ptr_equal(f, SENTINEL);
    else
        assert_non_null(gpu_function_get_raw(f));
    return st;
}

static gpu_status run_launch_kernel(void **made)
{
    (void)made;
    return ft_add_one(fx.s, fx.tmp_module, fx.b, 64);
}

static gpu_status run_launch_function(void **made)
{
    uint64_t ptr = gpu_buffer_get_device_ptr(fx.b);
    uint32_t n = 64;
    void *args[] = {&ptr, &n};
    gpu_launch_config c = gpu_launch_config_1d(1, 64);

    (void)made;
    return gpu_stream_launch_function(fx.s, fx.f, &c, args);
}

static gpu_status run_buffer_create(void **made)
{
    gpu_buffer *b = SENTINEL;
    gpu_status st = gpu_buffer_create(fx.ctx[0], 100, &b);

    if (st != GPU_OK)
        assert_ptr_equal(b, SENTINEL);
    *made = b;
    return st;
}

static void undo_buffer(void *made)
{
    gpu_buffer_destroy(made);
}

static void prepare_buffer(void)
{
    FT_OK(gpu_buffer_create(NULL, 16, (gpu_buffer **)&fx.tmp));
}

static gpu_status run_buffer_destroy(void **made)
{
    (void)made;
    gpu_buffer_destroy(fx.tmp);
    return GPU_OK;
}

static gpu_status run_copy_from_host(void **made)
{
    (void)made;
    return gpu_buffer_copy_from_host(fx.b, fx.host, sizeof(fx.host));
}

static gpu_status run_copy_to_host(void **made)
{
    uint32_t out[64];
    gpu_status st;

    (void)made;
    memset(out, 0x77, sizeof(out));
    st = gpu_buffer_copy_to_host(fx.b, out, sizeof(out));
    /* A copy that failed wrote nothing; one whose context could not be popped after it did copy. */
    for (int i = 0; st != GPU_OK && !strstr(gpu_last_error_get_message(), "cuCtxPopCurrent") && i < 64; i++)
        assert_int_equal(out[i], 0x77777777u);
    return st;
}

static gpu_status run_copy_from_host_async(void **made)
{
    (void)made;
    return gpu_buffer_copy_from_host_async(fx.b, fx.host, sizeof(fx.host), fx.s);
}

static gpu_status run_copy_to_host_async(void **made)
{
    (void)made;
    return gpu_buffer_copy_to_host_async(fx.b, fx.host, sizeof(fx.host), fx.s);
}

static gpu_status run_copy_async(void **made)
{
    (void)made;
    return gpu_buffer_copy_async(fx.b, fx.b, 64, fx.s);
}

static gpu_status run_copy_peer(void **made)
{
    (void)made;
    return gpu_buffer_copy_async(fx.b1, fx.b, 64, fx.s1);
}

static void undo_sync_s1(void *made)
{
    (void)made;
    FT_OK(gpu_stream_synchronize(fx.s1));
}

static gpu_status run_host_create(void **made)
{
    gpu_host_buffer *h = SENTINEL;
    gpu_status st = gpu_host_buffer_create(fx.ctx[0], 256, &h);

    if (st != GPU_OK)
        assert_ptr_equal(h, SENTINEL);
    *made = h;
    return st;
}

static gpu_status run_host_register(void **made)
{
    gpu_host_buffer *h = SENTINEL;
    gpu_status st = gpu_host_buffer_register(fx.ctx[0], fx.host, sizeof(fx.host), &h);

    if (st != GPU_OK)
        assert_ptr_equal(h, SENTINEL);
    else
        assert_ptr_equal(gpu_host_buffer_get_data(h), fx.host);
    *made = h;
    return st;
}

static void undo_host(void *made)
{
    gpu_host_buffer_destroy(made);
}

static void prepare_host(void)
{
    FT_OK(gpu_host_buffer_create(NULL, 32, (gpu_host_buffer **)&fx.tmp));
}

static void prepare_host_registered(void)
{
    FT_OK(gpu_host_buffer_register(NULL, fx.host, sizeof(fx.host), (gpu_host_buffer **)&fx.tmp));
}

static gpu_status run_host_destroy(void **made)
{
    (void)made;
    gpu_host_buffer_destroy(fx.tmp);
    return GPU_OK;
}

/* ---- Kernels: attributes, occupancy, extended launches, memset, globals, limits ---- */

static const char kernels_ptx[] = ".version 8.0\n"
                                  ".fake_kernel launch_ex_info\n"
                                  ".fake_kernel fill_u32\n"
                                  ".fake_global table 64\n";

/* Made on first use, destroyed by teardown(). */
static struct {
    gpu_module *m;
    gpu_function *info, *fill;
} kx;

static void kernels_setup(void)
{
    if (kx.m)
        return;
    FT_OK(gpu_module_load_data(fx.ctx[0], kernels_ptx, strlen(kernels_ptx), &kx.m));
    FT_OK(gpu_module_get_function(kx.m, "launch_ex_info", &kx.info));
    FT_OK(gpu_module_get_function(kx.m, "fill_u32", &kx.fill));
    FT_OK(gpu_function_set_attribute(kx.fill, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, 64 * 1024));
}

static void kernels_teardown(void)
{
    gpu_module_destroy(kx.m);
    kx.m = NULL;
}

static gpu_status run_device_get_attribute(void **made)
{
    int v = -7;
    gpu_status st = gpu_device_get_attribute(0, GPU_DEVICE_ATTR_WARP_SIZE, &v);

    (void)made;
    assert_int_equal(v, st == GPU_OK ? 32 : -7);
    return st;
}

static gpu_status run_device_get_uuid(void **made)
{
    gpu_uuid u;
    gpu_status st;

    (void)made;
    memset(&u, 0x5a, sizeof(u));
    st = gpu_device_get_uuid(1, &u);
    assert_int_equal(u.bytes[15], st == GPU_OK ? 32 : 0x5a);
    return st;
}

static gpu_status run_get_limit(void **made)
{
    size_t v = 7;
    gpu_status st = gpu_context_get_limit(fx.ctx[0], GPU_LIMIT_PRINTF_FIFO_SIZE, &v);

    (void)made;
    if (st == GPU_OK)
        assert_true(v > 7);
    else
        assert_int_equal(v, 7);
    return st;
}

static gpu_status run_set_limit(void **made)
{
    (void)made;
    return gpu_context_set_limit(fx.ctx[0], GPU_LIMIT_MALLOC_HEAP_SIZE, 16 << 20);
}

static gpu_status run_function_get_attribute(void **made)
{
    int v = -7;
    gpu_status st;

    (void)made;
    kernels_setup();
    st = gpu_function_get_attribute(kx.fill, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, &v);
    assert_int_equal(v, st == GPU_OK ? 64 * 1024 : -7);
    return st;
}

static gpu_status run_function_set_attribute(void **made)
{
    (void)made;
    kernels_setup();
    return gpu_function_set_attribute(kx.info, GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT, 50);
}

static gpu_status run_function_set_cache_config(void **made)
{
    (void)made;
    kernels_setup();
    return gpu_function_set_cache_config(kx.info, GPU_CACHE_PREFER_L1);
}

static gpu_status run_max_active_blocks(void **made)
{
    int n = -7;
    gpu_status st;

    (void)made;
    kernels_setup();
    st = gpu_function_get_max_active_blocks(kx.info, 256, 0, &n);
    assert_int_equal(n, st == GPU_OK ? 8 : -7);
    return st;
}

static gpu_status run_occupancy_block_size(void **made)
{
    int grid = 7, block = 7;
    gpu_status st;

    (void)made;
    kernels_setup();
    st = gpu_function_get_occupancy_block_size(kx.info, 0, 0, &grid, &block);
    if (st == GPU_OK)
        assert_true(block >= 32 && block <= 1024 && grid > 0);
    else
        assert_true(grid == 7 && block == 7);
    return st;
}

static gpu_status run_max_active_clusters(void **made)
{
    gpu_launch_config c = {.grid = {2, 1, 1}, .block = {128, 1, 1}, .cluster = {2, 1, 1}};
    int n = -7;
    gpu_status st;

    (void)made;
    kernels_setup();
    st = gpu_function_get_max_active_clusters(kx.info, &c, &n);
    assert_true(st == GPU_OK ? n > 0 : n == -7);
    return st;
}

/* An extended launch of launch_ex_info into fx.b; undo_sync_s then checks nothing more. */
static gpu_status launch_ex(const gpu_launch_config *c)
{
    uint64_t ptr = gpu_buffer_get_device_ptr(fx.b);

    kernels_setup();
    return gpu_stream_launch_function(fx.s, kx.info, c, (void *[]){&ptr});
}

static gpu_status run_launch_cooperative(void **made)
{
    (void)made;
    return launch_ex(&(gpu_launch_config){.grid = {4, 1, 1}, .block = {64, 1, 1}, .cooperative = true});
}

static gpu_status run_launch_cluster(void **made)
{
    (void)made;
    return launch_ex(&(gpu_launch_config){.grid = {4, 1, 1}, .block = {64, 1, 1}, .cluster = {2, 1, 1},
                                          .programmatic_serialization = true, .priority = -1});
}

static gpu_status run_launch_big_shared(void **made)
{
    uint64_t ptr = gpu_buffer_get_device_ptr(fx.b);
    uint32_t v = 9, n = 8;

    (void)made;
    kernels_setup();
    return gpu_stream_launch_function(fx.s, kx.fill,
                                      &(gpu_launch_config){.grid = {1, 1, 1}, .block = {8, 1, 1},
                                                           .shared_mem_bytes = 64 * 1024},
                                      (void *[]){&ptr, &v, &n});
}

static gpu_status run_memset8(void **made)
{
    (void)made;
    return gpu_buffer_memset(fx.b, 1, 7, 1, 0xab);
}

static gpu_status run_memset16(void **made)
{
    (void)made;
    return gpu_buffer_memset(fx.b, 2, 7, 2, 0xabcd);
}

static gpu_status run_memset32(void **made)
{
    (void)made;
    return gpu_buffer_memset(fx.b, 4, 7, 4, 0xabcdef01u);
}

static gpu_status run_memset8_async(void **made)
{
    (void)made;
    return gpu_buffer_memset_async(fx.b, 1, 7, 1, 0xab, fx.s);
}

static gpu_status run_memset16_async(void **made)
{
    (void)made;
    return gpu_buffer_memset_async(fx.b, 2, 7, 2, 0xabcd, fx.s);
}

static gpu_status run_memset32_async(void **made)
{
    (void)made;
    return gpu_buffer_memset_async(fx.b, 4, 7, 4, 0xabcdef01u, fx.s);
}

static gpu_status run_get_global(void **made)
{
    uint64_t address = 7;
    size_t bytes = 7;
    gpu_status st;

    (void)made;
    kernels_setup();
    st = gpu_module_get_global(kx.m, "table", &address, &bytes);
    if (st == GPU_OK)
        assert_true(address != 7 && bytes == 64);
    else
        assert_true(address == 7 && bytes == 7);
    return st;
}

static gpu_status run_copy_to_global(void **made)
{
    (void)made;
    kernels_setup();
    return gpu_module_copy_to_global(kx.m, "table", fx.host, 64);
}

static gpu_status run_copy_from_global(void **made)
{
    uint32_t out[16];

    (void)made;
    kernels_setup();
    return gpu_module_copy_from_global(kx.m, "table", out, sizeof(out));
}

static gpu_status run_tensor_map(void **made)
{
    gpu_tensor_map map;
    gpu_tensor_tiled d = {.type = GPU_TENSOR_UINT32, .rank = 2, .dims = {16, 4}, .strides = {64}, .box = {4, 2}};
    gpu_status st;

    (void)made;
    memset(&map, 0x33, sizeof(map));
    st = gpu_tensor_map_encode_tiled(fx.b, 0, &d, &map);
    assert_true(st == GPU_OK ? map.opaque[1] == gpu_buffer_get_device_ptr(fx.b) : map.opaque[1] == 0x3333333333333333ull);
    return st;
}
/* ---- Memory and interop ---- */

/* A creation returning a buffer: the out-pointer untouched on failure. */
#define RUN_MADE(type, call) \
    type *made_ = SENTINEL; \
    gpu_status st_ = (call); \
    if (st_ != GPU_OK) \
        assert_ptr_equal(made_, SENTINEL); \
    *made = made_; \
    return st_

static gpu_status run_buffer_create_async(void **made)
{
    RUN_MADE(gpu_buffer, gpu_buffer_create_async(fx.s, 64, &made_));
}

static void undo_buffer_sync(void *made)
{
    gpu_buffer_destroy(made);
    FT_OK(gpu_stream_synchronize(fx.s));
}

static void prepare_buffer_async(void)
{
    FT_OK(gpu_buffer_create_async(fx.s, 32, (gpu_buffer **)&fx.tmp));
}

static gpu_status run_buffer_free_async(void **made)
{
    (void)made;
    /* Consumed whatever happens: freed on the stream, or at once. */
    return gpu_buffer_destroy_async(fx.tmp, fx.s);
}

static void finish_free_async(void)
{
    FT_OK(gpu_stream_synchronize(fx.s));
}

static gpu_status run_pool_set_threshold(void **made)
{
    (void)made;
    return gpu_context_pool_set_release_threshold(fx.ctx[0], 0);
}

static gpu_status run_pool_threshold(void **made)
{
    uint64_t t = 77;
    gpu_status st = gpu_context_pool_get_release_threshold(fx.ctx[0], &t);

    (void)made;
    assert_int_equal(t, st == GPU_OK ? 0 : 77);
    return st;
}

static gpu_status run_pool_trim(void **made)
{
    (void)made;
    return gpu_context_pool_trim(fx.ctx[0], 0);
}

static gpu_status run_pool_usage(void **made)
{
    uint64_t r = 77, u = 77;
    gpu_status st = gpu_context_pool_get_usage(fx.ctx[0], &r, &u);

    (void)made;
    if (st != GPU_OK)
        assert_true(r == 77 && u == 77);
    return st;
}

static gpu_status run_memory_info(void **made)
{
    size_t f = 77, t = 77;
    gpu_status st = gpu_context_get_memory_info(fx.ctx[0], &f, &t);
    gpu_fake_device_desc d;

    (void)made;
    assert_int_equal(gpu_fake_device_get(0, &d), 0);
    if (st != GPU_OK)
        assert_true(f == 77 && t == 77);
    else
        assert_true(t == d.total_memory && f < t);
    return st;
}

static gpu_status run_pointer_info(void **made)
{
    gpu_pointer_info info = {.device = 77};
    gpu_status st = gpu_pointer_get_info(gpu_buffer_get_device_ptr(fx.b), &info);

    (void)made;
    assert_int_equal(info.device, st == GPU_OK ? 0 : 77);
    return st;
}

static gpu_status run_buffer_wrap(void **made)
{
    RUN_MADE(gpu_buffer, gpu_buffer_wrap(fx.ctx[0], gpu_buffer_get_device_ptr(fx.b) + 16, 64, &made_));
}

static gpu_status run_buffer_create_managed(void **made)
{
    RUN_MADE(gpu_buffer, gpu_buffer_create_managed(fx.ctx[0], 64, &made_));
}

static gpu_status run_prefetch(void **made)
{
    (void)made;
    return gpu_buffer_prefetch_async(fx.managed, GPU_LOCATION_DEVICE, fx.s);
}

static gpu_status run_advise(void **made)
{
    (void)made;
    return gpu_buffer_advise(fx.managed, GPU_ADVISE_SET_ACCESSED_BY, GPU_LOCATION_DEVICE);
}

static gpu_status run_stream_create_priority(void **made)
{
    RUN_MADE(gpu_stream, gpu_stream_create_with_priority(fx.ctx[0], GPU_STREAM_NON_BLOCKING, -1, &made_));
}

static gpu_status run_stream_priority(void **made)
{
    int p = 77;
    gpu_status st = gpu_stream_get_priority(fx.s, &p);

    (void)made;
    assert_int_equal(p, st == GPU_OK ? 0 : 77);
    return st;
}

static gpu_status run_priority_range(void **made)
{
    int least = 77, greatest = 77;
    gpu_status st = gpu_context_get_stream_priority_range(fx.ctx[0], &least, &greatest);

    (void)made;
    assert_int_equal(greatest, st == GPU_OK ? -5 : 77);
    return st;
}

static gpu_status run_exec_update(void **made)
{
    (void)made;
    return gpu_graph_exec_update(fx.x, fx.g);
}

static gpu_status run_exec_upload(void **made)
{
    (void)made;
    return gpu_graph_exec_upload(fx.x, fx.nb);
}

static gpu_status run_capture_info(void **made)
{
    gpu_capture_status status = GPU_CAPTURE_STATUS_INVALIDATED;
    gpu_status st = gpu_stream_get_capture_info(fx.nb, &status, NULL);

    (void)made;
    assert_int_equal(status, st == GPU_OK ? GPU_CAPTURE_STATUS_NONE : GPU_CAPTURE_STATUS_INVALIDATED);
    return st;
}

static gpu_status run_write_dot(void **made)
{
    (void)made;
    return gpu_graph_write_dot(fx.g, fx.dot, false);
}

static void finish_dot(void)
{
    unlink(fx.dot);
}

static gpu_status run_buffer_ipc_handle(void **made)
{
    gpu_ipc_handle h = {.size = 77};
    gpu_status st = gpu_buffer_get_ipc_handle(fx.b, &h);

    (void)made;
    assert_int_equal(h.size, st == GPU_OK ? 256 : 77);
    return st;
}

static gpu_status run_buffer_open_ipc(void **made)
{
    RUN_MADE(gpu_buffer, gpu_buffer_open_ipc(fx.ctx[0], &fx.ipc, &made_));
}

static gpu_status run_event_create_interprocess(void **made)
{
    RUN_MADE(gpu_event, gpu_event_create_interprocess(fx.ctx[0], &made_));
}

static gpu_status run_event_ipc_handle(void **made)
{
    gpu_ipc_event_handle h;

    (void)made;
    return gpu_event_get_ipc_handle(fx.ipc_event, &h);
}

static gpu_status run_event_open_ipc(void **made)
{
    RUN_MADE(gpu_event, gpu_event_open_ipc(fx.ctx[0], &fx.ipc_e, &made_));
}

static gpu_status run_write_value32(void **made)
{
    (void)made;
    return gpu_stream_write_value32(fx.s, fx.flags, 16, 5);
}

static gpu_status run_write_value64(void **made)
{
    (void)made;
    return gpu_stream_write_value64(fx.s, fx.flags, 24, 5);
}

static gpu_status run_wait_value32(void **made)
{
    (void)made;
    return gpu_stream_wait_value32(fx.s, fx.flags, 0, 1, GPU_WAIT_EQ);
}

static gpu_status run_wait_value64(void **made)
{
    (void)made;
    return gpu_stream_wait_value64(fx.s, fx.flags, 8, 1, GPU_WAIT_GEQ);
}
/* ---- end of memory and interop ---- */

#define W(entry, status) {entry, status}

static const op ops[] = {
    {"gpu_device_get_count", 0, false, NULL, run_device_count, NULL, NULL, NULL,
     {W("cuDeviceGetCount", GPU_ERR_DRIVER)}},
    {"gpu_device_get_info", 0, false, NULL, run_device_get_info, NULL, NULL, NULL,
     {W("cuDeviceGet", GPU_ERR_NO_DEVICE), W("cuDeviceGetName", GPU_ERR_DRIVER), W("cuDeviceTotalMem", GPU_ERR_DRIVER),
      W("cuDeviceGetAttribute", GPU_ERR_DRIVER), W("cuDeviceGetPCIBusId", GPU_OK), W("cuDeviceGetUuid", GPU_OK)}},
    {"gpu_device_can_access_peer", 0, false, NULL, run_can_access_peer, NULL, NULL, NULL,
     {W("cuDeviceGet", GPU_ERR_NO_DEVICE), W("cuDeviceCanAccessPeer", GPU_ERR_DRIVER)}},
    {"gpu_context_retain_primary", 0, false, NULL, run_context_create, undo_context, NULL, NULL,
     {W("cuDeviceGet", GPU_ERR_NO_DEVICE), W("cuDevicePrimaryCtxRetain", GPU_ERR_CONTEXT)}},
    {"gpu_context_destroy", 0, true, prepare_context, run_context_destroy, NULL, NULL, NULL,
     {W("cuDevicePrimaryCtxRelease", GPU_OK)}},
    {"gpu_context_synchronize", 0, false, NULL, run_context_synchronize, NULL, NULL, NULL,
     {W("cuCtxSynchronize", GPU_ERR_STREAM_SYNC)}},
    {"gpu_context_synchronize(NULL)", 0, false, NULL, run_default_synchronize, NULL, NULL, NULL,
     {W("cuCtxSynchronize", GPU_ERR_STREAM_SYNC)}},
    {"gpu_context_enable_peer_access", 0, false, NULL, run_enable_peer, NULL, NULL, NULL,
     {W("cuCtxEnablePeerAccess", GPU_ERR_CONTEXT)}},
    {"gpu_stream_create", 0, false, NULL, run_stream_create, undo_stream, NULL, NULL,
     {W("cuStreamCreate", GPU_ERR_STREAM_CREATE)}},
    {"gpu_stream_create_non_blocking(NULL)", 0, false, NULL, run_stream_create_nb, undo_stream, NULL, NULL,
     {W("cuStreamCreate", GPU_ERR_STREAM_CREATE)}},
    {"gpu_stream_destroy", 0, true, prepare_stream, run_stream_destroy, NULL, NULL, NULL,
     {W("cuStreamDestroy", GPU_OK)}},
    {"gpu_stream_synchronize", 0, false, NULL, run_stream_synchronize, NULL, NULL, NULL,
     {W("cuStreamSynchronize", GPU_ERR_STREAM_SYNC)}},
    {"gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM)", 0, false, NULL, run_default_stream_synchronize, NULL, NULL, NULL,
     {W("cuStreamSynchronize", GPU_ERR_STREAM_SYNC)}},
    {"gpu_stream_is_complete", 0, false, NULL, run_stream_query, NULL, NULL, NULL,
     {W("cuStreamQuery", GPU_ERR_STREAM_SYNC)}},
    {"gpu_buffer_copy_device_ptr", 0, false, NULL, run_dtod_sync, NULL, NULL, NULL,
     {W("cuMemcpyDtoD", GPU_ERR_TRANSFER)}},
    {"gpu_stream_launch_host_func", 0, false, NULL, run_host_func, undo_sync_s, NULL, NULL,
     {W("cuLaunchHostFunc", GPU_ERR_KERNEL_LAUNCH)}},
    {"gpu_stream_record_event", 0, false, NULL, run_record_event, undo_sync_s, NULL, NULL,
     {W("cuEventRecord", GPU_ERR_EVENT)}},
    {"gpu_stream_wait_event", 0, false, prepare_wait_event, run_wait_event, undo_sync_s, NULL, NULL,
     {W("cuStreamWaitEvent", GPU_ERR_STREAM_SYNC)}},
    {"gpu_event_create", 0, false, NULL, run_event_create, undo_event, NULL, NULL,
     {W("cuEventCreate", GPU_ERR_EVENT)}},
    {"gpu_event_create_timed(NULL)", 0, false, NULL, run_event_create_timed, undo_event, NULL, NULL,
     {W("cuEventCreate", GPU_ERR_EVENT)}},
    {"gpu_event_destroy", 0, true, prepare_event, run_event_destroy, NULL, NULL, NULL,
     {W("cuEventDestroy", GPU_OK)}},
    {"gpu_event_is_complete", 0, false, NULL, run_event_is_complete, NULL, NULL, NULL,
     {W("cuEventQuery", GPU_ERR_EVENT)}},
    {"gpu_event_synchronize", 0, false, NULL, run_event_synchronize, NULL, NULL, NULL,
     {W("cuEventSynchronize", GPU_ERR_EVENT)}},
    {"gpu_event_get_elapsed_ms", 0, false, NULL, run_elapsed, NULL, NULL, NULL,
     {W("cuEventElapsedTime", GPU_ERR_EVENT)}},
    {"gpu_stream_begin_capture", 0, false, NULL, run_begin_capture, undo_begin_capture, recover_capture, NULL,
     {W("cuStreamBeginCapture", GPU_ERR_GRAPH_CAPTURE)}},
    {"gpu_stream_end_capture", 0, false, prepare_end_capture, run_end_capture, undo_graph, recover_capture, NULL,
     {W("cuStreamEndCapture", GPU_ERR_GRAPH_CAPTURE)}},
    {"gpu_stream_is_capturing", 0, false, NULL, run_is_capturing, NULL, NULL, NULL,
     {W("cuStreamIsCapturing", GPU_ERR_GRAPH_CAPTURE)}},
    {"gpu_graph_instantiate", 0, false, NULL, run_instantiate, undo_exec, NULL, NULL,
     {W("cuGraphInstantiateWithFlags", GPU_ERR_GRAPH_LAUNCH)}},
    {"gpu_stream_launch_graph", 0, false, NULL, run_launch_graph, undo_sync_nb, NULL, NULL,
     {W("cuGraphLaunch", GPU_ERR_GRAPH_LAUNCH)}},
    {"gpu_graph_destroy", 0, true, prepare_graph, run_graph_destroy, NULL, NULL, NULL,
     {W("cuGraphDestroy", GPU_OK)}},
    {"gpu_graph_exec_destroy", 0, true, prepare_exec, run_exec_destroy, NULL, NULL, NULL,
     {W("cuGraphExecDestroy", GPU_OK)}},
    {"gpu_module_load_data", 0, false, NULL, run_module_load, undo_module, NULL, NULL,
     {W("cuModuleLoadDataEx", GPU_ERR_MODULE_LOAD)}},
    {"gpu_module_load_file(NULL)", 0, false, NULL, run_module_load_file, undo_module, NULL, NULL,
     {W("cuModuleLoadDataEx", GPU_ERR_MODULE_LOAD)}},
    {"gpu_module_destroy", 0, true, prepare_module, run_module_destroy, NULL, NULL, NULL,
     {W("cuModuleUnload", GPU_OK)}},
    {"gpu_module_get_function", 0, false, prepare_module, run_get_function, NULL, NULL, finish_module,
     {W("cuModuleGetFunction", GPU_ERR_FUNCTION_NOT_FOUND)}},
    {"gpu_stream_launch_kernel", 0, false, prepare_module, run_launch_kernel, NULL, NULL, finish_module,
     {W("cuModuleGetFunction", GPU_ERR_FUNCTION_NOT_FOUND), W("cuLaunchKernel", GPU_ERR_KERNEL_LAUNCH)}},
    {"gpu_stream_launch_function", 0, false, NULL, run_launch_function, undo_sync_s, NULL, NULL,
     {W("cuLaunchKernel", GPU_ERR_KERNEL_LAUNCH)}},
    {"gpu_buffer_create", 0, false, NULL, run_buffer_create, undo_buffer, NULL, NULL,
     {W("cuMemAlloc", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_destroy", 0, true, prepare_buffer, run_buffer_destroy, NULL, NULL, NULL,
     {W("cuMemFree", GPU_OK)}},
    {"gpu_buffer_copy_from_host", 0, false, NULL, run_copy_from_host, NULL, NULL, NULL,
     {W("cuMemcpyHtoD", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_copy_to_host", 0, false, NULL, run_copy_to_host, NULL, NULL, NULL,
     {W("cuMemcpyDtoH", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_copy_from_host_async", 0, false, NULL, run_copy_from_host_async, undo_sync_s, NULL, NULL,
     {W("cuMemcpyHtoDAsync", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_copy_to_host_async", 0, false, NULL, run_copy_to_host_async, undo_sync_s, NULL, NULL,
     {W("cuMemcpyDtoHAsync", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_copy_async", 0, false, NULL, run_copy_async, undo_sync_s, NULL, NULL,
     {W("cuMemcpyDtoDAsync", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_copy_async(peer)", 1, false, NULL, run_copy_peer, undo_sync_s1, NULL, NULL,
     {W("cuMemcpyPeerAsync", GPU_ERR_TRANSFER)}},
    {"gpu_host_buffer_create", 0, false, NULL, run_host_create, undo_host, NULL, NULL,
     {W("cuMemHostAlloc", GPU_ERR_OUT_OF_MEMORY)}},
    {"gpu_host_buffer_register", 0, false, NULL, run_host_register, undo_host, NULL, NULL,
     {W("cuMemHostRegister", GPU_ERR_TRANSFER)}},
    {"gpu_host_buffer_destroy", 0, true, prepare_host, run_host_destroy, NULL, NULL, NULL,
     {W("cuMemFreeHost", GPU_OK)}},
    {"gpu_host_buffer_destroy(registered)", 0, true, prepare_host_registered, run_host_destroy, NULL, NULL, NULL,
     {W("cuMemHostUnregister", GPU_OK)}},
    /* Kernels. */
    {"gpu_device_get_attribute", 0, false, NULL, run_device_get_attribute, NULL, NULL, NULL,
     {W("cuDeviceGet", GPU_ERR_NO_DEVICE), W("cuDeviceGetAttribute", GPU_ERR_DRIVER)}},
    {"gpu_device_get_uuid", 0, false, NULL, run_device_get_uuid, NULL, NULL, NULL,
     {W("cuDeviceGet", GPU_ERR_NO_DEVICE), W("cuDeviceGetUuid", GPU_ERR_DRIVER)}},
    {"gpu_context_get_limit", 0, false, NULL, run_get_limit, NULL, NULL, NULL, {W("cuCtxGetLimit", GPU_ERR_DRIVER)}},
    {"gpu_context_set_limit", 0, false, NULL, run_set_limit, NULL, NULL, NULL, {W("cuCtxSetLimit", GPU_ERR_DRIVER)}},
    {"gpu_function_get_attribute", 0, false, NULL, run_function_get_attribute, NULL, NULL, NULL,
     {W("cuFuncGetAttribute", GPU_ERR_DRIVER)}},
    {"gpu_function_set_attribute", 0, false, NULL, run_function_set_attribute, NULL, NULL, NULL,
     {W("cuFuncSetAttribute", GPU_ERR_DRIVER)}},
    {"gpu_function_set_cache_config", 0, false, NULL, run_function_set_cache_config, NULL, NULL, NULL,
     {W("cuFuncSetCacheConfig", GPU_ERR_DRIVER)}},
    {"gpu_function_get_max_active_blocks", 0, false, NULL, run_max_active_blocks, NULL, NULL, NULL,
     {W("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", GPU_ERR_DRIVER)}},
    {"gpu_function_get_occupancy_block_size", 0, false, NULL, run_occupancy_block_size, NULL, NULL, NULL,
     {W("cuOccupancyMaxPotentialBlockSizeWithFlags", GPU_ERR_DRIVER)}},
    {"gpu_function_get_max_active_clusters", 0, false, NULL, run_max_active_clusters, NULL, NULL, NULL,
     {W("cuOccupancyMaxActiveClusters", GPU_ERR_DRIVER)}},
    {"gpu_stream_launch_function(cooperative)", 0, false, NULL, run_launch_cooperative, undo_sync_s, NULL, NULL,
     {W("cuLaunchKernelEx", GPU_ERR_KERNEL_LAUNCH)}},
    {"gpu_stream_launch_function(cluster, serialized, priority)", 0, false, NULL, run_launch_cluster, undo_sync_s,
     NULL, NULL, {W("cuLaunchKernelEx", GPU_ERR_KERNEL_LAUNCH)}},
    {"gpu_stream_launch_function(64 KiB shared)", 0, false, NULL, run_launch_big_shared, undo_sync_s, NULL, NULL,
     {W("cuDeviceGetAttribute", GPU_ERR_KERNEL_LAUNCH), W("cuFuncGetAttribute", GPU_ERR_KERNEL_LAUNCH),
      W("cuLaunchKernel", GPU_ERR_KERNEL_LAUNCH)}},
    {"gpu_buffer_memset(8)", 0, false, NULL, run_memset8, NULL, NULL, NULL, {W("cuMemsetD8", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_memset(16)", 0, false, NULL, run_memset16, NULL, NULL, NULL, {W("cuMemsetD16", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_memset(32)", 0, false, NULL, run_memset32, NULL, NULL, NULL, {W("cuMemsetD32", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_memset_async(8)", 0, false, NULL, run_memset8_async, undo_sync_s, NULL, NULL,
     {W("cuMemsetD8Async", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_memset_async(16)", 0, false, NULL, run_memset16_async, undo_sync_s, NULL, NULL,
     {W("cuMemsetD16Async", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_memset_async(32)", 0, false, NULL, run_memset32_async, undo_sync_s, NULL, NULL,
     {W("cuMemsetD32Async", GPU_ERR_TRANSFER)}},
    {"gpu_module_get_global", 0, false, NULL, run_get_global, NULL, NULL, NULL,
     {W("cuModuleGetGlobal", GPU_ERR_DRIVER)}},
    {"gpu_module_copy_to_global", 0, false, NULL, run_copy_to_global, NULL, NULL, NULL,
     {W("cuModuleGetGlobal", GPU_ERR_DRIVER), W("cuMemcpyHtoD", GPU_ERR_TRANSFER)}},
    {"gpu_module_copy_from_global", 0, false, NULL, run_copy_from_global, NULL, NULL, NULL,
     {W("cuModuleGetGlobal", GPU_ERR_DRIVER), W("cuMemcpyDtoH", GPU_ERR_TRANSFER)}},
    {"gpu_tensor_map_encode_tiled", 0, false, NULL, run_tensor_map, NULL, NULL, NULL,
     {W("cuTensorMapEncodeTiled", GPU_ERR_DRIVER)}},
    /* Memory and interop. */
    {"gpu_buffer_create_async", 0, false, NULL, run_buffer_create_async, undo_buffer_sync, NULL, NULL,
     {W("cuMemAllocAsync", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_destroy_async", 0, false, prepare_buffer_async, run_buffer_free_async, NULL, NULL, finish_free_async,
     {W("cuMemFreeAsync", GPU_ERR_TRANSFER)}},
    {"gpu_context_pool_set_release_threshold", 0, false, NULL, run_pool_set_threshold, NULL, NULL, NULL,
     {W("cuDeviceGetDefaultMemPool", GPU_ERR_DRIVER), W("cuMemPoolSetAttribute", GPU_ERR_DRIVER)}},
    {"gpu_context_pool_get_release_threshold", 0, false, NULL, run_pool_threshold, NULL, NULL, NULL,
     {W("cuDeviceGetDefaultMemPool", GPU_ERR_DRIVER), W("cuMemPoolGetAttribute", GPU_ERR_DRIVER)}},
    {"gpu_context_pool_trim", 0, false, NULL, run_pool_trim, NULL, NULL, NULL,
     {W("cuDeviceGetDefaultMemPool", GPU_ERR_DRIVER), W("cuMemPoolTrimTo", GPU_ERR_DRIVER)}},
    {"gpu_context_pool_get_usage", 0, false, NULL, run_pool_usage, NULL, NULL, NULL,
     {W("cuDeviceGetDefaultMemPool", GPU_ERR_DRIVER), W("cuMemPoolGetAttribute", GPU_ERR_DRIVER)}},
    {"gpu_context_get_memory_info", 0, false, NULL, run_memory_info, NULL, NULL, NULL,
     {W("cuMemGetInfo", GPU_ERR_DRIVER)}},
    {"gpu_pointer_get_info", 0, false, NULL, run_pointer_info, NULL, NULL, NULL,
     {W("cuPointerGetAttributes", GPU_ERR_DRIVER)}},
    {"gpu_buffer_wrap", 0, false, NULL, run_buffer_wrap, undo_buffer, NULL, NULL,
     {W("cuMemGetAddressRange", GPU_ERR_DRIVER)}},
    {"gpu_buffer_create_managed", 0, false, NULL, run_buffer_create_managed, undo_buffer, NULL, NULL,
     {W("cuMemAllocManaged", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_prefetch_async", 0, false, NULL, run_prefetch, undo_sync_s, NULL, NULL,
     {W("cuMemPrefetchAsync", GPU_ERR_TRANSFER)}},
    {"gpu_buffer_advise", 0, false, NULL, run_advise, NULL, NULL, NULL, {W("cuMemAdvise", GPU_ERR_TRANSFER)}},
    {"gpu_stream_create_with_priority", 0, false, NULL, run_stream_create_priority, undo_stream, NULL, NULL,
     {W("cuStreamCreateWithPriority", GPU_ERR_STREAM_CREATE)}},
    {"gpu_stream_get_priority", 0, false, NULL, run_stream_priority, NULL, NULL, NULL,
     {W("cuStreamGetPriority", GPU_ERR_STREAM_SYNC)}},
    {"gpu_context_get_stream_priority_range", 0, false, NULL, run_priority_range, NULL, NULL, NULL,
     {W("cuCtxGetStreamPriorityRange", GPU_ERR_DRIVER)}},
    {"gpu_graph_exec_update", 0, false, NULL, run_exec_update, NULL, NULL, NULL,
     {W("cuGraphExecUpdate", GPU_ERR_GRAPH_LAUNCH)}},
    {"gpu_graph_exec_upload", 0, false, NULL, run_exec_upload, NULL, NULL, NULL,
     {W("cuGraphUpload", GPU_ERR_GRAPH_LAUNCH)}},
    {"gpu_stream_get_capture_info", 0, false, NULL, run_capture_info, NULL, NULL, NULL,
     {W("cuStreamGetCaptureInfo", GPU_ERR_GRAPH_CAPTURE)}},
    {"gpu_graph_write_dot", 0, false, NULL, run_write_dot, NULL, NULL, finish_dot,
     {W("cuGraphDebugDotPrint", GPU_ERR_DRIVER)}},
    {"gpu_buffer_get_ipc_handle", 0, false, NULL, run_buffer_ipc_handle, NULL, NULL, NULL,
     {W("cuIpcGetMemHandle", GPU_ERR_DRIVER)}},
    {"gpu_buffer_open_ipc", 0, false, NULL, run_buffer_open_ipc, undo_buffer, NULL, NULL,
     {W("cuIpcOpenMemHandle", GPU_ERR_DRIVER), W("cuMemGetAddressRange", GPU_ERR_DRIVER)}},
    {"gpu_event_create_interprocess", 0, false, NULL, run_event_create_interprocess, undo_event, NULL, NULL,
     {W("cuEventCreate", GPU_ERR_EVENT)}},
    {"gpu_event_get_ipc_handle", 0, false, NULL, run_event_ipc_handle, NULL, NULL, NULL,
     {W("cuIpcGetEventHandle", GPU_ERR_EVENT)}},
    {"gpu_event_open_ipc", 0, false, NULL, run_event_open_ipc, undo_event, NULL, NULL,
     {W("cuIpcOpenEventHandle", GPU_ERR_EVENT)}},
    {"gpu_stream_write_value32", 0, false, NULL, run_write_value32, undo_sync_s, NULL, NULL,
     {W("cuStreamWriteValue32", GPU_ERR_STREAM_SYNC)}},
    {"gpu_stream_write_value64", 0, false, NULL, run_write_value64, undo_sync_s, NULL, NULL,
     {W("cuStreamWriteValue64", GPU_ERR_STREAM_SYNC)}},
    {"gpu_stream_wait_value32", 0, false, NULL, run_wait_value32, undo_sync_s, NULL, NULL,
     {W("cuStreamWaitValue32", GPU_ERR_STREAM_SYNC)}},
    {"gpu_stream_wait_value64", 0, false, NULL, run_wait_value64, undo_sync_s, NULL, NULL,
     {W("cuStreamWaitValue64", GPU_ERR_STREAM_SYNC)}},
};

/* ---- The sweep ---- */

enum thread_state { STATE_NONE, STATE_OWN, STATE_OTHER, STATE_COUNT };

static const char *const state_names[STATE_COUNT] = {"no context", "its own context", "another context"};

/* How many runs the sweep made, and how many of them with a call failing. */
static unsigned long runs, failed_runs;

static void set_context(enum thread_state state, const op *o)
{
    ft_no_context();
    if (state == STATE_OWN)
        assert_int_equal(cuCtxSetCurrent(gpu_context_get_raw(fx.ctx[o->ctx])), CUABI_SUCCESS);
    else if (state == STATE_OTHER)
        assert_int_equal(cuCtxSetCurrent(gpu_context_get_raw(fx.ctx[1 - o->ctx])), CUABI_SUCCESS);
}

/*
 * Sets the thread's context behind gpushim's back, after one gpushim call in
 * the operation's context made gpushim's per-thread cache of it the same for
 * every run: its own context (fast path), another one (push and pop), or, for
 * no context, the operation's while the thread really has none, so the
 * driver's refusal and gpushim's retry are swept too.
 */
static void set_state(enum thread_state state, const op *o)
{
    bool capturing;

    set_context(state, o);
    assert_int_equal(gpu_stream_is_capturing(o->ctx ? fx.s1 : fx.s, &capturing), GPU_OK);
    set_context(state, o);
}

/*
 * The thread's context after a call is what it was, or, from none, the
 * object's (which gpushim may leave). After a failed pop gpushim sets the
 * caller's context again, which leaves the stack one deeper.
 */
static void check_state(enum thread_state state, const op *o, bool pop_failed)
{
    void *cur = ft_current();

    if (state == STATE_OWN)
        assert_ptr_equal(cur, gpu_context_get_raw(fx.ctx[o->ctx]));
    if (state == STATE_OTHER)
        assert_ptr_equal(cur, gpu_context_get_raw(fx.ctx[1 - o->ctx]));
    if (state == STATE_NONE && cur)
        assert_ptr_equal(cur, gpu_context_get_raw(fx.ctx[o->ctx]));
    assert_true(gpu_fake_context_depth() <= (pop_failed ? 2 : 1));
}

static bool is_context_entry(const char *entry)
{
    return strcmp(entry, "cuCtxGetCurrent") == 0 || strcmp(entry, "cuCtxSetCurrent") == 0 ||
           strcmp(entry, "cuCtxPushCurrent") == 0;
}

/* Whether `entry` is one the operation names in its wants (for a destroy: the release itself). */
static bool is_wanted(const op *o, const char *entry)
{
    for (const struct want *w = o->wants; w->entry; w++)
        if (strcmp(w->entry, entry) == 0)
            return true;
    return false;
}

/* What the operation must return when `entry` fails with `code`. */
static gpu_status want_for(const op *o, const char *entry, int code)
{
    gpu_status st = GPU_STATUS_COUNT_;

    for (const struct want *w = o->wants; w->entry; w++)
        if (strcmp(w->entry, entry) == 0)
            st = w->status;
    /* A destroy returns nothing: what it meets is in gpu_last_error_get_message() (checked in attempt()). */
    if (st == GPU_STATUS_COUNT_ && o->is_void)
        st = GPU_OK;
    /* A context that cannot be popped is an error too: the caller's context was at stake. */
    if (st == GPU_STATUS_COUNT_ && (is_context_entry(entry) || strcmp(entry, "cuCtxPopCurrent") == 0))
        st = GPU_ERR_CONTEXT;
    if (st == GPU_STATUS_COUNT_)
        fail_msg("%s calls %s, and the sweep does not say what its failure must give", o->name, entry);
    if (st != GPU_OK && code == CUABI_ERROR_OUT_OF_MEMORY)
        st = GPU_ERR_OUT_OF_MEMORY;
    return st;
}

static void take_calls(long counts[ENTRY_COUNT])
{
    for (int i = 0; i < ENTRY_COUNT; i++)
        counts[i] = gpu_fake_calls(entries[i].symbol);
}

/*
 * A destroy that an injected failure made fail leaves the driver's object
 * behind, as it would on a real driver: clean it up directly so that what is
 * checked afterwards is only what gpushim itself leaked.
 */
static void release_leftovers(const ft_mark *mark, const long retains[2])
{
    assert_int_equal(cuCtxSetCurrent(gpu_context_get_raw(fx.ctx[0])), CUABI_SUCCESS);
    if (gpu_fake_live(GPU_FAKE_LIVE_GRAPH_EXECS) > mark->live.count[GPU_FAKE_LIVE_GRAPH_EXECS])
        assert_int_equal(cuGraphExecDestroy(gpu_fake_newest(GPU_FAKE_LIVE_GRAPH_EXECS)), CUABI_SUCCESS);
    if (gpu_fake_live(GPU_FAKE_LIVE_GRAPHS) > mark->live.count[GPU_FAKE_LIVE_GRAPHS])
        assert_int_equal(cuGraphDestroy(gpu_fake_newest(GPU_FAKE_LIVE_GRAPHS)), CUABI_SUCCESS);
    if (gpu_fake_live(GPU_FAKE_LIVE_EVENTS) > mark->live.count[GPU_FAKE_LIVE_EVENTS])
        assert_int_equal(cuEventDestroy_v2(gpu_fake_newest(GPU_FAKE_LIVE_EVENTS)), CUABI_SUCCESS);
    if (gpu_fake_live(GPU_FAKE_LIVE_STREAMS) > mark->live.count[GPU_FAKE_LIVE_STREAMS])
        assert_int_equal(cuStreamDestroy_v2(gpu_fake_newest(GPU_FAKE_LIVE_STREAMS)), CUABI_SUCCESS);
    if (gpu_fake_live(GPU_FAKE_LIVE_MODULES) > mark->live.count[GPU_FAKE_LIVE_MODULES])
        assert_int_equal(cuModuleUnload(gpu_fake_newest(GPU_FAKE_LIVE_MODULES)), CUABI_SUCCESS);
    if (gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS) > mark->live.count[GPU_FAKE_LIVE_DEVICE_ALLOCS])
        assert_int_equal(cuMemFree_v2((uintptr_t)gpu_fake_newest(GPU_FAKE_LIVE_DEVICE_ALLOCS)), CUABI_SUCCESS);
    if (gpu_fake_live(GPU_FAKE_LIVE_HOST_ALLOCS) > mark->live.count[GPU_FAKE_LIVE_HOST_ALLOCS])
        assert_int_equal(cuMemFreeHost(gpu_fake_newest(GPU_FAKE_LIVE_HOST_ALLOCS)), CUABI_SUCCESS);
    if (gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED) > mark->live.count[GPU_FAKE_LIVE_HOST_REGISTERED])
        assert_int_equal(cuMemHostUnregister(gpu_fake_newest(GPU_FAKE_LIVE_HOST_REGISTERED)), CUABI_SUCCESS);
    for (int d = 0; d < 2; d++)
        while (gpu_fake_primary_retains(d) > retains[d])
            assert_int_equal(cuDevicePrimaryCtxRelease_v2(d), CUABI_SUCCESS);
}

/*
 * One run of the operation; `entry` NULL runs it plainly and reports the
 * calls it made into `delta`, else call `nth` of `entry` fails with `code`.
 * A `warming` run may leave what gpushim keeps for the process (the default
 * context); every other run must leave the fake as it found it.
 */
static void attempt(const op *o, enum thread_state state, const char *entry, const char *symbol, unsigned nth,
                    int code, long delta[ENTRY_COUNT], bool warming)
{
    long before[ENTRY_COUNT], after[ENTRY_COUNT];
    long retains[2] = {gpu_fake_primary_retains(0), gpu_fake_primary_retains(1)};
    void *made = NULL;
    gpu_status st, want = GPU_OK;
    ft_mark mark;

    runs++;
    failed_runs += entry != NULL;
    ft_mark_take(&mark);
    if (o->prepare)
        o->prepare();
    set_state(state, o);
    take_calls(before);
    if (entry)
        assert_int_equal(gpu_fake_fail(symbol, nth, code), 0);
    st = o->run(&made);
    gpu_fake_fail_reset();
    take_calls(after);
    check_state(state, o, entry && strcmp(entry, "cuCtxPopCurrent") == 0);
    if (entry)
        want = want_for(o, entry, code);
    if (st != want) {
        print_error("%s, called with %s, call %u of %s failing with %d: %s, want %s: %s\n", o->name,
                    state_names[state], nth, entry ? entry : "(none)", code, gpu_status_get_name(st),
                    gpu_status_get_name(want), gpu_last_error_get_message());
        fail();
    }
    /* A destroy whose release failed says so; one whose context calls failed released all the same. */
    if (entry && (want != GPU_OK || (o->is_void && is_wanted(o, entry)))) {
        char result[64];

        snprintf(result, sizeof(result), "%s (%d)", gpu_cuda_result_get_name(code), code);
        assert_int_equal(gpu_last_error_get_cuda_result(), code);
        if (!strstr(gpu_last_error_get_message(), entry) || !strstr(gpu_last_error_get_message(), result))
            fail_msg("%s: the message names neither %s nor %s: \"%s\"", o->name, entry, result, gpu_last_error_get_message());
    }
    if (delta)
        for (int i = 0; i < ENTRY_COUNT; i++)
            delta[i] = after[i] - before[i];
    if (st == GPU_OK && o->undo)
        o->undo(made);
    if (entry && o->recover)
        o->recover();
    if (o->finish)
        o->finish();
    if (entry && want == GPU_OK && (!o->is_void || is_wanted(o, entry)))
        release_leftovers(&mark, retains);
    if (!warming)
        FT_MARK_CHECK(&mark);
}

static void sweep(void **state)
{
    static const int codes[] = {CUABI_ERROR_UNKNOWN, CUABI_ERROR_OUT_OF_MEMORY};
    const op *o = *state;
    bool seen[8] = {false};

    for (int t = 0; t < STATE_COUNT; t++) {
        long delta[ENTRY_COUNT];

        /* Once to warm what gpushim keeps (the default context, a function looked up), once to count. */
        attempt(o, (enum thread_state)t, NULL, NULL, 0, 0, NULL, true);
        attempt(o, (enum thread_state)t, NULL, NULL, 0, 0, delta, false);
        for (int i = 0; i < ENTRY_COUNT; i++) {
            for (int w = 0; o->wants[w].entry; w++)
                seen[w] |= delta[i] > 0 && strcmp(o->wants[w].entry, entries[i].name) == 0;
            for (long nth = 1; nth <= delta[i]; nth++)
                for (size_t c = 0; c < sizeof(codes) / sizeof(codes[0]); c++)
                    attempt(o, (enum thread_state)t, entries[i].name, entries[i].symbol, (unsigned)nth, codes[c],
                            NULL, false);
        }
    }
    /* Every entry point the table names was called, so each failure path above was taken. */
    for (int w = 0; o->wants[w].entry; w++)
        if (!seen[w])
            fail_msg("%s never called %s", o->name, o->wants[w].entry);
}

/* ---- The fixture ---- */

static int setup(void **state)
{
    int fd;

    (void)state;
    FT_OK(gpu_context_retain_primary(0, &fx.ctx[0]));
    FT_OK(gpu_context_retain_primary(1, &fx.ctx[1]));
    FT_OK(gpu_stream_create(fx.ctx[0], &fx.s));
    FT_OK(gpu_stream_create_non_blocking(fx.ctx[0], &fx.nb));
    FT_OK(gpu_stream_create(fx.ctx[1], &fx.s1));
    FT_OK(gpu_event_create(fx.ctx[0], &fx.e));
    FT_OK(gpu_event_create(fx.ctx[1], &fx.e1));
    FT_OK(gpu_event_create_timed(fx.ctx[0], &fx.t0));
    FT_OK(gpu_event_create_timed(fx.ctx[0], &fx.t1));
    FT_OK(gpu_module_load_data(fx.ctx[0], ft_ptx, strlen(ft_ptx), &fx.m));
    FT_OK(gpu_module_get_function(fx.m, "add_one", &fx.f));
    FT_OK(gpu_buffer_create(fx.ctx[0], 256, &fx.b));
    FT_OK(gpu_buffer_create(fx.ctx[1], 256, &fx.b1));
    FT_OK(gpu_stream_record_event(fx.s, fx.t0));
    FT_OK(gpu_stream_launch_function(fx.s, fx.f, &(gpu_launch_config){.grid = {1, 1, 1}, .block = {8, 1, 1}, .shared_mem_bytes = 0},
                                     (void *[]){&(uint64_t){gpu_buffer_get_device_ptr(fx.b)}, &(uint32_t){8}}));
    FT_OK(gpu_stream_record_event(fx.s, fx.t1));
    FT_OK(gpu_stream_synchronize(fx.s));
    FT_OK(gpu_stream_begin_capture(fx.nb, GPU_CAPTURE_MODE_GLOBAL));
    FT_OK(gpu_stream_launch_function(fx.nb, fx.f, &(gpu_launch_config){.grid = {1, 1, 1}, .block = {8, 1, 1}, .shared_mem_bytes = 0},
                                     (void *[]){&(uint64_t){gpu_buffer_get_device_ptr(fx.b)}, &(uint32_t){8}}));
    FT_OK(gpu_stream_end_capture(fx.nb, &fx.g));
    FT_OK(gpu_graph_instantiate(fx.g, &fx.x));
    snprintf(fx.path, sizeof(fx.path), "/tmp/gpushim-fake-XXXXXX");
    fd = mkstemp(fx.path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, ft_ptx, strlen(ft_ptx)), (ssize_t)strlen(ft_ptx));
    close(fd);
    /* Memory and interop. */
    FT_OK(gpu_buffer_create_managed(fx.ctx[0], 256, &fx.managed));
    FT_OK(gpu_buffer_create(fx.ctx[0], 32, &fx.flags));
    FT_OK(gpu_buffer_copy_from_host(fx.flags, (uint64_t[4]){1, 1, 0, 0}, 32));
    FT_OK(gpu_event_create_interprocess(fx.ctx[0], &fx.ipc_event));
    FT_OK(gpu_buffer_get_ipc_handle(fx.b, &fx.ipc));
    FT_OK(gpu_event_get_ipc_handle(fx.ipc_event, &fx.ipc_e));
    snprintf(fx.dot, sizeof(fx.dot), "/tmp/gpushim-dot-%d.dot", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    print_message("%lu runs, %lu of them with a driver call failing\n", runs, failed_runs);
    unlink(fx.path);
    FT_OK(gpu_context_synchronize(fx.ctx[0]));
    kernels_teardown();
    FT_OK(gpu_context_synchronize(fx.ctx[1]));
    gpu_event_destroy(fx.ipc_event);
    gpu_buffer_destroy(fx.flags);
    gpu_buffer_destroy(fx.managed);
    gpu_graph_exec_destroy(fx.x);
    gpu_graph_destroy(fx.g);
    gpu_buffer_destroy(fx.b1);
    gpu_buffer_destroy(fx.b);
    gpu_module_destroy(fx.m);
    gpu_event_destroy(fx.t1);
    gpu_event_destroy(fx.t0);
    gpu_event_destroy(fx.e1);
    gpu_event_destroy(fx.e);
    gpu_stream_destroy(fx.s1);
    gpu_stream_destroy(fx.nb);
    gpu_stream_destroy(fx.s);
    gpu_context_destroy(fx.ctx[1]);
    gpu_context_destroy(fx.ctx[0]);
    /* What is left is device 0's default context, which gpushim keeps for the process. */
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXT_RETAINS), 1);
    ft_assert_released();
    return 0;
}

int main(void)
{
    struct CMUnitTest tests[sizeof(ops) / sizeof(ops[0])];

    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        tests[i] = (struct CMUnitTest)cmocka_unit_test_prestate(sweep, (void *)&ops[i]);
        tests[i].name = ops[i].name;
    }
    return cmocka_run_group_tests_name("fault sweep", tests, setup, teardown);
}
