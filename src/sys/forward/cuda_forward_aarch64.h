/* SPDX-License-Identifier: MIT */
/*
 * What the forwarders' thunks share on AArch64 (AAPCS64): the argument
 * registers x0 to x8 and q0 to q7 into a struct gpu__cuda_frame at
 * `base`(sp) and back (cuda_forward.h has the layout; sp+base must be
 * 16-aligned). Included by cuda_forward_aarch64.S and cuda_exports_aarch64.S only.
 */
#define GPU__SAVE_ARGS(base) \
    stp x0, x1, [sp, #(base + 0)]; \
    stp x2, x3, [sp, #(base + 16)]; \
    stp x4, x5, [sp, #(base + 32)]; \
    stp x6, x7, [sp, #(base + 48)]; \
    str x8, [sp, #(base + 64)]; \
    stp q0, q1, [sp, #(base + 80)]; \
    stp q2, q3, [sp, #(base + 112)]; \
    stp q4, q5, [sp, #(base + 144)]; \
    stp q6, q7, [sp, #(base + 176)]

#define GPU__RESTORE_ARGS(base) \
    ldp x0, x1, [sp, #(base + 0)]; \
    ldp x2, x3, [sp, #(base + 16)]; \
    ldp x4, x5, [sp, #(base + 32)]; \
    ldp x6, x7, [sp, #(base + 48)]; \
    ldr x8, [sp, #(base + 64)]; \
    ldp q0, q1, [sp, #(base + 80)]; \
    ldp q2, q3, [sp, #(base + 112)]; \
    ldp q4, q5, [sp, #(base + 144)]; \
    ldp q6, q7, [sp, #(base + 176)]

/* A frame of `size` bytes with the frame record (x29, x30) at its top: unwinders walk through it. */
#define GPU__THUNK_ENTER(size) \
    .cfi_startproc; \
    sub sp, sp, #(size); \
    .cfi_def_cfa_offset size; \
    stp x29, x30, [sp, #(size - 16)]; \
    .cfi_offset x29, -16; \
    .cfi_offset x30, -8; \
    add x29, sp, #(size - 16)

#define GPU__THUNK_LEAVE(size) \
    ldp x29, x30, [sp, #(size - 16)]; \
    add sp, sp, #(size); \
    .cfi_def_cfa_offset 0
