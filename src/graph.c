/*
 * Stream capture and graphs.
 */
#include "object.h"

static cuabi_result graph_release(const struct gpu__driver *drv, struct gpu__object *obj)
{
    return drv->cuGraphDestroy(((gpu_graph *)obj)->cu);
}

static cuabi_result exec_release(const struct gpu__driver *drv, struct gpu__object *obj)
{
    return drv->cuGraphExecDestroy(((gpu_graph_exec *)obj)->cu);
}

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

    if (mode != GPU_CAPTURE_MODE_GLOBAL && mode != GPU_CAPTURE_MODE_THREAD_LOCAL && mode != GPU_CAPTURE_MODE_RELAXED)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "unknown mode %d", (int)mode);
    st = CAPTURED(stream);
    if (st != GPU_OK)
        return st;
    return GPU__OBJECT_CALL(&c, stream->obj.ctx, cuStreamBeginCapture, GPU_ERR_GRAPH_CAPTURE, stream->cu,
                            (cuabi_stream_capture_mode)mode);
}

gpu_status gpu_stream_end_capture(gpu_stream *stream, gpu_graph **out)
{
    struct gpu__call c;
    gpu_graph *g;
    gpu_status st;

    if (!out)
        return GPU__INVALID("out is NULL");
    st = CAPTURED(stream);
    if (st != GPU_OK)
        return st;
    g = gpu__object_new(&c, stream->obj.ctx, &graph_kind, sizeof(*g));
    if (!g)
        return c.st;
    /* Ends the capture whatever happens next, so a failure below leaves the stream usable. */
    st = GPU__INVOKE(&c, cuStreamEndCapture, GPU_ERR_GRAPH_CAPTURE, stream->cu, &g->cu);
    if (st == GPU_OK && !g->cu)
        st = GPU__FAIL(GPU_ERR_GRAPH_CAPTURE, "%s", "cuStreamEndCapture returned no graph");
    return gpu__object_finish(&c, &g->obj, st, (void **)out);
}

gpu_status gpu_stream_is_capturing(gpu_stream *stream, bool *capturing)
{
    cuabi_stream_capture_status status = CUABI_STREAM_CAPTURE_STATUS_NONE;
    struct gpu__call c;
    gpu_status st;

    if (!capturing)
        return GPU__INVALID("capturing is NULL");
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
    gpu_status st;

    if (!graph || !out)
        return GPU__INVALID(graph ? "out is NULL" : "graph is NULL");
    x = gpu__object_new(&c, graph->obj.ctx, &exec_kind, sizeof(*x));
    if (!x)
        return c.st;
    st = GPU__INVOKE(&c, cuGraphInstantiateWithFlags, GPU_ERR_GRAPH_LAUNCH, &x->cu, graph->cu, 0);
    return gpu__object_finish(&c, &x->obj, st, (void **)out);
}

gpu_status gpu_stream_launch_graph(gpu_stream *stream, gpu_graph_exec *exec)
{
    struct gpu__call c;

    if (!exec)
        return GPU__INVALID("exec is NULL");
    return GPU__STREAM_CALL_FOR(&c, stream, exec->obj.ctx, "the graph", cuGraphLaunch, GPU_ERR_GRAPH_LAUNCH, exec->cu,
                                c.stream);
}

void gpu_graph_destroy(gpu_graph *graph)
{
    gpu__object_destroy(graph ? &graph->obj : NULL);
}

void gpu_graph_exec_destroy(gpu_graph_exec *exec)
{
    gpu__object_destroy(exec ? &exec->obj : NULL);
}
