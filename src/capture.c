/* SPDX-License-Identifier: MIT */
/*
 * The capture guard (capture.h): counts gpushim's own global-mode captures on
 * ordered streams, and refuses legacy-stream work while one is open.
 */
#include <sched.h>

#include "capture.h"
#include "hints.h"

/*
 * gpushim's own global-mode captures on ordered streams, and the legacy
 * stream. While a capture is open on a stream ordered against the legacy
 * stream (GPU_STREAM_DEFAULT), the driver answers every legacy-stream
 * operation with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (906) and invalidates the
 * capture; with a copier thread's synchronous copies, the H200's driver
 * (580.159.04) died inside cuMemcpyHtoD_v2 doing so, about twice in a hundred
 * runs (docs/results.md, "Stream capture beside legacy copies"). gpushim
 * knows every capture it opened, so it gives such an operation the driver's
 * own answer, GPU_ERR_GRAPH_CAPTURE with 906, without calling the driver: the
 * capture goes on, and the driver's failing path is never reached.
 *
 * The two sides meet Dekker's way, with sequentially consistent atomics: a
 * synchronous legacy-stream operation announces itself (legacy_in_flight)
 * before it reads the count of captures, and a capture counts itself before
 * it waits for the announced operations to leave. So either the operation
 * sees the capture and is refused, or the capture waits for it: none is in
 * the driver once the capture begins. The cost to such an operation is two
 * atomic adds; the stream-ordered hot calls are untouched.
 */
atomic_uint gpu__ordered_captures;
static atomic_uint legacy_in_flight;

gpu_status gpu__legacy_refused(const char *func)
{
    return gpu__fail(GPU_ERR_GRAPH_CAPTURE, (int)CUABI_ERROR_STREAM_CAPTURE_IMPLICIT,
                     "%s: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (906): a global-mode capture on a stream ordered against "
                     "the legacy stream is open, so this legacy-stream operation was refused without calling the "
                     "driver (the capture goes on); capture on a gpu_stream_create_non_blocking() stream",
                     func);
}

gpu_status gpu__legacy_enter(const char *func)
{
    atomic_fetch_add(&legacy_in_flight, 1);
    if (GPU__EXPECT(atomic_load(&gpu__ordered_captures) == 0, 1))
        return GPU_OK;
    atomic_fetch_sub(&legacy_in_flight, 1);
    return gpu__legacy_refused(func);
}

gpu_status gpu__legacy_leave(gpu_status st)
{
    atomic_fetch_sub(&legacy_in_flight, 1);
    return st;
}

bool gpu__capture_guard_open(gpu_stream *stream, int mode)
{
    if (mode != GPU_CAPTURE_MODE_GLOBAL || (stream->flags & GPU_STREAM_NON_BLOCKING) || stream->guarded)
        return false;
    stream->guarded = true;
    atomic_fetch_add(&gpu__ordered_captures, 1);
    /* The synchronous legacy-stream work that read no capture yet finishes in the driver first. */
    while (atomic_load(&legacy_in_flight) != 0)
        sched_yield();
    return true;
}

void gpu__capture_guard_close(gpu_stream *stream)
{
    if (!stream->guarded)
        return;
    stream->guarded = false;
    atomic_fetch_sub(&gpu__ordered_captures, 1);
}
