/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's managed memory: allocations any device may reach, with
 * where the last prefetch moved them and the last advice given.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_memory.h"
#include "fake_stream.h"

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
    if (rc == CUABI_SUCCESS) {
        a->preferred = CUABI_DEVICE_INVALID;
        *ptr = a->addr; /* its host address (fake_alloc_new()): the host reaches it directly, as on a real machine */
    }
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

/*
 * The device a CUDA 12.2 location names (the _v2 forms): a device, or the
 * host as CU_DEVICE_CPU. The fake has no NUMA nodes: another kind is refused.
 */
static bool location_device(const cuabi_mem_location *location, cuabi_device *dev)
{
    if (location->type == CUABI_MEM_LOCATION_TYPE_HOST)
        *dev = CUABI_DEVICE_CPU;
    else if (location->type == CUABI_MEM_LOCATION_TYPE_DEVICE && location->id >= 0)
        *dev = location->id;
    else
        return false;
    return true;
}

/* cuMemPrefetchAsync in both forms; `valid` false for a _v2 location or flags refused. */
static cuabi_result prefetch(enum fake_entry entry, cuabi_deviceptr ptr, size_t bytes, cuabi_device dst, bool valid,
                             cuabi_stream stream)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_stream *s = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS && !valid)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS)
        rc = managed_range(ptr, bytes, dst, &a);
    if (rc == CUABI_SUCCESS) {
        a->location = dst == CUABI_DEVICE_CPU ? -1 : dst;
        a->prefetched = true;
    }
    return fake_end(rc);
}

cuabi_result cuMemPrefetchAsync(cuabi_deviceptr ptr, size_t bytes, cuabi_device dst, cuabi_stream stream)
{
    return prefetch(FAKE_E_cuMemPrefetchAsync, ptr, bytes, dst, true, stream);
}

cuabi_result cuMemPrefetchAsync_v2(cuabi_deviceptr ptr, size_t bytes, cuabi_mem_location location, unsigned int flags,
                                   cuabi_stream stream)
{
    cuabi_device dst = 0;
    bool valid = location_device(&location, &dst) && flags == 0;

    return prefetch(FAKE_E_cuMemPrefetchAsync_v2, ptr, bytes, dst, valid, stream);
}

/* cuMemAdvise in both forms; `valid` false for a _v2 location refused. */
static cuabi_result advise(enum fake_entry entry, cuabi_deviceptr ptr, size_t bytes, cuabi_mem_advise advice,
                           cuabi_device dev, bool valid)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS && !valid)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = managed_range(ptr, bytes, dev, &a);
    if (rc == CUABI_SUCCESS && (advice < CUABI_MEM_ADVISE_SET_READ_MOSTLY || advice > CUABI_MEM_ADVISE_UNSET_ACCESSED_BY))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        unsigned bit = 1u << (dev == CUABI_DEVICE_CPU ? FAKE_MAX_DEVICES : dev);

        a->advice = (int)advice;
        if (advice == CUABI_MEM_ADVISE_SET_READ_MOSTLY || advice == CUABI_MEM_ADVISE_UNSET_READ_MOSTLY)
            a->read_mostly = advice == CUABI_MEM_ADVISE_SET_READ_MOSTLY;
        else if (advice == CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION)
            a->preferred = dev;
        else if (advice == CUABI_MEM_ADVISE_UNSET_PREFERRED_LOCATION)
            a->preferred = CUABI_DEVICE_INVALID;
        else if (advice == CUABI_MEM_ADVISE_SET_ACCESSED_BY)
            a->accessed_by |= bit;
        else
            a->accessed_by &= ~bit;
    }
    return fake_end(rc);
}

cuabi_result cuMemAdvise(cuabi_deviceptr ptr, size_t bytes, cuabi_mem_advise advice, cuabi_device dev)
{
    return advise(FAKE_E_cuMemAdvise, ptr, bytes, advice, dev, true);
}

cuabi_result cuMemAdvise_v2(cuabi_deviceptr ptr, size_t bytes, cuabi_mem_advise advice, cuabi_mem_location location)
{
    cuabi_device dev = 0;
    bool valid = location_device(&location, &dev);

    return advise(FAKE_E_cuMemAdvise_v2, ptr, bytes, advice, dev, valid);
}

/* ---- What advice and prefetches left on a range ---- */

/*
 * One attribute of a managed allocation's range into `data`: an int, or for
 * CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY as many as `size` holds (the devices
 * advised, the host last, then CU_DEVICE_INVALID); written only when `write`.
 * The fake keeps advice and prefetches for a whole allocation, so any range
 * of it has the allocation's.
 */
static cuabi_result range_attribute(const struct fake_alloc *a, cuabi_mem_range_attribute attribute, void *data,
                                    size_t size, bool write)
{
    int value;

    if (!data)
        return CUABI_ERROR_INVALID_VALUE;
    if (attribute == CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
        size_t n = 0;

        if (size == 0 || size % sizeof(int))
            return CUABI_ERROR_INVALID_VALUE;
        for (int d = 0; write && d <= FAKE_MAX_DEVICES; d++)
            if (a->accessed_by & (1u << d) && n < size / sizeof(int)) {
                value = d == FAKE_MAX_DEVICES ? CUABI_DEVICE_CPU : d;
                memcpy((int *)data + n++, &value, sizeof(value));
            }
        for (value = CUABI_DEVICE_INVALID; write && n < size / sizeof(int); n++)
            memcpy((int *)data + n, &value, sizeof(value));
        return CUABI_SUCCESS;
    }
    if (size != sizeof(int))
        return CUABI_ERROR_INVALID_VALUE;
    switch (attribute) {
    case CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
        value = a->read_mostly;
        break;
    case CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
        value = a->preferred;
        break;
    case CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
        value = a->prefetched ? a->location : CUABI_DEVICE_INVALID;
        break;
    default:
        return CUABI_ERROR_INVALID_VALUE;
    }
    if (write)
        memcpy(data, &value, sizeof(value));
    return CUABI_SUCCESS;
}

/* The managed allocation holding all of [ptr, ptr + bytes). */
static cuabi_result managed_only(cuabi_deviceptr ptr, size_t bytes, struct fake_alloc **out)
{
    struct fake_alloc *a = bytes ? fake_alloc_find(ptr, bytes) : NULL;

    if (!a || a->kind != FAKE_ALLOC_MANAGED)
        return CUABI_ERROR_INVALID_VALUE;
    *out = a;
    return CUABI_SUCCESS;
}

cuabi_result cuMemRangeGetAttribute(void *data, size_t data_size, cuabi_mem_range_attribute attribute,
                                    cuabi_deviceptr ptr, size_t bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemRangeGetAttribute, true);
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS)
        rc = managed_only(ptr, bytes, &a);
    if (rc == CUABI_SUCCESS)
        rc = range_attribute(a, attribute, data, data_size, false);
    if (rc == CUABI_SUCCESS)
        range_attribute(a, attribute, data, data_size, true);
    return fake_end(rc);
}

/* Each attribute checked before any is written: all of them, or none. */
cuabi_result cuMemRangeGetAttributes(void **data, size_t *data_sizes, cuabi_mem_range_attribute *attributes,
                                     size_t count, cuabi_deviceptr ptr, size_t bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemRangeGetAttributes, true);
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS && (!data || !data_sizes || !attributes || count == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = managed_only(ptr, bytes, &a);
    for (size_t i = 0; rc == CUABI_SUCCESS && i < count; i++)
        rc = range_attribute(a, attributes[i], data[i], data_sizes[i], false);
    for (size_t i = 0; rc == CUABI_SUCCESS && i < count; i++)
        range_attribute(a, attributes[i], data[i], data_sizes[i], true);
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

/*
 * Which streams' work may reach a managed allocation: the fake's managed memory is in reach of the host and
 * every device at all times, so the attachment is checked and changes nothing the fake plays. It names a whole
 * allocation (length 0 or its size) and one of the CUmemAttach_flags; one stream alone is never the NULL stream.
 */
cuabi_result cuStreamAttachMemAsync(cuabi_stream stream, cuabi_deviceptr ptr, size_t length, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamAttachMemAsync, true);
    struct fake_stream *s = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS && flags != CUABI_MEM_ATTACH_GLOBAL && flags != CUABI_MEM_ATTACH_HOST &&
        flags != CUABI_MEM_ATTACH_SINGLE)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && flags == CUABI_MEM_ATTACH_SINGLE && (!stream || stream == CUABI_STREAM_LEGACY))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && (!(a = fake_alloc_at(ptr, FAKE_ALLOC_MANAGED)) || (length && length != a->size)))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}
