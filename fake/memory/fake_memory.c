/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's device memory: allocations backed by host memory at
 * addresses that are not host pointers, looked up by address; pointer
 * attributes, address ranges and memory info. Every address an operation
 * names is checked against the live allocations, at the call and again when
 * queued work runs, so a freed or out-of-range address is an error here as it
 * is on a GPU.
 */
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_faults.h"
#include "fake_host_memory.h"
#include "fake_memory.h"
#include "fake_shm.h"
#include "fake_stream.h"

enum {
    ALLOC_ALIGN = 512,      /* as the driver aligns them: TEXTURE_ALIGNMENT, so a texture may start at any */
    ALLOC_GUARD = 4096,     /* unallocated addresses after each allocation */
    MAP_MIN = 64 << 10,     /* from this size up, an allocation is a mapping of its own */
    PITCH_ALIGN = 512,      /* cuMemAllocPitch's rows */
};

/*
 * The live allocations, by address, found in O(log n):
 *
 *  - Device memory: each device's region of addresses is handed out upwards,
 *    its allocations an array sorted by address. A free leaves a hole (alloc
 *    NULL), squeezed out once holes are half the array. The allocation
 *    holding an address can only be the slot with the greatest address at or
 *    below it: a binary search.
 *  - Freed addresses are kept as sorted, merged ranges and handed out again
 *    only once the region's fresh addresses are used up (16 TiB later), the
 *    lowest range that fits first. Until then a stale pointer faults, where a
 *    GPU driver may give the same address to the next allocation at once;
 *    after, a stale pointer into reused space reaches the allocation there,
 *    as on a GPU.
 *  - Memory elsewhere (managed memory, at its host address): a search tree,
 *    tsearch's (balanced), whose keys are the allocations themselves ordered
 *    by their disjoint ranges.
 *
 * fake.allocs lists them all too, newest first, for the walks that want them all.
 */
struct slot {
    uint64_t addr;
    struct fake_alloc *alloc; /* NULL once freed */
};

struct range {
    uint64_t lo, hi;
};

static struct region {
    struct slot *slots;
    size_t count, capacity, holes;
    struct range *free; /* freed addresses, sorted and merged */
    size_t nfree, free_cap;
} regions[FAKE_MAX_DEVICES];

static void *elsewhere;

/* The device region holding `addr`, or NULL. */
static struct region *region_of(uint64_t addr)
{
    uint64_t d = addr >= FAKE_ADDR_BASE ? (addr - FAKE_ADDR_BASE) / FAKE_ADDR_STRIDE : FAKE_MAX_DEVICES;

    return d < FAKE_MAX_DEVICES ? &regions[d] : NULL;
}

/* The index of the last slot at or below `addr`, or count when there is none. */
static size_t slot_below(const struct region *r, uint64_t addr)
{
    size_t lo = 0, hi = r->count; /* the answer is below hi; slots before lo are at or below addr */

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r->slots[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : r->count;
}

static int range_compare(const void *key, const void *node)
{
    const struct fake_alloc *k = key, *n = node;

    if (k->addr < n->addr)
        return -1;
    return k->addr - n->addr >= n->size ? 1 : 0;
}

/* Squeezes the holes out of a region's slots. */
static void holes_squeeze(struct region *r)
{
    size_t kept = 0;

    for (size_t i = 0; i < r->count; i++)
        if (r->slots[i].alloc)
            r->slots[kept++] = r->slots[i];
    r->count = kept;
    r->holes = 0;
    if (kept == 0) {
        free(r->slots);
        r->slots = NULL;
        r->capacity = 0;
    }
}

static bool index_add(struct fake_alloc *a)
{
    struct region *r = region_of(a->addr);
    size_t at;

    if (!r)
        return tsearch(a, &elsewhere, range_compare) != NULL;
    /* Reused addresses: no hole may stay inside the allocation, where a lookup would stop at it. */
    if (r->count && r->slots[r->count - 1].addr > a->addr)
        holes_squeeze(r);
    if (r->count == r->capacity) {
        size_t capacity = r->capacity ? r->capacity * 2 : 64;
        struct slot *s = realloc(r->slots, capacity * sizeof(*s));

        if (!s)
            return false;
        r->slots = s;
        r->capacity = capacity;
    }
    at = r->count;
    if (r->count && r->slots[r->count - 1].addr > a->addr) {
        at = slot_below(r, a->addr);
        at = at == r->count ? 0 : at + 1;
        memmove(&r->slots[at + 1], &r->slots[at], (r->count - at) * sizeof(*r->slots));
    }
    r->slots[at].addr = a->addr;
    r->slots[at].alloc = a;
    r->count++;
    return true;
}

static void index_remove(const struct fake_alloc *a)
{
    struct region *r = region_of(a->addr);

    if (!r) {
        tdelete(a, &elsewhere, range_compare);
        return;
    }
    r->slots[slot_below(r, a->addr)].alloc = NULL;
    if (++r->holes < 64 || r->holes * 2 < r->count)
        return;
    holes_squeeze(r);
}

/* The addresses an allocation of `bytes` takes: its size rounded to ALLOC_ALIGN, then the guard; SIZE_MAX if too large. */
static size_t alloc_span(size_t bytes)
{
    return bytes > SIZE_MAX - ALLOC_ALIGN - ALLOC_GUARD ? SIZE_MAX
                                                         : (bytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN +
                                                               ALLOC_GUARD;
}

/* Gives [lo, hi) back to its region, merged with its neighbours; false when out of memory. */
static bool range_free(struct region *r, uint64_t lo, uint64_t hi)
{
    size_t at = 0, lo_end = r->nfree;

    /* The first range above lo: a binary search. */
    while (at < lo_end) {
        size_t mid = at + (lo_end - at) / 2;

        if (r->free[mid].lo < lo)
            at = mid + 1;
        else
            lo_end = mid;
    }
    if (at > 0 && r->free[at - 1].hi == lo) {
        r->free[at - 1].hi = hi;
        if (at < r->nfree && r->free[at].lo == hi) {
            r->free[at - 1].hi = r->free[at].hi;
            memmove(&r->free[at], &r->free[at + 1], (r->nfree - at - 1) * sizeof(*r->free));
            r->nfree--;
        }
        return true;
    }
    if (at < r->nfree && r->free[at].lo == hi) {
        r->free[at].lo = lo;
        return true;
    }
    if (r->nfree == r->free_cap) {
        size_t cap = r->free_cap ? r->free_cap * 2 : 16;
        struct range *f = realloc(r->free, cap * sizeof(*f));

        if (!f)
            return false;
        r->free = f;
        r->free_cap = cap;
    }
    memmove(&r->free[at + 1], &r->free[at], (r->nfree - at) * sizeof(*r->free));
    r->free[at] = (struct range){lo, hi};
    r->nfree++;
    return true;
}

/* Takes `span` addresses from the lowest freed range that holds them: its start, or 0 when none does. */
static uint64_t range_take(struct region *r, uint64_t span)
{
    for (size_t i = 0; i < r->nfree; i++) {
        uint64_t lo = r->free[i].lo;

        if (r->free[i].hi - lo < span)
            continue;
        r->free[i].lo += span;
        if (r->free[i].lo == r->free[i].hi) {
            memmove(&r->free[i], &r->free[i + 1], (r->nfree - i - 1) * sizeof(*r->free));
            r->nfree--;
        }
        return lo;
    }
    return 0;
}

bool fake_alloc_index(struct fake_alloc *a)
{
    return index_add(a);
}

void fake_alloc_unindex(const struct fake_alloc *a)
{
    index_remove(a);
}

struct fake_alloc *fake_alloc_find(uint64_t addr, size_t bytes)
{
    const struct region *r = region_of(addr);
    struct fake_alloc *a = NULL;

    if (r) {
        size_t i = slot_below(r, addr);

        a = i < r->count ? r->slots[i].alloc : NULL;
    } else {
        const struct fake_alloc key = {.addr = addr, .size = 1};
        void *found = tfind(&key, &elsewhere, range_compare);

        a = found ? *(struct fake_alloc **)found : NULL;
    }
    return a && addr - a->addr < a->size && bytes <= a->size - (addr - a->addr) ? a : NULL;
}

void fake_alloc_written(uint64_t addr, size_t bytes)
{
    struct fake_alloc *a = bytes ? fake_alloc_find(addr, bytes) : NULL;
    size_t i, end;

    if (!a || !a->written)
        return;
    i = addr - a->addr;
    end = i + bytes;
    for (; i < end && i % 8; i++)
        a->written[i / 8] |= (unsigned char)(1u << (i % 8));
    if (end / 8 > i / 8) {
        memset(a->written + i / 8, 0xff, end / 8 - i / 8);
        i = end / 8 * 8;
    }
    for (; i < end; i++)
        a->written[i / 8] |= (unsigned char)(1u << (i % 8));
}

unsigned char *fake_device_bytes(uint64_t addr, size_t bytes)
{
    struct fake_alloc *a = fake_alloc_find(addr, bytes);

    return a ? a->data + (addr - a->addr) : NULL;
}

/*
 * Host memory for an allocation, zeroed. A large one is an anonymous mapping
 * without reserved swap, as a GPU driver's is: its pages cost nothing until
 * touched, so a program may ask for a real GPU's tens of GiB.
 */
static unsigned char *data_new(size_t bytes, bool *mapped)
{
    void *p;

    *mapped = bytes >= MAP_MIN;
    if (!*mapped)
        return calloc(1, bytes);
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void data_free(struct fake_alloc *a)
{
    free(a->written);
    a->written = NULL;
    if (a->mapped)
        munmap(a->data, a->size);
    else
        free(a->data);
    if (a->shared)
        close(a->shm_fd);
}

/* Removes a live allocation from the index, the list and its device's counts, and frees it. */
static void alloc_drop(struct fake_alloc *a)
{
    struct fake_device *d = &fake.devices[a->device];
    struct region *r = a->kind == FAKE_ALLOC_MANAGED ? NULL : region_of(a->addr);

    index_remove(a);
    /* Out of memory for the list: the addresses stay unused, as all were before they could be reused. */
    if (r)
        (void)range_free(r, a->addr, a->addr + alloc_span(a->size));
    if (a->prev)
        a->prev->next = a->next;
    else
        fake.allocs = a->next;
    if (a->next)
        a->next->prev = a->prev;
    if (a->kind != FAKE_ALLOC_GLOBAL) {
        if (a->kind != FAKE_ALLOC_IPC)
            d->used -= a->size;
        /* Handles this process opened on it go with it. */
        fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS] -= 1 + (long)a->ipc_opens;
    }
    if (a->kind == FAKE_ALLOC_POOL)
        d->pool_used -= a->size;
    data_free(a);
    free(a);
}

/* Frees every device allocation of the device not made in a created context; how many there were. */
static unsigned long memory_reset(int device)
{
    unsigned long n = 0;

    for (struct fake_alloc *a = fake.allocs, *next; a; a = next) {
        next = a->next;
        if (a->device == device && a->kind != FAKE_ALLOC_GLOBAL && !a->owner) {
            alloc_drop(a);
            n++;
        }
    }
    return n;
}

/* Frees every allocation made in a created context; how many there were. */
static unsigned long memory_reset_owner(const struct fake_ctx *ctx)
{
    unsigned long n = 0;

    for (struct fake_alloc *a = fake.allocs, *next; a; a = next) {
        next = a->next;
        if (a->owner == ctx && a->kind != FAKE_ALLOC_GLOBAL) {
            alloc_drop(a);
            n++;
        }
    }
    return n;
}

unsigned long fake_memory_ctx_reset(struct fake_ctx *ctx)
{
    return ctx->created ? memory_reset_owner(ctx) : memory_reset(ctx->device);
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
    bool counted = kind != FAKE_ALLOC_GLOBAL && kind != FAKE_ALLOC_IPC;
    struct fake_alloc *a = NULL;
    size_t span = alloc_span(bytes);
    uint64_t region_end = FAKE_ADDR_BASE + FAKE_ADDR_STRIDE * (uint64_t)(device + 1), at = d->next_addr;
    bool fresh = kind == FAKE_ALLOC_MANAGED || span <= region_end - d->next_addr;

    /* Past the device's memory, or its region of addresses used up and none freed that fits: out of memory. */
    if ((counted && (bytes > d->desc.total_memory - d->used || fake_over_limit(device, d->used, bytes))) ||
        (!fresh && span > FAKE_ADDR_STRIDE) || !(a = calloc(1, sizeof(*a))))
        return CUABI_ERROR_OUT_OF_MEMORY;
    a->size = bytes;
    if (!(a->data = data_new(bytes, &a->mapped))) {
        free(a);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    /* The init check's shadow: device memory a client allocates starts unwritten. */
    if ((kind == FAKE_ALLOC_PLAIN || kind == FAKE_ALLOC_POOL) && (fake_checks() & FAKE_CHECK_INIT) &&
        !(a->written = calloc(bytes / 8 + 1, 1))) {
        data_free(a);
        free(a);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    a->device = device;
    a->kind = kind;
    a->location = device;
    /* Made in a created context: it goes with that context. */
    if (fake_current() && fake_current()->created && fake_current()->device == device)
        a->owner = fake_current();
    if (!fresh && !(at = range_take(&regions[device], span))) {
        data_free(a);
        free(a);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    /* Managed memory lives at its host address, so that the host reaches it directly. */
    a->addr = kind == FAKE_ALLOC_MANAGED ? (uintptr_t)a->data : at;
    if (!index_add(a)) {
        data_free(a);
        free(a);
        if (!fresh)
            (void)range_free(&regions[device], at, at + span);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    if (kind != FAKE_ALLOC_MANAGED && fresh)
        d->next_addr += span;
    if (counted)
        d->used += bytes;
    if (kind != FAKE_ALLOC_GLOBAL)
        fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS]++;
    if (kind == FAKE_ALLOC_POOL)
        d->pool_used += bytes;
    a->next = fake.allocs;
    if (a->next)
        a->next->prev = a;
    fake.allocs = a;
    *out = a;
    return CUABI_SUCCESS;
}

void fake_alloc_release(struct fake_alloc *a)
{
    alloc_drop(a);
}

cuabi_result fake_alloc_adopt(int device, size_t bytes, unsigned char *data, int fd, struct fake_alloc **out)
{
    cuabi_result rc = fake_alloc_new(device, bytes, FAKE_ALLOC_IPC, out);

    if (rc != CUABI_SUCCESS) {
        munmap(data, bytes);
        close(fd);
        return rc;
    }
    data_free(*out);
    (*out)->data = data;
    (*out)->mapped = true;
    (*out)->shared = true;
    (*out)->shm_fd = fd;
    return CUABI_SUCCESS;
}

/* Copies what the allocation's pages hold to `to`: pages never touched are zero in both, and are left alone. */
static void data_copy(const struct fake_alloc *a, unsigned char *to)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char resident = 1;

    if (!a->mapped) {
        memcpy(to, a->data, a->size);
        return;
    }
    for (size_t at = 0; at < a->size; at += page) {
        size_t n = a->size - at < page ? a->size - at : page;

        if (mincore(a->data + at, 1, &resident) == 0 && !(resident & 1))
            continue;
        memcpy(to + at, a->data + at, n);
    }
}

bool fake_alloc_share(struct fake_alloc *a)
{
    char name[64];
    unsigned char *data;
    uint64_t tag = 0;
    int fd;

    if (getentropy(&tag, sizeof(tag)) != 0)
        return false;
    snprintf(name, sizeof(name), "gpushim-fake-ipc:%016llx", (unsigned long long)tag);
    fd = fake_shm_create(name, a->size);
    if (fd < 0)
        return false;
    data = fake_shm_map(fd, a->size, 0, NULL);
    if (!data) {
        close(fd);
        return false;
    }
    data_copy(a, data);
    data_free(a);
    a->data = data;
    a->mapped = true;
    a->shared = true;
    a->shm_fd = fd;
    a->shm_tag = tag;
    return true;
}

bool fake_alloc_free(uint64_t addr)
{
    struct fake_alloc *a = fake_alloc_at(addr, -1);

    /* Not the client's to free: a module's globals, a VA mapping's stretch, another process's memory opened here. */
    if (!a || a->kind == FAKE_ALLOC_GLOBAL || a->kind == FAKE_ALLOC_VMM || a->kind == FAKE_ALLOC_IPC)
        return false;
    alloc_drop(a);
    return true;
}

/*
 * The context a free is made in: the current one, or without one the
 * allocation's own (the driver frees a valid pointer with no context current).
 */
static cuabi_result free_ctx(cuabi_deviceptr ptr, struct fake_ctx **out)
{
    const struct fake_alloc *a;

    if (fake_current() || !(a = fake_alloc_at(ptr, -1)))
        return fake_need_ctx(out);
    *out = a->owner ? a->owner : &fake.devices[a->device].ctx;
    return fake_ctx_error(*out);
}

/* After the work queued before it, which may still use the memory: a queued kernel never finds it gone. */
cuabi_result cuMemFree_v2(cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemFree_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = free_ctx(ptr, &c);
    if (rc == CUABI_SUCCESS) {
        fake_work_drain();
        rc = fake_ctx_error(c);
    }
    if (rc == CUABI_SUCCESS && !fake_alloc_free(ptr))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

cuabi_result cuMemAllocPitch_v2(cuabi_deviceptr *ptr, size_t *pitch, size_t width, size_t height,
                                unsigned int element_size)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAllocPitch_v2, true);
    struct fake_ctx *c = NULL;
    struct fake_alloc *a = NULL;
    size_t p = 0;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    /* Rows 512-byte aligned (TEXTURE_PITCH_ALIGNMENT's 32 would do; the driver pads more), of 4-, 8- or 16-byte elements. */
    if (rc == CUABI_SUCCESS && (!ptr || !pitch || width == 0 || height == 0 || width > SIZE_MAX / 2 ||
                                (element_size != 4 && element_size != 8 && element_size != 16)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        p = (width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
        rc = height > SIZE_MAX / p ? CUABI_ERROR_OUT_OF_MEMORY : fake_alloc_new(c->device, p * height, FAKE_ALLOC_PLAIN, &a);
    }
    if (rc == CUABI_SUCCESS) {
        *ptr = a->addr;
        *pitch = p;
    }
    return fake_end(rc);
}

struct fake_alloc *fake_alloc_at(uint64_t addr, int kind)
{
    struct fake_alloc *a = fake_alloc_find(addr, 1);

    return a && a->addr == addr && (kind < 0 || a->kind == kind) ? a : NULL;
}

/* ---- Pointers and memory info ---- */

/* What cuPointerGetAttributes and cuPointerGetAttribute share, their begin done (`rc`). */
static cuabi_result pointer_attributes(cuabi_result rc, unsigned int count, const cuabi_pointer_attribute *attributes,
                                       void **data, cuabi_deviceptr ptr)
{
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
        /* Under unified addressing an alias is the address itself: a device one for all memory the fake knows, a host one for page-locked and managed memory. */
        uint64_t device_ptr = a || h ? ptr : 0;
        uint64_t host_ptr = h || managed ? ptr : 0;

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
        case CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER:
            memcpy(out, &device_ptr, sizeof(device_ptr));
            break;
        case CUABI_POINTER_ATTRIBUTE_HOST_POINTER:
            memcpy(out, &host_ptr, sizeof(host_ptr));
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
    return rc;
}

cuabi_result cuPointerGetAttributes(unsigned int count, cuabi_pointer_attribute *attributes, void **data,
                                    cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuPointerGetAttributes, true);

    return fake_end(pointer_attributes(rc, count, attributes, data, ptr));
}

cuabi_result cuPointerGetAttribute(void *data, cuabi_pointer_attribute attribute, cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuPointerGetAttribute, true);
    struct fake_alloc *a = rc == CUABI_SUCCESS ? fake_alloc_find(ptr, 1) : NULL;
    bool host = rc == CUABI_SUCCESS && fake_host_find(ptr);

    /* Unlike the plural, an address the driver does not know is an error here, and so is device memory's missing host alias. */
    if (rc == CUABI_SUCCESS && !a && !host)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && attribute == CUABI_POINTER_ATTRIBUTE_HOST_POINTER && !host &&
        a->kind != FAKE_ALLOC_MANAGED)
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(pointer_attributes(rc, 1, &attribute, &data, ptr));
}

cuabi_result cuMemGetAddressRange_v2(cuabi_deviceptr *base, size_t *size, cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemGetAddressRange_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = fake_alloc_find(ptr, 1);
        /* Page-locked host memory is mapped into every context at its device alias, its host address. */
        const struct fake_host *h = a ? NULL : fake_host_find(ptr);

        if (!h && (!a || !fake_ctx_reaches(c, a->device))) {
            rc = CUABI_ERROR_NOT_FOUND;
        } else {
            if (base)
                *base = a ? a->addr : (uintptr_t)h->ptr;
            if (size)
                *size = a ? a->size : h->size;
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
        *free_bytes = d->desc.total_memory - d->used - d->pool_cached;
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
            fake_alloc_written(addr, bytes);
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
