/* SPDX-License-Identifier: MIT */
/*
 * What the PTX executor's files share (ptx_exec.c, the scheduler; the
 * handlers of the families of ptx_ops.def, HOT in ptx_exec_<family>.h and
 * COLD in ptx_exec_<family>.c; what they all call, ptx_exec_core.c): a
 * block's and a warp's state, reading and writing operands, faults and
 * checked addresses, the loops over a warp's lanes, and the COLD handlers.
 */
#ifndef PTX_EXEC_H
#define PTX_EXEC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fake_core.h"
#include "hints.h"
#include "ptx_internal.h"

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

/* The value of a special register for lane l. */
uint64_t ptx_sreg(const struct ptx_block *b, const struct warp *w, unsigned which, unsigned l);

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

/* An operand that is not a register: its value for lane l. */
uint64_t ptx_val_slow(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned l);

static inline uint64_t val(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned l)
{
    if (o->kind == O_REG)
        return w->regs[(size_t)o->reg * PTX_WARP + l];
    if (o->kind == O_IMM)
        return (uint64_t)o->imm;
    return ptx_val_slow(b, w, o, l);
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

/* Element i of a vector operand for lane l. */
uint64_t ptx_vec_elem(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned i, unsigned l);

/* The thread index of lane l of warp w, as a kernel reads %tid. */
void ptx_thread_of(const struct ptx_block *b, const struct warp *w, unsigned l, unsigned t[3]);

/* Reports a fault of lane l at `in` (the first of the launch is printed) and stops the block. */
void ptx_fault(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in, cuabi_result rc,
               const char *fmt, ...) __attribute__((format(printf, 6, 7)));

enum { ACC_READ = 1, ACC_WRITE = 2 }; /* an access: bits; an atomic is both */


/* Host memory for `bytes` at `addr` of `space` for lane l, checked (`acc`: ACC_* bits); NULL after a fault. */
unsigned char *ptx_address(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in,
                           unsigned space, uint64_t addr, size_t bytes, unsigned acc);

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

/* The value a register gets from a load of `bytes` of type t: extended as the type says. */
static inline uint64_t loaded(unsigned t, unsigned bytes, uint64_t v)
{
    return ptx_types[t].kind == K_SIGNED ? (uint64_t)sext(v, bytes) : v;
}

/* A full barrier of the host's memory (a locked instruction), in a form the thread sanitizer also follows. */
void ptx_host_fence(void);

/* Integer and float arithmetic of type t (ptx_exec_alu.c), which atom and red also do. */
uint64_t ptx_int_binary(unsigned op, unsigned t, uint16_t mods, uint64_t a, uint64_t b);
uint64_t ptx_float_op(unsigned op, unsigned t, unsigned rnd, uint16_t mods, uint64_t a, uint64_t b, uint64_t c);

/*
 * What the handlers the scheduler runs inline (ptx_exec_<family>.h) call out of line for the
 * forms no whole-row path takes, lane by lane: a comparison and a conversion of `in`'s types
 * (ptx_exec_alu.c); an atomic operation on p, giving the old value, and a whole vector access
 * of 8 or 16 bytes, single-copy atomic as a GPU makes it (ptx_exec_mem.c); the return of lane
 * l from its call, setting its counter (ptx_exec_control.c).
 */
bool ptx_compare(unsigned cmp, unsigned t, uint64_t a, uint64_t b);
uint64_t ptx_convert(const struct ptx_inst *in, uint64_t a);
uint64_t ptx_atomic_op(unsigned char *p, unsigned op, unsigned t, uint64_t b, uint64_t c);
void ptx_load_whole(const struct ptx_block *b, const unsigned char *p, unsigned bytes, uint64_t v[2]);
void ptx_store_whole(const struct ptx_block *b, unsigned char *p, unsigned bytes, const uint64_t v[2]);
bool ptx_call_pop(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in, uint32_t *pc);

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
        v = o->kind == O_IMM ? (uint64_t)o->imm : o->kind == O_SREG ? ptx_sreg(b, w, (unsigned)o->imm, 0) : sym_value(b, w, o->sym, 0);
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

/*
 * Row paths written with AVX2 and FMA intrinsics (x86-64, gcc and clang): the scheduler takes
 * them for a whole warp where the CPU has both (ptx_cpu_avx2_fma(), checked once), else the
 * plain loops; the same bits either way.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PTX_AVX2_ROWS 1
#define PTX_AVX2 __attribute__((target("avx2,fma")))

static inline bool ptx_cpu_avx2_fma(void)
{
    static int has = -1; /* every thread that finds it unset stores the same answer */

    if (GPU__EXPECT(__atomic_load_n(&has, __ATOMIC_RELAXED) < 0, 0))
        __atomic_store_n(&has, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0,
                         __ATOMIC_RELAXED);
    return __atomic_load_n(&has, __ATOMIC_RELAXED) != 0;
}
#else
#define PTX_AVX2_ROWS 0
#endif

/* ---- Executors: one handler a row of ptx_ops.def ---- */

/* A HOT handler of ptx_ops.def, and what only it calls: its body goes where the scheduler's dispatch names it. */
#define PTX_HOT static inline GPU__ALWAYS_INLINE

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

/*
 * The handlers, as ptx_ops.def names them (one that serves several rows is
 * declared once a row). Those of ALU, MEM and TEX run the lanes of `g` and
 * go on or stop; those of CONTROL and SYNC may change which lanes run and
 * where, through the scheduler's state.
 */
#define PTX_HANDLER_ALU(h) enum flow ptx_exec_##h(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
#define PTX_HANDLER_MEM PTX_HANDLER_ALU
#define PTX_HANDLER_TEX PTX_HANDLER_ALU
#define PTX_HANDLER_CONTROL(h)                                                                                         \
    enum flow ptx_exec_##h(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
#define PTX_HANDLER_SYNC PTX_HANDLER_CONTROL
#define PTX_DECLARE_COLD(family, handler) PTX_HANDLER_##family(handler);
#define PTX_DECLARE_HOT(family, handler) /* defined static inline in ptx_exec_<family>.h */
#define PTX_HANDLER(handler, family, where) PTX_DECLARE_##where(family, handler)
#include "ptx_ops.def"
#undef PTX_DECLARE_COLD
#undef PTX_DECLARE_HOT

#endif
