/* SPDX-License-Identifier: MIT */
/*
 * Page-locked host memory (fake_host_memory.c).
 */
#ifndef FAKE_HOST_MEMORY_H
#define FAKE_HOST_MEMORY_H

#include "fake_core.h"

struct fake_host {
    struct fake_host *next;
    unsigned char *ptr;
    size_t size;
    bool registered;
    unsigned flags; /* cuMemHostAlloc's or cuMemHostRegister's */
};

/* The page-locked host memory holding `addr`, or NULL. */
struct fake_host *fake_host_find(uint64_t addr);

#endif
