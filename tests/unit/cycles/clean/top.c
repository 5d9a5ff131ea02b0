/* SPDX-License-Identifier: MIT */
#include "top.h"

int clean_top(void) { return clean_util() + clean_top_twice(); }
