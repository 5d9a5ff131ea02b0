/* SPDX-License-Identifier: MIT */
/*
 * What real kernels need, on the GPU: context limits read back,
 * device and function attributes, 200 KiB of dynamic shared memory (refused
 * without the opt-in, right with it), a persistent kernel sized from the
 * occupancy numbers with every block resident, a cooperative grid barrier at
 * the co-resident grid size, a 2x1x1 cluster launch writing cluster ranks, a
 * programmatic-serialization pair, memset, a __constant__ read by a kernel,
 * and a 2-D tile loaded through a tensor map (cp.async.bulk.tensor).
 * Figures go to lines that begin with "KERNELS" (maint/run-gpu.sh collects them).
 *
 * The kernels are tests/gpu/kernels_ex.ptx, generated from kernels_ex.cu.
 * GPUSHIM_KERNELS_NO_WAIT=1 leaves out the two tests whose blocks wait for
 * each other (under compute-sanitizer blocks may not all be resident).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifndef GPU_KERNELS_EX_PTX
#define GPU_KERNELS_EX_PTX "kernels_ex.ptx"
#endif

/* How long a kernel that waits for other blocks waits before it gives up. */
#define WAIT_NS 2000000000ull

static gpu_module *mod;
static gpu_device_info dev;
static gpu_stream *stream;

/* Whether the tests whose blocks wait for each other are left out, saying so. */
static bool no_wait(const char *what)
{
    if (gpu_test_env("GPUSHIM_KERNELS_NO_WAIT", 0) == 0)
        return false;
    printf("KERNELS %s skipped: GPUSHIM_KERNELS_NO_WAIT\n", what);
    return true;
}

static gpu_function *function(const char *name)
{
    gpu_function *f = NULL;

    assert_gpu_ok(gpu_module_get_function(mod, name, &f));
    return f;
}

static uint32_t *download(gpu_buffer *b, size_t words)
{
    uint32_t *host = malloc(words * sizeof(*host));

    assert_non_null(host);
    assert_gpu_ok(gpu_stream_synchronize(stream));
    assert_gpu_ok(gpu_buffer_copy_to_host(b, host, words * sizeof(*host)));
    return host;
}

static gpu_buffer *zeroed(size_t words)
{
    gpu_buffer *b = NULL;

    assert_gpu_ok(gpu_buffer_create(NULL, words * 4, &b));
    assert_gpu_ok(gpu_buffer_memset(b, 0, words, 4, 0));
    return b;
}

/* ---- Limits and attributes ---- */

static void limits_read_back(void **state)
{
    static const struct {
        gpu_limit limit;
        const char *name;
        size_t value;
    } set[] = {
        {GPU_LIMIT_STACK_SIZE, "stack", 4096},
        {GPU_LIMIT_PRINTF_FIFO_SIZE, "printf_fifo", 4u << 20},
        {GPU_LIMIT_MALLOC_HEAP_SIZE, "malloc_heap", 32u << 20},
    };
    size_t before[3], after[3];

    (void)state;
    for (int i = 0; i < 3; i++) {
        assert_gpu_ok(gpu_context_get_limit(NULL, set[i].limit, &before[i]));
        assert_gpu_ok(gpu_context_set_limit(NULL, set[i].limit, set[i].value));
        assert_gpu_ok(gpu_context_get_limit(NULL, set[i].limit, &after[i]));
        /* The driver may round up; never down. */
        if (after[i] < set[i].value)
            fail_msg("%s: set %zu, read back %zu", set[i].name, set[i].value, after[i]);
    }
    printf("KERNELS limits stack=%zu->%zu printf_fifo=%zu->%zu malloc_heap=%zu->%zu (asked %zu %zu %zu)\n",
           before[0], after[0], before[1], after[1], before[2], after[2], set[0].value, set[1].value,
           set[2].value);
}

static void format_uuid(const gpu_uuid *u, char out[64])
{
    static const int dash_after[] = {3, 5, 7, 9};
    size_t n = (size_t)snprintf(out, 64, "GPU-");

    for (int i = 0; i < 16; i++) {
        n += (size_t)snprintf(out + n, 64 - n, "%02x", u->bytes[i]);
        for (int d = 0; d < 4; d++)
            if (i == dash_after[d])
                n += (size_t)snprintf(out + n, 64 - n, "-");
    }
}

static void device_attributes(void **state)
{
    static const char *const names[] = {"big_shared", "persistent", "grid_barrier", "cluster_rank", "read_constant"};
    gpu_uuid uuid;
    char text[64];
    int v = 0;
    bool zero = true;

    (void)state;
    assert_gpu_ok(gpu_device_get_uuid(0, &uuid));
    assert_memory_equal(&uuid, &dev.uuid, sizeof(uuid));
    for (int i = 0; i < 16; i++)
        zero &= uuid.bytes[i] == 0;
    assert_false(zero);
    format_uuid(&uuid, text);
    printf("KERNELS device %s warp=%d threads_per_block=%d threads_per_sm=%d shared_per_block=%d optin=%d "
           "shared_per_sm=%d regs_per_block=%d l2=%d clock_khz=%d memory_clock_khz=%d bus_bits=%d cooperative=%d "
           "cluster=%d uuid=%s\n",
           dev.name, dev.warp_size, dev.max_threads_per_block, dev.max_threads_per_multiprocessor,
           dev.max_shared_memory_per_block, dev.max_shared_memory_per_block_optin,
           dev.max_shared_memory_per_multiprocessor, dev.max_registers_per_block, dev.l2_cache_size,
           dev.clock_rate_khz, dev.memory_clock_rate_khz, dev.memory_bus_width, dev.cooperative_launch,
           dev.cluster_launch, text);
    assert_int_equal(dev.warp_size, 32);
    assert_int_equal(dev.max_shared_memory_per_block, 48 * 1024);
    assert_true(dev.max_shared_memory_per_block_optin >= dev.max_shared_memory_per_block);
    assert_true(dev.l2_cache_size > 0 && dev.memory_bus_width > 0);
    /* The generic query agrees with the struct. */
    assert_gpu_ok(gpu_device_get_attribute(0, GPU_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &v));
    assert_int_equal(v, dev.max_shared_memory_per_block_optin);
    assert_gpu_ok(gpu_device_get_attribute(0, GPU_DEVICE_ATTR_L2_CACHE_SIZE, &v));
    assert_int_equal(v, dev.l2_cache_size);
    assert_gpu_ok(gpu_device_get_attribute(0, GPU_DEVICE_ATTR_COMPUTE_CAPABILITY_MAJOR, &v));
    assert_int_equal(v, dev.compute_major);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        gpu_function *f = function(names[i]);
        int regs, fixed, local, max_threads, ptx, binary, dynamic;

        assert_gpu_ok(gpu_function_get_attribute(f, GPU_FUNCTION_ATTR_NUM_REGS, &regs));
        assert_gpu_ok(gpu_function_get_attribute(f, GPU_FUNCTION_ATTR_SHARED_BYTES, &fixed));
        assert_gpu_ok(gpu_function_get_attribute(f, GPU_FUNCTION_ATTR_LOCAL_BYTES, &local));
        assert_gpu_ok(gpu_function_get_attribute(f, GPU_FUNCTION_ATTR_MAX_THREADS_PER_BLOCK, &max_threads));
        assert_gpu_ok(gpu_function_get_attribute(f, GPU_FUNCTION_ATTR_PTX_VERSION, &ptx));
        assert_gpu_ok(gpu_function_get_attribute(f, GPU_FUNCTION_ATTR_BINARY_VERSION, &binary));
        assert_gpu_ok(gpu_function_get_attribute(f, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, &dynamic));
        printf("KERNELS function %s regs=%d static_shared=%d local=%d max_threads=%d ptx=%d binary=%d "
               "max_dynamic_shared=%d\n",
               names[i], regs, fixed, local, max_threads, ptx, binary, dynamic);
        assert_true(regs > 0 && max_threads > 0);
        assert_int_equal(binary, dev.compute_major * 10 + dev.compute_minor);
        assert_true(ptx > 0);
    }
    /* persistent holds its ticket in static shared memory (ptxas rounds it up). */
    assert_gpu_ok(gpu_function_get_attribute(function("persistent"), GPU_FUNCTION_ATTR_SHARED_BYTES, &v));
    assert_true(v >= 8);
}

/* ---- Dynamic shared memory past 48 KiB ---- */

static void shared_200k(void **state)
{
    enum { BYTES = 200 * 1024, WORDS = BYTES / 4 };
    gpu_function *f = function("big_shared");
    gpu_buffer *out = zeroed(WORDS);
    uint64_t ptr = gpu_buffer_get_device_ptr(out);
    uint32_t words = WORDS;
    void *args[] = {&ptr, &words};
    gpu_launch_config c = gpu_launch_config_1d(1, 1024);
    uint32_t *host;
    size_t wrong = 0;
    gpu_status st;

    (void)state;
    if (dev.max_shared_memory_per_block_optin < BYTES) {
        printf("KERNELS shared skipped: the device allows %d bytes a block\n", dev.max_shared_memory_per_block_optin);
        gpu_buffer_destroy(out);
        return;
    }
    c.shared_mem_bytes = BYTES;
    st = gpu_stream_launch_function(stream, f, &c, args);
    printf("KERNELS shared without opt-in: %s: %s\n", gpu_status_get_name(st), gpu_last_error_get_message());
    assert_int_equal(st, GPU_ERR_INVALID_ARG);
    assert_non_null(strstr(gpu_last_error_get_message(), "opt-in"));
    c.shared_mem_bytes = (unsigned)dev.max_shared_memory_per_block_optin + 1;
    assert_gpu_status(gpu_stream_launch_function(stream, f, &c, args), GPU_ERR_INVALID_ARG);
    assert_non_null(strstr(gpu_last_error_get_message(), "allows a block"));

    assert_gpu_ok(gpu_function_set_attribute(f, GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES, BYTES));
    c.shared_mem_bytes = BYTES;
    assert_gpu_ok(gpu_stream_launch_function(stream, f, &c, args));
    host = download(out, WORDS);
    for (uint32_t i = 0; i < WORDS; i++)
        wrong += host[i] != (WORDS - 1 - i) * 3u + 1u;
    printf("KERNELS shared dynamic_bytes=%d optin=%d wrong=%zu\n", BYTES, dev.max_shared_memory_per_block_optin,
           wrong);
    assert_int_equal(wrong, 0);
    free(host);
    gpu_buffer_destroy(out);
}

/* ---- Occupancy: a persistent kernel ---- */

static void persistent_all_resident(void **state)
{
    gpu_function *f = function("persistent");
    int min_grid = 0, block = 0;
    int per_sm = 0;
    unsigned grid;
    gpu_buffer *arrived, *out;
    uint64_t a, o, timeout = WAIT_NS;
    void *args[] = {&a, &o, &timeout};
    uint32_t *host;
    unsigned char *seen;
    size_t missing = 0;

    (void)state;
    if (no_wait("occupancy"))
        return;
    assert_gpu_ok(gpu_function_get_occupancy_block_size(f, 0, 0, &min_grid, &block));
    assert_gpu_ok(gpu_function_get_max_active_blocks(f, (unsigned)block, 0, &per_sm));
    assert_true(per_sm > 0);
    grid = (unsigned)per_sm * (unsigned)dev.multiprocessors;
    arrived = zeroed(2);
    out = zeroed(grid);
    a = gpu_buffer_get_device_ptr(arrived);
    o = gpu_buffer_get_device_ptr(out);
    assert_gpu_ok(gpu_stream_launch_function(stream, f, &(gpu_launch_config){.grid = {grid, 1, 1},
                                                                             .block = {(unsigned)block, 1, 1}},
                                             args));
    host = download(out, grid);
    seen = calloc(grid + 1, 1);
    assert_non_null(seen);
    /* Every block got past the wait, and the tickets are 1..grid, each once. */
    for (unsigned b = 0; b < grid; b++) {
        if (host[b] == 0 || host[b] > grid || seen[host[b]])
            missing++;
        else
            seen[host[b]] = 1;
    }
    printf("KERNELS occupancy block=%d blocks_per_sm=%d sms=%d grid=%u min_grid=%d not_resident=%zu\n", block,
           per_sm, dev.multiprocessors, grid, min_grid, missing);
    assert_int_equal(missing, 0);
    assert_true((unsigned)min_grid <= grid);
    free(seen);
    free(host);
    gpu_buffer_destroy(out);
    gpu_buffer_destroy(arrived);
}

/* ---- Cooperative launch: a grid-wide barrier ---- */

static void cooperative_barrier(void **state)
{
    enum { BLOCK = 256 };
    gpu_function *f = function("grid_barrier");
    int per_sm = 0;
    unsigned grid;
    gpu_buffer *count, *phase1, *out;
    uint64_t c_ptr, p_ptr, o_ptr, timeout = WAIT_NS;
    void *args[] = {&c_ptr, &p_ptr, &o_ptr, &timeout};
    gpu_launch_config c = {.block = {BLOCK, 1, 1}, .cooperative = true};
    uint32_t *host;
    size_t wrong = 0;
    gpu_status st;

    (void)state;
    if (!dev.cooperative_launch) {
        printf("KERNELS cooperative skipped: the device has no cooperative launch\n");
        return;
    }
    if (no_wait("cooperative"))
        return;
    assert_gpu_ok(gpu_function_get_max_active_blocks(f, BLOCK, 0, &per_sm));
    grid = (unsigned)per_sm * (unsigned)dev.multiprocessors;
    count = zeroed(2);
    phase1 = zeroed(grid + 1);
    out = zeroed(grid + 1);
    c_ptr = gpu_buffer_get_device_ptr(count);
    p_ptr = gpu_buffer_get_device_ptr(phase1);
    o_ptr = gpu_buffer_get_device_ptr(out);
    c.grid[0] = grid;
    c.grid[1] = c.grid[2] = 1;
    assert_gpu_ok(gpu_stream_launch_function(stream, f, &c, args));
    host = download(out, grid);
    for (unsigned b = 0; b < grid; b++)
        wrong += host[b] != (b + 1) % grid + 1;
    /* One block more than fits at once: the driver refuses the cooperative launch. */
    c.grid[0] = grid + 1;
    st = gpu_stream_launch_function(stream, f, &c, args);
    printf("KERNELS cooperative block=%d blocks_per_sm=%d co_resident_grid=%u wrong=%zu; grid %u: %s (%d)\n", BLOCK,
           per_sm, grid, wrong, grid + 1, gpu_status_get_name(st), gpu_last_error_get_cuda_result());
    assert_int_equal(wrong, 0);
    assert_int_not_equal(st, GPU_OK);
    assert_int_equal(gpu_last_error_get_cuda_result(), 720); /* CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE */
    free(host);
    gpu_buffer_destroy(out);
    gpu_buffer_destroy(phase1);
    gpu_buffer_destroy(count);
}

/* ---- Clusters ---- */

static void cluster_ranks(void **state)
{
    enum { GRID = 64, BLOCK = 128 };
    gpu_function *f = function("cluster_rank");
    gpu_launch_config c = {.grid = {GRID, 1, 1}, .block = {BLOCK, 1, 1}, .cluster = {2, 1, 1}};
    gpu_buffer *out;
    uint64_t ptr;
    uint32_t *host;
    int clusters = 0;
    size_t wrong = 0;

    (void)state;
    if (!dev.cluster_launch) {
        printf("KERNELS cluster skipped: the device has no cluster launch\n");
        return;
    }
    assert_gpu_ok(gpu_function_get_max_active_clusters(f, &c, &clusters));
    assert_true(clusters > 0);
    out = zeroed(GRID);
    ptr = gpu_buffer_get_device_ptr(out);
    assert_gpu_ok(gpu_stream_launch_function(stream, f, &c, (void *[]){&ptr}));
    host = download(out, GRID);
    for (uint32_t b = 0; b < GRID; b++)
        wrong += host[b] != ((b % 2) | 2u << 8 | (b / 2) << 16);
    printf("KERNELS cluster dims=2x1x1 grid=%d block=%d max_active_clusters=%d wrong=%zu first=0x%x,0x%x,0x%x\n",
           GRID, BLOCK, clusters, wrong, host[0], host[1], host[2]);
    assert_int_equal(wrong, 0);
    free(host);
    gpu_buffer_destroy(out);
}

/* ---- Programmatic stream serialization ---- */

static uint32_t lcg(uint32_t v, uint32_t spins)
{
    for (uint32_t k = 0; k < spins; k++)
        v = v * 1664525u + 1013904223u;
    return v;
}

static void serialized_pair(void **state)
{
    enum { N = 1 << 20, SPINS = 64, PAIRS = 10 };
    gpu_function *primary = function("pss_primary"), *secondary = function("pss_secondary");
    gpu_buffer *buf = zeroed(N), *out = zeroed(N);
    uint64_t b = gpu_buffer_get_device_ptr(buf), o = gpu_buffer_get_device_ptr(out);
    uint32_t n = N, spins = SPINS;
    gpu_launch_config first = gpu_launch_config_1d(N / 256, 256), second = first;
    uint32_t *host;
    size_t wrong = 0;

    (void)state;
    if (dev.compute_major < 9) {
        printf("KERNELS pss skipped: compute capability %d.%d\n", dev.compute_major, dev.compute_minor);
        gpu_buffer_destroy(out);
        gpu_buffer_destroy(buf);
        return;
    }
    second.programmatic_serialization = true;
    for (int p = 0; p < PAIRS; p++) {
        /* A different output each pair, so a secondary that read early cannot pass on old values. */
        spins = SPINS + (uint32_t)p;
        assert_gpu_ok(gpu_buffer_memset_async(out, 0, N, 4, 0, stream));
        assert_gpu_ok(gpu_stream_launch_function(stream, primary, &first, (void *[]){&b, &n, &spins}));
        assert_gpu_ok(gpu_stream_launch_function(stream, secondary, &second, (void *[]){&b, &o, &n}));
        host = download(out, N);
        for (uint32_t i = 0; i < N; i++)
            wrong += host[i] != (lcg(i, spins) ^ 0x5a5a5a5au);
        free(host);
    }
    printf("KERNELS pss pairs=%d n=%d wrong=%zu\n", PAIRS, N, wrong);
    assert_int_equal(wrong, 0);
    gpu_buffer_destroy(out);
    gpu_buffer_destroy(buf);
}

/* ---- Memset ---- */

static void memset_values(void **state)
{
    enum { BYTES = 1 << 20 };
    unsigned char *want = malloc(BYTES);
    uint32_t *host;
    gpu_buffer *b = NULL;
    size_t wrong = 0;

    (void)state;
    assert_non_null(want);
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &b));
    assert_gpu_ok(gpu_buffer_memset(b, 0, BYTES / 4, 4, 0xdeadbeefu));
    for (size_t i = 0; i < BYTES; i += 4)
        memcpy(want + i, &(uint32_t){0xdeadbeefu}, 4);
    assert_gpu_ok(gpu_buffer_memset(b, 1000, 500, 2, 0x1234));
    for (size_t i = 0; i < 500; i++)
        memcpy(want + 1000 + 2 * i, &(uint16_t){0x1234}, 2);
    assert_gpu_ok(gpu_buffer_memset(b, 7777, 333, 1, 0xab));
    memset(want + 7777, 0xab, 333);
    assert_gpu_ok(gpu_buffer_memset_async(b, 16384, 1000, 4, 7, stream));
    for (size_t i = 0; i < 1000; i++)
        memcpy(want + 16384 + 4 * i, &(uint32_t){7}, 4);
    assert_gpu_ok(gpu_buffer_memset_async(b, BYTES - 6, 3, 2, 0xfeed, stream));
    for (size_t i = 0; i < 3; i++)
        memcpy(want + BYTES - 6 + 2 * i, &(uint16_t){0xfeed}, 2);
    assert_gpu_ok(gpu_buffer_memset_async(b, 3, 1, 1, 0x42, stream));
    want[3] = 0x42;
    host = download(b, BYTES / 4);
    for (size_t i = 0; i < BYTES; i++)
        wrong += ((unsigned char *)host)[i] != want[i];
    printf("KERNELS memset bytes=%d wrong=%zu\n", BYTES, wrong);
    assert_int_equal(wrong, 0);
    assert_gpu_status(gpu_buffer_memset(b, 2, 1, 4, 0), GPU_ERR_INVALID_ARG);
    assert_gpu_status(gpu_buffer_memset(b, BYTES - 2, 1, 4, 0), GPU_ERR_INVALID_ARG);
    free(host);
    free(want);
    gpu_buffer_destroy(b);
}

/* ---- A __constant__ read by a kernel ---- */

static void constant_table(void **state)
{
    enum { N = 4096 };
    uint32_t table[64], back[64];
    uint64_t address = 0, ptr;
    size_t bytes = 0, wrong = 0;
    uint32_t n = N;
    gpu_buffer *out = zeroed(N);
    uint32_t *host;

    (void)state;
    assert_gpu_ok(gpu_module_get_global(mod, "const_table", &address, &bytes));
    assert_int_equal(bytes, sizeof(table));
    assert_true(address != 0);
    for (uint32_t i = 0; i < 64; i++)
        table[i] = 0x1000u + i * 37u;
    assert_gpu_ok(gpu_module_copy_to_global(mod, "const_table", table, sizeof(table)));
    ptr = gpu_buffer_get_device_ptr(out);
    assert_gpu_ok(gpu_stream_launch_function(stream, function("read_constant"),
                                             &(gpu_launch_config){.grid = {N / 256, 1, 1}, .block = {256, 1, 1}},
                                             (void *[]){&ptr, &n}));
    host = download(out, N);
    for (uint32_t i = 0; i < N; i++)
        wrong += host[i] != table[i % 64] * 2u + 1u;
    assert_gpu_ok(gpu_module_copy_from_global(mod, "const_table", back, sizeof(back)));
    assert_memory_equal(back, table, sizeof(table));
    assert_gpu_status(gpu_module_get_global(mod, "no_such_symbol", &address, &bytes), GPU_ERR_FUNCTION_NOT_FOUND);
    printf("KERNELS constant bytes=%zu n=%d wrong=%zu\n", bytes, N, wrong);
    assert_int_equal(wrong, 0);
    free(host);
    gpu_buffer_destroy(out);
}

/* ---- Tensor maps: one tile through cp.async.bulk.tensor ---- */

/* Loads the tile at (x0, y0) of a W x H tensor of in[y * W + x] = y * 1000 + x; counts wrong words (out of bounds: 0). */
static size_t tma_tile(const gpu_tensor_map *map, gpu_buffer *out, int x0, int y0, unsigned w, unsigned h)
{
    enum { TILE_W = 32, TILE_H = 16 };
    uint64_t o = gpu_buffer_get_device_ptr(out);
    uint32_t *host;
    size_t wrong = 0;

    assert_gpu_ok(gpu_buffer_memset(out, 0, TILE_W * TILE_H, 4, 0xeeeeeeeeu));
    assert_gpu_ok(gpu_stream_launch_function(stream, function("tma_tile"),
                                             &(gpu_launch_config){.grid = {1, 1, 1}, .block = {128, 1, 1}},
                                             (void *[]){(void *)map, &o, &x0, &y0}));
    host = download(out, TILE_W * TILE_H);
    for (int ty = 0; ty < TILE_H; ty++)
        for (int tx = 0; tx < TILE_W; tx++) {
            unsigned x = (unsigned)(x0 + tx), y = (unsigned)(y0 + ty);
            uint32_t want = x < w && y < h ? y * 1000u + x : 0u;

            wrong += host[ty * TILE_W + tx] != want;
        }
    free(host);
    return wrong;
}

static void tensor_map_tile(void **state)
{
    enum { W = 256, H = 128 };
    gpu_tensor_tiled d = {.type = GPU_TENSOR_UINT32, .rank = 2, .dims = {W, H}, .strides = {W * 4}, .box = {32, 16}};
    gpu_tensor_map map;
    gpu_buffer *in = NULL, *out = zeroed(32 * 16);
    uint32_t *host = malloc(W * H * 4);
    size_t inside, edge;

    (void)state;
    assert_non_null(host);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++)
            host[y * W + x] = y * 1000u + x;
    assert_gpu_ok(gpu_buffer_create(NULL, W * H * 4, &in));
    assert_gpu_ok(gpu_buffer_copy_from_host(in, host, W * H * 4));
    assert_gpu_ok(gpu_tensor_map_encode_tiled(in, 0, &d, &map));
    inside = tma_tile(&map, out, 64, 32, W, H);
    /* Past the right and bottom edges: the map fills zeros. */
    edge = tma_tile(&map, out, W - 16, H - 8, W, H);
    printf("KERNELS tensor_map tile=32x16 tensor=%dx%d wrong_inside=%zu wrong_at_edge=%zu\n", W, H, inside, edge);
    assert_int_equal(inside, 0);
    assert_int_equal(edge, 0);
    free(host);
    gpu_buffer_destroy(out);
    gpu_buffer_destroy(in);
}

int main(void)
{
    const char *path = getenv("GPUSHIM_TEST_KERNELS_EX_PTX");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(limits_read_back),
        cmocka_unit_test(device_attributes),
        cmocka_unit_test(shared_200k),
        cmocka_unit_test(persistent_all_resident),
        cmocka_unit_test(cooperative_barrier),
        cmocka_unit_test(cluster_ranks),
        cmocka_unit_test(serialized_pair),
        cmocka_unit_test(memset_values),
        cmocka_unit_test(constant_table),
        cmocka_unit_test(tensor_map_tile),
    };
    int rc = gpu_test_start("gpu-kernels");
    gpu_status st;

    if (rc != 0)
        return rc;
    if (!path || !*path)
        path = GPU_KERNELS_EX_PTX;
    st = gpu_device_get_info(0, &dev);
    if (st == GPU_OK && dev.compute_major < 9) {
        printf("SKIP gpu-kernels: sm_%d%d cannot run kernels_ex.ptx (sm_90)\n", dev.compute_major, dev.compute_minor);
        return GPU_TEST_SKIP;
    }
    if (st == GPU_OK)
        st = gpu_module_load_file(NULL, path, &mod);
    if (st == GPU_OK)
        st = gpu_stream_create_non_blocking(NULL, &stream);
    if (st != GPU_OK) {
        printf("FAIL gpu-kernels: %s (%s): %s\n", path, gpu_status_get_name(st), gpu_last_error_get_message());
        return 1;
    }
    rc = cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
    gpu_stream_destroy(stream);
    gpu_module_destroy(mod);
    return rc;
}
