/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor's memory operations out of line: the atomic operations
 * atom and red do on a lane's address, whole vector accesses of 8 and 16
 * bytes, and mapa, the COLD MEM row of ptx_ops.def (ld, st, atom and red
 * are HOT: ptx_exec_mem.h).
 */

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sample.h"
#include "ptx_exec.h"

/* ---- Atomics ---- */

/* An atomic on 16 bits, or on a pair of halves: a compare-and-swap loop over the new value. */
static uint64_t atomic_small(unsigned char *p, unsigned op, unsigned t, uint64_t b, uint64_t c)
{
    unsigned size = ptx_types[t].size;
    bool fl = ptx_types[t].kind == K_FLOAT;
    uint64_t m = mask_of(size), old = size == 2 ? __atomic_load_n((uint16_t *)(void *)p, __ATOMIC_RELAXED)
                                                : __atomic_load_n((uint32_t *)(void *)p, __ATOMIC_RELAXED);

    for (;;) {
        uint64_t nv;
        bool done;

        switch (op) {
        case A_ADD: nv = fl ? ptx_float_op(X_ADD, t, RND_RN, 0, old, b, 0) : old + b; break;
        case A_MIN: nv = fl ? ptx_float_op(X_MIN, t, RND_NONE, 0, old, b, 0) : ptx_int_binary(X_MIN, t, 0, old, b); break;
        case A_MAX: nv = fl ? ptx_float_op(X_MAX, t, RND_NONE, 0, old, b, 0) : ptx_int_binary(X_MAX, t, 0, old, b); break;
        case A_AND: nv = old & b; break;
        case A_OR: nv = old | b; break;
        case A_XOR: nv = old ^ b; break;
        case A_EXCH: nv = b; break;
        case A_CAS: nv = (old & m) == (b & m) ? c : old; break;
        case A_INC: nv = (old & m) >= (b & m) ? 0 : old + 1; break;
        case A_DEC: nv = ((old & m) == 0 || (old & m) > (b & m)) ? b : old - 1; break;
        default: nv = old; break;
        }
        if (size == 2) {
            uint16_t o16 = (uint16_t)old;

            done = __atomic_compare_exchange_n((uint16_t *)(void *)p, &o16, (uint16_t)nv, true, __ATOMIC_SEQ_CST,
                                               __ATOMIC_RELAXED);
            nv = o16;
        } else {
            uint32_t o32 = (uint32_t)old;

            done = __atomic_compare_exchange_n((uint32_t *)(void *)p, &o32, (uint32_t)nv, true, __ATOMIC_SEQ_CST,
                                               __ATOMIC_RELAXED);
            nv = o32;
        }
        /* Failed: the value seen is the new old one. */
        if (done)
            return old & m;
        old = nv;
    }
}

uint64_t ptx_atomic_op(unsigned char *p, unsigned op, unsigned t, uint64_t b, uint64_t c)
{
    unsigned size = ptx_types[t].size;
    bool sign = ptx_types[t].kind == K_SIGNED, fl = ptx_types[t].kind == K_FLOAT;

    if (size == 2 || t == T_F16X2 || t == T_BF16X2)
        return atomic_small(p, op, t, b, c);
    if (size == 4) {
        uint32_t *q = (uint32_t *)(void *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;

        switch (op) {
        case A_ADD:
            if (!fl)
                return __atomic_fetch_add(q, (uint32_t)b, __ATOMIC_SEQ_CST);
            break;
        case A_AND: return __atomic_fetch_and(q, (uint32_t)b, __ATOMIC_SEQ_CST);
        case A_OR: return __atomic_fetch_or(q, (uint32_t)b, __ATOMIC_SEQ_CST);
        case A_XOR: return __atomic_fetch_xor(q, (uint32_t)b, __ATOMIC_SEQ_CST);
        case A_EXCH: return __atomic_exchange_n(q, (uint32_t)b, __ATOMIC_SEQ_CST);
        case A_CAS:
            nv = (uint32_t)b;
            __atomic_compare_exchange_n(q, &nv, (uint32_t)c, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return nv;
        default: break;
        }
        do {
            switch (op) {
            case A_ADD: nv = (uint32_t)bits_f32(f32_of(old) + f32_of(b)); break;
            case A_MIN:
                nv = fl ? (uint32_t)bits_f32(fminf(f32_of(old), f32_of(b)))
                   : sign ? ((int32_t)old < (int32_t)b ? old : (uint32_t)b) : (old < (uint32_t)b ? old : (uint32_t)b);
                break;
            case A_MAX:
                nv = fl ? (uint32_t)bits_f32(fmaxf(f32_of(old), f32_of(b)))
                   : sign ? ((int32_t)old > (int32_t)b ? old : (uint32_t)b) : (old > (uint32_t)b ? old : (uint32_t)b);
                break;
            case A_INC: nv = old >= (uint32_t)b ? 0 : old + 1; break;
            case A_DEC: nv = (old == 0 || old > (uint32_t)b) ? (uint32_t)b : old - 1; break;
            default: nv = old; break;
            }
        } while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
        return old;
    } else {
        uint64_t *q = (uint64_t *)(void *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;

        switch (op) {
        case A_ADD:
            if (!fl)
                return __atomic_fetch_add(q, b, __ATOMIC_SEQ_CST);
            break;
        case A_AND: return __atomic_fetch_and(q, b, __ATOMIC_SEQ_CST);
        case A_OR: return __atomic_fetch_or(q, b, __ATOMIC_SEQ_CST);
        case A_XOR: return __atomic_fetch_xor(q, b, __ATOMIC_SEQ_CST);
        case A_EXCH: return __atomic_exchange_n(q, b, __ATOMIC_SEQ_CST);
        case A_CAS:
            nv = b;
            __atomic_compare_exchange_n(q, &nv, c, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return nv;
        default: break;
        }
        do {
            switch (op) {
            case A_ADD: nv = bits_f64(f64_of(old) + f64_of(b)); break;
            case A_MIN:
                nv = fl ? bits_f64(fmin(f64_of(old), f64_of(b)))
                   : sign ? ((int64_t)old < (int64_t)b ? old : b) : (old < b ? old : b);
                break;
            case A_MAX:
                nv = fl ? bits_f64(fmax(f64_of(old), f64_of(b)))
                   : sign ? ((int64_t)old > (int64_t)b ? old : b) : (old > b ? old : b);
                break;
            case A_INC: nv = old >= b ? 0 : old + 1; break;
            case A_DEC: nv = (old == 0 || old > b) ? b : old - 1; break;
            default: nv = old; break;
            }
        } while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
        return old;
    }
}

/*
 * An aligned vector access of 8 or 16 bytes is whole, as a GPU makes it (single-copy atomic; CUB's
 * decoupled look-back stores a tile's status and value as one and reads them as one): 8 bytes are
 * one 64-bit access; 16 bytes are two under a sequence lock of a table striped by address, which
 * every 16-byte vector access to memory other host threads reach takes. The block's shared and
 * local memory are its own host thread's: no lock there.
 */
enum { SEQ_LOCKS = 256 };
static struct {
    _Alignas(64) uint32_t seq; /* odd while a store is under way */
} seq_locks[SEQ_LOCKS];

static inline bool thread_private(const struct ptx_block *b, const unsigned char *p)
{
    return (p >= b->shared && p < b->shared + b->shared_bytes) ||
           (p >= b->local && p < b->local + (size_t)b->nwarps * PTX_WARP * b->local_per_lane);
}

void ptx_load_whole(const struct ptx_block *b, const unsigned char *p, unsigned bytes, uint64_t v[2])
{
    const uint64_t *q = (const uint64_t *)(const void *)p;
    uint32_t *seq = &seq_locks[((uintptr_t)p >> 4) % SEQ_LOCKS].seq, before;

    if (bytes == 8 || thread_private(b, p)) {
        v[0] = __atomic_load_n(q, __ATOMIC_RELAXED);
        v[1] = bytes == 8 ? 0 : __atomic_load_n(q + 1, __ATOMIC_RELAXED);
        return;
    }
    do {
        while ((before = __atomic_load_n(seq, __ATOMIC_ACQUIRE)) & 1)
            ;
        /* Acquire: the sequence's second read stays after them (no fence: TSan has none). */
        v[0] = __atomic_load_n(q, __ATOMIC_ACQUIRE);
        v[1] = __atomic_load_n(q + 1, __ATOMIC_ACQUIRE);
    } while (__atomic_load_n(seq, __ATOMIC_RELAXED) != before);
}

void ptx_store_whole(const struct ptx_block *b, unsigned char *p, unsigned bytes, const uint64_t v[2])
{
    uint64_t *q = (uint64_t *)(void *)p;
    uint32_t *seq = &seq_locks[((uintptr_t)p >> 4) % SEQ_LOCKS].seq, s;

    if (bytes == 8 || thread_private(b, p)) {
        __atomic_store_n(q, v[0], __ATOMIC_RELAXED);
        if (bytes == 16)
            __atomic_store_n(q + 1, v[1], __ATOMIC_RELAXED);
        return;
    }
    do
        s = __atomic_load_n(seq, __ATOMIC_RELAXED) & ~1u;
    while (!__atomic_compare_exchange_n(seq, &s, s + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
    /* Release: a reader that sees either half sees the odd sequence the exchange wrote. */
    __atomic_store_n(q, v[0], __ATOMIC_RELEASE);
    __atomic_store_n(q + 1, v[1], __ATOMIC_RELEASE);
    __atomic_store_n(seq, s + 2, __ATOMIC_RELEASE);
}

/* mapa */
enum flow ptx_exec_mapa(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) {
        uint64_t a = val(b, w, &in->o[1], l), rank = (uint32_t)val(b, w, &in->o[2], l);
        bool generic = in->space != S_SHARED;
        uint64_t off = generic ? a - PTX_SHARED_WINDOW : a;

        if (rank >= b->cl->n || off >= PTX_WINDOW_SIZE) {
            ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
                  "mapa of address 0x%" PRIx64 " to block rank %" PRIu64 " of a cluster of %u: an illegal address",
                  a, rank, b->cl->n);
            return STOPPED;
        }
        off = ((rank + 1) << PTX_RANK_SHIFT) | (off & ((1u << PTX_RANK_SHIFT) - 1));
        put(w, &in->o[0], l, generic ? PTX_SHARED_WINDOW + off : off);
    }
    return GO;
}
