/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's graph nodes that do device work: kernels, copies and
 * fills, each holding the operation a launch (fake_launch.c) or a copy
 * (fake_copy.c) would queue, checked when it is added or set; and the
 * generic CUgraphNodeParams calls, which serve every kind.
 */
#include <string.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_graph.h"
#include "fake_launch.h"
#include "fake_memory.h"
#include "fake_stream.h"

static struct fake_graph_x *graph_of(cuabi_graph handle)
{
    struct fake_graph *g = fake_graph_find(handle, false);

    return g ? (struct fake_graph_x *)(void *)g : NULL;
}

/* The context a node runs in: the one named, else the current one. */
static cuabi_result node_ctx(cuabi_context named, struct fake_ctx **out)
{
    if (named) {
        *out = fake_ctx_from(named);
        return *out ? CUABI_SUCCESS : CUABI_ERROR_INVALID_CONTEXT;
    }
    return fake_need_ctx(out);
}

/* ---- What each kind's parameters make ---- */

static cuabi_result kernel_make(const cuabi_kernel_node_params *p, struct fake_kparams **kp, struct fake_op **op)
{
    struct fake_ctx *ctx = NULL;
    cuabi_result rc;

    *kp = NULL;
    *op = NULL;
    if (!p)
        return CUABI_ERROR_INVALID_VALUE;
    rc = fake_need_ctx(&ctx);
    if (rc == CUABI_SUCCESS)
        rc = fake_kparams_new(p, kp);
    if (rc == CUABI_SUCCESS) {
        const unsigned grid[3] = {p->grid_x, p->grid_y, p->grid_z}, block[3] = {p->block_x, p->block_y, p->block_z};

        cuabi_function f = p->func ? p->func : (cuabi_function)(void *)p->kern; /* kern where func is NULL */

        rc = fake_launch_op(ctx, f, grid, block, p->shared_mem_bytes, (*kp)->p.params, (*kp)->p.extra, NULL,
                            NULL, op);
    }
    if (rc != CUABI_SUCCESS) {
        fake_kparams_free(*kp);
        *kp = NULL;
    }
    return rc;
}

static cuabi_result memcpy_make(const cuabi_memcpy3d *p, cuabi_context named, struct fake_op **op)
{
    struct fake_ctx *ctx = NULL;
    cuabi_result rc;

    *op = NULL;
    if (!p)
        return CUABI_ERROR_INVALID_VALUE;
    rc = node_ctx(named, &ctx);
    return rc == CUABI_SUCCESS ? fake_copy3d_op(ctx, p, op) : rc;
}

static cuabi_result memset_make(const cuabi_memset_node_params *p, cuabi_context named, struct fake_op **op)
{
    struct fake_ctx *ctx = NULL;
    cuabi_result rc;

    *op = NULL;
    if (!p || !p->height || (p->height > 1 && p->pitch < p->width * p->element_size))
        return CUABI_ERROR_INVALID_VALUE;
    rc = node_ctx(named, &ctx);
    if (rc == CUABI_SUCCESS) {
        struct fake_memset m = {p->dst, p->value, p->element_size, p->width, p->pitch, p->height};

        /* Only the element size's low bytes are the value. */
        if (p->element_size == 1)
            m.value &= 0xff;
        else if (p->element_size == 2)
            m.value &= 0xffff;
        rc = fake_memset_op(ctx, &m, op);
    }
    return rc;
}

/* Gives node `n` (of the kind the parameters are) what they make; INVALID_VALUE for another kind's. */
static cuabi_result node_set(struct fake_gnode *n, const cuabi_graph_node_params *p)
{
    struct fake_kparams *kp = NULL;
    struct fake_op *op = NULL;
    cuabi_memset_node_params m;
    cuabi_result rc;

    if (p->type != n->type)
        return CUABI_ERROR_INVALID_VALUE;
    switch (n->type) {
    case CUABI_GRAPH_NODE_TYPE_KERNEL:
        rc = kernel_make(&p->u.kernel, &kp, &op);
        break;
    case CUABI_GRAPH_NODE_TYPE_MEMCPY:
        rc = memcpy_make(&p->u.memcpy.copy, p->u.memcpy.copy_ctx, &op);
        break;
    case CUABI_GRAPH_NODE_TYPE_MEMSET:
        memcpy(&m, &p->u.memset, sizeof(m)); /* _v2's fields start with the first form's */
        rc = memset_make(&m, p->u.memset.ctx, &op);
        break;
    default:
        return fake_gnode_set_plain(n, p);
    }
    if (rc != CUABI_SUCCESS)
        return rc;
    fake_gnode_set_op(n, op);
    if (kp) {
        fake_kparams_free(n->kp);
        n->kp = kp;
    }
    if (n->type == CUABI_GRAPH_NODE_TYPE_MEMCPY)
        n->p.copy = p->u.memcpy.copy;
    else if (n->type == CUABI_GRAPH_NODE_TYPE_MEMSET)
        memcpy(&n->p.memset, &p->u.memset, sizeof(n->p.memset));
    n->known = true;
    return CUABI_SUCCESS;
}

/* A new node of the parameters' kind, after the given nodes. */
static cuabi_result node_add(struct fake_graph_x *g, const cuabi_graph_node *deps, const cuabi_graph_edge_data *edges,
                             size_t ndeps, const cuabi_graph_node_params *p, struct fake_gnode **out)
{
    cuabi_result rc;

    if (p->type != CUABI_GRAPH_NODE_TYPE_KERNEL && p->type != CUABI_GRAPH_NODE_TYPE_MEMCPY &&
        p->type != CUABI_GRAPH_NODE_TYPE_MEMSET)
        return fake_graph_add_plain(g, deps, edges, ndeps, p, out);
    rc = fake_gnode_add(g, p->type, deps, edges, ndeps, NULL, out);
    if (rc == CUABI_SUCCESS && (rc = node_set(*out, p)) != CUABI_SUCCESS)
        fake_gnode_drop(*out);
    return rc;
}

static cuabi_result add_node(enum fake_entry entry, cuabi_graph_node *node, cuabi_graph graph,
                             const cuabi_graph_node *deps, const cuabi_graph_edge_data *edges, size_t ndeps,
                             const cuabi_graph_node_params *p)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_graph_x *g = rc == CUABI_SUCCESS ? graph_of(graph) : NULL;
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS && (!node || !g || !p))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = node_add(g, deps, edges, ndeps, p, &n);
    if (rc == CUABI_SUCCESS)
        *node = (cuabi_graph_node)(void *)n;
    return fake_end(rc);
}

static cuabi_graph_node_params kernel_params(const cuabi_kernel_node_params *p)
{
    cuabi_graph_node_params q = {.type = CUABI_GRAPH_NODE_TYPE_KERNEL};

    if (p)
        q.u.kernel = *p;
    return q;
}

static cuabi_graph_node_params memcpy_params(const cuabi_memcpy3d *p, cuabi_context ctx)
{
    cuabi_graph_node_params q = {.type = CUABI_GRAPH_NODE_TYPE_MEMCPY};

    if (p)
        q.u.memcpy.copy = *p;
    q.u.memcpy.copy_ctx = ctx;
    return q;
}

static cuabi_graph_node_params memset_params(const cuabi_memset_node_params *p, cuabi_context ctx)
{
    cuabi_graph_node_params q = {.type = CUABI_GRAPH_NODE_TYPE_MEMSET};

    if (p)
        memcpy(&q.u.memset, p, sizeof(*p));
    q.u.memset.ctx = ctx;
    return q;
}

/* ---- Adding ---- */

cuabi_result cuGraphAddKernelNode_v2(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                                     size_t ndeps, const cuabi_kernel_node_params *params)
{
    cuabi_graph_node_params p = kernel_params(params);

    return add_node(FAKE_E_cuGraphAddKernelNode_v2, node, graph, deps, NULL, ndeps, params ? &p : NULL);
}

cuabi_result cuGraphAddMemcpyNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                                  size_t ndeps, const cuabi_memcpy3d *copy, cuabi_context ctx)
{
    cuabi_graph_node_params p = memcpy_params(copy, ctx);

    return add_node(FAKE_E_cuGraphAddMemcpyNode, node, graph, deps, NULL, ndeps, copy ? &p : NULL);
}

cuabi_result cuGraphAddMemsetNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                                  size_t ndeps, const cuabi_memset_node_params *params, cuabi_context ctx)
{
    cuabi_graph_node_params p = memset_params(params, ctx);

    return add_node(FAKE_E_cuGraphAddMemsetNode, node, graph, deps, NULL, ndeps, params ? &p : NULL);
}

/* The reserved fields must be zero. */
static bool reserved_clear(const cuabi_graph_node_params *p)
{
    return p && !p->reserved0[0] && !p->reserved0[1] && !p->reserved0[2] && !p->reserved2;
}

cuabi_result cuGraphAddNode_v2(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                               const cuabi_graph_edge_data *edges, size_t ndeps, cuabi_graph_node_params *params)
{
    return add_node(FAKE_E_cuGraphAddNode_v2, node, graph, deps, edges, ndeps, reserved_clear(params) ? params : NULL);
}

cuabi_result cuGraphAddNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps,
                            cuabi_graph_node_params *params)
{
    return add_node(FAKE_E_cuGraphAddNode, node, graph, deps, NULL, ndeps, reserved_clear(params) ? params : NULL);
}

/* ---- Getting and setting a graph's node's parameters ---- */

/* A node of `type` whose parameters are known: INVALID_VALUE for another kind's, NOT_SUPPORTED for a capture's. */
static cuabi_result typed(cuabi_graph_node node, cuabi_graph_node_type type, const void *out, struct fake_gnode **n)
{
    *n = fake_gnode_find(node);
    if (!out || !*n || (*n)->type != type)
        return CUABI_ERROR_INVALID_VALUE;
    return (*n)->known ? CUABI_SUCCESS : CUABI_ERROR_NOT_SUPPORTED;
}

cuabi_result cuGraphKernelNodeGetParams_v2(cuabi_graph_node node, cuabi_kernel_node_params *params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphKernelNodeGetParams_v2, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = typed(node, CUABI_GRAPH_NODE_TYPE_KERNEL, params, &n);
    if (rc == CUABI_SUCCESS && !n->kp)
        rc = CUABI_ERROR_NOT_SUPPORTED;
    if (rc == CUABI_SUCCESS)
        *params = n->kp->p; /* kernelParams (or extra) point at the node's own copies of the values */
    return fake_end(rc);
}

static cuabi_result set_params(enum fake_entry entry, cuabi_graph_node node, const cuabi_graph_node_params *p)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_gnode *n = rc == CUABI_SUCCESS ? fake_gnode_find(node) : NULL;

    if (rc == CUABI_SUCCESS && (!n || !p))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = node_set(n, p);
    return fake_end(rc);
}

cuabi_result cuGraphKernelNodeSetParams_v2(cuabi_graph_node node, const cuabi_kernel_node_params *params)
{
    cuabi_graph_node_params p = kernel_params(params);

    return set_params(FAKE_E_cuGraphKernelNodeSetParams_v2, node, params ? &p : NULL);
}

cuabi_result cuGraphMemcpyNodeGetParams(cuabi_graph_node node, cuabi_memcpy3d *params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphMemcpyNodeGetParams, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = typed(node, CUABI_GRAPH_NODE_TYPE_MEMCPY, params, &n);
    if (rc == CUABI_SUCCESS)
        *params = n->p.copy;
    return fake_end(rc);
}

cuabi_result cuGraphMemcpyNodeSetParams(cuabi_graph_node node, const cuabi_memcpy3d *params)
{
    cuabi_graph_node_params p = memcpy_params(params, NULL);

    return set_params(FAKE_E_cuGraphMemcpyNodeSetParams, node, params ? &p : NULL);
}

cuabi_result cuGraphMemsetNodeGetParams(cuabi_graph_node node, cuabi_memset_node_params *params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphMemsetNodeGetParams, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = typed(node, CUABI_GRAPH_NODE_TYPE_MEMSET, params, &n);
    if (rc == CUABI_SUCCESS)
        *params = n->p.memset;
    return fake_end(rc);
}

cuabi_result cuGraphMemsetNodeSetParams(cuabi_graph_node node, const cuabi_memset_node_params *params)
{
    cuabi_graph_node_params p = memset_params(params, NULL);

    return set_params(FAKE_E_cuGraphMemsetNodeSetParams, node, params ? &p : NULL);
}

cuabi_result cuGraphNodeSetParams(cuabi_graph_node node, cuabi_graph_node_params *params)
{
    return set_params(FAKE_E_cuGraphNodeSetParams, node, reserved_clear(params) ? params : NULL);
}

/* ---- An executable graph's nodes ---- */

static cuabi_result exec_set(enum fake_entry entry, cuabi_graph_exec exec, cuabi_graph_node node,
                             const cuabi_graph_node_params *p)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_graph *x = fake_graph_find(exec, true);
        struct fake_gnode *n = x ? fake_gnode_in_exec((struct fake_graph_x *)(void *)x, fake_gnode_find(node)) : NULL;

        if (!n || !p)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (p->type == CUABI_GRAPH_NODE_TYPE_GRAPH) /* an executable child graph takes new parameters only */
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            rc = node_set(n, p);
    }
    return fake_end(rc);
}

cuabi_result cuGraphExecKernelNodeSetParams_v2(cuabi_graph_exec exec, cuabi_graph_node node,
                                               const cuabi_kernel_node_params *params)
{
    cuabi_graph_node_params p = kernel_params(params);

    return exec_set(FAKE_E_cuGraphExecKernelNodeSetParams_v2, exec, node, params ? &p : NULL);
}

cuabi_result cuGraphExecMemcpyNodeSetParams(cuabi_graph_exec exec, cuabi_graph_node node, const cuabi_memcpy3d *copy,
                                            cuabi_context ctx)
{
    cuabi_graph_node_params p = memcpy_params(copy, ctx);

    return exec_set(FAKE_E_cuGraphExecMemcpyNodeSetParams, exec, node, copy ? &p : NULL);
}

cuabi_result cuGraphExecMemsetNodeSetParams(cuabi_graph_exec exec, cuabi_graph_node node,
                                            const cuabi_memset_node_params *params, cuabi_context ctx)
{
    cuabi_graph_node_params p = memset_params(params, ctx);

    return exec_set(FAKE_E_cuGraphExecMemsetNodeSetParams, exec, node, params ? &p : NULL);
}

cuabi_result cuGraphExecNodeSetParams(cuabi_graph_exec exec, cuabi_graph_node node, cuabi_graph_node_params *params)
{
    return exec_set(FAKE_E_cuGraphExecNodeSetParams, exec, node, reserved_clear(params) ? params : NULL);
}

/* ---- CUDA 10's kernel node parameters: without the kernel and context handles ---- */

static cuabi_kernel_node_params from_v1(const cuabi_kernel_node_params_v1 *p)
{
    cuabi_kernel_node_params q = {0};

    if (p)
        memcpy(&q, p, sizeof(*p));
    return q;
}

cuabi_result cuGraphAddKernelNode(cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                                  size_t ndeps, const cuabi_kernel_node_params_v1 *params)
{
    cuabi_graph_node_params p = {.type = CUABI_GRAPH_NODE_TYPE_KERNEL, .u.kernel = from_v1(params)};

    return add_node(FAKE_E_cuGraphAddKernelNode, node, graph, deps, NULL, ndeps, params ? &p : NULL);
}

cuabi_result cuGraphKernelNodeGetParams(cuabi_graph_node node, cuabi_kernel_node_params_v1 *params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphKernelNodeGetParams, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = typed(node, CUABI_GRAPH_NODE_TYPE_KERNEL, params, &n);
    if (rc == CUABI_SUCCESS && !n->kp)
        rc = CUABI_ERROR_NOT_SUPPORTED;
    if (rc == CUABI_SUCCESS)
        memcpy(params, &n->kp->p, sizeof(*params));
    return fake_end(rc);
}

cuabi_result cuGraphKernelNodeSetParams(cuabi_graph_node node, const cuabi_kernel_node_params_v1 *params)
{
    cuabi_graph_node_params p = {.type = CUABI_GRAPH_NODE_TYPE_KERNEL, .u.kernel = from_v1(params)};

    return set_params(FAKE_E_cuGraphKernelNodeSetParams, node, params ? &p : NULL);
}

cuabi_result cuGraphExecKernelNodeSetParams(cuabi_graph_exec exec, cuabi_graph_node node,
                                            const cuabi_kernel_node_params_v1 *params)
{
    cuabi_graph_node_params p = {.type = CUABI_GRAPH_NODE_TYPE_KERNEL, .u.kernel = from_v1(params)};

    return exec_set(FAKE_E_cuGraphExecKernelNodeSetParams, exec, node, params ? &p : NULL);
}
