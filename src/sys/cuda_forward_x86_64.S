/*
 * libgpushim-cuda's slots and the stubs behind them, for x86-64 (System V):
 * see cuda_forward.h. Every symbol of cuda_symbols.h gets a slot, a lazy stub
 * (the slot's first value) and a traced stub; each stub puts its slot's
 * address in r11, which no argument uses, and jumps to the thunk shared by
 * all. The thunks save and restore every argument register, so the call's
 * own arguments reach the driver untouched.
 */

/* The slots, exported for libgpushim-cuda.so's trampolines; each starts at its lazy stub. */
    .data
    .p2align 6
    .globl gpu_cuda_slots
    .type gpu_cuda_slots, @object
gpu_cuda_slots:
#define GPU__CUDA_SYMBOL(name, kinds, params) .Lslot_##name: .quad .Llazy_##name;
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
    .size gpu_cuda_slots, . - gpu_cuda_slots

/* Each symbol's traced stub, in the list's order: what a slot holds while GPUSHIM_TRACE is on. */
    .section .data.rel.ro, "aw"
    .p2align 3
    .globl gpu__cuda_traced_stubs
    .hidden gpu__cuda_traced_stubs
    .type gpu__cuda_traced_stubs, @object
gpu__cuda_traced_stubs:
#define GPU__CUDA_SYMBOL(name, kinds, params) .quad .Ltraced_##name;
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
    .size gpu__cuda_traced_stubs, . - gpu__cuda_traced_stubs

    .text
#define GPU__CUDA_SYMBOL(name, kinds, params) \
    .p2align 4; \
    .cfi_startproc; \
.Llazy_##name: \
    leaq .Lslot_##name(%rip), %r11; \
    jmp .Llazy_thunk; \
.Ltraced_##name: \
    leaq .Lslot_##name(%rip), %r11; \
    jmp .Ltraced_thunk; \
    .cfi_endproc;
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

/* The argument registers into struct gpu__cuda_frame at `base`(%rsp), and back. */
#define SAVE_ARGS(base) \
    movq %rdi, base+0(%rsp); \
    movq %rsi, base+8(%rsp); \
    movq %rdx, base+16(%rsp); \
    movq %rcx, base+24(%rsp); \
    movq %r8, base+32(%rsp); \
    movq %r9, base+40(%rsp); \
    movaps %xmm0, base+48(%rsp); \
    movaps %xmm1, base+64(%rsp); \
    movaps %xmm2, base+80(%rsp); \
    movaps %xmm3, base+96(%rsp); \
    movaps %xmm4, base+112(%rsp); \
    movaps %xmm5, base+128(%rsp); \
    movaps %xmm6, base+144(%rsp); \
    movaps %xmm7, base+160(%rsp)
#define RESTORE_ARGS(base) \
    movq base+0(%rsp), %rdi; \
    movq base+8(%rsp), %rsi; \
    movq base+16(%rsp), %rdx; \
    movq base+24(%rsp), %rcx; \
    movq base+32(%rsp), %r8; \
    movq base+40(%rsp), %r9; \
    movaps base+48(%rsp), %xmm0; \
    movaps base+64(%rsp), %xmm1; \
    movaps base+80(%rsp), %xmm2; \
    movaps base+96(%rsp), %xmm3; \
    movaps base+112(%rsp), %xmm4; \
    movaps base+128(%rsp), %xmm5; \
    movaps base+144(%rsp), %xmm6; \
    movaps base+160(%rsp), %xmm7

/* The first call of any symbol: resolve every slot (gpu__cuda_resolve), then go where this one now points. */
    .p2align 4
    .type .Llazy_thunk, @function
.Llazy_thunk:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    subq $208, %rsp /* a struct gpu__cuda_frame; %rsp stays 16-aligned */
    SAVE_ARGS(0)
    movq %r11, %rdi
    call gpu__cuda_resolve
    movq %rax, %r11
    RESTORE_ARGS(0)
    leave
    .cfi_def_cfa %rsp, 8
    jmp *%r11
    .cfi_endproc
    .size .Llazy_thunk, . - .Llazy_thunk

/*
 * A traced call: time it around a call of the driver's export, with the
 * caller's first 16 stack words copied below, then keep its record.
 * Frame: 128 bytes of outgoing stack arguments, then struct gpu__cuda_frame.
 */
    .p2align 4
    .type .Ltraced_thunk, @function
.Ltraced_thunk:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    subq $336, %rsp
    SAVE_ARGS(128)
    movq %r11, 304(%rsp)      /* frame->slot */
    leaq 16(%rbp), %rax
    movq %rax, 328(%rsp)      /* frame->stack */
    leaq 128(%rsp), %rdi
    call gpu__cuda_trace_enter /* sets frame->target and frame->t0 */
    leaq 16(%rbp), %rsi
    movq %rsp, %rdi
    movl $16, %ecx            /* GPU__CUDA_STACK_WORDS */
    rep movsq
    RESTORE_ARGS(128)
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
