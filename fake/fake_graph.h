/* SPDX-License-Identifier: MIT */
/*
 * Graphs and executable graphs (fake_graph.c).
 */
#ifndef FAKE_GRAPH_H
#define FAKE_GRAPH_H

#include "fake_stream.h"

/* The live graph (exec false) or executable graph a handle is, or NULL. */
struct fake_graph *fake_graph_find(const void *handle, bool exec);

/* Frees a live graph. */
void fake_graph_unlink(struct fake_graph *g);

/* Destroys every graph and executable graph of the context; returns how many (a hook). */
unsigned long fake_graphs_reset(struct fake_ctx *ctx);

#endif
