/* SPDX-License-Identifier: MIT */
/*
 * Contexts (fake_context.c): the current one, handles, peer access.
 */
#ifndef FAKE_CONTEXT_H
#define FAKE_CONTEXT_H

#include "fake_core.h"

/* The calling thread's current context, or NULL. */
struct fake_ctx *fake_current(void);

/* The current context, which must be active: else CUDA_ERROR_INVALID_CONTEXT. */
cuabi_result fake_need_ctx(struct fake_ctx **out);

/* The context a CUcontext handle is, if it is one and active; else NULL. */
struct fake_ctx *fake_ctx_from(cuabi_context handle);

/* Calls fn on every context's legacy stream: the primary ones, then the created ones alive. */
void fake_each_legacy(void (*fn)(struct fake_stream *, void *), void *arg);

/* Whether work of `ctx` may touch memory of device `device` (its own, or a peer enabled). */
bool fake_ctx_reaches(const struct fake_ctx *ctx, int device);

/* What calls on the context return instead of their work: its device's loss, its sticky error, else success. */
cuabi_result fake_ctx_error(const struct fake_ctx *ctx);

#endif
