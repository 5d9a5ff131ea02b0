/* SPDX-License-Identifier: MIT */
/*
 * Call tracing (see trace.h): a wrapper of every entry point, generated from
 * entry_points.h, that times the call to the driver's pointer and writes an
 * event for it to the trace file; at exit the file gets its closing record,
 * and the summary is printed.
 *
 * The file is made at the load (a new file renamed over the path) and mapped
 * shared; each call's event line is copied into the mapping as the call
 * returns, at an offset claimed with one atomic add, into room the file was
 * grown to ahead (a MiB at a time, filled with newlines). A shared mapping's
 * bytes are the file's own, in the page cache, at once: what the file holds
 * is the trace so far, at any moment, at no system call a call. So the calls
 * made before exec() (which runs no exit handler and unmaps the process's
 * memory), _exit() or a fatal signal are in the file, which then lacks only
 * its closing record (and ends in blank lines); gpushim-trace and Perfetto
 * read such a file as far as it goes. gpushim interposes no exec function:
 * the mapping needs none, and holds for every way a process can end.
 * Calls past GPUSHIM_TRACE_MAX_EVENTS are counted as dropped, and the file
 * says how many.
 *
 * GPU spans: around a launch or a copy the wrapper records two timing events
 * on the call's stream; the pair waits in a bounded FIFO until the GPU has
 * passed the second one. Its duration is the events' elapsed time. Its start
 * is the previous span's start on the same stream plus the elapsed time
 * between the two start events, and never earlier than the host's submission
 * or the previous span's end: so the spacing on a track is the GPU's own, and
 * only the first span of a track is placed by the host clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gpushim/driver.h"

#include "base/env.h"
#include "base/file.h"
#include "base/text.h"
#include "sys/driver/cuda_symbol_index.h"
#include "trace.h"

enum {
    TRACE_MAX_ARGS = 12,
    TRACE_DEFAULT_EVENTS = 262144,
    TRACE_PENDING_MAX = 1024, /* GPU spans in flight; the oldest is waited for beyond it */
    TRACE_TRACKS_MAX = 256,   /* streams with a GPU track */
    TRACE_TRACK_TID = 1 << 30, /* GPU tracks' tids: above any real one (pid_max <= 2^22) */
};

enum trace_id {
#define GPU__ENTRY(need, name, symbol, params, args) TRACE_ID_##name,
#include "sys/driver/entry_points.h"
#undef GPU__ENTRY
    TRACE_ENTRY_COUNT,
    /* Then libgpushim-cuda's forwarded calls, by symbol (cuda_symbols.h). */
    TRACE_ID_COUNT = TRACE_ENTRY_COUNT + GPU__CUDA_SYMBOL_COUNT
};

static const char *const entry_names[TRACE_ID_COUNT] = {
#define GPU__ENTRY(need, name, symbol, params, args) #name,
#include "sys/driver/entry_points.h"
#undef GPU__ENTRY
#define GPU__CUDA_SYMBOL(name, kinds, params) #name,
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
};

/* The parameters' names, "(a, b)", as the lists spell them. */
static const char *const entry_args[TRACE_ID_COUNT] = {
#define GPU__ENTRY(need, name, symbol, params, args) #args,
#include "sys/driver/entry_points.h"
#undef GPU__ENTRY
#define GPU__CUDA_SYMBOL(name, kinds, params) "(" params ")",
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
};

/* The launches and copies, whose GPU time GPUSHIM_TRACE_GPU=1 measures. */
static const bool entry_on_gpu[TRACE_ENTRY_COUNT] = {
    [TRACE_ID_cuLaunchKernel] = true,    [TRACE_ID_cuGraphLaunch] = true,     [TRACE_ID_cuMemcpyHtoD] = true,
    [TRACE_ID_cuMemcpyDtoH] = true,      [TRACE_ID_cuMemcpyDtoD] = true,      [TRACE_ID_cuMemcpyHtoDAsync] = true,
    [TRACE_ID_cuMemcpyDtoHAsync] = true, [TRACE_ID_cuMemcpyDtoDAsync] = true, [TRACE_ID_cuMemcpyPeerAsync] = true,
};

/* How an argument is written: a signed or unsigned number, an address, handle or pointer ("0x..."), a double. */
enum trace_kind { KIND_INT = 1, KIND_UINT, KIND_PTR, KIND_BYTES, KIND_DOUBLE };

struct trace_event {
    uint16_t entry;
    uint8_t argc;
    uint8_t kinds[TRACE_MAX_ARGS];
    cuabi_result rc;
    uint32_t tid;
    uint64_t ts_ns;
    uint64_t dur_ns;
    uint64_t args[TRACE_MAX_ARGS];
};

/* One call being traced, on the wrapper's stack. */
struct trace_call {
    struct trace_event ev; /* everything but `ready`, copied into a slot at the end */
    cuabi_stream stream;   /* the call's stream argument, if it has one (NULL: the legacy stream) */
    bool on_gpu;           /* timing events were recorded before the call */
    cuabi_event start, end;
    cuabi_context ctx;
};

struct trace_stats {
    atomic_ulong calls;
    atomic_ulong failed;
    atomic_ullong total_ns;
    atomic_ullong min_ns;
    atomic_ullong max_ns;
};

struct trace_pending {
    uint16_t entry;
    unsigned track;
    cuabi_event start, end;
    uint64_t submit_ns;
};

struct trace_track {
    cuabi_context ctx;
    cuabi_stream stream;
    bool retired;        /* its stream was destroyed: a new stream of that handle gets a new track */
    cuabi_event anchor;  /* the last resolved span's start event, or NULL */
    uint64_t anchor_ns;  /* where that span was placed */
    uint64_t last_end_ns;
};

struct trace_span {
    uint16_t entry;
    unsigned track;
    uint64_t ts_ns;
    uint64_t dur_ns;
};

static struct gpu__driver real;
static const gpu_load_report *load_report; /* the loader's, its stages' times filled at install */
static bool want_file, want_gpu, want_summary;
static char trace_path[4096];
static int trace_fd = -1;          /* the file at trace_path, from the load */
static struct stat trace_stat;     /* which file that is: another process's trace may replace it at the path */
static atomic_uint file_writers;   /* threads inside an event's write */
static atomic_bool file_closed;    /* the closing record is being written: no event goes after it */
static atomic_bool in_fork_child;  /* a child of fork(): the file is the parent's */
static char *file_map;             /* the file, mapped shared: file_reserve bytes of address space */
static size_t file_reserve;
static atomic_size_t file_end;     /* the next event's offset: the bytes before it are claimed */
static atomic_size_t file_size;    /* what the file was grown to: room up to there is mapped and blank */
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_size_t written_events;
static atomic_size_t in_flight;    /* calls begun and not yet returned */
static pid_t trace_pid;
static uint32_t load_tid;
static uint64_t install_ns; /* the table was just filled: the end of the load */
static uint64_t epoch_ns;   /* ts 0: the start of the load (of the first image, after exec), from the load report */
static unsigned long long start_ticks; /* when this process started (/proc/self/stat); exec() keeps it; 0: unknown */
static size_t max_events = TRACE_DEFAULT_EVENTS;

static atomic_size_t next_event;
static atomic_size_t dropped_events;
static struct trace_stats stats[TRACE_ID_COUNT];
static atomic_bool finished;

/* GPU spans: everything below is guarded by gpu_lock. */
static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_size_t pending_count; /* read without the lock, to skip polling when zero */
static struct trace_pending pending[TRACE_PENDING_MAX]; /* oldest first */
static size_t pending_n;
static struct trace_track tracks[TRACE_TRACKS_MAX];
static size_t track_count;
static struct trace_span *spans;
static size_t span_count;
static size_t spans_dropped;    /* resolved, but past max_events, or no track was left */
static size_t spans_unfinished; /* the GPU had not passed them when they had to be given up */
static size_t spans_failed;     /* a timing event could not be created, recorded or read */

static _Thread_local uint32_t tls_tid;

static uint32_t thread_id(void)
{
    if (!tls_tid)
        tls_tid = (uint32_t)syscall(SYS_gettid);
    return tls_tid;
}

/* ---- Arguments, by type (C11 _Generic): numbers as numbers, handles and pointers as addresses ---- */

static void put_arg(struct trace_event *ev, enum trace_kind kind, uint64_t bits)
{
    if (ev->argc < TRACE_MAX_ARGS) {
        ev->kinds[ev->argc] = (uint8_t)kind;
        ev->args[ev->argc++] = bits;
    }
}

/*
 * One function per kind of type, all called alike, with the argument's
 * address and size (every argument is a parameter, so it has an address).
 */
/* An integer argument of 4 or 8 bytes, widened to 64 bits: sign-extended where `kind` is KIND_INT. */
static void put_integer(struct trace_call *tc, const void *p, size_t size, enum trace_kind kind)
{
    uint32_t v32;
    uint64_t v64;

    if (size == sizeof(v32)) {
        memcpy(&v32, p, sizeof(v32));
        v64 = kind == KIND_INT ? (uint64_t)(int64_t)(int32_t)v32 : v32;
    } else {
        memcpy(&v64, p, sizeof(v64));
    }
    put_arg(&tc->ev, kind, v64);
}

static void arg_int(struct trace_call *tc, const void *p, size_t size)
{
    put_integer(tc, p, size, KIND_INT);
}

static void arg_uint(struct trace_call *tc, const void *p, size_t size)
{
    put_integer(tc, p, size, KIND_UINT);
}

/* unsigned long long is CUdeviceptr (and 64-bit flags): an address; sizes are size_t. */
static void arg_hex(struct trace_call *tc, const void *p, size_t size)
{
    unsigned long long v;

    memcpy(&v, p, sizeof(v));
    put_arg(&tc->ev, KIND_PTR, v);
}

static void arg_stream(struct trace_call *tc, const void *p, size_t size)
{
    memcpy(&tc->stream, p, sizeof(tc->stream));
    put_arg(&tc->ev, KIND_PTR, (uint64_t)(uintptr_t)tc->stream);
}

/* Anything else: an address-sized value (a pointer, a function pointer) as an address, a struct by its size. */
static void arg_other(struct trace_call *tc, const void *p, size_t size)
{
    uint64_t bits = 0;

    if (size == sizeof(bits)) {
        memcpy(&bits, p, sizeof(bits));
        put_arg(&tc->ev, KIND_PTR, bits);
    } else {
        put_arg(&tc->ev, KIND_BYTES, size);
    }
}

#define TRACE_ARG(x) \
    _Generic((x), \
        int: arg_int, \
        long: arg_int, \
        long long: arg_int, \
        unsigned int: arg_uint, \
        unsigned long: arg_uint, \
        unsigned long long: arg_hex, \
        cuabi_stream: arg_stream, \
        default: arg_other)(tc, &(x), sizeof(x));

/*
 * TRACE_MAP(f, a, b, ...) is f(a) f(b) ...: up to TRACE_MAX_ARGS arguments,
 * and none for an empty list (an empty argument pastes into the probe below,
 * which an identifier does not).
 */
#define TRACE_CAT(a, b) TRACE_CAT_(a, b)
#define TRACE_CAT_(a, b) a##b
#define TRACE_SECOND(...) TRACE_SECOND_(__VA_ARGS__, ~)
#define TRACE_SECOND_(a, b, ...) b
#define TRACE_PROBE_EMPTY_ ~, E
#define TRACE_ONE_KIND(x) TRACE_SECOND(TRACE_CAT_(TRACE_PROBE_EMPTY_, x), X)
#define TRACE_COUNT(...) TRACE_COUNT_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, ~)
#define TRACE_COUNT_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, n, ...) n
#define TRACE_MAP(f, ...) TRACE_CAT(TRACE_MAP_, TRACE_COUNT(__VA_ARGS__))(f, __VA_ARGS__)
#define TRACE_MAP_1(f, x) TRACE_CAT(TRACE_MAP_1, TRACE_ONE_KIND(x))(f, x)
#define TRACE_MAP_1E(f, x)
#define TRACE_MAP_1X(f, x) f(x)
#define TRACE_MAP_2(f, x, ...) f(x) TRACE_MAP_1X(f, __VA_ARGS__)
#define TRACE_MAP_3(f, x, ...) f(x) TRACE_MAP_2(f, __VA_ARGS__)
#define TRACE_MAP_4(f, x, ...) f(x) TRACE_MAP_3(f, __VA_ARGS__)
#define TRACE_MAP_5(f, x, ...) f(x) TRACE_MAP_4(f, __VA_ARGS__)
#define TRACE_MAP_6(f, x, ...) f(x) TRACE_MAP_5(f, __VA_ARGS__)
#define TRACE_MAP_7(f, x, ...) f(x) TRACE_MAP_6(f, __VA_ARGS__)
#define TRACE_MAP_8(f, x, ...) f(x) TRACE_MAP_7(f, __VA_ARGS__)
#define TRACE_MAP_9(f, x, ...) f(x) TRACE_MAP_8(f, __VA_ARGS__)
#define TRACE_MAP_10(f, x, ...) f(x) TRACE_MAP_9(f, __VA_ARGS__)
#define TRACE_MAP_11(f, x, ...) f(x) TRACE_MAP_10(f, __VA_ARGS__)
#define TRACE_MAP_12(f, x, ...) f(x) TRACE_MAP_11(f, __VA_ARGS__)
#define TRACE_ARGS(...) TRACE_MAP(TRACE_ARG, __VA_ARGS__)

/* ---- GPU spans ---- */

static void event_drop(cuabi_event *e)
{
    if (*e)
        real.cuEventDestroy(*e);
    *e = NULL;
}

/* The track of (ctx, stream), made on first use; TRACE_TRACKS_MAX when none is left. */
static unsigned track_of(cuabi_context ctx, cuabi_stream stream)
{
    for (size_t i = 0; i < track_count; i++)
        if (!tracks[i].retired && tracks[i].ctx == ctx && tracks[i].stream == stream)
            return (unsigned)i;
    if (track_count == TRACE_TRACKS_MAX)
        return TRACE_TRACKS_MAX;
    tracks[track_count] = (struct trace_track){.ctx = ctx, .stream = stream};
    return (unsigned)track_count++;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t ms_to_ns(float ms)
{
    return ms > 0 ? (uint64_t)((double)ms * 1e6) : 0;
}

/* Places pending span `p`, whose end event the GPU has passed, and frees its events but the kept one. */
static void span_resolve(struct trace_pending *p)
{
    struct trace_track *t = p->track < TRACE_TRACKS_MAX ? &tracks[p->track] : NULL;
    float ms = 0, since = 0;

    if (real.cuEventElapsedTime(&ms, p->start, p->end) != CUABI_SUCCESS) {
        spans_failed++;
    } else if (!t || span_count >= max_events) {
        spans_dropped++;
    } else {
        uint64_t ts = max_u64(p->submit_ns, t->last_end_ns);

        if (t->anchor && real.cuEventElapsedTime(&since, t->anchor, p->start) == CUABI_SUCCESS)
            ts = max_u64(ts, t->anchor_ns + ms_to_ns(since));
        spans[span_count++] = (struct trace_span){p->entry, p->track, ts, ms_to_ns(ms)};
        event_drop(&t->anchor);
        t->anchor = p->start;
        t->anchor_ns = ts;
        t->last_end_ns = ts + ms_to_ns(ms);
        p->start = NULL;
    }
    event_drop(&p->start);
    event_drop(&p->end);
}

static void pending_set(size_t n)
{
    pending_n = n;
    atomic_store_explicit(&pending_count, n, memory_order_relaxed);
}

/*
 * Resolves the pending spans the GPU has finished, in order on each track (a
 * stream's work finishes in order): a track's first unfinished span holds
 * back the later ones of that track only. With the lock.
 */
static void spans_poll(void)
{
    bool blocked[TRACE_TRACKS_MAX + 1] = {false};
    size_t kept = 0;

    for (size_t i = 0; i < pending_n; i++) {
        struct trace_pending *p = &pending[i];
        cuabi_result rc = blocked[p->track] ? CUABI_ERROR_NOT_READY : real.cuEventQuery(p->end);

        if (rc == CUABI_ERROR_NOT_READY) {
            blocked[p->track] = true;
            pending[kept++] = *p;
        } else if (rc == CUABI_SUCCESS) {
            span_resolve(p);
        } else {
            spans_failed++;
            event_drop(&p->start);
            event_drop(&p->end);
        }
    }
    pending_set(kept);
}

/*
 * Before a context may go away (a primary-context release; `wait`: for the
 * GPU to pass every pending span) or at exit (no waiting: a program may exit
 * with work that never ends): every span finished is resolved, the rest given
 * up, and the kept events freed, so that no event handle outlives its context.
 */
static void spans_retire_all(bool wait)
{
    /* Waiting for the newest span finishes its whole track: at most one wait per span, however it goes. */
    for (size_t tries = pending_n; wait && pending_n && tries; tries--) {
        real.cuEventSynchronize(pending[pending_n - 1].end);
        spans_poll();
    }
    spans_poll();
    for (size_t i = 0; i < pending_n; i++) {
        spans_unfinished++;
        event_drop(&pending[i].start);
        event_drop(&pending[i].end);
    }
    pending_set(0);
    for (size_t i = 0; i < track_count; i++)
        event_drop(&tracks[i].anchor);
}

/* Records the start event of a launch or copy on its stream; false (and no span) where that cannot be done. */
static bool gpu_begin(struct trace_call *tc)
{
    cuabi_stream_capture_status capture = CUABI_STREAM_CAPTURE_STATUS_NONE;

    tc->start = tc->end = NULL;
    tc->ctx = NULL;
    /* A capture would take the records into its graph: no span for captured work. */
    if (real.cuCtxGetCurrent(&tc->ctx) != CUABI_SUCCESS || !tc->ctx ||
        (real.cuStreamIsCapturing &&
         (real.cuStreamIsCapturing(tc->stream, &capture) != CUABI_SUCCESS ||
          capture != CUABI_STREAM_CAPTURE_STATUS_NONE)))
        return false;
    if (real.cuEventCreate(&tc->start, CUABI_EVENT_DEFAULT) == CUABI_SUCCESS &&
        real.cuEventCreate(&tc->end, CUABI_EVENT_DEFAULT) == CUABI_SUCCESS &&
        real.cuEventRecord(tc->start, tc->stream) == CUABI_SUCCESS)
        return true;
    event_drop(&tc->start);
    event_drop(&tc->end);
    pthread_mutex_lock(&gpu_lock);
    spans_failed++;
    pthread_mutex_unlock(&gpu_lock);
    return false;
}

static void gpu_end(struct trace_call *tc)
{
    bool recorded = tc->ev.rc == CUABI_SUCCESS && real.cuEventRecord(tc->end, tc->stream) == CUABI_SUCCESS;

    pthread_mutex_lock(&gpu_lock);
    if (!recorded) {
        if (tc->ev.rc == CUABI_SUCCESS)
            spans_failed++;
        event_drop(&tc->start);
        event_drop(&tc->end);
    } else {
        if (pending_n == TRACE_PENDING_MAX) {
            /* Bounded: wait for the oldest rather than grow. */
            real.cuEventSynchronize(pending[0].end);
            spans_poll();
        }
        if (pending_n == TRACE_PENDING_MAX) {
            spans_failed++;
            event_drop(&tc->start);
            event_drop(&tc->end);
        } else {
            pending[pending_n] = (struct trace_pending){tc->ev.entry, track_of(tc->ctx, tc->stream), tc->start,
                                                        tc->end, tc->ev.ts_ns};
            pending_set(pending_n + 1);
        }
    }
    spans_poll();
    pthread_mutex_unlock(&gpu_lock);
}

/* Before the driver is asked to forget a stream or a context. */
static void gpu_before(struct trace_call *tc)
{
    if (!want_gpu)
        return;
    pthread_mutex_lock(&gpu_lock);
    if (tc->ev.entry == TRACE_ID_cuDevicePrimaryCtxRelease) {
        spans_retire_all(true);
    } else if (tc->ev.entry == TRACE_ID_cuStreamDestroy) {
        for (size_t i = 0; i < track_count; i++)
            if (tracks[i].stream == tc->stream)
                tracks[i].retired = true;
    }
    pthread_mutex_unlock(&gpu_lock);
}

/* ---- The wrappers ---- */

static void event_write(const struct trace_event *ev);

static void call_begin(struct trace_call *tc, enum trace_id id)
{
    if (want_file)
        atomic_fetch_add_explicit(&in_flight, 1, memory_order_relaxed);
    tc->ev.entry = (uint16_t)id;
    tc->ev.argc = 0;
    tc->stream = NULL;
    tc->on_gpu = false;
}

static void stat_min(atomic_ullong *v, uint64_t ns)
{
    unsigned long long old = atomic_load_explicit(v, memory_order_relaxed);

    while (ns < old && !atomic_compare_exchange_weak_explicit(v, &old, ns, memory_order_relaxed, memory_order_relaxed))
        ;
}

static void stat_max(atomic_ullong *v, uint64_t ns)
{
    unsigned long long old = atomic_load_explicit(v, memory_order_relaxed);

    while (ns > old && !atomic_compare_exchange_weak_explicit(v, &old, ns, memory_order_relaxed, memory_order_relaxed))
        ;
}

static void call_end(struct trace_call *tc, cuabi_result rc, uint64_t t0, uint64_t t1)
{
    struct trace_stats *s = &stats[tc->ev.entry];

    tc->ev.rc = rc;
    tc->ev.ts_ns = t0;
    tc->ev.dur_ns = t1 - t0;
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    if (rc != CUABI_SUCCESS)
        atomic_fetch_add_explicit(&s->failed, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->total_ns, t1 - t0, memory_order_relaxed);
    stat_min(&s->min_ns, t1 - t0);
    stat_max(&s->max_ns, t1 - t0);
    if (tc->on_gpu)
        gpu_end(tc);
    else if (want_gpu && atomic_load_explicit(&pending_count, memory_order_relaxed) &&
             pthread_mutex_trylock(&gpu_lock) == 0) {
        spans_poll();
        pthread_mutex_unlock(&gpu_lock);
    }
    if (want_file) {
        size_t i = atomic_fetch_add_explicit(&next_event, 1, memory_order_relaxed);

        if (i >= max_events)
            atomic_fetch_add_explicit(&dropped_events, 1, memory_order_relaxed);
        else {
            tc->ev.tid = thread_id();
            event_write(&tc->ev);
        }
        atomic_fetch_sub_explicit(&in_flight, 1, memory_order_relaxed);
    }
}

/* Each wrapper: keep the arguments, time the driver's own pointer, keep the event. */
#define GPU__ENTRY(need, name, symbol, params, args) \
    static cuabi_result trace_##name params \
    { \
        struct trace_call tcall; \
        struct trace_call *tc = &tcall; \
        cuabi_result rc; \
        uint64_t t0, t1; \
        call_begin(tc, TRACE_ID_##name); \
        TRACE_ARGS args \
        gpu_before(tc); \
        if (want_gpu && entry_on_gpu[TRACE_ID_##name]) \
            tc->on_gpu = gpu_begin(tc); \
        t0 = gpu__now_ns(); \
        rc = real.name args; \
        t1 = gpu__now_ns(); \
        call_end(tc, rc, t0, t1); \
        return rc; \
    }
#include "sys/driver/entry_points.h"
#undef GPU__ENTRY

/* ---- Calls through libgpushim-cuda (cuda_forward.c), timed by its thunks ---- */

static atomic_bool installed;

bool gpu__trace_forwarding(void)
{
    return atomic_load_explicit(&installed, memory_order_acquire);
}

void gpu__trace_forwarded(unsigned symbol, const char *kinds, const uint64_t *args, unsigned argc, cuabi_result rc,
                          uint64_t t0, uint64_t t1)
{
    struct trace_call tcall;
    struct trace_call *tc = &tcall;

    call_begin(tc, (enum trace_id)(TRACE_ENTRY_COUNT + symbol));
    for (unsigned i = 0; i < argc; i++) {
        enum trace_kind kind = KIND_PTR;

        switch (kinds[i]) {
        case 'i':
        case 'l':
            kind = KIND_INT;
            break;
        case 'u':
        case 'z':
            kind = KIND_UINT;
            break;
        case 'f':
        case 'd':
            kind = KIND_DOUBLE;
            break;
        default:
            break;
        }
        put_arg(&tc->ev, kind, args[i]);
    }
    call_end(tc, rc, t0, t1);
}

/* ---- The file ---- */

enum { TRACE_LINE_MAX = 8192 }; /* an event's line: a few hundred bytes; one longer is dropped */

/* An event's line, built on the caller's stack: written with one write(2), so lines never interleave. */
struct line {
    char *buf;
    size_t len, cap;
    bool overflow;
};

__attribute__((format(printf, 2, 3))) static void line_printf(struct line *l, const char *format, ...)
{
    va_list ap;
    int n;

    if (l->overflow)
        return;
    va_start(ap, format);
    n = vsnprintf(l->buf + l->len, l->cap - l->len, format, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= l->cap - l->len)
        l->overflow = true;
    else
        l->len += (size_t)n;
}

static void line_putc(struct line *l, char c)
{
    if (l->len + 1 < l->cap)
        l->buf[l->len++] = c;
    else
        l->overflow = true;
}

/* The appenders a call's event is written with, without printf's parsing: an event is written at each call. */
static void line_mem(struct line *l, const char *s, size_t n)
{
    if (n < l->cap - l->len) {
        memcpy(l->buf + l->len, s, n);
        l->len += n;
    } else
        l->overflow = true;
}

static void line_str(struct line *l, const char *s)
{
    line_mem(l, s, strlen(s));
}

static void line_u64(struct line *l, uint64_t v)
{
    char digits[20];
    size_t n = 0;

    do
        digits[sizeof(digits) - ++n] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    line_mem(l, digits + sizeof(digits) - n, n);
}

static void line_i64(struct line *l, int64_t v)
{
    if (v < 0)
        line_putc(l, '-');
    line_u64(l, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

static void line_hex(struct line *l, uint64_t v)
{
    char digits[16];
    size_t n = 0;

    do
        digits[sizeof(digits) - ++n] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    line_mem(l, "0x", 2);
    line_mem(l, digits + sizeof(digits) - n, n);
}

/* Nanoseconds as microseconds with three decimals: printf's "%.3f" of ns / 1e3, exactly. */
static void line_us(struct line *l, uint64_t ns)
{
    char frac[4] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10), (char)('0' + ns % 10)};

    line_u64(l, ns / 1000);
    line_mem(l, frac, sizeof(frac));
}

static double us(uint64_t ns)
{
    return (double)ns / 1e3;
}

static uint64_t rel(uint64_t ns)
{
    return ns > epoch_ns ? ns - epoch_ns : 0;
}

static void write_stage(FILE *f, const char *name, uint64_t start, uint64_t dur)
{
    fprintf(f, "{\"name\":\"%s\",\"cat\":\"load\",\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu32 ",\"ts\":%.3f,\"dur\":%.3f},\n",
            name, (int)trace_pid, load_tid, us(rel(start)), us(dur));
}

/* The load report has each stage's duration: they ran back to back and ended just before install. */
static void write_load(FILE *f)
{
    const gpu_load_report *r = load_report;
    uint64_t start = install_ns - (r->open_ns + r->init_ns + r->resolve_ns);

    write_stage(f, "gpushim load", start, install_ns - start);
    write_stage(f, "open", start, r->open_ns);
    write_stage(f, "init (cuInit)", start + r->open_ns, r->init_ns);
    write_stage(f, "resolve", install_ns - r->resolve_ns, r->resolve_ns);
}

/* JSON has no NaN or infinity: those are written as strings. */
static void write_double(struct line *l, uint64_t bits)
{
    double d;

    memcpy(&d, &bits, sizeof(d));
    if (d != d || d - d != 0)
        line_printf(l, "\"%g\"", d);
    else
        line_printf(l, "%.17g", d);
}

/* `s` as a JSON string's contents: quotes and backslashes escaped, control characters as \u escapes. */
static void write_escaped(struct line *l, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\') {
            line_putc(l, '\\');
            line_putc(l, (char)c);
        } else if (c < 0x20)
            line_printf(l, "\\u%04x", c);
        else
            line_putc(l, (char)c);
    }
}

/*
 * The driver's words for `rc` (cuGetErrorString), asked once per code: the
 * driver's strings are static. These calls are the tracer's own, not the
 * program's: not traced, counted as otherData's message_lookups.
 */
enum { TRACE_MESSAGES_CACHED = 1024 };
static _Atomic(const char *) messages[TRACE_MESSAGES_CACHED];
static atomic_size_t message_lookups;

static const char *message_of(cuabi_result rc)
{
    const char *text = rc < TRACE_MESSAGES_CACHED ? atomic_load_explicit(&messages[rc], memory_order_acquire) : NULL;

    if (text || !real.cuGetErrorString)
        return text;
    atomic_fetch_add_explicit(&message_lookups, 1, memory_order_relaxed);
    if (real.cuGetErrorString(rc, &text) != CUABI_SUCCESS)
        text = NULL;
    if (text && rc < TRACE_MESSAGES_CACHED)
        atomic_store_explicit(&messages[rc], text, memory_order_release);
    return text;
}

/* A failed call's result in the driver's words, where the driver has them. */
static void write_message(struct line *l, cuabi_result rc)
{
    const char *text = rc == CUABI_SUCCESS ? NULL : message_of(rc);

    if (!text)
        return;
    line_printf(l, ",\"message\":\"");
    write_escaped(l, text);
    line_putc(l, '"');
}

static void write_args(struct line *l, const struct trace_event *ev)
{
    const char *names = entry_args[ev->entry] + 1; /* past "(" */
    const char *name = gpu__result_name_own(ev->rc);

    line_str(l, "\"args\":{\"result\":\"");
    line_str(l, name ? name : "CUDA_ERROR_UNRECOGNIZED");
    line_str(l, "\",\"rc\":");
    line_u64(l, ev->rc);
    write_message(l, ev->rc);
    for (unsigned i = 0; i < ev->argc; i++) {
        size_t len = strcspn(names, ",)");

        line_mem(l, ",\"", 2);
        line_mem(l, names, len);
        line_mem(l, "\":", 2);
        if (ev->kinds[i] == KIND_INT)
            line_i64(l, (int64_t)ev->args[i]);
        else if (ev->kinds[i] == KIND_UINT)
            line_u64(l, ev->args[i]);
        else if (ev->kinds[i] == KIND_PTR) {
            line_putc(l, '"');
            line_hex(l, ev->args[i]);
            line_putc(l, '"');
        } else if (ev->kinds[i] == KIND_DOUBLE)
            write_double(l, ev->args[i]);
        else {
            line_mem(l, "\"(", 2);
            line_u64(l, ev->args[i]);
            line_str(l, " bytes)\"");
        }
        names += len;
        names += strspn(names, ", ");
    }
    line_putc(l, '}');
}

enum { TRACE_GROW = 1 << 20 };

/* Room in the file up to `need` bytes (blank lines, allocated on disk); false if the disk or a limit refuses it. */
static bool file_room(size_t need)
{
    bool ok = true;

    if (need <= atomic_load_explicit(&file_size, memory_order_acquire))
        return true;
    pthread_mutex_lock(&grow_lock);
    while (ok && need > atomic_load_explicit(&file_size, memory_order_relaxed)) {
        size_t old = atomic_load_explicit(&file_size, memory_order_relaxed);
        size_t size = old + TRACE_GROW < file_reserve ? old + TRACE_GROW : file_reserve;
        struct gpu__xfsz_hold hold;
        int e;

        if (size <= old)
            break;
        /* Blocks allocated now, so that no later write to the mapping meets a full disk (SIGBUS). */
        gpu__xfsz_hold(&hold);
        e = posix_fallocate(trace_fd, (off_t)old, (off_t)(size - old));
        if (e == EOPNOTSUPP || e == EINVAL)
            e = ftruncate(trace_fd, (off_t)size) == 0 ? 0 : errno;
        gpu__xfsz_release(&hold);
        ok = e == 0;
        if (ok) {
            memset(file_map + old, '\n', size - old);
            atomic_store_explicit(&file_size, size, memory_order_release);
        }
    }
    ok = ok && need <= atomic_load_explicit(&file_size, memory_order_relaxed);
    pthread_mutex_unlock(&grow_lock);
    return ok;
}

/* The line copied into the file at an offset of its own; false when there is no room for it. */
static bool write_line(const char *buf, size_t len)
{
    size_t at = atomic_fetch_add_explicit(&file_end, len, memory_order_relaxed);

    if (at > file_reserve || len > file_reserve - at || !file_room(at + len))
        return false;
    memcpy(file_map + at, buf, len);
    return true;
}

/* A call's event, put in the file as it returns; dropped past the closing record or in a child of fork(). */
static void event_write(const struct trace_event *ev)
{
    char buf[TRACE_LINE_MAX];
    struct line l = {buf, 0, sizeof(buf), false};
    int saved = errno;

    line_str(&l, "{\"name\":\"");
    line_str(&l, entry_names[ev->entry]);
    line_str(&l, ev->entry < TRACE_ENTRY_COUNT ? "\",\"cat\":\"driver\",\"ph\":\"X\",\"pid\":"
                                              : "\",\"cat\":\"cuda\",\"ph\":\"X\",\"pid\":");
    line_i64(&l, trace_pid);
    line_str(&l, ",\"tid\":");
    line_u64(&l, ev->tid);
    line_str(&l, ",\"ts\":");
    line_us(&l, rel(ev->ts_ns));
    line_str(&l, ",\"dur\":");
    line_us(&l, ev->dur_ns);
    line_putc(&l, ',');
    write_args(&l, ev);
    line_mem(&l, "},\n", 3);
    atomic_fetch_add(&file_writers, 1);
    if (!l.overflow && !atomic_load(&file_closed) && !atomic_load_explicit(&in_fork_child, memory_order_relaxed) &&
        write_line(buf, l.len))
        atomic_fetch_add_explicit(&written_events, 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&dropped_events, 1, memory_order_relaxed);
    atomic_fetch_sub(&file_writers, 1);
    errno = saved;
}

static void write_spans(FILE *f)
{
    for (size_t i = 0; i < track_count; i++) {
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"GPU ",
                (int)trace_pid, TRACE_TRACK_TID + (unsigned)i);
        if (tracks[i].stream)
            fprintf(f, "stream %p (context %p)\"}},\n", (void *)tracks[i].stream, (void *)tracks[i].ctx);
        else
            fprintf(f, "legacy stream (context %p)\"}},\n", (void *)tracks[i].ctx);
        fprintf(f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"sort_index\":%u}},\n",
                (int)trace_pid, TRACE_TRACK_TID + (unsigned)i, 1000000u + (unsigned)i);
    }
    for (size_t i = 0; i < span_count; i++)
        fprintf(f, "{\"name\":\"%s\",\"cat\":\"gpu\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f},\n",
                entry_names[spans[i].entry], (int)trace_pid, TRACE_TRACK_TID + spans[i].track,
                us(rel(spans[i].ts_ns)), us(spans[i].dur_ns));
}

/* What stands at the trace's path now. */
static bool path_stat(struct stat *st)
{
    return lstat(trace_path, st) == 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static const char *file_kind(mode_t mode)
{
    return S_ISLNK(mode) ? "a symbolic link" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
         : S_ISBLK(mode) ? "a block device" : S_ISDIR(mode) ? "a folder" : S_ISSOCK(mode) ? "a socket"
         : "not a regular file";
}

/*
 * Whether a trace may be renamed over its path: nothing there, or a regular
 * file. Anything else (a FIFO, a device such as /dev/null, a folder, a link)
 * stays as it is, said so on stderr, and the trace is not written.
 */
static bool path_replaceable(void)
{
    struct stat st;

    if (!path_stat(&st) || S_ISREG(st.st_mode))
        return true;
    fprintf(stderr, "gpushim: GPUSHIM_TRACE: %s is %s: no trace is written (only a regular file is replaced)\n",
            trace_path, file_kind(st.st_mode));
    return false;
}

/* A stdio stream on a descriptor of its own for `fd`'s file (fclose leaves `fd` open). */
static FILE *file_stream(int fd)
{
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    FILE *f = copy >= 0 ? fdopen(copy, "a") : NULL;

    if (!f && copy >= 0)
        close(copy);
    return f;
}

/*
 * A new file beside the path of an unguessable name, 0600 (it holds pointer
 * values), created with O_EXCL | O_NOFOLLOW (never a planted file or link),
 * with `fd`'s contents when `fd` >= 0, else the trace's opening records; then
 * renamed over the path where that is a regular file or nothing. Its
 * descriptor, or -1 (`*refused` when the path holds anything else).
 */
static int file_make(int from, bool *refused)
{
    char tmp[sizeof(trace_path) + 32], prefix[sizeof(trace_path) + 8];
    struct gpu__xfsz_hold hold;
    bool ok = true;
    FILE *f;
    int fd;

    *refused = false;
    snprintf(prefix, sizeof(prefix), "%s.tmp.", trace_path);
    fd = gpu__file_create_unique(AT_FDCWD, prefix, "", tmp, sizeof(tmp));
    if (fd < 0)
        return -1;
    gpu__xfsz_hold(&hold);
    if (from >= 0) {
        char buf[65536];
        off_t at = 0;
        ssize_t n;

        while (ok && (n = pread(from, buf, sizeof(buf), at)) > 0) {
            ok = gpu__file_write_all(fd, buf, (size_t)n) == 0;
            at += n;
        }
        ok = ok && n == 0;
    } else if ((f = file_stream(fd)) != NULL) {
        fprintf(f, "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu32
                   ",\"args\":{\"name\":\"gpushim\",\"start\":%llu,\"epoch\":%" PRIu64 "}},\n",
                (int)trace_pid, load_tid, start_ticks, epoch_ns);
        write_load(f);
        ok = !ferror(f);
        ok = fclose(f) == 0 && ok;
    } else
        ok = false;
    gpu__xfsz_release(&hold);
    if (ok && from < 0) {
        /* Read and write, to be mapped shared: the same file opened again, never one put there meanwhile. */
        struct stat made, again;
        int rw = open(tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);

        ok = rw >= 0 && fstat(fd, &made) == 0 && fstat(rw, &again) == 0 && same_file(&made, &again);
        if (rw >= 0 && ok) {
            close(fd);
            fd = rw;
        } else if (rw >= 0)
            close(rw);
    }
    if (ok && !path_replaceable()) {
        *refused = true;
        ok = false;
    }
    if (ok && rename(tmp, trace_path) == 0 && fcntl(fd, F_SETFL, O_APPEND) == 0)
        return fd;
    unlink(tmp);
    close(fd);
    return -1;
}

static void forked_child(void)
{
    atomic_store_explicit(&in_fork_child, true, memory_order_relaxed);
}

/* When this process started, in clock ticks since boot (/proc/self/stat's 22nd field); 0 if unknown. */
static unsigned long long process_start(void)
{
    char buf[1024], *p;
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* After the command's name in parentheses (which may hold anything): the state, field 3, then 19 more. */
    p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/*
 * The trace this process left at the path before an exec(): a regular file of
 * this user's, its opening record naming this process (its id and start time,
 * which exec keeps), no closing record. Its descriptor, read and write, the
 * offset after its last event in `*end`, its epoch in epoch_ns; else -1.
 */
static int file_adopt(size_t *end)
{
    char head[512], want[128], tail[4096];
    struct stat st, opened;
    unsigned long long start;
    const char *p;
    uint64_t epoch;
    off_t at;
    ssize_t n;
    int fd;

    if (!start_ticks || lstat(trace_path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        st.st_nlink != 1)
        return -1;
    fd = open(trace_path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    n = pread(fd, head, sizeof(head) - 1, 0);
    head[n > 0 ? n : 0] = '\0';
    snprintf(want, sizeof(want), "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,",
             (int)trace_pid);
    if (fstat(fd, &opened) != 0 || !same_file(&st, &opened) || strncmp(head, want, strlen(want)) != 0 ||
        !(p = strstr(head, "\"start\":")) || sscanf(p, "\"start\":%llu,\"epoch\":%" SCNu64, &start, &epoch) != 2 ||
        start != start_ticks)
        goto no;
    /* Its last byte but the blank room: the comma after an event, where a closed trace has its closing brace. */
    for (at = opened.st_size; at > 0;) {
        size_t chunk = at < (off_t)sizeof(tail) ? (size_t)at : sizeof(tail);

        if (pread(fd, tail, chunk, at - (off_t)chunk) != (ssize_t)chunk)
            goto no;
        while (chunk > 0 && tail[chunk - 1] == '\n')
            chunk--, at--;
        if (chunk > 0) {
            if (tail[chunk - 1] != ',' || at >= opened.st_size)
                goto no;
            *end = (size_t)at + 1; /* past the comma and its newline */
            epoch_ns = epoch;
            return fd;
        }
    }
no:
    close(fd);
    return -1;
}

/* At the load: the file, with its opening records, in place at the path and mapped; false (said so) if not. */
static bool file_open(void)
{
    struct stat st;
    size_t end = 0;
    void *map;
    bool refused = false;

    start_ticks = process_start();
    trace_fd = file_adopt(&end);
    if (trace_fd < 0)
        trace_fd = file_make(-1, &refused);
    if (trace_fd < 0) {
        if (!refused)
            fprintf(stderr, "gpushim: GPUSHIM_TRACE: could not write %s: %s; no trace is written\n", trace_path,
                    strerror(errno));
        return false;
    }
    /* Address space for every event at its longest, reserved only: pages are touched as the file grows. */
    file_reserve = fstat(trace_fd, &st) == 0 ? (size_t)st.st_size + max_events * 1024u + TRACE_GROW : 0;
    map = file_reserve ? mmap(NULL, file_reserve, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                              trace_fd, 0)
                       : MAP_FAILED;
    if (map == MAP_FAILED) {
        fprintf(stderr, "gpushim: GPUSHIM_TRACE: could not map %s: %s; no trace is written\n", trace_path,
                strerror(errno));
        /* A file this image made goes; one an earlier image of the process left stays as it is. */
        if (!end)
            unlink(trace_path);
        close(trace_fd);
        trace_fd = -1;
        return false;
    }
    trace_stat = st;
    file_map = map;
    atomic_init(&file_end, end ? end : (size_t)st.st_size);
    atomic_init(&file_size, (size_t)st.st_size);
    if (end) {
        /* The earlier images' calls count in the closing record's total. */
        static const char *const cats[] = {"\"cat\":\"driver\",\"ph\":\"X\"", "\"cat\":\"cuda\",\"ph\":\"X\""};
        size_t calls = 0;

        for (size_t c = 0; c < 2; c++)
            for (const char *q = file_map; (q = memmem(q, end - (size_t)(q - file_map), cats[c], strlen(cats[c])));
                 q++)
                calls++;
        atomic_store(&written_events, calls);
    }
    if (end) {
        /* After an exec: this image's load goes on in the same trace, on the first image's clock. */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        if (f) {
            write_load(f);
            if (fclose(f) == 0)
                write_line(text, len);
        }
        free(text);
    }
    pthread_atfork(NULL, NULL, forked_child);
    return true;
}

/*
 * At exit: the closing record, after every event being written; the GPU
 * spans too, `with_spans` when the caller holds gpu_lock. When another
 * process's trace replaced this file at the path meanwhile, this one is put
 * back in its place, and says so.
 */
static bool file_close(bool with_spans)
{
    struct stat now;
    size_t incomplete = atomic_load_explicit(&in_flight, memory_order_relaxed);
    FILE *f;
    bool ok, refused;

    atomic_store(&file_closed, true);
    /* A thread inside its event's write finishes it first (a few microseconds); one stuck does not stop the exit. */
    for (int i = 0; i < 1000 && atomic_load(&file_writers); i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    /*
     * The file ends where the events do: the blank room past them goes. A
     * thread still inside its copy keeps the mapping and the room (blank
     * lines before the closing record: JSON all the same).
     */
    if (!atomic_load(&file_writers)) {
        size_t end = atomic_load(&file_end), size = atomic_load(&file_size);

        munmap(file_map, file_reserve);
        file_map = NULL;
        if (ftruncate(trace_fd, (off_t)(end < size ? end : size)) != 0)
            return false;
    }
    f = file_stream(trace_fd);
    if (!f)
        return false;
    if (with_spans)
        write_spans(f);
    /* Every record before ends in a comma, so that each is a whole line on disk: the last is this one. */
    fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu32
               ",\"args\":{\"sort_index\":0}}",
            (int)trace_pid, load_tid);
    fprintf(f,
            "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"gpushim GPUSHIM_TRACE\",\"calls\":%zu,"
            "\"max_events\":%zu,\"dropped_events\":%zu,\"incomplete_events\":%zu,\"message_lookups\":%zu,"
            "\"gpu\":%s,\"gpu_spans_written\":%s,",
            atomic_load(&written_events), max_events, atomic_load(&dropped_events), incomplete,
            atomic_load(&message_lookups),
            want_gpu ? "true" : "false", with_spans ? "true" : "false");
    /* Without the lock (not GPU mode, or a thread held it) the span counts are not read: other threads change them. */
    fprintf(f, "\"gpu_spans\":%zu,\"gpu_spans_dropped\":%zu,\"gpu_spans_unfinished\":%zu,\"gpu_spans_failed\":%zu}}\n",
            with_spans ? span_count : 0, with_spans ? spans_dropped : 0, with_spans ? spans_unfinished : 0,
            with_spans ? spans_failed : 0);
    ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (ok && path_stat(&now) && !same_file(&now, &trace_stat)) {
        int fd;

        fprintf(stderr,
                "gpushim: GPUSHIM_TRACE: %s was written by another process while this one ran; this trace (pid %d) "
                "replaces it (put %%p in the path for one file per process)\n",
                trace_path, (int)trace_pid);
        fd = file_make(trace_fd, &refused);
        ok = fd >= 0 || refused;
        if (fd >= 0)
            close(fd);
    }
    close(trace_fd);
    trace_fd = -1;
    return ok;
}

/* ---- At exit: the summary ---- */

static int by_total(const void *a, const void *b)
{
    unsigned long long x = atomic_load(&stats[*(const int *)a].total_ns);
    unsigned long long y = atomic_load(&stats[*(const int *)b].total_ns);

    return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

static void write_summary(FILE *f)
{
    int order[TRACE_ID_COUNT];
    unsigned long long total = 0;
    unsigned long calls = 0, failed = 0;

    for (int i = 0; i < TRACE_ID_COUNT; i++) {
        order[i] = i;
        total += atomic_load(&stats[i].total_ns);
        calls += atomic_load(&stats[i].calls);
        failed += atomic_load(&stats[i].failed);
    }
    qsort(order, TRACE_ID_COUNT, sizeof(order[0]), by_total);
    fprintf(f, "gpushim trace summary (pid %d): %lu driver calls, %lu failed, %.3f ms on the host\n", (int)trace_pid,
            calls, failed, (double)total / 1e6);
    fprintf(f, "%8s %14s %10s %8s %12s %12s %12s  %s\n", "Time(%)", "Total (ns)", "Calls", "Failed", "Avg (ns)",
            "Min (ns)", "Max (ns)", "Name");
    for (int k = 0; k < TRACE_ID_COUNT; k++) {
        const struct trace_stats *s = &stats[order[k]];
        unsigned long n = atomic_load(&s->calls);
        unsigned long long t = atomic_load(&s->total_ns);

        if (!n)
            continue;
        fprintf(f, "%8.1f %14llu %10lu %8lu %12llu %12llu %12llu  %s\n", total ? 100.0 * (double)t / (double)total : 0.0,
                t, n, (unsigned long)atomic_load(&s->failed), t / n, (unsigned long long)atomic_load(&s->min_ns),
                (unsigned long long)atomic_load(&s->max_ns), entry_names[order[k]]);
    }
    fflush(f);
}

static void trace_finish(void)
{
    /* Once, and not in a child of fork(): the parent writes its own file. */
    bool locked = false;

    if (getpid() != trace_pid || atomic_exchange(&finished, true))
        return;
    if (want_gpu) {
        /*
         * The spans are written with the lock held, as other threads may still
         * be adding some; one stuck holding it (waiting on the GPU) must not
         * stop the exit: then the file goes without spans.
         */
        for (int i = 0; i < 200 && !(locked = pthread_mutex_trylock(&gpu_lock) == 0); i++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        if (locked)
            spans_retire_all(false);
    }
    if (want_file && !file_close(locked))
        fprintf(stderr, "gpushim: GPUSHIM_TRACE: could not write %s: %s\n", trace_path, strerror(errno));
    if (locked)
        pthread_mutex_unlock(&gpu_lock);
    if (want_summary)
        write_summary(stderr);
}

/* ---- Install ---- */

/* A switch of the environment, its warning on stderr. */
static bool env_switch(const char *name)
{
    char warning[256] = "";
    bool on = gpu__env_switch(name, false, "it stays off", warning, sizeof(warning));

    if (warning[0])
        fprintf(stderr, "gpushim: %s\n", warning);
    return on;
}

/*
 * The trace's path from GPUSHIM_TRACE's pattern: %p is the process id, %% a
 * %. Any other % is kept as it is, with a warning. false when it is too long.
 */
static bool expand_path(const char *pattern, pid_t pid)
{
    size_t n = 0;
    bool warned = false;

    for (const char *p = pattern; *p; p++) {
        char piece[24] = {*p, '\0'};
        size_t len;

        if (p[0] == '%' && p[1] == 'p') {
            snprintf(piece, sizeof(piece), "%d", (int)pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            p++;
        } else if (p[0] == '%' && !warned) {
            fprintf(stderr, "gpushim: GPUSHIM_TRACE=%s: only %%p (the process id) and %%%% are patterns; "
                            "any other %% stays as it is\n", pattern);
            warned = true;
        }
        len = strlen(piece);
        if (n + len >= sizeof(trace_path))
            return false;
        memcpy(trace_path + n, piece, len + 1);
        n += len;
    }
    return n > 0;
}

static void read_env(void)
{
    const char *path = gpu__env("GPUSHIM_TRACE");
    char warning[256] = "";

    want_summary = env_switch("GPUSHIM_TRACE_SUMMARY");
    if (path) {
        want_file = expand_path(path, getpid());
        if (!want_file)
            fprintf(stderr, "gpushim: GPUSHIM_TRACE: the path is too long; no trace is written\n");
    }
    want_gpu = env_switch("GPUSHIM_TRACE_GPU") && want_file;
    max_events = (size_t)gpu__env_count("GPUSHIM_TRACE_MAX_EVENTS", 1, 1ull << 26, TRACE_DEFAULT_EVENTS, warning,
                                        sizeof(warning));
    if (warning[0])
        fprintf(stderr, "gpushim: %s\n", warning);
}

bool gpu__trace_install(struct gpu__driver *table, const gpu_load_report *report)
{
    read_env();
    /* Said at the start too, so that a run meant to be traced learns it at once; looked at again before the rename. */
    if (want_file && !path_replaceable())
        want_file = want_gpu = false;
    if (!want_file && !want_summary)
        return false;
    if (want_gpu) {
        /* calloc: pages are touched only as spans fill. */
        spans = calloc(max_events, sizeof(*spans));
        if (!spans) {
            fprintf(stderr, "gpushim: GPUSHIM_TRACE: no memory for %zu GPU spans; the trace has none\n", max_events);
            want_gpu = false;
        }
    }
    for (int i = 0; i < TRACE_ID_COUNT; i++)
        atomic_init(&stats[i].min_ns, UINT64_MAX);
    trace_pid = getpid();
    load_tid = thread_id();
    install_ns = gpu__now_ns();
    load_report = report;
    /* The load report has each stage's time: ts 0 is the start of the load. */
    epoch_ns = install_ns - (report->open_ns + report->init_ns + report->resolve_ns);
    if (want_file && !file_open()) {
        free(spans);
        spans = NULL;
        want_file = want_gpu = false;
        if (!want_summary)
            return false;
    }
    real = *table;
    /* An optional entry point the driver lacks stays NULL: the call path reports it as missing. */
#define GPU__ENTRY(need, name, symbol, params, args) table->name = real.name ? trace_##name : NULL;
#include "sys/driver/entry_points.h"
#undef GPU__ENTRY
    if (atexit(trace_finish) != 0)
        fprintf(stderr, "gpushim: GPUSHIM_TRACE: atexit failed; no trace will be written\n");
    atomic_store_explicit(&installed, true, memory_order_release);
    return true;
}
