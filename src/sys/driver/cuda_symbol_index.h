/* SPDX-License-Identifier: MIT */
/*
 * One index per symbol of the CUDA driver (cuda_symbols.h), in the list's
 * order: libgpushim-cuda's slot of each (forward/) and the trace's record of
 * each forwarded call (trace/) are numbered by it.
 */
#ifndef GPUSHIM_CUDA_SYMBOL_INDEX_H
#define GPUSHIM_CUDA_SYMBOL_INDEX_H

enum {
#define GPU__CUDA_SYMBOL(name, kinds, params) GPU__CUDA_SYM_##name,
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
    GPU__CUDA_SYMBOL_COUNT
};

#endif
