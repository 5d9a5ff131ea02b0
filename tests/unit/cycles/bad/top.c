/* SPDX-License-Identifier: MIT */
#include "top.h"
#include "low/util.h"
#include "a.h"

int bad_top(void) { return 1; }
