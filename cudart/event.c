/* SPDX-License-Identifier: MIT */
/*
 * Events. A cudaEvent_t is the driver's CUevent (driver_types.h declares both
 * as struct CUevent_st *); cudaEventBlockingSync, DisableTiming and
 * Interprocess are CU_EVENT_BLOCKING_SYNC, DISABLE_TIMING and INTERPROCESS.
 */
#include "runtime.h"

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    CUevent ev = NULL;
    cudaError_t e = gpu__cudart_context();

    if (!event)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuEventCreate(&ev, flags));
    if (e == cudaSuccess)
        *event = (cudaEvent_t)ev;
    return gpu__cudart_set(e);
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t gpu__cudart_event_record(cudaEvent_t event, CUstream stream)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuEventRecord((CUevent)event, stream));
    return gpu__cudart_set(e);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return gpu__cudart_event_record(event, gpu__cudart_stream(stream, false));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuEventSynchronize((CUevent)event));
    return gpu__cudart_set(e);
}

/* cudaErrorNotReady is an answer, not an error: the last error keeps what it was. */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuEventQuery((CUevent)event));
    return e == cudaErrorNotReady ? e : gpu__cudart_set(e);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuEventElapsedTime(ms, (CUevent)start, (CUevent)end));
    return e == cudaErrorNotReady ? e : gpu__cudart_set(e);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuEventDestroy((CUevent)event));
    return gpu__cudart_set(e);
}

/* cudaEventRecordDefault and cudaEventRecordExternal are CU_EVENT_RECORD_DEFAULT and CU_EVENT_RECORD_EXTERNAL. */
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuEventRecordWithFlags((CUevent)event, gpu__cudart_stream(stream, false), flags));
    return gpu__cudart_set(e);
}
