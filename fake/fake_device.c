/*
 * The fake driver's devices: their count, names, memory, attributes (an
 * H200's values, each of which a test may change), UUIDs, PCI bus ids and
 * peer access, and the control API that configures them.
 */
#include <stdio.h>
#include <string.h>

#include "fake_internal.h"

enum { ATTRIBUTE_MAX = 128 }; /* attribute values the overrides cover */

void fake_devices_configure(int count, bool peer)
{
    fake.device_count = count;
    for (int i = 0; i < count; i++) {
        struct fake_device *d = &fake.devices[i];

        snprintf(d->desc.name, sizeof(d->desc.name), "Fake CUDA Device %d", i);
        /* Each device differs, so that a test can tell which one it was told about. */
        d->desc.total_memory = ((size_t)256 + 64 * (size_t)i) << 20;
        d->desc.compute_major = 9 - i % 2;
        d->desc.compute_minor = i % 2 ? 6 : 0;
        d->desc.multiprocessors = 132 - 4 * i;
        snprintf(d->desc.pci_bus_id, sizeof(d->desc.pci_bus_id), "0000:%02x:00.0", (unsigned)(0x19 + 0x10 * i) & 0xffu);
        d->next_addr = FAKE_ADDR_BASE + FAKE_ADDR_STRIDE * (uint64_t)i;
        for (int j = 0; j < count; j++)
            d->peer_allowed[j] = peer && j != i;
        d->ctx.device = i;
        d->ctx.legacy.ctx = &d->ctx;
        d->ctx.legacy.legacy = true;
    }
}

bool fake_device_valid(cuabi_device dev)
{
    return dev >= 0 && dev < fake.device_count;
}

/* ---- Devices ---- */

cuabi_result cuDeviceGetCount(int *count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetCount, true);

    if (rc == CUABI_SUCCESS) {
        if (!count)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            *count = fake.device_count;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGet(cuabi_device *device, int ordinal)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGet, true);

    if (rc == CUABI_SUCCESS) {
        if (!device)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(ordinal))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *device = ordinal;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetName(char *name, int len, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetName, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!name || len <= 0)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            snprintf(name, (size_t)len, "%s", fake.devices[dev].desc.name);
    }
    return fake_end(rc);
}

cuabi_result cuDeviceTotalMem_v2(size_t *bytes, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceTotalMem_v2, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!bytes)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *bytes = fake.devices[dev].desc.total_memory;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetAttribute(int *value, cuabi_device_attribute attrib, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetAttribute, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        const gpu_fake_device_desc *d = fake_device_valid(dev) ? &fake.devices[dev].desc : NULL;

        if (!value)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!d)
            rc = CUABI_ERROR_INVALID_DEVICE;
        else if (attrib == CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            *value = d->multiprocessors;
        else if (attrib == CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            *value = d->compute_major;
        else if (attrib == CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            *value = d->compute_minor;
        else if (!fake_device_attribute(dev, attrib, value))
            rc = CUABI_ERROR_INVALID_VALUE; /* the fake knows only the attributes gpushim asks for */
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetPCIBusId(char *bus_id, int len, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetPCIBusId, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!bus_id || len < 13)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            snprintf(bus_id, (size_t)len, "%s", fake.devices[dev].desc.pci_bus_id);
    }
    return fake_end(rc);
}

cuabi_result cuDeviceCanAccessPeer(int *can_access, cuabi_device dev, cuabi_device peer)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceCanAccessPeer, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev) ? fake_device_lost(dev) : fake_device_lost(peer);

    if (rc == CUABI_SUCCESS) {
        if (!can_access)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(dev) || !fake_device_valid(peer))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *can_access = fake.devices[dev].peer_allowed[peer];
    }
    return fake_end(rc);
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

/* ---- Attributes ---- */

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
int fake_attribute(int device, unsigned attribute)
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

/* ---- Control API ---- */

FAKE_API int gpu_fake_device_count(void)
{
    int n;

    fake_lock();
    n = fake.device_count;
    fake_unlock();
    return n;
}

FAKE_API int gpu_fake_device_get(int ordinal, gpu_fake_device_desc *out)
{
    int rc = -1;

    fake_lock();
    if (fake_device_valid(ordinal)) {
        *out = fake.devices[ordinal].desc;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API int gpu_fake_device_set(int ordinal, const gpu_fake_device_desc *desc)
{
    int rc = -1;

    fake_lock();
    if (fake_device_valid(ordinal)) {
        fake.devices[ordinal].desc = *desc;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API void gpu_fake_peer_set(int device, int peer, bool allowed)
{
    fake_lock();
    if (fake_device_valid(device) && fake_device_valid(peer) && device != peer)
        fake.devices[device].peer_allowed[peer] = allowed;
    fake_unlock();
}

FAKE_API bool gpu_fake_peer_enabled(int device, int peer)
{
    bool on = false;

    fake_lock();
    if (fake_device_valid(device) && fake_device_valid(peer))
        on = fake.devices[device].ctx.peer_enabled[peer];
    fake_unlock();
    return on;
}

FAKE_API size_t gpu_fake_device_used(int ordinal)
{
    size_t n = 0;

    fake_lock();
    if (fake_device_valid(ordinal))
        n = fake.devices[ordinal].used;
    fake_unlock();
    return n;
}
