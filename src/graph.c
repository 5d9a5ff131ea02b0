/* SPDX-License-Identifier: MIT */
/*
 * Stream capture and graphs: capture, instantiation, an executable
 * graph's launch, upload and update on a stream, a stream's capture info,
 * and DOT output.
 */
#include "object.h"

static GPU__RELEASE(graph_release, gpu_graph, cuGraphDestroy, cu)
static GPU__RELEASE(exec_release, gpu_graph_exec, cuGraphExecDestroy, cu)

static const struct gpu__kind graph_kind = GPU__KIND(cuStreamEndCapture, cuGraphDestroy, graph_release, NULL);
static const struct gpu__kind exec_kind =
    GPU__KIND(cuGraphInstantiateWithFlags, cuGraphExecDestroy, exec_release, NULL);

/* Capture needs a real stream: the legacy one cannot be captured. */
#define CAPTURED(stream) \
    ((stream) ? GPU_OK \
              : gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: the legacy default stream cannot be captured", __func__))

gpu_status gpu_stream_begin_capture(gpu_stream *stream, gpu_capture_mode mode)
{
    struct gpu__call c;
    gpu_status st;
    bool counted;

    if (mode != GPU_CAPTURE_MODE_GLOBAL && mode != GPU_CAPTURE_MODE_THREAD_LOCAL && mode != GPU_CAPTURE_MODE_RELAXED)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "unknown mode %d", (int)mode);
    st = CAPTURED(stream);
    if (st != GPU_OK)
        return st;
    /* Counted before the driver begins it: from then on, legacy-stream work is refused (capture.c). */
    counted = gpu__capture_guard_open(stream, (int)mode);
    st = GPU__OBJECT_CALL(&c, stream->obj.ctx, cuStreamBeginCapture, GPU_ERR_GRAPH_CAPTURE, stream->cu,
                          (cuabi_stream_capture_mode)mode);
    if (st != GPU_OK && counted)
        gpu__capture_guard_close(stream);
    return st;
}

gpu_status gpu_stream_end_capture(gpu_stream *stream, gpu_graph **out)
{
    struct gpu__call c;
    gpu_graph *g;
    gpu_status st;

    GPU__NOT_NULL(out);
    st = CAPTURED(stream);
    if (st != GPU_OK)
        return st;
    g = gpu__object_new(&c, stream->obj.ctx, &graph_kind, sizeof(*g), __func__);
    if (!g)
        return c.st;
    /* Ends the capture whatever happens next, so a failure below leaves the stream usable. */
    st = GPU__INVOKE(&c, cuStreamEndCapture, GPU_ERR_GRAPH_CAPTURE, stream->cu, &g->cu);
    gpu__capture_guard_close(stream);
    if (st == GPU_OK && !g->cu)
        st = GPU__FAIL(GPU_ERR_GRAPH_CAPTURE, "%s", "cuStreamEndCapture returned no graph");
    return gpu__object_finish(&c, &g->obj, st, (void **)out);
}

gpu_status gpu_stream_is_capturing(gpu_stream *stream, bool *capturing)
{
    cuabi_stream_capture_status status = CUABI_STREAM_CAPTURE_STATUS_NONE;
    struct gpu__call c;
    gpu_status st;

    GPU__NOT_NULL(capturing);
    if (!stream) {
        /* The legacy stream is never captured. */
        st = gpu__driver_get(&c.drv);
        if (st == GPU_OK)
            *capturing = false;
        return st;
    }
    st = GPU__OBJECT_CALL(&c, stream->obj.ctx, cuStreamIsCapturing, GPU_ERR_GRAPH_CAPTURE, stream->cu, &status);
    if (st != GPU_OK)
        return st;
    if (status == CUABI_STREAM_CAPTURE_STATUS_INVALIDATED)
        return gpu__fail(GPU_ERR_GRAPH_CAPTURE, (int)CUABI_ERROR_STREAM_CAPTURE_INVALIDATED,
                         "%s: the capture was invalidated; end it with gpu_stream_end_capture()", __func__);
    *capturing = status == CUABI_STREAM_CAPTURE_STATUS_ACTIVE;
    return GPU_OK;
}

gpu_status gpu_graph_instantiate(gpu_graph *graph, gpu_graph_exec **out)
{
    struct gpu__call c;
    gpu_graph_exec *x;

    GPU__NOT_NULL(graph, out);
    x = gpu__object_new(&c, graph->obj.ctx, &exec_kind, sizeof(*x), __func__);
    return GPU__OBJECT_MAKE(&c, x, out, cuGraphInstantiateWithFlags, GPU_ERR_GRAPH_LAUNCH, &x->cu, graph->cu, 0);
}

/* `exec` launched (`upload` false) or uploaded on `stream`, which must be of its device; `func` names the caller. */
static gpu_status exec_on_stream(gpu_graph_exec *exec, gpu_stream *stream, bool upload, const char *func)
{
    struct gpu__call c;

    if (!exec)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: exec is NULL", func);
    if (!gpu__call_stream_for(&c, stream, exec->obj.ctx, func, "the graph", NULL))
        return c.st;
    if (upload)
        return GPU__INVOKE_END(&c, cuGraphUpload, GPU_ERR_GRAPH_LAUNCH, exec->cu, c.stream);
    return GPU__INVOKE_END(&c, cuGraphLaunch, GPU_ERR_GRAPH_LAUNCH, exec->cu, c.stream);
}

gpu_status gpu_stream_launch_graph(gpu_stream *stream, gpu_graph_exec *exec)
{
    return exec_on_stream(exec, stream, false, __func__);
}

gpu_status gpu_graph_exec_upload(gpu_graph_exec *exec, gpu_stream *stream)
{
    return exec_on_stream(exec, stream, true, __func__);
}

void gpu_graph_destroy(gpu_graph *graph)
{
    gpu__object_destroy(graph ? &graph->obj : NULL);
}

void gpu_graph_exec_destroy(gpu_graph_exec *exec)
{
    gpu__object_destroy(exec ? &exec->obj : NULL);
}

/* ---- Updating an executable graph, a stream's capture info, DOT output ---- */

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

gpu_status gpu_stream_get_capture_info(gpu_stream *stream, gpu_capture_status *status, uint64_t *id)
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
