/* SPDX-License-Identifier: MIT */
#ifndef DIRS_UTIL_H
#define DIRS_UTIL_H
int dirs_util(void);
#endif
