/* SPDX-License-Identifier: MIT */
/*
 * The SYNC rows' handlers the scheduler runs inline (HOT in ptx_ops.def):
 * bar, shfl and the instructions that only order memory or do nothing.
 */
#ifndef PTX_EXEC_SYNC_H
#define PTX_EXEC_SYNC_H

#include "ptx_exec.h"

/* prefetch, membar, bar.warp.sync, bar.arrive */
PTX_HOT enum flow ptx_exec_nop(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    /*
     * The block's barriers open when every thread that has not exited waits at one, so a
     * thread that arrives without waiting holds no barrier back: bar.arrive only orders memory.
     */
    if (in->op == X_MEMBAR || in->op == X_BAR_ARRIVE)
        ptx_host_fence();
    return GO;
}

/*
 * shfl's exchange between the lanes of g. Out of line: inside the dispatch's function its loop and
 * arrays cost the dispatch's own code registers (bench-ptx-kernels: reduce 5% slower, callgrind: 3%
 * more host instructions on every kernel).
 */
static GPU__NOINLINE void shfl_lanes(const struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
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
}

/* shfl */
PTX_HOT enum flow ptx_exec_shfl(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    shfl_lanes(b, w, in, g);
    return GO;
}

/* bar */
PTX_HOT enum flow ptx_exec_bar(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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

#endif
