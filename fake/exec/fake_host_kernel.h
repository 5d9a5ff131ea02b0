/* SPDX-License-Identifier: MIT */
/*
 * Host implementations of kernels, and the PTX interpreter's launches (fake_host_kernel.c).
 */
#ifndef FAKE_HOST_KERNEL_H
#define FAKE_HOST_KERNEL_H

#include "fake_stream.h"

struct fake_layout;

/*
 * A launch of an entry: looks up its host implementation (NOT_SUPPORTED,
 * with a message, when there is none), checks and copies the parameters
 * (kernelParams, or `extra`'s buffer) into a new shared record.
 */
cuabi_result fake_host_args_new(const struct fake_layout *l, void **params, void **extra,
                                struct fake_host_args **out);
void fake_host_args_release(struct fake_host_args *a); /* NULL does nothing */

/* What runs a host kernel's operation on its stream (fake_launch.c queues it), sharing its launch's record. */
extern const struct fake_work fake_host_kernel_work;

/* The calling thread's message for `result` from its last launch of an entry, or NULL: cuGetErrorString's. */
const char *fake_host_kernel_note(cuabi_result result);

/* Loads GPUSHIM_FAKE_KERNELS's libraries once; called without the lock, before the fake's first use. */
void fake_host_kernels_load(void);

#endif
