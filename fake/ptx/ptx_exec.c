/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor: runs one block at a time on the calling host thread.
 *
 * A block is warps of 32 threads. A warp executes one instruction for all
 * its active lanes at once (the switch is taken once per warp, the loop over
 * lanes is inside each case). Divergence: every lane keeps its own program
 * counter and call depth; the warp runs the lanes deepest in calls, and of
 * those the ones whose counter is the smallest, so lanes that took a forward
 * branch wait at the join point for the others, and reconverge there, as
 * they do after a structured branch on a GPU (and a call's lanes return
 * before the others go on, wherever the callee lies in the module). A warp
 * runs until all its lanes wait at bar.sync or have exited; when every warp
 * of the block waits, the barrier opens.
 *
 * Calls push a frame on the lane's local stack: the callee's parameters,
 * locals and call parameters, above a gap where a GPU keeps the return
 * address. What the interpreter needs to return (the return point, the
 * caller's frame, the values the callee's registers had, so that recursion
 * works) it keeps in arrays of its own, which no access of a kernel
 * reaches: a kernel that writes outside its arrays in local memory changes
 * its own data at worst, and the stack's bounds are checked at every push.
 */
#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_core.h"
#include "fake_sample.h"
#include "ptx_internal.h"

_Static_assert((int)SU_ZERO == (int)GPU_FAKE_BOUNDARY_ZERO && (int)SU_CLAMP == (int)GPU_FAKE_BOUNDARY_CLAMP &&
                   (int)SU_TRAP == (int)GPU_FAKE_BOUNDARY_TRAP,
               "suld/sust's boundary modes are gpu_fake_boundary's");

enum {
    LOCAL_STACK = 16 * 1024,
    /* The local stack a call takes below the callee's frame, where a GPU keeps the return address: nothing is kept there. */
    FRAME_HEADER = 16,
    /* A warp gives the others a turn after this many backward branches: a spin waits for someone else. */
    QUANTUM = 1024,
    CLUSTER_MAX = 32,
};

/* A call a lane is in: where it returns, its caller's frame, and where the registers it saved start. */
struct call_rec {
    uint32_t ret_pc, fbase, ftop, call, callee, saved;
};

/* A lane's calls and the registers they saved, grown on demand; the local stack's size bounds both. */
struct lane_calls {
    struct call_rec *rec;
    uint64_t *saved;
    uint32_t nrec, caprec, nsaved, capsaved;
};

struct warp {
    uint64_t *regs;             /* [register][lane], offset so that the module's indices work */
    uint32_t pc[PTX_WARP];      /* of lanes not running now */
    uint32_t fbase[PTX_WARP];   /* the current frame in the lane's local stack */
    uint32_t ftop[PTX_WARP];
    uint32_t depth[PTX_WARP];   /* calls the lane is in */
    uint32_t live, waiting;
    uint32_t carrived;          /* lanes that arrived at the cluster barrier and have not waited yet */
    uint32_t cphase[PTX_WARP];  /* the cluster barrier's phase each of them arrived in */
    uint32_t carry;             /* each lane's carry flag (CC.CF) */
    uint32_t redwait;           /* lanes waiting at bar.red, to take its result when the barrier opens */
    unsigned index;
};

/* A cluster's blocks (by rank), all resident on one host thread, and its barrier. */
struct cluster {
    struct ptx_block *blocks[CLUSTER_MAX];
    unsigned n;
    uint32_t arrived, expected, phase; /* the barrier: arrivals in this phase, of the threads not exited */
};

struct ptx_block {
    struct ptx_run *r;
    const struct ptx_module *m;
    const struct ptx_inst *code;
    unsigned ctaid[3];
    unsigned nthreads, nwarps;
    unsigned char *shared;
    size_t shared_bytes;
    struct ptx_shadow *shadow;
    unsigned char *sinit;       /* the init check: which bytes of shared memory a thread of the block wrote */
    uint32_t epoch;
    unsigned char *local;
    size_t local_per_lane;
    struct warp *warps;
    struct ptx_mem mem;
    uint64_t executed;
    bool stop;
    struct cluster *cl;
    unsigned crank;             /* this block's rank in it */
    bool yielded;               /* a warp gave up its turn (a loop, a cluster barrier, nanosleep) */
    bool done;
    unsigned ywarp, ylane;      /* where the last warp that gave up its turn was */
    uint32_t ypc;
    /* The block's own memory: registers, local stacks, shared memory and its race shadow. */
    uint64_t *regs;
    size_t nregs;
    struct lane_calls *calls;   /* a lane's calls, by thread index; NULL when the module has no call */
    /* bar.red: the threads that arrived and how many of them had a true predicate, in this phase and the last. */
    uint32_t red_n, red_true, red_last_n, red_last_true;
};

/* ---- Values ---- */

static inline uint64_t mask_of(unsigned bytes)
{
    return bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1;
}

static inline int64_t sext(uint64_t v, unsigned bytes)
{
    unsigned sh = bytes >= 8 ? 0 : 64 - bytes * 8;

    return (int64_t)(v << sh) >> sh;
}

static inline float f32_of(uint64_t v)
{
    uint32_t b = (uint32_t)v;
    float f;

    memcpy(&f, &b, 4);
    return f;
}

static inline uint64_t bits_f32(float f)
{
    uint32_t b;

    memcpy(&b, &f, 4);
    return b;
}

/* The bits set, without the libgcc call a build for any x86-64 makes of __builtin_popcount. */
static inline unsigned popcount64(uint64_t v)
{
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((v * 0x0101010101010101ull) >> 56);
}

static inline double f64_of(uint64_t v)
{
    double d;

    memcpy(&d, &v, 8);
    return d;
}

static inline uint64_t bits_f64(double d)
{
    uint64_t b;

    memcpy(&b, &d, 8);
    return b;
}

/* IEEE half and bfloat16, to and from float, rounding to nearest even. */
static float half_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023, bits;

    if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        float f = (float)man * 0x1p-24f;

        return sign ? -f : f;
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    return f32_of(bits);
}

static uint16_t f32_to_half(float f)
{
    uint32_t x = (uint32_t)bits_f32(f), sign = (x >> 16) & 0x8000;
    float a = fabsf(f);

    if (a != a)
        return 0x7fff; /* the canonical NaN */
    if (a >= 65520.0f)
        return (uint16_t)(sign | 0x7c00);
    if (a < 0x1p-14f) {
        /* Subnormal: a multiple of 2^-24, rounded to nearest even by the FPU. */
        return (uint16_t)(sign | (uint32_t)nearbyintf(a * 0x1p24f));
    }
    {
        uint32_t e = ((x >> 23) & 255) - 112, man = x & 0x7fffff;
        uint32_t h = (e << 10) | (man >> 13), rest = man & 0x1fff;

        if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
}

static float bf16_to_f32(uint16_t h)
{
    return f32_of((uint32_t)h << 16);
}

static uint16_t f32_to_bf16(float f)
{
    uint32_t x = (uint32_t)bits_f32(f);

    if (f != f)
        return 0x7fff; /* the canonical NaN */
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* A float result rounded to f32 in a directed mode (from an exact or double result). */
static float round_f32(double v, unsigned rnd)
{
    float f = (float)v;

    if (rnd == RND_RZ || rnd == RND_RZI) {
        if (fabs((double)f) > fabs(v))
            f = nextafterf(f, 0.0f);
    } else if (rnd == RND_RM || rnd == RND_RMI) {
        if ((double)f > v)
            f = nextafterf(f, -INFINITY);
    } else if (rnd == RND_RP || rnd == RND_RPI) {
        if ((double)f < v)
            f = nextafterf(f, INFINITY);
    }
    return f;
}

/* A half's or bfloat16's value; infinity as the power of two past the largest finite value, where rounding puts it. */
static double half_grid(uint16_t h, bool bf)
{
    if ((h & 0x7fff) == (bf ? 0x7f80 : 0x7c00))
        return copysign(ldexp(1.0, bf ? 128 : 16), h >> 15 ? -1.0 : 1.0);
    return bf ? bf16_to_f32(h) : half_to_f32(h);
}

/*
 * v as a half or bfloat16 rounded once in mode rnd (to nearest even unless
 * directed), from h, v rounded through f32: one of the two values around v.
 */
static uint16_t round_half(uint16_t h, double v, unsigned rnd, bool bf)
{
    double g = bf ? bf16_to_f32(h) : half_to_f32(h), m;
    bool neg = h >> 15;
    uint16_t n;

    if (v != v || g == v)
        return h;
    /* n: the value on v's other side. */
    n = (uint16_t)(g < v ? (!neg ? h + 1 : h == 0x8000 ? 0x0001 : h - 1) : (neg ? h + 1 : h == 0 ? 0x8001 : h - 1));
    if (rnd == RND_RZ)
        return fabs(g) > fabs(v) ? n : h;
    if (rnd == RND_RM)
        return g > v ? n : h;
    if (rnd == RND_RP)
        return g < v ? n : h;
    /* To nearest: past the midpoint (exact in a double), or on it with an even n. */
    if (fabs(v) >= ldexp(1.0, bf ? 128 : 16))
        return h;
    g = half_grid(h, bf);
    m = (g + half_grid(n, bf)) / 2;
    return (g < v ? v > m : v < m) || (v == m && !(n & 1)) ? n : h;
}

/*
 * The host's rounding mode for a directed PTX rounding. An operation rounded
 * so runs with the host's mode set around it, on volatile operands and
 * result, so that it rounds once, as the device does, and stays between the
 * mode's changes.
 */
static int host_rounding(unsigned rnd)
{
    return rnd == RND_RZ ? FE_TOWARDZERO : rnd == RND_RM ? FE_DOWNWARD : FE_UPWARD;
}

/*
 * op in the directed rounding rnd, in f64, or in f32 when f32 is set: computed
 * as a double in that mode and then converted to float in it, which rounds as
 * once, since the f32 values are doubles too and rounding toward zero, down or
 * up to a coarser set of values after a finer one gives what rounding to the
 * coarser does.
 */
static double directed(unsigned op, unsigned rnd, bool f32, double x, double y, double z)
{
    volatile double vx = x, vy = y, vz = z, vr;
    volatile float vf = 0;
    int keep = fegetround();

    fesetround(host_rounding(rnd));
    switch (op) {
    case X_ADD: vr = vx + vy; break;
    case X_SUB: vr = vx - vy; break;
    case X_MUL: vr = vx * vy; break;
    case X_DIV: vr = vx / vy; break;
    case X_SQRT: vr = sqrt(vx); break;
    case X_RCP: vr = 1.0 / vx; break;
    default: vr = fma(vx, vy, vz); break;
    }
    if (f32)
        vf = (float)vr;
    fesetround(keep);
    return f32 ? vf : vr;
}

/* Whether op rounds its result as a directed rounding mode asks (the rest are exact or approximate). */
static bool rounds(unsigned op, unsigned rnd)
{
    return (rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP) &&
           (op == X_ADD || op == X_SUB || op == X_MUL || op == X_DIV || op == X_MAD || op == X_FMA ||
            op == X_SQRT || op == X_RCP);
}

/* The value of a special register for lane l. */
static uint64_t sreg(const struct ptx_block *b, const struct warp *w, unsigned which, unsigned l)
{
    const struct ptx_launch *L = b->r->l;
    unsigned t = w->index * PTX_WARP + l;
    unsigned bx = L->block[0], by = L->block[1];

    switch (which) {
    case R_TID_X: return t % bx;
    case R_TID_Y: return (t / bx) % by;
    case R_TID_Z: return t / (bx * by);
    case R_NTID_X: return L->block[0];
    case R_NTID_Y: return L->block[1];
    case R_NTID_Z: return L->block[2];
    case R_CTAID_X: return b->ctaid[0];
    case R_CTAID_Y: return b->ctaid[1];
    case R_CTAID_Z: return b->ctaid[2];
    case R_NCTAID_X: return L->grid[0];
    case R_NCTAID_Y: return L->grid[1];
    case R_NCTAID_Z: return L->grid[2];
    case R_LANEID: return l;
    case R_WARPID: return w->index;
    case R_NWARPID: return b->nwarps;
    case R_SMID: return 0;
    case R_NSMID: return 1;
    case R_GRIDID: return 1;
    case R_CLOCK: return (uint32_t)b->executed;
    case R_CLOCK64: return b->executed;
    case R_GLOBALTIMER: {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    }
    case R_LANEMASK_EQ: return 1u << l;
    case R_LANEMASK_LT: return (1u << l) - 1;
    case R_LANEMASK_LE: return (uint32_t)((2ull << l) - 1);
    case R_LANEMASK_GT: return (uint32_t)~((2ull << l) - 1);
    case R_LANEMASK_GE: return (uint32_t)~((1u << l) - 1);
    case R_DYNAMIC_SMEM: return L->shared;
    case R_TOTAL_SMEM: return b->shared_bytes;
    case R_CLUSTER_NCTARANK: return b->r->csize;
    case R_CLUSTER_CTARANK: return b->crank;
    case R_CLUSTERID_X: return b->ctaid[0] / b->r->cdim[0];
    case R_CLUSTERID_Y: return b->ctaid[1] / b->r->cdim[1];
    case R_CLUSTERID_Z: return b->ctaid[2] / b->r->cdim[2];
    case R_NCLUSTERID_X: return L->grid[0] / b->r->cdim[0];
    case R_NCLUSTERID_Y: return L->grid[1] / b->r->cdim[1];
    case R_NCLUSTERID_Z: return L->grid[2] / b->r->cdim[2];
    case R_CLUSTER_CTAID_X: return b->ctaid[0] % b->r->cdim[0];
    case R_CLUSTER_CTAID_Y: return b->ctaid[1] % b->r->cdim[1];
    case R_CLUSTER_CTAID_Z: return b->ctaid[2] % b->r->cdim[2];
    case R_CLUSTER_NCTAID_X: return b->r->cdim[0];
    case R_CLUSTER_NCTAID_Y: return b->r->cdim[1];
    case R_CLUSTER_NCTAID_Z: return b->r->cdim[2];
    case R_IS_EXPLICIT_CLUSTER: return b->r->explicit_cluster;
    /* Cooperative groups find the grid workspace at %envreg1:%envreg2; 0 (no grid barrier) in other launches. */
    case R_ENVREG1: return b->r->cooperative ? PTX_GRID_WINDOW >> 32 : 0;
    case R_ENVREG2: return b->r->cooperative ? (uint32_t)PTX_GRID_WINDOW : 0;
    default: return 0;
    }
}

/* A symbol's address as a value: its space's address (local: in the lane's stack; param: the window). */
static inline uint64_t sym_value(const struct ptx_block *b, const struct warp *w, int32_t sym, unsigned l)
{
    const struct ptx_symbol *s = &b->m->syms[sym];

    switch (s->space) {
    case S_FRAME: return w->fbase[l] + s->value;
    case S_PARAM: return PTX_PARAM_WINDOW + s->value;
    default: return s->value;
    }
}

static uint64_t val_slow(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned l)
{
    switch (o->kind) {
    case O_SREG: return sreg(b, w, (unsigned)o->imm, l);
    case O_SYM: return sym_value(b, w, o->sym, l);
    default: return 0;
    }
}

static inline uint64_t val(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned l)
{
    if (o->kind == O_REG)
        return w->regs[(size_t)o->reg * PTX_WARP + l];
    if (o->kind == O_IMM)
        return (uint64_t)o->imm;
    return val_slow(b, w, o, l);
}

/* A predicate operand, with its `!`. */
static inline bool pred(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned l)
{
    return (val(b, w, o, l) != 0) ^ o->neg;
}

static inline void put(struct warp *w, const struct ptx_opd *o, unsigned l, uint64_t v)
{
    w->regs[(size_t)o->reg * PTX_WARP + l] = v & mask_of(o->rsize ? o->rsize : 8);
}

static inline void put_reg(struct warp *w, int32_t reg, unsigned l, uint64_t v)
{
    if (reg >= 0)
        w->regs[(size_t)reg * PTX_WARP + l] = v;
}

static uint64_t vec_elem(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned i,
                         unsigned l)
{
    int32_t r = o->v[i];

    if (r <= -2)
        return b->m->consts[-2 - r];
    return r >= 0 ? w->regs[(size_t)r * PTX_WARP + l] : 0;
}

/* ---- Faults ---- */

static void thread_of(const struct ptx_block *b, const struct warp *w, unsigned l, unsigned t[3])
{
    unsigned n = w->index * PTX_WARP + l, bx = b->r->l->block[0], by = b->r->l->block[1];

    t[0] = n % bx;
    t[1] = (n / bx) % by;
    t[2] = n / (bx * by);
}

/* Prints what lane l did at `in`, with the kernel, block, thread and PTX line. */
static void vreport(const struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in,
                    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
static void vreport(const struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in,
                    const char *fmt, va_list ap)
{
    unsigned t[3];
    char what[320];

    vsnprintf(what, sizeof(what), fmt, ap);
    thread_of(b, w, l, t);
    fprintf(stderr,
            "gpushim-fakecuda: kernel \"%s\": block (%u,%u,%u) thread (%u,%u,%u): PTX line %u: %s\n",
            b->r->l->entry, b->ctaid[0], b->ctaid[1], b->ctaid[2], t[0], t[1], t[2], in->line, what);
}

/* Reports a fault of lane l at `in` (the first of the launch is printed) and stops the block. */
static void fault(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in, cuabi_result rc,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void fault(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in, cuabi_result rc,
                  const char *fmt, ...)
{
    int expected = 0;
    va_list ap;

    b->stop = true;
    if (!atomic_compare_exchange_strong(&b->r->fault, &expected, (int)rc))
        return;
    va_start(ap, fmt);
    vreport(b, w, l, in, fmt, ap);
    va_end(ap);
}

/*
 * The init check found a read of memory nothing wrote: printed once a launch;
 * with init-strict it is the launch's fault (LAUNCH_FAILED) and false.
 */
static bool uninit(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
static bool uninit(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in, const char *fmt,
                   ...)
{
    int expected = 0;
    va_list ap;

    if (b->r->init_strict) {
        b->stop = true;
        if (!atomic_compare_exchange_strong(&b->r->fault, &expected, (int)CUABI_ERROR_LAUNCH_FAILED))
            return false;
    } else if (atomic_exchange_explicit(&b->r->init_reported, 1, memory_order_relaxed)) {
        return true;
    }
    va_start(ap, fmt);
    vreport(b, w, l, in, fmt, ap);
    va_end(ap);
    return !b->r->init_strict;
}

enum { ACC_READ = 1, ACC_WRITE = 2 }; /* an access: bits; an atomic is both */

/* The init check on global memory: a read of a byte never written is reported, a write marks it. */
static bool init_global(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in,
                        uint64_t addr, size_t off, size_t bytes, unsigned acc)
{
    unsigned char *bm = b->mem.written;

    if ((acc & ACC_READ) && b->r->init)
        for (size_t i = off; i < off + bytes; i++)
            if (!(__atomic_load_n(&bm[i / 8], __ATOMIC_RELAXED) >> (i % 8) & 1)) {
                if (!uninit(b, w, l, in,
                            "read of %zu bytes at global address 0x%" PRIx64 ": its byte at 0x%" PRIx64 " was never "
                            "written since it was allocated (no copy, memset or kernel wrote it): uninitialised memory "
                            "(GPUSHIM_FAKE_CHECK=init; reported once a launch)",
                            bytes, addr, addr + (i - off)))
                    return false;
                break;
            }
    if (acc & ACC_WRITE)
        for (size_t i = off; i < off + bytes; i++)
            if (!(__atomic_load_n(&bm[i / 8], __ATOMIC_RELAXED) >> (i % 8) & 1))
                __atomic_fetch_or(&bm[i / 8], (unsigned char)(1u << (i % 8)), __ATOMIC_RELAXED);
    return true;
}

/* The init check on a block's shared memory: which bytes a thread of the block wrote. */
static bool init_shared(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in,
                        unsigned char *shadow, uint64_t off, size_t bytes, unsigned acc)
{
    if (acc & ACC_READ)
        for (size_t i = 0; i < bytes; i++)
            if (!shadow[off + i]) {
                if (!uninit(b, w, l, in,
                            "read of %zu bytes at shared offset %" PRIu64 ": its byte at offset %" PRIu64 " was "
                            "never written by a thread of the block: uninitialised shared memory "
                            "(GPUSHIM_FAKE_CHECK=init; reported once a launch)", bytes, off, off + i))
                    return false;
                break;
            }
    if (acc & ACC_WRITE)
        memset(shadow + off, 1, bytes);
    return true;
}

/* ---- Memory ---- */

static const char *const space_names[] = {"generic", "global", "shared", "local", "param", "const", "local"};

static void race_check(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in,
                       uint64_t off, size_t bytes, bool write)
{
    uint16_t me = (uint16_t)(w->index * PTX_WARP + l + 1);

    for (size_t i = 0; i < bytes; i++) {
        struct ptx_shadow *s = &b->shadow[off + i];
        uint16_t other = 0;

        if (s->epoch != b->epoch) {
            s->epoch = b->epoch;
            s->writer = s->reader = 0;
        }
        /* Threads of one warp run in step; a hazard is between warps. */
        if (s->writer && (s->writer - 1u) / PTX_WARP != w->index)
            other = s->writer;
        else if (write && s->reader && (s->reader - 1u) / PTX_WARP != w->index)
            other = s->reader;
        if (other) {
            unsigned t[3], n = other - 1u, bx = b->r->l->block[0], by = b->r->l->block[1];

            t[0] = n % bx;
            t[1] = (n / bx) % by;
            t[2] = n / (bx * by);
            fault(b, w, l, in, CUABI_ERROR_LAUNCH_FAILED,
                  "race on shared memory at offset %" PRIu64 ": this %s and an earlier %s of thread (%u,%u,%u) with no "
                  "barrier between them", off + i, write ? "write" : "read", other == s->writer ? "write" : "read",
                  t[0], t[1], t[2]);
            return;
        }
        if (write)
            s->writer = me;
        else if (!s->reader || (s->reader - 1u) / PTX_WARP == w->index)
            s->reader = me;
    }
}

/* Host memory for `bytes` at `addr` of `space` for lane l, checked (`acc`: ACC_* bits); NULL after a fault. */
static unsigned char *address(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in,
                              unsigned space, uint64_t addr, size_t bytes, unsigned acc)
{
    bool write = acc & ACC_WRITE;
    unsigned char *p;

    if (space == S_GENERIC) {
        if (addr - PTX_SHARED_WINDOW < PTX_WINDOW_SIZE) {
            space = S_SHARED;
            addr -= PTX_SHARED_WINDOW;
        } else if (addr - PTX_LOCAL_WINDOW < PTX_WINDOW_SIZE) {
            space = S_LOCAL;
            addr -= PTX_LOCAL_WINDOW;
        } else if (addr - PTX_PARAM_WINDOW < PTX_WINDOW_SIZE) {
            space = S_PARAM;
        } else {
            space = S_GLOBAL;
        }
    }
    if (bytes <= 16 && (bytes & (bytes - 1)) == 0 && (addr & (bytes - 1))) {
        fault(b, w, l, in, CUABI_ERROR_MISALIGNED_ADDRESS, "misaligned %s access of %zu bytes at 0x%" PRIx64,
              space_names[space], bytes, addr);
        return NULL;
    }
    switch (space) {
    case S_SHARED:
        if (addr >= b->shared_bytes || bytes > b->shared_bytes - addr) {
            /* Another block's shared memory in the cluster (a mapa address): 1 + its rank above the offset. */
            uint64_t rank = (addr >> PTX_RANK_SHIFT) - 1, off = addr & ((1u << PTX_RANK_SHIFT) - 1);
            const struct ptx_block *o = rank < b->cl->n && addr < PTX_WINDOW_SIZE ? b->cl->blocks[rank] : NULL;

            if (!o || off >= o->shared_bytes || bytes > o->shared_bytes - off)
                break;
            if (o == b && b->shadow)
                race_check(b, w, l, in, off, bytes, write);
            if (o->sinit && !init_shared(b, w, l, in, o->sinit, off, bytes, acc))
                return NULL;
            return o->shared + off;
        }
        if (b->shadow)
            race_check(b, w, l, in, addr, bytes, write);
        if (b->sinit && !init_shared(b, w, l, in, b->sinit, addr, bytes, acc))
            return NULL;
        return b->shared + addr;
    case S_PARAM:
        if (addr - PTX_PARAM_WINDOW < PTX_WINDOW_SIZE) {
            addr -= PTX_PARAM_WINDOW;
            if (write || addr >= b->r->l->param_bytes || bytes > b->r->l->param_bytes - addr)
                break;
            return (unsigned char *)(uintptr_t)b->r->l->params + addr;
        }
        /* a .func's parameters are in its frame */
        __attribute__((fallthrough));
    case S_LOCAL:
        /* Inside the frames the lane is in: past the innermost one is memory no live function owns. */
        if (addr >= w->ftop[l] || bytes > w->ftop[l] - addr)
            break;
        return b->local + (size_t)(w->index * PTX_WARP + l) * b->local_per_lane + addr;
    default:
        if ((p = ptx_mem_global(&b->mem, addr, bytes))) {
            if (b->mem.written && !init_global(b, w, l, in, addr, (size_t)(p - b->mem.data), bytes, acc))
                return NULL;
            return p;
        }
        if (b->r->cooperative && addr - PTX_GRID_WINDOW < PTX_GRID_WORKSPACE && bytes <= PTX_GRID_WINDOW + PTX_GRID_WORKSPACE - addr)
            return b->r->workspace + (addr - PTX_GRID_WINDOW);
        break;
    }
    fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
          "%s of %zu bytes at %s address 0x%" PRIx64 " is outside %s: an illegal address", write ? "write" : "read",
          bytes, space_names[space], addr,
          space == S_SHARED ? "the block's shared memory" : space == S_LOCAL || space == S_PARAM ? "the thread's local memory"
                                                                                               : "every live allocation");
    return NULL;
}

static inline uint64_t load_bytes(const unsigned char *p, unsigned bytes)
{
    switch (bytes) {
    case 1: return __atomic_load_n(p, __ATOMIC_RELAXED);
    case 2: return __atomic_load_n((const uint16_t *)(const void *)p, __ATOMIC_RELAXED);
    case 4: return __atomic_load_n((const uint32_t *)(const void *)p, __ATOMIC_RELAXED);
    default: return __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_RELAXED);
    }
}

static inline void store_bytes(unsigned char *p, unsigned bytes, uint64_t v)
{
    switch (bytes) {
    case 1: __atomic_store_n(p, (uint8_t)v, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)(void *)p, (uint16_t)v, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)(void *)p, (uint32_t)v, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)(void *)p, v, __ATOMIC_RELAXED); break;
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

/* The value a register gets from a load of `bytes` of type t: extended as the type says. */
static inline uint64_t loaded(unsigned t, unsigned bytes, uint64_t v)
{
    return ptx_types[t].kind == K_SIGNED ? (uint64_t)sext(v, bytes) : v;
}

/* ---- Arithmetic ---- */

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static uint64_t mul_hi(uint64_t a, uint64_t b, unsigned size, bool sign)
{
    if (size == 8) {
        if (sign)
            return (uint64_t)(((i128)(int64_t)a * (i128)(int64_t)b) >> 64);
        return (uint64_t)(((u128)a * b) >> 64);
    }
    if (sign)
        return (uint64_t)((sext(a, size) * sext(b, size)) >> (size * 8));
    return ((a & mask_of(size)) * (b & mask_of(size))) >> (size * 8);
}

static uint64_t int_binary(unsigned op, unsigned t, uint16_t mods, uint64_t a, uint64_t b)
{
    unsigned size = ptx_types[t].size;
    bool sign = ptx_types[t].kind == K_SIGNED;
    uint64_t m = mask_of(size);
    int64_t sa = sext(a, size), sb = sext(b, size);
    uint64_t ua = a & m, ub = b & m;

    switch (op) {
    case X_ADD:
        if ((mods & M_SAT) && size == 4) {
            int64_t s = sa + sb;
            return (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
        }
        return a + b;
    case X_SUB:
        if ((mods & M_SAT) && size == 4) {
            int64_t s = sa - sb;
            return (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
        }
        return a - b;
    case X_MUL:
        if (mods & M_HI)
            return mul_hi(a, b, size, sign);
        if (mods & M_WIDE)
            return sign ? (uint64_t)(sa * sb) : ua * ub;
        return a * b;
    case X_DIV:
        if (sign) {
            if (sb == 0)
                return m;
            if (sb == -1)
                return (uint64_t)(0 - (uint64_t)sa);
            return (uint64_t)(sa / sb);
        }
        return ub ? ua / ub : m;
    case X_REM:
        if (sign) {
            if (sb == 0)
                return a;
            if (sb == -1)
                return 0;
            return (uint64_t)(sa % sb);
        }
        return ub ? ua % ub : a;
    case X_MIN: return sign ? (uint64_t)(sa < sb ? sa : sb) : (ua < ub ? ua : ub);
    case X_MAX: return sign ? (uint64_t)(sa > sb ? sa : sb) : (ua > ub ? ua : ub);
    case X_AND: return a & b;
    case X_OR: return a | b;
    case X_XOR: return a ^ b;
    case X_SHL: {
        uint32_t s = (uint32_t)b;
        return s >= size * 8 ? 0 : a << s;
    }
    case X_SHR: {
        uint32_t s = (uint32_t)b;
        if (sign)
            return (uint64_t)(sa >> (s >= size * 8 ? size * 8 - 1 : s));
        return s >= size * 8 ? 0 : ua >> s;
    }
    default: return 0;
    }
}

/* A float operation in f32 or f64, with its rounding mode. */
static uint64_t float_op(unsigned op, unsigned t, unsigned rnd, uint16_t mods, uint64_t a, uint64_t b, uint64_t c)
{
    if (t == T_F16X2 || t == T_BF16X2) {
        /* Two halves, each on its own. */
        unsigned h = t == T_F16X2 ? T_F16 : T_BF16;

        return float_op(op, h, rnd, mods, a & 0xffff, b & 0xffff, c & 0xffff) |
               float_op(op, h, rnd, mods, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff) << 16;
    }
    if (t == T_F64) {
        double x = f64_of(a), y = f64_of(b), z = f64_of(c), r;

        if (rounds(op, rnd))
            return bits_f64(directed(op, rnd, false, x, y, z));
        switch (op) {
        case X_ADD: r = x + y; break;
        case X_SUB: r = x - y; break;
        case X_MUL: r = x * y; break;
        case X_DIV: r = x / y; break;
        case X_MAD:
        case X_FMA: r = fma(x, y, z); break;
        case X_MIN: r = fmin(x, y); break;
        case X_MAX: r = fmax(x, y); break;
        case X_ABS: r = fabs(x); break;
        case X_NEG: r = -x; break;
        case X_SQRT: r = sqrt(x); break;
        case X_RSQRT: r = 1.0 / sqrt(x); break;
        case X_RCP: r = 1.0 / x; break;
        case X_COPYSIGN: r = copysign(y, x); break;
        default: r = 0; break;
        }
        return bits_f64(r);
    }
    {
        float x, y, z, r;

        if (t == T_F16) {
            x = half_to_f32((uint16_t)a);
            y = half_to_f32((uint16_t)b);
            z = half_to_f32((uint16_t)c);
        } else if (t == T_BF16) {
            x = bf16_to_f32((uint16_t)a);
            y = bf16_to_f32((uint16_t)b);
            z = bf16_to_f32((uint16_t)c);
        } else {
            x = f32_of(a);
            y = f32_of(b);
            z = f32_of(c);
        }
        /* X_COUNT stands for any operation rounded in a directed mode. */
        switch (rounds(op, rnd) ? X_COUNT : op) {
        case X_COUNT: r = (float)directed(op, rnd, true, x, y, z); break;
        case X_ADD: r = x + y; break;
        case X_SUB: r = x - y; break;
        case X_MUL: r = x * y; break;
        case X_DIV: r = x / y; break;
        case X_MAD:
        case X_FMA: r = fmaf(x, y, z); break;
        case X_MIN: r = fminf(x, y); break;
        case X_MAX: r = fmaxf(x, y); break;
        case X_ABS: r = fabsf(x); break;
        case X_NEG: r = -x; break;
        case X_SQRT: r = sqrtf(x); break;
        case X_RSQRT: r = 1.0f / sqrtf(x); break;
        case X_RCP: r = 1.0f / x; break;
        case X_SIN: r = sinf(x); break;
        case X_COS: r = cosf(x); break;
        case X_LG2: r = log2f(x); break;
        case X_EX2: r = exp2f(x); break;
        case X_TANH: r = tanhf(x); break;
        case X_COPYSIGN: r = copysignf(y, x); break;
        default: r = 0; break;
        }
        if ((mods & M_FTZ) && fabsf(r) < 0x1p-126f)
            r = copysignf(0.0f, r);
        if (mods & M_SAT)
            r = r != r ? 0.0f : r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
        if ((mods & M_RELU) && (r < 0.0f || r != r))
            r = 0.0f;
        if (t == T_F16)
            return f32_to_half(r);
        if (t == T_BF16)
            return f32_to_bf16(r);
        return bits_f32(r);
    }
}

static bool compare(unsigned cmp, unsigned t, uint64_t a, uint64_t b)
{
    unsigned size = ptx_types[t].size;

    if (ptx_types[t].kind == K_FLOAT) {
        double x, y;
        bool unordered;

        if (t == T_F64) {
            x = f64_of(a);
            y = f64_of(b);
        } else if (t == T_F16) {
            x = half_to_f32((uint16_t)a);
            y = half_to_f32((uint16_t)b);
        } else if (t == T_BF16) {
            x = bf16_to_f32((uint16_t)a);
            y = bf16_to_f32((uint16_t)b);
        } else {
            x = f32_of(a);
            y = f32_of(b);
        }
        unordered = x != x || y != y;
        switch (cmp) {
        case C_EQ: return !unordered && x == y;
        case C_NE: return !unordered && x != y;
        case C_LT: return !unordered && x < y;
        case C_LE: return !unordered && x <= y;
        case C_GT: return !unordered && x > y;
        case C_GE: return !unordered && x >= y;
        case C_EQU: return unordered || x == y;
        case C_NEU: return unordered || x != y;
        case C_LTU: return unordered || x < y;
        case C_LEU: return unordered || x <= y;
        case C_GTU: return unordered || x > y;
        case C_GEU: return unordered || x >= y;
        case C_NUM: return !unordered;
        case C_NAN: return unordered;
        default: return false;
        }
    }
    if (ptx_types[t].kind == K_SIGNED && cmp >= C_LT && cmp <= C_GE) {
        int64_t x = sext(a, size), y = sext(b, size);

        switch (cmp) {
        case C_LT: return x < y;
        case C_LE: return x <= y;
        case C_GT: return x > y;
        default: return x >= y;
        }
    }
    a &= mask_of(size);
    b &= mask_of(size);
    switch (cmp) {
    case C_EQ: return a == b;
    case C_NE: return a != b;
    case C_LT:
    case C_LO: return a < b;
    case C_LE:
    case C_LS: return a <= b;
    case C_GT:
    case C_HI: return a > b;
    case C_GE:
    case C_HS: return a >= b;
    default: return false;
    }
}

/* A float's value as a double, from its bits in type t. */
static double float_value(unsigned t, uint64_t v)
{
    switch (t) {
    case T_F64: return f64_of(v);
    case T_F16: return half_to_f32((uint16_t)v);
    case T_BF16: return bf16_to_f32((uint16_t)v);
    default: return f32_of(v);
    }
}

static double round_integral(double v, unsigned rnd)
{
    switch (rnd) {
    case RND_RZI: return trunc(v);
    case RND_RMI: return floor(v);
    case RND_RPI: return ceil(v);
    case RND_RNA: return round(v);
    default: return nearbyint(v);
    }
}

/* A 64-bit integer's bits as f32 or f64, rounded once in the mode asked (to nearest even when unsaid). */
static uint64_t int64_to_float(uint64_t a, bool sign, bool f32, unsigned rnd)
{
    volatile int64_t vs = (int64_t)a;
    volatile uint64_t vu = a;
    volatile double vd;
    volatile float vf;
    int keep = fegetround();
    bool directed = rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP;

    if (directed)
        fesetround(host_rounding(rnd));
    if (f32)
        vf = sign ? (float)vs : (float)vu;
    else
        vd = sign ? (double)vs : (double)vu;
    if (directed)
        fesetround(keep);
    return f32 ? bits_f32(vf) : bits_f64(vd);
}

/* cvt: every pair of types nvcc emits, with saturation and rounding. */
static uint64_t convert(const struct ptx_inst *in, uint64_t a)
{
    unsigned dt = in->type, st = in->type2;
    unsigned dk = ptx_types[dt].kind, sk = ptx_types[st].kind, ds = ptx_types[dt].size, ss = ptx_types[st].size;

    if (sk == K_FLOAT) {
        double v = float_value(st, a);

        if (dk == K_FLOAT) {
            if (in->rnd >= RND_RNI)
                v = round_integral(v, in->rnd);
            if ((in->mods & M_SAT) && !(v != v))
                v = v < 0 ? 0 : v > 1 ? 1 : v;
            else if ((in->mods & M_SAT))
                v = 0;
            if ((in->mods & M_FTZ) && fabs(v) < 0x1p-126 && dt == T_F32)
                v = copysign(0.0, v);
            /* An f64 NaN to f16 keeps its sign and payload's top bits, quiet (0x7e00 for the canonical one). */
            if (dt == T_F16 && st == T_F64 && v != v)
                return (a >> 48 & 0x8000) | 0x7e00 | (a >> 42 & 0x3ff);
            switch (dt) {
            case T_F64: return bits_f64(v);
            case T_F16: return round_half(f32_to_half((float)v), v, in->rnd, false);
            case T_BF16: return round_half(f32_to_bf16((float)v), v, in->rnd, true);
            default: return bits_f32(st == T_F64 && in->rnd >= RND_RZ && in->rnd <= RND_RP ? round_f32(v, in->rnd)
                                                                                          : (float)v);
            }
        }
        /*
         * Float to integer: rounded as asked (to nearest even when unsaid), saturating. NaN gives 0 from
         * an f16 or f32 to 32 bits or fewer; from an f64, or to 64 bits, the destination's sign bit alone,
         * as sm_90 answers (tests/ptx/cvt.expect).
         */
        if (v != v)
            return st == T_F64 || ds == 8 ? (mask_of(ds) >> 1) + 1 : 0;
        v = round_integral(v, in->rnd == RND_NONE || in->rnd == RND_RN ? RND_RNI : in->rnd);
        if (dk == K_SIGNED) {
            /* 2^(bits - 1) is exact as a double, where the largest value (2^63 - 1 for s64) is not. */
            double lim = ldexp(1.0, (int)ds * 8 - 1);

            if (v >= lim)
                return mask_of(ds) >> 1;
            if (v < -lim)
                return (mask_of(ds) >> 1) + 1;
            return (uint64_t)(int64_t)v & mask_of(ds);
        }
        {
            double hi = ds == 8 ? 18446744073709551615.0 : ldexp(1.0, (int)ds * 8) - 1;

            if (v < 0)
                v = 0;
            if (v >= hi)
                return mask_of(ds);
            return (uint64_t)v;
        }
    }
    if (dk == K_FLOAT) {
        /* Integer to float. */
        double v = sk == K_SIGNED ? (double)sext(a, ss) : (double)(a & mask_of(ss));
        float f;

        if (ss == 8) {
            /* A 64-bit integer rounds once, straight to the target type, in the rounding mode asked. */
            if (dt == T_F32 || dt == T_F64)
                return int64_to_float(a, sk == K_SIGNED, dt == T_F32, in->rnd);
            v = sk == K_SIGNED ? (double)(int64_t)a : (double)a;
        }
        switch (dt) {
        case T_F64: return bits_f64(v);
        case T_F16: return round_half(f32_to_half((float)v), v, in->rnd, false);
        case T_BF16: return round_half(f32_to_bf16((float)v), v, in->rnd, true);
        default:
            f = in->rnd >= RND_RZ && in->rnd <= RND_RP ? round_f32(v, in->rnd) : (float)v;
            return bits_f32(f);
        }
    }
    /* Integer to integer: extend by the source's type, then saturate to the destination's if asked. */
    {
        uint64_t v = sk == K_SIGNED ? (uint64_t)sext(a, ss) : a & mask_of(ss);

        if (in->mods & M_SAT) {
            if (dk == K_SIGNED) {
                int64_t lo = ds == 8 ? INT64_MIN : -(1ll << (ds * 8 - 1)), hi = ds == 8 ? INT64_MAX : (1ll << (ds * 8 - 1)) - 1;

                if (sk == K_SIGNED) {
                    int64_t s = (int64_t)v;
                    v = (uint64_t)(s < lo ? lo : s > hi ? hi : s);
                } else if (v > (uint64_t)hi) {
                    v = (uint64_t)hi;
                }
            } else {
                if (sk == K_SIGNED && (int64_t)v < 0)
                    v = 0;
                else if (v > mask_of(ds))
                    v = mask_of(ds);
            }
        }
        if (dk == K_SIGNED)
            return (uint64_t)sext(v, ds);
        return v & mask_of(ds);
    }
}

static uint64_t bfe(unsigned t, uint64_t a, uint32_t pos, uint32_t len)
{
    unsigned bits = ptx_types[t].size * 8;
    bool sign = ptx_types[t].kind == K_SIGNED;
    uint64_t d;
    bool sbit;
    unsigned have;

    pos &= 0xff;
    len &= 0xff;
    if (len == 0)
        return 0;
    sbit = sign && ((pos + len - 1 >= bits) ? (a >> (bits - 1)) & 1 : (a >> (pos + len - 1)) & 1);
    /* The field's bits that lie in the source; a signed field's bits past them take its sign bit. */
    have = pos >= bits ? 0 : bits - pos < len ? bits - pos : len;
    d = have == 0 ? 0 : (a & mask_of(bits / 8)) >> pos;
    if (have < 64)
        d &= (1ull << have) - 1;
    if (sbit && have < 64)
        d |= ~0ull << have;
    return d & mask_of(bits / 8);
}

/* addc, subc, madc and their .cc forms: d and the carry out (for subtraction, a borrow), at the type's size. */
static uint64_t carry_op(const struct ptx_inst *in, uint64_t a, uint64_t b, uint64_t c, bool cin, bool *cout)
{
    uint64_t m = mask_of(ptx_types[in->type].size), d, t;

    a &= m;
    b &= m;
    if (in->op == X_SUBC) {
        t = (a - b) & m;
        d = (t - cin) & m;
        *cout = a < b || t < (uint64_t)cin;
        return d;
    }
    if (in->op == X_MADC) {
        a = int_binary(X_MUL, in->type, in->mods & (M_HI | M_LO), a, b) & m;
        b = c & m;
    }
    t = (a + b) & m;
    d = (t + cin) & m;
    *cout = t < a || d < t;
    return d;
}

/* sad, mul24, mad24: 32-bit (sad: any size) integer forms. */
static uint64_t int24_op(const struct ptx_inst *in, uint64_t a, uint64_t b, uint64_t c)
{
    unsigned size = ptx_types[in->type].size;
    bool sign = ptx_types[in->type].kind == K_SIGNED;
    int64_t p;

    if (in->op == X_SAD) {
        int64_t sa = sext(a, size), sb = sext(b, size);
        uint64_t ua = a & mask_of(size), ub = b & mask_of(size);

        return c + (sign ? (sa > sb ? (uint64_t)sa - (uint64_t)sb : (uint64_t)sb - (uint64_t)sa)
                         : (ua > ub ? ua - ub : ub - ua));
    }
    /* The 48-bit product of the operands' low 24 bits; .hi is its bits 47..16. */
    p = sign ? sext(a, 3) * sext(b, 3) : (int64_t)((a & 0xffffff) * (b & 0xffffff));
    p = (in->mods & M_HI) ? (int64_t)((uint64_t)p >> 16) : p;
    return (uint64_t)p + (in->op == X_MAD24 ? c : 0);
}

static uint64_t bfi(unsigned t, uint64_t a, uint64_t b, uint32_t pos, uint32_t len)
{
    unsigned bits = ptx_types[t].size * 8;
    uint64_t m;

    pos &= 0xff;
    len &= 0xff;
    if (len == 0 || pos >= bits)
        return b;
    if (pos + len > bits)
        len = bits - pos;
    m = (len >= 64 ? ~0ull : (1ull << len) - 1) << pos;
    return ((b & ~m) | ((a << pos) & m)) & mask_of(bits / 8);
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t x = ((uint64_t)b << 32) | a;
    uint32_t d = 0;

    for (int i = 0; i < 4; i++) {
        unsigned sel = (c >> (4 * i)) & 15;
        uint8_t byte = (uint8_t)(x >> (8 * (sel & 7)));

        if (sel & 8)
            byte = (byte & 0x80) ? 0xff : 0;
        d |= (uint32_t)byte << (8 * i);
    }
    return d;
}

static uint64_t brev(uint64_t a, unsigned bytes)
{
    uint64_t r = 0;

    for (unsigned i = 0; i < bytes * 8; i++)
        r |= ((a >> i) & 1) << (bytes * 8 - 1 - i);
    return r;
}

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
        case A_ADD: nv = fl ? float_op(X_ADD, t, RND_RN, 0, old, b, 0) : old + b; break;
        case A_MIN: nv = fl ? float_op(X_MIN, t, RND_NONE, 0, old, b, 0) : int_binary(X_MIN, t, 0, old, b); break;
        case A_MAX: nv = fl ? float_op(X_MAX, t, RND_NONE, 0, old, b, 0) : int_binary(X_MAX, t, 0, old, b); break;
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

/* ---- Calls ---- */

/* Lane l's local memory at [off, off + bytes) of the frames it is in; NULL outside them. */
static unsigned char *lane_local(const struct ptx_block *b, const struct warp *w, unsigned l, uint64_t off, uint64_t bytes)
{
    if (off > w->ftop[l] || bytes > w->ftop[l] - off)
        return NULL;
    return b->local + (size_t)(w->index * PTX_WARP + l) * b->local_per_lane + off;
}

/* The array p of *cap elements of `size` bytes, grown to hold index n; NULL when out of memory (p stays). */
static void *reserve(void *p, uint32_t *cap, uint64_t n, size_t size)
{
    uint64_t c = *cap ? *cap : 8;

    if (n < *cap)
        return p;
    while (c <= n)
        c *= 2;
    if (c > UINT32_MAX || !(p = realloc(p, (size_t)c * size)))
        return NULL;
    *cap = (uint32_t)c;
    return p;
}

/* Pushes lane l into the callee of call `in` at pc; false after a fault (a stack overflow). */
static bool call_push(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in, uint32_t pc)
{
    const struct ptx_function *f = &b->m->funcs[in->target];
    const struct ptx_call *c = &b->m->calls[in->o[0].imm];
    struct lane_calls *lc = &b->calls[w->index * PTX_WARP + l];
    uint64_t base = ((uint64_t)w->ftop[l] + 15) / 16 * 16 + FRAME_HEADER;
    unsigned char *lane = b->local + (size_t)(w->index * PTX_WARP + l) * b->local_per_lane;
    struct call_rec *rec;
    uint64_t *saved;

    /* The registers a call saves count against the stack as they would on a GPU, though they are kept apart. */
    if (base + f->frame_size > b->local_per_lane || ((uint64_t)lc->nsaved + f->nregs) * 8 > LOCAL_STACK) {
        fault(b, w, l, in, CUABI_ERROR_HARDWARE_STACK_ERROR,
              "stack overflow: the call to \"%s\" at depth %u needs a frame of %" PRIu32 " bytes and %" PRIu32 " saved "
              "registers, past the thread's local stack of %zu bytes (%d bytes for calls above the kernel's frame)",
              f->name ? f->name : "?", w->depth[l] + 1, f->frame_size, f->nregs, b->local_per_lane, LOCAL_STACK);
        return false;
    }
    if ((rec = reserve(lc->rec, &lc->caprec, lc->nrec, sizeof(*rec))))
        lc->rec = rec;
    if ((saved = reserve(lc->saved, &lc->capsaved, (uint64_t)lc->nsaved + f->nregs, sizeof(*saved))))
        lc->saved = saved;
    if (!rec || !saved) {
        fault(b, w, l, in, CUABI_ERROR_LAUNCH_OUT_OF_RESOURCES, "call to \"%s\": no host memory for the call stack",
              f->name ? f->name : "?");
        return false;
    }
    /* The callee's frame and the gap below it start zeroed, as the kernel's frame does (block_start). */
    memset(lane + w->ftop[l], 0, base + f->frame_size - w->ftop[l]);
    for (unsigned i = 0; i < c->nargs && i < f->nparams; i++) {
        const struct ptx_symbol *s = &b->m->syms[ptx_call_arg(b->m, c, i)];
        const struct ptx_param *p = &b->m->params[f->params + i];
        size_t n = s->size < p->size ? s->size : p->size;
        const unsigned char *from = lane_local(b, w, l, w->fbase[l] + s->value, n);

        if (!from || (uint64_t)p->off + n > f->frame_size) {
            fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
                  "call to \"%s\": argument %u of %zu bytes is outside the caller's or the callee's frame: an illegal "
                  "address", f->name ? f->name : "?", i, n);
            return false;
        }
        memcpy(lane + base + p->off, from, n);
    }
    lc->rec[lc->nrec++] = (struct call_rec){pc + 1, w->fbase[l], w->ftop[l], (uint32_t)in->o[0].imm, (uint32_t)in->target,
                                            lc->nsaved};
    for (uint32_t r = 0; r < f->nregs; r++)
        lc->saved[lc->nsaved++] = w->regs[(size_t)(f->reg_base + r) * PTX_WARP + l];
    w->fbase[l] = (uint32_t)base;
    w->ftop[l] = (uint32_t)(base + f->frame_size);
    w->depth[l]++;
    return true;
}

/* Returns lane l from its .func to its return point, in *pc; false after a fault. */
static bool call_pop(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in, uint32_t *pc)
{
    struct lane_calls *lc = &b->calls[w->index * PTX_WARP + l];
    const struct call_rec *rc = &lc->rec[lc->nrec - 1];
    const struct ptx_function *f = &b->m->funcs[rc->callee];
    const struct ptx_call *c = &b->m->calls[rc->call];

    if (c->nrets && f->ret_size) {
        const struct ptx_symbol *s = &b->m->syms[ptx_call_ret(b->m, c, 0)];
        size_t n = s->size < f->ret_size ? s->size : f->ret_size;
        const unsigned char *from = lane_local(b, w, l, (uint64_t)w->fbase[l] + f->ret_off, n);
        unsigned char *to = (uint64_t)rc->fbase + s->value + n <= rc->ftop ? lane_local(b, w, l, rc->fbase + s->value, n)
                                                                          : NULL;

        if (!from || !to) {
            fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
                  "return from \"%s\": its result of %zu bytes is outside the callee's or the caller's frame: an "
                  "illegal address", f->name ? f->name : "?", n);
            return false;
        }
        memmove(to, from, n);
    }
    lc->nsaved = rc->saved;
    for (uint32_t r = 0; r < f->nregs; r++)
        w->regs[(size_t)(f->reg_base + r) * PTX_WARP + l] = lc->saved[rc->saved + r];
    w->fbase[l] = rc->fbase;
    w->ftop[l] = rc->ftop;
    w->depth[l]--;
    *pc = rc->ret_pc;
    lc->nrec--;
    return true;
}

/* vprintf(format, args) for lane l: the caller's two parameters hold the generic addresses. */
static uint64_t call_vprintf(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in)
{
    const struct ptx_call *c = &b->m->calls[in->o[0].imm];
    const unsigned char *pf, *pa;
    uint64_t fmt = 0, args = 0;
    const unsigned char *ap = NULL;
    size_t max = 0;

    if (c->nargs < 2)
        return (uint64_t)-1;
    pf = lane_local(b, w, l, (uint64_t)w->fbase[l] + b->m->syms[ptx_call_arg(b->m, c, 0)].value, 8);
    pa = lane_local(b, w, l, (uint64_t)w->fbase[l] + b->m->syms[ptx_call_arg(b->m, c, 1)].value, 8);
    if (!pf || !pa) {
        fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "printf's parameters are outside the caller's frame: an illegal address");
        return 0;
    }
    memcpy(&fmt, pf, 8);
    memcpy(&args, pa, 8);
    if (args - PTX_LOCAL_WINDOW < w->ftop[l]) {
        ap = lane_local(b, w, l, args - PTX_LOCAL_WINDOW, 0);
        max = w->ftop[l] - (args - PTX_LOCAL_WINDOW);
    } else if (args) {
        fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "printf's arguments at 0x%" PRIx64 " are not local memory", args);
        return 0;
    }
    {
        int n = ptx_vprintf(&b->mem, fmt, ap, max);

        if (n == -2)
            fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "printf's format at 0x%" PRIx64 " is not global memory", fmt);
        return (uint64_t)(int64_t)n;
    }
}

/* __assertfail(message, file, line, function, charSize) for lane l: prints the assert's line; false on a fault. */
static bool call_assertfail(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in)
{
    static const unsigned sizes[4] = {8, 8, 4, 8};
    const struct ptx_call *c = &b->m->calls[in->o[0].imm];
    uint64_t v[4] = {0, 0, 0, 0};
    unsigned t[3];

    for (unsigned i = 0; i < 4 && i < c->nargs; i++) {
        const unsigned char *p =
            lane_local(b, w, l, (uint64_t)w->fbase[l] + b->m->syms[ptx_call_arg(b->m, c, i)].value, sizes[i]);

        if (!p) {
            fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
                  "__assertfail's parameters are outside the caller's frame: an illegal address");
            return false;
        }
        memcpy(&v[i], p, sizes[i]);
    }
    thread_of(b, w, l, t);
    ptx_assertfail(&b->mem, v[0], v[1], (uint32_t)v[2], v[3], b->ctaid, t);
    return true;
}

/* ---- A warp ---- */

/* A full barrier of the host's memory (a locked instruction), in a form the thread sanitizer also follows. */
/* ---- Textures and surfaces ---- */

/*
 * tex for lane l: the coordinates (a layered geometry's layer first, an
 * integer; a cube's a direction), the level of detail (tex.level's, or what
 * tex.grad's gradients make), read through fake_texture_sample() as host
 * kernels read, or fake_texture_sample_cube(); four channels into the
 * destination, an integer texture's as its integers, a float texture's as
 * floats. False after a fault.
 */
static bool run_tex(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in)
{
    static const unsigned char dims[] = {0, 1, 2, 3, 1, 2, 3, 3}; /* a geometry's coordinates but its layer */
    const struct ptx_opd *c = &in->o[2];
    bool layered = in->geom == G_A1D || in->geom == G_A2D || in->geom == G_ACUBE;
    bool cube = in->geom == G_CUBE || in->geom == G_ACUBE;
    unsigned n = dims[in->geom];
    float coords[4] = {0, 0, 0, 0}, lod = 0.0f;
    uint64_t handle = w->regs[(size_t)in->o[1].reg * PTX_WARP + l];
    gpu_fake_texel t;
    char why[200];
    int32_t layer = 0;
    bool ok;

    for (unsigned i = 0; i < n; i++) {
        uint64_t v = vec_elem(b, w, c, i + layered, l);

        coords[i] = in->type2 == T_F32 ? f32_of(v) : (float)(int32_t)v;
    }
    if (layered) {
        layer = (int32_t)vec_elem(b, w, c, 0, l);
        coords[n] = (float)layer;
    }
    if (in->cmp == TX_LEVEL) {
        lod = f32_of(val(b, w, &in->o[3], l));
    } else if (in->cmp == TX_GRAD) {
        float dx[3] = {0, 0, 0}, dy[3] = {0, 0, 0};

        for (unsigned i = 0; i < n; i++) {
            dx[i] = f32_of(vec_elem(b, w, &in->o[3], i, l));
            dy[i] = f32_of(vec_elem(b, w, &in->o[4], i, l));
        }
        lod = cube ? fake_texture_cube_gradient_lod(handle, coords, dx, dy)
                   : fake_texture_gradient_lod(handle, n, dx, dy);
    }
    ok = cube ? fake_texture_sample_cube(b->mem.ctx, handle, coords, layer, lod, &t, why, sizeof(why))
              : fake_texture_sample(b->mem.ctx, handle, coords, lod, &t, why, sizeof(why));
    if (!ok) {
        fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "tex: %s", why);
        return false;
    }
    for (unsigned i = 0; i < 4; i++)
        put_reg(w, in->o[0].v[i], l, t.integer ? (uint64_t)(uint32_t)t.i[i] : bits_f32(t.f[i]));
    return true;
}

/*
 * suld.b / sust.b for lane l: x in bytes, then y, then z or the layer (a
 * layered geometry gives its layer first), through fake_surface_access() in
 * the instruction's boundary mode. False after a fault.
 */
static bool run_surface(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in)
{
    bool load = in->op == X_SULD;
    const struct ptx_opd *c = &in->o[load ? 2 : 1], *v = &in->o[load ? 0 : 2];
    bool layered = in->geom == G_A1D || in->geom == G_A2D;
    unsigned n = in->geom == G_A1D ? 1 : in->geom == G_A2D ? 2 : in->geom == G_3D ? 3 : in->geom;
    unsigned es = ptx_types[in->type].size;
    long long at[3] = {0, 0, 0};
    uint64_t handle = w->regs[(size_t)in->o[load ? 1 : 0].reg * PTX_WARP + l];
    unsigned char bytes[32];
    char why[200];

    for (unsigned i = 0; i < n; i++)
        at[i] = (int32_t)vec_elem(b, w, c, i + layered, l);
    if (layered)
        at[2] = (int32_t)vec_elem(b, w, c, 0, l);
    for (unsigned i = 0; i < in->vec && !load; i++) {
        uint64_t e = vec_elem(b, w, v, i, l);

        memcpy(bytes + i * es, &e, es);
    }
    if (!fake_surface_access(b->mem.ctx, handle, at, bytes, (size_t)es * in->vec, in->cmp, !load, why, sizeof(why))) {
        fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "%s: %s", load ? "suld" : "sust", why);
        return false;
    }
    for (unsigned i = 0; i < in->vec && load; i++) {
        uint64_t e = 0;

        memcpy(&e, bytes + i * es, es);
        put_reg(w, v->v[i], l, e);
    }
    return true;
}

static void host_fence(void)
{
    static atomic_uint fence;

    atomic_fetch_add_explicit(&fence, 0, memory_order_seq_cst);
}

#define EACH(mask, l) for (uint32_t m_ = (mask), l; m_ && ((l = (uint32_t)__builtin_ctz(m_)), 1); m_ &= m_ - 1)

/* The statement for each lane of `mask` in order: a plain loop over a full warp, which the compiler vectorises. */
#define LANES(mask, l, ...)                                                                                            \
    do {                                                                                                               \
        if ((mask) == UINT32_MAX) {                                                                                    \
            for (uint32_t l = 0; l < PTX_WARP; l++) {                                                                  \
                __VA_ARGS__;                                                                                           \
            }                                                                                                          \
        } else {                                                                                                       \
            EACH(mask, l) {                                                                                            \
                __VA_ARGS__;                                                                                           \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

/* A special register the same for every lane of a warp. */
static inline bool sreg_uniform(unsigned which)
{
    return which > R_TID_Z && which != R_LANEID && (which < R_LANEMASK_EQ || which > R_LANEMASK_GE);
}

/*
 * An operand's values for the lanes of `mask`: a register's row as it is; an immediate, a special
 * register the same for every lane, a variable's address outside the frame or %tid.x of a
 * one-dimensional block in every lane of `tmp`; anything else in those of `mask`.
 */
static inline const uint64_t *row(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, uint32_t mask,
                                  uint64_t *tmp)
{
    uint64_t v;

    if (o->kind == O_REG)
        return &w->regs[(size_t)o->reg * PTX_WARP];
    if (o->kind == O_IMM || (o->kind == O_SREG && sreg_uniform((unsigned)o->imm)) ||
        (o->kind == O_SYM && b->m->syms[o->sym].space != S_FRAME)) {
        v = o->kind == O_IMM ? (uint64_t)o->imm : o->kind == O_SREG ? sreg(b, w, (unsigned)o->imm, 0) : sym_value(b, w, o->sym, 0);
        for (unsigned l = 0; l < PTX_WARP; l++)
            tmp[l] = v;
        return tmp;
    }
    if (o->kind == O_SREG && o->imm == R_TID_X && b->r->l->block[0] >= b->nthreads) {
        v = (uint64_t)w->index * PTX_WARP;
        for (unsigned l = 0; l < PTX_WARP; l++)
            tmp[l] = v + l;
        return tmp;
    }
    EACH(mask, l) tmp[l] = val(b, w, o, l);
    return tmp;
}

/*
 * f32 fma over lanes: the CPU's fused multiply-add where it has one (x86-64 checks once, at the first use),
 * else the C library's fmaf; the same bits either way.
 */
#define FFMA_LANES(g, D, A, B, C, m) LANES(g, l, D[l] = bits_f32(__builtin_fmaf(f32_of(A[l]), f32_of(B[l]), f32_of(C[l]))) & m)
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma"))) static void ffma_rows_hw(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C,
                                                   uint32_t g, uint64_t m)
{
    FFMA_LANES(g, D, A, B, C, m);
}
#endif

static void ffma_rows(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C, uint32_t g, uint64_t m)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int hw = -1; /* every thread that finds it unset stores the same answer */

    if (__atomic_load_n(&hw, __ATOMIC_RELAXED) < 0)
        __atomic_store_n(&hw, __builtin_cpu_supports("fma") ? 1 : 0, __ATOMIC_RELAXED);
    if (__atomic_load_n(&hw, __ATOMIC_RELAXED)) {
        ffma_rows_hw(D, A, B, C, g, m);
        return;
    }
#endif
    FFMA_LANES(g, D, A, B, C, m);
}

/*
 * The warp's address check, built twice on x86-64 by gcc: for AVX2 (four 64-bit lanes an
 * operation) and for any x86-64, the loader choosing once by the CPU. (The row executors gain
 * nothing from it; clang 14 exports the chooser, a symbol the library must not have; under
 * ThreadSanitizer the chooser runs while the loader relocates, before TSan's runtime is up,
 * and crashes the process.)
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define LANE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LANE_CLONES
#endif

/* The F_* forms: whole rows of registers, no type looked at per lane. */
static void run_fast(const struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    uint64_t ta[PTX_WARP], tb[PTX_WARP], tc[PTX_WARP];
    const uint64_t *A = row(b, w, &in->o[1], g, ta);
    uint64_t *D = &w->regs[(size_t)in->o[0].reg * PTX_WARP], m = mask_of(in->o[0].rsize ? in->o[0].rsize : 8);

    if (in->fast == F_MOV) {
        LANES(g, l, D[l] = A[l] & m);
        return;
    }
    {
        const uint64_t *B = row(b, w, &in->o[2], g, tb);

        /* A 32-bit result fills a register of 4 bytes or more: only a narrower one needs the mask. */
        if (m > 0xffffffffu)
            m = 0xffffffffu;
        switch (in->fast) {
        case F_IADD: LANES(g, l, D[l] = (uint32_t)(A[l] + B[l]) & m); break;
        case F_ISUB: LANES(g, l, D[l] = (uint32_t)(A[l] - B[l]) & m); break;
        case F_IMUL: LANES(g, l, D[l] = (uint32_t)(A[l] * B[l]) & m); break;
        case F_IAND: LANES(g, l, D[l] = (uint32_t)(A[l] & B[l]) & m); break;
        case F_IOR: LANES(g, l, D[l] = (uint32_t)(A[l] | B[l]) & m); break;
        case F_IXOR: LANES(g, l, D[l] = (uint32_t)(A[l] ^ B[l]) & m); break;
        case F_ISHL: LANES(g, l, D[l] = ((uint32_t)B[l] >= 32 ? 0 : (uint32_t)(A[l] << (uint32_t)B[l])) & m); break;
        case F_FADD: LANES(g, l, D[l] = bits_f32(f32_of(A[l]) + f32_of(B[l])) & m); break;
        case F_FSUB: LANES(g, l, D[l] = bits_f32(f32_of(A[l]) - f32_of(B[l])) & m); break;
        case F_FMUL: LANES(g, l, D[l] = bits_f32(f32_of(A[l]) * f32_of(B[l])) & m); break;
        case F_FFMA: ffma_rows(D, A, B, row(b, w, &in->o[3], g, tc), g, m); break;
        case F_IMAD: {
            const uint64_t *C = row(b, w, &in->o[3], g, tc);

            LANES(g, l, D[l] = (uint32_t)(A[l] * B[l] + C[l]) & m);
            break;
        }
        default: break;
        }
    }
}

/*
 * Forms the F_* set leaves out but kernels run in their loops, on whole rows: 64-bit add and sub,
 * mul.wide of 32 bits, setp of a 32-bit integer or f32 without a combiner. False for any other
 * form, which the per-lane executor then runs.
 */
static bool run_rows(const struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    uint64_t ta[PTX_WARP], tb[PTX_WARP];
    const uint64_t *A, *B;
    uint64_t *D;
    unsigned kind = ptx_types[in->type].kind, size = ptx_types[in->type].size;
    bool integer = kind == K_BITS || kind == K_SIGNED || kind == K_UNSIGNED;

    if (in->o[0].kind != O_REG || (!integer && in->type != T_F32))
        return false;
    D = &w->regs[(size_t)in->o[0].reg * PTX_WARP];
    switch (in->op) {
    case X_CVT: {
        /* Integer to integer, no saturation: extended by the source's type, then cut or extended to the destination's. */
        unsigned sk = ptx_types[in->type2].kind, ss = ptx_types[in->type2].size;
        uint64_t rm = mask_of(in->o[0].rsize ? in->o[0].rsize : 8), sm = mask_of(ss), dm = mask_of(size);
        bool ssx = sk == K_SIGNED, dsx = kind == K_SIGNED;

        if (in->nopd != 2 || (in->mods & M_SAT) || !(sk == K_BITS || sk == K_SIGNED || sk == K_UNSIGNED) || !integer)
            return false;
        A = row(b, w, &in->o[1], g, ta);
        LANES(g, l, uint64_t v = ssx ? (uint64_t)sext(A[l], ss) : A[l] & sm;
              D[l] = (dsx ? (uint64_t)sext(v, size) : v & dm) & rm);
        return true;
    }
    case X_CVTA:
    case X_CVTA_TO: {
        uint64_t window = in->space == S_SHARED ? PTX_SHARED_WINDOW : in->space == S_LOCAL ? PTX_LOCAL_WINDOW : 0;
        uint64_t m = mask_of(in->o[0].rsize ? in->o[0].rsize : 8);

        A = row(b, w, &in->o[1], g, ta);
        if (in->op == X_CVTA && window)
            LANES(g, l, D[l] = ((A[l] & 0xffffffffu) + window) & m);
        else
            LANES(g, l, D[l] = (A[l] - window) & m);
        return true;
    }
    case X_ADD:
    case X_SUB:
        if (!integer || size != 8 || in->mods || in->o[0].rsize != 8)
            return false;
        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        if (in->op == X_ADD)
            LANES(g, l, D[l] = A[l] + B[l]);
        else
            LANES(g, l, D[l] = A[l] - B[l]);
        return true;
    case X_AND:
    case X_OR:
    case X_XOR:
    case X_SHL:
    case X_SHR:
    case X_MIN:
    case X_MAX: {
        /* 64-bit bitwise and shifts into 64-bit registers; 32-bit right shifts, min and max into 32-bit ones. */
        bool sign = kind == K_SIGNED;

        if (!integer || in->mods || in->o[0].rsize != size || (size != 8 && size != 4) ||
            (size == 4 && in->op != X_SHR && in->op != X_MIN && in->op != X_MAX) ||
            (size == 8 && (in->op == X_MIN || in->op == X_MAX)))
            return false;
        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        if (size == 4) {
            if (in->op == X_SHR && sign)
                LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = (uint32_t)((int32_t)A[l] >> (n > 31 ? 31 : n)));
            else if (in->op == X_SHR)
                LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = n >= 32 ? 0 : (uint32_t)A[l] >> n);
            else if (sign)
                LANES(g, l, int32_t x = (int32_t)A[l], y = (int32_t)B[l];
                      D[l] = (uint32_t)(in->op == X_MIN ? (x < y ? x : y) : (x > y ? x : y)));
            else
                LANES(g, l, uint32_t x = (uint32_t)A[l], y = (uint32_t)B[l];
                      D[l] = in->op == X_MIN ? (x < y ? x : y) : (x > y ? x : y));
            return true;
        }
        switch (in->op) {
        case X_AND: LANES(g, l, D[l] = A[l] & B[l]); break;
        case X_OR: LANES(g, l, D[l] = A[l] | B[l]); break;
        case X_XOR: LANES(g, l, D[l] = A[l] ^ B[l]); break;
        case X_SHL: LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = n >= 64 ? 0 : A[l] << n); break;
        default:
            if (sign)
                LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = (uint64_t)((int64_t)A[l] >> (n > 63 ? 63 : n)));
            else
                LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = n >= 64 ? 0 : A[l] >> n);
            break;
        }
        return true;
    }
    case X_SELP: {
        uint64_t tp[PTX_WARP], m = mask_of(in->o[0].rsize ? in->o[0].rsize : 8);
        const uint64_t *P = row(b, w, &in->o[3], g, tp);
        bool neg = in->o[3].neg;

        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        LANES(g, l, D[l] = ((P[l] != 0) != neg ? A[l] : B[l]) & m);
        return true;
    }
    case X_MUL:
        if (!integer || size != 4 || in->mods != M_WIDE || in->o[0].rsize != 8)
            return false;
        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        if (kind == K_SIGNED)
            LANES(g, l, D[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]));
        else
            LANES(g, l, D[l] = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l]);
        return true;
    case X_SETP:
        if (size != 4 || in->boolop != B_NONE)
            return false;
        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        {
            uint64_t r[PTX_WARP];
            int32_t q = in->o[0].v[0];

            if (in->type == T_F32) {
                switch (in->cmp) {
                case C_LT: LANES(g, l, r[l] = f32_of(A[l]) < f32_of(B[l])); break;
                case C_LE: LANES(g, l, r[l] = f32_of(A[l]) <= f32_of(B[l])); break;
                case C_GT: LANES(g, l, r[l] = f32_of(A[l]) > f32_of(B[l])); break;
                case C_GE: LANES(g, l, r[l] = f32_of(A[l]) >= f32_of(B[l])); break;
                default: return false;
                }
            } else if (kind == K_SIGNED && in->cmp >= C_LT && in->cmp <= C_GE) {
                switch (in->cmp) {
                case C_LT: LANES(g, l, r[l] = (int32_t)A[l] < (int32_t)B[l]); break;
                case C_LE: LANES(g, l, r[l] = (int32_t)A[l] <= (int32_t)B[l]); break;
                case C_GT: LANES(g, l, r[l] = (int32_t)A[l] > (int32_t)B[l]); break;
                default: LANES(g, l, r[l] = (int32_t)A[l] >= (int32_t)B[l]); break;
                }
            } else {
                switch (in->cmp) {
                case C_EQ: LANES(g, l, r[l] = (uint32_t)A[l] == (uint32_t)B[l]); break;
                case C_NE: LANES(g, l, r[l] = (uint32_t)A[l] != (uint32_t)B[l]); break;
                case C_LT:
                case C_LO: LANES(g, l, r[l] = (uint32_t)A[l] < (uint32_t)B[l]); break;
                case C_LE:
                case C_LS: LANES(g, l, r[l] = (uint32_t)A[l] <= (uint32_t)B[l]); break;
                case C_GT:
                case C_HI: LANES(g, l, r[l] = (uint32_t)A[l] > (uint32_t)B[l]); break;
                case C_GE:
                case C_HS: LANES(g, l, r[l] = (uint32_t)A[l] >= (uint32_t)B[l]); break;
                default: return false;
                }
            }
            LANES(g, l, D[l] = r[l]);
            if (q >= 0) {
                uint64_t *Q = &w->regs[(size_t)q * PTX_WARP];

                LANES(g, l, Q[l] = !r[l]);
            }
        }
        return true;
    default:
        return false;
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
                whole_set(v, es, i, vec_elem(b, w, &in->o[1], i, l));
            store_whole(b, (unsigned char *)AT(&at, l, 0), es * n, v);
        }
        return true;
    }
    for (unsigned i = 0; i < n; i++) {
        EACH(g, l) tmp[l] = vec_elem(b, w, &in->o[1], i, l);
        store_lanes(&at, i * es, g, es, tmp);
    }
    return true;
}

/* Lanes of `mask` leave the kernel: the cluster barrier no longer waits for them. */
static inline void cluster_exit(struct ptx_block *b, struct warp *w, uint32_t mask)
{
    struct cluster *cl = b->cl;

    if (!(w->carrived & mask) && !(mask & (mask - 1)))
        cl->expected--;
    else if (!(w->carrived & mask))
        cl->expected -= popcount64(mask);
    else
        EACH(mask, l) {
            if ((w->carrived >> l & 1) && w->cphase[l] == cl->phase)
                cl->arrived--;
            cl->expected--;
        }
    w->carrived &= ~mask;
    if (cl->arrived && cl->arrived >= cl->expected) {
        cl->phase++;
        cl->arrived = 0;
    }
}

/* ---- Executors: one handler a row of ptx_ops.def ---- */

/*
 * The scheduler's state that a handler reads and changes: the counter of the
 * lanes running (`next`: where they go on, pc + 1 unless a branch says
 * otherwise), those lanes and how many, and the backward branches taken this
 * turn.
 */
struct sched {
    uint32_t pc, next, active;
    unsigned nactive, backs;
};

/* What the scheduler does after a handler: the next instruction, pick lanes again, end the turn, stop the block. */
enum flow { GO, RESCHEDULE, YIELD, STOPPED };

/* prefetch, membar, bar.warp.sync, bar.arrive */
static enum flow exec_nop(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    /*
     * The block's barriers open when every thread that has not exited waits at one, so a
     * thread that arrives without waiting holds no barrier back: bar.arrive only orders memory.
     */
    if (in->op == X_MEMBAR || in->op == X_BAR_ARRIVE)
        host_fence();
    return GO;
}

/* addc, subc, madc */
static enum flow exec_carry(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) {
        bool cout;
        uint64_t d = carry_op(in, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l),
                              in->op == X_MADC ? val(b, w, &in->o[3], l) : 0,
                              (in->mods & M_CI) && (w->carry >> l & 1), &cout);

        put(w, &in->o[0], l, d);
        if (in->mods & M_CC)
            w->carry = (w->carry & ~(1u << l)) | (uint32_t)cout << l;
    }
    return GO;
}

/* sad, mul24, mad24 */
static enum flow exec_int24(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l,
                   int24_op(in, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l),
                            in->op == X_MUL24 ? 0 : val(b, w, &in->o[3], l)));
    return GO;
}

/* bar.red */
static enum flow exec_bar_red(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    /*
     * A lane counts its predicate and waits at the barrier, at this instruction; when the
     * barrier has opened it runs it again and takes the block's result.
     */
    uint32_t back = g & w->redwait, arrive = g & ~w->redwait;

    EACH(back, l) {
        uint32_t n = b->red_last_n, t = b->red_last_true;

        put(w, &in->o[0], l, in->cmp == BR_POPC ? t : in->cmp == BR_AND ? t == n : t != 0);
    }
    w->redwait &= ~back;
    if (arrive) {
        EACH(arrive, l) {
            b->red_n++;
            b->red_true += pred(b, w, &in->o[in->nopd - 1], l);
            w->pc[l] = sc->pc;
        }
        w->redwait |= arrive;
        w->waiting |= arrive;
        sc->active &= ~arrive;
        if (!sc->active)
            return RESCHEDULE;
    }
    return GO;
}

/* mov */
static enum flow exec_mov(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (in->o[1].kind == O_VEC) {
        unsigned es = ptx_types[in->type].size / in->o[1].n;

        EACH(g, l) {
            uint64_t v = 0;

            for (unsigned i = 0; i < in->o[1].n; i++)
                v |= (vec_elem(b, w, &in->o[1], i, l) & mask_of(es)) << (i * es * 8);
            put(w, &in->o[0], l, v);
        }
    } else if (in->o[0].kind == O_VEC) {
        unsigned es = ptx_types[in->type].size / in->o[0].n;

        EACH(g, l) {
            uint64_t v = val(b, w, &in->o[1], l);

            for (unsigned i = 0; i < in->o[0].n; i++)
                put_reg(w, in->o[0].v[i], l, (v >> (i * es * 8)) & mask_of(es));
        }
    } else {
        EACH(g, l) put(w, &in->o[0], l, val(b, w, &in->o[1], l));
    }
    return GO;
}

/* ld */
static enum flow exec_ld(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    unsigned es = ptx_types[in->type].size, n = in->vec;

    if (warp_load(b, w, in, g)) {
        if (in->mods & M_ACQUIRE)
            host_fence();
        return GO;
    }
    EACH(g, l) {
        uint64_t addr = (in->o[1].reg >= 0 ? w->regs[(size_t)in->o[1].reg * PTX_WARP + l]
                         : in->o[1].sym >= 0 ? sym_value(b, w, in->o[1].sym, l) : 0) + (uint64_t)in->o[1].imm;
        unsigned char *p = address(b, w, l, in, in->space, addr, (size_t)es * n, ACC_READ);

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
        host_fence();
    return GO;
}

/* st */
static enum flow exec_st(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    unsigned es = ptx_types[in->type].size, n = in->vec;

    if (in->mods & M_RELEASE)
        host_fence();
    if (warp_store(b, w, in, g))
        return GO;

    EACH(g, l) {
        uint64_t addr = (in->o[0].reg >= 0 ? w->regs[(size_t)in->o[0].reg * PTX_WARP + l]
                         : in->o[0].sym >= 0 ? sym_value(b, w, in->o[0].sym, l) : 0) + (uint64_t)in->o[0].imm;
        unsigned char *p = address(b, w, l, in, in->space, addr, (size_t)es * n, ACC_WRITE);

        if (!p)
            return STOPPED;
        if (n == 1) {
            store_bytes(p, es, val(b, w, &in->o[1], l));
        } else if (es * n == 8 || es * n == 16) {
            uint64_t v[2] = {0, 0};

            for (unsigned i = 0; i < n; i++)
                whole_set(v, es, i, vec_elem(b, w, &in->o[1], i, l));
            store_whole(b, p, es * n, v);
        } else {
            for (unsigned i = 0; i < n; i++)
                store_bytes(p + i * es, es, vec_elem(b, w, &in->o[1], i, l));
        }
    }
    return GO;
}

/* cvta, cvta.to */
static enum flow exec_cvta(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (run_rows(b, w, in, g))
        return GO;
    uint64_t window = in->space == S_SHARED ? PTX_SHARED_WINDOW : in->space == S_LOCAL ? PTX_LOCAL_WINDOW : 0;

    EACH(g, l) {
        uint64_t v = val(b, w, &in->o[1], l);

        if (in->op == X_CVTA)
            v = (in->space == S_SHARED || in->space == S_LOCAL) ? (v & 0xffffffffu) + window : v;
        else
            v = window ? v - window : v;
        put(w, &in->o[0], l, v);
    }
    return GO;
}

/* add, sub, mul, div, rem, min, max, and, or, xor, shl, shr, copysign */
static enum flow exec_binary(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (in->op != X_DIV && in->op != X_REM && in->op != X_COPYSIGN && run_rows(b, w, in, g))
        return GO;
    if (ptx_types[in->type].kind == K_FLOAT) {
        EACH(g, l) put(w, &in->o[0], l,
                       float_op(in->op, in->type, in->rnd, in->mods, val(b, w, &in->o[1], l),
                                val(b, w, &in->o[2], l), 0));
    } else if (in->type == T_PRED) {
        EACH(g, l) {
            bool x = pred(b, w, &in->o[1], l), y = pred(b, w, &in->o[2], l);

            put(w, &in->o[0], l, in->op == X_AND ? (x && y) : in->op == X_OR ? (x || y) : (x != y));
        }
    } else if (in->op == X_ADD && in->type == T_S32 && !(in->mods & M_SAT)) {
        EACH(g, l) put(w, &in->o[0], l, val(b, w, &in->o[1], l) + val(b, w, &in->o[2], l));
    } else {
        EACH(g, l) put(w, &in->o[0], l,
                       int_binary(in->op, in->type, in->mods, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l)));
    }
    return GO;
}

/* mad, fma */
static enum flow exec_mad(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (ptx_types[in->type].kind == K_FLOAT) {
        EACH(g, l) put(w, &in->o[0], l,
                       float_op(X_FMA, in->type, in->rnd, in->mods, val(b, w, &in->o[1], l),
                                val(b, w, &in->o[2], l), val(b, w, &in->o[3], l)));
    } else {
        EACH(g, l) {
            uint64_t p = int_binary(X_MUL, in->type, in->mods, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l));
            uint64_t c = val(b, w, &in->o[3], l);

            if ((in->mods & M_SAT) && in->type == T_S32) {
                int64_t s = (int64_t)(int32_t)p + (int64_t)(int32_t)c;
                p = (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
                c = 0;
            }
            put(w, &in->o[0], l, p + c);
        }
    }
    return GO;
}

/* abs, neg, sqrt, rsqrt, rcp, sin, cos, lg2, ex2, tanh */
static enum flow exec_unary(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (ptx_types[in->type].kind == K_FLOAT) {
        EACH(g, l) put(w, &in->o[0], l, float_op(in->op, in->type, in->rnd, in->mods, val(b, w, &in->o[1], l), 0, 0));
    } else {
        unsigned size = ptx_types[in->type].size;

        EACH(g, l) {
            int64_t v = sext(val(b, w, &in->o[1], l), size);

            put(w, &in->o[0], l, in->op == X_NEG ? (uint64_t)0 - (uint64_t)v : (uint64_t)(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v));
        }
    }
    return GO;
}

/* not */
static enum flow exec_not(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (in->type == T_PRED) {
        EACH(g, l) put(w, &in->o[0], l, !pred(b, w, &in->o[1], l));
    } else {
        EACH(g, l) put(w, &in->o[0], l, ~val(b, w, &in->o[1], l));
    }
    return GO;
}

/* cnot */
static enum flow exec_cnot(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l, (val(b, w, &in->o[1], l) & mask_of(ptx_types[in->type].size)) == 0);
    return GO;
}

/* popc */
static enum flow exec_popc(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l,
                   (uint64_t)popcount64(val(b, w, &in->o[1], l) & mask_of(ptx_types[in->type].size)));
    return GO;
}

/* clz */
static enum flow exec_clz(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    unsigned size = ptx_types[in->type].size;

    EACH(g, l) {
        uint64_t v = val(b, w, &in->o[1], l) & mask_of(size);

        put(w, &in->o[0], l, v ? (uint64_t)(__builtin_clzll(v) - (64 - size * 8)) : size * 8);
    }
    return GO;
}

/* bfind */
static enum flow exec_bfind(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    unsigned size = ptx_types[in->type].size;
    bool sign = ptx_types[in->type].kind == K_SIGNED;

    EACH(g, l) {
        uint64_t v = val(b, w, &in->o[1], l) & mask_of(size), r;

        if (sign && (v >> (size * 8 - 1)) & 1)
            v = ~v & mask_of(size);
        r = v ? (uint64_t)(63 - __builtin_clzll(v)) : 0xffffffffu;
        if (v && (in->mods & M_SHIFTAMT))
            r = size * 8 - 1 - r;
        put(w, &in->o[0], l, r);
    }
    return GO;
}

/* shf */
static enum flow exec_shf(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    /* A funnel shift of the 64 bits b:a, by c modulo 32 (.wrap) or at most 32 (.clamp). */
    EACH(g, l) {
        uint64_t ab = (val(b, w, &in->o[2], l) & 0xffffffffu) << 32 | (val(b, w, &in->o[1], l) & 0xffffffffu);
        uint32_t n = (uint32_t)val(b, w, &in->o[3], l);

        n = in->boolop ? n & 31 : n > 32 ? 32 : n;
        put(w, &in->o[0], l, in->cmp == 0 ? (uint32_t)((ab << n) >> 32) : (uint32_t)(ab >> n));
    }
    return GO;
}

/* bmsk: a mask of b bits from bit a; .clamp: a of 32 or more gives 0, b of 32 or more reaches bit 31;
   .wrap: both modulo 32 */
static enum flow exec_bmsk(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) {
        uint32_t a = (uint32_t)val(b, w, &in->o[1], l), n = (uint32_t)val(b, w, &in->o[2], l);
        uint32_t a1 = a & 31, n1 = n & 31, lo = ~0u << a1, hi;
        bool wide = a1 + n1 >= 32 || (in->cmp == 0 && (a >= 32 || n >= 32));

        if (in->cmp == 0 && a >= 32)
            lo = 0;
        hi = wide ? 0 : n1 == 0 ? ~0u : ~0u << (a1 + n1);
        put(w, &in->o[0], l, lo & ~hi);
    }
    return GO;
}

/* brev */
static enum flow exec_brev(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l, brev(val(b, w, &in->o[1], l), ptx_types[in->type].size));
    return GO;
}

/* bfe */
static enum flow exec_bfe(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l,
                   bfe(in->type, val(b, w, &in->o[1], l), (uint32_t)val(b, w, &in->o[2], l),
                       (uint32_t)val(b, w, &in->o[3], l)));
    return GO;
}

/* bfi */
static enum flow exec_bfi(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l,
                   bfi(in->type, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l), (uint32_t)val(b, w, &in->o[3], l),
                       (uint32_t)val(b, w, &in->o[4], l)));
    return GO;
}

/* prmt */
static enum flow exec_prmt(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l,
                   prmt((uint32_t)val(b, w, &in->o[1], l), (uint32_t)val(b, w, &in->o[2], l),
                        (uint32_t)val(b, w, &in->o[3], l)));
    return GO;
}

/* setp */
static enum flow exec_setp(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (run_rows(b, w, in, g))
        return GO;
    EACH(g, l) {
        bool t = compare(in->cmp, in->type, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l)), f = !t;

        if (in->boolop != B_NONE) {
            bool c = pred(b, w, &in->o[3], l);

            t = in->boolop == B_AND ? (t && c) : in->boolop == B_OR ? (t || c) : (t != c);
            f = in->boolop == B_AND ? (f && c) : in->boolop == B_OR ? (f || c) : (f != c);
        }
        put(w, &in->o[0], l, t);
        put_reg(w, in->o[0].v[0], l, f);
    }
    return GO;
}

/* selp */
static enum flow exec_selp(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (run_rows(b, w, in, g))
        return GO;
    EACH(g, l) put(w, &in->o[0], l, pred(b, w, &in->o[3], l) ? val(b, w, &in->o[1], l) : val(b, w, &in->o[2], l));
    return GO;
}

/* cvt */
static enum flow exec_cvt(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (run_rows(b, w, in, g))
        return GO;
    if (in->nopd == 3) {
        /* Two floats packed into a pair of halves, the first operand in the upper one. */
        struct ptx_inst h = *in;

        h.type = in->type == T_F16X2 ? T_F16 : T_BF16;
        EACH(g, l) put(w, &in->o[0], l,
                       convert(&h, val(b, w, &in->o[1], l)) << 16 | convert(&h, val(b, w, &in->o[2], l)));
        return GO;
    }
    EACH(g, l) put(w, &in->o[0], l, convert(in, val(b, w, &in->o[1], l)));
    return GO;
}

/* set */
static enum flow exec_set(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    /* All ones, or 1.0 in a float type, where the comparison holds; else 0. */
    uint64_t yes = in->type == T_F32 ? 0x3f800000u : in->type == T_F16 ? 0x3c00u : in->type == T_BF16 ? 0x3f80u
                 : in->type == T_F64 ? 0x3ff0000000000000ull : mask_of(ptx_types[in->type].size);

    EACH(g, l) {
        bool t = compare(in->cmp, in->type2, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l));

        if (in->boolop != B_NONE) {
            bool c = pred(b, w, &in->o[3], l);

            t = in->boolop == B_AND ? (t && c) : in->boolop == B_OR ? (t || c) : (t != c);
        }
        put(w, &in->o[0], l, t ? yes : 0);
    }
    return GO;
}

/* testp */
static enum flow exec_testp(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) {
        uint64_t x = val(b, w, &in->o[1], l);
        double v = float_value(in->type, x);
        /* An f32 subnormal is a normal double: classify it as the f32 it is. .normal takes zeros in, as sm_90 does. */
        int c = in->type == T_F32 ? fpclassify(f32_of(x)) : fpclassify(v);
        bool r = in->cmp == 0 ? isfinite(v) : in->cmp == 1 ? isinf(v) : in->cmp == 2 ? !isnan(v)
                 : in->cmp == 3 ? isnan(v) : in->cmp == 4 ? c == FP_NORMAL || c == FP_ZERO
                                                            : c == FP_SUBNORMAL;

        put(w, &in->o[0], l, r);
    }
    return GO;
}

/* atom, red */
static enum flow exec_atom(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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
            p = address(b, w, l, in, in->space, addr, size, ACC_READ | ACC_WRITE);
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

/* activemask */
static enum flow exec_activemask(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l, sc->active);
    return GO;
}

/* shfl */
static enum flow exec_shfl(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    uint64_t src[PTX_WARP], tb[PTX_WARP], tc[PTX_WARP];
    const struct ptx_opd *a = &in->o[1];
    const uint64_t *B = row(b, w, &in->o[2], g, tb), *C = row(b, w, &in->o[3], g, tc);

    uint64_t *D = &w->regs[(size_t)in->o[0].reg * PTX_WARP], m = mask_of(in->o[0].rsize ? in->o[0].rsize : 8);
    uint64_t *Q = in->o[0].v[0] >= 0 ? &w->regs[(size_t)in->o[0].v[0] * PTX_WARP] : NULL;

    for (unsigned l = 0; l < PTX_WARP; l++)
        src[l] = a->kind == O_REG ? w->regs[(size_t)a->reg * PTX_WARP + l] : val(b, w, a, l);
    /*
     * Lane l reads lane j; out of its segment's bounds, its own value and a false predicate. A lane
     * that is not executing the shfl (undefined by PTX) gives 0: what makes NVIDIA's reduction
     * sample, whose last warp sum reads such lanes, right on the H200 (docs/clients.md).
     */
#define SHFL_LANES(J, OK)                                                                                              \
LANES(g, l, uint32_t c = (uint32_t)C[l]; uint32_t bv = (uint32_t)B[l] & 31, cv = c & 31, seg = (c >> 8) & 31;         \
  int32_t maxl = (int32_t)((l & seg) | (cv & ~seg)), minl = (int32_t)(l & seg), j = (J); bool ok = (OK);        \
  (void)minl; D[l] = !ok ? src[l] & m : (g >> (j & 31) & 1) ? src[j & 31] & m : 0; if (Q) Q[l] = ok)
    switch (in->cmp) {
    case SH_UP: SHFL_LANES((int32_t)l - (int32_t)bv, j >= maxl); break;
    case SH_DOWN: SHFL_LANES((int32_t)l + (int32_t)bv, j <= maxl); break;
    case SH_BFLY: SHFL_LANES((int32_t)(l ^ bv), j <= maxl); break;
    default: SHFL_LANES(minl | (int32_t)(bv & ~seg), j <= maxl); break;
    }
#undef SHFL_LANES
    return GO;
}

/* vote */
static enum flow exec_vote(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    uint32_t ballot = 0;

    EACH(g, l) {
        if (pred(b, w, &in->o[1], l))
            ballot |= 1u << l;
    }
    EACH(g, l) {
        uint64_t v;

        switch (in->cmp) {
        case V_ALL: v = ballot == g; break;
        case V_ANY: v = ballot != 0; break;
        case V_UNI: v = ballot == 0 || ballot == g; break;
        default: v = ballot; break;
        }
        put(w, &in->o[0], l, v);
    }
    return GO;
}

/* match */
static enum flow exec_match(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    uint64_t v[PTX_WARP];
    bool all = true;

    EACH(g, l) v[l] = val(b, w, &in->o[1], l);
    EACH(g, l) {
        if (v[l] != v[__builtin_ctz(g)])
            all = false;
    }
    EACH(g, l) {
        uint32_t same = 0;

        if (in->cmp == 0) {
            for (unsigned k = 0; k < PTX_WARP; k++)
                if ((g >> k & 1) && v[k] == v[l])
                    same |= 1u << k;
        } else {
            same = all ? g : 0;
        }
        put(w, &in->o[0], l, same);
        put_reg(w, in->o[0].v[0], l, all);
    }
    return GO;
}

/* redux */
static enum flow exec_redux(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    uint64_t acc = 0;
    bool first = true, sign = ptx_types[in->type].kind == K_SIGNED;

    EACH(g, l) {
        uint32_t v = (uint32_t)val(b, w, &in->o[1], l);

        if (first) {
            acc = v;
            first = false;
            continue;
        }
        switch (in->cmp) {
        case A_ADD: acc = (uint32_t)(acc + v); break;
        case A_AND: acc &= v; break;
        case A_OR: acc |= v; break;
        case A_XOR: acc ^= v; break;
        case A_MIN: acc = sign ? (uint32_t)((int32_t)acc < (int32_t)v ? acc : v) : (acc < v ? acc : v); break;
        case A_MAX: acc = sign ? (uint32_t)((int32_t)acc > (int32_t)v ? acc : v) : (acc > v ? acc : v); break;
        default: break;
        }
    }
    EACH(g, l) put(w, &in->o[0], l, acc);
    return GO;
}

/* trap */
static enum flow exec_trap(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (g) {
        fault(b, w, (unsigned)__builtin_ctz(g), in, CUABI_ERROR_LAUNCH_FAILED, "trap");
        return STOPPED;
    }
    return GO;
}

/* bra */
static enum flow exec_bra(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (g == sc->active) {
        sc->next = (uint32_t)in->target;
        if (sc->next <= sc->pc && ++sc->backs >= QUANTUM) {
            EACH(sc->active, l) w->pc[l] = sc->next;
            return YIELD;
        }
    } else if (g) {
        EACH(g, l) w->pc[l] = (uint32_t)in->target;
        EACH(sc->active & ~g, l) w->pc[l] = sc->pc + 1;
        if ((uint32_t)in->target <= sc->pc && ++sc->backs >= QUANTUM)
            return YIELD;
        return RESCHEDULE;
    }
    return GO;
}

/* nanosleep */
static enum flow exec_nanosleep(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    /* A hint that the warp waits for someone else: the others get their turn. */
    EACH(sc->active, l) w->pc[l] = sc->pc + 1;
    return YIELD;
}

/* barrier.cluster.arrive */
static enum flow exec_cluster_arrive(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    struct cluster *cl = b->cl;

    EACH(g, l) {
        if (!((w->carrived >> l & 1) && w->cphase[l] == cl->phase))
            cl->arrived++;
        w->carrived |= 1u << l;
        w->cphase[l] = cl->phase;
    }
    if (cl->arrived && cl->arrived >= cl->expected) {
        cl->phase++;
        cl->arrived = 0;
    }
    return GO;
}

/* barrier.cluster.wait */
static enum flow exec_cluster_wait(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    uint32_t blocked = 0;

    EACH(g, l) {
        if ((w->carrived >> l & 1) && w->cphase[l] == b->cl->phase)
            blocked |= 1u << l;
    }
    if (blocked) {
        /* Not every thread of the cluster has arrived: the warp waits here, letting the others run. */
        EACH(sc->active, l) w->pc[l] = sc->pc;
        return YIELD;
    }
    w->carrived &= ~g;
    return GO;
}

/* mapa */
static enum flow exec_mapa(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) {
        uint64_t a = val(b, w, &in->o[1], l), rank = (uint32_t)val(b, w, &in->o[2], l);
        bool generic = in->space != S_SHARED;
        uint64_t off = generic ? a - PTX_SHARED_WINDOW : a;

        if (rank >= b->cl->n || off >= PTX_WINDOW_SIZE) {
            fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
                  "mapa of address 0x%" PRIx64 " to block rank %" PRIu64 " of a cluster of %u: an illegal address",
                  a, rank, b->cl->n);
            return STOPPED;
        }
        off = ((rank + 1) << PTX_RANK_SHIFT) | (off & ((1u << PTX_RANK_SHIFT) - 1));
        put(w, &in->o[0], l, generic ? PTX_SHARED_WINDOW + off : off);
    }
    return GO;
}

/* exit */
static enum flow exec_exit(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    w->live &= ~g;
    cluster_exit(b, w, g);
    sc->active &= ~g;
    sc->nactive = popcount64(sc->active);
    if (!sc->active) {
        return RESCHEDULE;
    }
    return GO;
}

/* ret */
static enum flow exec_ret(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (!g)
        return GO;
    /* A lane returns from its call, or exits from the kernel; the deepest lanes then run. */
    EACH(g, l) {
        if (w->depth[l] == 0) {
            w->live &= ~(1u << l);
            cluster_exit(b, w, 1u << l);
        } else if (!call_pop(b, w, l, in, &w->pc[l])) {
            return STOPPED;
        }
    }
    EACH(sc->active & ~g, l) w->pc[l] = sc->pc + 1;
    return RESCHEDULE;
}

/* call */
static enum flow exec_call(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    const struct ptx_function *f = &b->m->funcs[in->target];

    if (f->builtin_vprintf && !f->defined) {
        const struct ptx_call *c = &b->m->calls[in->o[0].imm];

        EACH(g, l) {
            uint64_t r = call_vprintf(b, w, l, in);
            unsigned char *to;

            if (b->stop)
                return STOPPED;
            if (!c->nrets)
                continue;
            to = lane_local(b, w, l, (uint64_t)w->fbase[l] + b->m->syms[ptx_call_ret(b->m, c, 0)].value, 4);
            if (!to) {
                fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
                      "printf's result is outside the caller's frame: an illegal address");
                return STOPPED;
            }
            memcpy(to, &r, 4);
        }
        return GO;
    }
    if (f->builtin_assertfail && !f->defined) {
        EACH(g, l) {
            if (!call_assertfail(b, w, l, in))
                return STOPPED;
        }
        if (g) {
            fault(b, w, (unsigned)__builtin_ctz(g), in, CUABI_ERROR_ASSERT, "a device-side assert failed");
            return STOPPED;
        }
        return GO;
    }
    if (!g)
        return GO;
    EACH(g, l) {
        if (!call_push(b, w, l, in, sc->pc))
            return STOPPED;
        w->pc[l] = f->start;
    }
    EACH(sc->active & ~g, l) w->pc[l] = sc->pc + 1;
    return RESCHEDULE;
}

/* tex */
static enum flow exec_tex(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) {
        if (!run_tex(b, w, l, in))
            return STOPPED;
    }
    return GO;
}

/* suld, sust */
static enum flow exec_surface(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) {
        if (!run_surface(b, w, l, in))
            return STOPPED;
    }
    return GO;
}

/* bar */
static enum flow exec_bar(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (g) {
        w->waiting |= g;
        EACH(g, l) w->pc[l] = sc->pc + 1;
        sc->active &= ~g;
        sc->nactive = popcount64(sc->active);
        if (!sc->active)
            return RESCHEDULE;
    }
    return GO;
}

/*
 * Runs the warp until every lane of it waits at a barrier or has exited (or
 * the block stops), or it gives up its turn: after QUANTUM backward
 * branches, at a cluster barrier not yet complete, at nanosleep. Then
 * b->yielded is set, and the warp's lanes can run again later.
 */
static void warp_run(struct ptx_block *b, struct warp *w)
{
    const struct ptx_inst *code = b->code;
    struct sched s = {0, 0, 0, 0, 0};
    uint32_t other_min = UINT32_MAX;
    uint64_t executed = 0;
    enum flow flow;

reschedule:
    {
        uint32_t ready = w->live & ~w->waiting, diff = 0, l0;
        uint64_t key[PTX_WARP], first = UINT64_MAX;

        if (!ready || b->stop) {
            b->executed += executed;
            return;
        }
        /* The common case: every ready lane together (same counter, same call depth), in one plain loop. */
        l0 = (uint32_t)__builtin_ctz(ready);
        for (unsigned l = 0; l < PTX_WARP; l++)
            diff |= ((w->pc[l] ^ w->pc[l0]) | (w->depth[l] ^ w->depth[l0])) & (0u - (ready >> l & 1));
        if (!diff) {
            s.pc = w->pc[l0];
            s.active = ready;
            other_min = UINT32_MAX;
        } else {
            /* A lane's turn: deepest in calls first, then the smallest counter; the lowest key of the ready lanes runs. */
            for (unsigned l = 0; l < PTX_WARP; l++) {
                key[l] = ((uint64_t)(UINT32_MAX - w->depth[l]) << 32 | w->pc[l]) | ((uint64_t)(~ready >> l & 1) * UINT64_MAX);
                first = key[l] < first ? key[l] : first;
            }
            s.pc = (uint32_t)first;
            s.active = 0;
            other_min = UINT32_MAX;
            for (unsigned l = 0; l < PTX_WARP; l++) {
                s.active |= (uint32_t)(key[l] == first) << l;
                /* The next counter of a lane as deep: where the running lanes stop to let it catch up. */
                if (key[l] != first && key[l] >> 32 == first >> 32 && (uint32_t)key[l] < other_min)
                    other_min = (uint32_t)key[l];
            }
        }
        s.nactive = popcount64(s.active);
    }
    for (;;) {
        const struct ptx_inst *in = &code[s.pc];
        uint32_t g = s.active;

        s.next = s.pc + 1;
        if (in->guard >= 0) {
            uint32_t gm = 0;
            const uint64_t *pr = &w->regs[(size_t)in->guard * PTX_WARP];

            /* Every lane's predicate (a plain loop), then the active ones. */
            for (uint32_t l = 0; l < PTX_WARP; l++)
                gm |= (uint32_t)(pr[l] != 0) << l;
            g = (in->guard_neg ? ~gm : gm) & s.active;
        }
        executed += s.nactive;
        if (in->fast) {
            run_fast(b, w, in, g);
            goto advance;
        }
        switch (in->op) {
#define PTX_OP(op, name, shape, family, handler)                                                                        \
        case X_##op: flow = exec_##handler(b, w, in, g, &s); break;
#include "ptx_ops.def"
        default:
            fault(b, w, (unsigned)__builtin_ctz(s.active), in, CUABI_ERROR_NOT_SUPPORTED, "%s: an instruction the interpreter does not run",
                  in->op < X_COUNT ? ptx_op_names[in->op] : "?");
            goto stopped;
        }
        if (flow != GO) {
            if (flow == RESCHEDULE)
                goto reschedule;
            if (flow == YIELD)
                goto yield;
            goto stopped;
        }
    advance:
        s.pc = s.next;
        if (s.pc >= other_min) {
            EACH(s.active, l) w->pc[l] = s.pc;
            goto reschedule;
        }
    }
yield:
    /* Every lane's counter is saved: the warp runs on from there at its next turn. */
    b->executed += executed;
    if (!b->yielded) {
        b->yielded = true;
        b->ywarp = w->index;
        b->ylane = (unsigned)__builtin_ctz(s.active ? s.active : 1);
        b->ypc = s.pc;
    }
    return;
stopped:
    b->executed += executed;
    b->stop = true;
}

/* ---- The code a launch runs ---- */

/* Where a check of the code found something the executor cannot run safely: the PTX line and why, in `why`. */
static bool code_bad(char *why, size_t size, const struct ptx_function *f, const struct ptx_inst *in, const char *what)
{
    if (in)
        snprintf(why, size, "PTX line %u: %s (function \"%s\")", in->line, what, f->name ? f->name : "?");
    else
        snprintf(why, size, "%s (function \"%s\")", what, f->name ? f->name : "?");
    return false;
}

/* Whether operand o of `in` names only the function's own registers, symbols and constants; n elements read of a vector. */
static bool operand_ok(const struct ptx_module *m, const struct ptx_function *f, const struct ptx_opd *o, unsigned need)
{
    uint64_t lo = f->reg_base, hi = (uint64_t)f->reg_base + f->nregs;

#define OWN(r) ((r) >= 0 && (uint64_t)(r) >= lo && (uint64_t)(r) < hi)
    switch (o->kind) {
    case O_REG: return OWN(o->reg) && (o->v[0] == -1 || OWN(o->v[0]));
    case O_ADDR: return (o->reg == -1 || OWN(o->reg)) && (o->sym == -1 || (o->sym >= 0 && (size_t)o->sym < m->nsyms));
    case O_SYM: return o->sym >= 0 && (size_t)o->sym < m->nsyms;
    case O_VEC:
        if (o->n < 1 || o->n > 4 || o->n < need)
            return false;
        for (unsigned i = 0; i < o->n; i++)
            if (!(o->v[i] == -1 || OWN(o->v[i]) || (o->v[i] <= -2 && (uint64_t)(-2 - (int64_t)o->v[i]) < m->nconsts)))
                return false;
        return true;
    default: return true;
    }
#undef OWN
}

/* Whether `in` of f keeps its accesses to f's registers and its control to f's code; why not in `why`. */
static bool inst_ok(const struct ptx_module *m, const struct ptx_function *f, const struct ptx_inst *in, char *why,
                    size_t size)
{
    static const unsigned char coords[] = {0, 1, 2, 3, 2, 3, 3, 4}; /* a geometry's coordinates, a layer's included */
    unsigned need[PTX_MAX_OPDS] = {0};
    bool writes = true; /* whether o[0] is a register the instruction writes */

    if (in->nopd > PTX_MAX_OPDS || in->type >= T_COUNT || in->type2 >= T_COUNT || in->space > S_FRAME ||
        in->vec > 4 || (in->vec < 1 && (in->op == X_LD || in->op == X_ST || in->op == X_SULD || in->op == X_SUST)) ||
        in->geom >= sizeof(coords) ||
        (in->guard != -1 && !operand_ok(m, f, &(struct ptx_opd){.kind = O_REG, .reg = in->guard, .v = {-1}}, 0)))
        return code_bad(why, size, f, in, "an instruction the decoder left inconsistent");
    switch (in->op) {
    case X_NOP: case X_ST: case X_BRA: case X_CALL: case X_RET: case X_EXIT: case X_BAR: case X_BAR_WARP:
    case X_MEMBAR: case X_RED: case X_TRAP: case X_CLUSTER_ARRIVE: case X_CLUSTER_WAIT: case X_NANOSLEEP:
    case X_BAR_ARRIVE:
        writes = false;
        break;
    case X_LD:
    case X_MOV:
        writes = in->o[0].kind != O_VEC;
        need[0] = in->op == X_LD ? in->vec : 1;
        break;
    case X_TEX:
    case X_SULD:
        writes = false;
        need[0] = in->op == X_TEX ? 4 : in->vec;
        need[2] = coords[in->geom];
        need[3] = need[4] = in->cmp == TX_GRAD ? coords[in->geom] : 0;
        if (in->o[1].kind != O_ADDR || in->o[1].reg < 0 || in->o[2].kind != O_VEC || in->o[0].kind != O_VEC ||
            (in->op == X_SULD && (size_t)ptx_types[in->type].size * in->vec > 32))
            return code_bad(why, size, f, in, "a texture or surface instruction without its handle or vectors");
        break;
    case X_SUST:
        writes = false;
        need[1] = coords[in->geom];
        need[2] = in->vec;
        if (in->o[0].kind != O_ADDR || in->o[0].reg < 0 || in->o[1].kind != O_VEC || in->o[2].kind != O_VEC ||
            (size_t)ptx_types[in->type].size * in->vec > 32)
            return code_bad(why, size, f, in, "a surface store without its handle or vectors");
        break;
    default: break;
    }
    if (in->op == X_ST && in->vec > 1 && in->o[1].kind != O_VEC)
        return code_bad(why, size, f, in, "a vector store without its vector");
    if (in->op == X_ST)
        need[1] = in->vec;
    if (writes && (in->nopd < 1 || in->o[0].kind != O_REG))
        return code_bad(why, size, f, in, "an instruction whose destination is not a register");
    for (unsigned i = 0; i < in->nopd; i++)
        if (!operand_ok(m, f, &in->o[i], need[i]))
            return code_bad(why, size, f, in, "an operand outside the function's registers, variables or constants");
    if (in->op == X_BRA && (in->target < (int32_t)f->start || (uint32_t)in->target >= f->end))
        return code_bad(why, size, f, in, "a branch out of the function");
    if (in->op == X_CALL) {
        const struct ptx_call *c;

        if (in->target < 0 || (size_t)in->target >= m->nfuncs || in->o[0].imm < 0 || (uint64_t)in->o[0].imm >= m->ncalls)
            return code_bad(why, size, f, in, "a call to no function of the module");
        c = &m->calls[in->o[0].imm];
        if ((uint64_t)c->syms + c->nargs + c->nrets > m->ncall_syms)
            return code_bad(why, size, f, in, "a call whose arguments are outside the module's");
        if ((uint64_t)m->funcs[in->target].params + m->funcs[in->target].nparams > m->nparams)
            return code_bad(why, size, f, in, "a call to a function whose parameters are outside the module's");
        for (unsigned i = 0; i < c->nargs + c->nrets; i++) {
            int32_t s = m->call_syms[c->syms + i];

            if (s < 0 || (size_t)s >= m->nsyms)
                return code_bad(why, size, f, in, "a call's argument is no variable of the module");
        }
    }
    return true;
}

cuabi_result ptx_code_check(const struct ptx_module *m, const struct ptx_function *entry, uint32_t *reg_lo,
                            uint32_t *reg_hi, char *why, size_t size)
{
    size_t *todo = malloc(m->nfuncs * sizeof(*todo)), n = 0;
    unsigned char *seen = calloc(m->nfuncs ? m->nfuncs : 1, 1);
    bool ok = true;

    if (!todo || !seen) {
        free(todo);
        free(seen);
        snprintf(why, size, "no host memory to check the kernel's code");
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    todo[n++] = (size_t)(entry - m->funcs);
    seen[todo[0]] = 1;
    *reg_lo = UINT32_MAX;
    *reg_hi = 0;
    /* Every function the entry reaches, by a list rather than recursion: a chain of calls may be as long as the text. */
    while (ok && n) {
        const struct ptx_function *f = &m->funcs[todo[--n]];
        const struct ptx_inst *last;

        if (ptx_builtin(f))
            continue;
        if (!f->defined || f->error || f->start >= f->end || f->end > m->ncode) {
            ok = code_bad(why, size, f, NULL, f->error ? f->error : "no code the interpreter read");
            break;
        }
        if (f->reg_base < *reg_lo)
            *reg_lo = f->reg_base;
        if ((uint64_t)f->reg_base + f->nregs > UINT32_MAX) {
            ok = code_bad(why, size, f, NULL, "more registers than the interpreter holds");
            break;
        }
        if (f->reg_base + f->nregs > *reg_hi)
            *reg_hi = f->reg_base + f->nregs;
        last = &m->code[f->end - 1];
        /* The last instruction does not fall through: the program counter stays inside the function. */
        if (last->guard != -1 || (last->op != X_RET && last->op != X_EXIT && last->op != X_BRA && last->op != X_TRAP)) {
            ok = code_bad(why, size, f, last, "the function can run past its last instruction (no ret, exit or bra ends it)");
            break;
        }
        for (uint32_t i = f->start; ok && i < f->end; i++) {
            const struct ptx_inst *in = &m->code[i];

            ok = inst_ok(m, f, in, why, size);
            if (ok && in->op == X_CALL && !seen[in->target]) {
                seen[in->target] = 1;
                todo[n++] = (size_t)in->target;
            }
        }
    }
    free(todo);
    free(seen);
    return ok ? CUABI_SUCCESS : CUABI_ERROR_INVALID_PTX;
}

/* ---- A block ---- */

enum { STEP_RUNNING, STEP_DONE, STEP_STOPPED };

/* Sets the block up to run block `index` of the grid (ctaid) as rank `crank` of cluster `cl`. */
static void block_start(struct ptx_block *b, const unsigned ctaid[3], struct cluster *cl, unsigned crank)
{
    const struct ptx_function *f = b->r->f;

    memcpy(b->ctaid, ctaid, sizeof(b->ctaid));
    b->cl = cl;
    b->crank = crank;
    b->stop = false;
    b->done = false;
    b->yielded = false;
    b->epoch = 1;
    b->red_n = b->red_true = 0;
    memset(b->shared, 0, b->shared_bytes);
    if (b->sinit)
        memset(b->sinit, 0, b->shared_bytes);
    if (b->shadow)
        memset(b->shadow, 0, b->shared_bytes * sizeof(*b->shadow));
    /*
     * A lane's local memory is read only inside the frames it is in: the kernel's frame starts zeroed
     * here and a callee's at its call (call_push), so no byte of the host's heap, nor of the block run
     * before on this memory, reaches a kernel, and only the frames' bytes are written.
     */
    for (size_t i = 0; f->frame_size && i < (size_t)b->nwarps * PTX_WARP; i++)
        memset(b->local + i * b->local_per_lane, 0, f->frame_size);
    for (unsigned wi = 0; wi < b->nwarps; wi++) {
        struct warp *w = &b->warps[wi];
        unsigned left = b->nthreads - wi * PTX_WARP;

        w->regs = b->regs + (size_t)wi * b->nregs * PTX_WARP - (size_t)b->r->reg_lo * PTX_WARP;
        w->index = wi;
        w->live = left >= PTX_WARP ? 0xffffffffu : (1u << left) - 1;
        w->waiting = 0;
        w->carrived = 0;
        w->carry = 0;
        w->redwait = 0;
        for (unsigned l = 0; l < PTX_WARP; l++) {
            w->pc[l] = f->start;
            w->fbase[l] = 0;
            w->ftop[l] = f->frame_size;
            w->depth[l] = 0;
            if (b->calls)
                b->calls[wi * PTX_WARP + l].nrec = b->calls[wi * PTX_WARP + l].nsaved = 0;
        }
    }
}

/*
 * Gives every warp of the block that can run its turn; when none can (every
 * warp waits at bar.sync or has exited), the barrier opens. Whether the
 * block runs on, has ended, or stopped at a fault.
 */
static int block_step(struct ptx_block *b)
{
    bool live = false, ready = false;

    b->yielded = false;
    for (unsigned wi = 0; wi < b->nwarps; wi++) {
        struct warp *w = &b->warps[wi];

        if (w->live & ~w->waiting)
            warp_run(b, w);
        if (b->stop)
            return STEP_STOPPED;
        live = live || w->live;
        ready = ready || (w->live & ~w->waiting);
    }
    if (!live)
        return STEP_DONE;
    if (!ready) {
        /* Every warp waits at the barrier (or has exited): it opens. */
        for (unsigned wi = 0; wi < b->nwarps; wi++)
            b->warps[wi].waiting = 0;
        b->red_last_n = b->red_n;
        b->red_last_true = b->red_true;
        b->red_n = b->red_true = 0;
        b->epoch++;
    }
    return STEP_RUNNING;
}

static void block_free(struct ptx_block *b)
{
    for (size_t i = 0; b->calls && i < (size_t)b->nwarps * PTX_WARP; i++) {
        free(b->calls[i].rec);
        free(b->calls[i].saved);
    }
    free(b->calls);
    free(b->warps);
    free(b->regs);
    free(b->local);
    free(b->shared);
    free(b->shadow);
    free(b->sinit);
}

/* A block's memory for the launch; false when out of memory (what is made is freed by block_free). */
static bool block_alloc(struct ptx_run *r, struct ptx_block *b)
{
    const struct ptx_launch *L = r->l;
    size_t nregs = r->reg_hi - r->reg_lo, regs_bytes;

    memset(b, 0, sizeof(*b));
    b->r = r;
    b->m = r->m;
    b->code = r->m->code;
    b->nthreads = L->block[0] * L->block[1] * L->block[2];
    b->nwarps = (b->nthreads + PTX_WARP - 1) / PTX_WARP;
    b->shared_bytes = r->shared_bytes;
    b->local_per_lane = LOCAL_STACK + ((size_t)r->f->frame_size + 15) / 16 * 16;
    b->mem.ctx = L->ctx;
    b->nregs = nregs;
    regs_bytes = (nregs ? nregs : 1) * PTX_WARP * b->nwarps * sizeof(uint64_t);
    /*
     * A register file past 1 GiB a block is a module the interpreter will not run. Registers start at
     * zero, as a value a kernel reads before writing has no meaning.
     */
    if (regs_bytes > (1u << 30) || !(b->warps = calloc(b->nwarps, sizeof(*b->warps))) ||
        !(b->regs = calloc(1, regs_bytes)) || !(b->local = malloc(b->local_per_lane * b->nwarps * PTX_WARP)) ||
        !(b->shared = malloc(b->shared_bytes ? b->shared_bytes : 1)))
        return false;
    if (r->m->ncalls && !(b->calls = calloc((size_t)b->nwarps * PTX_WARP, sizeof(*b->calls))))
        return false;
    if (r->race && !(b->shadow = malloc((b->shared_bytes ? b->shared_bytes : 1) * sizeof(struct ptx_shadow))))
        return false;
    if (r->init && !(b->sinit = malloc(b->shared_bytes ? b->shared_bytes : 1)))
        return false;
    return true;
}

/* The grid coordinates of rank `k` of cluster `c`. */
static void cluster_block(const struct ptx_run *r, uint64_t c, unsigned k, unsigned ctaid[3])
{
    const unsigned *g = r->l->grid, *d = r->cdim;
    uint64_t nx = g[0] / d[0], ny = g[1] / d[1];

    ctaid[0] = (unsigned)(c % nx) * d[0] + k % d[0];
    ctaid[1] = (unsigned)((c / nx) % ny) * d[1] + (k / d[0]) % d[1];
    ctaid[2] = (unsigned)(c / (nx * ny)) * d[2] + k / (d[0] * d[1]);
}

/* Seconds on a monotonic clock; the coarse one where there is one, as the watchdog reads it every round. */
static double seconds_now(void)
{
    struct timespec ts;

#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The watchdog of one host thread. What it counts as progress is a block
 * that ended, the one thing a kernel cannot repeat without end: a spin
 * that stores, swaps or waits at barriers moves no block to its end. The
 * launch fails when no block of it ended for r->watchdog seconds.
 */
struct watch {
    uint64_t seen;
    double since;
};

static bool watch_expired(struct ptx_run *r, struct watch *wd)
{
    uint64_t ended = atomic_load_explicit(&r->progress, memory_order_relaxed);
    double now;

    if (r->watchdog <= 0)
        return false;
    now = seconds_now();
    if (ended != wd->seen) {
        wd->seen = ended;
        wd->since = now;
        return false;
    }
    return now - wd->since > r->watchdog;
}

/* Fails the launch at a block that has not ended: where its last warp gave up its turn, else its first live lane. */
static void watch_fault(struct ptx_run *r, struct ptx_block *b)
{
    unsigned wi = b->ywarp, l = b->ylane;
    uint32_t pc = b->ypc;

    if (!b->yielded) {
        for (wi = 0; wi + 1 < b->nwarps && !b->warps[wi].live; wi++)
            ;
        l = b->warps[wi].live ? (unsigned)__builtin_ctz(b->warps[wi].live) : 0;
        pc = b->warps[wi].pc[l];
    }
    fault(b, &b->warps[wi], l, &b->code[pc], CUABI_ERROR_LAUNCH_TIMEOUT,
          "no progress in the launch for %g s (GPUSHIM_FAKE_WATCHDOG): no block ended in that time; a wait that "
          "cannot end, such as a spin on memory nothing else writes, or on a block not running (only a cooperative "
          "launch runs every block at once)", r->watchdog);
}

/* Runs the resident blocks by turns until all have ended, or one faulted; false then. */
static bool run_resident(struct ptx_run *r, struct ptx_block *blocks, size_t n, struct watch *wd)
{
    size_t left = n;

    while (left) {
        for (size_t i = 0; i < n; i++) {
            struct ptx_block *b = &blocks[i];
            int st;

            if (b->done)
                continue;
            st = block_step(b);
            if (st == STEP_STOPPED)
                return false;
            if (st == STEP_DONE) {
                b->done = true;
                left--;
                atomic_fetch_add_explicit(&r->progress, 1, memory_order_relaxed);
            }
        }
        if (atomic_load_explicit(&r->fault, memory_order_relaxed))
            return false;
        if (left && watch_expired(r, wd)) {
            for (size_t i = 0; i < n; i++)
                if (!blocks[i].done) {
                    watch_fault(r, &blocks[i]);
                    break;
                }
            return false;
        }
    }
    return true;
}

void ptx_run_blocks(struct ptx_run *r)
{
    unsigned me = atomic_fetch_add_explicit(&r->next_thread, 1, memory_order_relaxed);
    /* A cooperative launch: this thread's clusters, all at once; else one cluster at a time. */
    uint64_t mine = !r->cooperative ? 1 : me < r->nclusters ? (r->nclusters - me + r->nthreads - 1) / r->nthreads : 0;
    size_t nblocks = (size_t)mine * r->csize, made = 0;
    struct ptx_block *blocks = calloc(nblocks ? nblocks : 1, sizeof(*blocks));
    struct cluster *clusters = calloc(mine ? mine : 1, sizeof(*clusters));
    struct watch wd = {0, seconds_now()};
    uint64_t executed = 0;

    while (blocks && clusters && made < nblocks && block_alloc(r, &blocks[made]))
        made++;
    if (made < nblocks) {
        int expected = 0;

        if (blocks)
            made++; /* the one that failed holds what it made */
        atomic_compare_exchange_strong(&r->fault, &expected, (int)CUABI_ERROR_LAUNCH_OUT_OF_RESOURCES);
        goto done;
    }
    while (nblocks) {
        size_t k = 0;

        if (atomic_load_explicit(&r->fault, memory_order_relaxed))
            break;
        for (uint64_t ci = 0; ci < mine; ci++) {
            uint64_t c = r->cooperative ? me + ci * r->nthreads
                                        : atomic_fetch_add_explicit(&r->next_block, 1, memory_order_relaxed);
            struct cluster *cl = &clusters[ci];

            if (c >= r->nclusters)
                break;
            memset(cl, 0, sizeof(*cl));
            cl->n = r->csize;
            cl->expected = r->csize * blocks[0].nthreads;
            for (unsigned rank = 0; rank < r->csize; rank++) {
                unsigned ctaid[3];

                cluster_block(r, c, rank, ctaid);
                cl->blocks[rank] = &blocks[k];
                block_start(&blocks[k++], ctaid, cl, rank);
            }
        }
        if (!k || !run_resident(r, blocks, k, &wd) || r->cooperative)
            break;
    }
done:
    for (size_t i = 0; i < made; i++) {
        executed += blocks[i].executed;
        block_free(&blocks[i]);
    }
    if (!blocks || !clusters) {
        int expected = 0;

        atomic_compare_exchange_strong(&r->fault, &expected, (int)CUABI_ERROR_LAUNCH_OUT_OF_RESOURCES);
    }
    atomic_fetch_add_explicit(&r->executed, executed, memory_order_relaxed);
    free(blocks);
    free(clusters);
}
