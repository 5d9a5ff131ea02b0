/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's tensor maps: cuTensorMapEncodeTiled checks its arguments
 * as the driver does and writes the layout gpushim/fake.h documents.
 */
#include <string.h>

#include "fake_core.h"
#include "fake_memory.h"

cuabi_result cuTensorMapEncodeTiled(cuabi_tensor_map *map, cuabi_tensor_map_data_type type, cuabi_uint32 rank,
                                    void *address, const cuabi_uint64 *dims, const cuabi_uint64 *strides,
                                    const cuabi_uint32 *box, const cuabi_uint32 *element_strides,
                                    cuabi_tensor_map_interleave interleave, cuabi_tensor_map_swizzle swizzle,
                                    cuabi_tensor_map_l2_promotion l2_promotion, cuabi_tensor_map_oob_fill oob_fill)
{
    cuabi_result rc = fake_begin(FAKE_E_cuTensorMapEncodeTiled, true);

    if (rc == CUABI_SUCCESS) {
        uint64_t addr = (uint64_t)(uintptr_t)address;

        if (!map || !dims || !box || !element_strides || (rank > 1 && !strides) || rank < 1 || rank > 5 ||
            type > CUABI_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ || interleave != CUABI_TENSOR_MAP_INTERLEAVE_NONE ||
            swizzle > CUABI_TENSOR_MAP_SWIZZLE_128B || l2_promotion > CUABI_TENSOR_MAP_L2_PROMOTION_L2_256B ||
            oob_fill > CUABI_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA || addr % 16 ||
            !fake_alloc_find(addr, 1))
            rc = CUABI_ERROR_INVALID_VALUE;
        for (cuabi_uint32 i = 0; rc == CUABI_SUCCESS && i < rank; i++)
            if (dims[i] == 0 || box[i] == 0 || box[i] > 256 || element_strides[i] == 0 || element_strides[i] > 8 ||
                (i > 0 && strides[i - 1] % 16))
                rc = CUABI_ERROR_INVALID_VALUE;
        if (rc == CUABI_SUCCESS) {
            /* The layout gpushim/fake.h documents, for tests to read back. */
            memset(map, 0, sizeof(*map));
            map->opaque[0] = 0x50414d54454b4146ull; /* "FAKETMAP" */
            map->opaque[1] = addr;
            map->opaque[2] = type | rank << 8 | swizzle << 16 | l2_promotion << 20 | oob_fill << 24;
            for (cuabi_uint32 i = 0; i < rank; i++) {
                map->opaque[3 + i] = dims[i];
                map->opaque[12] |= (uint64_t)box[i] << (12 * i);
                map->opaque[13] |= (uint64_t)element_strides[i] << (4 * i);
                if (i > 0)
                    map->opaque[7 + i] = strides[i - 1];
            }
        }
    }
    return fake_end(rc);
}
