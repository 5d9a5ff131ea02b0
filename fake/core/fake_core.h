/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's state behind its one lock, and the core's functions
 * that every part uses: the lock, each entry point's begin and end, the
 * entries' names, the environment's parsers, and the parts' hooks. Every
 * function of the fake expects the lock held unless it says otherwise.
 */
#ifndef FAKE_CORE_H
#define FAKE_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_abi.h"
#include "env.h"
#include "fake_entries.h"
#include <gpushim/fake.h>

/* The real driver's prototypes, from the project's list: a mismatch does not compile. */
#define GPU__ENTRY(need, name, symbol, params, args) FAKE_API cuabi_result symbol params;
#include "entry_points.h"
#undef GPU__ENTRY
#define GPU__FAKE_ENTRY(symbol, params) FAKE_API cuabi_result symbol params;
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY
FAKE_API cuabi_result cuInit(unsigned int flags);
FAKE_API cuabi_result cuDriverGetVersion(int *version);
FAKE_API cuabi_result cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags,
                                          cuabi_proc_address_query_result *status);

/*
 * Device addresses: far above any user-space pointer on x86-64 (4-level
 * paging), one region of 16 TiB per device, handed out upwards and never reused.
 */
#define FAKE_ADDR_BASE 0x0000a00000000000ull
#define FAKE_ADDR_STRIDE (1ull << 44)

enum {
    FAKE_MAX_DEVICES = 8,
    FAKE_MAX_ARGS = 64,    /* bytes of kernel parameters */
    FAKE_STACK_MAX = 32,   /* contexts a thread may push */
    FAKE_LOG_MAX = 1024,   /* bytes of a JIT log */
};

/* ---- The state ---- */

struct fake_op;
struct fake_graph;
struct fake_event;
struct fake_module;
struct fake_alloc;
struct fake_host;
struct fake_profile;

enum { FAKE_CAPTURE_NONE = 0, FAKE_CAPTURE_ACTIVE = 1, FAKE_CAPTURE_INVALIDATED = 2 };
enum { FAKE_PRIORITY_LEAST = 0, FAKE_PRIORITY_GREATEST = -5 }; /* cuCtxGetStreamPriorityRange's */

/* A stream (fake_stream.c); a context's legacy stream is part of it. */
struct fake_stream {
    struct fake_stream *next_live;
    struct fake_ctx *ctx;
    unsigned flags;
    bool legacy;                 /* the context's NULL stream */
    struct fake_op *head, *tail; /* queued, oldest first */
    uint64_t last_seq;
    uint64_t running_seq;        /* a host function or kernel running without the lock; 0 if none */
    unsigned waiters;            /* threads in fake_stream_drain() on it, which hold it while they wait */
    bool dead;                   /* destroyed: out of the live list, freed by the last waiter */
    cuabi_result fault;          /* from queued work, told at the next synchronisation */
    int capture;
    struct fake_graph *capture_graph;
    uint64_t capture_id; /* of the current or last capture */
    int priority;        /* cuStreamCreateWithPriority's, clamped */
    bool per_thread;     /* a thread's per-thread default stream (fake_stream.c): not the client's */
    uint64_t owner;      /* that thread's number; 0 once it exited with work still queued */
    uint64_t id;         /* cuStreamGetId's, numbered at the first ask; 0 until then */
    cuabi_access_policy_window window; /* cuStreamSetAttribute's; zero until set */
    unsigned sync_policy;              /* cuStreamSetAttribute's CUsynchronizationPolicy; 0 until set (auto) */
};

struct fake_ctx {
    int device;
    unsigned retains;          /* a primary context's; 1 for a created one until it is destroyed */
    bool created;              /* by cuCtxCreate, not a device's primary context */
    unsigned flags;            /* CUctx_flags */
    struct fake_ctx *next_created;
    struct fake_stream legacy;
    bool peer_enabled[FAKE_MAX_DEVICES];
    uint64_t id;               /* cuCtxGetId's, numbered at the first ask; 0 until then */
    unsigned cache_config;     /* cuCtxSetCacheConfig's CUfunc_cache */
    cuabi_result sticky;       /* a fault of its work that corrupted it (fake_result_sticky()); 0 for none */
};

struct fake_device {
    gpu_fake_device_desc desc;
    const struct fake_profile *profile;
    size_t used;        /* bytes of the client's allocations */
    size_t pool_used;   /* of those, stream-ordered ones (fake_pool.c) */
    size_t pool_cached; /* what the device's pool holds for reuse beyond those in use (fake_pool.c) */
    uint64_t next_addr;
    bool peer_allowed[FAKE_MAX_DEVICES];
    struct fake_ctx ctx;
};

/* A fault rule (GPUSHIM_FAKE_FAIL, gpu_fake_fail()). */
struct fake_rule {
    struct fake_rule *next;
    enum fake_entry entry;
    unsigned long at; /* the call number that fails */
    bool onward;      /* and every later one */
    cuabi_result result;
};

struct fake_state {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool configured;
    bool initialized;
    int driver_version;
    cuabi_result init_fail;
    int device_count;
    struct fake_device devices[FAKE_MAX_DEVICES];

    unsigned long calls[FAKE_E_COUNT];
    struct fake_rule *rules;
    bool omit[FAKE_E_COUNT];      /* cuGetProcAddress says "not found" */
    unsigned long unimplemented[FAKE_E_COUNT]; /* calls of symbols the fake does not implement */
    bool twin_stream_query;       /* cuGetProcAddress hands out a second cuStreamQuery */
    long init_delay_ms;           /* cuInit sleeps this long (without the lock) before it answers */
    char *init_callback;          /* cuInit calls this function of the process first (dlsym), or NULL */
    int init_callback_status;     /* what it returned; -1 until it ran */
    gpu_fake_gpa_stats gpa;
    unsigned long gpa_asked[FAKE_E_COUNT];

    struct fake_ctx *created;    /* cuCtxCreate's, destroyed ones too (their handles stay invalid) */
    struct fake_stream *streams;
    struct fake_event *events;
    struct fake_module *modules;
    struct fake_graph *graphs;
    struct fake_alloc *allocs;
    struct fake_host *hosts;
    long live[GPU_FAKE_LIVE_KIND_COUNT];
    unsigned long anomalies[GPU_FAKE_ANOMALY_COUNT];

    uint64_t seq;
    uint64_t clock_ns;
    uint64_t last_id;     /* the last stream or context ID handed out (cuStreamGetId, cuCtxGetId) */
    bool gate_closed;
    bool lenient_context; /* stream work needs no current context, as on the real driver (gpu_fake_strict_context()) */
    bool faults_told_once; /* GPUSHIM_FAKE_STICKY=0: a fault is its stream's, told once, and never corrupts a context */
    bool lazy;             /* GPUSHIM_FAKE_PROGRESS=0 or gpu_fake_progress(false): work runs only when needed */

    /*
     * Kernels run without the lock, so that other threads and streams go on
     * meanwhile, while no call that changes what a kernel may reach is in
     * progress: such a call (every entry point but those fake_begin() lets
     * run beside a kernel) waits in fake_begin() until none runs so, and
     * kernels started while one is in progress or waiting keep the lock.
     */
    unsigned kernels_unlocked; /* kernels running without the lock */
    unsigned writers;          /* entry points in progress that change what a kernel may reach */
    unsigned writers_waiting;  /* those waiting in fake_begin() for the kernels to end */
};

extern struct fake_state fake;

/* Set while the calling thread runs a host function (without the lock): CUDA calls are refused. */
extern _Thread_local bool fake_in_callback;

/* ---- fake_core.c: the lock, configuration, entry points' bookkeeping ---- */

/*
 * Every entry point begins with fake_begin(): it takes the lock, counts the
 * call and returns the result a fault rule injects (or NOT_INITIALIZED before
 * cuInit). fake_end() drops the lock and returns `rc`. The lock is held
 * between the two even when fake_begin() fails, except in a host function,
 * where fake_begin() refuses the call without taking it. An entry point that
 * may change what a running kernel reaches (memory, modules, contexts,
 * textures: all but the queries, stream and event calls, launches and
 * copies) first waits for the kernels running without the lock to end.
 */
cuabi_result fake_begin(enum fake_entry entry, bool needs_init);
cuabi_result fake_end(cuabi_result rc);

/*
 * Runs every context's queued work, up to the newest queued now (it may
 * wait, dropping the lock): what a call that frees memory, an array, a
 * module or a library does first, so that no queued launch or copy loses
 * what it uses, as the driver's cuMemFree synchronizes (fake_stream.c).
 */
void fake_work_drain(void);

/*
 * For an entry point that runs beside kernels (fake_begin()) and finds it
 * must change what they reach after all (a library's module loaded in a
 * context at its first use): waits until no kernel runs without the lock, as
 * the other entry points do in fake_begin(), and keeps later ones from doing
 * so until fake_end(). Whether it waited, dropping the lock: what the caller
 * looked up before may be gone then.
 */
bool fake_kernels_exclude(void);

/*
 * Makes the calling thread's next fake_begin() count its call (and apply
 * fault rules) as `entry`, -1 to undo: a function that another one serves
 * (a legacy form calling its _v2) is counted under its own name.
 */
void fake_count_as(int entry);

/*
 * Takes and drops the lock for the control API, configuring the fake on first
 * use; before it takes the lock, each part's load hook runs.
 */
void fake_lock(void);
void fake_unlock(void);

/*
 * The entry of a name: a base name gpushim uses means its entry point
 * ("cuMemAlloc" is cuMemAlloc_v2), an exported name itself, another base name
 * its newest revision ("cuCtxCreate" is cuCtxCreate_v4). -1 for none.
 */
int fake_entry_find(const char *name);

/* The exported name of an entry. */
const char *fake_entry_name(enum fake_entry entry);

/* Ends the process with a message: only for a host kernel that calls the control API, which would deadlock. */
_Noreturn void fake_die(const char *what, const char *detail);

/*
 * A configuration error: variable `var`'s value is refused, as `accepted`
 * says ("wants ..."; with `part`, what its part `part_text` is or lacks).
 * The first one is printed on standard error, and while there is one cuInit
 * returns CUDA_ERROR_INVALID_VALUE, whose cuGetErrorString is the message
 * (fake_config_note()). Nothing is ended: every later call fails cleanly.
 * One found after the configuration was read (a value a launch reads again,
 * changed since) is told once on stderr, and the caller's default holds.
 */
void fake_config_error(const char *var, const char *part, const char *part_text, const char *accepted);

/* The first configuration error's message for `result` (CUDA_ERROR_INVALID_VALUE), or NULL. */
const char *fake_config_note(cuabi_result result);

/*
 * The environment read again, as at the first call, the configuration error
 * forgotten first: for a fuzzer of the configuration (tests/fuzz/fuzz_fake_env.c),
 * in a process with no context, module or allocation.
 */
void fake_configure_again(void);

/*
 * `text` as a whole number from `lo` to `hi` in `unit` (gpu__env_number) into
 * *out; false, a configuration error, and *out untouched for anything else.
 * `label` is the variable's name, then a space and the part's ("GPUSHIM_FAKE_FAIL nth").
 */
bool fake_env_number(const char *label, const char *text, long lo, long hi, enum gpu__env_unit unit, long *out);

/* fake_env_number without a unit, `lo` for a refused value (a configuration error). */
long fake_parse_number(const char *var, const char *text, long lo, long hi);

/* A switch variable (0 or 1, off/on, false/true, no/yes); `fallback` when unset; anything else a configuration error. */
bool fake_env_switch(const char *var, bool fallback);

/* A byte count with an optional K, M or G suffix (powers of 1024); 0 for a refused one (a configuration error). */
size_t fake_parse_bytes(const char *var, const char *text);

/* The per-thread variant (_ptsz, _ptds) the calling thread is in, or -1: fake_begin() counts the call under it. */
int fake_per_thread_call(void);

/* Marks the calling thread as in that variant (fake_per_thread.c's), -1 as out of it. */
void fake_per_thread_enter(int entry);

/* The entry of an exported symbol's exact name; -1 for a name the list lacks. */
int fake_symbol_entry(const char *symbol);

/* The length of a symbol's base name: without _ptsz or _ptds (*per_thread then), then without _vN. */
size_t fake_base_length(const char *symbol, bool *per_thread);

/* This library's own handle (dlsym on it tells what this build exports), or NULL. */
void *fake_self(void);

/* The checks GPUSHIM_FAKE_CHECK asks for: FAKE_CHECK_* bits. A word it does not know is a configuration error. */
enum { FAKE_CHECK_RACE = 1, FAKE_CHECK_INIT = 2, FAKE_CHECK_INIT_STRICT = 4 };
unsigned fake_checks(void);

/*
 * ---- The parts' hooks ----
 *
 * What a part of the fake asks the core and the contexts to do for it, so
 * that neither names it: one row of fake_driver.c's table, registered at the
 * library's load. Every member may be NULL. All but `load` run with the lock held.
 */
struct fake_part {
    void (*load)(void);      /* before the lock is taken, each time, without it (GPUSHIM_FAKE_KERNELS's libraries) */
    void (*configure)(void); /* once, at the first use: reads the part's GPUSHIM_FAKE_* variables */
    void (*on_call)(void);   /* at each call into the fake, counted (fake_begin()) */
    unsigned long (*ctx_reset)(struct fake_ctx *ctx); /* destroys what the context owns (a primary one's reset,
                                                         a created one's destruction): how many there were */
    cuabi_result (*ctx_synchronize)(struct fake_ctx *ctx); /* cuCtxSynchronize's wait for the context's work */
    void (*device_lost)(int device); /* drops the device's queued work (GPUSHIM_FAKE_LOSE) */
};

/* Registers the parts' table (kept, not copied), in the order their hooks run. */
void fake_parts_register(const struct fake_part *parts, size_t count);

/* The parts' table and its length. */
const struct fake_part *fake_parts(size_t *count);

#endif
