/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's stream capture and graphs. A graph is a DAG of nodes
 * (struct fake_gnode); a node that does work holds the operation a stream
 * runs for it, on the graph's list of operations (so that an event's end
 * reaches it). A capture appends its operations in order; at its end they
 * become a chain of nodes. An executable graph is a copy of the graph's
 * nodes and the order they run in, each operation queued anew at each
 * launch on the launch's stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_builtin.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_event.h"
#include "fake_graph.h"
#include "fake_image.h"
#include "fake_module.h"
#include "fake_stream.h"

/* A user object (cuUserObjectCreate): its references, and what runs when the last goes. */
struct fake_uobj {
    struct fake_uobj *next_live;
    unsigned long refs;
    void *ptr;
    cuabi_host_fn destroy;
};

static struct fake_uobj *uobjs;  /* live */
static struct fake_uobj *udead;  /* their last reference gone: destroyed once the lock is dropped */
static uint64_t node_ids;

static struct fake_graph_x *X(struct fake_graph *g)
{
    return (struct fake_graph_x *)(void *)g;
}

struct fake_graph *fake_graph_find(const void *handle, bool exec)
{
    for (struct fake_graph *g = fake.graphs; g; g = g->next_live)
        if ((const void *)g == handle && g->exec == exec)
            return g;
    return NULL;
}

struct fake_graph_x *fake_graph_live(cuabi_graph handle)
{
    struct fake_graph *g = fake_graph_find(handle, false);

    return g ? X(g) : NULL;
}

static struct fake_graph_x *exec_of(cuabi_graph_exec handle)
{
    struct fake_graph *g = fake_graph_find(handle, true);

    return g ? X(g) : NULL;
}

struct fake_gnode *fake_gnode_find(cuabi_graph_node handle)
{
    if (!handle)
        return NULL;
    for (struct fake_graph *g = fake.graphs; g; g = g->next_live)
        for (struct fake_gnode *n = g->exec ? NULL : X(g)->nodes; n; n = n->next)
            if ((void *)n == (void *)handle)
                return n;
    return NULL;
}

static struct fake_gnode *in_graph(const struct fake_graph_x *g, uint64_t id)
{
    for (struct fake_gnode *n = g->nodes; n; n = n->next) {
        struct fake_gnode *c = n->child ? in_graph(n->child, id) : NULL;

        if (n->id == id)
            return n;
        if (c)
            return c;
    }
    return NULL;
}

struct fake_gnode *fake_gnode_in_exec(struct fake_graph_x *x, const struct fake_gnode *node)
{
    return x && node ? in_graph(x, node->id) : NULL;
}

/* ---- User objects ---- */

static struct fake_uobj *uobj_find(cuabi_user_object handle)
{
    for (struct fake_uobj *u = uobjs; u; u = u->next_live)
        if ((void *)u == (void *)handle)
            return u;
    return NULL;
}

static void uobj_release(struct fake_uobj *u, unsigned long count)
{
    struct fake_uobj **p = &uobjs;

    u->refs = count < u->refs ? u->refs - count : 0;
    if (u->refs)
        return;
    while (*p != u)
        p = &(*p)->next_live;
    *p = u->next_live;
    u->next_live = udead;
    udead = u;
}

/* The destructors of the user objects whose last reference went, taken under the lock. */
static struct fake_uobj *uobj_take_dead(void)
{
    struct fake_uobj *d = udead;

    udead = NULL;
    return d;
}

/* Runs them without the lock: a destructor may not call CUDA, but it may take its time. */
static cuabi_result uobj_run_dead(struct fake_uobj *d, cuabi_result rc)
{
    while (d) {
        struct fake_uobj *next = d->next_live;

        if (d->destroy)
            d->destroy(d->ptr);
        free(d);
        d = next;
    }
    return rc;
}

/* fake_end(), then the destructors of the user objects whose last reference went. */
cuabi_result fake_graph_end(cuabi_result rc)
{
    struct fake_uobj *d = uobj_take_dead();

    return uobj_run_dead(d, fake_end(rc));
}

/* The graph's references to `u` go up by `count` (retain: the object's too). */
static bool graph_uref_add(struct fake_graph_x *g, struct fake_uobj *u, unsigned count, bool retain)
{
    struct fake_graph_uref *r = g->urefs;

    while (r && r->obj != u)
        r = r->next;
    if (!r) {
        if (!(r = calloc(1, sizeof(*r))))
            return false;
        r->obj = u;
        r->next = g->urefs;
        g->urefs = r;
    }
    r->count += count;
    if (retain)
        u->refs += count;
    return true;
}

static void graph_urefs_free(struct fake_graph_x *g)
{
    while (g->urefs) {
        struct fake_graph_uref *r = g->urefs;

        g->urefs = r->next;
        uobj_release(r->obj, r->count);
        free(r);
    }
}

/* ---- Graphs' lifetimes ---- */

static struct fake_graph *graph_new(struct fake_ctx *ctx, bool exec)
{
    struct fake_graph_x *g = calloc(1, sizeof(*g));

    if (g) {
        g->base.ctx = ctx;
        g->base.exec = exec;
    }
    return g ? &g->base : NULL;
}

/* A child graph is live (found, its events forgotten) but not counted: its node owns it. */
static void graph_publish(struct fake_graph *g);

struct fake_graph_x *fake_graph_create(struct fake_ctx *ctx)
{
    struct fake_graph *g = graph_new(ctx, false);

    if (g)
        graph_publish(g);
    return g ? X(g) : NULL;
}

static void graph_publish(struct fake_graph *g)
{
    g->next_live = fake.graphs;
    fake.graphs = g;
    if (!X(g)->owner)
        fake.live[g->exec ? GPU_FAKE_LIVE_GRAPH_EXECS : GPU_FAKE_LIVE_GRAPHS]++;
}

static void ops_unlink(struct fake_graph *g, struct fake_op *op)
{
    struct fake_op **p = &g->head, *prev = NULL;

    while (*p && *p != op) {
        prev = *p;
        p = &(*p)->next;
    }
    if (!*p)
        return;
    *p = op->next;
    if (g->tail == op)
        g->tail = prev;
    op->next = NULL;
}

static void node_free(struct fake_gnode *n)
{
    if (n->op) {
        ops_unlink(&n->graph->base, n->op);
        fake_op_free(n->op);
    }
    if (n->child)
        fake_graph_unlink(&n->child->base);
    fake_kparams_free(n->kp);
    free(n->deps);
    free(n->edges);
    free(n);
}

/* Frees a graph that is not (or no longer) on the live list. */
static void graph_free(struct fake_graph *g)
{
    struct fake_graph_x *x = X(g);

    while (x->nodes) {
        struct fake_gnode *n = x->nodes;

        x->nodes = n->next;
        n->op = NULL; /* on the graph's list, freed with it */
        node_free(n);
    }
    graph_urefs_free(x);
    free(x->order);
    fake_graph_free(g);
}

void fake_graph_unlink(struct fake_graph *g)
{
    struct fake_graph **p = &fake.graphs;

    while (*p && *p != g)
        p = &(*p)->next_live;
    if (*p) {
        *p = g->next_live;
        if (!X(g)->owner)
            fake.live[g->exec ? GPU_FAKE_LIVE_GRAPH_EXECS : GPU_FAKE_LIVE_GRAPHS]--;
    }
    graph_free(g);
}

unsigned long fake_graphs_reset(struct fake_ctx *ctx)
{
    unsigned long n = 0;

    /* Each pass frees at most one graph (with its children) and then starts over: a freed one's link is never read. */
    for (;;) {
        struct fake_graph *g = fake.graphs;

        while (g && (g->ctx != ctx || X(g)->owner))
            g = g->next_live;
        if (!g)
            return n;
        fake_graph_unlink(g);
        n++;
    }
}

/* ---- Nodes ---- */

static struct fake_gnode *node_new(struct fake_graph_x *g, cuabi_graph_node_type type)
{
    struct fake_gnode *n = calloc(1, sizeof(*n));

    if (n) {
        n->graph = g;
        n->type = type;
        n->id = ++node_ids;
        n->known = true;
        if (g->last)
            g->last->next = n;
        else
            g->nodes = n;
        g->last = n;
        g->nnodes++;
    }
    return n;
}

/* Takes the node out of its graph's list and every edge that names it, and frees it. */
void fake_gnode_drop(struct fake_gnode *n)
{
    struct fake_graph_x *g = n->graph;
    struct fake_gnode **p = &g->nodes, *prev = NULL;

    for (struct fake_gnode *m = g->nodes; m; m = m->next)
        for (size_t i = 0; i < m->ndeps;)
            if (m->deps[i] == n) {
                memmove(m->deps + i, m->deps + i + 1, (m->ndeps - i - 1) * sizeof(*m->deps));
                memmove(m->edges + i, m->edges + i + 1, (m->ndeps - i - 1) * sizeof(*m->edges));
                m->ndeps--;
            } else {
                i++;
            }
    while (*p != n) {
        prev = *p;
        p = &(*p)->next;
    }
    *p = n->next;
    if (g->last == n)
        g->last = prev;
    g->nnodes--;
    node_free(n);
}

bool fake_gnode_dep_add(struct fake_gnode *n, struct fake_gnode *from, const cuabi_graph_edge_data *edge)
{
    struct fake_gnode **d = realloc(n->deps, (n->ndeps + 1) * sizeof(*d));
    cuabi_graph_edge_data *e;

    if (!d)
        return false;
    n->deps = d;
    if (!(e = realloc(n->edges, (n->ndeps + 1) * sizeof(*e))))
        return false;
    n->edges = e;
    n->deps[n->ndeps] = from;
    if (edge)
        n->edges[n->ndeps] = *edge;
    else
        memset(&n->edges[n->ndeps], 0, sizeof(*e));
    n->ndeps++;
    return true;
}

bool fake_gnode_has_dep(const struct fake_gnode *n, const struct fake_gnode *from)
{
    for (size_t i = 0; i < n->ndeps; i++)
        if (n->deps[i] == from)
            return true;
    return false;
}

/* The nodes `deps` names: each a node of `g`, none twice. */
static cuabi_result deps_check(const struct fake_graph_x *g, const cuabi_graph_node *deps, size_t ndeps)
{
    if (ndeps && !deps)
        return CUABI_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < ndeps; i++) {
        struct fake_gnode *d = fake_gnode_find(deps[i]);

        if (!d || d->graph != g)
            return CUABI_ERROR_INVALID_VALUE;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i])
                return CUABI_ERROR_INVALID_VALUE;
    }
    return CUABI_SUCCESS;
}

cuabi_result fake_gnode_add(struct fake_graph_x *g, cuabi_graph_node_type type, const cuabi_graph_node *deps,
                            const cuabi_graph_edge_data *edges, size_t ndeps, struct fake_op *op,
                            struct fake_gnode **out)
{
    cuabi_result rc = deps_check(g, deps, ndeps);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS && !(n = node_new(g, type)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; rc == CUABI_SUCCESS && i < ndeps; i++)
        if (!fake_gnode_dep_add(n, fake_gnode_find(deps[i]), edges ? &edges[i] : NULL))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc != CUABI_SUCCESS) {
        if (n)
            fake_gnode_drop(n);
        if (op)
            fake_op_free(op);
        return rc;
    }
    if (op) {
        n->op = op;
        fake_graph_append(&g->base, op);
    }
    *out = n;
    return CUABI_SUCCESS;
}

void fake_gnode_set_op(struct fake_gnode *n, struct fake_op *op)
{
    if (n->op) {
        ops_unlink(&n->graph->base, n->op);
        fake_op_free(n->op);
    }
    n->op = op;
    if (op)
        fake_graph_append(&n->graph->base, op);
}

/* ---- Kernel nodes' parameters ---- */

void fake_kparams_free(struct fake_kparams *kp)
{
    if (kp) {
        free(kp->ptrs);
        free(kp->offsets);
        free(kp->bytes);
        free(kp);
    }
}

/* Points the record's kernelParams (when `params`) or extra (when `extra`) at its own values. */
static void kparams_point(struct fake_kparams *kp, bool params, bool extra)
{
    for (unsigned i = 0; i < kp->count; i++)
        kp->ptrs[i] = kp->bytes + kp->offsets[i];
    kp->p.params = params ? kp->ptrs : NULL;
    kp->extra[0] = (void *)(uintptr_t)1; /* CU_LAUNCH_PARAM_BUFFER_POINTER */
    kp->extra[1] = kp->bytes;
    kp->extra[2] = (void *)(uintptr_t)2; /* CU_LAUNCH_PARAM_BUFFER_SIZE */
    kp->extra[3] = &kp->nbytes;
    kp->extra[4] = NULL;                 /* CU_LAUNCH_PARAM_END */
    kp->p.extra = extra ? kp->extra : NULL;
}

/* `extra`'s buffer and its size: CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE, up to CU_LAUNCH_PARAM_END. */
static cuabi_result extra_parse(void **extra, const void **buffer, size_t *size)
{
    *buffer = NULL;
    *size = 0;
    for (size_t i = 0; i < 64; i += 2) {
        uintptr_t key = (uintptr_t)extra[i];

        if (key == 0)
            return *buffer && *size ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
        if (key == 1)
            *buffer = extra[i + 1];
        else if (key == 2 && extra[i + 1])
            *size = *(const size_t *)extra[i + 1];
        else
            return CUABI_ERROR_INVALID_VALUE;
    }
    return CUABI_ERROR_INVALID_VALUE;
}

/* A record of `count` values in `nbytes`; NULL when out of memory. */
static struct fake_kparams *kparams_alloc(unsigned count, size_t nbytes)
{
    struct fake_kparams *kp = calloc(1, sizeof(*kp));

    if (!kp)
        return NULL;
    kp->count = count;
    kp->nbytes = nbytes;
    kp->bytes = calloc(1, nbytes ? nbytes : 1);
    kp->ptrs = calloc(count ? count : 1, sizeof(void *));
    kp->offsets = calloc(count ? count : 1, sizeof(size_t));
    if (!kp->bytes || !kp->ptrs || !kp->offsets) {
        fake_kparams_free(kp);
        return NULL;
    }
    return kp;
}

cuabi_result fake_kparams_new(const cuabi_kernel_node_params *p, struct fake_kparams **out)
{
    /* A CUkernel is a function of the current context, as it is to a launch. */
    struct fake_function *fn = fake_function_find(p->func ? p->func : (cuabi_function)(void *)p->kern);
    struct fake_kparams *kp;
    unsigned count = 0;
    size_t off = 0;

    *out = NULL;
    if (!fn)
        return p->func || p->kern ? CUABI_ERROR_INVALID_HANDLE : CUABI_ERROR_INVALID_VALUE;
    if (p->params && p->extra)
        return CUABI_ERROR_INVALID_VALUE;
    if (p->extra) {
        const void *buffer;
        size_t size;

        if (extra_parse(p->extra, &buffer, &size) != CUABI_SUCCESS)
            return CUABI_ERROR_INVALID_VALUE;
        if (!(kp = kparams_alloc(0, size)))
            return CUABI_ERROR_OUT_OF_MEMORY;
        memcpy(kp->bytes, buffer, size);
        kp->p = *p;
        kparams_point(kp, false, true);
        *out = kp;
        return CUABI_SUCCESS;
    }
    count = fn->kernel ? (unsigned)fn->kernel->nparams : fn->layout ? fn->layout->count : 0;
    if (count && !p->params)
        return CUABI_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < count; i++) {
        size_t size = fn->kernel ? fn->kernel->sizes[i] : fn->layout->size[i];

        if (!p->params[i])
            return CUABI_ERROR_INVALID_VALUE;
        off += (size + 15) / 16 * 16;
    }
    if (!(kp = kparams_alloc(count, off)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    off = 0;
    /* The values are copied now, as the driver does: the caller's may be gone when the node runs. */
    for (unsigned i = 0; i < count; i++) {
        size_t size = fn->kernel ? fn->kernel->sizes[i] : fn->layout->size[i];

        kp->offsets[i] = off;
        memcpy(kp->bytes + off, p->params[i], size);
        off += (size + 15) / 16 * 16;
    }
    kp->p = *p;
    kparams_point(kp, p->params != NULL, false);
    *out = kp;
    return CUABI_SUCCESS;
}

static struct fake_kparams *kparams_dup(const struct fake_kparams *kp)
{
    struct fake_kparams *c = kparams_alloc(kp->count, kp->nbytes);

    if (c) {
        memcpy(c->bytes, kp->bytes, kp->nbytes);
        memcpy(c->offsets, kp->offsets, kp->count * sizeof(size_t));
        c->p = kp->p;
        kparams_point(c, kp->p.params != NULL, kp->p.extra != NULL);
    }
    return c;
}

/* ---- Copies: clones and executable graphs ---- */

/* A node's operation's copy, without queue links or dependencies. */
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
        if (op->kind == FAKE_OP_COPY)
            op->u.copy.staged = NULL; /* a graph's copies are never staged */
    }
    return op;
}

/* Copies what a node holds into its copy `c` (already in its graph, without edges). */
static bool node_copy_into(struct fake_gnode *c, const struct fake_gnode *n, bool exec);

struct fake_graph_x *fake_graph_copy(const struct fake_graph_x *src, bool exec, struct fake_gnode *owner)
{
    struct fake_graph *base = graph_new(src->base.ctx, exec);
    struct fake_graph_x *g = base ? X(base) : NULL;
    bool ok = g != NULL;

    if (g)
        g->owner = owner;
    for (struct fake_gnode *n = src->nodes; ok && n; n = n->next) {
        struct fake_gnode *c = node_new(g, n->type);

        ok = c && node_copy_into(c, n, exec);
        n->copy = c;
    }
    for (struct fake_gnode *n = src->nodes; ok && n; n = n->next)
        for (size_t i = 0; ok && i < n->ndeps; i++)
            ok = fake_gnode_dep_add(n->copy, n->deps[i]->copy, &n->edges[i]);
    for (const struct fake_graph_uref *r = src->urefs; ok && r; r = r->next)
        ok = graph_uref_add(g, r->obj, r->count, true);
    if (!ok) {
        if (g)
            graph_free(base);
        return NULL;
    }
    graph_publish(base);
    return g;
}

static bool node_copy_into(struct fake_gnode *c, const struct fake_gnode *n, bool exec)
{
    c->id = n->id;
    c->known = n->known;
    c->disabled = n->disabled;
    c->p = n->p;
    if (n->kp && !(c->kp = kparams_dup(n->kp)))
        return false;
    if (n->op) {
        if (!(c->op = op_clone(n->op)))
            return false;
        fake_graph_append(&c->graph->base, c->op);
    }
    if (n->child && !(c->child = fake_graph_copy(n->child, exec, c)))
        return false;
    return true;
}

/* The graph's nodes in an order that respects its edges, into g->order; false for a cycle (or no memory). */
static bool graph_order(struct fake_graph_x *g, bool *cycle)
{
    size_t done = 0;

    *cycle = false;
    free(g->order);
    if (!(g->order = calloc(g->nnodes ? g->nnodes : 1, sizeof(*g->order))))
        return false;
    for (struct fake_gnode *n = g->nodes; n; n = n->next)
        n->copy = NULL; /* not yet placed */
    while (done < g->nnodes) {
        size_t before = done;

        for (struct fake_gnode *n = g->nodes; n; n = n->next) {
            bool ready = !n->copy;

            for (size_t i = 0; ready && i < n->ndeps; i++)
                ready = n->deps[i]->copy != NULL;
            if (ready) {
                n->copy = n;
                g->order[done++] = n;
            }
        }
        if (done == before) {
            *cycle = true;
            return false;
        }
    }
    for (struct fake_gnode *n = g->nodes; n; n = n->next)
        if (n->child && !graph_order(n->child, cycle))
            return false;
    return true;
}

/* Queues the executable graph's work on the stream, in order, a child graph's in its node's place. */
static cuabi_result graph_enqueue(const struct fake_graph_x *x, struct fake_stream *s)
{
    cuabi_result rc = CUABI_SUCCESS;

    for (size_t i = 0; rc == CUABI_SUCCESS && i < x->nnodes; i++) {
        const struct fake_gnode *n = x->order[i];

        if (n->child) {
            rc = graph_enqueue(n->child, s);
        } else if (n->op && !n->disabled) {
            struct fake_op *op = op_clone(n->op);

            rc = op ? fake_enqueue(s, op) : CUABI_ERROR_OUT_OF_MEMORY;
        }
    }
    return rc;
}

/* ---- A capture's operations as nodes ---- */

static cuabi_graph_node_type op_node_type(const struct fake_op *op)
{
    switch (op->kind) {
    case FAKE_OP_KERNEL: return CUABI_GRAPH_NODE_TYPE_KERNEL;
    case FAKE_OP_COPY: return CUABI_GRAPH_NODE_TYPE_MEMCPY;
    case FAKE_OP_MEMSET: return CUABI_GRAPH_NODE_TYPE_MEMSET;
    case FAKE_OP_HOST_FN: return CUABI_GRAPH_NODE_TYPE_HOST;
    case FAKE_OP_RECORD: return CUABI_GRAPH_NODE_TYPE_EVENT_RECORD;
    case FAKE_OP_WAIT: return CUABI_GRAPH_NODE_TYPE_WAIT_EVENT;
    case FAKE_OP_FREE: return CUABI_GRAPH_NODE_TYPE_MEM_FREE;
    case FAKE_OP_WRITE_VALUE:
    case FAKE_OP_WAIT_VALUE: return 12; /* CU_GRAPH_NODE_TYPE_BATCH_MEM_OP */
    }
    return CUABI_GRAPH_NODE_TYPE_EMPTY;
}

/* Each captured operation becomes a node after the one before: a single stream's capture is a chain. */
static bool capture_nodes(struct fake_graph_x *g)
{
    struct fake_gnode *prev = NULL;

    for (struct fake_op *op = g->base.head; op; op = op->next) {
        struct fake_gnode *n = node_new(g, op_node_type(op));

        if (!n || (prev && !fake_gnode_dep_add(n, prev, NULL)))
            return false;
        n->op = op;
        /* What the operation tells of its parameters; a kernel's and a copy's are not all there. */
        n->known = op->kind != FAKE_OP_KERNEL && op->kind != FAKE_OP_COPY;
        if (op->kind == FAKE_OP_MEMSET)
            n->p.memset = (cuabi_memset_node_params){op->u.memset.dst, op->u.memset.pitch, op->u.memset.value,
                                                     op->u.memset.size, op->u.memset.count,
                                                     op->u.memset.rows ? op->u.memset.rows : 1};
        else if (op->kind == FAKE_OP_HOST_FN)
            n->p.host = (cuabi_host_node_params){op->u.host.fn, op->u.host.user_data};
        else if (op->kind == FAKE_OP_RECORD || op->kind == FAKE_OP_WAIT)
            n->p.event = (cuabi_event)(void *)op->u.event;
        prev = n;
    }
    return true;
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
                graph_free(s->capture_graph);
                *graph = NULL;
                rc = CUABI_ERROR_STREAM_CAPTURE_INVALIDATED;
            } else if (!capture_nodes(X(s->capture_graph))) {
                graph_free(s->capture_graph);
                *graph = NULL;
                rc = CUABI_ERROR_OUT_OF_MEMORY;
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

/* ---- Executable graphs ---- */

static cuabi_result instantiate(cuabi_graph_exec *exec, cuabi_graph graph, unsigned long long flags,
                                cuabi_graph_instantiate_params *params)
{
    struct fake_graph_x *g = fake_graph_live(graph), *x = NULL;
    cuabi_result rc = CUABI_SUCCESS;
    unsigned result = CUABI_GRAPH_INSTANTIATE_SUCCESS;
    bool cycle = false;

    /* Device launch and node priorities ask for what the fake's launches do not take: refused, as unknown flags. */
    if (!exec || (flags & ~(unsigned long long)(CUABI_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
                                                 CUABI_GRAPH_INSTANTIATE_FLAG_UPLOAD |
                                                 CUABI_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (!g)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (!(x = fake_graph_copy(g, true, NULL)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    else if (!graph_order(x, &cycle))
        rc = cycle ? CUABI_ERROR_INVALID_VALUE : CUABI_ERROR_OUT_OF_MEMORY;
    if (cycle)
        result = CUABI_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
    else if (rc != CUABI_SUCCESS && g)
        result = CUABI_GRAPH_INSTANTIATE_ERROR;
    if (params) {
        params->err_node = NULL;
        params->result = result;
    }
    if (rc == CUABI_SUCCESS) {
        x->flags = flags;
        *exec = (cuabi_graph_exec)(void *)x;
    } else if (x) {
        fake_graph_unlink(&x->base);
    }
    return rc;
}

cuabi_result cuGraphInstantiateWithFlags(cuabi_graph_exec *exec, cuabi_graph graph, unsigned long long flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphInstantiateWithFlags, true);

    if (rc == CUABI_SUCCESS)
        rc = instantiate(exec, graph, flags, NULL);
    return fake_end(rc);
}

cuabi_result cuGraphInstantiateWithParams(cuabi_graph_exec *exec, cuabi_graph graph,
                                          cuabi_graph_instantiate_params *params)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphInstantiateWithParams, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !params)
        rc = CUABI_ERROR_INVALID_VALUE;
    /* An upload needs a stream of the work's context; it has nothing to move in host memory. */
    if (rc == CUABI_SUCCESS && (params->flags & CUABI_GRAPH_INSTANTIATE_FLAG_UPLOAD))
        rc = fake_stream_for_work(params->upload_stream, &s);
    if (rc == CUABI_SUCCESS)
        rc = instantiate(exec, graph, params->flags, params);
    return fake_end(rc);
}

cuabi_result cuGraphExecGetFlags(cuabi_graph_exec exec, cuabi_uint64 *flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphExecGetFlags, true);
    struct fake_graph_x *x = rc == CUABI_SUCCESS ? exec_of(exec) : NULL;

    if (rc == CUABI_SUCCESS && (!x || !flags))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *flags = x->flags;
    return fake_end(rc);
}

cuabi_result cuGraphLaunch(cuabi_graph_exec exec, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphLaunch, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_graph_x *x = exec_of(exec);

        if (!x)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (x->base.ctx != s->ctx)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        else
            rc = graph_enqueue(x, s); /* in an order that respects the edges, one after another on the stream */
    }
    return fake_end(rc);
}

cuabi_result cuGraphExecDestroy(cuabi_graph_exec exec)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphExecDestroy, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_graph_x *x = exec_of(exec);

        if (!x || x->owner)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            fake_graph_unlink(&x->base);
    }
    return fake_graph_end(rc);
}

/* Why `graph` cannot replace what `x` runs, or SUCCESS: the same nodes, of the same kinds, with the same edges. */
static cuabi_graph_exec_update_result update_check(const struct fake_graph_x *x, const struct fake_graph_x *g,
                                                   const struct fake_gnode **blame)
{
    const struct fake_gnode *n = x->nodes, *m = g->nodes;

    for (; n && m; n = n->next, m = m->next) {
        cuabi_graph_exec_update_result r;

        *blame = m;
        if (n->type != m->type)
            return CUABI_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
        if (n->ndeps != m->ndeps)
            return CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
        if (n->child && (r = update_check(n->child, m->child, blame)) != CUABI_GRAPH_EXEC_UPDATE_SUCCESS)
            return r;
    }
    *blame = NULL;
    if (n || m)
        return CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    /* Each edge joins the nodes at the same places: numbered, as both lists run in order of addition. */
    for (struct fake_gnode *a = x->nodes, *b = g->nodes; a && b; a = a->next, b = b->next)
        b->copy = a;
    for (n = x->nodes, m = g->nodes; n; n = n->next, m = m->next)
        for (size_t i = 0; i < m->ndeps; i++)
            if (!fake_gnode_has_dep(n, m->deps[i]->copy)) {
                *blame = m;
                return CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
            }
    return CUABI_GRAPH_EXEC_UPDATE_SUCCESS;
}

/* The executable node `n` takes graph node `m`'s parameters (same kind); false when out of memory. */
static bool node_take(struct fake_gnode *n, const struct fake_gnode *m)
{
    struct fake_op *op = m->op ? op_clone(m->op) : NULL;
    struct fake_kparams *kp = m->kp ? kparams_dup(m->kp) : NULL;

    if ((m->op && !op) || (m->kp && !kp)) {
        if (op)
            fake_op_free(op);
        fake_kparams_free(kp);
        return false;
    }
    fake_gnode_set_op(n, op);
    fake_kparams_free(n->kp);
    n->kp = kp;
    n->p = m->p;
    n->known = m->known;
    for (struct fake_gnode *c = n->child ? n->child->nodes : NULL, *d = m->child ? m->child->nodes : NULL; c && d;
         c = c->next, d = d->next)
        if (!node_take(c, d))
            return false;
    return true;
}

cuabi_result cuGraphExecUpdate_v2(cuabi_graph_exec exec, cuabi_graph graph, cuabi_graph_exec_update_result_info *info)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphExecUpdate_v2, true);
    struct fake_graph_x *x = exec_of(exec), *g = fake_graph_live(graph);

    if (rc == CUABI_SUCCESS && (!x || !g || !info))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && x->base.ctx != g->base.ctx)
        rc = CUABI_ERROR_INVALID_CONTEXT;
    if (rc == CUABI_SUCCESS) {
        const struct fake_gnode *blame = NULL;

        info->result = update_check(x, g, &blame);
        info->error_node = (cuabi_graph_node)(void *)blame;
        info->error_from_node = NULL;
        if (info->result != CUABI_GRAPH_EXEC_UPDATE_SUCCESS)
            rc = CUABI_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    /* Same shape: each node takes the new one's parameters. */
    for (struct fake_gnode *n = rc == CUABI_SUCCESS ? x->nodes : NULL, *m = g ? g->nodes : NULL; n && m;
         n = n->next, m = m->next)
        if (!node_take(n, m))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
    return fake_end(rc);
}

cuabi_result cuGraphUpload(cuabi_graph_exec exec, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphUpload, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_graph_x *x = exec_of(exec);

        /* Nothing to upload in host memory: the checks are all there is. */
        if (!x)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (x->base.ctx != s->ctx)
            rc = CUABI_ERROR_INVALID_CONTEXT;
    }
    return fake_end(rc);
}

/* The executable graph's node made from graph node `node`, of `type`; INVALID_VALUE otherwise. */
static cuabi_result exec_node(cuabi_graph_exec exec, cuabi_graph_node node, struct fake_gnode **out)
{
    struct fake_graph_x *x = exec_of(exec);

    *out = x ? fake_gnode_in_exec(x, fake_gnode_find(node)) : NULL;
    return *out ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
}

/* An executable child graph node takes a graph of the same shape as its own. */
static cuabi_result exec_child(struct fake_gnode *n, cuabi_graph child)
{
    struct fake_graph_x *c = fake_graph_live(child);
    const struct fake_gnode *blame = NULL;

    if (!c || n->type != CUABI_GRAPH_NODE_TYPE_GRAPH || !n->child ||
        update_check(n->child, c, &blame) != CUABI_GRAPH_EXEC_UPDATE_SUCCESS)
        return CUABI_ERROR_INVALID_VALUE;
    for (struct fake_gnode *a = n->child->nodes, *b = c->nodes; a && b; a = a->next, b = b->next)
        if (!node_take(a, b))
            return CUABI_ERROR_OUT_OF_MEMORY;
    return CUABI_SUCCESS;
}

cuabi_result cuGraphExecChildGraphNodeSetParams(cuabi_graph_exec exec, cuabi_graph_node node, cuabi_graph child)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphExecChildGraphNodeSetParams, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = exec_node(exec, node, &n);
    if (rc == CUABI_SUCCESS)
        rc = exec_child(n, child);
    return fake_end(rc);
}

/* Only kernel, memcpy and memset nodes can be turned off and on. */
static bool can_disable(const struct fake_gnode *n)
{
    return n->type == CUABI_GRAPH_NODE_TYPE_KERNEL || n->type == CUABI_GRAPH_NODE_TYPE_MEMCPY ||
           n->type == CUABI_GRAPH_NODE_TYPE_MEMSET;
}

cuabi_result cuGraphNodeSetEnabled(cuabi_graph_exec exec, cuabi_graph_node node, unsigned int enabled)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphNodeSetEnabled, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = exec_node(exec, node, &n);
    if (rc == CUABI_SUCCESS && !can_disable(n))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        n->disabled = !enabled;
    return fake_end(rc);
}

cuabi_result cuGraphNodeGetEnabled(cuabi_graph_exec exec, cuabi_graph_node node, unsigned int *enabled)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphNodeGetEnabled, true);
    struct fake_gnode *n = NULL;

    if (rc == CUABI_SUCCESS)
        rc = enabled ? exec_node(exec, node, &n) : CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !can_disable(n))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *enabled = !n->disabled;
    return fake_end(rc);
}

/* ---- User objects ---- */

cuabi_result cuUserObjectCreate(cuabi_user_object *object, void *ptr, cuabi_host_fn destroy, unsigned int initial,
                                unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuUserObjectCreate, true);
    struct fake_uobj *u = NULL;

    if (rc == CUABI_SUCCESS && (!object || !destroy || !initial || flags != CUABI_USER_OBJECT_NO_DESTRUCTOR_SYNC))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !(u = calloc(1, sizeof(*u))))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        u->refs = initial;
        u->ptr = ptr;
        u->destroy = destroy;
        u->next_live = uobjs;
        uobjs = u;
        *object = (cuabi_user_object)(void *)u;
    }
    return fake_end(rc);
}

cuabi_result cuUserObjectRetain(cuabi_user_object object, unsigned int count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuUserObjectRetain, true);
    struct fake_uobj *u = rc == CUABI_SUCCESS ? uobj_find(object) : NULL;

    if (rc == CUABI_SUCCESS && (!u || !count))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        u->refs += count;
    return fake_end(rc);
}

cuabi_result cuUserObjectRelease(cuabi_user_object object, unsigned int count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuUserObjectRelease, true);
    struct fake_uobj *u = rc == CUABI_SUCCESS ? uobj_find(object) : NULL;

    if (rc == CUABI_SUCCESS && (!u || !count))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        uobj_release(u, count);
    return fake_graph_end(rc);
}

cuabi_result cuGraphRetainUserObject(cuabi_graph graph, cuabi_user_object object, unsigned int count,
                                     unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphRetainUserObject, true);
    struct fake_graph_x *g = rc == CUABI_SUCCESS ? fake_graph_live(graph) : NULL;
    struct fake_uobj *u = rc == CUABI_SUCCESS ? uobj_find(object) : NULL;

    if (rc == CUABI_SUCCESS && (!g || !u || !count || (flags & ~(unsigned)CUABI_GRAPH_USER_OBJECT_MOVE)))
        rc = CUABI_ERROR_INVALID_VALUE;
    /* MOVE: the caller's references become the graph's; else the graph takes new ones. */
    if (rc == CUABI_SUCCESS && !graph_uref_add(g, u, count, !(flags & CUABI_GRAPH_USER_OBJECT_MOVE)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    return fake_end(rc);
}

cuabi_result cuGraphReleaseUserObject(cuabi_graph graph, cuabi_user_object object, unsigned int count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphReleaseUserObject, true);
    struct fake_graph_x *g = rc == CUABI_SUCCESS ? fake_graph_live(graph) : NULL;
    struct fake_uobj *u = rc == CUABI_SUCCESS ? uobj_find(object) : NULL;
    struct fake_graph_uref **p = g ? &g->urefs : NULL;

    if (rc == CUABI_SUCCESS && (!g || !u || !count))
        rc = CUABI_ERROR_INVALID_VALUE;
    while (rc == CUABI_SUCCESS && *p && (*p)->obj != u)
        p = &(*p)->next;
    /* More than the graph holds is an invalid value, as the driver says. */
    if (rc == CUABI_SUCCESS && (!*p || (*p)->count < count))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        struct fake_graph_uref *r = *p;

        r->count -= count;
        if (!r->count) {
            *p = r->next;
            free(r);
        }
        uobj_release(u, count);
    }
    return fake_graph_end(rc);
}
