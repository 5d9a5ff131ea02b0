/* SPDX-License-Identifier: MIT */
#include "util.h" /* from low/, on the include path */
int dirs_top(void) { return dirs_util(); }
