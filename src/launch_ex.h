/* SPDX-License-Identifier: MIT */
/*
 * What launch.c shares: the checks of a launch's configuration (the unit
 * suite reads them too), and launches that ask for more than cuLaunchKernel
 * can do, with the occupancy queries that take the same cuLaunchKernelEx
 * configuration (function.c).
 */
#ifndef GPUSHIM_LAUNCH_EX_H
#define GPUSHIM_LAUNCH_EX_H

#include <limits.h>
#include <stddef.h>

#include "call.h"

/*
 * Whether every dimension is at least 1 and within its limit, the block
 * holds at most 1024 threads, and no cluster is asked for (a cluster is
 * checked off the launch path): in few operations, each test one compare
 * and a branch that is never taken. Grid x from 1 to 2^31 - 1 is a positive
 * int. Below 2^16 (grid y, z) and 2^11 (block) the products fit their types
 * and are 0 only where a factor is 0; a block of 1 to 1024 threads then has
 * x and y of at most 1024, leaving z's own 64.
 */
static inline bool gpu__launch_config_fits(const gpu_launch_config *c)
{
    const unsigned gy = c->grid[1], gz = c->grid[2], bx = c->block[0], by = c->block[1], bz = c->block[2];

    if ((int)c->grid[0] <= 0 || ((gy | gz) >> 16) != 0 || ((bx | by | bz) >> 11) != 0)
        return false;
    if (gy * gz == 0 || bz > 64 || (unsigned long long)bx * by * bz - 1 >= 1024)
        return false;
    return (c->cluster[0] | c->cluster[1] | c->cluster[2]) == 0;
}

/* Whether `c` asks for a cluster, a cooperative or serialized launch, or a priority. */
static inline bool gpu__launch_is_extended(const gpu_launch_config *c)
{
    return (c->cluster[0] | c->cluster[1] | c->cluster[2] | (unsigned)c->cooperative |
            (unsigned)c->programmatic_serialization | (unsigned)c->priority) != 0;
}

/*
 * What the launch's hot path takes (launch.c): `c` not NULL, every dimension
 * within its limit, at most 48 KiB of dynamic shared memory, nothing
 * extended. Written plainly here; gpu__launch_config_plain() is the form
 * the hot path uses, and the unit suite holds both to CUDA's limits.
 */
static inline bool gpu__launch_config_plain_scalar(const gpu_launch_config *c)
{
    return c && gpu__launch_config_fits(c) && c->shared_mem_bytes <= GPU_SHARED_MEMORY_DEFAULT_MAX &&
           !gpu__launch_is_extended(c);
}

#if defined(__SSE2__)
#include <emmintrin.h>

_Static_assert(sizeof(gpu_launch_config) == 48 && offsetof(gpu_launch_config, block) == 12 &&
                   offsetof(gpu_launch_config, shared_mem_bytes) == 24 &&
                   offsetof(gpu_launch_config, cluster) == 28 && offsetof(gpu_launch_config, cooperative) == 40 &&
                   offsetof(gpu_launch_config, programmatic_serialization) == 41 &&
                   offsetof(gpu_launch_config, priority) == 44,
               "gpu__launch_config_plain() reads the configuration as three vectors of four 32-bit lanes");

/* A limit for _mm_cmpgt_epi32, which compares signed lanes: unsigned order, with the sign bit flipped. */
#define GPU__LANE_MAX(x) ((int)((unsigned)(x) ^ 0x80000000u))

/*
 * gpu__launch_config_plain_scalar() in three vector compares (SSE2, in
 * every x86-64): the lanes grid x, y, z, block x | block y, z, shared bytes,
 * cluster x | cluster y, z, the two flags (and two bytes of padding, masked
 * out), priority. Each of the first eight, less its least value (1 for a
 * dimension, 0 for the rest), is at most its limit less that; the last four
 * are 0. A block of x and y at most 1024 and z at most 64 then multiplies
 * within 32 bits. One branch for all of it, where the plain form has nine.
 */
static inline bool gpu__launch_config_plain(const gpu_launch_config *c)
{
    __m128i a, b, rest, bad;

    if (!c)
        return false;
    a = _mm_loadu_si128((const __m128i *)(const void *)c);
    b = _mm_loadu_si128((const __m128i *)(const void *)c + 1);
    rest = _mm_loadu_si128((const __m128i *)(const void *)c + 2);
    /* Less the least value, sign bit flipped, in one add: x - 1 + 2^31 is x + INT_MAX (mod 2^32). */
    a = _mm_add_epi32(a, _mm_set1_epi32(INT_MAX));
    b = _mm_add_epi32(b, _mm_set_epi32(INT_MIN, INT_MIN, INT_MAX, INT_MAX));
    bad = _mm_or_si128(
        _mm_cmpgt_epi32(a, _mm_set_epi32(GPU__LANE_MAX(1023), GPU__LANE_MAX(65534), GPU__LANE_MAX(65534),
                                         GPU__LANE_MAX(2147483646u))),
        _mm_cmpgt_epi32(b, _mm_set_epi32(GPU__LANE_MAX(0), GPU__LANE_MAX(GPU_SHARED_MEMORY_DEFAULT_MAX),
                                         GPU__LANE_MAX(63), GPU__LANE_MAX(1023))));
    bad = _mm_or_si128(bad, _mm_and_si128(rest, _mm_set_epi32(-1, 0xffff, -1, -1)));
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(bad, _mm_setzero_si128())) != 0xffff)
        return false;
    return c->block[0] * c->block[1] * c->block[2] <= 1024;
}
#else
#define gpu__launch_config_plain gpu__launch_config_plain_scalar
#endif

/* The most launch attributes gpu__launch_config_ex() writes. */
enum { GPU__LAUNCH_ATTRS_MAX = 4 };

/* `c` as cuLaunchKernelEx takes it, on `stream`, its attributes in `attrs`. */
void gpu__launch_config_ex(const gpu_launch_config *c, cuabi_stream stream,
                           cuabi_launch_attribute attrs[GPU__LAUNCH_ATTRS_MAX], cuabi_launch_config *out);

#endif
