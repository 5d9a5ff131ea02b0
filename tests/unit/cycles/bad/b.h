/* SPDX-License-Identifier: MIT */
#ifndef CYCLES_BAD_B_H
#define CYCLES_BAD_B_H
#include "a.h"
#endif
