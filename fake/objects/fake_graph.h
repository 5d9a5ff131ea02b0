/* SPDX-License-Identifier: MIT */
/*
 * Graphs and executable graphs (fake_graph.c): a graph is a DAG of nodes;
 * a node that does work holds the operation a stream runs for it, and
 * fake_graph_work.c makes those of kernels, copies and fills.
 */
#ifndef FAKE_GRAPH_H
#define FAKE_GRAPH_H

#include "fake_stream.h"

struct fake_graph_x;

/* A kernel node's parameters as given, with its own copies of the values (kernelParams or extra's buffer). */
struct fake_kparams {
    cuabi_kernel_node_params p; /* params and extra point into this record, or are NULL */
    unsigned count;             /* parameters */
    size_t nbytes;              /* extra's buffer's bytes, or the values' */
    void **ptrs;                /* [count] into bytes */
    size_t *offsets;            /* [count] */
    unsigned char *bytes;
    void *extra[5];             /* BUFFER_POINTER, bytes, BUFFER_SIZE, &nbytes, END */
};

struct fake_gnode {
    struct fake_gnode *next;     /* the graph's nodes, in order of addition */
    struct fake_graph_x *graph;
    cuabi_graph_node_type type;
    uint64_t id;                 /* shared with its copies in clones and executable graphs */
    struct fake_op *op;          /* what it runs, on the graph's list of operations; NULL: nothing */
    struct fake_graph_x *child;  /* a child graph node's own graph */
    size_t ndeps;
    struct fake_gnode **deps;
    cuabi_graph_edge_data *edges; /* [ndeps] */
    bool disabled;               /* in an executable graph (cuGraphNodeSetEnabled) */
    struct fake_gnode *copy;     /* scratch, while the graph is copied */
    bool known;                  /* its parameters below are known (a captured node's may not be) */
    struct fake_kparams *kp;     /* a kernel node's */
    union {
        cuabi_memcpy3d copy;
        cuabi_memset_node_params memset;
        cuabi_host_node_params host;
        cuabi_event event;
    } p;
};

struct fake_graph_uref {
    struct fake_graph_uref *next;
    struct fake_uobj *obj;
    unsigned count;
};

/* A graph: the queue's view (base: the operations of its nodes) and its nodes. */
struct fake_graph_x {
    struct fake_graph base;
    struct fake_gnode *nodes, *last;
    size_t nnodes;
    struct fake_gnode *owner;    /* a child graph's node, or NULL */
    unsigned long long flags;    /* an executable graph's instantiation flags */
    struct fake_graph_uref *urefs;
    struct fake_gnode **order;   /* an executable graph's nodes in the order they run */
};

/* The live graph (exec false) or executable graph a handle is, or NULL. */
struct fake_graph *fake_graph_find(const void *handle, bool exec);

/* Frees a live graph. */
void fake_graph_unlink(struct fake_graph *g);

/* Destroys every graph and executable graph of the context; returns how many (a hook). */
unsigned long fake_graphs_reset(struct fake_ctx *ctx);

/* The live graph (not an executable one, perhaps a child graph) a handle is, or NULL. */
struct fake_graph_x *fake_graph_live(cuabi_graph handle);

/* A new live graph of the context, empty; NULL when out of memory. */
struct fake_graph_x *fake_graph_create(struct fake_ctx *ctx);

/*
 * A live copy of `src`: a graph (exec false) or an executable graph, nodes,
 * edges, user object references and child graphs (of node `owner`, or NULL).
 * NULL when out of memory. Node ids are kept: fake_gnode_in_exec() and
 * cuGraphNodeFindInClone find a node's copy by its id.
 */
struct fake_graph_x *fake_graph_copy(const struct fake_graph_x *src, bool exec, struct fake_gnode *owner);

/* fake_end(), then the destructors of the user objects whose last reference went, without the lock. */
cuabi_result fake_graph_end(cuabi_result rc);

/* Whether `n` depends on `from`; adds that edge (its data, or the default's for NULL), false out of memory. */
bool fake_gnode_has_dep(const struct fake_gnode *n, const struct fake_gnode *from);
bool fake_gnode_dep_add(struct fake_gnode *n, struct fake_gnode *from, const cuabi_graph_edge_data *edge);

/* The node of a live graph (not an executable one) a handle is, or NULL. */
struct fake_gnode *fake_gnode_find(cuabi_graph_node handle);

/* The node of the executable graph made from `node` (an instance of it), or NULL. */
struct fake_gnode *fake_gnode_in_exec(struct fake_graph_x *x, const struct fake_gnode *node);

/*
 * A new node of `type` in `g` after the given nodes (each of g, none
 * twice), holding `op` (taken, even on failure; may be NULL).
 */
cuabi_result fake_gnode_add(struct fake_graph_x *g, cuabi_graph_node_type type, const cuabi_graph_node *deps,
                            const cuabi_graph_edge_data *edges, size_t ndeps, struct fake_op *op,
                            struct fake_gnode **out);

/* Removes a node from its graph, with every edge that names it, and frees it. */
void fake_gnode_drop(struct fake_gnode *n);

/* Gives the node `op` (taken; may be NULL) in place of what it ran. */
void fake_gnode_set_op(struct fake_gnode *n, struct fake_op *op);

/* A copy of kernel parameters whose values are `f`'s (sizes from its entry); INVALID_VALUE, OUT_OF_MEMORY. */
cuabi_result fake_kparams_new(const cuabi_kernel_node_params *p, struct fake_kparams **out);
void fake_kparams_free(struct fake_kparams *kp);

/* The node parameters of cuGraphAddNode and the like that fake_graph.c serves: host, event, child, empty. */
cuabi_result fake_graph_add_plain(struct fake_graph_x *g, const cuabi_graph_node *deps,
                                  const cuabi_graph_edge_data *edges, size_t ndeps,
                                  const cuabi_graph_node_params *p, struct fake_gnode **out);
cuabi_result fake_gnode_set_plain(struct fake_gnode *n, const cuabi_graph_node_params *p);

#endif
