/* SPDX-License-Identifier: MIT */
/*
 * The _ptsz and _ptds variants of the driver's functions (what cuda.h calls
 * under CUDA_API_PER_THREAD_DEFAULT_STREAM); the per-thread default stream
 * itself is fake_stream.c's.
 *
 * Each variant is generated from the symbol list (gen-per-thread.py): it
 * calls its base function, when the fake implements it, with the calling
 * thread marked, so that the base counts the call (and applies fault rules)
 * under the variant's name and reads stream 0 as the per-thread stream; a
 * synchronous call orders itself on that stream rather than the legacy one
 * (fake_legacy_sync()). CU_STREAM_PER_THREAD names it in every call.
 */
#include "fake_core.h"
#include "fake_per_thread.h"

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
        fake_per_thread_enter(FAKE_E_##symbol); \
        rc = fn args; \
        fake_per_thread_enter(-1); \
        return rc; \
    }
#include "fake_per_thread_table.h"
#undef GPU__FAKE_PER_THREAD
