/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor's barriers, fences and warp-wide operations (shfl,
 * vote, match, redux): the SYNC rows of ptx_ops.def.
 */

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sample.h"
#include "ptx_exec.h"

/* prefetch, membar, bar.warp.sync, bar.arrive */
enum flow ptx_exec_nop(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    /*
     * The block's barriers open when every thread that has not exited waits at one, so a
     * thread that arrives without waiting holds no barrier back: bar.arrive only orders memory.
     */
    if (in->op == X_MEMBAR || in->op == X_BAR_ARRIVE)
        ptx_host_fence();
    return GO;
}

/* bar.red */
enum flow ptx_exec_bar_red(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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

/* activemask */
enum flow ptx_exec_activemask(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    EACH(g, l) put(w, &in->o[0], l, sc->active);
    return GO;
}

/* shfl */
enum flow ptx_exec_shfl(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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
enum flow ptx_exec_vote(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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
enum flow ptx_exec_match(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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
enum flow ptx_exec_redux(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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

/* barrier.cluster.arrive */
enum flow ptx_exec_cluster_arrive(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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
enum flow ptx_exec_cluster_wait(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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

/* bar */
enum flow ptx_exec_bar(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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
