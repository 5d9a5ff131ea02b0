/* SPDX-License-Identifier: MIT */
/*
 * Stream capture and graphs: a cudaGraph_t is the driver's CUgraph and a
 * cudaGraphExec_t its CUgraphExec; capture modes and statuses, and the
 * instantiation flags, have the driver's values. Work the runtime queues on
 * a capturing stream goes into its graph in the driver.
 */
#include "runtime.h"

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamBeginCapture(gpu__cudart_stream(stream, false), (CUstreamCaptureMode)mode));
    return gpu__cudart_set(e);
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    CUgraph graph = NULL;
    cudaError_t e = gpu__cudart_context();

    if (!pGraph)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamEndCapture(gpu__cudart_stream(stream, false), &graph));
    if (e == cudaSuccess)
        *pGraph = (cudaGraph_t)graph;
    return gpu__cudart_set(e);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cudaError_t e = gpu__cudart_context();

    if (!pCaptureStatus)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamIsCapturing(gpu__cudart_stream(stream, false), &status));
    if (e == cudaSuccess)
        *pCaptureStatus = (enum cudaStreamCaptureStatus)status;
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    CUgraph graph = NULL;
    cudaError_t e = gpu__cudart_context();

    if (!pGraph)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphCreate(&graph, flags));
    if (e == cudaSuccess)
        *pGraph = (cudaGraph_t)graph;
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags)
{
    CUgraphExec exec = NULL;
    cudaError_t e = gpu__cudart_context();

    if (!pGraphExec)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphInstantiateWithFlags(&exec, (CUgraph)graph, flags));
    if (e == cudaSuccess)
        *pGraphExec = (cudaGraphExec_t)exec;
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags)
{
    return cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphUpload((CUgraphExec)graphExec, gpu__cudart_stream(stream, false)));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphLaunch((CUgraphExec)graphExec, gpu__cudart_stream(stream, false)));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphExecDestroy((CUgraphExec)graphExec));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphDestroy((CUgraph)graph));
    return gpu__cudart_set(e);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    cudaError_t e = gpu__cudart_init();

    if (!mode)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuThreadExchangeStreamCaptureMode((CUstreamCaptureMode *)mode));
    return gpu__cudart_set(e);
}

_Static_assert(sizeof(cudaGraphEdgeData) == sizeof(CUgraphEdgeData), "a graph edge's data is the driver's");

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out, const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    cudaError_t e = gpu__cudart_context();

    if (!captureStatus_out)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuStreamGetCaptureInfo(gpu__cudart_stream(stream, false), &status, id_out ? &id : NULL,
                                                   (CUgraph *)graph_out, (const CUgraphNode **)dependencies_out,
                                                   (const CUgraphEdgeData **)edgeData_out, numDependencies_out));
    if (e == cudaSuccess)
        *captureStatus_out = (enum cudaStreamCaptureStatus)status;
    if (e == cudaSuccess && id_out)
        *id_out = id;
    return gpu__cudart_set(e);
}
