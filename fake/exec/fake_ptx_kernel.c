/* SPDX-License-Identifier: MIT */
/*
 * Kernels as PTX entries: the kind of work that runs a launch of an entry
 * with no host implementation through the PTX interpreter (ptx/ptx_launch.c),
 * without the fake's lock, when its stream reaches the launch.
 */
#include "fake_context.h"
#include "fake_core.h"
#include "fake_host_kernel.h"
#include "fake_ptx_kernel.h"
#include "fake_stream.h"
#include "ptx/ptx.h"

/* Runs the entry on its stream: false when it touched memory it may not (the interpreter printed why). */
static bool ptx_kernel_run(struct fake_stream *s, const struct fake_op *op)
{
    const struct fake_host_args *a = op->u.k.host;
    struct ptx_launch pl = {a->ptx, a->name, s->ctx, s->ctx->device,
                            {op->u.k.grid[0], op->u.k.grid[1], op->u.k.grid[2]},
                            {op->u.k.block[0], op->u.k.block[1], op->u.k.block[2]}, op->u.k.shared, a->bytes,
                            a->nbytes, {op->u.k.ex.cluster[0], op->u.k.ex.cluster[1], op->u.k.ex.cluster[2]},
                            op->u.k.ex.cooperative};
    cuabi_result result;
    bool unlocked;

    unlocked = fake_kernel_unlock(s, op);
    result = ptx_launch_run(&pl);
    fake_kernel_relock(s, unlocked);
    if (result != CUABI_SUCCESS && result != CUABI_ERROR_ILLEGAL_ADDRESS && !s->fault)
        s->fault = result;
    return result != CUABI_ERROR_ILLEGAL_ADDRESS;
}

const struct fake_work fake_ptx_kernel_work = {
    .run = ptx_kernel_run, .retain = fake_host_args_retain, .release = fake_host_args_drop};
