/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's managed memory: allocations any device may reach, with
 * where the last prefetch moved them and the last advice given.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

cuabi_result cuMemAllocManaged(cuabi_deviceptr *ptr, size_t bytes, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAllocManaged, true);
    struct fake_ctx *c = NULL;
    struct fake_alloc *a = NULL;

    /* CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST. */
    if (rc == CUABI_SUCCESS && (!ptr || bytes == 0 || (flags != 1u && flags != 2u)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = fake_alloc_new(c->device, bytes, FAKE_ALLOC_MANAGED, &a);
    if (rc == CUABI_SUCCESS)
        *ptr = a->addr; /* its host address (fake_alloc_new()): the host reaches it directly, as on a real machine */
    return fake_end(rc);
}

/* The managed allocation holding [ptr, ptr + bytes), and whether `dev` is a place for it. */
static cuabi_result managed_range(cuabi_deviceptr ptr, size_t bytes, cuabi_device dev, struct fake_alloc **out)
{
    struct fake_alloc *a = fake_alloc_find(ptr, bytes);

    if (!a || a->kind != FAKE_ALLOC_MANAGED || bytes == 0)
        return CUABI_ERROR_INVALID_VALUE;
    if (dev != CUABI_DEVICE_CPU && !fake_device_valid(dev))
        return CUABI_ERROR_INVALID_DEVICE;
    *out = a;
    return CUABI_SUCCESS;
}

cuabi_result cuMemPrefetchAsync(cuabi_deviceptr ptr, size_t bytes, cuabi_device dst, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPrefetchAsync, true);
    struct fake_stream *s = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS)
        rc = managed_range(ptr, bytes, dst, &a);
    if (rc == CUABI_SUCCESS)
        a->location = dst == CUABI_DEVICE_CPU ? -1 : dst;
    return fake_end(rc);
}

cuabi_result cuMemAdvise(cuabi_deviceptr ptr, size_t bytes, cuabi_mem_advise advice, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAdvise, true);
    struct fake_ctx *c = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = managed_range(ptr, bytes, dev, &a);
    if (rc == CUABI_SUCCESS && (advice < CUABI_MEM_ADVISE_SET_READ_MOSTLY || advice > CUABI_MEM_ADVISE_UNSET_ACCESSED_BY))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        a->advice = (int)advice;
    return fake_end(rc);
}

/* ---- Control API ---- */

static int managed_field(uint64_t addr, bool location)
{
    int v;

    fake_lock();
    {
        struct fake_alloc *a = fake_alloc_find(addr, 1);

        v = !a || a->kind != FAKE_ALLOC_MANAGED ? (location ? -2 : -1) : location ? a->location : a->advice;
    }
    fake_unlock();
    return v;
}

FAKE_API int gpu_fake_managed_location(uint64_t addr)
{
    return managed_field(addr, true);
}

FAKE_API int gpu_fake_managed_advice(uint64_t addr)
{
    return managed_field(addr, false);
}
