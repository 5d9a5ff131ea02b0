/* SPDX-License-Identifier: MIT */
/*
 * Streams. A cudaStream_t is the driver's CUstream (driver_types.h declares
 * both as struct CUstream_st *); cudaStreamLegacy and cudaStreamPerThread are
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD.
 */
#include "runtime.h"

#include <stdint.h>
#include <stdlib.h>

CUstream gpu__cudart_stream(cudaStream_t stream, bool per_thread)
{
    if (!stream && per_thread)
        return CU_STREAM_PER_THREAD;
    return (CUstream)stream;
}

/* cudaStreamNonBlocking is CU_STREAM_NON_BLOCKING. */
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    CUstream s = NULL;
    cudaError_t e = gpu__cudart_context();

    if (!pStream)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamCreateWithPriority(&s, flags, priority));
    if (e == cudaSuccess)
        *pStream = (cudaStream_t)s;
    return gpu__cudart_set(e);
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
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = stream ? gpu__cudart_map(cuStreamDestroy((CUstream)stream)) : cudaErrorInvalidResourceHandle;
    return gpu__cudart_set(e);
}

cudaError_t gpu__cudart_stream_synchronize(CUstream stream)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamSynchronize(stream));
    return gpu__cudart_set(e);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return gpu__cudart_stream_synchronize(gpu__cudart_stream(stream, false));
}

/* cudaErrorNotReady is an answer, not an error: the last error keeps what it was. */
cudaError_t gpu__cudart_stream_query(CUstream stream)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamQuery(stream));
    return e == cudaErrorNotReady ? e : gpu__cudart_set(e);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return gpu__cudart_stream_query(gpu__cudart_stream(stream, false));
}

/* cudaEventWaitDefault and cudaEventWaitExternal are CU_EVENT_WAIT_DEFAULT and CU_EVENT_WAIT_EXTERNAL. */
cudaError_t gpu__cudart_stream_wait_event(CUstream stream, cudaEvent_t event, unsigned int flags)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamWaitEvent(stream, (CUevent)event, flags));
    return gpu__cudart_set(e);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    return gpu__cudart_stream_wait_event(gpu__cudart_stream(stream, false), event, flags);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamGetFlags(gpu__cudart_stream(hStream, false), flags));
    return gpu__cudart_set(e);
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamGetPriority(gpu__cudart_stream(hStream, false), priority));
    return gpu__cudart_set(e);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
    return gpu__cudart_set(e);
}

/* cudaHostFn_t is CUhostFn: the driver calls it as it is. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuLaunchHostFunc(gpu__cudart_stream(stream, false), fn, userData));
    return gpu__cudart_set(e);
}

/*
 * A cudaStreamAddCallback callback, called through cuStreamAddCallback: told
 * the stream as the client named it and the stream's status, the driver's
 * error mapped to the runtime's (cudaSuccess, or the fault its earlier work met).
 */
struct stream_callback {
    cudaStream_t stream;
    cudaStreamCallback_t fn;
    void *data;
};

static void CUDA_CB call_stream_callback(CUstream stream, CUresult status, void *p)
{
    struct stream_callback c = *(struct stream_callback *)p;

    (void)stream;
    free(p);
    c.fn(c.stream, gpu__cudart_map(status), c.data);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                  unsigned int flags)
{
    struct stream_callback *c;
    cudaError_t e = gpu__cudart_context();

    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    /* The documented flags are 0 only. */
    if (!callback || flags != 0)
        return gpu__cudart_set(cudaErrorInvalidValue);
    c = malloc(sizeof(*c));
    if (!c)
        return gpu__cudart_set(cudaErrorMemoryAllocation);
    *c = (struct stream_callback){stream, callback, userData};
    e = gpu__cudart_map(cuStreamAddCallback(gpu__cudart_stream(stream, false), call_stream_callback, c, 0));
    if (e != cudaSuccess)
        free(c);
    return gpu__cudart_set(e);
}

/* cudaMemAttachGlobal, Host and Single are CU_MEM_ATTACH_GLOBAL, HOST and SINGLE. */
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length, unsigned int flags)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamAttachMemAsync(gpu__cudart_stream(stream, false),
                                                   (CUdeviceptr)(uintptr_t)devPtr, length, flags));
    return gpu__cudart_set(e);
}

_Static_assert(sizeof(cudaStreamAttrValue) == sizeof(CUstreamAttrValue), "a stream attribute's value is the driver's");

/* cudaStreamAttrID's values are CUstreamAttrID's; the values, the driver's union. */
cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, const cudaStreamAttrValue *value)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamSetAttribute(gpu__cudart_stream(hStream, false), (CUstreamAttrID)attr,
                                                 (const CUstreamAttrValue *)(const void *)value));
    return gpu__cudart_set(e);
}

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamGetAttribute(gpu__cudart_stream(hStream, false), (CUstreamAttrID)attr,
                                                 (CUstreamAttrValue *)(void *)value_out));
    return gpu__cudart_set(e);
}
