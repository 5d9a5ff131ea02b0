/* SPDX-License-Identifier: MIT */
/*
 * The built-in kernels (fake_builtin.c).
 */
#ifndef FAKE_BUILTIN_H
#define FAKE_BUILTIN_H

#include "fake_stream.h"

enum { FAKE_BUILTIN_PARAMS_MAX = 4 };

struct fake_exec;

struct fake_kernel {
    const char *name;
    size_t nparams;
    size_t sizes[FAKE_BUILTIN_PARAMS_MAX];
    bool hold;
    void (*run)(struct fake_exec *x);
};

/* The built-in kernel NAME, or NULL. */
const struct fake_kernel *fake_builtin_find(const char *name, size_t len);

/* What runs a built-in kernel's operation on its stream (fake_launch.c queues it). */
extern const struct fake_work fake_builtin_work;

#endif
