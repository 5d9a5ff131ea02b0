/*
 * The fake driver's memory: device allocations backed by host memory at
 * addresses that are not host pointers, page-locked host memory, and copies.
 * Every address a copy names is checked against the live allocations, at the
 * call and again when queued work runs, so a freed or out-of-range address is
 * an error here as it is on a GPU.
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

/* Host memory for [addr, addr + bytes) of device memory, or NULL. */
static unsigned char *device_bytes(uint64_t addr, size_t bytes)
{
    struct fake_alloc *a = fake_alloc_find(addr, bytes);

    return a ? a->data + (addr - a->addr) : NULL;
}

bool fake_copy_run(const struct fake_copy *c)
{
    unsigned char *dst = c->dst ? device_bytes(c->dst, c->bytes) : c->host_dst;
    const unsigned char *src = c->src ? device_bytes(c->src, c->bytes) : c->host_src;

    if (!dst || !src)
        return false;
    memmove(dst, src, c->bytes);
    return true;
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

/*
 * Checks a copy's device addresses: allocated, in range, and reachable from
 * the current context (its own device's memory, or a peer's it enabled).
 */
static cuabi_result check_copy(const struct fake_ctx *c, const struct fake_copy *copy)
{
    const uint64_t sides[2] = {copy->dst, copy->src};

    if ((!copy->dst && !copy->host_dst) || (!copy->src && !copy->host_src))
        return CUABI_ERROR_INVALID_VALUE;
    for (int i = 0; i < 2; i++) {
        struct fake_alloc *a;

        if (!sides[i])
            continue;
        a = fake_alloc_find(sides[i], copy->bytes);
        if (!a || !fake_ctx_reaches(c, a->device))
            return CUABI_ERROR_INVALID_VALUE;
    }
    return CUABI_SUCCESS;
}

/* A synchronous copy: a legacy-stream operation, done before it returns. */
static cuabi_result copy_sync(enum fake_entry entry, const struct fake_copy *copy)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && copy->bytes)
        rc = check_copy(c, copy);
    if (rc == CUABI_SUCCESS)
        rc = fake_legacy_sync(c);
    if (rc == CUABI_SUCCESS && copy->bytes && !fake_copy_run(copy))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

/*
 * Queues a copy on a stream. The host side is read or written when the
 * stream reaches the copy, as for page-locked memory: the strictest reading
 * of the contract, so a client that reuses the memory too early is caught.
 */
static cuabi_result queue_copy(const struct fake_copy *copy, cuabi_stream stream)
{
    struct fake_stream *s = NULL;
    struct fake_op *op;
    cuabi_result rc = fake_stream_for_work(stream, &s);

    if (rc == CUABI_SUCCESS && !copy->peer)
        rc = check_copy(s->ctx, copy);
    if (rc != CUABI_SUCCESS || copy->bytes == 0)
        return rc;
    op = fake_op_new(FAKE_OP_COPY);
    if (!op)
        return CUABI_ERROR_OUT_OF_MEMORY;
    op->u.copy = *copy;
    return fake_enqueue(s, op);
}

static cuabi_result copy_async(enum fake_entry entry, const struct fake_copy *copy, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS)
        rc = queue_copy(copy, stream);
    return fake_end(rc);
}

cuabi_result cuMemcpyHtoD_v2(cuabi_deviceptr dst, const void *src, size_t bytes)
{
    struct fake_copy c = {.dst = dst, .host_src = src, .bytes = bytes};

    return copy_sync(FAKE_E_cuMemcpyHtoD_v2, &c);
}

cuabi_result cuMemcpyDtoH_v2(void *dst, cuabi_deviceptr src, size_t bytes)
{
    struct fake_copy c = {.host_dst = dst, .src = src, .bytes = bytes};

    return copy_sync(FAKE_E_cuMemcpyDtoH_v2, &c);
}

cuabi_result cuMemcpyDtoD_v2(cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes)
{
    struct fake_copy c = {.dst = dst, .src = src, .bytes = bytes};

    return copy_sync(FAKE_E_cuMemcpyDtoD_v2, &c);
}

cuabi_result cuMemcpyHtoDAsync_v2(cuabi_deviceptr dst, const void *src, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = {.dst = dst, .host_src = src, .bytes = bytes};

    return copy_async(FAKE_E_cuMemcpyHtoDAsync_v2, &c, stream);
}

cuabi_result cuMemcpyDtoHAsync_v2(void *dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = {.host_dst = dst, .src = src, .bytes = bytes};

    return copy_async(FAKE_E_cuMemcpyDtoHAsync_v2, &c, stream);
}

cuabi_result cuMemcpyDtoDAsync_v2(cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = {.dst = dst, .src = src, .bytes = bytes};

    return copy_async(FAKE_E_cuMemcpyDtoDAsync_v2, &c, stream);
}

/*
 * Between two contexts: each address must be its own context's device's.
 * Peer access is not needed (the real driver stages the copy without it).
 */
cuabi_result cuMemcpyPeerAsync(cuabi_deviceptr dst, cuabi_context dst_ctx, cuabi_deviceptr src,
                               cuabi_context src_ctx, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = {.dst = dst, .src = src, .bytes = bytes, .peer = true};
    cuabi_result rc = fake_begin(FAKE_E_cuMemcpyPeerAsync, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *dc = fake_ctx_from(dst_ctx), *sc = fake_ctx_from(src_ctx);
        struct fake_alloc *da = fake_alloc_find(dst, bytes), *sa = fake_alloc_find(src, bytes);

        if (!dc || !sc)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        else if (bytes && (!da || !sa || da->device != dc->device || sa->device != sc->device))
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            rc = queue_copy(&c, stream);
    }
    return fake_end(rc);
}

/* ---- Page-locked host memory ---- */

/* Whether [p, p + bytes) touches a range the fake knows; the caller has ruled out wrapping. */
static bool host_overlaps(const void *p, size_t bytes)
{
    uintptr_t lo = (uintptr_t)p;

    for (struct fake_host *h = fake.hosts; h; h = h->next) {
        uintptr_t h_lo = (uintptr_t)h->ptr;

        if (lo - h_lo < h->size || h_lo - lo < bytes)
            return true;
    }
    return false;
}

static struct fake_host *host_take(const void *p, bool registered)
{
    for (struct fake_host **q = &fake.hosts; *q; q = &(*q)->next) {
        struct fake_host *h = *q;

        if ((const void *)h->ptr == p && h->registered == registered) {
            *q = h->next;
            return h;
        }
    }
    return NULL;
}

cuabi_result cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemHostAlloc, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_host *h = NULL;

        /* PORTABLE, DEVICEMAP and WRITECOMBINED are the flags there are. */
        if (!ptr || bytes == 0 || (flags & ~7u))
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!(h = calloc(1, sizeof(*h))) || !(h->ptr = malloc(bytes)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        if (rc == CUABI_SUCCESS) {
            h->size = bytes;
            h->next = fake.hosts;
            fake.hosts = h;
            fake.live[GPU_FAKE_LIVE_HOST_ALLOCS]++;
            *ptr = h->ptr;
        } else {
            free(h);
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemFreeHost(void *ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemFreeHost, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_host *h = host_take(ptr, false);

        if (!h) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            free(h->ptr);
            free(h);
            fake.live[GPU_FAKE_LIVE_HOST_ALLOCS]--;
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemHostRegister_v2(void *ptr, size_t bytes, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemHostRegister_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_host *h = NULL;

        /* PORTABLE, DEVICEMAP, IOMEMORY and READ_ONLY. */
        /* As the driver: a range that wraps around the address space is an invalid value. */
        if (!ptr || bytes == 0 || (flags & ~0xfu) || bytes > UINTPTR_MAX - (uintptr_t)ptr)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (host_overlaps(ptr, bytes))
            rc = CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
        else if (!(h = calloc(1, sizeof(*h))))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        if (rc == CUABI_SUCCESS) {
            h->ptr = ptr;
            h->size = bytes;
            h->registered = true;
            h->next = fake.hosts;
            fake.hosts = h;
            fake.live[GPU_FAKE_LIVE_HOST_REGISTERED]++;
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemHostUnregister(void *ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemHostUnregister, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_host *h = host_take(ptr, true);

        if (!h) {
            rc = CUABI_ERROR_HOST_MEMORY_NOT_REGISTERED;
        } else {
            free(h);
            fake.live[GPU_FAKE_LIVE_HOST_REGISTERED]--;
        }
    }
    return fake_end(rc);
}

/* ---- Control API ---- */

static int peek_poke(uint64_t addr, void *host, size_t bytes, bool to_device)
{
    unsigned char *d;
    int rc = -1;

    fake_lock();
    d = device_bytes(addr, bytes);
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
