/*
 * The fake driver's device memory: allocations backed by host memory at
 * addresses that are not host pointers, looked up by address; pointer
 * attributes, address ranges and memory info. Every address an operation
 * names is checked against the live allocations, at the call and again when
 * queued work runs, so a freed or out-of-range address is an error here as it
 * is on a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

enum {
    ALLOC_ALIGN = 256,
    ALLOC_GUARD = 4096, /* unallocated addresses after each allocation */
};

struct fake_alloc *fake_alloc_find(uint64_t addr, size_t bytes)
{
    for (struct fake_alloc *a = fake.allocs; a; a = a->next)
        if (addr >= a->addr && addr - a->addr < a->size && bytes <= a->size - (addr - a->addr))
            return a;
    return NULL;
}

unsigned char *fake_device_bytes(uint64_t addr, size_t bytes)
{
    struct fake_alloc *a = fake_alloc_find(addr, bytes);

    return a ? a->data + (addr - a->addr) : NULL;
}

unsigned long fake_memory_reset(int device)
{
    unsigned long n = 0;

    for (struct fake_alloc **p = &fake.allocs; *p;) {
        struct fake_alloc *a = *p;

        if (a->device != device) {
            p = &a->next;
            continue;
        }
        *p = a->next;
        fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS] -= 1 + (long)a->ipc_opens;
        free(a->data);
        free(a);
        n++;
    }
    fake.devices[device].used = 0;
    return n;
}

/* ---- Device memory ---- */

cuabi_result cuMemAlloc_v2(cuabi_deviceptr *ptr, size_t bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAlloc_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = NULL;

        if (!ptr || bytes == 0)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            rc = fake_alloc_new(c->device, bytes, FAKE_ALLOC_PLAIN, &a);
        if (rc == CUABI_SUCCESS)
            *ptr = a->addr;
    }
    return fake_end(rc);
}

cuabi_result fake_alloc_new(int device, size_t bytes, int kind, struct fake_alloc **out)
{
    struct fake_device *d = &fake.devices[device];
    struct fake_alloc *a = NULL;

    if (bytes > d->desc.total_memory - d->used || fake_over_limit(device, d->used, bytes) || !(a = calloc(1, sizeof(*a))) ||
        !(a->data = malloc(bytes))) {
        free(a);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    /* Not zeroed: a test that reads memory it never wrote sees this pattern. */
    memset(a->data, 0xa5, bytes);
    a->addr = d->next_addr;
    a->size = bytes;
    a->device = device;
    a->kind = kind;
    a->location = device;
    d->next_addr += (bytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN + ALLOC_GUARD;
    d->used += bytes;
    a->next = fake.allocs;
    fake.allocs = a;
    fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS]++;
    *out = a;
    return CUABI_SUCCESS;
}

bool fake_alloc_free(uint64_t addr)
{
    struct fake_alloc **p = &fake.allocs;
    struct fake_alloc *a;

    while (*p && (*p)->addr != addr)
        p = &(*p)->next;
    if (!*p)
        return false;
    a = *p;
    *p = a->next;
    fake.devices[a->device].used -= a->size;
    /* Mappings another "process" still had open go with it. */
    fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS] -= 1 + (long)a->ipc_opens;
    free(a->data);
    free(a);
    return true;
}

cuabi_result cuMemFree_v2(cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemFree_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && !fake_alloc_free(ptr))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

/* The live allocation at exactly `addr`, of `kind` (-1: any), or NULL. */
struct fake_alloc *fake_alloc_at(uint64_t addr, int kind)
{
    for (struct fake_alloc *a = fake.allocs; a; a = a->next)
        if (a->addr == addr && (kind < 0 || a->kind == kind))
            return a;
    return NULL;
}

/* ---- Pointers and memory info ---- */

cuabi_result cuPointerGetAttributes(unsigned int count, cuabi_pointer_attribute *attributes, void **data,
                                    cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuPointerGetAttributes, true);
    struct fake_alloc *a = fake_alloc_find(ptr, 1);
    struct fake_host *h = a ? NULL : fake_host_find(ptr);
    /* Page-locked host memory is portable here: it names device 0's context. */
    int device = a ? a->device : h ? 0 : -2;
    struct fake_ctx *ctx = device >= 0 ? &fake.devices[device].ctx : NULL;

    if (rc == CUABI_SUCCESS && (!attributes || !data || count == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    /* As documented: an address CUDA does not know is not an error; its attributes are zero. */
    for (unsigned i = 0; rc == CUABI_SUCCESS && i < count; i++) {
        void *out = data[i];
        unsigned type = a ? CUABI_MEMORYTYPE_DEVICE : h ? CUABI_MEMORYTYPE_HOST : 0;
        unsigned managed = a && a->kind == FAKE_ALLOC_MANAGED;
        uint64_t base = a ? a->addr : h ? (uintptr_t)h->ptr : 0;
        size_t size = a ? a->size : h ? h->size : 0;

        if (!out) {
            rc = CUABI_ERROR_INVALID_VALUE;
            break;
        }
        switch (attributes[i]) {
        case CUABI_POINTER_ATTRIBUTE_CONTEXT:
            memcpy(out, &ctx, sizeof(ctx));
            break;
        case CUABI_POINTER_ATTRIBUTE_MEMORY_TYPE:
            memcpy(out, &type, sizeof(type));
            break;
        case CUABI_POINTER_ATTRIBUTE_IS_MANAGED:
            memcpy(out, &managed, sizeof(managed));
            break;
        case CUABI_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
            memcpy(out, &device, sizeof(device));
            break;
        case CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR:
            memcpy(out, &base, sizeof(base));
            break;
        case CUABI_POINTER_ATTRIBUTE_RANGE_SIZE:
            memcpy(out, &size, sizeof(size));
            break;
        default:
            rc = CUABI_ERROR_INVALID_VALUE;
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemGetAddressRange_v2(cuabi_deviceptr *base, size_t *size, cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemGetAddressRange_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = fake_alloc_find(ptr, 1);

        if (!a || !fake_ctx_reaches(c, a->device)) {
            rc = CUABI_ERROR_NOT_FOUND;
        } else {
            if (base)
                *base = a->addr;
            if (size)
                *size = a->size;
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemGetInfo_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && (!free_bytes || !total_bytes))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        const struct fake_device *d = &fake.devices[c->device];

        *total_bytes = d->desc.total_memory;
        *free_bytes = d->desc.total_memory - d->used - fake_pool_cached(c->device);
    }
    return fake_end(rc);
}

/* ---- Control API ---- */

static int peek_poke(uint64_t addr, void *host, size_t bytes, bool to_device)
{
    unsigned char *d;
    int rc = -1;

    fake_lock();
    d = fake_device_bytes(addr, bytes);
    if (d) {
        if (to_device) {
            memcpy(d, host, bytes);
            /* A stream waiting on a value may be released by it. */
            pthread_cond_broadcast(&fake.cond);
        } else
            memcpy(host, d, bytes);
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API int gpu_fake_peek(uint64_t addr, void *dst, size_t bytes)
{
    return peek_poke(addr, dst, bytes, false);
}

FAKE_API int gpu_fake_poke(uint64_t addr, const void *src, size_t bytes)
{
    return peek_poke(addr, (void *)(uintptr_t)src, bytes, true);
}
