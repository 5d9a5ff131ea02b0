/* SPDX-License-Identifier: MIT */
/*
 * Graphs, further: updating an executable graph, a stream's
 * capture info, and DOT output.
 */
#include "object.h"

/* What CUgraphExecUpdateResult says, for the message of a refused update. */
static const char *update_reason(cuabi_graph_exec_update_result r)
{
    switch (r) {
    case CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED:
        return "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED: the graph's topology (nodes or edges) changed";
    case CUABI_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED:
        return "CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED: a node's type changed";
    case CUABI_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED:
        return "CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED: a kernel node's function changed";
    case CUABI_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED:
        return "CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED: a node's parameters changed in a way that cannot be "
               "updated";
    case CUABI_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED:
        return "CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED: a node cannot be updated";
    case CUABI_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE:
        return "CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE: a kernel node's function changed in a way "
               "that cannot be updated";
    case CUABI_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED:
        return "CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED: a node's attributes changed";
    default:
        return "CU_GRAPH_EXEC_UPDATE_ERROR: the update failed";
    }
}

gpu_status gpu_graph_exec_update(gpu_graph_exec *exec, gpu_graph *graph)
{
    cuabi_graph_exec_update_result_info info = {CUABI_GRAPH_EXEC_UPDATE_SUCCESS, NULL, NULL};
    struct gpu__call c;
    gpu_status st;

    GPU__NOT_NULL(exec, graph);
    if (exec->obj.ctx->cu != graph->obj.ctx->cu)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "the graph is device %d's, the executable graph device %d's",
                         graph->obj.ctx->ordinal, exec->obj.ctx->ordinal);
    if (!gpu__call_object(&c, exec->obj.ctx))
        return c.st;
    st = GPU__INVOKE_RAW(&c, cuGraphExecUpdate, exec->cu, graph->cu, &info);
    if (st == GPU_OK && c.rc == CUABI_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
        st = gpu__check_detail(c.rc, GPU_ERR_GRAPH_LAUNCH, "cuGraphExecUpdate", update_reason(info.result));
    else if (st == GPU_OK)
        st = GPU__RESULT(&c, cuGraphExecUpdate, GPU_ERR_GRAPH_LAUNCH);
    return gpu__call_end(&c, st);
}

gpu_status gpu_stream_capture_info(gpu_stream *stream, gpu_capture_status *status, uint64_t *id)
{
    cuabi_stream_capture_status s = CUABI_STREAM_CAPTURE_STATUS_NONE;
    cuabi_uint64 n = 0;
    struct gpu__call c;
    gpu_status st;

    GPU__NOT_NULL(status);
    if (!stream)
        return GPU__INVALID("the legacy default stream is never captured");
    st = GPU__OBJECT_CALL(&c, stream->obj.ctx, cuStreamGetCaptureInfo, GPU_ERR_GRAPH_CAPTURE, stream->cu, &s, &n,
                          NULL, NULL, NULL);
    if (st != GPU_OK)
        return st;
    *status = (gpu_capture_status)s;
    if (id)
        *id = s == CUABI_STREAM_CAPTURE_STATUS_NONE ? 0 : n;
    return GPU_OK;
}

gpu_status gpu_graph_write_dot(gpu_graph *graph, const char *path, bool verbose)
{
    struct gpu__call c;

    GPU__NOT_NULL(graph, path);
    return GPU__OBJECT_CALL(&c, graph->obj.ctx, cuGraphDebugDotPrint, GPU_ERR_DRIVER, graph->cu, path,
                            verbose ? CUABI_GRAPH_DEBUG_DOT_FLAGS_VERBOSE : 0u);
}
