/* SPDX-License-Identifier: MIT */
/*
 * Stream capture and graphs: a cudaGraph_t is the driver's CUgraph and a
 * cudaGraphExec_t its CUgraphExec; capture modes and statuses, and the
 * instantiation flags, have the driver's values. Work the runtime queues on
 * a capturing stream goes into its graph in the driver.
 */
#include <stdint.h>
#include <string.h>

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

/* ---- Graphs built by hand: the driver's nodes, the runtime's parameters translated ---- */

/* A kernel node's parameters: the host function's registered kernel, the current context's to the driver. */
static cudaError_t kernel_params(const struct cudaKernelNodeParams *p, CUDA_KERNEL_NODE_PARAMS *out)
{
    struct cudart_function *fn = p ? gpu__cudart_function_of(p->func) : NULL;
    CUkernel kernel = NULL;
    cudaError_t e;

    if (!p)
        return cudaErrorInvalidValue;
    if (!fn)
        return cudaErrorInvalidDeviceFunction;
    e = gpu__cudart_function_kernel(fn, &kernel);
    if (e != cudaSuccess)
        return e;
    memset(out, 0, sizeof(*out));
    out->kern = kernel;
    out->gridDimX = p->gridDim.x;
    out->gridDimY = p->gridDim.y;
    out->gridDimZ = p->gridDim.z;
    out->blockDimX = p->blockDim.x;
    out->blockDimY = p->blockDim.y;
    out->blockDimZ = p->blockDim.z;
    out->sharedMemBytes = p->sharedMemBytes;
    out->kernelParams = p->kernelParams;
    out->extra = p->extra;
    return cudaSuccess;
}

static CUDA_MEMSET_NODE_PARAMS memset_params(const struct cudaMemsetParams *p)
{
    CUDA_MEMSET_NODE_PARAMS m = {(CUdeviceptr)(uintptr_t)p->dst, p->pitch, p->value, p->elementSize, p->width,
                                 p->height};

    return m;
}

/* The driver's node handed out as the runtime's. */
static cudaError_t node_out(CUresult r, const CUgraphNode *node, cudaGraphNode_t *out)
{
    cudaError_t e = gpu__cudart_map(r);

    if (e == cudaSuccess)
        *out = (cudaGraphNode_t)*node; /* read after the call that wrote it */
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams)
{
    CUDA_KERNEL_NODE_PARAMS k;
    CUgraphNode node = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pGraphNode)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = kernel_params(pNodeParams, &k);
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return node_out(cuGraphAddKernelNode(&node, (CUgraph)graph, (const CUgraphNode *)pDependencies,
                                         numDependencies, &k),
                    &node, pGraphNode);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams)
{
    CUDA_KERNEL_NODE_PARAMS k;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = kernel_params(pNodeParams, &k);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphExecKernelNodeSetParams((CUgraphExec)hGraphExec, (CUgraphNode)node, &k));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams)
{
    CUDA_KERNEL_NODE_PARAMS k;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = kernel_params(pNodeParams, &k);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphKernelNodeSetParams((CUgraphNode)node, &k));
    return gpu__cudart_set(e);
}

/* A 3D copy's parameters as the driver's, in the current context. */
static cudaError_t copy_params(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *c, CUcontext *ctx)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_copy_3d_params(p, c);
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxGetCurrent(ctx));
    return e;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies, const struct cudaMemcpy3DParms *pCopyParams)
{
    CUDA_MEMCPY3D c;
    CUcontext ctx = NULL;
    CUgraphNode node = NULL;
    cudaError_t e = pGraphNode ? copy_params(pCopyParams, &c, &ctx) : cudaErrorInvalidValue;

    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return node_out(cuGraphAddMemcpyNode(&node, (CUgraph)graph, (const CUgraphNode *)pDependencies, numDependencies,
                                         &c, ctx),
                    &node, pGraphNode);
}

/* A linear copy of `count` bytes as a 3D copy of one row. */
static struct cudaMemcpy3DParms linear(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;

    memset(&p, 0, sizeof(p));
    p.srcPtr.ptr = (void *)(uintptr_t)src;
    p.dstPtr.ptr = dst;
    p.srcPtr.pitch = p.srcPtr.xsize = p.dstPtr.pitch = p.dstPtr.xsize = count;
    p.srcPtr.ysize = p.dstPtr.ysize = 1;
    p.extent.width = count;
    p.extent.height = p.extent.depth = 1;
    p.kind = kind;
    return p;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                     const void *src, size_t count, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p = linear(dst, src, count, kind);

    return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &p);
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams)
{
    CUDA_MEMCPY3D c;
    CUcontext ctx = NULL;
    cudaError_t e = copy_params(pNodeParams, &c, &ctx);

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphMemcpyNodeSetParams((CUgraphNode)node, &c));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms *pNodeParams)
{
    CUDA_MEMCPY3D c;
    CUcontext ctx = NULL;
    cudaError_t e = copy_params(pNodeParams, &c, &ctx);

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphExecMemcpyNodeSetParams((CUgraphExec)hGraphExec, (CUgraphNode)node, &c, ctx));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst,
                                               const void *src, size_t count, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p = linear(dst, src, count, kind);

    return cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, &p);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies, const struct cudaMemsetParams *pMemsetParams)
{
    CUDA_MEMSET_NODE_PARAMS m;
    CUcontext ctx = NULL;
    CUgraphNode node = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && (!pGraphNode || !pMemsetParams))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxGetCurrent(&ctx));
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    m = memset_params(pMemsetParams);
    return node_out(cuGraphAddMemsetNode(&node, (CUgraph)graph, (const CUgraphNode *)pDependencies, numDependencies,
                                         &m, ctx),
                    &node, pGraphNode);
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams)
{
    CUDA_MEMSET_NODE_PARAMS m;
    CUcontext ctx = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pNodeParams)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuCtxGetCurrent(&ctx));
    if (e == cudaSuccess) {
        m = memset_params(pNodeParams);
        e = gpu__cudart_map(cuGraphExecMemsetNodeSetParams((CUgraphExec)hGraphExec, (CUgraphNode)node, &m, ctx));
    }
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                 size_t numDependencies, const struct cudaHostNodeParams *pNodeParams)
{
    CUDA_HOST_NODE_PARAMS h;
    CUgraphNode node = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && (!pGraphNode || !pNodeParams))
        e = cudaErrorInvalidValue;
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    h.fn = pNodeParams->fn;
    h.userData = pNodeParams->userData;
    return node_out(cuGraphAddHostNode(&node, (CUgraph)graph, (const CUgraphNode *)pDependencies, numDependencies, &h),
                    &node, pGraphNode);
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams *pNodeParams)
{
    CUDA_HOST_NODE_PARAMS h;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pNodeParams)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        h.fn = pNodeParams->fn;
        h.userData = pNodeParams->userData;
        e = gpu__cudart_map(cuGraphExecHostNodeSetParams((CUgraphExec)hGraphExec, (CUgraphNode)node, &h));
    }
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph)
{
    CUgraphNode node = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pGraphNode)
        e = cudaErrorInvalidValue;
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return node_out(cuGraphAddChildGraphNode(&node, (CUgraph)graph, (const CUgraphNode *)pDependencies,
                                             numDependencies, (CUgraph)childGraph),
                    &node, pGraphNode);
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                 cudaGraph_t childGraph)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphExecChildGraphNodeSetParams((CUgraphExec)hGraphExec, (CUgraphNode)node,
                                                               (CUgraph)childGraph));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                                  size_t numDependencies)
{
    CUgraphNode node = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pGraphNode)
        e = cudaErrorInvalidValue;
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return node_out(cuGraphAddEmptyNode(&node, (CUgraph)graph, (const CUgraphNode *)pDependencies, numDependencies),
                    &node, pGraphNode);
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaEvent_t event)
{
    CUgraphNode node = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pGraphNode)
        e = cudaErrorInvalidValue;
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return node_out(cuGraphAddEventRecordNode(&node, (CUgraph)graph, (const CUgraphNode *)pDependencies,
                                              numDependencies, (CUevent)event),
                    &node, pGraphNode);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaEvent_t event)
{
    CUgraphNode node = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pGraphNode)
        e = cudaErrorInvalidValue;
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return node_out(cuGraphAddEventWaitNode(&node, (CUgraph)graph, (const CUgraphNode *)pDependencies,
                                            numDependencies, (CUevent)event),
                    &node, pGraphNode);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *edgeData, size_t numDependencies)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphAddDependencies((CUgraph)graph, (const CUgraphNode *)from, (const CUgraphNode *)to,
                                                   (const CUgraphEdgeData *)edgeData, numDependencies));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *edgeData, size_t numDependencies)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphRemoveDependencies((CUgraph)graph, (const CUgraphNode *)from,
                                                      (const CUgraphNode *)to, (const CUgraphEdgeData *)edgeData,
                                                      numDependencies));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphGetNodes((CUgraph)graph, (CUgraphNode *)nodes, numNodes));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphGetRootNodes((CUgraph)graph, (CUgraphNode *)pRootNodes, pNumRootNodes));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphGetEdges((CUgraph)graph, (CUgraphNode *)from, (CUgraphNode *)to,
                                            (CUgraphEdgeData *)edgeData, numEdges));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pType)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphNodeGetType((CUgraphNode)node, &type));
    if (e == cudaSuccess)
        *pType = (enum cudaGraphNodeType)type;
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphDestroyNode((CUgraphNode)node));
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    CUgraph clone = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pGraphClone)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = gpu__cudart_map(cuGraphClone(&clone, (CUgraph)originalGraph));
    if (e == cudaSuccess)
        *pGraphClone = (cudaGraph_t)clone;
    return gpu__cudart_set(e);
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode, cudaGraph_t clonedGraph)
{
    CUgraphNode node = NULL;
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !pNode)
        e = cudaErrorInvalidValue;
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return node_out(cuGraphNodeFindInClone(&node, (CUgraphNode)originalNode, (CUgraph)clonedGraph), &node, pNode);
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    CUgraphExecUpdateResultInfo info = {0};
    cudaError_t e = gpu__cudart_context();

    if (e == cudaSuccess && !resultInfo)
        e = cudaErrorInvalidValue;
    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    e = gpu__cudart_map(cuGraphExecUpdate((CUgraphExec)hGraphExec, (CUgraph)hGraph, &info));
    resultInfo->result = (enum cudaGraphExecUpdateResult)info.result;
    resultInfo->errorNode = (cudaGraphNode_t)info.errorNode;
    resultInfo->errorFromNode = (cudaGraphNode_t)info.errorFromNode;
    return gpu__cudart_set(e);
}
