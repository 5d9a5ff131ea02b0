/* SPDX-License-Identifier: MIT */
/*
 * Host implementations of kernels (fake_host_kernel.c), and the launch's copy
 * of its arguments that they share with a PTX entry's launch (fake_ptx_kernel.c).
 */
#ifndef FAKE_HOST_KERNEL_H
#define FAKE_HOST_KERNEL_H

#include "fake_stream.h"
#include <gpushim/fake.h>

struct fake_layout;
struct ptx_module;

/* One launch's arguments, shared (counted) by the queued operation and its graph copies. */
struct fake_host_args {
    unsigned refs;
    gpu_fake_kernel_fn fn;     /* NULL: the PTX interpreter runs the entry */
    void *user_data;
    struct ptx_module *ptx;    /* then its module, a reference */
    size_t nbytes;
    char *name;
    unsigned count;
    size_t *sizes;
    void **params;        /* [count] into bytes */
    unsigned char *bytes; /* the values, each at the entry's offset */
};


/*
 * A launch of an entry: looks up its host implementation, else checks that
 * the PTX interpreter runs it (NOT_SUPPORTED, with a message, when neither),
 * checks and copies the parameters (kernelParams, or `extra`'s buffer) into a
 * new shared record; its `fn` says which kind runs it (fake_host_kernel_work,
 * or NULL: fake_ptx_kernel_work).
 */
cuabi_result fake_host_args_new(const struct fake_layout *l, void **params, void **extra,
                                struct fake_host_args **out);
void fake_host_args_release(struct fake_host_args *a); /* NULL does nothing */

/* A kind's retain and release: the operation's record shared once more, or once less. */
void fake_host_args_retain(const struct fake_op *op);
void fake_host_args_drop(const struct fake_op *op);

/* What runs a host kernel's operation on its stream (fake_launch.c queues it), sharing its launch's record. */
extern const struct fake_work fake_host_kernel_work;

/* The calling thread's message for `result` from its last launch of an entry, or NULL: cuGetErrorString's. */
const char *fake_host_kernel_note(cuabi_result result);

/* Loads GPUSHIM_FAKE_KERNELS's libraries once; called without the lock, before the fake's first use. */
void fake_host_kernels_load(void);

#endif
