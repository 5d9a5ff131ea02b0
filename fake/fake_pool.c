/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's stream-ordered allocation: cuMemAllocAsync and
 * cuMemFreeAsync, and each device's one pool, which keeps freed memory for
 * reuse up to its release threshold.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_core.h"
#include "fake_device.h"
#include "fake_memory.h"
#include "fake_stream.h"

/* The one pool of each device; what it holds for reuse beyond its allocations in use is the device's pool_cached. */
static struct fake_pool {
    uint64_t threshold;
} pools[FAKE_MAX_DEVICES];

static struct fake_pool *pool_lookup(cuabi_mem_pool handle)
{
    for (int i = 0; i < fake.device_count; i++)
        if ((void *)handle == (void *)&pools[i])
            return &pools[i];
    return NULL;
}

/* Releases what the pool holds beyond max(keep, in use). */
static void pool_shrink(int device, uint64_t keep)
{
    size_t used = fake.devices[device].pool_used;
    uint64_t room = keep > used ? keep - used : 0;

    if (fake.devices[device].pool_cached > room)
        fake.devices[device].pool_cached = (size_t)room;
}

cuabi_result cuMemAllocAsync(cuabi_deviceptr *ptr, size_t bytes, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAllocAsync, true);
    struct fake_stream *s = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS && (!ptr || bytes == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    /* A capture would record an allocation node, which this fake does not play. */
    if (rc == CUABI_SUCCESS && s->capture != FAKE_CAPTURE_NONE)
        rc = CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (rc == CUABI_SUCCESS)
        rc = fake_alloc_new(s->ctx->device, bytes, FAKE_ALLOC_POOL, &a);
    if (rc == CUABI_SUCCESS) {
        size_t *cached = &fake.devices[s->ctx->device].pool_cached;

        *cached -= *cached < bytes ? *cached : bytes;
        *ptr = a->addr;
    }
    return fake_end(rc);
}

/* Runs a FREE operation: its allocation goes back to its pool; false when there is none at its address. */
static bool free_run(struct fake_stream *s, const struct fake_op *op)
{
    struct fake_alloc *a = fake_alloc_at(op->u.value.addr, FAKE_ALLOC_POOL);
    int device;

    if (!a)
        return false;
    fake.devices[a->device].pool_cached += a->size;
    device = a->device;
    fake_alloc_free(op->u.value.addr);
    pool_shrink(device, pools[device].threshold);
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

/* The device's default pool, for the entry that asks. */
static cuabi_result default_pool(enum fake_entry entry, cuabi_mem_pool *pool, cuabi_device dev)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS && !pool)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    else if (rc == CUABI_SUCCESS)
        *pool = (cuabi_mem_pool)(void *)&pools[dev];
    return fake_end(rc);
}

cuabi_result cuDeviceGetDefaultMemPool(cuabi_mem_pool *pool, cuabi_device dev)
{
    return default_pool(FAKE_E_cuDeviceGetDefaultMemPool, pool, dev);
}

/* The device's current pool: its default one, as the fake has no other (no cuDeviceSetMemPool, no cuMemPoolCreate). */
cuabi_result cuDeviceGetMemPool(cuabi_mem_pool *pool, cuabi_device dev)
{
    return default_pool(FAKE_E_cuDeviceGetMemPool, pool, dev);
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
        int device = (int)(p - pools);
        uint64_t v = 0;

        if (attr == CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD)
            v = p->threshold;
        else if (attr == CUABI_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
            v = fake.devices[device].pool_used + fake.devices[device].pool_cached;
        else if (attr == CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT)
            v = fake.devices[device].pool_used;
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
        pool_shrink((int)(p - pools), keep);
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
