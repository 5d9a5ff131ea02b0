/*
 * The fake driver's side of issue 11: device attributes past the three of
 * gpu_fake_device_desc (values of an H200, each of which a test may change),
 * device UUIDs, function attributes, occupancy, cooperative, cluster and
 * extended launches, memset, module globals (`.fake_global NAME BYTES` in the
 * fake's PTX) and context limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

enum {
    ATTRIBUTE_MAX = 128,  /* attribute values the overrides cover */
    FAKE_NUM_REGS = 32,   /* registers a thread of every built-in kernel uses */
    CLUSTER_MAX = 8,      /* blocks in a portable cluster */
    GLOBAL_MAX = 1 << 20, /* bytes of one global */
    LIMIT_COUNT = 3,
};

/* ---- Device attributes ---- */

static const struct {
    unsigned attribute;
    int value;
} attribute_defaults[] = {
    {CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
    {CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
    {CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
    {CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
    {CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
    {CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
    {CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
    {CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
    {CUABI_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 65536},
    {CUABI_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
    {CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536},
    {CUABI_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},
    {CUABI_DEVICE_ATTRIBUTE_INTEGRATED, 0},
    {CUABI_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 1},
    {CUABI_DEVICE_ATTRIBUTE_ECC_ENABLED, 1},
    {CUABI_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 2619000},
    {CUABI_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 6144},
    {CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 52428800},
    {CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048},
    {CUABI_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 3},
    {CUABI_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1},
    {CUABI_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, 1},
    {CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 233472},
    {CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536},
    {CUABI_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1},
    {CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1},
    {CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448},
    {CUABI_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32},
    {CUABI_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1024},
    {CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 1},
};

/* What a test changed: a value, or (known false) an attribute the driver does not know. */
static struct {
    bool set;
    bool known;
    int value;
} overrides[FAKE_MAX_DEVICES][ATTRIBUTE_MAX];

bool fake_device_attribute(int device, unsigned attribute, int *value)
{
    if (attribute < ATTRIBUTE_MAX && overrides[device][attribute].set) {
        *value = overrides[device][attribute].value;
        return overrides[device][attribute].known;
    }
    for (size_t i = 0; i < sizeof(attribute_defaults) / sizeof(attribute_defaults[0]); i++)
        if (attribute_defaults[i].attribute == attribute) {
            *value = attribute_defaults[i].value;
            return true;
        }
    return false;
}

/* An attribute the fake always knows (those of the table above). */
static int attribute_of(int device, unsigned attribute)
{
    int v = 0;

    fake_device_attribute(device, attribute, &v);
    return v;
}

static int attribute_override(int ordinal, int attribute, bool known, int value)
{
    int rc = -1;

    fake_lock();
    if (ordinal >= 0 && ordinal < fake.device_count && attribute >= 0 && attribute < ATTRIBUTE_MAX) {
        overrides[ordinal][attribute].set = true;
        overrides[ordinal][attribute].known = known;
        overrides[ordinal][attribute].value = value;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API int gpu_fake_device_attribute_set(int ordinal, int attribute, int value)
{
    return attribute_override(ordinal, attribute, true, value);
}

FAKE_API int gpu_fake_device_attribute_forget(int ordinal, int attribute)
{
    return attribute_override(ordinal, attribute, false, 0);
}

cuabi_result cuDeviceGetUuid_v2(cuabi_uuid *uuid, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetUuid_v2, true);

    if (rc == CUABI_SUCCESS) {
        if (!uuid)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (dev < 0 || dev >= fake.device_count)
            rc = CUABI_ERROR_INVALID_DEVICE;
        for (int i = 0; rc == CUABI_SUCCESS && i < 16; i++)
            uuid->bytes[i] = (char)(dev * 16 + i + 1);
    }
    return fake_end(rc);
}

/* ---- Function attributes and occupancy ---- */

void fake_func_attrs_init(struct fake_func_attrs *a)
{
    a->max_dynamic_shared = 48 * 1024;
    a->carveout = -1;
    a->cache_config = CUABI_FUNC_CACHE_PREFER_NONE;
}

cuabi_result cuFuncGetAttribute(int *value, cuabi_function_attribute attrib, cuabi_function f)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncGetAttribute, true);

    if (rc == CUABI_SUCCESS) {
        const struct fake_func_attrs *a = fake_function_attrs(f, NULL);
        /* Indexed by CUfunction_attribute: the built-in kernels use no static, constant or local memory. */
        const int fixed[] = {1024, 0, 0, 0, FAKE_NUM_REGS, 80, 90, 0};

        if (!value)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!a)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (attrib < sizeof(fixed) / sizeof(fixed[0]))
            *value = fixed[attrib];
        else if (attrib == CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
            *value = a->max_dynamic_shared;
        else if (attrib == CUABI_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
            *value = a->carveout;
        else
            rc = CUABI_ERROR_INVALID_VALUE;
    }
    return fake_end(rc);
}

cuabi_result cuFuncSetAttribute(cuabi_function f, cuabi_function_attribute attrib, int value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncSetAttribute, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *ctx = NULL;
        struct fake_func_attrs *a = fake_function_attrs(f, &ctx);

        if (!a)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (attrib == CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES && value >= 0 &&
                 value <= attribute_of(ctx->device, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
            a->max_dynamic_shared = value;
        else if (attrib == CUABI_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT && value >= -1 && value <= 100)
            a->carveout = value;
        else
            rc = CUABI_ERROR_INVALID_VALUE;
    }
    return fake_end(rc);
}

cuabi_result cuFuncSetCacheConfig(cuabi_function f, cuabi_func_cache config)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncSetCacheConfig, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_func_attrs *a = fake_function_attrs(f, NULL);

        if (!a)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (config > CUABI_FUNC_CACHE_PREFER_EQUAL)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            a->cache_config = config;
    }
    return fake_end(rc);
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* Blocks of the function resident on one multiprocessor: threads, registers, then shared memory bound it. */
static int blocks_per_sm(int device, const struct fake_func_attrs *a, unsigned block, size_t shared)
{
    int threads = (int)((block + 31) / 32 * 32);
    int n = attribute_of(device, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    size_t per_block = shared + (size_t)attribute_of(device, CUABI_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);

    if (block == 0 || block > 1024 || shared > (size_t)a->max_dynamic_shared)
        return 0;
    n = min_int(n, attribute_of(device, CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / threads);
    n = min_int(n, attribute_of(device, CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) /
                       (threads * FAKE_NUM_REGS));
    if (shared)
        n = min_int(n, (int)((size_t)attribute_of(device, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) /
                             per_block));
    return n;
}

/* The function's attributes and device, with a context current: else the CUresult. */
static cuabi_result occupancy_of(cuabi_function f, const struct fake_func_attrs **a, int *device)
{
    struct fake_ctx *cur = NULL, *ctx = NULL;
    cuabi_result rc = fake_need_ctx(&cur);

    if (rc == CUABI_SUCCESS && !(*a = fake_function_attrs(f, &ctx)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        *device = ctx->device;
    return rc;
}

cuabi_result cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, cuabi_function f, int block_size,
                                                                  size_t dynamic_shared, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, true);
    const struct fake_func_attrs *a = NULL;
    int device = 0;

    if (rc == CUABI_SUCCESS)
        rc = occupancy_of(f, &a, &device);
    if (rc == CUABI_SUCCESS && (!blocks || block_size <= 0 || flags > CUABI_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *blocks = blocks_per_sm(device, a, (unsigned)block_size, dynamic_shared);
    return fake_end(rc);
}

cuabi_result cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid_size, int *block_size, cuabi_function f,
                                                       cuabi_occupancy_b2d_size shared_of_block,
                                                       size_t dynamic_shared, int block_size_limit,
                                                       unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyMaxPotentialBlockSizeWithFlags, true);
    const struct fake_func_attrs *a = NULL;
    int device = 0;

    if (rc == CUABI_SUCCESS)
        rc = occupancy_of(f, &a, &device);
    if (rc == CUABI_SUCCESS && (!min_grid_size || !block_size || block_size_limit < 0 ||
                                flags > CUABI_OCCUPANCY_DISABLE_CACHING_OVERRIDE))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        int limit = block_size_limit == 0 || block_size_limit > 1024 ? 1024 : block_size_limit;
        int best = 0, best_threads = 0;

        /* The largest block that reaches the highest occupancy, as the driver's search finds it. */
        for (int b = limit; b > 0; b -= 32) {
            size_t shared = shared_of_block ? shared_of_block(b) : dynamic_shared;
            int threads = blocks_per_sm(device, a, (unsigned)b, shared) * b;

            if (threads > best_threads) {
                best_threads = threads;
                best = b;
            }
        }
        *block_size = best;
        *min_grid_size = best ? best_threads / best * fake.devices[device].desc.multiprocessors : 0;
    }
    return fake_end(rc);
}

/* The attributes of a cuLaunchKernelEx configuration; CUDA_ERROR_INVALID_VALUE for one the fake does not know. */
static cuabi_result launch_ex_parse(const cuabi_launch_config *config, struct fake_launch_ex *ex)
{
    memset(ex, 0, sizeof(*ex));
    if (!config || (config->num_attrs && !config->attrs))
        return CUABI_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < config->num_attrs; i++) {
        const cuabi_launch_attribute *at = &config->attrs[i];

        if (at->id == CUABI_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            ex->cluster[0] = at->value.cluster_dim.x;
            ex->cluster[1] = at->value.cluster_dim.y;
            ex->cluster[2] = at->value.cluster_dim.z;
        } else if (at->id == CUABI_LAUNCH_ATTRIBUTE_COOPERATIVE) {
            ex->cooperative = at->value.cooperative != 0;
        } else if (at->id == CUABI_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) {
            ex->serialized = at->value.programmatic_stream_serialization_allowed != 0;
        } else if (at->id == CUABI_LAUNCH_ATTRIBUTE_PRIORITY) {
            ex->priority = at->value.priority;
        } else {
            return CUABI_ERROR_INVALID_VALUE;
        }
    }
    return CUABI_SUCCESS;
}

static bool has_cluster(const struct fake_launch_ex *ex)
{
    return (ex->cluster[0] | ex->cluster[1] | ex->cluster[2]) != 0;
}

/* A cluster shape the device takes for the grid. */
static cuabi_result cluster_check(const unsigned grid[3], const struct fake_launch_ex *ex)
{
    unsigned size = 1;

    for (int i = 0; i < 3; i++) {
        if (ex->cluster[i] == 0 || (grid && grid[i] % ex->cluster[i]))
            return CUABI_ERROR_INVALID_CLUSTER_SIZE;
        size *= ex->cluster[i];
    }
    return size > CLUSTER_MAX ? CUABI_ERROR_INVALID_CLUSTER_SIZE : CUABI_SUCCESS;
}

cuabi_result fake_launch_ex_check(const struct fake_ctx *ctx, const struct fake_func_attrs *a, const unsigned grid[3],
                                  const unsigned block[3], unsigned shared, const struct fake_launch_ex *ex)
{
    int device = ctx->device;

    if (has_cluster(ex)) {
        if (!attribute_of(device, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH))
            return CUABI_ERROR_NOT_SUPPORTED;
        if (cluster_check(grid, ex) != CUABI_SUCCESS)
            return CUABI_ERROR_INVALID_CLUSTER_SIZE;
    }
    if (ex->serialized && fake.devices[device].desc.compute_major < 9)
        return CUABI_ERROR_NOT_SUPPORTED;
    if (ex->cooperative) {
        unsigned long long blocks = (unsigned long long)grid[0] * grid[1] * grid[2];
        int per_sm = blocks_per_sm(device, a, block[0] * block[1] * block[2], shared);

        if (!attribute_of(device, CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH))
            return CUABI_ERROR_NOT_SUPPORTED;
        if (blocks > (unsigned long long)per_sm * (unsigned)fake.devices[device].desc.multiprocessors)
            return CUABI_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }
    return CUABI_SUCCESS;
}

cuabi_result cuOccupancyMaxActiveClusters(int *clusters, cuabi_function f, const cuabi_launch_config *config)
{
    cuabi_result rc = fake_begin(FAKE_E_cuOccupancyMaxActiveClusters, true);
    const struct fake_func_attrs *a = NULL;
    struct fake_launch_ex ex;
    int device = 0;

    if (rc == CUABI_SUCCESS)
        rc = occupancy_of(f, &a, &device);
    if (rc == CUABI_SUCCESS && !clusters)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = launch_ex_parse(config, &ex);
    if (rc == CUABI_SUCCESS && !attribute_of(device, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH))
        rc = CUABI_ERROR_NOT_SUPPORTED;
    if (rc == CUABI_SUCCESS)
        rc = cluster_check(NULL, &ex);
    if (rc == CUABI_SUCCESS) {
        unsigned size = ex.cluster[0] * ex.cluster[1] * ex.cluster[2];
        int per_sm = blocks_per_sm(device, a, config->block_x * config->block_y * config->block_z,
                                   config->shared_mem_bytes);

        *clusters = (int)((unsigned)(per_sm * fake.devices[device].desc.multiprocessors) / size);
    }
    return fake_end(rc);
}

/* ---- Launches ---- */

cuabi_result cuLaunchKernelEx(const cuabi_launch_config *config, cuabi_function f, void **params, void **extra)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchKernelEx, true);
    struct fake_launch_ex ex;

    if (rc == CUABI_SUCCESS)
        rc = launch_ex_parse(config, &ex);
    if (rc == CUABI_SUCCESS) {
        const unsigned grid[3] = {config->grid_x, config->grid_y, config->grid_z};
        const unsigned block[3] = {config->block_x, config->block_y, config->block_z};

        rc = fake_launch(f, grid, block, config->shared_mem_bytes, config->stream, params, extra, &ex);
    }
    return fake_end(rc);
}

cuabi_result cuLaunchCooperativeKernel(cuabi_function f, unsigned int grid_x, unsigned int grid_y,
                                       unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                       unsigned int block_z, unsigned int shared_mem_bytes, cuabi_stream stream,
                                       void **params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchCooperativeKernel, true);
    const unsigned grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
    const struct fake_launch_ex ex = {.cooperative = true};

    if (rc == CUABI_SUCCESS)
        rc = fake_launch(f, grid, block, shared_mem_bytes, stream, params, NULL, &ex);
    return fake_end(rc);
}

/* ---- Memset ---- */

bool fake_memset_run(const struct fake_memset *m)
{
    struct fake_alloc *a = m->count <= SIZE_MAX / m->size ? fake_alloc_find(m->dst, m->count * m->size) : NULL;
    unsigned char *p;

    if (!a)
        return false;
    p = a->data + (m->dst - a->addr);
    for (size_t i = 0; i < m->count; i++)
        memcpy(p + i * m->size, &m->value, m->size); /* little-endian, as the GPU is */
    return true;
}

/* A fill's memory: allocated, aligned to its elements and reachable from `ctx`. */
static cuabi_result memset_check(const struct fake_ctx *ctx, const struct fake_memset *m)
{
    struct fake_alloc *a;

    if (m->dst % m->size)
        return CUABI_ERROR_INVALID_VALUE;
    a = m->count <= SIZE_MAX / m->size ? fake_alloc_find(m->dst, m->count * m->size) : NULL;
    if (!a || !fake_ctx_reaches(ctx, a->device))
        return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

static cuabi_result memset_sync(enum fake_entry entry, const struct fake_memset *m)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && m->count)
        rc = memset_check(c, m);
    if (rc == CUABI_SUCCESS)
        rc = fake_legacy_sync(c);
    if (rc == CUABI_SUCCESS && m->count && !fake_memset_run(m))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

static cuabi_result memset_async(enum fake_entry entry, const struct fake_memset *m, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_stream *s = NULL;
    struct fake_op *op;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS && m->count)
        rc = memset_check(s->ctx, m);
    if (rc == CUABI_SUCCESS && m->count) {
        op = fake_op_new(FAKE_OP_MEMSET);
        if (!op) {
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        } else {
            op->u.memset = *m;
            rc = fake_enqueue(s, op);
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemsetD8_v2(cuabi_deviceptr dst, unsigned char value, size_t count)
{
    return memset_sync(FAKE_E_cuMemsetD8_v2, &(struct fake_memset){dst, value, 1, count});
}

cuabi_result cuMemsetD16_v2(cuabi_deviceptr dst, unsigned short value, size_t count)
{
    return memset_sync(FAKE_E_cuMemsetD16_v2, &(struct fake_memset){dst, value, 2, count});
}

cuabi_result cuMemsetD32_v2(cuabi_deviceptr dst, unsigned int value, size_t count)
{
    return memset_sync(FAKE_E_cuMemsetD32_v2, &(struct fake_memset){dst, value, 4, count});
}

cuabi_result cuMemsetD8Async(cuabi_deviceptr dst, unsigned char value, size_t count, cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD8Async, &(struct fake_memset){dst, value, 1, count}, stream);
}

cuabi_result cuMemsetD16Async(cuabi_deviceptr dst, unsigned short value, size_t count, cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD16Async, &(struct fake_memset){dst, value, 2, count}, stream);
}

cuabi_result cuMemsetD32Async(cuabi_deviceptr dst, unsigned int value, size_t count, cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD32Async, &(struct fake_memset){dst, value, 4, count}, stream);
}

/* ---- Module globals ---- */

struct fake_global {
    struct fake_global *next;
    const struct fake_module *module;
    char name[64];
    struct fake_alloc *alloc; /* in fake.allocs, not counted as the client's */
};

static struct fake_global *globals;

static struct fake_global *global_find(const struct fake_module *m, const char *name, size_t len)
{
    for (struct fake_global *g = globals; g; g = g->next)
        if (g->module == m && strlen(g->name) == len && memcmp(g->name, name, len) == 0)
            return g;
    return NULL;
}

cuabi_result fake_global_declare(struct fake_module *m, const char *text, size_t len, char *log, size_t log_size,
                                 struct fake_alloc **out)
{
    struct fake_ctx *ctx = fake_current();
    struct fake_device *d = &fake.devices[ctx->device];
    struct fake_global *g;
    size_t name_len = 0, bytes = 0, i = 0;

    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    text += i;
    len -= i;
    while (name_len < len && text[name_len] != ' ' && text[name_len] != '\t')
        name_len++;
    for (i = name_len; i < len && (text[i] == ' ' || text[i] == '\t'); i++)
        ;
    for (; i < len && text[i] >= '0' && text[i] <= '9' && bytes <= GLOBAL_MAX; i++)
        bytes = bytes * 10 + (size_t)(text[i] - '0');
    if (name_len == 0 || name_len >= sizeof(g->name) || i != len || bytes == 0 || bytes > GLOBAL_MAX) {
        snprintf(log, log_size, "fake ptxas: .fake_global wants a name and 1 to %d bytes: \"%.*s\"", GLOBAL_MAX,
                 (int)len, text);
        return CUABI_ERROR_INVALID_PTX;
    }
    if (global_find(m, text, name_len)) {
        snprintf(log, log_size, "fake ptxas: global \"%.*s\" is defined twice", (int)name_len, text);
        return CUABI_ERROR_INVALID_PTX;
    }
    g = calloc(1, sizeof(*g));
    if (g && !(g->alloc = calloc(1, sizeof(*g->alloc)))) {
        free(g);
        g = NULL;
    }
    if (g && !(g->alloc->data = calloc(1, bytes))) { /* a global starts zeroed */
        free(g->alloc);
        free(g);
        g = NULL;
    }
    if (!g)
        return CUABI_ERROR_OUT_OF_MEMORY;
    memcpy(g->name, text, name_len);
    g->module = m;
    g->alloc->addr = d->next_addr;
    g->alloc->size = bytes;
    g->alloc->device = ctx->device;
    d->next_addr += (bytes + 255) / 256 * 256 + 4096;
    g->alloc->next = fake.allocs;
    fake.allocs = g->alloc;
    g->next = globals;
    globals = g;
    if (out)
        *out = g->alloc;
    return CUABI_SUCCESS;
}

void fake_globals_drop(const struct fake_module *m)
{
    for (struct fake_global **p = &globals; *p;) {
        struct fake_global *g = *p;
        struct fake_alloc **a = &fake.allocs;

        if (g->module != m) {
            p = &g->next;
            continue;
        }
        *p = g->next;
        while (*a && *a != g->alloc)
            a = &(*a)->next;
        if (*a)
            *a = g->alloc->next;
        free(g->alloc->data);
        free(g->alloc);
        free(g);
    }
}

cuabi_result cuModuleGetGlobal_v2(cuabi_deviceptr *ptr, size_t *bytes, cuabi_module module, const char *name)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleGetGlobal_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        const struct fake_module *m = fake_module_find(module);
        const struct fake_global *g = m && name ? global_find(m, name, strlen(name)) : NULL;

        if (!name)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!m)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (!g)
            rc = CUABI_ERROR_NOT_FOUND;
        if (rc == CUABI_SUCCESS && ptr)
            *ptr = g->alloc->addr;
        if (rc == CUABI_SUCCESS && bytes)
            *bytes = g->alloc->size;
    }
    return fake_end(rc);
}

/* ---- Context limits ---- */

static const size_t limit_defaults[LIMIT_COUNT] = {1024, 1 << 20, 8 << 20};
static size_t limits[FAKE_MAX_DEVICES][LIMIT_COUNT];
static bool limits_set[FAKE_MAX_DEVICES][LIMIT_COUNT];

cuabi_result cuCtxGetLimit(size_t *value, cuabi_limit limit)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetLimit, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && !value)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && limit >= LIMIT_COUNT)
        rc = CUABI_ERROR_UNSUPPORTED_LIMIT;
    if (rc == CUABI_SUCCESS)
        *value = limits_set[c->device][limit] ? limits[c->device][limit] : limit_defaults[limit];
    return fake_end(rc);
}

cuabi_result cuCtxSetLimit(cuabi_limit limit, size_t value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxSetLimit, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && limit >= LIMIT_COUNT)
        rc = CUABI_ERROR_UNSUPPORTED_LIMIT;
    if (rc == CUABI_SUCCESS) {
        /* The stack is kept in 16-byte steps, so a test sees the rounding a real driver may do. */
        limits[c->device][limit] = limit == CUABI_LIMIT_STACK_SIZE ? (value + 15) / 16 * 16 : value;
        limits_set[c->device][limit] = true;
    }
    return fake_end(rc);
}

/* ---- Tensor maps ---- */

cuabi_result cuTensorMapEncodeTiled(cuabi_tensor_map *map, cuabi_tensor_map_data_type type, cuabi_uint32 rank,
                                    void *address, const cuabi_uint64 *dims, const cuabi_uint64 *strides,
                                    const cuabi_uint32 *box, const cuabi_uint32 *element_strides,
                                    cuabi_tensor_map_interleave interleave, cuabi_tensor_map_swizzle swizzle,
                                    cuabi_tensor_map_l2_promotion l2_promotion, cuabi_tensor_map_oob_fill oob_fill)
{
    cuabi_result rc = fake_begin(FAKE_E_cuTensorMapEncodeTiled, true);

    if (rc == CUABI_SUCCESS) {
        uint64_t addr = (uint64_t)(uintptr_t)address;

        if (!map || !dims || !box || !element_strides || (rank > 1 && !strides) || rank < 1 || rank > 5 ||
            type > CUABI_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ || interleave != CUABI_TENSOR_MAP_INTERLEAVE_NONE ||
            swizzle > CUABI_TENSOR_MAP_SWIZZLE_128B || l2_promotion > CUABI_TENSOR_MAP_L2_PROMOTION_L2_256B ||
            oob_fill > CUABI_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA || addr % 16 ||
            !fake_alloc_find(addr, 1))
            rc = CUABI_ERROR_INVALID_VALUE;
        for (cuabi_uint32 i = 0; rc == CUABI_SUCCESS && i < rank; i++)
            if (dims[i] == 0 || box[i] == 0 || box[i] > 256 || element_strides[i] == 0 || element_strides[i] > 8 ||
                (i > 0 && strides[i - 1] % 16))
                rc = CUABI_ERROR_INVALID_VALUE;
        if (rc == CUABI_SUCCESS) {
            /* The layout gpushim/fake.h documents, for tests to read back. */
            memset(map, 0, sizeof(*map));
            map->opaque[0] = 0x50414d54454b4146ull; /* "FAKETMAP" */
            map->opaque[1] = addr;
            map->opaque[2] = type | rank << 8 | swizzle << 16 | l2_promotion << 20 | oob_fill << 24;
            for (cuabi_uint32 i = 0; i < rank; i++) {
                map->opaque[3 + i] = dims[i];
                map->opaque[12] |= (uint64_t)box[i] << (12 * i);
                map->opaque[13] |= (uint64_t)element_strides[i] << (4 * i);
                if (i > 0)
                    map->opaque[7 + i] = strides[i - 1];
            }
        }
    }
    return fake_end(rc);
}
