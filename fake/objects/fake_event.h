/* SPDX-License-Identifier: MIT */
/*
 * Events (fake_event.c), and the page an exported one shares with other processes.
 */
#ifndef FAKE_EVENT_H
#define FAKE_EVENT_H

#include <sys/types.h>

#include "fake_stream.h"

/* The live event a handle is, or NULL. */
struct fake_event *fake_event_find(const void *handle);

/* A new live event of the context (cuEventCreate without its checks), or NULL when out of memory. */
struct fake_event *fake_event_new(struct fake_ctx *ctx, unsigned flags);

/*
 * After an exported interprocess event was queued for recording: runs its
 * stream up to the record (it may wait, dropping the lock), so that another
 * process that waits for it never waits for this one to synchronise.
 */
void fake_ipc_event_recorded(struct fake_event *e);

/* Whether the last record of an event opened from another process has run there (true for any other event). */
bool fake_ipc_event_done(const struct fake_event *e);

/* Waits, dropping the lock, until fake_ipc_event_done(); or until the other process is gone. */
void fake_ipc_event_wait(const struct fake_event *e);

/* Frees what the event shares with other processes (fake_event_free()). */
void fake_ipc_event_drop(struct fake_event *e);

/* Frees an event, forgetting it in every queue and graph that names it. */
void fake_event_free(struct fake_event *e);

/* Destroys every event of the context; returns how many (a hook). */
unsigned long fake_events_reset(struct fake_ctx *ctx);

/* ---- What an exported event shares with other processes (its handles are fake_ipc.c's) ---- */

/* An event's page, mapped shared by the exporter and every process that opened it. */
struct fake_ipc_event_page {
    uint64_t recorded; /* records queued */
    uint64_t done;     /* of those, records run */
};

struct fake_ipc_event {
    struct fake_ipc_event_page *page;
    int fd;
    uint64_t tag;  /* the page's memfd's name */
    pid_t remote;  /* the exporter, for an event opened from it; 0 for the exporter's own */
};

enum { FAKE_IPC_EVENT_PAGE = 4096 };

#endif
