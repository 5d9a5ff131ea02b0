/* SPDX-License-Identifier: MIT */
/*
 * libgpushim-cuda.so, for AArch64: every symbol of cuda_symbols.h, exported
 * under its own name as a load of its slot here and a branch to what it
 * holds (x16, the intra-procedure-call register, which no argument uses).
 * The arguments and the return address (x30) stay as the caller made them.
 *
 * A slot starts at its lazy stub, which hands its index (in w17) to the lazy
 * thunk; the thunk saves the argument registers and asks libgpushim to
 * resolve every slot (gpu__cuda_resolve, cuda_forward.c), then goes where its
 * own slot now points. cuda_exports_x86_64.S is the same for x86-64.
 */
#include "cuda_forward_aarch64.h"

    .data
    .p2align 6
.Lslots:
#define GPU__CUDA_SYMBOL(name, kinds, params) .Lslot_##name: .quad .Llazy_##name;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

    .text
    .p2align 4
#define GPU__CUDA_SYMBOL(name, kinds, params) \
    .globl name; \
    .type name, %function; \
    .p2align 4; \
name: \
    .cfi_startproc; \
    adrp x16, .Lslot_##name; \
    ldr x16, [x16, #:lo12:.Lslot_##name]; \
    br x16; \
    .cfi_endproc; \
    .size name, . - name;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

    .p2align 4
    .set .Lindex, 0
#define GPU__CUDA_SYMBOL(name, kinds, params) \
.Llazy_##name: \
    .cfi_startproc; \
    mov w17, #.Lindex; \
    b .Llazy_thunk; \
    .cfi_endproc; \
    .set .Lindex, .Lindex + 1;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

/* Frame: the registers of a struct gpu__cuda_frame (208 bytes used of 240), then the frame record. */
    .p2align 4
    .type .Llazy_thunk, %function
.Llazy_thunk:
    GPU__THUNK_ENTER(256)
    GPU__SAVE_ARGS(0)
    adrp x0, .Lslots
    add x0, x0, #:lo12:.Lslots
    mov w1, w17
    bl gpu__cuda_resolve
    mov x16, x0
    GPU__RESTORE_ARGS(0)
    GPU__THUNK_LEAVE(256)
    br x16
    .cfi_endproc
    .size .Llazy_thunk, . - .Llazy_thunk

/* What tells this library apart from a driver, and from a library that only links it (loader.c). */
    .section .rodata
    .globl gpu_cuda_forwarder
    .type gpu_cuda_forwarder, %object
gpu_cuda_forwarder:
    .asciz "libgpushim-cuda"
    .size gpu_cuda_forwarder, . - gpu_cuda_forwarder

    .section .note.GNU-stack, "", %progbits
