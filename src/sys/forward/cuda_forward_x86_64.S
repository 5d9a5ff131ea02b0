/* SPDX-License-Identifier: MIT */
/*
 * The traced stubs, for x86-64 (System V): what libgpushim-cuda's slots hold
 * while GPUSHIM_TRACE is on (cuda_forward.h). Each puts its symbol's index in
 * r11, which no argument uses, and jumps to the traced thunk, which saves the
 * argument registers, times a call of the driver's export with the same
 * arguments (the caller's first 16 stack words copied below it) and keeps
 * its record.
 */
#include "cuda_forward_x86_64.h"

/* Each symbol's traced stub, in the list's order. */
    .section .data.rel.ro, "aw"
    .p2align 3
    .globl gpu__cuda_traced_stubs
    .hidden gpu__cuda_traced_stubs
    .type gpu__cuda_traced_stubs, @object
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
    movl $.Lindex, %r11d; \
    jmp .Ltraced_thunk; \
    .cfi_endproc; \
    .set .Lindex, .Lindex + 1;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

/* Frame: 128 bytes of outgoing stack arguments, then struct gpu__cuda_frame (208 bytes). */
    .p2align 4
    .type .Ltraced_thunk, @function
.Ltraced_thunk:
    GPU__THUNK_ENTER
    subq $336, %rsp
    GPU__SAVE_ARGS(128)
    movq %r11, 304(%rsp)      /* frame->index */
    leaq 16(%rbp), %rax
    movq %rax, 328(%rsp)      /* frame->stack */
    leaq 128(%rsp), %rdi
    call gpu__cuda_trace_enter /* sets frame->target and frame->t0 */
    leaq 16(%rbp), %rsi
    movq %rsp, %rdi
    movl $16, %ecx            /* GPU__CUDA_STACK_WORDS */
    rep movsq
    GPU__RESTORE_ARGS(128)
    call *320(%rsp)           /* frame->target */
    movq %rax, 0(%rsp)
    leaq 128(%rsp), %rdi
    movl %eax, %esi
    call gpu__cuda_trace_exit
    movq 0(%rsp), %rax
    leave
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .size .Ltraced_thunk, . - .Ltraced_thunk

    .section .note.GNU-stack, "", @progbits
