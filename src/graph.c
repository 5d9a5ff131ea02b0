/*
 * Stream capture and graphs.
 */
#include <stdlib.h>

#include "private.h"

/* The stream's driver with its context current; capture needs a real stream. */
static gpu_status capture_enter(gpu_stream *stream, const char *func, const struct gpu__driver **drv,
                                struct gpu__ctx_scope *scope)
{
    if (!stream)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: the legacy default stream cannot be captured", func);
    return gpu__object_enter(stream->ctx, drv, scope);
}

gpu_status gpu_stream_begin_capture(gpu_stream *stream, gpu_capture_mode mode)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    gpu_status st;

    if (mode != GPU_CAPTURE_MODE_GLOBAL && mode != GPU_CAPTURE_MODE_THREAD_LOCAL && mode != GPU_CAPTURE_MODE_RELAXED)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_stream_begin_capture: unknown mode %d", (int)mode);
    st = capture_enter(stream, "gpu_stream_begin_capture", &drv, &scope);
    if (st != GPU_OK)
        return st;
    if (drv->cuStreamBeginCapture)
        st = GPU__CALL(drv, cuStreamBeginCapture, GPU_ERR_GRAPH_CAPTURE, stream->cu, (cuabi_stream_capture_mode)mode);
    else
        st = gpu__unsupported("cuStreamBeginCapture");
    gpu__context_leave(&scope);
    return st;
}

gpu_status gpu_stream_end_capture(gpu_stream *stream, gpu_graph **out)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    cuabi_graph cu = NULL;
    gpu_graph *g;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_stream_end_capture", "out is NULL");
    st = capture_enter(stream, "gpu_stream_end_capture", &drv, &scope);
    if (st != GPU_OK)
        return st;
    if (!drv->cuStreamEndCapture || !drv->cuGraphDestroy) {
        gpu__context_leave(&scope);
        return gpu__unsupported(drv->cuStreamEndCapture ? "cuGraphDestroy" : "cuStreamEndCapture");
    }
    /* Ends the capture whatever happens next, so a failure below leaves the stream usable. */
    st = GPU__CALL(drv, cuStreamEndCapture, GPU_ERR_GRAPH_CAPTURE, stream->cu, &cu);
    if (st == GPU_OK && !cu)
        st = gpu__fail(GPU_ERR_GRAPH_CAPTURE, 0, "cuStreamEndCapture: the driver returned no graph");
    if (st == GPU_OK && !(g = calloc(1, sizeof(*g)))) {
        drv->cuGraphDestroy(cu);
        st = gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_stream_end_capture: out of host memory");
    }
    gpu__context_leave(&scope);
    if (st != GPU_OK)
        return st;
    gpu__context_ref(stream->ctx);
    g->ctx = stream->ctx;
    g->cu = cu;
    *out = g;
    return GPU_OK;
}

gpu_status gpu_stream_is_capturing(gpu_stream *stream, bool *capturing)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    cuabi_stream_capture_status status = CUABI_STREAM_CAPTURE_STATUS_NONE;
    gpu_status st;

    if (!capturing)
        return GPU__INVALID("gpu_stream_is_capturing", "capturing is NULL");
    if (!stream) {
        /* The legacy stream is never captured. */
        st = gpu__driver_get(&drv);
        if (st == GPU_OK)
            *capturing = false;
        return st;
    }
    st = capture_enter(stream, "gpu_stream_is_capturing", &drv, &scope);
    if (st != GPU_OK)
        return st;
    if (drv->cuStreamIsCapturing)
        st = GPU__CALL(drv, cuStreamIsCapturing, GPU_ERR_GRAPH_CAPTURE, stream->cu, &status);
    else
        st = gpu__unsupported("cuStreamIsCapturing");
    gpu__context_leave(&scope);
    if (st != GPU_OK)
        return st;
    if (status == CUABI_STREAM_CAPTURE_STATUS_INVALIDATED)
        return gpu__fail(GPU_ERR_GRAPH_CAPTURE, (int)CUABI_ERROR_STREAM_CAPTURE_INVALIDATED,
                         "gpu_stream_is_capturing: the capture was invalidated; end it with gpu_stream_end_capture()");
    *capturing = status == CUABI_STREAM_CAPTURE_STATUS_ACTIVE;
    return GPU_OK;
}

gpu_status gpu_graph_instantiate(gpu_graph *graph, gpu_graph_exec **out)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    cuabi_graph_exec cu = NULL;
    gpu_graph_exec *x;
    gpu_status st;

    if (!graph || !out)
        return GPU__INVALID("gpu_graph_instantiate", graph ? "out is NULL" : "graph is NULL");
    st = gpu__driver_get(&drv);
    if (st != GPU_OK)
        return st;
    if (!drv->cuGraphInstantiateWithFlags || !drv->cuGraphExecDestroy)
        return gpu__unsupported(drv->cuGraphInstantiateWithFlags ? "cuGraphExecDestroy" : "cuGraphInstantiateWithFlags");
    x = calloc(1, sizeof(*x));
    if (!x)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_graph_instantiate: out of host memory");
    st = gpu__context_enter(drv, graph->ctx, &scope);
    if (st == GPU_OK) {
        st = GPU__CALL(drv, cuGraphInstantiateWithFlags, GPU_ERR_GRAPH_LAUNCH, &cu, graph->cu, 0);
        gpu__context_leave(&scope);
    }
    if (st != GPU_OK) {
        free(x);
        return st;
    }
    gpu__context_ref(graph->ctx);
    x->ctx = graph->ctx;
    x->cu = cu;
    *out = x;
    return GPU_OK;
}

gpu_status gpu_stream_launch_graph(gpu_stream *stream, gpu_graph_exec *exec)
{
    struct gpu__call c;
    cuabi_result rc;
    gpu_status st;

    if (!exec)
        return GPU__INVALID("gpu_stream_launch_graph", "exec is NULL");
    st = gpu__call_stream(stream, true, &c);
    if (st != GPU_OK)
        return st;
    if (!c.drv->cuGraphLaunch) {
        gpu__call_end(&c);
        return gpu__unsupported("cuGraphLaunch");
    }
    do
        rc = c.drv->cuGraphLaunch(exec->cu, c.stream);
    while (gpu__call_retry(&c, rc, &st));
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_GRAPH_LAUNCH, "cuGraphLaunch");
}

/* Graphs exist only where the destroy entry points do: gpu_stream_end_capture() checks. */
void gpu_graph_destroy(gpu_graph *graph)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;

    if (!graph)
        return;
    if (gpu__release_enter(graph->ctx, &drv, &scope)) {
        drv->cuGraphDestroy(graph->cu);
        gpu__context_leave(&scope);
    }
    gpu__context_unref(graph->ctx);
    free(graph);
}

void gpu_graph_exec_destroy(gpu_graph_exec *exec)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;

    if (!exec)
        return;
    if (gpu__release_enter(exec->ctx, &drv, &scope)) {
        drv->cuGraphExecDestroy(exec->cu);
        gpu__context_leave(&scope);
    }
    gpu__context_unref(exec->ctx);
    free(exec);
}
