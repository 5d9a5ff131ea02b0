/* SPDX-License-Identifier: MIT */
#ifndef CYCLES_BAD_TOP_H
#define CYCLES_BAD_TOP_H
int bad_top(void);
#endif
