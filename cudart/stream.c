/* SPDX-License-Identifier: MIT */
/*
 * Streams. A cudaStream_t is the driver's CUstream (driver_types.h declares
 * both as struct CUstream_st *); cudaStreamLegacy and cudaStreamPerThread are
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD.
 */
#include "runtime.h"

CUstream cudart__stream(cudaStream_t stream, bool per_thread)
{
    if (!stream && per_thread)
        return CU_STREAM_PER_THREAD;
    return (CUstream)stream;
}

/* cudaStreamNonBlocking is CU_STREAM_NON_BLOCKING. */
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    CUstream s = NULL;
    cudaError_t e = cudart__context();

    if (!pStream)
        return cudart__set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = cudart__map(cuStreamCreateWithPriority(&s, flags, priority));
    if (e == cudaSuccess)
        *pStream = (cudaStream_t)s;
    return cudart__set(e);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    cudaError_t e = cudart__context();

    if (e == cudaSuccess)
        e = stream ? cudart__map(cuStreamDestroy((CUstream)stream)) : cudaErrorInvalidResourceHandle;
    return cudart__set(e);
}

cudaError_t cudart__stream_synchronize(CUstream stream)
{
    cudaError_t e = cudart__context();

    if (e == cudaSuccess)
        e = cudart__map(cuStreamSynchronize(stream));
    return cudart__set(e);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return cudart__stream_synchronize(cudart__stream(stream, false));
}

/* cudaErrorNotReady is an answer, not an error: the last error keeps what it was. */
cudaError_t cudart__stream_query(CUstream stream)
{
    cudaError_t e = cudart__context();

    if (e == cudaSuccess)
        e = cudart__map(cuStreamQuery(stream));
    return e == cudaErrorNotReady ? e : cudart__set(e);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return cudart__stream_query(cudart__stream(stream, false));
}

/* cudaEventWaitDefault and cudaEventWaitExternal are CU_EVENT_WAIT_DEFAULT and CU_EVENT_WAIT_EXTERNAL. */
cudaError_t cudart__stream_wait_event(CUstream stream, cudaEvent_t event, unsigned int flags)
{
    cudaError_t e = cudart__context();

    if (e == cudaSuccess)
        e = cudart__map(cuStreamWaitEvent(stream, (CUevent)event, flags));
    return cudart__set(e);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    return cudart__stream_wait_event(cudart__stream(stream, false), event, flags);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    cudaError_t e = cudart__context();

    if (e == cudaSuccess)
        e = cudart__map(cuStreamGetFlags(cudart__stream(hStream, false), flags));
    return cudart__set(e);
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    cudaError_t e = cudart__context();

    if (e == cudaSuccess)
        e = cudart__map(cuStreamGetPriority(cudart__stream(hStream, false), priority));
    return cudart__set(e);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    cudaError_t e = cudart__context();

    if (e == cudaSuccess)
        e = cudart__map(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
    return cudart__set(e);
}
