/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor: runs one block at a time on the calling host thread.
 *
 * A block is warps of 32 threads. A warp executes one instruction for all
 * its active lanes at once: this file's scheduler picks the lanes and runs
 * the instruction's handler (ptx_ops.def's row; a HOT one's body in place,
 * from ptx_exec_<family>.h, a COLD one called, in ptx_exec_<family>.c) once
 * per warp, the loop over lanes inside it. Divergence: every lane keeps its own program
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
#include "ptx_exec.h"
#include "ptx_exec_alu.h"
#include "ptx_exec_control.h"
#include "ptx_exec_mem.h"
#include "ptx_exec_sync.h"

/*
 * f32 fma over lanes: the CPU's fused multiply-add where it has one (x86-64 checks once, at the first use),
 * else the C library's fmaf; the same bits either way.
 */
#define FFMA_LANES(g, D, A, B, C, m) LANES(g, l, D[l] = bits_f32(__builtin_fmaf(f32_of(A[l]), f32_of(B[l]), f32_of(C[l]))) & m)
#if PTX_AVX2_ROWS
/*
 * The f32 values (the low halves) of rows A[l..l+7], in the order l, l+1, l+4, l+5, l+2, l+3, l+6, l+7
 * (what one shuffle of two 256-bit halves gives); every operand the same order, undone by the unpacks.
 */
PTX_AVX2 static inline __m256 f32_octet(const uint64_t *A)
{
    return _mm256_shuffle_ps(_mm256_loadu_ps((const float *)(const void *)A),
                             _mm256_loadu_ps((const float *)(const void *)(A + 4)), 0x88);
}

/* fma of a whole warp whose result fills its register (4 bytes or more), eight lanes an instruction. */
PTX_AVX2 static void ffma_rows_avx2(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C)
{
    for (unsigned l = 0; l < PTX_WARP; l += 8) {
        __m256 r = _mm256_fmadd_ps(f32_octet(A + l), f32_octet(B + l), f32_octet(C + l)), z = _mm256_setzero_ps();

        _mm256_storeu_ps((float *)(void *)(D + l), _mm256_unpacklo_ps(r, z));
        _mm256_storeu_ps((float *)(void *)(D + l + 4), _mm256_unpackhi_ps(r, z));
    }
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/* Out of line, so that the dispatch keeps its registers; a whole warp eight lanes an instruction where the CPU has AVX2. */
__attribute__((target("fma"))) static void ffma_rows_hw(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C,
                                                   uint32_t g, uint64_t m)
{
    if (g == UINT32_MAX && m == 0xffffffffu && ptx_cpu_avx2_fma()) {
        ffma_rows_avx2(D, A, B, C);
        return;
    }
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
 * Runs the warp until every lane of it waits at a barrier or has exited (or
 * the block stops), or it gives up its turn: after QUANTUM backward
 * branches, at a cluster barrier not yet complete, at nanosleep. Then
 * b->yielded is set, and the warp's lanes can run again later.
 */
static void warp_run(struct ptx_block *b, struct warp *w)
{
    const struct ptx_inst *code = b->code;
    struct sched s = {0, 0, 0, 0, 0}; /* which lanes run where: the handlers of CONTROL and SYNC change it */
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
    /* A handler of ALU, MEM or TEX runs the lanes of g; one of CONTROL or SYNC also reads and changes the scheduler's state. */
#define PTX_RUN_ALU(h, where) flow = ptx_exec_##h(b, w, in, g)
#define PTX_RUN_MEM PTX_RUN_ALU
#define PTX_RUN_TEX PTX_RUN_ALU
#define PTX_RUN_CONTROL(h, where) PTX_RUN_SCHED_##where(h)
/* A HOT one's body works on the scheduler's own state; a COLD one's call on a copy, so that the state stays in registers. */
#define PTX_RUN_SCHED_HOT(h) flow = ptx_exec_##h(b, w, in, g, &s)
#define PTX_RUN_SCHED_COLD(h)                                                                                          \
    do {                                                                                                               \
        struct sched t_ = s;                                                                                           \
                                                                                                                       \
        flow = ptx_exec_##h(b, w, in, g, &t_);                                                                         \
        s = t_;                                                                                                        \
    } while (0)
#define PTX_RUN_SYNC PTX_RUN_CONTROL
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
        /* A row goes to its handler's one place, so that a HOT handler's body is there once, however many rows share it. */
        switch (in->op) {
#define PTX_OP(op, name, shape, handler, dst, types, modes, hook, iform, fform) case X_##op: goto run_##handler;
#include "ptx_ops.def"
        default:
            ptx_fault(b, w, (unsigned)__builtin_ctz(s.active), in, CUABI_ERROR_NOT_SUPPORTED, "%s: an instruction the interpreter does not run",
                  in->op < X_COUNT ? ptx_op_names[in->op] : "?");
            goto stopped;
        }
#define PTX_HANDLER(handler, family, where)                                                                            \
    run_##handler:                                                                                                     \
        PTX_RUN_##family(handler, where);                                                                              \
        goto ran;
#include "ptx_ops.def"
    ran:
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
    unsigned shape = in->op < X_COUNT ? ptx_op_shape[in->op] : OPD_ANY;
    bool vectors = shape == OPD_LD || shape == OPD_ST || shape == OPD_SULD || shape == OPD_SUST;
    /* whether o[0] is a register the instruction writes: its row's destination */
    bool writes = in->op >= X_COUNT || (ptx_op_dst[in->op] == DST || (ptx_op_dst[in->op] == VDST && in->o[0].kind != O_VEC));

    if (in->nopd > PTX_MAX_OPDS || in->type >= T_COUNT || in->type2 >= T_COUNT || in->space > S_FRAME ||
        in->vec > 4 || (in->vec < 1 && vectors) || in->geom >= sizeof(coords) ||
        (in->guard != -1 && !operand_ok(m, f, &(struct ptx_opd){.kind = O_REG, .reg = in->guard, .v = {-1}}, 0)))
        return code_bad(why, size, f, in, "an instruction the decoder left inconsistent");
    switch (shape) {
    case OPD_LD:
    case OPD_MOV:
        need[0] = shape == OPD_LD ? in->vec : 1;
        break;
    case OPD_ST:
        if (in->vec > 1 && in->o[1].kind != O_VEC)
            return code_bad(why, size, f, in, "a vector store without its vector");
        need[1] = in->vec;
        break;
    case OPD_TEX:
    case OPD_SULD:
        need[0] = shape == OPD_TEX ? 4 : in->vec;
        need[2] = coords[in->geom];
        need[3] = need[4] = in->cmp == TX_GRAD ? coords[in->geom] : 0;
        if (in->o[1].kind != O_ADDR || in->o[1].reg < 0 || in->o[2].kind != O_VEC || in->o[0].kind != O_VEC ||
            (shape == OPD_SULD && (size_t)ptx_types[in->type].size * in->vec > 32))
            return code_bad(why, size, f, in, "a texture or surface instruction without its handle or vectors");
        break;
    case OPD_SUST:
        need[1] = coords[in->geom];
        need[2] = in->vec;
        if (in->o[0].kind != O_ADDR || in->o[0].reg < 0 || in->o[1].kind != O_VEC || in->o[2].kind != O_VEC ||
            (size_t)ptx_types[in->type].size * in->vec > 32)
            return code_bad(why, size, f, in, "a surface store without its handle or vectors");
        break;
    default: break;
    }
    if (writes && (in->nopd < 1 || in->o[0].kind != O_REG))
        return code_bad(why, size, f, in, "an instruction whose destination is not a register");
    for (unsigned i = 0; i < in->nopd; i++)
        if (!operand_ok(m, f, &in->o[i], need[i]))
            return code_bad(why, size, f, in, "an operand outside the function's registers, variables or constants");
    if (shape == OPD_LABEL && (in->target < (int32_t)f->start || (uint32_t)in->target >= f->end))
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
    ptx_fault(b, &b->warps[wi], l, &b->code[pc], CUABI_ERROR_LAUNCH_TIMEOUT,
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
