/* SPDX-License-Identifier: MIT */
/*
 * What every part of the PTX executor calls (ptx_exec.h declares it): the
 * values of special registers and operands, a lane's faults and their
 * report, and the checked translation of an address of any state space to
 * host memory (bounds, alignment, the race and init checks).
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ptx_exec.h"

/* The value of a special register for lane l. */
uint64_t ptx_sreg(const struct ptx_block *b, const struct warp *w, unsigned which, unsigned l)
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

uint64_t ptx_val_slow(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned l)
{
    switch (o->kind) {
    case O_SREG: return ptx_sreg(b, w, (unsigned)o->imm, l);
    case O_SYM: return sym_value(b, w, o->sym, l);
    default: return 0;
    }
}

uint64_t ptx_vec_elem(const struct ptx_block *b, const struct warp *w, const struct ptx_opd *o, unsigned i,
                         unsigned l)
{
    int32_t r = o->v[i];

    if (r <= -2)
        return b->m->consts[-2 - r];
    return r >= 0 ? w->regs[(size_t)r * PTX_WARP + l] : 0;
}

/* ---- Faults ---- */

void ptx_thread_of(const struct ptx_block *b, const struct warp *w, unsigned l, unsigned t[3])
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
    ptx_thread_of(b, w, l, t);
    fprintf(stderr,
            "gpushim-fakecuda: kernel \"%s\": block (%u,%u,%u) thread (%u,%u,%u): PTX line %u: %s\n",
            b->r->l->entry, b->ctaid[0], b->ctaid[1], b->ctaid[2], t[0], t[1], t[2], in->line, what);
}

/* Reports a fault of lane l at `in` (the first of the launch is printed) and stops the block. */
void ptx_fault(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in, cuabi_result rc,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void ptx_fault(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in, cuabi_result rc,
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
            ptx_fault(b, w, l, in, CUABI_ERROR_LAUNCH_FAILED,
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
unsigned char *ptx_address(struct ptx_block *b, const struct warp *w, unsigned l, const struct ptx_inst *in,
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
    /*
     * Shared and local addresses are 32 bits wide: the PTX ISA's "Addresses as Operands" cuts a wider
     * register's address to them, and [reg+imm] wraps in them, so a sum below the window that comes back
     * inside it by the offset is the address a GPU reaches.
     */
    if (space == S_SHARED || space == S_LOCAL)
        addr = (uint32_t)addr;
    if (bytes <= 16 && (bytes & (bytes - 1)) == 0 && (addr & (bytes - 1))) {
        ptx_fault(b, w, l, in, CUABI_ERROR_MISALIGNED_ADDRESS, "misaligned %s access of %zu bytes at 0x%" PRIx64,
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
    ptx_fault(b, w, l, in, CUABI_ERROR_ILLEGAL_ADDRESS,
          "%s of %zu bytes at %s address 0x%" PRIx64 " is outside %s: an illegal address", write ? "write" : "read",
          bytes, space_names[space], addr,
          space == S_SHARED ? "the block's shared memory" : space == S_LOCAL || space == S_PARAM ? "the thread's local memory"
                                                                                               : "every live allocation");
    return NULL;
}

/* A full barrier of the host's memory (a locked instruction), in a form the thread sanitizer also follows. */
void ptx_host_fence(void)
{
    static atomic_uint fence;

    atomic_fetch_add_explicit(&fence, 0, memory_order_seq_cst);
}
