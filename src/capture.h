/* SPDX-License-Identifier: MIT */
/*
 * The capture guard: gpushim's own global-mode captures on streams ordered
 * against the legacy stream, and the legacy-stream work they refuse
 * (capture.c says why). Below call.h: the call path reads the count when it
 * opens a call on the legacy stream, and brackets a synchronous legacy-stream
 * operation with gpu__legacy_enter() and gpu__legacy_leave().
 */
#ifndef GPUSHIM_CAPTURE_H
#define GPUSHIM_CAPTURE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "private.h"

/* The open global-mode captures on ordered streams that gpushim counted. */
extern atomic_uint gpu__ordered_captures;

/* GPU_ERR_GRAPH_CAPTURE with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, naming `func`: legacy-stream work refused. */
gpu_status gpu__legacy_refused(const char *func);

/*
 * Announces a synchronous legacy-stream operation of `func` before it calls
 * the driver: GPU_OK, and gpu__legacy_leave() once the driver has answered;
 * or its refusal while a counted capture is open (nothing to leave then).
 * A capture that begins meanwhile waits for the operation to leave.
 */
gpu_status gpu__legacy_enter(const char *func);

/* Ends what gpu__legacy_enter() announced; returns `st`, the operation's status. */
gpu_status gpu__legacy_leave(gpu_status st);

/*
 * A capture of `stream` in `mode` is about to begin: a global one of a stream
 * ordered against the legacy stream is counted (true), once the legacy-stream
 * work in flight has left the driver. gpu__capture_guard_close() when one
 * counted did not begin, or when the capture has ended.
 */
bool gpu__capture_guard_open(gpu_stream *stream, int mode);
void gpu__capture_guard_close(gpu_stream *stream);

#endif
