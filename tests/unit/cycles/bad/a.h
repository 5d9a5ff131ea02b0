/* SPDX-License-Identifier: MIT */
/* a.h and b.h include each other: a loop of includes. */
#ifndef CYCLES_BAD_A_H
#define CYCLES_BAD_A_H
#include "b.h"
#endif
