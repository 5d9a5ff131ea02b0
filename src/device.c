/* SPDX-License-Identifier: MIT */
/*
 * Devices: counting and describing them.
 */
#include <stddef.h>
#include <string.h>

#include "call.h"

/* Every CUdevice_attribute gpushim names has a gpu_device_attribute of the same value. */
#define CHECK_ATTRIBUTE(name, value) \
    _Static_assert(GPU_DEVICE_ATTR_##name == (value), "GPU_DEVICE_ATTR_" #name " is CU_DEVICE_ATTRIBUTE_" #name);
CUABI_DEVICE_ATTRIBUTE_LIST(CHECK_ATTRIBUTE)
#undef CHECK_ATTRIBUTE

/* The int fields of gpu_device_info past the first ones, and the attribute each holds. */
static const struct {
    cuabi_device_attribute attribute;
    size_t offset;
} info_attributes[] = {
    {CUABI_DEVICE_ATTRIBUTE_WARP_SIZE, offsetof(gpu_device_info, warp_size)},
    {CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, offsetof(gpu_device_info, max_threads_per_block)},
    {CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, offsetof(gpu_device_info, max_threads_per_multiprocessor)},
    {CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, offsetof(gpu_device_info, max_shared_memory_per_block)},
    {CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
     offsetof(gpu_device_info, max_shared_memory_per_block_optin)},
    {CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
     offsetof(gpu_device_info, max_shared_memory_per_multiprocessor)},
    {CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, offsetof(gpu_device_info, max_registers_per_block)},
    {CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, offsetof(gpu_device_info, l2_cache_size)},
    {CUABI_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, offsetof(gpu_device_info, memory_bus_width)},
    {CUABI_DEVICE_ATTRIBUTE_CLOCK_RATE, offsetof(gpu_device_info, clock_rate_khz)},
    {CUABI_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, offsetof(gpu_device_info, memory_clock_rate_khz)},
};

gpu_status gpu_device_get_count(int *out)
{
    struct gpu__call c;
    int count = 0;
    gpu_status st;

    GPU__NOT_NULL(out);
    st = GPU__DRIVER_CALL(&c, cuDeviceGetCount, GPU_ERR_DRIVER, &count);
    if (st == GPU_OK)
        *out = count;
    return st;
}

/* Opens a driver call for device `ordinal` (*dev): GPU_ERR_NO_DEVICE where there is none. */
static gpu_status device_call(struct gpu__call *c, int ordinal, cuabi_device *dev)
{
    return GPU__DRIVER_CALL(c, cuDeviceGet, GPU_ERR_NO_DEVICE, dev, ordinal);
}

/* What every query of one device checks first (`func` names it), then device_call(). */
static gpu_status device_open(struct gpu__call *c, int ordinal, const void *out, cuabi_device *dev, const char *func)
{
    c->drv = NULL; /* set by device_call(); said here for the compiler, which cannot see that only GPU_OK uses it */
    if (!out)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: out is NULL", func);
    if (ordinal < 0)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: device %d is negative", func, ordinal);
    return device_call(c, ordinal, dev);
}

/* The yes-or-no fields of gpu_device_info. */
static gpu_status device_flags(struct gpu__call *c, cuabi_device dev, gpu_device_info *info)
{
    int cooperative = 0, cluster = 0;
    gpu_status st;

    st = GPU__INVOKE(c, cuDeviceGetAttribute, GPU_ERR_DRIVER, &cooperative, CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
                     dev);
    if (st == GPU_OK)
        st = GPU__INVOKE(c, cuDeviceGetAttribute, GPU_ERR_DRIVER, &cluster, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, dev);
    info->cooperative_launch = cooperative != 0;
    info->cluster_launch = cluster != 0;
    return st;
}

gpu_status gpu_device_get_info(int device, gpu_device_info *out)
{
    struct gpu__call c = {0}; /* device_open() may fail before it opens the call */
    gpu_device_info info;
    cuabi_device dev;
    gpu_status st;

    memset(&info, 0, sizeof(info));
    st = device_open(&c, device, out, &dev, __func__);
    if (st == GPU_OK)
        st = GPU__INVOKE(&c, cuDeviceGetName, GPU_ERR_DRIVER, info.name, (int)sizeof(info.name), dev);
    if (st == GPU_OK)
        st = GPU__INVOKE(&c, cuDeviceTotalMem, GPU_ERR_DRIVER, &info.total_memory, dev);
    if (st == GPU_OK)
        st = GPU__INVOKE(&c, cuDeviceGetAttribute, GPU_ERR_DRIVER, &info.compute_major,
                         CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    if (st == GPU_OK)
        st = GPU__INVOKE(&c, cuDeviceGetAttribute, GPU_ERR_DRIVER, &info.compute_minor,
                         CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    if (st == GPU_OK)
        st = GPU__INVOKE(&c, cuDeviceGetAttribute, GPU_ERR_DRIVER, &info.multiprocessors,
                         CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    for (size_t i = 0; st == GPU_OK && i < sizeof(info_attributes) / sizeof(info_attributes[0]); i++)
        st = GPU__INVOKE(&c, cuDeviceGetAttribute, GPU_ERR_DRIVER,
                         (int *)(void *)((char *)&info + info_attributes[i].offset), info_attributes[i].attribute, dev);
    if (st == GPU_OK)
        st = device_flags(&c, dev, &info);
    if (st != GPU_OK)
        return st;
    /* The UUID and the bus id are niceties: a driver without them still describes the device. */
    if (GPU__INVOKE_RAW(&c, cuDeviceGetUuid, (cuabi_uuid *)(void *)&info.uuid, dev) != GPU_OK || c.rc != CUABI_SUCCESS)
        memset(&info.uuid, 0, sizeof(info.uuid));
    /* The bus id is a nicety: a driver without it, or failing it, still describes the device. */
    if (GPU__INVOKE_RAW(&c, cuDeviceGetPCIBusId, info.pci_bus_id, (int)sizeof(info.pci_bus_id), dev) != GPU_OK ||
        c.rc != CUABI_SUCCESS)
        info.pci_bus_id[0] = '\0';
    info.name[sizeof(info.name) - 1] = '\0';
    info.pci_bus_id[sizeof(info.pci_bus_id) - 1] = '\0';
    *out = info;
    return GPU_OK;
}

gpu_status gpu_device_can_access_peer(int device, int peer, bool *out)
{
    struct gpu__call c;
    cuabi_device dev, peer_dev;
    int can = 0;
    gpu_status st;

    GPU__NOT_NULL(out);
    if (device < 0 || peer < 0)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "devices %d and %d: negative ordinal", device, peer);
    st = device_call(&c, device, &dev);
    if (st == GPU_OK)
        st = GPU__INVOKE(&c, cuDeviceGet, GPU_ERR_NO_DEVICE, &peer_dev, peer);
    if (st != GPU_OK)
        return st;
    if (device == peer) {
        *out = false;
        return GPU_OK;
    }
    st = GPU__INVOKE(&c, cuDeviceCanAccessPeer, GPU_ERR_DRIVER, &can, dev, peer_dev);
    if (st == GPU_OK)
        *out = can != 0;
    return st;
}

gpu_status gpu_device_get_attribute(int device, gpu_device_attribute attribute, int *out)
{
    struct gpu__call c;
    cuabi_device dev;
    int value = 0;
    gpu_status st;

    if ((int)attribute < 0)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "attribute %d is negative", (int)attribute);
    st = device_open(&c, device, out, &dev, __func__);
    if (st == GPU_OK)
        st = GPU__INVOKE_RAW(&c, cuDeviceGetAttribute, &value, (cuabi_device_attribute)attribute, dev);
    if (st == GPU_OK)
        st = GPU__RESULT(&c, cuDeviceGetAttribute, c.rc == CUABI_ERROR_INVALID_VALUE ? GPU_ERR_INVALID_ARG : GPU_ERR_DRIVER);
    if (st == GPU_OK)
        *out = value;
    return st;
}

gpu_status gpu_device_get_uuid(int device, gpu_uuid *out)
{
    struct gpu__call c;
    cuabi_uuid uuid;
    cuabi_device dev;
    gpu_status st;

    st = device_open(&c, device, out, &dev, __func__);
    if (st == GPU_OK)
        st = GPU__INVOKE(&c, cuDeviceGetUuid, GPU_ERR_DRIVER, &uuid, dev);
    if (st == GPU_OK)
        memcpy(out->bytes, uuid.bytes, sizeof(out->bytes));
    return st;
}
_Static_assert(sizeof(gpu_uuid) == sizeof(cuabi_uuid), "gpu_uuid is CUuuid's 16 bytes");
_Static_assert((int)GPU_DEVICE_ATTR_MULTIPROCESSOR_COUNT == (int)CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT &&
                   (int)GPU_DEVICE_ATTR_COMPUTE_CAPABILITY_MAJOR == (int)CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR &&
                   (int)GPU_DEVICE_ATTR_COMPUTE_CAPABILITY_MINOR == (int)CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
               "gpu_device_attribute is CUdevice_attribute");
