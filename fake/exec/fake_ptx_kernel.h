/* SPDX-License-Identifier: MIT */
/*
 * Kernels as PTX entries, run by the interpreter (fake_ptx_kernel.c).
 */
#ifndef FAKE_PTX_KERNEL_H
#define FAKE_PTX_KERNEL_H

#include "fake_stream.h"

/* What runs a PTX entry's operation on its stream (fake_launch.c queues it), sharing its launch's record. */
extern const struct fake_work fake_ptx_kernel_work;

#endif
