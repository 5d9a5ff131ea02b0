/* SPDX-License-Identifier: MIT */
/*
 * The version table of cuda_proc_versions.h as data: one row per function
 * and version, in the table's order (by base, then per_thread, then
 * version). For the fake's cuGetProcAddress and the tests that check it
 * against the fake and the driver.
 */
#ifndef GPUSHIM_CUDA_PROC_ROWS_H
#define GPUSHIM_CUDA_PROC_ROWS_H

#include <stdbool.h>
#include <stddef.h>

struct gpu__cuda_proc {
    const char *base;   /* the name cuGetProcAddress is asked for */
    int version;        /* the CUDA version from which `symbol` is the answer */
    bool per_thread;    /* the answer with the per-thread default stream flag */
    const char *symbol; /* the driver's exported symbol */
};

static const struct gpu__cuda_proc gpu__cuda_procs[] = {
#define GPU__CUDA_PROC(base, version, per_thread, symbol) {#base, version, per_thread, #symbol},
#include "cuda_proc_versions.h"
#undef GPU__CUDA_PROC
};

enum { GPU__CUDA_PROC_COUNT = sizeof(gpu__cuda_procs) / sizeof(gpu__cuda_procs[0]) };

#endif
