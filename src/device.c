/*
 * Devices: counting and describing them.
 */
#include <string.h>

#include "private.h"

gpu_status gpu_device_count(int *out)
{
    const struct gpu__driver *drv;
    int count = 0;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_device_count", "out is NULL");
    st = gpu__driver_get(&drv);
    if (st != GPU_OK)
        return st;
    st = GPU__CALL(drv, cuDeviceGetCount, GPU_ERR_DRIVER, &count);
    if (st == GPU_OK)
        *out = count;
    return st;
}

static gpu_status get_device(const struct gpu__driver **drv, int ordinal, cuabi_device *dev)
{
    gpu_status st = gpu__driver_get(drv);

    if (st != GPU_OK)
        return st;
    return GPU__CALL(*drv, cuDeviceGet, GPU_ERR_NO_DEVICE, dev, ordinal);
}

gpu_status gpu_device_get_info(int device, gpu_device_info *out)
{
    const struct gpu__driver *drv;
    gpu_device_info info;
    cuabi_device dev;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_device_get_info", "out is NULL");
    if (device < 0)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_device_get_info: device %d is negative", device);
    st = get_device(&drv, device, &dev);
    if (st != GPU_OK)
        return st;
    memset(&info, 0, sizeof(info));
    st = GPU__CALL(drv, cuDeviceGetName, GPU_ERR_DRIVER, info.name, (int)sizeof(info.name), dev);
    if (st == GPU_OK)
        st = GPU__CALL(drv, cuDeviceTotalMem, GPU_ERR_DRIVER, &info.total_memory, dev);
    if (st == GPU_OK)
        st = GPU__CALL(drv, cuDeviceGetAttribute, GPU_ERR_DRIVER, &info.compute_major,
                       CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    if (st == GPU_OK)
        st = GPU__CALL(drv, cuDeviceGetAttribute, GPU_ERR_DRIVER, &info.compute_minor,
                       CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    if (st == GPU_OK)
        st = GPU__CALL(drv, cuDeviceGetAttribute, GPU_ERR_DRIVER, &info.multiprocessors,
                       CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    if (st != GPU_OK)
        return st;
    /* The bus id is a nicety: a driver without it still describes the device. */
    if (drv->cuDeviceGetPCIBusId &&
        drv->cuDeviceGetPCIBusId(info.pci_bus_id, (int)sizeof(info.pci_bus_id), dev) != CUABI_SUCCESS)
        info.pci_bus_id[0] = '\0';
    info.name[sizeof(info.name) - 1] = '\0';
    info.pci_bus_id[sizeof(info.pci_bus_id) - 1] = '\0';
    *out = info;
    return GPU_OK;
}

gpu_status gpu_device_can_access_peer(int device, int peer, bool *out)
{
    const struct gpu__driver *drv;
    cuabi_device dev, peer_dev;
    int can = 0;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_device_can_access_peer", "out is NULL");
    if (device < 0 || peer < 0)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_device_can_access_peer: devices %d and %d: negative ordinal",
                         device, peer);
    st = get_device(&drv, device, &dev);
    if (st == GPU_OK)
        st = GPU__CALL(drv, cuDeviceGet, GPU_ERR_NO_DEVICE, &peer_dev, peer);
    if (st != GPU_OK)
        return st;
    if (device == peer) {
        *out = false;
        return GPU_OK;
    }
    GPU__NEED(drv, cuDeviceCanAccessPeer);
    st = GPU__CALL(drv, cuDeviceCanAccessPeer, GPU_ERR_DRIVER, &can, dev, peer_dev);
    if (st == GPU_OK)
        *out = can != 0;
    return st;
}
