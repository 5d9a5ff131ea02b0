/* SPDX-License-Identifier: MIT */
#include "util.h"
#include "top.h"

int bad_util(void) { return bad_top() + 1; }
