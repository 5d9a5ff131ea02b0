/* SPDX-License-Identifier: MIT */
/*
 * The MEM rows' handlers the scheduler runs inline (HOT in ptx_ops.def):
 * ld, st, atom and red. A warp's access is checked once for all its lanes
 * where their addresses allow (warp_address), else lane by lane through
 * ptx_address(); whole vectors and the atomic operations themselves are
 * ptx_exec_mem.c's.
 */
#ifndef PTX_EXEC_MEM_H
#define PTX_EXEC_MEM_H

#include "ptx_exec.h"

/*
 * Where each lane of a warp-wide access is in host memory: lane l's at base + A[l] + l * stride
 * (A a register's row, or `cut`; stride the local stacks' distance, else 0), in integers, so that no
 * pointer is formed outside its object. `cut`: the lanes' shared or local addresses cut to 32 bits,
 * where a lane's sum is wider.
 */
struct lanes_at {
    const uint64_t *A;
    uintptr_t base;
    size_t stride;
    uint64_t cut[PTX_WARP];
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
    if ((space == S_SHARED || space == S_LOCAL) && hi >= PTX_WINDOW_SIZE) {
        /*
         * Shared and local addresses are 32 bits wide: a lane's sum past 2^32 (a 32-bit register's, or a
         * wider register's) is its low 32 bits, as on a GPU (the PTX ISA's "Addresses as Operands").
         */
        lo = UINT64_MAX;
        hi = 0;
        LANES(all, l, uint64_t a = (uint32_t)(A[l] + c); at->cut[l] = a; lo = a < lo ? a : lo; hi = a > hi ? a : hi);
        at->A = A = at->cut;
        c = 0;
    }
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
        const uint64_t full_ = (uint##bits##_t)-1;                                                                     \
                                                                                                                       \
        /* A register that keeps every bit loaded, and none above them where the load extends the sign: no mask. */   \
        if (!stride && (m & full_) == full_ && (!sx || m == full_))                                                    \
            LANES(g, l, D[l] = __atomic_load_n((const uint##bits##_t *)(base + A[l]), __ATOMIC_RELAXED));              \
        else if (sx && !stride)                                                                                        \
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
PTX_HOT bool warp_load(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
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

            ptx_load_whole(b, (const unsigned char *)AT(&at, l, 0), es * n, v);
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
PTX_HOT bool warp_add32(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, const struct ptx_opd *bo,
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
PTX_HOT bool warp_store(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
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
            ptx_store_whole(b, (unsigned char *)AT(&at, l, 0), es * n, v);
        }
        return true;
    }
    for (unsigned i = 0; i < n; i++) {
        EACH(g, l) tmp[l] = ptx_vec_elem(b, w, &in->o[1], i, l);
        store_lanes(&at, i * es, g, es, tmp);
    }
    return true;
}

/* Lane l's address of an address operand [reg + sym + imm]. */
static inline uint64_t lane_address(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned l)
{
    return (o->reg >= 0 ? w->regs[(size_t)o->reg * PTX_WARP + l] : o->sym >= 0 ? sym_value(b, w, o->sym, l) : 0) +
           (uint64_t)o->imm;
}

/*
 * ld and st lane by lane, each address checked by ptx_address() (the checks' path, and the warp
 * whose addresses the warp-wide check does not take): false after a fault. Out of line, so that
 * the dispatch's function keeps its registers for the warp-wide paths.
 */
static GPU__NOINLINE bool ld_each(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    unsigned es = ptx_types[in->type].size, n = in->vec;

    EACH(g, l) {
        unsigned char *p = ptx_address(b, w, l, in, in->space, lane_address(b, w, &in->o[1], l), (size_t)es * n, ACC_READ);

        if (!p)
            return false;
        if (n == 1) {
            put(w, &in->o[0], l, loaded(in->type, es, load_bytes(p, es)));
        } else if (es * n == 8 || es * n == 16) {
            uint64_t v[2];

            ptx_load_whole(b, p, es * n, v);
            for (unsigned i = 0; i < n; i++)
                put_reg(w, in->o[0].v[i], l, loaded(in->type, es, whole_elem(v, es, i)) & mask_of(es < 4 ? 4 : es));
        } else {
            for (unsigned i = 0; i < n; i++)
                put_reg(w, in->o[0].v[i], l,
                        loaded(in->type, es, load_bytes(p + i * es, es)) & mask_of(es < 4 ? 4 : es));
        }
    }
    return true;
}

static GPU__NOINLINE bool st_each(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    unsigned es = ptx_types[in->type].size, n = in->vec;

    EACH(g, l) {
        unsigned char *p = ptx_address(b, w, l, in, in->space, lane_address(b, w, &in->o[0], l), (size_t)es * n, ACC_WRITE);

        if (!p)
            return false;
        if (n == 1) {
            store_bytes(p, es, val(b, w, &in->o[1], l));
        } else if (es * n == 8 || es * n == 16) {
            uint64_t v[2] = {0, 0};

            for (unsigned i = 0; i < n; i++)
                whole_set(v, es, i, ptx_vec_elem(b, w, &in->o[1], i, l));
            ptx_store_whole(b, p, es * n, v);
        } else {
            for (unsigned i = 0; i < n; i++)
                store_bytes(p + i * es, es, ptx_vec_elem(b, w, &in->o[1], i, l));
        }
    }
    return true;
}

/* ld */
PTX_HOT enum flow ptx_exec_ld(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (!warp_load(b, w, in, g) && !ld_each(b, w, in, g))
        return STOPPED;
    if (in->mods & M_ACQUIRE)
        ptx_host_fence();
    return GO;
}

/* st */
PTX_HOT enum flow ptx_exec_st(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (in->mods & M_RELEASE)
        ptx_host_fence();
    if (!warp_store(b, w, in, g) && !st_each(b, w, in, g))
        return STOPPED;
    return GO;
}

/*
 * atom and red lane by lane, at the warp's place `at` when `whole`, else each address checked: false
 * after a fault. In the dispatch, unlike ld's and st's: measured, bench-ptx-kernels' reduce runs 4%
 * faster so.
 */
PTX_HOT bool atom_each(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, bool whole,
                       const struct lanes_at *at)
{
    const struct ptx_opd *ao = &in->o[in->op == X_ATOM ? 1 : 0], *bo = &in->o[in->op == X_ATOM ? 2 : 1];
    unsigned size = ptx_types[in->type].size;
    struct ptx_shadow *keep = b->shadow;

    EACH(g, l) {
        unsigned char *p;
        uint64_t old;

        if (whole) {
            p = (unsigned char *)AT(at, l, 0);
        } else {
            b->shadow = NULL; /* atomics do not race */
            p = ptx_address(b, w, l, in, in->space, lane_address(b, w, ao, l), size, ACC_READ | ACC_WRITE);
            b->shadow = keep;
        }
        if (!p)
            return false;
        {
            uint64_t v = val(b, w, bo, l);

            old = ptx_atomic_op(p, in->cmp, in->type, v, in->nopd > 3 ? val(b, w, &in->o[3], l) : 0);
        }
        if (in->op == X_ATOM)
            put(w, &in->o[0], l, ptx_types[in->type].kind == K_SIGNED ? (uint64_t)sext(old, size) : old);
    }
    return true;
}

/* atom, red */
PTX_HOT enum flow ptx_exec_atom(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    const struct ptx_opd *ao = &in->o[in->op == X_ATOM ? 1 : 0], *bo = &in->o[in->op == X_ATOM ? 2 : 1];
    struct ptx_shadow *keep = b->shadow;
    struct lanes_at at;
    bool whole;

    b->shadow = NULL; /* atomics do not race */
    whole = g && ao->kind == O_ADDR && warp_address(b, w, in, ao, g, ptx_types[in->type].size, true, &at);
    b->shadow = keep;
    if (whole && warp_add32(b, w, in, bo, &at, g))
        return GO;
    return atom_each(b, w, in, g, whole, &at) ? GO : STOPPED;
}

#endif
