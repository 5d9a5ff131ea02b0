/* SPDX-License-Identifier: MIT */
/* Its inline function calls the lower layer: a downward arrow. */
#ifndef CYCLES_CLEAN_TOP_H
#define CYCLES_CLEAN_TOP_H
#include "low/util.h"
int clean_top(void);
static inline int clean_top_twice(void) { return clean_util() * 2; }
#endif
