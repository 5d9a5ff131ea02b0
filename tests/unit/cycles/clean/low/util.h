/* SPDX-License-Identifier: MIT */
#ifndef CYCLES_CLEAN_UTIL_H
#define CYCLES_CLEAN_UTIL_H
int clean_util(void);
#endif
