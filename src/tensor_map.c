/* SPDX-License-Identifier: MIT */
/*
 * Tensor maps for Hopper's bulk tensor copies (cuTensorMapEncodeTiled).
 */
#include <string.h>

#include "call.h"

_Static_assert(sizeof(gpu_tensor_map) == sizeof(cuabi_tensor_map) &&
                   _Alignof(gpu_tensor_map) == _Alignof(cuabi_tensor_map),
               "gpu_tensor_map is CUtensorMap");
_Static_assert((int)GPU_TENSOR_TFLOAT32_FTZ == (int)CUABI_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ &&
                   (int)GPU_TENSOR_BFLOAT16 == (int)CUABI_TENSOR_MAP_DATA_TYPE_BFLOAT16 &&
                   (int)GPU_TENSOR_SWIZZLE_128B == (int)CUABI_TENSOR_MAP_SWIZZLE_128B &&
                   (int)GPU_TENSOR_L2_PROMOTION_256B == (int)CUABI_TENSOR_MAP_L2_PROMOTION_L2_256B &&
                   (int)GPU_TENSOR_OOB_FILL_NAN == (int)CUABI_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
               "the tensor enums are CUDA's");

/* Bytes an element of each gpu_tensor_type. */
static const unsigned char element_bytes[GPU_TENSOR_TFLOAT32_FTZ + 1] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

/* The bytes a swizzled tile row may span: none, 32, 64, 128. */
static const unsigned swizzle_span[4] = {0, 32, 64, 128};

/*
 * The checks the driver makes, and that the tensor lies in the buffer: an
 * error naming what is wrong (`func` first), else GPU_OK.
 */
static gpu_status tiled_check(const gpu_buffer *b, size_t offset, const gpu_tensor_tiled *d, const char *func)
{
    unsigned size;
    uint64_t extent, last;

    if ((unsigned)d->type > GPU_TENSOR_TFLOAT32_FTZ || (unsigned)d->swizzle > GPU_TENSOR_SWIZZLE_128B ||
        (unsigned)d->l2_promotion > GPU_TENSOR_L2_PROMOTION_256B || (unsigned)d->oob_fill > GPU_TENSOR_OOB_FILL_NAN)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: type %d, swizzle %d, L2 promotion %d, fill %d: one is not of its enum",
                         func, (int)d->type, (int)d->swizzle, (int)d->l2_promotion, (int)d->oob_fill);
    if (d->rank < 1 || d->rank > 5)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: rank %u: 1 to 5", func, d->rank);
    if ((b->ptr + offset) % 16)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: the tensor starts at 0x%llx, not 16-byte aligned", func,
                         (unsigned long long)(b->ptr + offset));
    size = element_bytes[d->type];
    if (d->oob_fill == GPU_TENSOR_OOB_FILL_NAN && d->type <= GPU_TENSOR_INT64)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: a NaN fill needs a floating-point type", func);
    extent = size;
    last = 0;
    for (unsigned i = 0; i < d->rank; i++) {
        uint64_t stride = i == 0 ? size : d->strides[i - 1];
        unsigned every = d->element_strides[i] ? d->element_strides[i] : 1;

        if (d->dims[i] == 0 || d->dims[i] > (1ull << 32))
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: dimension %u has %llu elements: 1 to 2^32", func, i,
                             (unsigned long long)d->dims[i]);
        if (d->box[i] == 0 || d->box[i] > 256)
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: box %u is %u elements: 1 to 256", func, i, d->box[i]);
        if (every > 8)
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: element stride %u is %u: 1 to 8", func, i, every);
        if (i > 0 && (stride % 16 || stride >= (1ull << 40) || stride < extent))
            return gpu__fail(GPU_ERR_INVALID_ARG, 0,
                             "%s: stride %u is %llu bytes: a multiple of 16 below 2^40, at least %llu (the dimension "
                             "below)",
                             func, i - 1, (unsigned long long)stride, (unsigned long long)extent);
        extent = stride * d->dims[i];
        last += stride * (d->dims[i] - 1);
    }
    if ((d->box[0] * size) % 16)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: a box row of %u bytes: a multiple of 16", func, d->box[0] * size);
    if (d->swizzle && d->box[0] * size > swizzle_span[d->swizzle])
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: a box row of %u bytes, more than the swizzle's %u", func,
                         d->box[0] * size, swizzle_span[d->swizzle]);
    if (offset > b->size || last + size > b->size - offset)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: the tensor reaches byte %llu past byte %zu of a buffer of %zu",
                         func, (unsigned long long)(last + size), offset, b->size);
    return GPU_OK;
}

gpu_status gpu_tensor_map_encode_tiled(const gpu_buffer *buffer, size_t offset, const gpu_tensor_tiled *desc,
                                       gpu_tensor_map *out)
{
    cuabi_uint64 dims[5], strides[4];
    cuabi_uint32 box[5], every[5];
    cuabi_tensor_map map;
    struct gpu__call c;
    gpu_status st;

    GPU__NOT_NULL(buffer, desc, out);
    st = tiled_check(buffer, offset, desc, __func__);
    if (st != GPU_OK)
        return st;
    for (unsigned i = 0; i < 5; i++) {
        dims[i] = desc->dims[i];
        box[i] = desc->box[i];
        every[i] = desc->element_strides[i] ? desc->element_strides[i] : 1;
        if (i < 4)
            strides[i] = desc->strides[i];
    }
    memset(&map, 0, sizeof(map));
    if (!gpu__call_driver(&c))
        return c.st;
    st = GPU__INVOKE_RAW(&c, cuTensorMapEncodeTiled, &map, (cuabi_tensor_map_data_type)desc->type, desc->rank,
                         (void *)(uintptr_t)(buffer->ptr + offset), dims, strides, box, every,
                         CUABI_TENSOR_MAP_INTERLEAVE_NONE, (cuabi_tensor_map_swizzle)desc->swizzle,
                         (cuabi_tensor_map_l2_promotion)desc->l2_promotion, (cuabi_tensor_map_oob_fill)desc->oob_fill);
    if (st == GPU_OK)
        st = GPU__RESULT(&c, cuTensorMapEncodeTiled,
                         c.rc == CUABI_ERROR_INVALID_VALUE ? GPU_ERR_INVALID_ARG : GPU_ERR_DRIVER);
    if (st == GPU_OK)
        memcpy(out->opaque, map.opaque, sizeof(out->opaque));
    return st;
}
