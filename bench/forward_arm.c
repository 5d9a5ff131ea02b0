/* SPDX-License-Identifier: MIT */
/*
 * One arm of bench/forward: the same loops of hot driver calls, made through
 * the PLT as any program linked with the driver makes them. Built three
 * times: linked with libnullcuda or with the toolkit's libcuda (the -lcuda
 * arms) and with libgpushim-cuda (the gpushim arm); bench/forward loads each
 * with dlopen(RTLD_LOCAL), so each binds to its own library.
 */
#include "cuda_abi.h"

#define ARM_API __attribute__((visibility("default")))

cuabi_result cuInit(unsigned int flags);
cuabi_result cuDeviceGet(cuabi_device *device, int ordinal);
cuabi_result cuDevicePrimaryCtxRetain(cuabi_context *ctx, cuabi_device dev);
cuabi_result cuCtxSetCurrent(cuabi_context ctx);
cuabi_result cuCtxGetCurrent(cuabi_context *ctx);
cuabi_result cuStreamCreate(cuabi_stream *stream, unsigned int flags);
cuabi_result cuStreamQuery(cuabi_stream stream);
cuabi_result cuEventCreate(cuabi_event *event, unsigned int flags);
cuabi_result cuEventRecord(cuabi_event event, cuabi_stream stream);
cuabi_result cuEventQuery(cuabi_event event);

ARM_API unsigned forward_arm_setup(cuabi_stream *stream, cuabi_event *event);
ARM_API unsigned forward_arm_ctx_get_current(unsigned n);
ARM_API unsigned forward_arm_stream_query(cuabi_stream stream, unsigned n);
ARM_API unsigned forward_arm_event_query(cuabi_event event, unsigned n);

/* A context current on this thread, a non-blocking stream and an event recorded on it. */
unsigned forward_arm_setup(cuabi_stream *stream, cuabi_event *event)
{
    cuabi_device dev;
    cuabi_context ctx;
    cuabi_result rc;

    if ((rc = cuInit(0)) || (rc = cuDeviceGet(&dev, 0)) || (rc = cuDevicePrimaryCtxRetain(&ctx, dev)) ||
        (rc = cuCtxSetCurrent(ctx)) || (rc = cuStreamCreate(stream, CUABI_STREAM_NON_BLOCKING)) ||
        (rc = cuEventCreate(event, CUABI_EVENT_DISABLE_TIMING)) || (rc = cuEventRecord(*event, *stream)))
        return rc;
    return 0;
}

/* Each loop returns the OR of its results: 0 when every call succeeded. */
unsigned forward_arm_ctx_get_current(unsigned n)
{
    unsigned bad = 0;
    cuabi_context ctx;

    for (unsigned i = 0; i < n; i++)
        bad |= cuCtxGetCurrent(&ctx);
    return bad;
}

unsigned forward_arm_stream_query(cuabi_stream stream, unsigned n)
{
    unsigned bad = 0;

    for (unsigned i = 0; i < n; i++)
        bad |= cuStreamQuery(stream);
    return bad;
}

unsigned forward_arm_event_query(cuabi_event event, unsigned n)
{
    unsigned bad = 0;

    for (unsigned i = 0; i < n; i++)
        bad |= cuEventQuery(event);
    return bad;
}
