/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor's loads, stores, atomics and mapa: the MEM rows of
 * ptx_ops.def. A warp's access is checked once for all its lanes where their
 * addresses allow (warp_address), else lane by lane through ptx_address().
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

static uint64_t atomic_op(unsigned char *p, unsigned op, unsigned t, uint64_t b, uint64_t c)
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
 * Where each lane of a warp-wide access is in host memory: lane l's at base + A[l] + l * stride
 * (A a register's row; stride the local stacks' distance, else 0), in integers, so that no
 * pointer is formed outside its object.
 */
struct lanes_at {
    const uint64_t *A;
    uintptr_t base;
    size_t stride;
};

static const uint64_t zero_row[PTX_WARP];

/*
 * Whether every lane's A[l] + c is inside [base, base + size) with `bytes` after it, and aligned to
 * `bytes`. Branch-free: an offset below base wraps to 2^63 or more, one past the limit makes
 * limit - offset negative; the sign bit of the OR of both says either (sizes are under 2^62).
 */
static inline bool lanes_within(const uint64_t *A, uint64_t c, uint32_t g, uint64_t base, uint64_t size, size_t bytes)
{
    uint64_t bad = 0, any = 0, lim;

    if (size < bytes || size >= 1ull << 62)
        return false;
    lim = size - bytes;
    LANES(g, l, uint64_t a = A[l] + c; uint64_t off = a - base; any |= a; bad |= off | (lim - off));
    return !(bad >> 63) && !(any & (bytes - 1));
}

/*
 * A load or store of every lane of `g` at [base + imm], checked once for the warp: the lowest and
 * the highest address in one window and inside its memory, and every address aligned (their OR
 * under the size's mask). Only while no check looks at each access (race, init). False when any
 * of that fails: then the per-lane path runs and reports the first lane at fault, as it always did.
 */
LANE_CLONES static bool warp_address(struct ptx_block *b, const struct warp *w, const struct ptx_inst *in,
                                     const struct ptx_opd *ao, uint32_t g, size_t bytes, bool write, struct lanes_at *at)
{
    uint64_t lo = UINT64_MAX, hi = 0, any = 0, c = (uint64_t)ao->imm;
    uint32_t all;
    unsigned space = in->space;
    const uint64_t *A = ao->reg >= 0 ? &w->regs[(size_t)ao->reg * PTX_WARP] : zero_row;
    unsigned char *host;

    if (ao->sym >= 0) {
        if (b->m->syms[ao->sym].space == S_FRAME)
            return false;
        c += sym_value(b, w, ao->sym, 0);
    }
    all = g;
    if (ao->reg < 0)
        g &= -g; /* every lane at the same address: one to check */
    at->A = A;
    at->stride = 0;
    /* The common cases first: the allocation the last access found, the block's shared memory, the local stacks. */
    switch (space) {
    case S_GLOBAL:
    case S_CONST:
        /* The allocation of the first lane's address (from the cache, mostly), all the lanes' candidate. */
        if (ptx_mem_global(&b->mem, A[__builtin_ctz(g)] + c, bytes) && !b->mem.written &&
            lanes_within(A, c, g, b->mem.lo, b->mem.hi - b->mem.lo, bytes)) {
            at->base = (uintptr_t)b->mem.data - b->mem.lo + c;
            return true;
        }
        break;
    case S_SHARED:
        if (!b->shadow && !b->sinit && lanes_within(A, c, g, 0, b->shared_bytes, bytes)) {
            at->base = (uintptr_t)b->shared + c;
            return true;
        }
        break;
    case S_PARAM:
        if (!write && lanes_within(A, c, g, PTX_PARAM_WINDOW, b->r->l->param_bytes, bytes)) {
            at->base = (uintptr_t)b->r->l->params - PTX_PARAM_WINDOW + c;
            return true;
        }
        break;
    default:
        break;
    }
    LANES(g, l, uint64_t a = A[l] + c; lo = a < lo ? a : lo; hi = a > hi ? a : hi; any |= a);
    if (any & (bytes - 1) || hi - lo >= PTX_WINDOW_SIZE)
        return false;
    if (space == S_GENERIC) {
        uint64_t window = lo - PTX_SHARED_WINDOW < PTX_WINDOW_SIZE ? PTX_SHARED_WINDOW
                        : lo - PTX_LOCAL_WINDOW < PTX_WINDOW_SIZE  ? PTX_LOCAL_WINDOW
                                                                   : 0;

        if (window) {
            if (hi - window >= PTX_WINDOW_SIZE)
                return false;
            space = window == PTX_SHARED_WINDOW ? S_SHARED : S_LOCAL;
            lo -= window;
            hi -= window;
            c -= window;
        } else if (hi >= PTX_PARAM_WINDOW && lo < PTX_SHARED_WINDOW + PTX_WINDOW_SIZE) {
            return false; /* a lane in or across a window */
        } else {
            space = S_GLOBAL;
        }
    }
    /* From here lane l's address is A[l] + c, all of them in [lo, hi]. */
    switch (space) {
    case S_GLOBAL:
    case S_CONST:
        if (!(host = ptx_mem_global(&b->mem, lo, (size_t)(hi - lo) + bytes)) || b->mem.written)
            return false;
        at->base = (uintptr_t)host - lo + c;
        return true;
    case S_SHARED:
        if (b->shadow || b->sinit || hi >= b->shared_bytes || bytes > b->shared_bytes - hi)
            return false;
        at->base = (uintptr_t)b->shared + c;
        return true;
    case S_LOCAL: {
        /* Inside the frames every lane is in: below the lowest of their tops. */
        uint32_t top = UINT32_MAX;

        LANES(all, l, top = w->ftop[l] < top ? w->ftop[l] : top);
        if (hi >= top || bytes > top - hi)
            return false;
        at->base = (uintptr_t)(b->local + (size_t)w->index * PTX_WARP * b->local_per_lane) + c;
        at->stride = b->local_per_lane;
        return true;
    }
    case S_PARAM: /* an entry's parameters (a .func's are in its frame: the per-lane path) */
        if (write || lo - PTX_PARAM_WINDOW >= PTX_WINDOW_SIZE || hi - PTX_PARAM_WINDOW >= b->r->l->param_bytes ||
            bytes > b->r->l->param_bytes - (hi - PTX_PARAM_WINDOW))
            return false;
        at->base = (uintptr_t)b->r->l->params - PTX_PARAM_WINDOW + c;
        return true;
    default:
        return false;
    }
}

#define AT(at, l, off) ((at)->base + (at)->A[l] + (uintptr_t)(l) * (at)->stride + (off))

/*
 * One element of each lane's load into row D: extended as the type says, masked to the register.
 * The place's fields in locals: a store to D may not change them.
 */
#define LOAD_LANES(bits, signed_type)                                                                                  \
    do {                                                                                                               \
        if (sx && !stride)                                                                                             \
            LANES(g, l, D[l] = (uint64_t)(int64_t)(signed_type)__atomic_load_n((const uint##bits##_t *)(base + A[l]),   \
                                                                               __ATOMIC_RELAXED) & m);                 \
        else if (sx)                                                                                                   \
            LANES(g, l, D[l] = (uint64_t)(int64_t)(signed_type)__atomic_load_n(                                         \
                                   (const uint##bits##_t *)(base + A[l] + l * stride), __ATOMIC_RELAXED) & m);          \
        else if (!stride)                                                                                              \
            LANES(g, l, D[l] = __atomic_load_n((const uint##bits##_t *)(base + A[l]), __ATOMIC_RELAXED) & m);          \
        else                                                                                                           \
            LANES(g, l, D[l] = __atomic_load_n((const uint##bits##_t *)(base + A[l] + l * stride), __ATOMIC_RELAXED) &  \
                              m);                                                                                      \
    } while (0)

static void load_lanes(const struct lanes_at *at, size_t off, uint32_t g, unsigned es, bool sx, uint64_t m, uint64_t *D)
{
    const uint64_t *A = at->A;
    uintptr_t base = at->base + off, stride = at->stride;

    switch (es) {
    case 1: LOAD_LANES(8, int8_t); break;
    case 2: LOAD_LANES(16, int16_t); break;
    case 4: LOAD_LANES(32, int32_t); break;
    default: LOAD_LANES(64, int64_t); break;
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

static void load_whole(const struct ptx_block *b, const unsigned char *p, unsigned bytes, uint64_t v[2])
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

static void store_whole(const struct ptx_block *b, unsigned char *p, unsigned bytes, const uint64_t v[2])
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

/* Element i of `es` bytes of a whole vector, and the vector with it set (from zero). */
static inline uint64_t whole_elem(const uint64_t v[2], unsigned es, unsigned i)
{
    return v[i * es / 8] >> (i * es % 8 * 8) & mask_of(es);
}

static inline void whole_set(uint64_t v[2], unsigned es, unsigned i, uint64_t e)
{
    v[i * es / 8] |= (e & mask_of(es)) << (i * es % 8 * 8);
}

/* ld of a whole warp (warp_address's case): true when done. */
static bool warp_load(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    struct lanes_at at;
    unsigned es = ptx_types[in->type].size, n = in->vec;
    bool sx = ptx_types[in->type].kind == K_SIGNED;
    uint64_t A[PTX_WARP];

    if (!g || in->o[1].kind != O_ADDR || (n == 1 && in->o[0].kind != O_REG) ||
        !warp_address(b, w, in, &in->o[1], g, (size_t)es * n, false, &at))
        return false;
    if (n > 1) {
        /* The destinations may include the address's register: the addresses first. */
        memcpy(A, at.A, sizeof(A));
        at.A = A;
    }
    if (n == 1 && at.A == zero_row && !at.stride) {
        /* One address for the warp (a parameter, a variable): loaded once. */
        uint64_t v, *D = &w->regs[(size_t)in->o[0].reg * PTX_WARP];

        load_lanes(&at, 0, 1, es, sx, mask_of(in->o[0].rsize ? in->o[0].rsize : 8), &v);
        LANES(g, l, D[l] = v);
        return true;
    }
    if (n == 1) {
        load_lanes(&at, 0, g, es, sx, mask_of(in->o[0].rsize ? in->o[0].rsize : 8),
                   &w->regs[(size_t)in->o[0].reg * PTX_WARP]);
        return true;
    }
    if (es * n == 8 || es * n == 16) {
        EACH(g, l) {
            uint64_t v[2];

            load_whole(b, (const unsigned char *)AT(&at, l, 0), es * n, v);
            for (unsigned i = 0; i < n; i++)
                if (in->o[0].v[i] >= 0)
                    w->regs[(size_t)in->o[0].v[i] * PTX_WARP + l] =
                        loaded(in->type, es, whole_elem(v, es, i)) & mask_of(es < 4 ? 4 : es);
        }
        return true;
    }
    for (unsigned i = 0; i < n; i++)
        if (in->o[0].v[i] >= 0)
            load_lanes(&at, i * es, g, es, sx, mask_of(es < 4 ? 4 : es), &w->regs[(size_t)in->o[0].v[i] * PTX_WARP]);
    return true;
}

/* atom.add/red.add of a 32-bit integer by a whole warp (warp_address's case), lane by lane in order: true when done. */
static bool warp_add32(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, const struct ptx_opd *bo,
                       const struct lanes_at *at, uint32_t g)
{
    uint64_t tb[PTX_WARP], *D = NULL, m = 0;
    const uint64_t *B;
    unsigned kind = ptx_types[in->type].kind;

    if (in->cmp != A_ADD || ptx_types[in->type].size != 4 || kind == K_FLOAT ||
        (in->op == X_ATOM && in->o[0].kind != O_REG))
        return false;
    B = row(b, w, bo, g, tb);
    if (in->op == X_ATOM) {
        D = &w->regs[(size_t)in->o[0].reg * PTX_WARP];
        m = mask_of(in->o[0].rsize ? in->o[0].rsize : 8);
    }
    EACH(g, l) {
        uint32_t old = __atomic_fetch_add((uint32_t *)AT(at, l, 0), (uint32_t)B[l], __ATOMIC_SEQ_CST);

        if (D)
            D[l] = (kind == K_SIGNED ? (uint64_t)(int64_t)(int32_t)old : old) & m;
    }
    return true;
}

/* One element of each lane's store from row S. */
static void store_lanes(const struct lanes_at *at, size_t off, uint32_t g, unsigned es, const uint64_t *S)
{
    const uint64_t *A = at->A;
    uintptr_t base = at->base + off, stride = at->stride;

    switch (es) {
    case 1: LANES(g, l, __atomic_store_n((uint8_t *)(base + A[l] + l * stride), (uint8_t)S[l], __ATOMIC_RELAXED)); break;
    case 2: LANES(g, l, __atomic_store_n((uint16_t *)(base + A[l] + l * stride), (uint16_t)S[l], __ATOMIC_RELAXED)); break;
    case 4: LANES(g, l, __atomic_store_n((uint32_t *)(base + A[l] + l * stride), (uint32_t)S[l], __ATOMIC_RELAXED)); break;
    default: LANES(g, l, __atomic_store_n((uint64_t *)(base + A[l] + l * stride), S[l], __ATOMIC_RELAXED)); break;
    }
}

/* st of a whole warp (warp_address's case), lane by lane in order as the per-lane path: true when done. */
static bool warp_store(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    struct lanes_at at;
    unsigned es = ptx_types[in->type].size, n = in->vec;
    uint64_t tmp[PTX_WARP];

    if (!g || in->o[0].kind != O_ADDR || !warp_address(b, w, in, &in->o[0], g, (size_t)es * n, true, &at))
        return false;
    if (n == 1) {
        store_lanes(&at, 0, g, es, row(b, w, &in->o[1], g, tmp));
        return true;
    }
    if (es * n == 8 || es * n == 16) {
        EACH(g, l) {
            uint64_t v[2] = {0, 0};

            for (unsigned i = 0; i < n; i++)
                whole_set(v, es, i, ptx_vec_elem(b, w, &in->o[1], i, l));
            store_whole(b, (unsigned char *)AT(&at, l, 0), es * n, v);
        }
        return true;
    }
    for (unsigned i = 0; i < n; i++) {
        EACH(g, l) tmp[l] = ptx_vec_elem(b, w, &in->o[1], i, l);
        store_lanes(&at, i * es, g, es, tmp);
    }
    return true;
}

/* ld */
enum flow ptx_exec_ld(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    unsigned es = ptx_types[in->type].size, n = in->vec;

    if (warp_load(b, w, in, g)) {
        if (in->mods & M_ACQUIRE)
            ptx_host_fence();
        return GO;
    }
    EACH(g, l) {
        uint64_t addr = (in->o[1].reg >= 0 ? w->regs[(size_t)in->o[1].reg * PTX_WARP + l]
                         : in->o[1].sym >= 0 ? sym_value(b, w, in->o[1].sym, l) : 0) + (uint64_t)in->o[1].imm;
        unsigned char *p = ptx_address(b, w, l, in, in->space, addr, (size_t)es * n, ACC_READ);

        if (!p)
            return STOPPED;
        if (n == 1) {
            put(w, &in->o[0], l, loaded(in->type, es, load_bytes(p, es)));
        } else if (es * n == 8 || es * n == 16) {
            uint64_t v[2];

            load_whole(b, p, es * n, v);
            for (unsigned i = 0; i < n; i++)
                put_reg(w, in->o[0].v[i], l, loaded(in->type, es, whole_elem(v, es, i)) & mask_of(es < 4 ? 4 : es));
        } else {
            for (unsigned i = 0; i < n; i++)
                put_reg(w, in->o[0].v[i], l,
                        loaded(in->type, es, load_bytes(p + i * es, es)) & mask_of(es < 4 ? 4 : es));
        }
    }
    if (in->mods & M_ACQUIRE)
        ptx_host_fence();
    return GO;
}

/* st */
enum flow ptx_exec_st(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    unsigned es = ptx_types[in->type].size, n = in->vec;

    if (in->mods & M_RELEASE)
        ptx_host_fence();
    if (warp_store(b, w, in, g))
        return GO;

    EACH(g, l) {
        uint64_t addr = (in->o[0].reg >= 0 ? w->regs[(size_t)in->o[0].reg * PTX_WARP + l]
                         : in->o[0].sym >= 0 ? sym_value(b, w, in->o[0].sym, l) : 0) + (uint64_t)in->o[0].imm;
        unsigned char *p = ptx_address(b, w, l, in, in->space, addr, (size_t)es * n, ACC_WRITE);

        if (!p)
            return STOPPED;
        if (n == 1) {
            store_bytes(p, es, val(b, w, &in->o[1], l));
        } else if (es * n == 8 || es * n == 16) {
            uint64_t v[2] = {0, 0};

            for (unsigned i = 0; i < n; i++)
                whole_set(v, es, i, ptx_vec_elem(b, w, &in->o[1], i, l));
            store_whole(b, p, es * n, v);
        } else {
            for (unsigned i = 0; i < n; i++)
                store_bytes(p + i * es, es, ptx_vec_elem(b, w, &in->o[1], i, l));
        }
    }
    return GO;
}

/* atom, red */
enum flow ptx_exec_atom(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    const struct ptx_opd *ao = &in->o[in->op == X_ATOM ? 1 : 0], *bo = &in->o[in->op == X_ATOM ? 2 : 1];
    unsigned size = ptx_types[in->type].size;
    struct ptx_shadow *keep = b->shadow;
    struct lanes_at at;
    bool whole;

    b->shadow = NULL; /* atomics do not race */
    whole = g && ao->kind == O_ADDR && warp_address(b, w, in, ao, g, size, true, &at);
    b->shadow = keep;
    if (whole && warp_add32(b, w, in, bo, &at, g))
        return GO;
    EACH(g, l) {
        uint64_t addr = (ao->reg >= 0 ? w->regs[(size_t)ao->reg * PTX_WARP + l]
                         : ao->sym >= 0 ? sym_value(b, w, ao->sym, l) : 0) + (uint64_t)ao->imm;
        unsigned char *p;
        uint64_t old;

        if (whole) {
            p = (unsigned char *)AT(&at, l, 0);
        } else {
            b->shadow = NULL;
            p = ptx_address(b, w, l, in, in->space, addr, size, ACC_READ | ACC_WRITE);
            b->shadow = keep;
        }
        if (!p)
            return STOPPED;
        {
            uint64_t v = val(b, w, bo, l);

            old = atomic_op(p, in->cmp, in->type, v, in->nopd > 3 ? val(b, w, &in->o[3], l) : 0);
        }
        if (in->op == X_ATOM)
            put(w, &in->o[0], l, ptx_types[in->type].kind == K_SIGNED ? (uint64_t)sext(old, size) : old);
    }
    return GO;
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
