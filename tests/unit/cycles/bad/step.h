/* SPDX-License-Identifier: MIT */
#ifndef CYCLES_BAD_STEP_H
#define CYCLES_BAD_STEP_H
int bad_step(void);
#endif
