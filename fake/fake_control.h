/*
 * The fake driver's control API: what a test asks of libfakecuda besides
 * the CUDA entry points. Tests link the same file that GPUSHIM_LIBCUDA names,
 * so these functions see the very state that gpushim's calls change.
 *
 * Every function may be called from any thread, before or after cuInit, and
 * from a host function. Names of entry points are accepted in either form,
 * the base name ("cuMemAlloc") or the exported symbol ("cuMemAlloc_v2").
 *
 * The environment, read once, at the first call into the library:
 *   FAKE_CUDA_DEVICES=N      devices, 0 to 8 (default 1; 0 makes cuInit fail with 100)
 *   FAKE_CUDA_VERSION=V      what cuDriverGetVersion says (default 12080, 11020 for a
 *                            build without cuGetProcAddress_v2)
 *   FAKE_CUDA_INIT_FAIL=R    cuInit returns CUresult R
 *   FAKE_CUDA_FAIL=...       fault rules, see fake_fail()
 *   FAKE_CUDA_OMIT=a,b       cuGetProcAddress says "symbol not found" for these
 *   FAKE_CUDA_GPA_TWIN=1     cuGetProcAddress("cuStreamQuery") is not the exported one
 *   FAKE_CUDA_PEER=0         no device can access another's memory
 *   FAKE_CUDA_INIT_DELAY_MS=N  cuInit sleeps N ms first (without the fake's lock): a slow or hung driver
 *   FAKE_CUDA_INIT_CALLBACK=f  cuInit first calls int f(void), found with dlsym in the process (e.g.
 *                            gpu_driver_load): a driver calling back into its client; see
 *                            fake_init_callback_status()
 * Malformed values stop the program with a message, rather than being ignored.
 *
 * Builds: libfakecuda.so exports everything; libfakecuda-old.so lacks
 * cuGetProcAddress_v2, libfakecuda-minimal.so every optional entry point,
 * libfakecuda-noalloc.so cuMemAlloc_v2 (see the .map files).
 */
#ifndef FAKE_CONTROL_H
#define FAKE_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Calls ---- */

/* What FAKE_CUDA_INIT_CALLBACK's function returned inside cuInit; -1 if it has not run. */
int fake_init_callback_status(void);

/* How often the entry point was called (failed calls included); -1 for an unknown name. */
long fake_calls(const char *entry);

/* Calls to every entry point together. */
unsigned long fake_calls_total(void);

/* ---- Live objects, for leak checks ---- */

typedef enum fake_live_kind {
    FAKE_LIVE_DEVICE_ALLOCS,   /* cuMemAlloc_v2 not yet freed */
    FAKE_LIVE_HOST_ALLOCS,     /* cuMemHostAlloc not yet freed */
    FAKE_LIVE_HOST_REGISTERED, /* cuMemHostRegister_v2 not yet unregistered */
    FAKE_LIVE_STREAMS,
    FAKE_LIVE_EVENTS,
    FAKE_LIVE_MODULES,
    FAKE_LIVE_GRAPHS,
    FAKE_LIVE_GRAPH_EXECS,
    FAKE_LIVE_CONTEXT_RETAINS, /* primary-context retains, all devices */
    FAKE_LIVE_KIND_COUNT
} fake_live_kind;

long fake_live(fake_live_kind kind);

/* All live counts at once, to compare before and after a piece of work. */
typedef struct fake_live_counts {
    long count[FAKE_LIVE_KIND_COUNT];
} fake_live_counts;

void fake_live_get(fake_live_counts *out);

/*
 * The handle of the newest live object of a kind (for device allocations its
 * address, for host memory its pointer), or NULL: lets a test clean up what a
 * deliberately failed destroy left behind. NULL for FAKE_LIVE_CONTEXT_RETAINS.
 */
void *fake_newest(fake_live_kind kind);

/* The primary-context retain count of one device; -1 for no such device. */
long fake_primary_retains(int device);

/*
 * Things a correct client never causes; each is counted, never fatal.
 *   BAD_RELEASE      cuDevicePrimaryCtxRelease_v2 on a context not retained
 *   RELEASE_FREED    objects the driver destroyed because their primary
 *                    context was released under them
 *   EXEC_FAULT       queued work that touched memory no longer (or never)
 *                    allocated when it ran: an illegal address on a GPU
 */
typedef enum fake_anomaly {
    FAKE_ANOMALY_BAD_RELEASE,
    FAKE_ANOMALY_RELEASE_FREED,
    FAKE_ANOMALY_EXEC_FAULT,
    FAKE_ANOMALY_COUNT
} fake_anomaly;

unsigned long fake_anomalies(fake_anomaly kind);

/* ---- The work queue ---- */

/*
 * Work is queued, and runs only when something needs it done: a
 * synchronisation, a legacy-stream operation that is ordered after it, or
 * fake_run(). So pending work stays pending, and tests can watch it.
 */

/* Operations queued on all streams and not yet run. */
size_t fake_pending(void);

/* Runs up to `max` queued operations, oldest first; returns how many ran. */
size_t fake_run(size_t max);

/*
 * While the gate is closed, the "hold" kernel does not finish: whatever waits
 * for it blocks until another thread opens the gate. Open at start.
 */
void fake_gate(bool open);

/* The fake's clock: each operation that runs takes 1 us, "sleep_us" longer. */
uint64_t fake_clock_ns(void);

/* ---- Fault injection ---- */

/*
 * Makes the `nth` call (1 = the next one) of `entry` from now return `result`
 * without doing anything. fake_fail_from() fails that call and every later
 * one. Returns 0, or -1 for an unknown entry point or nth of 0.
 * The environment does the same at load: FAKE_CUDA_FAIL=name:nth:result,...
 * where "nth+" means from the nth on.
 */
int fake_fail(const char *entry, unsigned nth, int result);
int fake_fail_from(const char *entry, unsigned nth, int result);

/* Forgets every rule, the environment's too. */
void fake_fail_reset(void);

/* ---- cuGetProcAddress ---- */

typedef struct fake_gpa_stats {
    unsigned long calls;
    unsigned long found;
    int min_version; /* of the cudaVersion arguments; 0 before any call */
    int max_version;
    int last_version;
    unsigned long long flags_or;  /* every flags argument OR-ed */
    unsigned long long flags_and; /* and AND-ed: equal to flags_or when all agree */
} fake_gpa_stats;

void fake_gpa_get(fake_gpa_stats *out);

/* How often cuGetProcAddress was asked for exactly this name. */
unsigned long fake_gpa_asked(const char *name);

/* ---- Devices ---- */

typedef struct fake_device_desc {
    char name[64];
    size_t total_memory;
    int compute_major;
    int compute_minor;
    int multiprocessors;
    char pci_bus_id[16];
} fake_device_desc;

/* The configured device count (FAKE_CUDA_DEVICES, default 1). */
int fake_device_count(void);

/* What the fake reports for device `ordinal`; -1 for no such device. */
int fake_device_get(int ordinal, fake_device_desc *out);

/* Changes what it reports; -1 for no such device. */
int fake_device_set(int ordinal, const fake_device_desc *desc);

/* Whether cuDeviceCanAccessPeer(device, peer) says yes (all pairs at start). */
void fake_peer_set(int device, int peer, bool allowed);

/* Whether device's context has enabled access to peer's memory. */
bool fake_peer_enabled(int device, int peer);

/* Bytes of device memory allocated on the device. */
size_t fake_device_used(int ordinal);

/* ---- Memory, seen from outside the API under test ---- */

/* Copies device memory to or from the host, bypassing streams; -1 if not allocated. */
int fake_peek(uint64_t addr, void *dst, size_t bytes);
int fake_poke(uint64_t addr, const void *src, size_t bytes);

/* ---- The calling thread ---- */

/* How many contexts the calling thread has on its stack (the current one included). */
int fake_context_depth(void);

/* ---- Configuration ---- */

/* The version cuDriverGetVersion reports (FAKE_CUDA_VERSION, default 12080). */
int fake_driver_version(void);

/*
 * The fake's PTX: text whose lines are blank, `// comments`, the directives
 * .version, .target and .address_size (arguments ignored), and
 * `.fake_kernel NAME`, which makes built-in kernel NAME a function of the
 * module. Anything else is CUDA_ERROR_INVALID_PTX with a log naming the line.
 *
 * Built-in kernels; n is an element count, threads past the grid do nothing:
 *   add_one(u32 *data, u32 n)                 data[i] += 1
 *   scale_add(u32 *data, u32 mul, u32 add, u32 n)  data[i] = data[i] * mul + add
 *   fill_u32(u32 *data, u32 value, u32 n)     data[i] = value
 *   copy_u32(u32 *dst, const u32 *src, u32 n) dst[i] = src[i]
 *   launch_info(u32 *out)                     out[0..6] = grid xyz, block xyz, shared bytes
 *   sleep_us(u32 us)                          advances the clock by us
 *   hold()                                    waits for fake_gate(true)
 * Pointer parameters are device addresses (8 bytes), the rest 4 bytes.
 */

#ifdef __cplusplus
}
#endif

#endif
