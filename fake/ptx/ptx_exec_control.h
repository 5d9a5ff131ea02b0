/* SPDX-License-Identifier: MIT */
/*
 * The CONTROL rows' handlers the scheduler runs inline (HOT in ptx_ops.def):
 * bra, exit and ret; calls, returns' frames, trap and nanosleep are
 * ptx_exec_control.c's.
 */
#ifndef PTX_EXEC_CONTROL_H
#define PTX_EXEC_CONTROL_H

#include "ptx_exec.h"

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

/* bra */
PTX_HOT enum flow ptx_exec_bra(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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

/* exit */
PTX_HOT enum flow ptx_exec_exit(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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
PTX_HOT enum flow ptx_exec_ret(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (!g)
        return GO;
    /* A lane returns from its call, or exits from the kernel; the deepest lanes then run. */
    EACH(g, l) {
        if (w->depth[l] == 0) {
            w->live &= ~(1u << l);
            cluster_exit(b, w, 1u << l);
        } else if (!ptx_call_pop(b, w, l, in, &w->pc[l])) {
            return STOPPED;
        }
    }
    EACH(sc->active & ~g, l) w->pc[l] = sc->pc + 1;
    return RESCHEDULE;
}


#endif
