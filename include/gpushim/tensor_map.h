/* SPDX-License-Identifier: MIT */
/** @file
 * Tensor maps: the descriptors Hopper's bulk tensor copies (TMA,
 * cp.async.bulk.tensor) read to move a tile of a tensor in device memory to
 * or from shared memory. A map is encoded on the host for a buffer and passed
 * to a kernel by value, as a `const __grid_constant__ CUtensorMap` parameter.
 */
#ifndef GPUSHIM_TENSOR_MAP_H
#define GPUSHIM_TENSOR_MAP_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The type of a tensor's elements; the values are CUtensorMapDataType's. */
typedef enum gpu_tensor_type {
    GPU_TENSOR_UINT8 = 0,
    GPU_TENSOR_UINT16 = 1,
    GPU_TENSOR_UINT32 = 2,
    GPU_TENSOR_INT32 = 3,
    GPU_TENSOR_UINT64 = 4,
    GPU_TENSOR_INT64 = 5,
    GPU_TENSOR_FLOAT16 = 6,
    GPU_TENSOR_FLOAT32 = 7,
    GPU_TENSOR_FLOAT64 = 8,
    GPU_TENSOR_BFLOAT16 = 9,
    GPU_TENSOR_FLOAT32_FTZ = 10,
    GPU_TENSOR_TFLOAT32 = 11,
    GPU_TENSOR_TFLOAT32_FTZ = 12
} gpu_tensor_type;

/** How a tile is laid out in shared memory; the values are CUtensorMapSwizzle's. */
typedef enum gpu_tensor_swizzle {
    GPU_TENSOR_SWIZZLE_NONE = 0,
    GPU_TENSOR_SWIZZLE_32B = 1,
    GPU_TENSOR_SWIZZLE_64B = 2,
    GPU_TENSOR_SWIZZLE_128B = 3
} gpu_tensor_swizzle;

/** How far the copy widens its L2 requests; the values are CUtensorMapL2promotion's. */
typedef enum gpu_tensor_l2_promotion {
    GPU_TENSOR_L2_PROMOTION_NONE = 0,
    GPU_TENSOR_L2_PROMOTION_64B = 1,
    GPU_TENSOR_L2_PROMOTION_128B = 2,
    GPU_TENSOR_L2_PROMOTION_256B = 3
} gpu_tensor_l2_promotion;

/** What a tile holds where it reaches past the tensor; the values are CUtensorMapFloatOOBfill's. */
typedef enum gpu_tensor_oob_fill {
    GPU_TENSOR_OOB_FILL_ZERO = 0, /**< zeros */
    GPU_TENSOR_OOB_FILL_NAN = 1   /**< NaN that a fused multiply-add reads as zero (floating-point types only) */
} gpu_tensor_oob_fill;

/** An encoded tensor map (CUtensorMap): 128 opaque bytes, passed to a kernel by value. */
typedef struct gpu_tensor_map {
#if defined(__cplusplus)
    alignas(128)
#else
    _Alignas(128)
#endif
        uint64_t opaque[16]; /**< the driver's encoding; not to be read or changed */
} gpu_tensor_map;

/**
 * A tiled view of a tensor in a buffer. Dimension 0 is the innermost (its
 * elements adjacent in memory). Zero-initialise it, then set what is needed:
 * zero element strides mean 1, and zero enums the defaults (no swizzle, no
 * L2 promotion, zeros out of bounds).
 */
typedef struct gpu_tensor_tiled {
    gpu_tensor_type type;        /**< the elements' type */
    unsigned rank;               /**< dimensions, 1 to 5 */
    uint64_t dims[5];            /**< elements in each dimension, 1 to 2^32 */
    uint64_t strides[4];         /**< bytes from one index of dimension i + 1 to the next: multiples of 16 */
    uint32_t box[5];             /**< the tile: elements in each dimension, 1 to 256 */
    uint32_t element_strides[5]; /**< take every n-th element of each dimension, 1 to 8 (0: 1) */
    gpu_tensor_swizzle swizzle;  /**< the tile's layout in shared memory; 0: none */
    gpu_tensor_l2_promotion l2_promotion; /**< the L2 request size; 0: no promotion */
    gpu_tensor_oob_fill oob_fill; /**< what lies past the tensor's edge; 0: zeros */
} gpu_tensor_tiled;

/**
 * Encodes into *out a tiled tensor map of the tensor `desc` describes, which
 * starts `offset` bytes into the buffer (cuTensorMapEncodeTiled). Checked
 * before the driver sees it: the start 16-byte aligned, the shape within the
 * limits above, the inner box row a multiple of 16 bytes (and within the
 * swizzle's span), each stride at least the extent of the dimension below it,
 * and the whole tensor inside the buffer. The map stays valid while the
 * buffer lives; it holds no reference on it. Any thread. *out is written only
 * on success. GPU_ERR_INVALID_ARG (NULL, any of the above, or a description
 * the driver refuses), GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED (a driver
 * before CUDA 12.0), GPU_ERR_DRIVER.
 * @param buffer the buffer holding the tensor
 * @param offset where the tensor starts, in bytes from the buffer's start; the address it gives must be 16-byte aligned
 * @param desc the tensor and the tile
 * @param[out] out the map
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_tensor_map_encode_tiled(const gpu_buffer *buffer, size_t offset, const gpu_tensor_tiled *desc,
                                               gpu_tensor_map *out);

#ifdef __cplusplus
}
#endif

#endif
