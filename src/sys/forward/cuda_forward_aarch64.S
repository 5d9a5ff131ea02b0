/* SPDX-License-Identifier: MIT */
/*
 * The traced stubs, for AArch64 (AAPCS64): what libgpushim-cuda's slots hold
 * while GPUSHIM_TRACE is on (cuda_forward.h). Each puts its symbol's index in
 * w17 and branches to the traced thunk, which saves the argument registers,
 * times a call of the driver's export with the same arguments (the caller's
 * first 16 stack words copied below it) and keeps its record.
 * cuda_forward_x86_64.S is the same for x86-64.
 */
#include "cuda_forward_aarch64.h"

    .section .data.rel.ro, "aw"
    .p2align 3
    .globl gpu__cuda_traced_stubs
    .hidden gpu__cuda_traced_stubs
    .type gpu__cuda_traced_stubs, %object
gpu__cuda_traced_stubs:
#define GPU__CUDA_SYMBOL(name, kinds, params) .quad .Ltraced_##name;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
    .size gpu__cuda_traced_stubs, . - gpu__cuda_traced_stubs

    .text
    .p2align 4
    .set .Lindex, 0
#define GPU__CUDA_SYMBOL(name, kinds, params) \
.Ltraced_##name: \
    .cfi_startproc; \
    mov w17, #.Lindex; \
    b .Ltraced_thunk; \
    .cfi_endproc; \
    .set .Lindex, .Lindex + 1;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

/*
 * Frame (384 bytes): 128 of outgoing stack arguments, struct gpu__cuda_frame
 * at 128 (240 bytes), the frame record at 368. The caller's stack arguments
 * begin where sp stood on entry, x29 + 16.
 */
    .p2align 4
    .type .Ltraced_thunk, %function
.Ltraced_thunk:
    GPU__THUNK_ENTER(384)
    GPU__SAVE_ARGS(128)
    mov w9, w17
    str x9, [sp, #(128 + 208)]    /* frame->index */
    add x9, x29, #16
    str x9, [sp, #(128 + 232)]    /* frame->stack */
    add x0, sp, #128
    bl gpu__cuda_trace_enter      /* sets frame->target and frame->t0 */
    add x9, x29, #16
    mov x10, sp
    mov x11, #8                   /* GPU__CUDA_STACK_WORDS, two at a time */
1:  ldp x12, x13, [x9], #16
    stp x12, x13, [x10], #16
    subs x11, x11, #1
    b.ne 1b
    GPU__RESTORE_ARGS(128)
    ldr x16, [sp, #(128 + 224)]   /* frame->target */
    blr x16
    str x0, [sp, #0]
    mov w1, w0
    add x0, sp, #128
    bl gpu__cuda_trace_exit
    ldr x0, [sp, #0]
    GPU__THUNK_LEAVE(384)
    ret
    .cfi_endproc
    .size .Ltraced_thunk, . - .Ltraced_thunk

    .section .note.GNU-stack, "", %progbits
