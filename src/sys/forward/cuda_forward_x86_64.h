/* SPDX-License-Identifier: MIT */
/*
 * What the forwarders' thunks share on x86-64 (System V): the argument
 * registers into a struct gpu__cuda_frame at `base`(%rsp) and back
 * (cuda_forward.h has the layout; %rsp+base+48 must be 16-aligned).
 * Included by cuda_forward_x86_64.S and cuda_exports_x86_64.S only.
 */
#define GPU__SAVE_ARGS(base) \
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

#define GPU__RESTORE_ARGS(base) \
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

/* A frame pointer for the thunk: unwinders walk through it. */
#define GPU__THUNK_ENTER \
    .cfi_startproc; \
    pushq %rbp; \
    .cfi_def_cfa_offset 16; \
    .cfi_offset %rbp, -16; \
    movq %rsp, %rbp; \
    .cfi_def_cfa_register %rbp
