/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's insides, shared by its source files: the state behind its
 * one lock and the helpers the entry points use. Every function here expects
 * the lock held unless it says otherwise.
 */
#ifndef FAKE_INTERNAL_H
#define FAKE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_abi.h"
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

/* ---- Objects ---- */

struct fake_stream;
struct fake_event;

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

enum { FAKE_CAPTURE_NONE = 0, FAKE_CAPTURE_ACTIVE = 1, FAKE_CAPTURE_INVALIDATED = 2 };

struct fake_graph {
    struct fake_graph *next_live;
    struct fake_ctx *ctx;
    struct fake_op *head, *tail; /* nodes, in capture order, without deps */
    bool exec;                   /* an executable graph rather than a graph */
};

struct fake_stream {
    struct fake_stream *next_live;
    struct fake_ctx *ctx;
    unsigned flags;
    bool legacy;                 /* the context's NULL stream */
    struct fake_op *head, *tail; /* queued, oldest first */
    uint64_t last_seq;
    uint64_t running_seq;        /* a host function running without the lock; 0 if none */
    cuabi_result fault;          /* from queued work, told at the next synchronisation */
    int capture;
    struct fake_graph *capture_graph;
    uint64_t capture_id; /* of the current or last capture */
    int priority;        /* cuStreamCreateWithPriority's, clamped */
    bool per_thread;     /* a thread's per-thread default stream (fake_per_thread.c): not the client's */
    uint64_t owner;      /* that thread's number; 0 once it exited with work still queued */
    uint64_t id;         /* cuStreamGetId's, numbered at the first ask; 0 until then */
    cuabi_access_policy_window window; /* cuStreamSetAttribute's; zero until set */
    unsigned sync_policy;              /* cuStreamSetAttribute's CUsynchronizationPolicy; 0 until set (auto) */
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
    uint64_t next_addr;
    bool peer_allowed[FAKE_MAX_DEVICES];
    struct fake_ctx ctx;
};

struct fake_alloc {
    struct fake_alloc *next, *prev; /* fake.allocs, newest first (FAKE_ALLOC_VMM: its reservation's) */
    uint64_t addr;
    size_t size;
    int device;
    unsigned char *data;
    bool mapped;        /* data is a mapping of its own (munmap), else malloc's */
    int kind;           /* FAKE_ALLOC_* */
    unsigned ipc_opens; /* cuIpcOpenMemHandle mappings of it not yet closed */
    int location;       /* managed memory: where the last prefetch moved it (a device, or -1 the host) */
    int advice;         /* managed memory: the last cuMemAdvise advice, 0 for none */
    bool prefetched;    /* managed memory: `location` is a prefetch's, not the start's */
    bool read_mostly;   /* managed memory: CU_MEM_ADVISE_SET_READ_MOSTLY, not unset since */
    int preferred;      /* managed memory: the preferred location, a device or -1 the host; -2 for none */
    unsigned accessed_by; /* managed memory: a bit a device CU_MEM_ADVISE_SET_ACCESSED_BY named, the host's last */
    struct fake_ctx *owner; /* the created context it was allocated in, freed with it; NULL: the primary one */
    unsigned char *written; /* GPUSHIM_FAKE_CHECK=init: a bit a byte, set once a copy, memset or kernel wrote it;
                               NULL: not tracked (the check off at allocation, managed memory, a module's global) */
    bool shared;        /* data is a mapping of memfd `shm_fd` (fake_shm.c), which another process may map */
    int shm_fd;
    uint64_t shm_tag;   /* the memfd's name's random part, which an IPC handle names */
};

enum {
    FAKE_ALLOC_PLAIN,
    FAKE_ALLOC_POOL,
    FAKE_ALLOC_MANAGED, /* at its host address */
    FAKE_ALLOC_GLOBAL,  /* a module's global: neither the client's to free nor counted as its memory */
    FAKE_ALLOC_VMM,     /* an accessible stretch of a VA reservation (fake_vmm.c): in the index only */
    FAKE_ALLOC_IPC,     /* another process's allocation opened here (fake_ipc.c): not this one's memory */
};

struct fake_host {
    struct fake_host *next;
    unsigned char *ptr;
    size_t size;
    bool registered;
    unsigned flags; /* cuMemHostAlloc's or cuMemHostRegister's */
};

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
 * where fake_begin() refuses the call without taking it.
 */
cuabi_result fake_begin(enum fake_entry entry, bool needs_init);
cuabi_result fake_end(cuabi_result rc);

/*
 * Makes the calling thread's next fake_begin() count its call (and apply
 * fault rules) as `entry`, -1 to undo: a function that another one serves
 * (a legacy form calling its _v2) is counted under its own name.
 */
void fake_count_as(int entry);

/* Takes and drops the lock for the control API, configuring the fake on first use. */
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

/* What configuration errors do: stop the program with a message. A malformed number stops it too. */
_Noreturn void fake_die(const char *what, const char *detail);
long fake_parse_number(const char *var, const char *text, long lo, long hi);

/* A switch variable (0 or 1, off/on, false/true, no/yes); `fallback` when unset; anything else stops the program. */
bool fake_env_switch(const char *var, bool fallback);

/* A byte count with an optional K, M or G suffix (powers of 1024); a malformed one stops the program. */
size_t fake_parse_bytes(const char *var, const char *text);

/* ---- fake_faults.c: faults on demand, devices from the environment ---- */

/* Reads GPUSHIM_FAKE_MEMORY_LIMIT, _LOSE, _STALL. */
void fake_faults_configure(void);

/* Counts a call into the fake (fake_begin()): GPUSHIM_FAKE_LOSE's device is lost at its nth. */
void fake_faults_on_call(void);

/* What calls that use the device return since it was lost; success while it is there. */
cuabi_result fake_device_lost(int device);

/* Whether queued work is stalled (gpu_fake_stall()): none runs. */
bool fake_stalled(void);

/* Whether `bytes` more would take the device's `used` past its limit (gpu_fake_memory_limit()). */
bool fake_over_limit(int device, size_t used, size_t bytes);

/* ---- fake_report.c ---- */

/* Reads GPUSHIM_FAKE_REPORT. */
void fake_report_configure(void);

/* ---- fake_profiles.c: the boards the fake can be ---- */

struct fake_profile {
    const char *key;     /* GPUSHIM_FAKE_DEVICE's name for it */
    const char *name;    /* cuDeviceGetName's */
    size_t total_memory; /* cuDeviceTotalMem's */
    int column;          /* its place among the profiles */
};

/* The profile of that key ("h200"), or NULL. */
const struct fake_profile *fake_profile_find(const char *key, size_t len);

/* The profile a device has unless told otherwise: the H200. */
const struct fake_profile *fake_profile_default(void);

/* The attribute's value on the profile's board; false for no attribute of CUDA 13. */
bool fake_profile_attribute(const struct fake_profile *p, unsigned attribute, int *value);

/* The CUdevice_attribute of a name as cuda.h spells it (with or without CU_DEVICE_ATTRIBUTE_), or -1. */
int fake_attribute_by_name(const char *name, size_t len);

/* ---- fake_device.c ---- */

/*
 * Configures `count` devices (-1: as many as GPUSHIM_FAKE_DEVICE names, else
 * 1) from the environment: GPUSHIM_FAKE_DEVICE, _DEVICE_NAME, _DEVICE_MEMORY,
 * _COMPUTE_CAPABILITY, _ATTRIBUTES.
 */
void fake_devices_configure(int count, bool peer);

/* Whether `dev` is a device ordinal of the fake. */
bool fake_device_valid(cuabi_device dev);

/* Device attributes beyond the three gpu_fake_device_desc holds; false for one the fake does not know. */
bool fake_device_attribute(int device, unsigned attribute, int *value);

/* An attribute the fake always knows (one of its defaults' table), or 0. */
int fake_attribute(int device, unsigned attribute);

/* ---- fake_context.c ---- */

/* The calling thread's current context, or NULL. */
struct fake_ctx *fake_current(void);

/* The current context, which must be active: else CUDA_ERROR_INVALID_CONTEXT. */
cuabi_result fake_need_ctx(struct fake_ctx **out);

/* The context a CUcontext handle is, if it is one and active; else NULL. */
struct fake_ctx *fake_ctx_from(cuabi_context handle);

/* Calls fn on every context's legacy stream: the primary ones, then the created ones alive. */
void fake_each_legacy(void (*fn)(struct fake_stream *, void *), void *arg);

/* Whether work of `ctx` may touch memory of device `device` (its own, or a peer enabled). */
bool fake_ctx_reaches(const struct fake_ctx *ctx, int device);

/* ---- fake_memory.c: device allocations ---- */

/*
 * The live allocation holding all of [addr, addr + bytes), or NULL: O(log n)
 * in the live allocations. Device memory as a kernel reaches it: what the
 * built-in kernels, host kernels and the PTX interpreter bounds-check each
 * access with. Managed allocations are found at their host address.
 */
struct fake_alloc *fake_alloc_find(uint64_t addr, size_t bytes);

/* The live allocation at exactly `addr`, of `kind` (-1: any), or NULL. */
struct fake_alloc *fake_alloc_at(uint64_t addr, int kind);

/* Host memory for [addr, addr + bytes) of device memory, or NULL. */
unsigned char *fake_device_bytes(uint64_t addr, size_t bytes);

/*
 * Records that [addr, addr + bytes) of device memory was written, for the
 * interpreter's init check: every host-side path that writes device memory
 * (copies, memsets, stream writes, built-in and host kernels) calls it.
 */
void fake_alloc_written(uint64_t addr, size_t bytes);

/* Frees every allocation made in a created context; returns how many there were. */
unsigned long fake_memory_reset_owner(const struct fake_ctx *ctx);

/* Frees every device allocation of the device; returns how many there were. */
unsigned long fake_memory_reset(int device);

/*
 * A new allocation of `bytes` (1 or more) on `device`, of a FAKE_ALLOC_ kind,
 * zeroed; OUT_OF_MEMORY past the device's memory or its limit. Its pages cost
 * nothing until touched.
 */
cuabi_result fake_alloc_new(int device, size_t bytes, int kind, struct fake_alloc **out);

/* Frees the client's live allocation at exactly `addr`; false if there is none. */
bool fake_alloc_free(uint64_t addr);

/* Frees a live allocation of any kind. */
void fake_alloc_release(struct fake_alloc *a);

/*
 * Adds an allocation made elsewhere (FAKE_ALLOC_VMM) to the index by which
 * fake_alloc_find() finds it, or takes it out; nothing else is done to it.
 * Adding is false when out of memory.
 */
bool fake_alloc_index(struct fake_alloc *a);
void fake_alloc_unindex(const struct fake_alloc *a);

/*
 * A FAKE_ALLOC_IPC allocation on `device` of `bytes` at a new address, whose
 * memory is `data`, a shared mapping of memfd `fd`; both are the allocation's
 * from then on (unmapped and closed when it is freed), on failure too.
 */
cuabi_result fake_alloc_adopt(int device, size_t bytes, unsigned char *data, int fd, struct fake_alloc **out);

/* Backs a live allocation by a memfd (fake_shm.c) with its contents; false when out of memory. */
bool fake_alloc_share(struct fake_alloc *a);

/* ---- fake_shm.c: memory another process can map ---- */

/*
 * A new memfd of `size` bytes, zero, named NAME, sealed at its size; -1 when
 * out of memory or descriptors.
 */
int fake_shm_create(const char *name, size_t size);

/* A shared read-write mapping of [offset, offset + size) of memfd `fd` (at `at` exactly when not NULL), or NULL. */
unsigned char *fake_shm_map(int fd, size_t size, size_t offset, void *at);

/*
 * Checks a descriptor another process handed over before it is mapped: a
 * memfd the fake made (named starting with `prefix`), sealed at its size,
 * owned by this user, of a size from `align` to `max` that `align` divides.
 * Its size and name (after the prefix) come back and NULL; else why not.
 */
const char *fake_shm_check(int fd, const char *prefix, size_t align, size_t max, size_t *size, char *rest,
                           size_t rest_size);

/* ---- fake_copy.c: copies and fills ---- */

/* Runs a copy now; false when an address is not (or no longer) allocated. */
bool fake_copy_run(const struct fake_copy *copy);

/* Runs a queued memset; false when its memory is not (or no longer) allocated. */
bool fake_memset_run(const struct fake_memset *m);

/* ---- fake_array.c: CUDA arrays and mipmapped arrays, in host memory ---- */

struct fake_mipmap;

/* An array: its elements row after row, slice (or layer) after slice, packed. */
struct fake_array {
    struct fake_array *next_live;
    struct fake_ctx *ctx;
    uintptr_t handle;                /* its CUarray: a number never handed out again */
    cuabi_array3d_descriptor desc;   /* as created (height and depth 0 for none) */
    size_t elem;                     /* bytes an element */
    size_t pitch, rows, slices;      /* bytes a row; rows and slices, at least 1 */
    size_t bytes;
    unsigned char *data;
    const struct fake_mipmap *mipmap; /* the mipmapped array it is a level of, else NULL */
};

/* Bytes a channel of a format has; 0 for a format the fake does not store. */
size_t fake_format_bytes(cuabi_array_format format);

/* The live array a handle is, or NULL. */
struct fake_array *fake_array_find(const void *handle);

/* The array's memory for [offset, offset + bytes), or NULL when it is not live or that is past its end. */
unsigned char *fake_array_bytes(const void *handle, size_t offset, size_t bytes);

/* The live mipmapped array a handle is, or NULL. */
struct fake_mipmap *fake_mipmap_find(const void *handle);

/* Level `level` of a mipmapped array, or NULL past its last. */
struct fake_array *fake_mipmap_level(const struct fake_mipmap *m, unsigned level);

/* Destroys the context's arrays and mipmapped arrays; returns how many. */
unsigned long fake_arrays_reset(const struct fake_ctx *ctx);

/* The newest live array (GPU_FAKE_LIVE_ARRAYS) or mipmapped array's handle, or NULL. */
void *fake_array_newest(int kind);

/* ---- fake_texture.c: texture and surface objects ---- */

struct fake_texture {
    struct fake_texture *next_live;
    const struct fake_ctx *ctx;
    uint64_t handle;               /* its CUtexObject or CUsurfObject: a number never handed out again */
    bool surface;
    cuabi_resource_desc res;
    cuabi_texture_desc desc;       /* a texture's */
    cuabi_resource_view_desc view; /* a texture's, zero when it was created without one */
};

/* The live texture (surface false) or surface object a handle is, or NULL. */
const struct fake_texture *fake_texture_find(uint64_t handle, bool surface);

/* ---- fake_sample.c: texture reads and surface accesses for kernel code ---- */

/*
 * A texel of texture object `tex` as kernel code of `ctx` reads it
 * (gpu_fake_texture_read()); false on a fault, why in `why`.
 */
bool fake_texture_sample(const struct fake_ctx *ctx, uint64_t tex, const float coords[3], float lod,
                         gpu_fake_texel *out, char *why, size_t why_size);

/*
 * `size` bytes of surface object `surf` at byte x, row y, slice z, read into
 * or written from `bytes` (gpu_fake_surface_read() and _write()); false on a
 * fault, why in `why`.
 */
bool fake_surface_access(const struct fake_ctx *ctx, uint64_t surf, const long long at[3], void *bytes, size_t size,
                         int boundary, bool write, char *why, size_t why_size);

/*
 * The level of detail tex.grad's gradients (of `n` coordinates) make for
 * texture object `tex`: log2 of the longer gradient in texels of its first
 * level; 0 for a texture without mipmaps (or no live texture).
 */
float fake_texture_gradient_lod(uint64_t tex, unsigned n, const float dx[3], const float dy[3]);

/* Destroys the context's texture and surface objects; returns how many. */
unsigned long fake_textures_reset(const struct fake_ctx *ctx);

/* The newest live texture or surface object's handle, or NULL. */
void *fake_texture_newest(int kind);

/* ---- fake_host_memory.c: page-locked host memory ---- */

/* The page-locked host memory holding `addr`, or NULL. */
struct fake_host *fake_host_find(uint64_t addr);

/* ---- fake_pool.c: stream-ordered allocation ---- */

/* Bytes the device's pool holds for reuse beyond its allocations in use. */
size_t fake_pool_cached(int device);

/* Runs a FREE operation: its allocation goes back to its pool; false when there is none at its address. */
bool fake_pool_free_run(const struct fake_op *op);

/* ---- fake_stream_memory.c ---- */

/* Runs a WRITE_VALUE or WAIT_VALUE operation; false when it touched memory it may not. */
bool fake_value_run(const struct fake_op *op);

/* Whether the operation is a wait on a value not yet met: the stream cannot go on. */
bool fake_op_blocked(const struct fake_op *op);

/* ---- fake_stream.c: queues and the work on them ---- */

enum { FAKE_PRIORITY_LEAST = 0, FAKE_PRIORITY_GREATEST = -5 }; /* cuCtxGetStreamPriorityRange's */

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

/* Frees a stream, its queued work run first. */
void fake_stream_free(struct fake_stream *s);

/* The live stream a handle is, or NULL; handles are compared, never dereferenced. */
struct fake_stream *fake_stream_find(cuabi_stream handle);

/* A new operation of `kind`, zeroed; NULL when out of memory. */
struct fake_op *fake_op_new(enum fake_op_kind kind);
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

/* Runs the stream's work up to `seq`, its dependencies' first (it may wait, dropping the lock). */
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

/*
 * Runs every context's queued work, up to the newest queued now (it may
 * wait, dropping the lock): what a call that frees memory, an array or a
 * module does first, so that no queued launch or copy loses what it uses,
 * as the driver's cuMemFree synchronizes.
 */
void fake_work_drain(void);

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

/* What calls on the context return instead of their work: its device's loss, its sticky error, else success. */
cuabi_result fake_ctx_error(const struct fake_ctx *ctx);

/* Whether any stream of the context is capturing; ends those captures' validity when `invalidate`. */
bool fake_ctx_capturing(struct fake_ctx *ctx, bool invalidate);

/* Whether a blocking stream of the context is capturing; with `invalidate`, that capture is broken. */
bool fake_blocking_capture(struct fake_ctx *ctx, bool invalidate);

/* Destroys every stream, event and graph of the context; returns how many. */
unsigned long fake_streams_reset(struct fake_ctx *ctx);

/* Frees the stream's queued work without running it (its device was lost). */
void fake_stream_drop_work(struct fake_stream *s);

/* A new stream of the context (cuStreamCreate without its checks); OUT_OF_MEMORY. */
cuabi_result fake_stream_new(struct fake_ctx *ctx, unsigned flags, struct fake_stream **out);

/* What cuEventQuery does outside lazy mode when the event's record is pending: its stream runs what it can up to it. */
void fake_event_poll(struct fake_event *e);

/* Frees an event, forgetting it in every queue and graph that names it. */
void fake_event_free(struct fake_event *e);

/* ---- fake_per_thread.c: the per-thread default stream ---- */

/* The _ptsz/_ptds entry the calling thread is in (its base counts the call under that name), or -1. */
int fake_per_thread_call(void);

/* The calling thread's per-thread default stream of the context, made at its first use; OUT_OF_MEMORY. */
cuabi_result fake_per_thread_stream(struct fake_ctx *ctx, struct fake_stream **out);

/* Whether the fake implements the function of that entry itself (a variant's base). */
bool fake_per_thread_base_implemented(int entry);

/* ---- fake_event.c ---- */

/* The live event a handle is, or NULL. */
struct fake_event *fake_event_find(const void *handle);

/* A new live event of the context (cuEventCreate without its checks), or NULL when out of memory. */
struct fake_event *fake_event_new(struct fake_ctx *ctx, unsigned flags);

/* ---- fake_ipc.c: events another process sees ---- */

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

/* ---- fake_graph.c ---- */

/* The live graph (exec false) or executable graph a handle is, or NULL. */
struct fake_graph *fake_graph_find(const void *handle, bool exec);

/* Appends an operation to a graph's nodes. */
void fake_graph_append(struct fake_graph *g, struct fake_op *op);

/* Frees a graph not (or no longer) live, and its nodes. */
void fake_graph_free(struct fake_graph *g);

/* Frees a live graph. */
void fake_graph_unlink(struct fake_graph *g);

/* ---- fake_builtin.c: the built-in kernels ---- */

enum { FAKE_BUILTIN_PARAMS_MAX = 4 };

struct fake_exec;

struct fake_kernel {
    const char *name;
    size_t nparams;
    size_t sizes[FAKE_BUILTIN_PARAMS_MAX];
    bool hold;
    void (*run)(struct fake_exec *x);
};

/* The built-in kernel NAME, or NULL. */
const struct fake_kernel *fake_builtin_find(const char *name, size_t len);

/* Runs a kernel operation; false when it touched memory it may not. */
bool fake_kernel_run(const struct fake_ctx *ctx, const struct fake_op *op);

/* Whether the operation is the "hold" kernel, which waits for the gate. */
bool fake_kernel_holds(const struct fake_op *op);

/* ---- fake_module.c: modules, functions, globals ---- */

enum { FAKE_NUM_REGS = 32 }; /* registers a thread of every function uses */

/* What a function's attributes hold: the settable ones, then what its code fixes. */
struct fake_func_attrs {
    int max_dynamic_shared;
    int carveout;
    unsigned cache_config;
    int regs;              /* a thread's registers */
    size_t static_shared;  /* bytes of static shared memory a block uses */
    size_t local;          /* bytes of local memory a thread uses */
    unsigned max_threads;  /* of a block: .maxntid's or .reqntid's, else 1024 */
};

struct fake_layout;

/* The legacy launch API's state of a function (fake_launch_legacy.c). */
enum { FAKE_LEGACY_PARAM_MAX = 32764 }; /* the bytes a kernel's parameters may take */
struct fake_legacy_launch {
    unsigned block[3];      /* cuFuncSetBlockShape's; 0s: none set */
    unsigned shared;        /* cuFuncSetSharedSize's */
    size_t size;            /* cuParamSetSize's */
    unsigned char *params;  /* what cuParamSet* wrote, zeros elsewhere */
    size_t capacity;
};

void fake_legacy_launch_free(struct fake_legacy_launch *l); /* NULL does nothing */

struct fake_function {
    struct fake_module *module;
    const struct fake_kernel *kernel; /* a built-in kernel, or NULL */
    struct fake_layout *layout;       /* else an entry of the PTX, run by its host implementation */
    struct fake_func_attrs attrs;
    struct fake_legacy_launch *legacy; /* made by the first legacy launch call, or NULL */
};

struct fake_library;

struct fake_module {
    struct fake_module *next_live;
    struct fake_ctx *ctx;
    size_t count, capacity;
    struct fake_function *functions; /* handed out only once the load succeeded: they do not move after */
    struct fake_library *library;    /* the library it was loaded for in its context, or NULL: the client's */
    bool probe;        /* read to check and list an image, never run: not live, its globals have no memory */
    int ptx_version;   /* .version 8.5: 85 */
    size_t const_bytes; /* of its .const variables */
    struct fake_global **global_map; /* its globals by name (fake_module.c), open addressing */
    size_t global_map_cap, nglobals;
};

/* Unloads every module of the context; returns how many were the client's own. */
unsigned long fake_modules_reset(struct fake_ctx *ctx);

/*
 * Loads an image into a new module of `ctx`: a live one (the client's, or
 * `lib`'s), or with `probe` one that is only read. The reason for a failure in `log`.
 */
cuabi_result fake_module_new(const void *image, struct fake_ctx *ctx, struct fake_library *lib, bool probe,
                             char *log, size_t log_size, struct fake_module **out);

/* CU_JIT_MAX_REGISTERS's value among checked JIT options, or 0 without it. */
unsigned fake_jit_max_registers(unsigned n, const cuabi_jit_option *options, void **values);
/* Holds every function's register count to `max` (0: no limit), as ptxas's -maxrregcount does. */
void fake_module_max_registers(struct fake_module *m, unsigned max);

/*
 * A module file's bytes for `caller` (an entry point's name, for messages),
 * NUL-terminated into *out (freed by the caller), their count into *size
 * unless NULL: a regular file, not a link, of the user or root, writable by
 * no one else, bounded. FILE_NOT_FOUND; INVALID_VALUE for one refused (said on stderr and
 * to cuGetErrorString, fake_module_note()).
 */
cuabi_result fake_module_file_read(const char *caller, const char *path, char **out, size_t *size);

/* Frees a module fake_module_new() made. */
void fake_module_free(struct fake_module *m);

/* INVALID_VALUE for JIT options the driver refuses: missing arrays, an option it does not know. */
cuabi_result fake_jit_options_check(unsigned n, const cuabi_jit_option *options, void **values);

/*
 * Writes `text` into the JIT log the options name (buffer_opt, size_opt),
 * and the bytes written with the NUL into its size option; false when they name none.
 */
bool fake_jit_log(unsigned n, const cuabi_jit_option *options, void **values, unsigned buffer_opt, unsigned size_opt,
                  const char *text);

/* Sets what fake_module_note() tells for `result`: a load's reason, for a caller that gave no error log. */
void fake_module_note_set(cuabi_result result, const char *text);

/* Adds built-in kernel NAME (a `.fake_kernel` line) to the module; a log line on failure. */
cuabi_result fake_module_add_builtin(struct fake_module *m, const char *name, size_t len, unsigned line, char *log,
                                     size_t log_size);

/* Adds an entry the module's PTX declares, taking `layout` (freed on failure too); a log line on failure. */
cuabi_result fake_module_add_entry(struct fake_module *m, struct fake_layout *layout, unsigned line, char *log,
                                   size_t log_size);

/* A live module, or NULL. */
struct fake_module *fake_module_find(cuabi_module handle);

/* Why the calling thread's last module load failed with `result` (its JIT error log), or NULL: cuGetErrorString's. */
const char *fake_module_note(cuabi_result result);

/* A live function, or NULL; a CUkernel (fake_library.c) is its function in the current context. */
struct fake_function *fake_function_find(cuabi_function handle);

/* A function's name: its built-in kernel's, or its entry's. */
const char *fake_function_name(const struct fake_function *f);

/* Attribute `attrib` (a CUfunction_attribute) of the function on `device`; INVALID_VALUE for one there is not. */
cuabi_result fake_function_attribute(const struct fake_function *f, int device, unsigned attrib, int *value);

/* Global NAME of the module: its address and size (either NULL: not wanted); NOT_FOUND, INVALID_VALUE. */
cuabi_result fake_module_global(const struct fake_module *m, const char *name, cuabi_deviceptr *ptr, size_t *bytes);

/* A live function's attributes and its module's context, or NULL. */
struct fake_func_attrs *fake_function_attrs(cuabi_function f, struct fake_ctx **ctx);

/* The defaults a function is loaded with: a built-in kernel's (FAKE_NUM_REGS registers, no static memory). */
void fake_func_attrs_init(struct fake_func_attrs *a);

/*
 * A global "NAME BYTES" of the module (a `.fake_global` line's text after the
 * directive, or a PTX variable), zeroed; its memory in *out unless NULL. A log line on failure.
 */
cuabi_result fake_global_declare(struct fake_module *m, const char *text, size_t len, char *log, size_t log_size,
                                 struct fake_alloc **out);

/* Frees the module's globals (at unload, or when its load failed). */
void fake_globals_drop(struct fake_module *m);

/* ---- fake_library.c: context-independent loading (CUlibrary, CUkernel) ---- */

/* The function a CUkernel is in the current context, its library loaded there at the first need; else NULL. */
struct fake_function *fake_kernel_function(cuabi_kernel kernel);

/* ---- fake_image.c: the module loader's reader of PTX and fatbins ---- */

enum { FAKE_PARAM_BYTES_MAX = 4096 }; /* a launch's parameters, as CUDA allows */

/* An entry's parameters as its PTX declares them. */
struct fake_layout {
    char *name;
    unsigned count;
    size_t bytes;   /* the parameter buffer: the last one's end */
    size_t *size;   /* [count] */
    size_t *align;  /* [count] */
    size_t *offset; /* [count] each one's place in the buffer */
    unsigned max_threads;   /* of a block, from .maxntid or .reqntid; 0: not bounded */
    struct ptx_module *ptx; /* the module's decoded PTX (ptx/ptx.h), a reference; NULL for .fake_entry */
};

void fake_layout_free(struct fake_layout *l);

/*
 * Reads a module image (PTX text, the fake's own lines, a fatbin carrying
 * PTX; cuModuleLoadDataEx's `image`) into m's functions and globals; on
 * failure writes the reason to `log`.
 */
cuabi_result fake_image_load(const void *image, struct fake_module *m, char *log, size_t log_size);

/*
 * The PTX an input of `size` bytes carries (PTX itself, or a fatbin's
 * uncompressed PTX), NUL-terminated into *out (the caller frees it); else
 * NOT_SUPPORTED or INVALID_IMAGE with the reason and its fix in `log`.
 */
cuabi_result fake_image_ptx(const void *image, size_t size, char **out, char *log, size_t log_size);

/* ---- fake_host_kernel.c: host implementations of kernels ---- */

/*
 * A launch of an entry: looks up its host implementation (NOT_SUPPORTED,
 * with a message, when there is none), checks and copies the parameters
 * (kernelParams, or `extra`'s buffer) into a new shared record.
 */
cuabi_result fake_host_args_new(const struct fake_layout *l, void **params, void **extra,
                                struct fake_host_args **out);
void fake_host_args_retain(struct fake_host_args *a);  /* NULL does nothing */
void fake_host_args_release(struct fake_host_args *a); /* NULL does nothing */

/*
 * Runs a host kernel's operation on its stream: false when it touched memory
 * it may not (it printed why); a CUresult its implementation returned becomes the stream's fault.
 */
bool fake_host_kernel_run(struct fake_stream *s, const struct fake_op *op);

/* The calling thread's message for `result` from its last launch of an entry, or NULL: cuGetErrorString's. */
const char *fake_host_kernel_note(cuabi_result result);

/* The context a host kernel's launch runs in, or NULL for no launch being run. */
const struct fake_ctx *fake_launch_ctx(const gpu_fake_launch *launch);

/* Makes a launch being run fault: its stream reports CUDA_ERROR_ILLEGAL_ADDRESS (the caller printed why). */
void fake_launch_fault(const gpu_fake_launch *launch);

/* Loads GPUSHIM_FAKE_KERNELS's libraries once; called without the lock, before the fake's first use. */
void fake_host_kernels_load(void);

/* ---- fake_launch.c ---- */

/*
 * Checks and queues a launch of `f`: what cuLaunchKernel,
 * cuLaunchCooperativeKernel and cuLaunchKernelEx share.
 */
cuabi_result fake_launch(cuabi_function f, const unsigned grid[3], const unsigned block[3], unsigned shared,
                         cuabi_stream stream, void **params, void **extra, const struct fake_launch_ex *ex);

/* What the launch asks beyond a plain one that the device cannot give: a CUresult, else success. */
cuabi_result fake_launch_ex_check(const struct fake_ctx *ctx, const struct fake_func_attrs *a, const unsigned grid[3],
                                  const unsigned block[3], unsigned shared, const struct fake_launch_ex *ex);

/* The attributes of a cuLaunchKernelEx configuration; CUDA_ERROR_INVALID_VALUE for one the fake does not know. */
cuabi_result fake_launch_ex_parse(const cuabi_launch_config *config, struct fake_launch_ex *ex);

/* A cluster shape the device takes for the grid (NULL: any grid). */
cuabi_result fake_cluster_check(const unsigned grid[3], const struct fake_launch_ex *ex);

/* ---- fake_occupancy.c ---- */

/* Blocks of the function resident on one multiprocessor: threads, registers, then shared memory bound it. */
int fake_blocks_per_sm(int device, const struct fake_func_attrs *a, unsigned block, size_t shared);

#endif
