/* SPDX-License-Identifier: MIT */
#include "ring.h"

int bad_step(void) { return 2; }
int bad_step_twice(void);
int bad_step_twice(void) { return bad_ring() * 2; }
