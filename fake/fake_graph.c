/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's stream capture and graphs. A captured graph is its
 * operations in capture order, a chain; an executable graph is a copy of
 * them, queued anew at each launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_core.h"
#include "fake_graph.h"
#include "fake_stream.h"

struct fake_graph *fake_graph_find(const void *handle, bool exec)
{
    for (struct fake_graph *g = fake.graphs; g; g = g->next_live)
        if ((const void *)g == handle && g->exec == exec)
            return g;
    return NULL;
}

void fake_graph_unlink(struct fake_graph *g)
{
    struct fake_graph **p = &fake.graphs;

    while (*p != g)
        p = &(*p)->next_live;
    *p = g->next_live;
    fake.live[g->exec ? GPU_FAKE_LIVE_GRAPH_EXECS : GPU_FAKE_LIVE_GRAPHS]--;
    fake_graph_free(g);
}

unsigned long fake_graphs_reset(struct fake_ctx *ctx)
{
    unsigned long n = 0;

    /* Each pass frees at most one graph and then starts over: a freed one's link is never read. */
    for (;;) {
        struct fake_graph *g = fake.graphs;

        while (g && g->ctx != ctx)
            g = g->next_live;
        if (!g)
            return n;
        fake_graph_unlink(g);
        n++;
    }
}

static struct fake_graph *graph_new(struct fake_ctx *ctx, bool exec)
{
    struct fake_graph *g = calloc(1, sizeof(*g));

    if (g) {
        g->ctx = ctx;
        g->exec = exec;
    }
    return g;
}

static void graph_publish(struct fake_graph *g)
{
    g->next_live = fake.graphs;
    fake.graphs = g;
    fake.live[g->exec ? GPU_FAKE_LIVE_GRAPH_EXECS : GPU_FAKE_LIVE_GRAPHS]++;
}

/* A node's copy, without queue links or dependencies. */
static struct fake_op *op_clone(const struct fake_op *node)
{
    struct fake_op *op = malloc(sizeof(*op));

    if (op) {
        *op = *node;
        if (op->work && op->work->retain)
            op->work->retain(op); /* the copies share what the operation holds: a launch's arguments */
        op->next = NULL;
        op->deps = NULL;
        op->ndeps = 0;
    }
    return op;
}

/* ---- Capture ---- */

/*
 * The calling thread's capture mode (CU_STREAM_CAPTURE_MODE_GLOBAL until it
 * exchanges it): kept and told. The fake does not refuse the calls a mode
 * makes unsafe during a capture.
 */
static _Thread_local cuabi_stream_capture_mode thread_capture_mode = CUABI_STREAM_CAPTURE_MODE_GLOBAL;

cuabi_result cuThreadExchangeStreamCaptureMode(cuabi_stream_capture_mode *mode)
{
    cuabi_result rc = fake_begin(FAKE_E_cuThreadExchangeStreamCaptureMode, true);

    if (rc == CUABI_SUCCESS && (!mode || *mode > CUABI_STREAM_CAPTURE_MODE_RELAXED))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        cuabi_stream_capture_mode old = thread_capture_mode;

        thread_capture_mode = *mode;
        *mode = old;
    }
    return fake_end(rc);
}

cuabi_result cuStreamBeginCapture_v2(cuabi_stream stream, cuabi_stream_capture_mode mode)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamBeginCapture_v2, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && mode > CUABI_STREAM_CAPTURE_MODE_RELAXED)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        if (s->legacy)
            rc = CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        else if (s->capture != FAKE_CAPTURE_NONE)
            rc = CUABI_ERROR_ILLEGAL_STATE;
        else if (!(s->capture_graph = graph_new(s->ctx, false)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        else {
            static uint64_t capture_ids;

            s->capture = FAKE_CAPTURE_ACTIVE;
            s->capture_id = ++capture_ids;
        }
    }
    return fake_end(rc);
}

cuabi_result cuStreamEndCapture(cuabi_stream stream, cuabi_graph *graph)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamEndCapture, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_stream *s = NULL;

        if (!graph)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            rc = fake_stream_get(stream, &s);
        if (rc == CUABI_SUCCESS && s->capture == FAKE_CAPTURE_NONE)
            rc = CUABI_ERROR_ILLEGAL_STATE;
        if (rc == CUABI_SUCCESS) {
            /* Either way the capture is over; an invalidated one leaves no graph. */
            if (s->capture == FAKE_CAPTURE_INVALIDATED) {
                fake_graph_free(s->capture_graph);
                *graph = NULL;
                rc = CUABI_ERROR_STREAM_CAPTURE_INVALIDATED;
            } else {
                graph_publish(s->capture_graph);
                *graph = (cuabi_graph)(void *)s->capture_graph;
            }
            s->capture_graph = NULL;
            s->capture = FAKE_CAPTURE_NONE;
        }
    }
    return fake_end(rc);
}

cuabi_result cuStreamIsCapturing(cuabi_stream stream, cuabi_stream_capture_status *status)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamIsCapturing, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !status)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_get(stream, &s);
    /* Asking about the legacy stream is itself a legacy-stream operation. */
    if (rc == CUABI_SUCCESS && s->legacy && fake_blocking_capture(s->ctx, false))
        rc = CUABI_ERROR_STREAM_CAPTURE_IMPLICIT;
    if (rc == CUABI_SUCCESS)
        *status = (cuabi_stream_capture_status)s->capture;
    return fake_end(rc);
}

/* cuStreamGetCaptureInfo's _v2 and _v3 (CUDA 12.3's, with the edges' data: `edges` NULL for _v2). */
static cuabi_result capture_info(enum fake_entry entry, cuabi_stream stream, cuabi_stream_capture_status *status,
                                 cuabi_uint64 *id, cuabi_graph *graph, const cuabi_graph_node **deps,
                                 const cuabi_graph_edge_data **edges, size_t *ndeps)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && (!status || (deps && !ndeps)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        bool active = s->capture == FAKE_CAPTURE_ACTIVE;

        *status = (cuabi_stream_capture_status)s->capture;
        if (id && s->capture != FAKE_CAPTURE_NONE)
            *id = s->capture_id;
        if (graph && active)
            *graph = (cuabi_graph)(void *)s->capture_graph;
        /* The fake's graph nodes have no handles: no dependencies to name. */
        if (deps && active)
            *deps = NULL;
        if (edges && active)
            *edges = NULL;
        if (ndeps && active)
            *ndeps = 0;
    }
    return fake_end(rc);
}

cuabi_result cuStreamGetCaptureInfo_v2(cuabi_stream stream, cuabi_stream_capture_status *status, cuabi_uint64 *id,
                                       cuabi_graph *graph, const cuabi_graph_node **deps, size_t *ndeps)
{
    return capture_info(FAKE_E_cuStreamGetCaptureInfo_v2, stream, status, id, graph, deps, NULL, ndeps);
}

cuabi_result cuStreamGetCaptureInfo_v3(cuabi_stream stream, cuabi_stream_capture_status *status, cuabi_uint64 *id,
                                       cuabi_graph *graph, const cuabi_graph_node **deps,
                                       const cuabi_graph_edge_data **edges, size_t *ndeps)
{
    return capture_info(FAKE_E_cuStreamGetCaptureInfo_v3, stream, status, id, graph, deps, edges, ndeps);
}

/* ---- Graphs ---- */

cuabi_result cuGraphInstantiateWithFlags(cuabi_graph_exec *exec, cuabi_graph graph, unsigned long long flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphInstantiateWithFlags, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_graph *g = fake_graph_find(graph, false);
        struct fake_graph *x = NULL;

        if (!exec || (flags & ~0xfull))
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!g)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (!(x = graph_new(g->ctx, true)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        for (struct fake_op *n = g && x ? g->head : NULL; n && rc == CUABI_SUCCESS; n = n->next) {
            struct fake_op *op = op_clone(n);

            if (op)
                fake_graph_append(x, op);
            else
                rc = CUABI_ERROR_OUT_OF_MEMORY;
        }
        if (rc == CUABI_SUCCESS) {
            graph_publish(x);
            *exec = (cuabi_graph_exec)(void *)x;
        } else if (x) {
            fake_graph_free(x);
        }
    }
    return fake_end(rc);
}

cuabi_result cuGraphLaunch(cuabi_graph_exec exec, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphLaunch, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_graph *x = fake_graph_find(exec, true);

        if (!x)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (x->ctx != s->ctx)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        /* The nodes run in capture order, as a single-stream capture makes them a chain. */
        for (struct fake_op *n = x ? x->head : NULL; n && rc == CUABI_SUCCESS; n = n->next) {
            struct fake_op *op = op_clone(n);

            rc = op ? fake_enqueue(s, op) : CUABI_ERROR_OUT_OF_MEMORY;
        }
    }
    return fake_end(rc);
}

cuabi_result cuGraphDestroy(cuabi_graph graph)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphDestroy, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_graph *g = fake_graph_find(graph, false);

        if (!g)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            fake_graph_unlink(g);
    }
    return fake_end(rc);
}

cuabi_result cuGraphExecDestroy(cuabi_graph_exec exec)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphExecDestroy, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_graph *x = fake_graph_find(exec, true);

        if (!x)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            fake_graph_unlink(x);
    }
    return fake_end(rc);
}

/* Why `graph` cannot replace what `exec` runs, or SUCCESS: the same nodes, of the same kinds, in the same order. */
static cuabi_graph_exec_update_result update_check(const struct fake_graph *exec, const struct fake_graph *graph)
{
    const struct fake_op *x = exec->head, *g = graph->head;

    for (; x && g; x = x->next, g = g->next)
        if (x->kind != g->kind)
            return CUABI_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
    return x || g ? CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED : CUABI_GRAPH_EXEC_UPDATE_SUCCESS;
}

cuabi_result cuGraphExecUpdate_v2(cuabi_graph_exec exec, cuabi_graph graph, cuabi_graph_exec_update_result_info *info)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphExecUpdate_v2, true);
    struct fake_graph *x = fake_graph_find(exec, true), *g = fake_graph_find(graph, false);

    if (rc == CUABI_SUCCESS && (!x || !g || !info))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && x->ctx != g->ctx)
        rc = CUABI_ERROR_INVALID_CONTEXT;
    if (rc == CUABI_SUCCESS) {
        info->result = update_check(x, g);
        info->error_node = NULL;
        info->error_from_node = NULL;
        if (info->result != CUABI_GRAPH_EXEC_UPDATE_SUCCESS)
            rc = CUABI_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    /* Same shape: each node takes the new one's parameters. */
    for (struct fake_op *n = rc == CUABI_SUCCESS ? x->head : NULL, *m = g ? g->head : NULL; n && m;
         n = n->next, m = m->next) {
        /* The node gives up what it holds (a launch's arguments) and shares the new one's. */
        if (m->work && m->work->retain)
            m->work->retain(m);
        if (n->work && n->work->release)
            n->work->release(n);
        n->work = m->work;
        n->u = m->u;
    }
    return fake_end(rc);
}

cuabi_result cuGraphUpload(cuabi_graph_exec exec, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphUpload, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_graph *x = fake_graph_find(exec, true);

        /* Nothing to upload in host memory: the checks are all there is. */
        if (!x)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (x->ctx != s->ctx)
            rc = CUABI_ERROR_INVALID_CONTEXT;
    }
    return fake_end(rc);
}

static const char *op_name(enum fake_op_kind kind)
{
    switch (kind) {
    case FAKE_OP_KERNEL: return "kernel";
    case FAKE_OP_COPY: return "memcpy";
    case FAKE_OP_HOST_FN: return "host";
    case FAKE_OP_RECORD: return "event_record";
    case FAKE_OP_WAIT: return "event_wait";
    case FAKE_OP_FREE: return "mem_free";
    case FAKE_OP_WRITE_VALUE: return "write_value";
    case FAKE_OP_WAIT_VALUE: return "wait_value";
    case FAKE_OP_MEMSET: return "memset";
    }
    return "unknown";
}

cuabi_result cuGraphDebugDotPrint(cuabi_graph graph, const char *path, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphDebugDotPrint, true);
    struct fake_graph *g = fake_graph_find(graph, false);
    FILE *f = NULL;

    if (rc == CUABI_SUCCESS && (!g || !path))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !(f = fopen(path, "w")))
        rc = CUABI_ERROR_OPERATING_SYSTEM;
    if (rc == CUABI_SUCCESS) {
        int i = 0;

        fprintf(f, "digraph fake_graph {\n");
        for (const struct fake_op *n = g->head; n; n = n->next, i++) {
            fprintf(f, "  node%d [label=\"%s\"", i, op_name(n->kind));
            if ((flags & CUABI_GRAPH_DEBUG_DOT_FLAGS_VERBOSE) && n->kind == FAKE_OP_KERNEL)
                fprintf(f, " grid=\"%u,%u,%u\" block=\"%u,%u,%u\"", n->u.k.grid[0], n->u.k.grid[1], n->u.k.grid[2],
                        n->u.k.block[0], n->u.k.block[1], n->u.k.block[2]);
            fprintf(f, "];\n");
            if (i > 0)
                fprintf(f, "  node%d -> node%d;\n", i - 1, i);
        }
        fprintf(f, "}\n");
        if (fclose(f) != 0)
            rc = CUABI_ERROR_OPERATING_SYSTEM;
    }
    return fake_end(rc);
}
