/*
 * The forwarders' slots where there are no stubs for the CPU (only x86-64
 * has them): gpu_cuda_symbol() and gpu_driver_symbol() still answer, and
 * libgpushim-cuda is not built (see gpushim/forward.h).
 */
#include "cuda_forward.h"

void *gpu_cuda_slots[GPU__CUDA_SYMBOL_COUNT];
void *const gpu__cuda_traced_stubs[GPU__CUDA_SYMBOL_COUNT];
