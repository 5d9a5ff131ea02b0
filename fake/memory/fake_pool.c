/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's stream-ordered allocation: cuMemAllocAsync,
 * cuMemAllocFromPoolAsync and cuMemFreeAsync; each device's default pool and
 * the pools cuMemPoolCreate makes, each keeping freed memory for reuse up to
 * its release threshold, and which devices may reach its memory.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_core.h"
#include "fake_device.h"
#include "fake_memory.h"
#include "fake_stream.h"

/*
 * A pool. What the pools of a device hold for reuse beyond their allocations in use is the device's pool_cached,
 * the sum of their `cached`; what a pool has in use is the size of the live allocations that came from it.
 */
struct fake_pool {
    struct fake_pool *next; /* created ones: `created`, newest first */
    int device;
    bool destroyed;         /* by cuMemPoolDestroy, kept until its last allocation is freed */
    uint64_t threshold;
    size_t cached;
    size_t max_size;        /* 0: none but the device's memory */
    unsigned access[FAKE_MAX_DEVICES]; /* CUABI_MEM_ACCESS_FLAGS_PROT_* of the other devices */
};

static struct fake_pool pools[FAKE_MAX_DEVICES]; /* the default ones */
static struct fake_pool *created;
static struct fake_pool *current[FAKE_MAX_DEVICES]; /* cuDeviceSetMemPool's; NULL: the default one */

/* The default pool of `device`, its device set. */
static struct fake_pool *default_of(int device)
{
    pools[device].device = device;
    return &pools[device];
}

/* The live pool a handle names, or NULL: a handle is only compared, never followed. */
static struct fake_pool *pool_lookup(cuabi_mem_pool handle)
{
    for (int i = 0; i < fake.device_count; i++)
        if ((void *)handle == (void *)&pools[i])
            return default_of(i);
    for (struct fake_pool *p = created; p; p = p->next)
        if ((void *)handle == (void *)p && !p->destroyed)
            return p;
    return NULL;
}

static size_t pool_used(const struct fake_pool *p)
{
    size_t used = 0;

    for (const struct fake_alloc *a = fake.allocs; a; a = a->next)
        if (a->kind == FAKE_ALLOC_POOL && a->pool == p)
            used += a->size;
    return used;
}

/* Releases what the pool holds beyond max(keep, in use). */
static void pool_shrink(struct fake_pool *p, uint64_t keep)
{
    size_t used = pool_used(p);
    uint64_t room = keep > used ? keep - used : 0;

    if (p->cached > room) {
        fake.devices[p->device].pool_cached -= p->cached - (size_t)room;
        p->cached = (size_t)room;
    }
}

/* A destroyed pool goes once nothing of it is left. */
static void pool_reap(struct fake_pool *p)
{
    if (!p->destroyed || pool_used(p))
        return;
    for (struct fake_pool **at = &created; *at; at = &(*at)->next)
        if (*at == p) {
            *at = p->next;
            free(p);
            return;
        }
}

/* An allocation from pool p (NULL: the current pool of the stream's device), ordered in `stream`. */
static cuabi_result alloc_async(cuabi_result rc, cuabi_deviceptr *ptr, size_t bytes, struct fake_pool *p,
                                cuabi_stream stream)
{
    struct fake_stream *s = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS && (!ptr || bytes == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    /* A capture would record an allocation node, which this fake does not play. */
    if (rc == CUABI_SUCCESS && s->capture != FAKE_CAPTURE_NONE)
        rc = CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (rc == CUABI_SUCCESS && !p)
        p = current[s->ctx->device] ? current[s->ctx->device] : default_of(s->ctx->device);
    if (rc == CUABI_SUCCESS && p->max_size && (bytes > p->max_size || pool_used(p) > p->max_size - bytes))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS)
        rc = fake_alloc_new(p->device, bytes, FAKE_ALLOC_POOL, &a);
    if (rc == CUABI_SUCCESS) {
        size_t reused = p->cached < bytes ? p->cached : bytes;

        a->pool = p;
        p->cached -= reused;
        fake.devices[p->device].pool_cached -= reused;
        *ptr = a->addr;
    }
    return fake_end(rc);
}

cuabi_result cuMemAllocAsync(cuabi_deviceptr *ptr, size_t bytes, cuabi_stream stream)
{
    return alloc_async(fake_begin(FAKE_E_cuMemAllocAsync, true), ptr, bytes, NULL, stream);
}

cuabi_result cuMemAllocFromPoolAsync(cuabi_deviceptr *ptr, size_t bytes, cuabi_mem_pool pool, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAllocFromPoolAsync, true);
    struct fake_pool *p = rc == CUABI_SUCCESS ? pool_lookup(pool) : NULL;

    if (rc == CUABI_SUCCESS && !p)
        rc = CUABI_ERROR_INVALID_VALUE;
    return alloc_async(rc, ptr, bytes, p, stream);
}

/* Runs a FREE operation: its allocation goes back to its pool; false when there is none at its address. */
static bool free_run(struct fake_stream *s, const struct fake_op *op)
{
    struct fake_alloc *a = fake_alloc_at(op->u.value.addr, FAKE_ALLOC_POOL);
    struct fake_pool *p;

    if (!a)
        return false;
    p = a->pool ? a->pool : default_of(a->device);
    p->cached += a->size;
    fake.devices[p->device].pool_cached += a->size;
    fake_alloc_free(op->u.value.addr);
    pool_shrink(p, p->destroyed ? 0 : p->threshold);
    pool_reap(p);
    return true;
}

static const struct fake_work free_work = {.run = free_run};

cuabi_result cuMemFreeAsync(cuabi_deviceptr ptr, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemFreeAsync, true);
    struct fake_stream *s = NULL;
    struct fake_op *op = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS && !fake_alloc_at(ptr, FAKE_ALLOC_POOL))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !(op = fake_op_new(FAKE_OP_FREE, &free_work)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        op->u.value.addr = ptr;
        rc = fake_enqueue(s, op);
    }
    return fake_end(rc);
}

/* The device's default pool, or its current one, for the entry that asks. */
static cuabi_result device_pool(enum fake_entry entry, cuabi_mem_pool *pool, cuabi_device dev, bool current_one)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS && !pool)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    else if (rc == CUABI_SUCCESS)
        *pool = (cuabi_mem_pool)(void *)(current_one && current[dev] ? current[dev] : default_of(dev));
    return fake_end(rc);
}

cuabi_result cuDeviceGetDefaultMemPool(cuabi_mem_pool *pool, cuabi_device dev)
{
    return device_pool(FAKE_E_cuDeviceGetDefaultMemPool, pool, dev, false);
}

cuabi_result cuDeviceGetMemPool(cuabi_mem_pool *pool, cuabi_device dev)
{
    return device_pool(FAKE_E_cuDeviceGetMemPool, pool, dev, true);
}

/* The pool cuMemAllocAsync takes from on `dev`: one of that device's. */
cuabi_result cuDeviceSetMemPool(cuabi_device dev, cuabi_mem_pool pool)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceSetMemPool, true);
    struct fake_pool *p = rc == CUABI_SUCCESS ? pool_lookup(pool) : NULL;

    if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    else if (rc == CUABI_SUCCESS && (!p || p->device != dev))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        current[dev] = p == &pools[dev] ? NULL : p;
    return fake_end(rc);
}

cuabi_result cuMemPoolSetAttribute(cuabi_mem_pool pool, cuabi_mem_pool_attribute attr, void *value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolSetAttribute, true);
    struct fake_pool *p = pool_lookup(pool);

    /* The release threshold is the one attribute this fake plays. */
    if (rc == CUABI_SUCCESS && (!p || !value || attr != CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        memcpy(&p->threshold, value, sizeof(p->threshold));
    return fake_end(rc);
}

cuabi_result cuMemPoolGetAttribute(cuabi_mem_pool pool, cuabi_mem_pool_attribute attr, void *value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolGetAttribute, true);
    struct fake_pool *p = pool_lookup(pool);

    if (rc == CUABI_SUCCESS && (!p || !value))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        uint64_t v = 0;

        if (attr == CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD)
            v = p->threshold;
        else if (attr == CUABI_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
            v = pool_used(p) + p->cached;
        else if (attr == CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT)
            v = pool_used(p);
        else
            rc = CUABI_ERROR_INVALID_VALUE;
        if (rc == CUABI_SUCCESS)
            memcpy(value, &v, sizeof(v));
    }
    return fake_end(rc);
}

cuabi_result cuMemPoolTrimTo(cuabi_mem_pool pool, size_t keep)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolTrimTo, true);
    struct fake_pool *p = pool_lookup(pool);

    if (rc == CUABI_SUCCESS && !p)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        pool_shrink(p, keep);
    return fake_end(rc);
}

cuabi_result cuMemPoolCreate(cuabi_mem_pool *pool, const cuabi_mem_pool_props *props)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolCreate, true);
    struct fake_pool *p = NULL;

    if (rc == CUABI_SUCCESS && (!pool || !props || props->type != CUABI_MEM_ALLOCATION_TYPE_PINNED ||
                                props->location.type != CUABI_MEM_LOCATION_TYPE_DEVICE))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !fake_device_valid(props->location.id))
        rc = CUABI_ERROR_INVALID_DEVICE;
    /* Its allocations cannot be exported: the fake shares no pool's memory with another process. */
    else if (rc == CUABI_SUCCESS && props->handle_types != CUABI_MEM_HANDLE_TYPE_NONE)
        rc = CUABI_ERROR_NOT_SUPPORTED;
    if (rc == CUABI_SUCCESS && !(p = calloc(1, sizeof(*p))))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        p->device = props->location.id;
        p->max_size = props->max_size;
        p->next = created;
        created = p;
        *pool = (cuabi_mem_pool)(void *)p;
    }
    return fake_end(rc);
}

/* What it holds is released now; the pool itself once its last allocation is freed, as the driver does. */
cuabi_result cuMemPoolDestroy(cuabi_mem_pool pool)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolDestroy, true);
    struct fake_pool *p = rc == CUABI_SUCCESS ? pool_lookup(pool) : NULL;

    /* A device's default pool is not to be destroyed. */
    if (rc == CUABI_SUCCESS && (!p || p == &pools[p->device]))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        if (current[p->device] == p)
            current[p->device] = NULL;
        p->destroyed = true;
        pool_shrink(p, 0);
        pool_reap(p);
    }
    return fake_end(rc);
}

/* Which other devices may reach the pool's memory; its own device always reads and writes it. */
cuabi_result cuMemPoolSetAccess(cuabi_mem_pool pool, const cuabi_mem_access_desc *map, size_t count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolSetAccess, true);
    struct fake_pool *p = rc == CUABI_SUCCESS ? pool_lookup(pool) : NULL;

    if (rc == CUABI_SUCCESS && (!p || (count && !map)))
        rc = CUABI_ERROR_INVALID_VALUE;
    /* Every descriptor checked before any applies. */
    for (size_t i = 0; rc == CUABI_SUCCESS && i < count; i++) {
        const cuabi_mem_access_desc *d = &map[i];

        if (d->location.type != CUABI_MEM_LOCATION_TYPE_DEVICE || !fake_device_valid(d->location.id) ||
            (d->flags != CUABI_MEM_ACCESS_FLAGS_PROT_NONE && d->flags != CUABI_MEM_ACCESS_FLAGS_PROT_READ &&
             d->flags != CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE) ||
            (d->location.id == p->device && d->flags != CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE))
            rc = CUABI_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; rc == CUABI_SUCCESS && i < count; i++)
        p->access[map[i].location.id] = map[i].flags;
    return fake_end(rc);
}

cuabi_result cuMemPoolGetAccess(unsigned int *flags, cuabi_mem_pool pool, cuabi_mem_location *location)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolGetAccess, true);
    struct fake_pool *p = rc == CUABI_SUCCESS ? pool_lookup(pool) : NULL;

    if (rc == CUABI_SUCCESS && (!p || !flags || !location || location->type != CUABI_MEM_LOCATION_TYPE_DEVICE ||
                                !fake_device_valid(location->id)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *flags = location->id == p->device ? CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE : p->access[location->id];
    return fake_end(rc);
}


/* ---- Control API ---- */

FAKE_API long long gpu_fake_pool_cached(int device)
{
    long long n = -1;

    fake_lock();
    if (fake_device_valid(device))
        n = (long long)fake.devices[device].pool_cached;
    fake_unlock();
    return n;
}
