/* SPDX-License-Identifier: MIT */
/* Its inline function calls step.c, which includes it: a loop through a header's call. */
#ifndef CYCLES_BAD_RING_H
#define CYCLES_BAD_RING_H
#include "step.h"
static inline int bad_ring(void) { return bad_step() + 1; }
#endif
