/* SPDX-License-Identifier: MIT */
/*
 * What the kernels in kernels.ptx compute: their names, the launch shape the
 * suite uses, and the host's reference for each. Shared by tests/gpu and
 * bench/, which load the same PTX.
 */
#ifndef GPUSHIM_TESTS_GPU_KERNELS_H
#define GPUSHIM_TESTS_GPU_KERNELS_H

#include <stdint.h>

#define KERNEL_EMPTY "empty"
#define KERNEL_WORK "work"         /* (u64 in, u64 out, u32 n, u32 iters) */
#define KERNEL_SPIN "spin"         /* (u64 ns) */
#define KERNEL_FILL "fill"         /* (u64 dst, u32 value, u32 n) */
#define KERNEL_ADD_ONE "add_one"   /* (u64 p, u32 n) */
#define KERNEL_COPY_U32 "copy_u32" /* (u64 src, u64 dst, u32 n) */

/* Threads per block for the element-wise kernels. */
#define KERNEL_BLOCK 256u

/* One step of work's loop: x -> x * WORK_MUL + WORK_ADD (mod 2^32). */
#define WORK_MUL 1664525u
#define WORK_ADD 1013904223u

/* Blocks that cover n elements. */
static inline unsigned kernel_blocks(uint32_t n)
{
    return (unsigned)((n + KERNEL_BLOCK - 1) / KERNEL_BLOCK);
}

/*
 * The work kernel's function as one affine map: composing x * a + c with itself
 * stays of that form, so the host checks each element with one multiply-add
 * however many steps the GPU took.
 */
typedef struct work_map {
    uint32_t mul;
    uint32_t add;
} work_map;

static inline work_map work_map_for(uint32_t iters)
{
    work_map m = {1u, 0u};

    for (uint32_t k = 0; k < iters; k++) {
        m.mul = m.mul * WORK_MUL;
        m.add = m.add * WORK_MUL + WORK_ADD;
    }
    return m;
}

static inline uint32_t work_apply(work_map m, uint32_t x)
{
    return x * m.mul + m.add;
}

/* work_input()'s step from one element to the next, and its seed's weight: both odd. */
#define WORK_INPUT_STEP 0x85ebca77u
#define WORK_INPUT_SEED 0x9e3779b1u

/*
 * A request's input element: different for every seed at each i, and for
 * every i under one seed (both weights are odd, so each term is a bijection
 * of 2^32), so that an output left over from another request, or shifted
 * from another element, does not match. Affine in i, as work_apply() is in
 * x: the right output is affine in i too, and the host writes and checks a
 * request with one add an element (tests/support), at the speed of memory.
 */
static inline uint32_t work_input(uint32_t seed, uint32_t i)
{
    return seed * WORK_INPUT_SEED + (i + 1u) * WORK_INPUT_STEP;
}

#endif
