/** @file
 * Devices: counting them, describing them, and whether they reach each
 * other's memory. Each call loads the driver if that has not happened yet.
 */
#ifndef GPUSHIM_DEVICE_H
#define GPUSHIM_DEVICE_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The number of CUDA devices into *out. GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_DRIVER.
 * @param[out] out the count; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_device_count(int *out);

/** A device, as gpu_device_get_info() describes it. */
typedef struct gpu_device_info {
    char name[256];         /**< e.g. "NVIDIA H200" */
    size_t total_memory;    /**< bytes */
    int compute_major;      /**< compute capability, e.g. 9 */
    int compute_minor;      /**< e.g. 0 */
    int multiprocessors;    /**< streaming multiprocessors */
    char pci_bus_id[32];    /**< "0000:19:00.0"; "" where the driver cannot tell */
} gpu_device_info;

/**
 * Describes device `device` (0-based). GPU_ERR_INVALID_ARG (out NULL, device
 * negative), GPU_ERR_NO_DRIVER, GPU_ERR_NO_DEVICE (no such ordinal). *out is
 * written only on success.
 * @param device the device ordinal, from 0
 * @param[out] out the description
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_device_get_info(int device, gpu_device_info *out);

/**
 * Whether device `device` can address memory of device `peer` directly
 * (cuDeviceCanAccessPeer). A device is never its own peer: false.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NO_DEVICE, GPU_ERR_NOT_SUPPORTED.
 * @param device the device that would reach the other's memory
 * @param peer the other device
 * @param[out] out the answer; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_device_can_access_peer(int device, int peer, bool *out);

#ifdef __cplusplus
}
#endif

#endif
