/*
 * The fake driver's control API for memory and interop (issue 12): what a
 * test asks of libfakecuda about pools, managed memory and stream memory
 * operations, besides the entry points. Same rules as fake_control.h.
 *
 * How the fake plays them:
 *  - Stream-ordered allocation: cuMemAllocAsync allocates at once;
 *    cuMemFreeAsync is queued, and when it runs the bytes stay reserved by the
 *    device's one pool up to its release threshold (0 at start), beyond which
 *    they are released; cuMemPoolTrimTo releases down to what it keeps.
 *  - Managed memory lives at its host address, so the host reads and writes it
 *    directly; a prefetch is recorded at the call (fake_managed_location()).
 *  - IPC: a handle names its process. One of this process opens the very
 *    allocation (or event) again, counted live until closed (a real driver
 *    refuses that); one of a process that has exited is CUDA_ERROR_INVALID_VALUE,
 *    one of another live process CUDA_ERROR_NOT_SUPPORTED (the fake cannot
 *    share memory between processes).
 *  - A stream that waits on a value runs other streams' queued work until the
 *    value is met, or, with nothing else to run, waits for another thread
 *    (fake_poke(), fake_run(), a write from a stream it synchronises).
 *  - cuStreamCreateWithPriority clamps to the range [-5, 0] (greatest, least).
 */
#ifndef FAKE_INTEROP_H
#define FAKE_INTEROP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes the device's pool holds for reuse (reserved and not in use); -1 for no such device. */
long long fake_pool_cached(int device);

/* Where the managed allocation at `addr` was last prefetched: its device, -1 the host, -2 if not managed. */
int fake_managed_location(uint64_t addr);

/* The advice last given for the managed allocation at `addr` (0 for none, -1 if not managed). */
int fake_managed_advice(uint64_t addr);

#ifdef __cplusplus
}
#endif

#endif
