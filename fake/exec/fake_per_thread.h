/* SPDX-License-Identifier: MIT */
/*
 * The _ptsz and _ptds variants (fake_per_thread.c).
 */
#ifndef FAKE_PER_THREAD_H
#define FAKE_PER_THREAD_H

#include <stdbool.h>

/* Whether the fake implements the function of that entry itself (a variant's base). */
bool fake_per_thread_base_implemented(int entry);

#endif
