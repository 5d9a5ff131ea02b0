/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor's calls and returns (a lane's frames on its local stack,
 * the interpreter's bookkeeping in arrays of its own), printf and assert,
 * trap and nanosleep: the COLD CONTROL rows of ptx_ops.def (bra, exit and
 * ret are HOT: ptx_exec_control.h).
 */

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sample.h"
#include "ptx_exec.h"

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
        ptx_fault(b, w, l, in, CUABI_ERROR_HARDWARE_STACK_ERROR,
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
        ptx_fault(b, w, l, in, CUABI_ERROR_LAUNCH_OUT_OF_RESOURCES, "call to \"%s\": no host memory for the call stack",
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
            ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
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
bool ptx_call_pop(struct ptx_block *b, struct warp *w, unsigned l, const struct ptx_inst *in, uint32_t *pc)
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
            ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
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
        ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "printf's parameters are outside the caller's frame: an illegal address");
        return 0;
    }
    memcpy(&fmt, pf, 8);
    memcpy(&args, pa, 8);
    if (args - PTX_LOCAL_WINDOW < w->ftop[l]) {
        ap = lane_local(b, w, l, args - PTX_LOCAL_WINDOW, 0);
        max = w->ftop[l] - (args - PTX_LOCAL_WINDOW);
    } else if (args) {
        ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "printf's arguments at 0x%" PRIx64 " are not local memory", args);
        return 0;
    }
    {
        int n = ptx_vprintf(&b->mem, fmt, ap, max);

        if (n == -2)
            ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS, "printf's format at 0x%" PRIx64 " is not global memory", fmt);
        return (uint64_t)(int64_t)n;
    }
}

/* trap */
enum flow ptx_exec_trap(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    if (g) {
        ptx_fault(b, w, (unsigned)__builtin_ctz(g), in, CUABI_ERROR_LAUNCH_FAILED, "trap");
        return STOPPED;
    }
    return GO;
}

/* nanosleep */
enum flow ptx_exec_nanosleep(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
{
    /* A hint that the warp waits for someone else: the others get their turn. */
    EACH(sc->active, l) w->pc[l] = sc->pc + 1;
    return YIELD;
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
            ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
                  "__assertfail's parameters are outside the caller's frame: an illegal address");
            return false;
        }
        memcpy(&v[i], p, sizes[i]);
    }
    ptx_thread_of(b, w, l, t);
    ptx_assertfail(&b->mem, v[0], v[1], (uint32_t)v[2], v[3], b->ctaid, t);
    return true;
}

/* call */
enum flow ptx_exec_call(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g, struct sched *sc)
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
                ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
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
            ptx_fault(b, w, (unsigned)__builtin_ctz(g), in, CUABI_ERROR_ASSERT, "a device-side assert failed");
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
