/* SPDX-License-Identifier: MIT */
/*
 * The per-thread default stream: the _ptsz and _ptds variants of the
 * driver's functions (what cuda.h calls under CUDA_API_PER_THREAD_DEFAULT_STREAM),
 * and the stream itself.
 *
 * Each variant is generated from the symbol list (gen-per-thread.py): it
 * calls its base function, when the fake implements it, with the calling
 * thread marked, so that the base counts the call (and applies fault rules)
 * under the variant's name and reads stream 0 as the per-thread stream; a
 * synchronous call orders itself on that stream rather than the legacy one
 * (fake_legacy_sync()). CU_STREAM_PER_THREAD names it in every call.
 *
 * A thread's per-thread stream of a context is made at its first use: a
 * blocking stream (ordered after the legacy stream's work, and the legacy
 * stream after it), not counted as a live stream of the client's. It goes
 * with its context, or when its thread exits with nothing queued on it (with
 * work still queued, it stays, ownerless, until its context goes).
 */
#include <pthread.h>
#include <stdlib.h>

#include "fake_internal.h"

/* The variant of the call this thread is in, or -1 outside one. */
static _Thread_local int per_thread_entry = -1;

/* The thread's number for its per-thread streams: 0 until it has one. */
static _Thread_local uint64_t thread_number;
static uint64_t threads_numbered;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

int fake_per_thread_call(void)
{
    return per_thread_entry;
}

/* ---- The streams ---- */

/* At a thread's exit: its per-thread streams with nothing queued go; the others are left to their contexts. */
static void thread_exit(void *value)
{
    uint64_t number = (uint64_t)(uintptr_t)value;
    bool again = true;

    fake_lock();
    /* A freed stream's link is never read: after a free the walk starts over. */
    while (again) {
        again = false;
        for (struct fake_stream *s = fake.streams; s; s = s->next_live) {
            if (!s->per_thread || s->owner != number)
                continue;
            if (fake_stream_done(s, s->last_seq) && s->capture == FAKE_CAPTURE_NONE) {
                fake_stream_free(s);
                again = true;
                break;
            }
            s->owner = 0;
        }
    }
    fake_unlock();
}

static void exit_key_create(void)
{
    if (pthread_key_create(&exit_key, thread_exit) != 0)
        fake_die("per-thread default stream", "no thread-specific key left");
}

cuabi_result fake_per_thread_stream(struct fake_ctx *ctx, struct fake_stream **out)
{
    struct fake_stream *s;
    cuabi_result rc;

    for (s = fake.streams; thread_number && s; s = s->next_live)
        if (s->per_thread && s->owner == thread_number && s->ctx == ctx) {
            *out = s;
            return CUABI_SUCCESS;
        }
    pthread_once(&exit_key_once, exit_key_create);
    if (!thread_number) {
        thread_number = ++threads_numbered;
        if (pthread_setspecific(exit_key, (void *)(uintptr_t)thread_number) != 0) {
            thread_number = 0;
            return CUABI_ERROR_OUT_OF_MEMORY;
        }
    }
    if ((rc = fake_stream_new(ctx, 0, &s)) != CUABI_SUCCESS)
        return rc;
    s->per_thread = true;
    s->owner = thread_number;
    fake.live[GPU_FAKE_LIVE_STREAMS]--;
    *out = s;
    return CUABI_SUCCESS;
}

/* ---- The variants ---- */

/* The fake's own functions by entry, as untyped pointers: what a variant calls, through its own type. */
static void (*const implemented[FAKE_E_COUNT])(void) = {
#define GPU__ENTRY(need, name, symbol, params, args) [FAKE_E_##symbol] = (void (*)(void))symbol,
#include "entry_points.h"
#undef GPU__ENTRY
#define GPU__FAKE_ENTRY(symbol, params) [FAKE_E_##symbol] = (void (*)(void))symbol,
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY
};

bool fake_per_thread_base_implemented(int entry)
{
    return entry >= 0 && entry < FAKE_E_COUNT && implemented[entry];
}

/*
 * A variant: the base's parameters as the calling convention passes them,
 * the base called through a pointer of that type (the base's own type passes
 * them alike), the calling thread marked meanwhile.
 */
#define GPU__FAKE_PER_THREAD(symbol, base, params, args, types) \
    FAKE_API cuabi_result symbol params; \
    cuabi_result symbol params \
    { \
        cuabi_result (*fn) types = (cuabi_result (*) types)implemented[FAKE_E_##base]; \
        cuabi_result rc; \
\
        if (!fn) \
            return fake_unimplemented(FAKE_E_##symbol); \
        per_thread_entry = FAKE_E_##symbol; \
        rc = fn args; \
        per_thread_entry = -1; \
        return rc; \
    }
#include "fake_per_thread_table.h"
#undef GPU__FAKE_PER_THREAD
