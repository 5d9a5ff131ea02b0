/*
 * libgpushim-cuda.so, for x86-64: every symbol of cuda_symbols.h, exported
 * under its own name as a trampoline that jumps through its slot in
 * libgpushim.so's gpu_cuda_slots (cuda_forward.h). Arguments and the return
 * address are left as the caller made them: the slot's target returns
 * straight to the caller.
 */
    .text
    .set .Lindex, 0
#define GPU__CUDA_SYMBOL(name, kinds, params) \
    .globl name; \
    .type name, @function; \
    .p2align 4; \
name: \
    .cfi_startproc; \
    movq gpu_cuda_slots@GOTPCREL(%rip), %r11; \
    jmp *(.Lindex * 8)(%r11); \
    .cfi_endproc; \
    .size name, . - name; \
    .set .Lindex, .Lindex + 1;
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

/* What tells this library apart from a driver, and from a library that only links it (loader.c). */
    .section .rodata
    .globl gpu_cuda_forwarder
    .type gpu_cuda_forwarder, @object
gpu_cuda_forwarder:
    .asciz "libgpushim-cuda"
    .size gpu_cuda_forwarder, . - gpu_cuda_forwarder

    .section .note.GNU-stack, "", @progbits
