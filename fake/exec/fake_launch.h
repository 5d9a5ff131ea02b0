/* SPDX-License-Identifier: MIT */
/*
 * Kernel launches (fake_launch.c): their checks, and what a multiprocessor holds.
 */
#ifndef FAKE_LAUNCH_H
#define FAKE_LAUNCH_H

#include "fake_stream.h"

struct fake_func_attrs;

/*
 * Checks and queues a launch of `f`: what cuLaunchKernel,
 * cuLaunchCooperativeKernel and cuLaunchKernelEx share.
 */
cuabi_result fake_launch(cuabi_function f, const unsigned grid[3], const unsigned block[3], unsigned shared,
                         cuabi_stream stream, void **params, void **extra, const struct fake_launch_ex *ex);

/*
 * The operation a launch of `f` in `ctx` runs, checked as fake_launch()
 * checks it and its parameters copied (a graph's kernel node holds one);
 * `bad_shape` (may be NULL) tells whether the grid or block was refused.
 */
cuabi_result fake_launch_op(const struct fake_ctx *ctx, cuabi_function f, const unsigned grid[3],
                            const unsigned block[3], unsigned shared, void **params, void **extra,
                            const struct fake_launch_ex *ex, bool *bad_shape, struct fake_op **out);

/* What the launch asks beyond a plain one that the device cannot give: a CUresult, else success. */
cuabi_result fake_launch_ex_check(const struct fake_ctx *ctx, const struct fake_func_attrs *a, const unsigned grid[3],
                                  const unsigned block[3], unsigned shared, const struct fake_launch_ex *ex);

/* The attributes of a cuLaunchKernelEx configuration; CUDA_ERROR_INVALID_VALUE for one the fake does not know. */
cuabi_result fake_launch_ex_parse(const cuabi_launch_config *config, struct fake_launch_ex *ex);

/* A cluster shape the device takes for the grid (NULL: any grid). */
cuabi_result fake_cluster_check(const unsigned grid[3], const struct fake_launch_ex *ex);

/* Blocks of the function resident on one multiprocessor: threads, registers, then shared memory bound it. */
int fake_blocks_per_sm(int device, const struct fake_func_attrs *a, unsigned block, size_t shared);

#endif
