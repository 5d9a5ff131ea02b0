/* SPDX-License-Identifier: MIT */
/*
 * libgpushim-cuda.so, for x86-64: every symbol of cuda_symbols.h, exported
 * under its own name as one instruction, a jump through its slot here. The
 * arguments and the return address stay as the caller made them: the slot's
 * target returns straight to the caller.
 *
 * A slot starts at its lazy stub, which hands its index to the lazy thunk;
 * the thunk saves the argument registers and asks libgpushim to resolve
 * every slot (gpu__cuda_resolve, cuda_forward.c), then goes where its own
 * slot now points.
 */
#include "cuda_forward_x86_64.h"

    .data
    .p2align 6
.Lslots:
#define GPU__CUDA_SYMBOL(name, kinds, params) .Lslot_##name: .quad .Llazy_##name;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

/* The trampolines, packed: what every call runs. */
    .text
    .p2align 4
#define GPU__CUDA_SYMBOL(name, kinds, params) \
    .globl name; \
    .type name, @function; \
    .p2align 3; \
name: \
    .cfi_startproc; \
    jmp *.Lslot_##name(%rip); \
    .cfi_endproc; \
    .size name, . - name;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

/* The lazy stubs: what the first call of each runs. */
    .p2align 4
    .set .Lindex, 0
#define GPU__CUDA_SYMBOL(name, kinds, params) \
.Llazy_##name: \
    .cfi_startproc; \
    movl $.Lindex, %r11d; \
    jmp .Llazy_thunk; \
    .cfi_endproc; \
    .set .Lindex, .Lindex + 1;
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

    .p2align 4
    .type .Llazy_thunk, @function
.Llazy_thunk:
    GPU__THUNK_ENTER
    subq $176, %rsp /* the registers of a struct gpu__cuda_frame; %rsp stays 16-aligned */
    GPU__SAVE_ARGS(0)
    leaq .Lslots(%rip), %rdi
    movl %r11d, %esi
    call gpu__cuda_resolve@PLT
    movq %rax, %r11
    GPU__RESTORE_ARGS(0)
    leave
    .cfi_def_cfa %rsp, 8
    jmp *%r11
    .cfi_endproc
    .size .Llazy_thunk, . - .Llazy_thunk

/* What tells this library apart from a driver, and from a library that only links it (loader.c). */
    .section .rodata
    .globl gpu_cuda_forwarder
    .type gpu_cuda_forwarder, @object
gpu_cuda_forwarder:
    .asciz "libgpushim-cuda"
    .size gpu_cuda_forwarder, . - gpu_cuda_forwarder

    .section .note.GNU-stack, "", @progbits
