/* SPDX-License-Identifier: MIT */
/*
 * The interpreter's memory model for global memory: an address reaches
 * host memory only through a live allocation of a device the launch's
 * context may touch, or through page-locked host memory, which every
 * context reaches at its host address (cuMemHostGetDevicePointer). No call that changes the allocations runs
 * during a launch (fake_begin(), fake_kernel_unlock()), so they do not change meanwhile; each block caches the last
 * allocation it found (ptx_mem_global() in ptx_internal.h), and the common
 * case, an access to the same buffer as the one before, costs two compares;
 * the few found before it are looked at before the fake's tree.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_host_memory.h"
#include "fake_memory.h"
#include "env.h"
#include "ptx_internal.h"

unsigned char *ptx_mem_lookup(struct ptx_mem *m, uint64_t addr, size_t bytes)
{
    struct ptx_mem_range last = {m->lo, m->hi, m->data, m->written}, found;
    struct fake_alloc *a;
    unsigned i;

    for (i = 0; i < PTX_MEM_RECENT; i++)
        if (addr >= m->recent[i].lo && addr < m->recent[i].hi && bytes <= m->recent[i].hi - addr)
            break;
    if (i < PTX_MEM_RECENT) {
        /* Found before: it and the last one change places. */
        found = m->recent[i];
        m->recent[i] = last;
    } else {
        const struct fake_host *h = NULL;

        if (addr > UINT64_MAX - bytes)
            return NULL;
        a = fake_alloc_find(addr, bytes);
        if (!a)
            h = fake_host_find(addr);
        if (h && bytes <= h->size - (addr - (uintptr_t)h->ptr))
            found = (struct ptx_mem_range){(uintptr_t)h->ptr, (uintptr_t)h->ptr + h->size, h->ptr, NULL};
        else if (a && a->data && fake_ctx_reaches(m->ctx, a->device))
            found = (struct ptx_mem_range){a->addr, a->addr + a->size, a->data, a->written};
        else
            return NULL;
        memmove(&m->recent[1], &m->recent[0], (PTX_MEM_RECENT - 1) * sizeof(m->recent[0]));
        m->recent[0] = last;
    }
    m->lo = found.lo;
    m->hi = found.hi;
    m->data = found.data;
    m->written = found.written;
    return m->data + (addr - m->lo);
}

unsigned ptx_watchdog_seconds(void)
{
    const char *v = gpu__env_raw("GPUSHIM_FAKE_WATCHDOG");
    long seconds = 30;

    /*
     * Long enough for any kernel that makes progress; a spin that cannot end stops after it. A refused value
     * (a configuration error, which cuInit reports) keeps the default.
     */
    if (v)
        fake_env_number("GPUSHIM_FAKE_WATCHDOG", v, 0, 86400, GPU__ENV_UNIT_NONE, &seconds);
    return (unsigned)seconds;
}
