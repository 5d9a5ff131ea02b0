/* SPDX-License-Identifier: MIT */
/*
 * Where there are no stubs for the CPU (x86-64 and AArch64 have them), libgpushim-cuda
 * is not built, and gpu_cuda_get_symbol() and gpu_driver_get_symbol() still answer
 * (see gpushim/forward.h).
 */
#include "cuda_forward.h"

void *const gpu__cuda_traced_stubs[GPU__CUDA_SYMBOL_COUNT];
