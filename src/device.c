/*
 * Devices: counting and describing them.
 */
#include <string.h>

#include "call.h"

gpu_status gpu_device_count(int *out)
{
    struct gpu__call c;
    int count = 0;
    gpu_status st;

    if (!out)
        return GPU__INVALID("out is NULL");
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

gpu_status gpu_device_get_info(int device, gpu_device_info *out)
{
    struct gpu__call c;
    gpu_device_info info;
    cuabi_device dev;
    gpu_status st;

    if (!out)
        return GPU__INVALID("out is NULL");
    if (device < 0)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "device %d is negative", device);
    memset(&info, 0, sizeof(info));
    st = device_call(&c, device, &dev);
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
    if (st != GPU_OK)
        return st;
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

    if (!out)
        return GPU__INVALID("out is NULL");
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
