/* SPDX-License-Identifier: MIT */
/*
 * One index per symbol of the CUDA driver (src/sys/driver/cuda_symbols.h), for call
 * counts, fault rules and the report; and what a symbol the fake does not
 * implement does. Holds no prototype, so that fake_symbols.c can define every
 * symbol without one.
 */
#ifndef FAKE_ENTRIES_H
#define FAKE_ENTRIES_H

#include <stdbool.h>

#include "cuda_abi.h"

/* The library is built with -fvisibility=hidden: only what is marked so is exported. */
#define FAKE_API __attribute__((visibility("default")))

enum fake_entry {
#define GPU__CUDA_SYMBOL(name, kinds, params) FAKE_E_##name,
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
    FAKE_E_COUNT
};

/*
 * What a driver function the fake does not implement returns: counted as a
 * call (fault rules apply), said once on stderr naming the function, counted
 * for the report at exit; CUDA_ERROR_NOT_SUPPORTED.
 */
cuabi_result fake_unimplemented(enum fake_entry entry);

/* Whether the function at `fn` is one of those weak definitions, not the fake's own. */
bool fake_symbol_unimplemented(const void *fn);

#endif
