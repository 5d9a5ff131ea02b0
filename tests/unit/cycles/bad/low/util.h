/* SPDX-License-Identifier: MIT */
/* The lower layer: includes a higher file and calls a higher function (two upward arrows). */
#ifndef CYCLES_BAD_UTIL_H
#define CYCLES_BAD_UTIL_H
int bad_util(void);
#endif
