/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's page-locked host memory: cuMemHostAlloc's and what
 * cuMemHostRegister registered, which copies may name as host memory, with
 * their flags; its device address (the same, under unified addressing),
 * which every copy and fill takes as device memory (fake_copy.c) and host
 * kernels reach through gpu_fake_memory().
 */
#include <stdlib.h>
#include <string.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_host_memory.h"
#include "fake_stream.h"

/* The page-locked host memory holding `addr`, or NULL. */
struct fake_host *fake_host_find(uint64_t addr)
{
    for (struct fake_host *h = fake.hosts; h; h = h->next)
        if (addr >= (uintptr_t)h->ptr && addr - (uintptr_t)h->ptr < h->size)
            return h;
    return NULL;
}

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

/* What cuMemHostAlloc and cuMemAllocHost_v2 share, their begin done (`rc`). */
static cuabi_result host_alloc(cuabi_result rc, void **ptr, size_t bytes, unsigned int flags)
{
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
            h->flags = flags;
            h->next = fake.hosts;
            fake.hosts = h;
            fake.live[GPU_FAKE_LIVE_HOST_ALLOCS]++;
            *ptr = h->ptr;
        } else {
            free(h);
        }
    }
    return rc;
}

cuabi_result cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemHostAlloc, true);

    return fake_end(host_alloc(rc, ptr, bytes, flags));
}

/* cuMemHostAlloc without flags. */
cuabi_result cuMemAllocHost_v2(void **ptr, size_t bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAllocHost_v2, true);

    return fake_end(host_alloc(rc, ptr, bytes, 0));
}

cuabi_result cuMemFreeHost(void *ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemFreeHost, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_host *h;

        fake_work_drain(); /* a queued copy may still use it */
        h = host_take(ptr, false);

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
            h->flags = flags;
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
        struct fake_host *h;

        fake_work_drain(); /* a queued copy may still use it, and the client may free it once this returns */
        h = host_take(ptr, true);

        if (!h) {
            rc = CUABI_ERROR_HOST_MEMORY_NOT_REGISTERED;
        } else {
            free(h);
            fake.live[GPU_FAKE_LIVE_HOST_REGISTERED]--;
        }
    }
    return fake_end(rc);
}

/*
 * With unified addressing, as on every GPU the fake plays, page-locked memory
 * is mapped into every context at its host address, whatever the flags
 * (DEVICEMAP is implied): its device pointer is its host pointer.
 */
cuabi_result cuMemHostGetDevicePointer_v2(cuabi_deviceptr *ptr, void *host, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemHostGetDevicePointer_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    /* Flags are for a later release: 0 now. */
    if (rc == CUABI_SUCCESS && (!ptr || flags != 0 || !fake_host_find((uintptr_t)host)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *ptr = (uintptr_t)host;
    return fake_end(rc);
}

/*
 * The flags page-locked memory holding `host` was allocated (or registered)
 * with, and DEVICEMAP always: under unified addressing all of it is mapped
 * (an H200 answers PORTABLE | DEVICEMAP for memory allocated PORTABLE).
 */
cuabi_result cuMemHostGetFlags(unsigned int *flags, void *host)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemHostGetFlags, true);
    struct fake_host *h = rc == CUABI_SUCCESS ? fake_host_find((uintptr_t)host) : NULL;

    if (rc == CUABI_SUCCESS && (!flags || !h))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *flags = h->flags | CUABI_MEMHOSTALLOC_DEVICEMAP;
    return fake_end(rc);
}
