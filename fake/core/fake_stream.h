/* SPDX-License-Identifier: MIT */
/*
 * Streams (fake_stream.c): the operations they queue and run, with what the
 * stream knows of the events recorded on it and the graphs it captures into.
 */
#ifndef FAKE_STREAM_H
#define FAKE_STREAM_H

#include "fake_core.h"

/* A dependency: done when `stream` has run everything up to `seq`. */
struct fake_dep {
    struct fake_stream *stream;
    uint64_t seq;
};

enum fake_op_kind {
    FAKE_OP_KERNEL,
    FAKE_OP_COPY,    /* any direction; see fake_copy */
    FAKE_OP_HOST_FN,
    FAKE_OP_RECORD,  /* records an event */
    FAKE_OP_WAIT,    /* waits for an event: only deps, or an event in a graph */
    FAKE_OP_MEMSET,  /* cuMemsetD8/16/32Async: see fake_copy.c */
    FAKE_OP_FREE,        /* cuMemFreeAsync: u.value.addr goes back to its pool (fake_pool.c) */
    FAKE_OP_WRITE_VALUE, /* cuStreamWriteValue32/64 (fake_stream_memory.c) */
    FAKE_OP_WAIT_VALUE,  /* cuStreamWaitValue32/64: holds the stream until the value is met */
};

struct fake_kernel;
struct fake_host_args;
struct fake_work;

/*
 * One side of a copy in rows and slices (cuMemcpy2D/3D, copies to and from
 * CUDA arrays): bytes from the side's start to the first one copied, and
 * from a row to the next and a slice to the next.
 */
struct fake_copy_side {
    const void *array; /* a CUDA array's handle, looked up when the copy runs; NULL: the address or host pointer */
    size_t offset, pitch, slice;
};

/* A copy: device addresses are nonzero, else the host pointer (or an array) is the side. */
struct fake_copy {
    uint64_t dst, src;
    void *host_dst;
    const void *host_src;
    size_t bytes;        /* a plain copy's; a row's in rows and slices */
    size_t rows, slices; /* 0: a plain copy */
    struct fake_copy_side dst_side, src_side;
    bool peer; /* cuMemcpyPeerAsync: the devices need no peer access */
    void *staged; /* a queued copy's own copy of its pageable host source, which host_src names; freed with it */
};

struct fake_op {
    struct fake_op *next;
    enum fake_op_kind kind;
    const struct fake_work *work; /* what runs it: KERNEL, COPY, MEMSET, FREE, WRITE_VALUE, WAIT_VALUE */
    uint64_t seq;
    size_t ndeps;
    struct fake_dep *deps;
    union {
        struct {
            const struct fake_kernel *kernel; /* a built-in kernel, or NULL for a host kernel */
            struct fake_host_args *host;      /* a host kernel's launch (fake_host_kernel.c), shared by copies */
            unsigned grid[3], block[3], shared;
            unsigned char args[FAKE_MAX_ARGS];
            struct fake_launch_ex {
                unsigned cluster[3]; /* all 0: none */
                bool cooperative;
                bool serialized;     /* programmatic stream serialization */
                int priority;
            } ex;
        } k;
        struct fake_memset {
            uint64_t dst;
            uint32_t value;
            unsigned size; /* bytes an element: 1, 2 or 4 */
            size_t count;  /* elements a row */
            size_t pitch;  /* bytes from a row to the next (cuMemsetD2D*) */
            size_t rows;   /* 0 or 1: one row */
        } memset;
        struct fake_copy copy;
        struct {
            cuabi_host_fn fn;
            void *user_data;
            cuabi_stream_callback callback; /* cuStreamAddCallback's, called instead of fn when set */
            cuabi_stream handle;            /* the stream as the client named it, told to the callback */
        } host;
        struct fake_event *event; /* RECORD and WAIT */
        struct {
            uint64_t addr, value;
            unsigned width; /* 4 or 8 bytes */
            unsigned cond;  /* CU_STREAM_WAIT_VALUE_* */
        } value; /* FREE, WRITE_VALUE and WAIT_VALUE */
    } u;
};

/*
 * What runs a kind of device work, given by the part that queues it (copies,
 * memsets, kernels, pool frees, stream memory operations), so that the
 * stream runs it without naming that part. Only `run` is required.
 */
struct fake_work {
    bool (*run)(struct fake_stream *s, const struct fake_op *op); /* false: it touched memory it may not */
    bool (*holds)(const struct fake_op *op);   /* it waits for the gate (gpu_fake_gate()): the "hold" kernel */
    bool (*blocked)(const struct fake_op *op); /* it cannot run yet: a wait on a value not met */
    void (*retain)(const struct fake_op *op);  /* a graph copied it: what it holds is shared once more */
    void (*release)(const struct fake_op *op); /* it is freed */
};

struct fake_graph {
    struct fake_graph *next_live;
    struct fake_ctx *ctx;
    struct fake_op *head, *tail; /* nodes, in capture order, without deps */
    bool exec;                   /* an executable graph rather than a graph */
};

struct fake_event {
    struct fake_event *next_live;
    struct fake_ctx *ctx;
    unsigned flags;
    struct fake_stream *stream; /* where last recorded; NULL if never, or once that stream is gone */
    uint64_t seq;
    bool recorded;
    bool timed_once;            /* the last record has run and stamped `time_ns` */
    uint64_t time_ns;
    unsigned ipc_opens;         /* handles opened on it (cuIpcOpenEventHandle) not yet destroyed */
    struct fake_ipc_event *shared; /* what other processes see of it (fake_ipc.c), or NULL */
};

/* ---- fake_stream.c: queues and the work on them ---- */

/*
 * The stream a CUstream names: a live stream; CU_STREAM_LEGACY the current
 * context's legacy stream; CU_STREAM_PER_THREAD the calling thread's
 * per-thread stream of it (made at its first use); NULL the legacy stream,
 * or the per-thread one in a _ptsz/_ptds call. INVALID_HANDLE, a default
 * stream without a current context's error, OUT_OF_MEMORY.
 */
cuabi_result fake_stream_get(cuabi_stream handle, struct fake_stream **out);

/* fake_stream_get() for work queued on the stream: the stream's context must be current (unless lenient). */
cuabi_result fake_stream_for_work(cuabi_stream handle, struct fake_stream **out);

/*
 * Frees a stream, its queued work run first (it may wait, dropping the
 * lock): the handle is invalid once it returns, and the stream's memory
 * goes when the last thread waiting for it has left fake_stream_drain().
 */
void fake_stream_free(struct fake_stream *s);

/* The live stream a handle is, or NULL; handles are compared, never dereferenced. */
struct fake_stream *fake_stream_find(cuabi_stream handle);

/* A new operation of `kind`, run by `work` (NULL for a kind the stream runs itself), zeroed; NULL when out of memory. */
struct fake_op *fake_op_new(enum fake_op_kind kind, const struct fake_work *work);
void fake_op_free(struct fake_op *op);

/* Frees a list of operations linked by `next`. */
void fake_ops_free(struct fake_op *op);

/*
 * Queues `op` (taking it) on the stream: into the capture graph if the stream
 * is capturing, else after the work it is ordered after. A legacy-stream op
 * while a blocking stream of the context captures is CUDA_ERROR_STREAM_CAPTURE_IMPLICIT.
 */
cuabi_result fake_enqueue(struct fake_stream *s, struct fake_op *op);

/* Whether the stream has run everything up to sequence number `seq`. */
bool fake_stream_done(const struct fake_stream *s, uint64_t seq);

/*
 * Runs the stream's work up to `seq`, its dependencies' first (it may wait,
 * dropping the lock); the stream is held meanwhile, so that its destruction
 * by another thread frees it only once this returns.
 */
void fake_stream_drain(struct fake_stream *s, uint64_t seq);

/*
 * What every synchronous operation on the default stream does first: fail if
 * a blocking stream of the context is capturing, else run the legacy
 * stream's and every blocking stream's queued work. In a _ptds call the
 * default stream is the thread's per-thread stream: its work and the legacy
 * stream's run, and its capture fails the operation. Then the caller does
 * its synchronous part.
 */
cuabi_result fake_legacy_sync(struct fake_ctx *ctx);

/* Reads the queues' variables: GPUSHIM_FAKE_STICKY, GPUSHIM_FAKE_PROGRESS. */
void fake_stream_configure(void);

/* Runs all queued work of the context (cuCtxSynchronize); the first fault it met, else success. */
cuabi_result fake_ctx_drain(struct fake_ctx *ctx);

/*
 * Whether a fault of a kernel leaves its context corrupted, as the driver
 * documents for an illegal address, a trap, an assert and the other
 * exceptions: once one of the context's operations met it, the context's
 * work stops and every later call on the context returns it, until the
 * context is destroyed (a primary one: released to zero or reset).
 */
bool fake_result_sticky(cuabi_result rc);

/* Whether any stream of the context is capturing; ends those captures' validity when `invalidate`. */
bool fake_ctx_capturing(struct fake_ctx *ctx, bool invalidate);

/* Whether a blocking stream of the context is capturing; with `invalidate`, that capture is broken. */
bool fake_blocking_capture(struct fake_ctx *ctx, bool invalidate);

/* Destroys every stream of the context, its legacy stream's work run first; returns how many (a hook). */
unsigned long fake_streams_reset(struct fake_ctx *ctx);

/* cuCtxSynchronize's wait (a hook): CAPTURE_UNSUPPORTED while a stream captures (breaking it), else fake_ctx_drain(). */
cuabi_result fake_ctx_synchronize(struct fake_ctx *ctx);

/* Frees the queued work of the device's context's streams without running it (a hook: the device was lost). */
void fake_streams_drop_work(int device);

/* Takes an event being freed out of every queue and graph that names it. */
void fake_stream_forget_event(const struct fake_event *e);

/* Appends an operation to a graph's nodes. */
void fake_graph_append(struct fake_graph *g, struct fake_op *op);

/* Frees a graph not (or no longer) live, and its nodes. */
void fake_graph_free(struct fake_graph *g);

/* Frees the stream's queued work without running it (its device was lost). */
void fake_stream_drop_work(struct fake_stream *s);

/*
 * For a kernel's work (fake_work run): drops the lock while the kernel runs,
 * with the stream marked busy (running_seq) so that its later work and
 * those who wait for it wait, unless an entry point that changes what a
 * kernel may reach is in progress or waiting (fake_begin()); whether it
 * dropped it. fake_kernel_relock() takes it back and wakes the waiters. The
 * kernel reads nothing of the fake's that such an entry point would not change.
 */
bool fake_kernel_unlock(struct fake_stream *s, const struct fake_op *op);
void fake_kernel_relock(struct fake_stream *s, bool unlocked);

/* A new stream of the context (cuStreamCreate without its checks); OUT_OF_MEMORY. */
cuabi_result fake_stream_new(struct fake_ctx *ctx, unsigned flags, struct fake_stream **out);

/* What cuEventQuery does outside lazy mode when the event's record is pending: its stream runs what it can up to it. */
void fake_event_poll(struct fake_event *e);


/* The calling thread's per-thread default stream of the context, made at its first use; OUT_OF_MEMORY. */
cuabi_result fake_per_thread_stream(struct fake_ctx *ctx, struct fake_stream **out);

#endif
