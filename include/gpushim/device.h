/* SPDX-License-Identifier: MIT */
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
GPU_API gpu_status gpu_device_get_count(int *out);

/** A device's UUID (cuDeviceGetUuid), the 16 bytes nvidia-smi prints as GPU-xxxxxxxx-xxxx-... */
typedef struct gpu_uuid {
    unsigned char bytes[16]; /**< the UUID, first byte first, as nvidia-smi prints it in hex */
} gpu_uuid;

/** A device, as gpu_device_get_info() describes it. */
typedef struct gpu_device_info {
    char name[256];         /**< e.g. "NVIDIA H200" */
    size_t total_memory;    /**< bytes */
    int compute_major;      /**< compute capability, e.g. 9 */
    int compute_minor;      /**< e.g. 0 */
    int multiprocessors;    /**< streaming multiprocessors */
    char pci_bus_id[32];    /**< "0000:19:00.0"; "" where the driver cannot tell */
    /* What kernels check first (the GPU_DEVICE_ATTR_ of each name). */
    int warp_size;                          /**< threads of a warp, e.g. 32 */
    int max_threads_per_block;              /**< threads of one block at most */
    int max_threads_per_multiprocessor;     /**< threads resident on one multiprocessor at most */
    int max_shared_memory_per_block;        /**< bytes, without the opt-in */
    int max_shared_memory_per_block_optin;  /**< bytes, with it (gpu_function_set_attribute()) */
    int max_shared_memory_per_multiprocessor; /**< bytes of one multiprocessor, for all its blocks */
    int max_registers_per_block;            /**< 32-bit registers available to one block */
    int l2_cache_size;                      /**< bytes */
    int clock_rate_khz;                     /**< SM clock, peak */
    int memory_clock_rate_khz;              /**< peak */
    int memory_bus_width;                   /**< bits */
    bool cooperative_launch;                /**< gpu_launch_config.cooperative works */
    bool cluster_launch;                    /**< gpu_launch_config.cluster works */
    gpu_uuid uuid;                          /**< all zero where the driver cannot tell */
} gpu_device_info;

/**
 * A device attribute; the values are CUdevice_attribute's, so any other
 * CUdevice_attribute value may be passed to gpu_device_get_attribute() too.
 */
typedef enum gpu_device_attribute {
    GPU_DEVICE_ATTR_MAX_THREADS_PER_BLOCK = 1,
    GPU_DEVICE_ATTR_MAX_BLOCK_DIM_X = 2,
    GPU_DEVICE_ATTR_MAX_BLOCK_DIM_Y = 3,
    GPU_DEVICE_ATTR_MAX_BLOCK_DIM_Z = 4,
    GPU_DEVICE_ATTR_MAX_GRID_DIM_X = 5,
    GPU_DEVICE_ATTR_MAX_GRID_DIM_Y = 6,
    GPU_DEVICE_ATTR_MAX_GRID_DIM_Z = 7,
    GPU_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,   /**< bytes, without the opt-in */
    GPU_DEVICE_ATTR_TOTAL_CONSTANT_MEMORY = 9,         /**< bytes */
    GPU_DEVICE_ATTR_WARP_SIZE = 10,
    GPU_DEVICE_ATTR_MAX_REGISTERS_PER_BLOCK = 12,
    GPU_DEVICE_ATTR_CLOCK_RATE = 13,                   /**< kHz */
    GPU_DEVICE_ATTR_MULTIPROCESSOR_COUNT = 16,
    GPU_DEVICE_ATTR_INTEGRATED = 18,
    GPU_DEVICE_ATTR_CONCURRENT_KERNELS = 31,
    GPU_DEVICE_ATTR_ECC_ENABLED = 32,
    GPU_DEVICE_ATTR_MEMORY_CLOCK_RATE = 36,            /**< kHz */
    GPU_DEVICE_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,      /**< bits */
    GPU_DEVICE_ATTR_L2_CACHE_SIZE = 38,                /**< bytes */
    GPU_DEVICE_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    GPU_DEVICE_ATTR_ASYNC_ENGINE_COUNT = 40,
    GPU_DEVICE_ATTR_UNIFIED_ADDRESSING = 41,
    GPU_DEVICE_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
    GPU_DEVICE_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
    GPU_DEVICE_ATTR_STREAM_PRIORITIES_SUPPORTED = 78,
    GPU_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81, /**< bytes */
    GPU_DEVICE_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    GPU_DEVICE_ATTR_MANAGED_MEMORY = 83,
    GPU_DEVICE_ATTR_COOPERATIVE_LAUNCH = 95,
    GPU_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97, /**< bytes, with the opt-in */
    GPU_DEVICE_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    GPU_DEVICE_ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK = 111, /**< bytes the driver keeps of each block's */
    GPU_DEVICE_ATTR_CLUSTER_LAUNCH = 120
} gpu_device_attribute;

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
 * The value of attribute `attribute` of device `device` into *out
 * (cuDeviceGetAttribute). GPU_ERR_INVALID_ARG (out NULL, device or attribute
 * negative, an attribute the driver does not know), GPU_ERR_NO_DRIVER,
 * GPU_ERR_NO_DEVICE, GPU_ERR_DRIVER.
 * @param device the device ordinal, from 0
 * @param attribute a gpu_device_attribute, or any other CUdevice_attribute value
 * @param[out] out the attribute's value; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_device_get_attribute(int device, gpu_device_attribute attribute, int *out);

/**
 * Device `device`'s UUID into *out (cuDeviceGetUuid). GPU_ERR_INVALID_ARG
 * (out NULL, device negative), GPU_ERR_NO_DRIVER, GPU_ERR_NO_DEVICE,
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_DRIVER.
 * @param device the device ordinal, from 0
 * @param[out] out the UUID; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_device_get_uuid(int device, gpu_uuid *out);

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
