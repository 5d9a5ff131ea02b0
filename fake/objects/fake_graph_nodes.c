/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's explicit graph API over fake_graph.c's nodes: making
 * graphs and their host, event, child graph and empty nodes, their edges,
 * the queries of a graph's shape, clones, and its DOT picture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_event.h"
#include "fake_graph.h"
#include "fake_stream.h"

/* ---- Graphs ---- */

cuabi_result cuGraphCreate(cuabi_graph *graph, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphCreate, true);
    struct fake_ctx *ctx = NULL;
    struct fake_graph_x *g = NULL;

    if (rc == CUABI_SUCCESS && (!graph || flags))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&ctx);
    if (rc == CUABI_SUCCESS && !(g = fake_graph_create(ctx)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS)
        *graph = (cuabi_graph)(void *)g;
    return fake_end(rc);
}

cuabi_result cuGraphDestroy(cuabi_graph graph)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphDestroy, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_graph_x *g = fake_graph_live(graph);

        if (!g)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (g->owner) /* a child graph node's: it goes with its node */
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            fake_graph_unlink(&g->base);
    }
    return fake_graph_end(rc);
}

cuabi_result cuGraphClone(cuabi_graph *clone, cuabi_graph original)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphClone, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_graph_x *g = fake_graph_live(original), *c = NULL;

        if (!clone || !g)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!(c = fake_graph_copy(g, false, NULL)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        else
            *clone = (cuabi_graph)(void *)c;
    }
    return fake_end(rc);
}

cuabi_result cuGraphNodeFindInClone(cuabi_graph_node *node, cuabi_graph_node original, cuabi_graph clone)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphNodeFindInClone, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_graph_x *c = fake_graph_live(clone);
        struct fake_gnode *o = fake_gnode_find(original), *n = NULL;

        if (node && c && o)
            for (n = c->nodes; n && n->id != o->id; n = n->next)
                ;
        if (!n)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            *node = (cuabi_graph_node)(void *)n;
    }
    return fake_end(rc);
}

/* Fills `out` (NULL: only the count) with up to *count of the graph's nodes (roots: those without dependencies). */
static cuabi_result list_nodes(const struct fake_graph_x *g, bool roots, cuabi_graph_node *out, size_t *count)
{
    size_t n = 0;

    if (!count)
        return CUABI_ERROR_INVALID_VALUE;
    for (struct fake_gnode *m = g->nodes; m; m = m->next) {
        if (roots && m->ndeps)
            continue;
        if (out && n < *count)
            out[n] = (cuabi_graph_node)(void *)m;
        n++;
    }
    if (out) {
        for (size_t i = n; i < *count; i++)
            out[i] = NULL;
        if (n < *count)
            *count = n;
    } else {
        *count = n;
    }
    return CUABI_SUCCESS;
}

cuabi_result cuGraphGetNodes(cuabi_graph graph, cuabi_graph_node *nodes, size_t *count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphGetNodes, true);
    struct fake_graph_x *g = rc == CUABI_SUCCESS ? fake_graph_live(graph) : NULL;

    if (rc == CUABI_SUCCESS)
        rc = g ? list_nodes(g, false, nodes, count) : CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

cuabi_result cuGraphGetRootNodes(cuabi_graph graph, cuabi_graph_node *nodes, size_t *count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphGetRootNodes, true);
    struct fake_graph_x *g = rc == CUABI_SUCCESS ? fake_graph_live(graph) : NULL;

    if (rc == CUABI_SUCCESS)
        rc = g ? list_nodes(g, true, nodes, count) : CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

/* Whether an edge's data is the default's: one that is not, asked for without room for data, is LOSSY_QUERY. */
static bool edge_default(const cuabi_graph_edge_data *e)
{
    return e->from_port == 0 && e->to_port == 0 && e->type == 0;
}

/* Up to *count edges (from, to, data: each may be NULL), or their number; `lossy` where data was asked for none. */
static cuabi_result put_edge(size_t i, size_t *count, cuabi_graph_node *from, cuabi_graph_node *to,
                             cuabi_graph_edge_data *data, const struct fake_gnode *f, const struct fake_gnode *t,
                             const cuabi_graph_edge_data *e, bool *lossy)
{
    if ((from || to) && i < *count) {
        if (from)
            from[i] = (cuabi_graph_node)(void *)f;
        if (to)
            to[i] = (cuabi_graph_node)(void *)t;
        if (data)
            data[i] = *e;
        else if (!edge_default(e))
            *lossy = true;
    }
    return CUABI_SUCCESS;
}

static cuabi_result finish_list(size_t n, size_t *count, bool filled, cuabi_graph_node *a, cuabi_graph_node *b,
                                cuabi_graph_edge_data *data, bool lossy)
{
    if (!filled) {
        *count = n;
        return CUABI_SUCCESS;
    }
    for (size_t i = n; i < *count; i++) {
        if (a)
            a[i] = NULL;
        if (b)
            b[i] = NULL;
        if (data)
            memset(&data[i], 0, sizeof(data[i]));
    }
    if (n < *count)
        *count = n;
    return lossy ? CUABI_ERROR_LOSSY_QUERY : CUABI_SUCCESS;
}

static cuabi_result get_edges(enum fake_entry entry, cuabi_graph graph, cuabi_graph_node *from, cuabi_graph_node *to,
                              cuabi_graph_edge_data *data, size_t *count)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_graph_x *g = rc == CUABI_SUCCESS ? fake_graph_live(graph) : NULL;

    if (rc == CUABI_SUCCESS && (!g || !count || (!from != !to) || (data && !from)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        size_t n = 0;
        bool lossy = false;

        for (const struct fake_gnode *t = g->nodes; t; t = t->next)
            for (size_t i = 0; i < t->ndeps; i++)
                put_edge(n++, count, from, to, data, t->deps[i], t, &t->edges[i], &lossy);
        rc = finish_list(n, count, from != NULL, from, to, data, lossy);
    }
    return fake_end(rc);
}

cuabi_result cuGraphGetEdges_v2(cuabi_graph graph, cuabi_graph_node *from, cuabi_graph_node *to,
                                cuabi_graph_edge_data *data, size_t *count)
{
    return get_edges(FAKE_E_cuGraphGetEdges_v2, graph, from, to, data, count);
}

cuabi_result cuGraphGetEdges(cuabi_graph graph, cuabi_graph_node *from, cuabi_graph_node *to, size_t *count)
{
    return get_edges(FAKE_E_cuGraphGetEdges, graph, from, to, NULL, count);
}

/* The node's dependencies (dependents false) or the nodes that depend on it. */
static cuabi_result node_links(enum fake_entry entry, cuabi_graph_node node, bool dependents, cuabi_graph_node *out,
                               cuabi_graph_edge_data *data, size_t *count)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_gnode *n = rc == CUABI_SUCCESS ? fake_gnode_find(node) : NULL;

    if (rc == CUABI_SUCCESS && (!n || !count || (data && !out)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        size_t k = 0;
        bool lossy = false;

        if (!dependents)
            for (size_t i = 0; i < n->ndeps; i++)
                put_edge(k++, count, out, NULL, data, n->deps[i], n, &n->edges[i], &lossy);
        for (const struct fake_gnode *t = dependents ? n->graph->nodes : NULL; t; t = t->next)
            for (size_t i = 0; i < t->ndeps; i++)
                if (t->deps[i] == n)
                    put_edge(k++, count, out, NULL, data, t, n, &t->edges[i], &lossy);
        rc = finish_list(k, count, out != NULL, out, NULL, data, lossy);
    }
    return fake_end(rc);
}

cuabi_result cuGraphNodeGetDependencies_v2(cuabi_graph_node node, cuabi_graph_node *deps, cuabi_graph_edge_data *data,
                                           size_t *count)
{
    return node_links(FAKE_E_cuGraphNodeGetDependencies_v2, node, false, deps, data, count);
}

cuabi_result cuGraphNodeGetDependencies(cuabi_graph_node node, cuabi_graph_node *deps, size_t *count)
{
    return node_links(FAKE_E_cuGraphNodeGetDependencies, node, false, deps, NULL, count);
}

cuabi_result cuGraphNodeGetDependentNodes_v2(cuabi_graph_node node, cuabi_graph_node *nodes,
                                             cuabi_graph_edge_data *data, size_t *count)
{
    return node_links(FAKE_E_cuGraphNodeGetDependentNodes_v2, node, true, nodes, data, count);
}

cuabi_result cuGraphNodeGetDependentNodes(cuabi_graph_node node, cuabi_graph_node *nodes, size_t *count)
{
    return node_links(FAKE_E_cuGraphNodeGetDependentNodes, node, true, nodes, NULL, count);
}

/* Adds (or removes) the edges from[i] -> to[i], all or none: each pair two nodes of the graph, not yet (or) linked. */
static cuabi_result edit_edges(enum fake_entry entry, cuabi_graph graph, const cuabi_graph_node *from,
                               const cuabi_graph_node *to, const cuabi_graph_edge_data *data, size_t count, bool add)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_graph_x *g = rc == CUABI_SUCCESS ? fake_graph_live(graph) : NULL;

    if (rc == CUABI_SUCCESS && (!g || (count && (!from || !to))))
        rc = CUABI_ERROR_INVALID_VALUE;
    for (size_t i = 0; rc == CUABI_SUCCESS && i < count; i++) {
        struct fake_gnode *f = fake_gnode_find(from[i]), *t = fake_gnode_find(to[i]);

        if (!f || !t || f->graph != g || t->graph != g || f == t || fake_gnode_has_dep(t, f) != !add)
            rc = CUABI_ERROR_INVALID_VALUE;
        for (size_t j = 0; rc == CUABI_SUCCESS && j < i; j++)
            if (from[j] == from[i] && to[j] == to[i])
                rc = CUABI_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; rc == CUABI_SUCCESS && i < count; i++) {
        struct fake_gnode *f = fake_gnode_find(from[i]), *t = fake_gnode_find(to[i]);

        if (add) {
            if (!fake_gnode_dep_add(t, f, data ? &data[i] : NULL))
                rc = CUABI_ERROR_OUT_OF_MEMORY;
            continue;
        }
        for (size_t k = 0; k < t->ndeps; k++)
            if (t->deps[k] == f) {
                memmove(t->deps + k, t->deps + k + 1, (t->ndeps - k - 1) * sizeof(*t->deps));
                memmove(t->edges + k, t->edges + k + 1, (t->ndeps - k - 1) * sizeof(*t->edges));
                t->ndeps--;
                break;
            }
    }
    return fake_end(rc);
}

cuabi_result cuGraphAddDependencies_v2(cuabi_graph graph, const cuabi_graph_node *from, const cuabi_graph_node *to,
                                       const cuabi_graph_edge_data *data, size_t count)
{
    return edit_edges(FAKE_E_cuGraphAddDependencies_v2, graph, from, to, data, count, true);
}

cuabi_result cuGraphAddDependencies(cuabi_graph graph, const cuabi_graph_node *from, const cuabi_graph_node *to,
                                    size_t count)
{
    return edit_edges(FAKE_E_cuGraphAddDependencies, graph, from, to, NULL, count, true);
}

cuabi_result cuGraphRemoveDependencies_v2(cuabi_graph graph, const cuabi_graph_node *from, const cuabi_graph_node *to,
                                          const cuabi_graph_edge_data *data, size_t count)
{
    return edit_edges(FAKE_E_cuGraphRemoveDependencies_v2, graph, from, to, data, count, false);
}

cuabi_result cuGraphRemoveDependencies(cuabi_graph graph, const cuabi_graph_node *from, const cuabi_graph_node *to,
                                       size_t count)
{
    return edit_edges(FAKE_E_cuGraphRemoveDependencies, graph, from, to, NULL, count, false);
}

cuabi_result cuGraphNodeGetType(cuabi_graph_node node, cuabi_graph_node_type *type)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphNodeGetType, true);
    struct fake_gnode *n = rc == CUABI_SUCCESS ? fake_gnode_find(node) : NULL;

    if (rc == CUABI_SUCCESS && (!n || !type))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *type = n->type;
    return fake_end(rc);
}

cuabi_result cuGraphDestroyNode(cuabi_graph_node node)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphDestroyNode, true);
    struct fake_gnode *n = rc == CUABI_SUCCESS ? fake_gnode_find(node) : NULL;

    if (rc == CUABI_SUCCESS && !n)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        fake_gnode_drop(n);
    return fake_end(rc);
}

/* ---- Host, event, child graph and empty nodes ---- */

static cuabi_result host_op(const cuabi_host_node_params *p, struct fake_op **out)
{
    *out = NULL;
    if (!p || !p->fn)
        return CUABI_ERROR_INVALID_VALUE;
    if (!(*out = fake_op_new(FAKE_OP_HOST_FN, NULL)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    (*out)->u.host.fn = p->fn;
    (*out)->u.host.user_data = p->user_data;
    return CUABI_SUCCESS;
}

static cuabi_result event_op(const struct fake_ctx *ctx, bool record, cuabi_event event, struct fake_op **out)
{
    struct fake_event *e = fake_event_find(event);

    *out = NULL;
    /* A record names an event of the graph's context; a wait may wait for another's. */
    if (!e || (record && e->ctx != ctx))
        return CUABI_ERROR_INVALID_VALUE;
    if (!(*out = fake_op_new(record ? FAKE_OP_RECORD : FAKE_OP_WAIT, NULL)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    (*out)->u.event = e;
    return CUABI_SUCCESS;
}

static bool has_child_forbidden(const struct fake_graph_x *g)
{
    for (const struct fake_gnode *n = g->nodes; n; n = n->next)
        if (n->type == CUABI_GRAPH_NODE_TYPE_CONDITIONAL || n->type == CUABI_GRAPH_NODE_TYPE_MEM_ALLOC ||
            n->type == CUABI_GRAPH_NODE_TYPE_MEM_FREE || (n->child && has_child_forbidden(n->child)))
            return true;
    return false;
}

cuabi_result fake_graph_add_plain(struct fake_graph_x *g, const cuabi_graph_node *deps,
                                  const cuabi_graph_edge_data *edges, size_t ndeps,
                                  const cuabi_graph_node_params *p, struct fake_gnode **out)
{
    struct fake_op *op = NULL;
    struct fake_graph_x *child = NULL;
    cuabi_result rc = CUABI_SUCCESS;

    switch (p->type) {
    case CUABI_GRAPH_NODE_TYPE_HOST:
        rc = host_op(&p->u.host, &op);
        break;
    case CUABI_GRAPH_NODE_TYPE_EVENT_RECORD:
        rc = event_op(g->base.ctx, true, p->u.event_record, &op);
        break;
    case CUABI_GRAPH_NODE_TYPE_WAIT_EVENT:
        rc = event_op(g->base.ctx, false, p->u.event_wait, &op);
        break;
    case CUABI_GRAPH_NODE_TYPE_GRAPH:
        child = fake_graph_live(p->u.graph.graph);
        /* Ownership other than a clone (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE) is for memory nodes: none here. */
        if (!child || p->u.graph.ownership != 0 || child == g || has_child_forbidden(child))
            rc = CUABI_ERROR_INVALID_VALUE;
        break;
    case CUABI_GRAPH_NODE_TYPE_EMPTY:
        break;
    default:
        rc = CUABI_ERROR_INVALID_VALUE;
    }
    if (rc == CUABI_SUCCESS)
        rc = fake_gnode_add(g, p->type, deps, edges, ndeps, op, out);
    else if (op)
        fake_op_free(op);
    if (rc != CUABI_SUCCESS)
        return rc;
    if (child && !((*out)->child = fake_graph_copy(child, false, *out))) {
        fake_gnode_drop(*out);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    if (p->type == CUABI_GRAPH_NODE_TYPE_HOST)
        (*out)->p.host = p->u.host;
    else if (p->type == CUABI_GRAPH_NODE_TYPE_EVENT_RECORD)
        (*out)->p.event = p->u.event_record;
    else if (p->type == CUABI_GRAPH_NODE_TYPE_WAIT_EVENT)
        (*out)->p.event = p->u.event_wait;
    return CUABI_SUCCESS;
}

cuabi_result fake_gnode_set_plain(struct fake_gnode *n, const cuabi_graph_node_params *p)
{
    struct fake_op *op = NULL;
    cuabi_result rc = CUABI_ERROR_INVALID_VALUE;

    if (p->type != n->type)
        return CUABI_ERROR_INVALID_VALUE;
    if (n->type == CUABI_GRAPH_NODE_TYPE_HOST)
        rc = host_op(&p->u.host, &op);
    else if (n->type == CUABI_GRAPH_NODE_TYPE_EVENT_RECORD)
        rc = event_op(n->graph->base.ctx, true, p->u.event_record, &op);
    else if (n->type == CUABI_GRAPH_NODE_TYPE_WAIT_EVENT)
        rc = event_op(n->graph->base.ctx, false, p->u.event_wait, &op);
    else if (n->type == CUABI_GRAPH_NODE_TYPE_EMPTY)
        return CUABI_SUCCESS;
    if (rc != CUABI_SUCCESS)
        return rc;
    if (op->kind == FAKE_OP_HOST_FN)
        n->p.host = p->u.host;
    else
        n->p.event = (cuabi_event)(void *)op->u.event;
    n->known = true;
    fake_gnode_set_op(n, op);
    return CUABI_SUCCESS;
}

/* The adding calls of fake_graph_add_plain()'s kinds: the graph looked up, the node handed out. */
static cuabi_result add_plain(enum fake_entry entry, cuabi_graph_node *node, cuabi_graph graph,
                              const cuabi_graph_node *deps, size_t ndeps, const cuabi_graph_node_params *p)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_graph_x *g = rc == CUABI_SUCCESS ? fake_graph_live(graph) : NULL;
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS && (!node || !g))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_graph_add_plain(g, deps, NULL, ndeps, p, &n);
    if (rc == CUABI_SUCCESS)
        *node = (cuabi_graph_node)(void *)n;
    return fake_end(rc);
}

cuabi_result cuGraphAddEmptyNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps)
{
    return add_plain(FAKE_E_cuGraphAddEmptyNode, node, graph, deps, ndeps,
                     &(cuabi_graph_node_params){.type = CUABI_GRAPH_NODE_TYPE_EMPTY});
}

cuabi_result cuGraphAddHostNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps,
                                const cuabi_host_node_params *params)
{
    cuabi_graph_node_params p = {.type = CUABI_GRAPH_NODE_TYPE_HOST};

    if (params)
        p.u.host = *params;
    return add_plain(FAKE_E_cuGraphAddHostNode, node, graph, deps, ndeps, &p);
}

cuabi_result cuGraphAddEventRecordNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                                       size_t ndeps, cuabi_event event)
{
    return add_plain(FAKE_E_cuGraphAddEventRecordNode, node, graph, deps, ndeps,
                     &(cuabi_graph_node_params){.type = CUABI_GRAPH_NODE_TYPE_EVENT_RECORD, .u.event_record = event});
}

cuabi_result cuGraphAddEventWaitNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                                     size_t ndeps, cuabi_event event)
{
    return add_plain(FAKE_E_cuGraphAddEventWaitNode, node, graph, deps, ndeps,
                     &(cuabi_graph_node_params){.type = CUABI_GRAPH_NODE_TYPE_WAIT_EVENT, .u.event_wait = event});
}

cuabi_result cuGraphAddChildGraphNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                                      size_t ndeps, cuabi_graph child)
{
    return add_plain(FAKE_E_cuGraphAddChildGraphNode, node, graph, deps, ndeps,
                     &(cuabi_graph_node_params){.type = CUABI_GRAPH_NODE_TYPE_GRAPH, .u.graph = {child, 0}});
}

/* A node of `type` whose parameters are known; else INVALID_VALUE (NOT_SUPPORTED for a capture's that are not). */
static cuabi_result node_of_type(cuabi_graph_node node, cuabi_graph_node_type type, struct fake_gnode **out)
{
    *out = fake_gnode_find(node);
    if (!*out || (*out)->type != type)
        return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

cuabi_result cuGraphHostNodeGetParams(cuabi_graph_node node, cuabi_host_node_params *params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphHostNodeGetParams, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = params ? node_of_type(node, CUABI_GRAPH_NODE_TYPE_HOST, &n) : CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *params = n->p.host;
    return fake_end(rc);
}

cuabi_result cuGraphHostNodeSetParams(cuabi_graph_node node, const cuabi_host_node_params *params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphHostNodeSetParams, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = params ? node_of_type(node, CUABI_GRAPH_NODE_TYPE_HOST, &n) : CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_gnode_set_plain(n, &(cuabi_graph_node_params){.type = n->type, .u.host = *params});
    return fake_end(rc);
}

static cuabi_result event_get(enum fake_entry entry, cuabi_graph_node node, cuabi_graph_node_type type,
                              cuabi_event *event)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = event ? node_of_type(node, type, &n) : CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *event = n->p.event;
    return fake_end(rc);
}

static cuabi_result event_set(enum fake_entry entry, cuabi_graph_node node, cuabi_graph_node_type type,
                              cuabi_event event)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = node_of_type(node, type, &n);
    if (rc == CUABI_SUCCESS)
        rc = fake_gnode_set_plain(n, &(cuabi_graph_node_params){.type = type, .u.event_record = event});
    return fake_end(rc);
}

cuabi_result cuGraphEventRecordNodeGetEvent(cuabi_graph_node node, cuabi_event *event)
{
    return event_get(FAKE_E_cuGraphEventRecordNodeGetEvent, node, CUABI_GRAPH_NODE_TYPE_EVENT_RECORD, event);
}

cuabi_result cuGraphEventRecordNodeSetEvent(cuabi_graph_node node, cuabi_event event)
{
    return event_set(FAKE_E_cuGraphEventRecordNodeSetEvent, node, CUABI_GRAPH_NODE_TYPE_EVENT_RECORD, event);
}

cuabi_result cuGraphEventWaitNodeGetEvent(cuabi_graph_node node, cuabi_event *event)
{
    return event_get(FAKE_E_cuGraphEventWaitNodeGetEvent, node, CUABI_GRAPH_NODE_TYPE_WAIT_EVENT, event);
}

cuabi_result cuGraphEventWaitNodeSetEvent(cuabi_graph_node node, cuabi_event event)
{
    return event_set(FAKE_E_cuGraphEventWaitNodeSetEvent, node, CUABI_GRAPH_NODE_TYPE_WAIT_EVENT, event);
}

cuabi_result cuGraphChildGraphNodeGetGraph(cuabi_graph_node node, cuabi_graph *graph)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphChildGraphNodeGetGraph, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = graph ? node_of_type(node, CUABI_GRAPH_NODE_TYPE_GRAPH, &n) : CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *graph = (cuabi_graph)(void *)n->child;
    return fake_end(rc);
}

/* ---- DOT ---- */

static const char *node_name(cuabi_graph_node_type type)
{
    switch (type) {
    case CUABI_GRAPH_NODE_TYPE_KERNEL: return "kernel";
    case CUABI_GRAPH_NODE_TYPE_MEMCPY: return "memcpy";
    case CUABI_GRAPH_NODE_TYPE_MEMSET: return "memset";
    case CUABI_GRAPH_NODE_TYPE_HOST: return "host";
    case CUABI_GRAPH_NODE_TYPE_GRAPH: return "graph";
    case CUABI_GRAPH_NODE_TYPE_EMPTY: return "empty";
    case CUABI_GRAPH_NODE_TYPE_WAIT_EVENT: return "event_wait";
    case CUABI_GRAPH_NODE_TYPE_EVENT_RECORD: return "event_record";
    case CUABI_GRAPH_NODE_TYPE_MEM_FREE: return "mem_free";
    case 12: return "batch_mem_op";
    }
    return "unknown";
}

/* The nodes as DOT statements, each named by its graph's prefix and its place; a child graph as a cluster. */
static void dot_nodes(FILE *f, const struct fake_graph_x *g, const char *prefix, unsigned flags)
{
    size_t i = 0;

    for (struct fake_gnode *n = g->nodes; n; n = n->next, i++)
        n->copy = (struct fake_gnode *)(uintptr_t)(i + 1); /* its place, for the edges */
    i = 0;
    for (const struct fake_gnode *n = g->nodes; n; n = n->next, i++) {
        fprintf(f, "  %snode%zu [label=\"%s\"", prefix, i, node_name(n->type));
        if ((flags & CUABI_GRAPH_DEBUG_DOT_FLAGS_VERBOSE) && n->op && n->op->kind == FAKE_OP_KERNEL)
            fprintf(f, " grid=\"%u,%u,%u\" block=\"%u,%u,%u\"", n->op->u.k.grid[0], n->op->u.k.grid[1],
                    n->op->u.k.grid[2], n->op->u.k.block[0], n->op->u.k.block[1], n->op->u.k.block[2]);
        fprintf(f, "];\n");
        for (size_t d = 0; d < n->ndeps; d++)
            fprintf(f, "  %snode%zu -> %snode%zu;\n", prefix, (size_t)(uintptr_t)n->deps[d]->copy - 1, prefix, i);
    }
    i = 0;
    for (const struct fake_gnode *n = g->nodes; n; n = n->next, i++)
        if (n->child) {
            char sub[256];

            snprintf(sub, sizeof(sub), "%snode%zu_", prefix, i);
            fprintf(f, "  subgraph cluster_%snode%zu {\n  label=\"%snode%zu\";\n", prefix, i, prefix, i);
            dot_nodes(f, n->child, sub, flags);
            fprintf(f, "  }\n");
        }
}

cuabi_result cuGraphDebugDotPrint(cuabi_graph graph, const char *path, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphDebugDotPrint, true);
    struct fake_graph_x *g = fake_graph_live(graph);
    FILE *f = NULL;

    if (rc == CUABI_SUCCESS && (!g || !path))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !(f = fopen(path, "w")))
        rc = CUABI_ERROR_OPERATING_SYSTEM;
    if (rc == CUABI_SUCCESS) {
        fprintf(f, "digraph fake_graph {\n");
        dot_nodes(f, g, "", flags);
        fprintf(f, "}\n");
        if (fclose(f) != 0)
            rc = CUABI_ERROR_OPERATING_SYSTEM;
    }
    return fake_end(rc);
}


/* ---- An executable graph's host and event nodes ---- */

/* The executable graph's node made from graph node `node`; INVALID_VALUE otherwise. */
static cuabi_result exec_node(cuabi_graph_exec exec, cuabi_graph_node node, struct fake_gnode **out)
{
    struct fake_graph *x = fake_graph_find(exec, true);

    *out = x ? fake_gnode_in_exec((struct fake_graph_x *)(void *)x, fake_gnode_find(node)) : NULL;
    return *out ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
}

cuabi_result cuGraphExecHostNodeSetParams(cuabi_graph_exec exec, cuabi_graph_node node,
                                          const cuabi_host_node_params *params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphExecHostNodeSetParams, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = params ? exec_node(exec, node, &n) : CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_gnode_set_plain(n, &(cuabi_graph_node_params){.type = CUABI_GRAPH_NODE_TYPE_HOST, .u.host = *params});
    return fake_end(rc);
}

static cuabi_result exec_event_set(enum fake_entry entry, cuabi_graph_exec exec, cuabi_graph_node node,
                                   cuabi_graph_node_type type, cuabi_event event)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = exec_node(exec, node, &n);
    if (rc == CUABI_SUCCESS)
        rc = fake_gnode_set_plain(n, &(cuabi_graph_node_params){.type = type, .u.event_record = event});
    return fake_end(rc);
}

cuabi_result cuGraphExecEventRecordNodeSetEvent(cuabi_graph_exec exec, cuabi_graph_node node, cuabi_event event)
{
    return exec_event_set(FAKE_E_cuGraphExecEventRecordNodeSetEvent, exec, node, CUABI_GRAPH_NODE_TYPE_EVENT_RECORD,
                          event);
}

cuabi_result cuGraphExecEventWaitNodeSetEvent(cuabi_graph_exec exec, cuabi_graph_node node, cuabi_event event)
{
    return exec_event_set(FAKE_E_cuGraphExecEventWaitNodeSetEvent, exec, node, CUABI_GRAPH_NODE_TYPE_WAIT_EVENT,
                          event);
}

