/* SPDX-License-Identifier: MIT */
/*
 * libgpushim-cuda's forwarders: every symbol of cuda_symbols.h, exported by
 * libgpushim-cuda.so as a jump through its own slot there
 * (cuda_exports_<cpu>.S). A slot starts at its lazy stub; the first call of
 * any symbol asks libgpushim, beside the one loader, to resolve them all at
 * once (gpu__cuda_resolve, cuda_forward.c): each slot becomes the driver's own
 * export of that very name (the caller's cuda.h chose the ABI), or, with
 * tracing on, a traced stub here that times the call and then calls that
 * export; a symbol the driver lacks gets a function returning
 * CUDA_ERROR_NOT_SUPPORTED, and with no driver at all every slot returns
 * CUDA_ERROR_STUB_LIBRARY but cuGetErrorName and cuGetErrorString, which
 * gpushim answers itself.
 *
 * The stubs and thunks are assembly: they pass every argument register and
 * stack word on untouched, so one mechanism serves all prototypes, those of
 * headers yet to come too.
 */
#ifndef GPUSHIM_SYS_CUDA_FORWARD_H
#define GPUSHIM_SYS_CUDA_FORWARD_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/driver/cuda_abi.h"
#include "sys/driver/cuda_symbol_index.h"

/* The words of a stack-passed argument list the traced thunk copies for the call it makes. */
#define GPU__CUDA_STACK_WORDS 16

/*
 * The calling convention's argument registers: x86-64's rdi, rsi, rdx, rcx,
 * r8, r9; AArch64's x0 to x7, then x8 (where a struct result goes, kept).
 * Both have eight vector argument registers.
 */
#if defined(__aarch64__)
#define GPU__CUDA_INT_ARGS 8
#define GPU__CUDA_GPRS 9
#else
#define GPU__CUDA_INT_ARGS 6
#define GPU__CUDA_GPRS 6
#endif

/*
 * A forwarded call's registers, saved by the thunks (the offsets are the
 * assembly's: change both together; cuda_forward.c checks them).
 */
struct gpu__cuda_frame {
    uint64_t gpr[GPU__CUDA_GPRS];      /* the integer argument registers, in order */
    _Alignas(16) uint64_t vec[8][2];   /* the vector argument registers */
    uint64_t index;       /* the symbol's, in cuda_symbols.h */
    uint64_t t0;          /* the traced call's start */
    void *target;         /* what the traced thunk calls */
    const uint64_t *stack; /* the caller's stack-passed arguments */
};

/*
 * The lazy thunk's C half, exported for libgpushim-cuda: fills `slots` (one
 * per symbol, in the list's order), finding the driver's functions if that
 * has not happened yet (once per process; a call from inside it, from the
 * driver's cuInit, gets the no-driver function), and returns what slot
 * `index` now holds.
 */
__attribute__((visibility("default"))) void *gpu__cuda_resolve(void **slots, uint32_t index);

/* The traced thunk's halves: the target to call, then the call's record. */
void *gpu__cuda_trace_enter(struct gpu__cuda_frame *frame);
void gpu__cuda_trace_exit(struct gpu__cuda_frame *frame, cuabi_result rc);

#endif
