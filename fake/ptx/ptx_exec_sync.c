/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor's cluster barriers, bar.red and warp-wide operations
 * (vote, match, redux, activemask): the COLD SYNC rows of ptx_ops.def (bar,
 * shfl and the fences are HOT: ptx_exec_sync.h).
 */

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sample.h"
#include "ptx_exec.h"

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

