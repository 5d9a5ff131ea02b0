/* SPDX-License-Identifier: MIT */
/*
 * The fake's built-in kernels (`.fake_kernel NAME` in a module, see
 * gpushim/fake.h): host functions run when their stream reaches them, that
 * reach device memory only through the live allocations their context may touch.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_builtin.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_memory.h"
#include "fake_stream.h"

/* A running kernel: its launch and whether it has stayed within its memory. */
struct fake_exec {
    const struct fake_ctx *ctx;
    const struct fake_op *op;
    const struct fake_kernel *kernel;
    uint64_t threads;
    bool ok;
};

/* ---- Kernels ---- */

static uint64_t arg(const struct fake_exec *x, size_t index)
{
    const unsigned char *p = x->op->u.k.args;
    uint64_t v64 = 0;
    uint32_t v32 = 0;

    for (size_t i = 0; i < index; i++)
        p += x->kernel->sizes[i];
    if (x->kernel->sizes[index] == 8) {
        memcpy(&v64, p, 8);
        return v64;
    }
    memcpy(&v32, p, 4);
    return v32;
}

/* `n` u32 elements at device address `addr`, or NULL (and the kernel faulted). */
static uint32_t *words(struct fake_exec *x, uint64_t addr, uint64_t n)
{
    struct fake_alloc *a;

    if (n == 0)
        return NULL;
    a = addr % 4 == 0 && n <= SIZE_MAX / 4 ? fake_alloc_find(addr, (size_t)n * 4) : NULL;
    if (!a || !fake_ctx_reaches(x->ctx, a->device)) {
        x->ok = false;
        return NULL;
    }
    /* A built-in kernel may write any of them. */
    fake_alloc_written(addr, (size_t)n * 4);
    return (uint32_t *)(void *)(a->data + (addr - a->addr));
}

/* Elements a kernel over `n` touches: threads beyond n do nothing, n beyond the grid is not reached. */
static uint64_t reach(const struct fake_exec *x, uint64_t n)
{
    return n < x->threads ? n : x->threads;
}

static void k_add_one(struct fake_exec *x)
{
    uint64_t n = reach(x, arg(x, 1));
    uint32_t *p = words(x, arg(x, 0), n);

    for (uint64_t i = 0; p && i < n; i++)
        p[i] += 1;
}

static void k_scale_add(struct fake_exec *x)
{
    uint64_t n = reach(x, arg(x, 3));
    uint32_t *p = words(x, arg(x, 0), n);
    uint32_t mul = (uint32_t)arg(x, 1), add = (uint32_t)arg(x, 2);

    for (uint64_t i = 0; p && i < n; i++)
        p[i] = p[i] * mul + add;
}

static void k_fill_u32(struct fake_exec *x)
{
    uint64_t n = reach(x, arg(x, 2));
    uint32_t *p = words(x, arg(x, 0), n);

    for (uint64_t i = 0; p && i < n; i++)
        p[i] = (uint32_t)arg(x, 1);
}

static void k_copy_u32(struct fake_exec *x)
{
    uint64_t n = reach(x, arg(x, 2));
    uint32_t *dst = words(x, arg(x, 0), n);
    uint32_t *src = words(x, arg(x, 1), n);

    if (dst && src)
        memmove(dst, src, (size_t)n * 4);
}

static void k_launch_info(struct fake_exec *x)
{
    uint32_t *out = words(x, arg(x, 0), 7);
    const struct fake_op *op = x->op;

    if (!out)
        return;
    for (int i = 0; i < 3; i++) {
        out[i] = op->u.k.grid[i];
        out[3 + i] = op->u.k.block[i];
    }
    out[6] = op->u.k.shared;
}

static void k_sleep_us(struct fake_exec *x)
{
    fake.clock_ns += arg(x, 0) * 1000;
}

static void k_launch_ex_info(struct fake_exec *x)
{
    uint32_t *out = words(x, arg(x, 0), 6);
    const struct fake_launch_ex *ex = &x->op->u.k.ex;

    if (!out)
        return;
    for (int i = 0; i < 3; i++)
        out[i] = ex->cluster[i];
    out[3] = ex->cooperative;
    out[4] = ex->serialized;
    out[5] = (uint32_t)ex->priority;
}

static void k_nothing(struct fake_exec *x)
{
    (void)x;
}

static const struct fake_kernel kernels[] = {
    {"add_one", 2, {8, 4}, false, k_add_one},
    {"scale_add", 4, {8, 4, 4, 4}, false, k_scale_add},
    {"fill_u32", 3, {8, 4, 4}, false, k_fill_u32},
    {"copy_u32", 3, {8, 8, 4}, false, k_copy_u32},
    {"launch_info", 1, {8}, false, k_launch_info},
    {"sleep_us", 1, {4}, false, k_sleep_us},
    {"hold", 0, {0}, true, k_nothing},
    {"launch_ex_info", 1, {8}, false, k_launch_ex_info},
};

/* Runs a kernel operation on its stream; false when it touched memory it may not. */
static bool kernel_run(struct fake_stream *s, const struct fake_op *op)
{
    struct fake_exec x = {s->ctx, op, op->u.k.kernel, 1, true};

    for (int i = 0; i < 3; i++)
        x.threads *= (uint64_t)op->u.k.grid[i] * op->u.k.block[i];
    x.kernel->run(&x);
    return x.ok;
}

const struct fake_kernel *fake_builtin_find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
        if (strlen(kernels[i].name) == len && memcmp(kernels[i].name, name, len) == 0)
            return &kernels[i];
    return NULL;
}

/* Whether the operation is the "hold" kernel, which waits for the gate. */
static bool kernel_holds(const struct fake_op *op)
{
    return op->kind == FAKE_OP_KERNEL && op->u.k.kernel && op->u.k.kernel->hold;
}

const struct fake_work fake_builtin_work = {.run = kernel_run, .holds = kernel_holds};
