/* SPDX-License-Identifier: MIT */
/** @file
 * gpushim-fakecuda: a CUDA driver simulated in host memory, for CPU-only CI,
 * and its control API: what a program asks of the fake besides the CUDA entry
 * points. A program points GPUSHIM_LIBCUDA at libgpushim-fakecuda.so (`pkg-config
 * --variable=driver gpushim-fakecuda`); a test that also calls the functions
 * below links the same file (`pkg-config --libs gpushim-fakecuda`), so they see
 * the very state that gpushim's calls change. Nothing here is part of
 * libgpushim: link the fake into test programs only.
 *
 * Every function may be called from any thread, before or after cuInit, and
 * from a host function. Names of entry points are accepted in either form,
 * the base name ("cuMemAlloc") or the exported symbol ("cuMemAlloc_v2").
 *
 * The environment, read once, at the first call into the library:
 *   GPUSHIM_FAKE_DEVICES=N      devices, 0 to 8 (default: as many as GPUSHIM_FAKE_DEVICE names, else 1;
 *                            0 makes cuInit fail with 100)
 *   GPUSHIM_FAKE_DEVICE=p,p,... each device's profile, in order (the last one named goes on for the
 *                            rest): h200 (the default), a100, l4, rtx4090; see gpu_fake_device_profile()
 *   GPUSHIM_FAKE_ATTRIBUTES=[d:]NAME=V,...  device attribute NAME (as cuda.h spells it, with or without
 *                            CU_DEVICE_ATTRIBUTE_) is V on device d, or on every device; see
 *                            gpu_fake_device_attribute_set()
 *   GPUSHIM_FAKE_VERSION=V      what cuDriverGetVersion says (default 13000, 11020 for a
 *                            build without cuGetProcAddress_v2)
 *   GPUSHIM_FAKE_INIT_FAIL=R    cuInit returns CUresult R
 *   GPUSHIM_FAKE_FAIL=...       fault rules, see gpu_fake_fail()
 *   GPUSHIM_FAKE_OMIT=a,b       cuGetProcAddress says "symbol not found" for these
 *   GPUSHIM_FAKE_GPA_TWIN=1     (a switch) cuGetProcAddress("cuStreamQuery") is not the exported one
 *   GPUSHIM_FAKE_PEER=0         (a switch, default on) no device can access another's memory
 *   GPUSHIM_FAKE_INIT_DELAY_MS=N  cuInit sleeps N ms first (without the fake's lock): a slow or hung driver
 *   GPUSHIM_FAKE_INIT_CALLBACK=f  cuInit first calls int f(void), found with dlsym in the process (e.g.
 *                            gpu_driver_load): a driver calling back into its client; see
 *                            gpu_fake_init_callback_status()
 *   GPUSHIM_FAKE_DEVICE_NAME=s  every device's name (1 to 63 bytes; default its profile's, "NVIDIA H200")
 *   GPUSHIM_FAKE_DEVICE_MEMORY=B  every device's total memory, bytes with an optional K, M or G
 *                            suffix (powers of 1024; default its profile's)
 *   GPUSHIM_FAKE_COMPUTE_CAPABILITY=M.m  every device's compute capability, e.g. 9.0
 *                            (default its profile's)
 *   GPUSHIM_FAKE_MEMORY_LIMIT=B  out of memory past B bytes in use on a device, see gpu_fake_memory_limit()
 *   GPUSHIM_FAKE_LOSE=d:nth:r   device d falls off the bus at the nth call into the fake, see
 *                            gpu_fake_device_lose()
 *   GPUSHIM_FAKE_STALL=1        start stalled, see gpu_fake_stall()
 *   GPUSHIM_FAKE_STICKY=0       a kernel's fault is told once and its context goes on (default: the
 *                            context is corrupted, every later call on it returns the fault, as on the driver)
 *   GPUSHIM_FAKE_PROGRESS=0     lazy: queued work runs only when something needs it done (default: on
 *                            its own too, see gpu_fake_progress())
 *   GPUSHIM_FAKE_REPORT=1|strict  the live objects, and the calls of functions the fake does not
 *                            implement, on stderr at exit; see gpu_fake_report()
 *   GPUSHIM_FAKE_KERNELS=/a.so:/b.so  libraries loaded (dlopen, never closed) at the first call, whose
 *                            constructors register host kernels (gpu_fake_kernel_register());
 *                            absolute paths only (code is never loaded from a folder that
 *                            depends on the working one)
 *   GPUSHIM_FAKE_THREADS=N      host threads a launch on the PTX interpreter uses, 1 to 256 (default:
 *                            one per core); see docs/ptx-interpreter.md for the interpreter
 *   GPUSHIM_FAKE_CHECK=race,init  the interpreter's optional checks, a comma-separated list: race
 *                            (shared-memory races between barriers), init (reads of memory nothing
 *                            wrote, reported once a launch), init-strict (init, failing the launch)
 *   GPUSHIM_FAKE_WATCHDOG=S     seconds a launch on the interpreter may go without progress before
 *                            it stops with CUDA_ERROR_LAUNCH_TIMEOUT (default 30; 0: never)
 * Values are read with secure_getenv and parsed as libgpushim parses its own
 * (a number is digits alone within its range, a switch 0 or 1, also off/on,
 * false/true, no/yes; unset means the default). A malformed value, an empty
 * one included, is not ignored and ends nothing: it is printed once on
 * stderr, naming the variable, the value and what it accepts, and cuInit
 * returns CUDA_ERROR_INVALID_VALUE, whose cuGetErrorString is that message
 * (gpushim's load report quotes it); calls that need cuInit then answer
 * CUDA_ERROR_NOT_INITIALIZED.
 *
 * The fake exports every function of the CUDA 13.0 driver, so that a program
 * linked against libcuda loads with it in libcuda's place; the functions it
 * does not implement answer CUDA_ERROR_NOT_SUPPORTED (gpu_fake_symbol_implemented()).
 *
 * Builds: libgpushim-fakecuda.so, the installed one, exports everything. The
 * test variants in the build tree leave symbols out (see fake/'s .map files):
 * libgpushim-fakecuda-old.so cuGetProcAddress_v2, -minimal every optional entry
 * point, -noalloc cuMemAlloc_v2, -noex cuLaunchKernelEx and a few more.
 */
#ifndef GPUSHIM_FAKE_H
#define GPUSHIM_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Calls ---- */

/**
 * What GPUSHIM_FAKE_INIT_CALLBACK's function returned inside cuInit.
 * @return its return value; -1 if it has not run
 */
int gpu_fake_init_callback_status(void);

/**
 * How often the entry point was called (failed calls included).
 * @param entry the entry point's base name or exported symbol
 * @return the number of calls; -1 for an unknown name
 */
long gpu_fake_calls(const char *entry);

/**
 * Calls to every entry point together.
 * @return the number of calls, failed ones included
 */
unsigned long gpu_fake_calls_total(void);

/**
 * Whether the fake implements a driver function. It exports every function
 * of the CUDA 13.0 driver (src/sys/driver/cuda_symbols.h); one it does not
 * implement returns CUDA_ERROR_NOT_SUPPORTED, says so on stderr at its first
 * call (naming it), and is counted for gpu_fake_report().
 * @param name the exported symbol, e.g. "cuCtxCreate_v4"
 * @return 1 implemented, 0 not, -1 for a name that is no driver function
 */
int gpu_fake_symbol_implemented(const char *name);

/**
 * Calls of driver functions the fake does not implement, all together.
 * @return the number of calls, failed ones by a fault rule left out
 */
unsigned long gpu_fake_unimplemented_calls(void);

/* ---- Live objects, for leak checks ---- */

/** A kind of object the fake counts while it lives. */
typedef enum gpu_fake_live_kind {
    GPU_FAKE_LIVE_DEVICE_ALLOCS,   /**< cuMemAlloc_v2 not yet freed; IPC handles opened, not yet closed */
    GPU_FAKE_LIVE_HOST_ALLOCS,     /**< cuMemHostAlloc not yet freed */
    GPU_FAKE_LIVE_HOST_REGISTERED, /**< cuMemHostRegister_v2 not yet unregistered */
    GPU_FAKE_LIVE_STREAMS,         /**< streams not yet destroyed */
    GPU_FAKE_LIVE_EVENTS,          /**< events not yet destroyed */
    GPU_FAKE_LIVE_MODULES,         /**< modules not yet unloaded */
    GPU_FAKE_LIVE_GRAPHS,          /**< graphs not yet destroyed */
    GPU_FAKE_LIVE_GRAPH_EXECS,     /**< executable graphs not yet destroyed */
    GPU_FAKE_LIVE_CONTEXT_RETAINS, /**< primary-context retains, all devices */
    GPU_FAKE_LIVE_CONTEXTS,        /**< contexts cuCtxCreate made, not yet destroyed */
    /** Physical allocations (cuMemCreate, cuMemImportFromShareableHandle) whose handles or mappings remain */
    GPU_FAKE_LIVE_VMM_ALLOCS,
    GPU_FAKE_LIVE_VMM_RESERVATIONS, /**< cuMemAddressReserve ranges not yet freed */
    GPU_FAKE_LIVE_LINKS,           /**< JIT linker states cuLinkCreate_v2 made, not yet destroyed */
    GPU_FAKE_LIVE_LIBRARIES,       /**< libraries cuLibraryLoadData made, not yet unloaded */
    GPU_FAKE_LIVE_ARRAYS,          /**< CUDA arrays not yet destroyed, mipmapped arrays' levels included */
    GPU_FAKE_LIVE_MIPMAPPED_ARRAYS, /**< mipmapped arrays not yet destroyed */
    GPU_FAKE_LIVE_TEXTURES,        /**< texture objects not yet destroyed */
    GPU_FAKE_LIVE_SURFACES,        /**< surface objects not yet destroyed */
    GPU_FAKE_LIVE_KIND_COUNT       /**< not a kind: the number of them */
} gpu_fake_live_kind;

/**
 * How many objects of a kind are alive now.
 * @param kind the kind
 * @return the count; -1 for a value outside the enum
 */
long gpu_fake_live(gpu_fake_live_kind kind);

/** All live counts at once, to compare before and after a piece of work. */
typedef struct gpu_fake_live_counts {
    long count[GPU_FAKE_LIVE_KIND_COUNT]; /**< gpu_fake_live() of each kind, indexed by it */
} gpu_fake_live_counts;

/**
 * Reads every live count at once, under one lock.
 * @param[out] out the counts; must not be NULL
 */
void gpu_fake_live_get(gpu_fake_live_counts *out);

/**
 * The handle of the newest live object of a kind (for device allocations its
 * address, for host memory its pointer), or NULL: lets a test clean up what a
 * deliberately failed destroy left behind. NULL for GPU_FAKE_LIVE_CONTEXT_RETAINS
 * and the two VMM kinds.
 * @param kind the kind
 * @return the handle, or NULL when none of that kind is alive
 */
void *gpu_fake_newest(gpu_fake_live_kind kind);

/**
 * The primary-context retain count of one device.
 * @param device the device ordinal
 * @return the count; -1 for no such device
 */
long gpu_fake_primary_retains(int device);

/** Things a correct client never causes; each is counted, never fatal. */
typedef enum gpu_fake_anomaly {
    GPU_FAKE_ANOMALY_BAD_RELEASE,   /**< cuDevicePrimaryCtxRelease_v2 on a context not retained */
    /** Objects the driver destroyed because their primary context was released under them. */
    GPU_FAKE_ANOMALY_RELEASE_FREED,
    /** Queued work that touched memory no longer (or never) allocated when it ran: an illegal address on a GPU. */
    GPU_FAKE_ANOMALY_EXEC_FAULT,
    GPU_FAKE_ANOMALY_COUNT          /**< not an anomaly: the number of them */
} gpu_fake_anomaly;

/**
 * How often an anomaly has happened.
 * @param kind the anomaly
 * @return the count; 0 for a value outside the enum
 */
unsigned long gpu_fake_anomalies(gpu_fake_anomaly kind);

/* ---- The work queue ---- */

/*
 * Work is queued, and runs when something needs it done: a
 * synchronisation, a legacy-stream operation that is ordered after it, or
 * gpu_fake_run(); and on its own, as on a GPU: cuStreamQuery and
 * cuEventQuery run what of it can run without waiting, and a progress
 * thread runs the rest after about a millisecond without the host, host
 * functions included. In lazy mode (GPUSHIM_FAKE_PROGRESS=0 or
 * gpu_fake_progress(false)) only the first happens: pending work stays
 * pending, and tests can watch it.
 */

/**
 * Operations queued on all streams and not yet run.
 * @return their number
 */
size_t gpu_fake_pending(void);

/**
 * Runs up to `max` queued operations, oldest first. It stops early when
 * nothing is left that can run (an operation waiting on another, the "hold"
 * kernel behind a closed gate), and waits for a host function still running.
 * @param max the most operations to run
 * @return how many ran
 */
size_t gpu_fake_run(size_t max);

/**
 * Whether queued work makes progress on its own (on, unless
 * GPUSHIM_FAKE_PROGRESS=0), or only when something needs it done (lazy).
 * @param on true lets it run on its own, false makes the fake lazy from now on
 */
void gpu_fake_progress(bool on);

/**
 * While the gate is closed, the "hold" kernel does not finish: whatever waits
 * for it blocks until another thread opens the gate. Open at start.
 * @param open true opens the gate (and wakes what waits on it), false closes it
 */
void gpu_fake_gate(bool open);

/**
 * The fake's clock: each operation that runs takes 1 us, "sleep_us" longer.
 * @return the clock in nanoseconds; 0 at start
 */
uint64_t gpu_fake_clock_ns(void);

/* ---- Fault injection ---- */

/**
 * Makes the `nth` call (1 = the next one) of `entry` from now return `result`
 * without doing anything. gpu_fake_fail_from() fails that call and every later
 * one. The environment does the same at load: GPUSHIM_FAKE_FAIL=name:nth:result,...
 * where "nth+" means from the nth on.
 * @param entry the entry point's base name or exported symbol
 * @param nth which call from now fails, from 1
 * @param result the CUresult it returns
 * @return 0, or -1 for an unknown entry point or nth of 0
 */
int gpu_fake_fail(const char *entry, unsigned nth, int result);
/**
 * As gpu_fake_fail(), failing the `nth` call of `entry` and every one after it.
 * @param entry the entry point's base name or exported symbol
 * @param nth the first call from now that fails, from 1
 * @param result the CUresult they return
 * @return 0, or -1 for an unknown entry point or nth of 0
 */
int gpu_fake_fail_from(const char *entry, unsigned nth, int result);

/** Forgets every rule, the environment's too. */
void gpu_fake_fail_reset(void);

/* ---- cuGetProcAddress ---- */

/** What cuGetProcAddress_v2 was asked, summed over its calls (those a fault rule failed left out). */
typedef struct gpu_fake_gpa_stats {
    unsigned long calls;          /**< the calls */
    unsigned long found;          /**< the calls that found their symbol */
    int min_version;              /**< the least of the cudaVersion arguments; 0 before any call */
    int max_version;              /**< the greatest of them; 0 before any call */
    int last_version;             /**< the last call's; 0 before any call */
    unsigned long long flags_or;  /**< every flags argument OR-ed */
    unsigned long long flags_and; /**< and AND-ed: equal to flags_or when all agree */
} gpu_fake_gpa_stats;

/**
 * Reads the cuGetProcAddress_v2 statistics.
 * @param[out] out the statistics; must not be NULL
 */
void gpu_fake_gpa_get(gpu_fake_gpa_stats *out);

/**
 * How often cuGetProcAddress was asked for exactly this name.
 * @param name the name as asked, e.g. "cuMemAlloc"
 * @return the count; 0 for a name that is no entry point
 */
unsigned long gpu_fake_gpa_asked(const char *name);

/* ---- Devices ---- */

/** What the fake reports for one device. */
typedef struct gpu_fake_device_desc {
    char name[64];        /**< cuDeviceGetName's answer, NUL-terminated */
    size_t total_memory;  /**< bytes, cuDeviceTotalMem's answer */
    int compute_major;    /**< compute capability, major */
    int compute_minor;    /**< and minor */
    int multiprocessors;  /**< CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
    char pci_bus_id[16];  /**< cuDeviceGetPCIBusId's answer, NUL-terminated */
} gpu_fake_device_desc;

/**
 * The configured device count (GPUSHIM_FAKE_DEVICES, default 1).
 * @return the count, 0 to 8
 */
int gpu_fake_device_count(void);

/**
 * What the fake reports for device `ordinal`.
 * @param ordinal the device
 * @param[out] out the description; must not be NULL; written only on success
 * @return 0, or -1 for no such device
 */
int gpu_fake_device_get(int ordinal, gpu_fake_device_desc *out);

/**
 * Changes what it reports.
 * @param ordinal the device
 * @param desc the new description
 * @return 0, or -1 for no such device, a NULL desc, or one with fewer than 1
 *         multiprocessor, a compute capability outside 1.0 to 99.9, or a
 *         name or bus id without its NUL
 */
int gpu_fake_device_set(int ordinal, const gpu_fake_device_desc *desc);

/**
 * Whether cuDeviceCanAccessPeer(device, peer) says yes (all pairs at start).
 * No such device, or device equal to peer, changes nothing.
 * @param device the device that would reach the other's memory
 * @param peer the other device
 * @param allowed the answer from now on
 */
void gpu_fake_peer_set(int device, int peer, bool allowed);

/**
 * Whether device's context has enabled access to peer's memory.
 * @param device the device whose context enabled it
 * @param peer the device whose memory it reaches
 * @return true if enabled; false otherwise and for no such device
 */
bool gpu_fake_peer_enabled(int device, int peer);

/**
 * Bytes of device memory allocated on the device.
 * @param ordinal the device
 * @return the bytes; 0 for no such device
 */
size_t gpu_fake_device_used(int ordinal);

/* ---- Memory, seen from outside the API under test ---- */

/**
 * Copies device memory to the host, bypassing streams.
 * @param addr the device address
 * @param dst host memory with room for `bytes`
 * @param bytes how many bytes; all of them in one live allocation
 * @return 0, or -1 if [addr, addr + bytes) is not allocated
 */
int gpu_fake_peek(uint64_t addr, void *dst, size_t bytes);
/**
 * Copies host memory to the device, bypassing streams; a stream waiting on a
 * value there sees it.
 * @param addr the device address
 * @param src host memory holding `bytes`
 * @param bytes how many bytes; all of them in one live allocation
 * @return 0, or -1 if [addr, addr + bytes) is not allocated
 */
int gpu_fake_poke(uint64_t addr, const void *src, size_t bytes);

/* ---- The calling thread ---- */

/**
 * How many contexts the calling thread has on its stack (the current one included).
 * @return the depth; 0 with no current context
 */
int gpu_fake_context_depth(void);

/* ---- Configuration ---- */

/**
 * The version cuDriverGetVersion reports (GPUSHIM_FAKE_VERSION, default 13000).
 * @return the version, as 1000 * major + 10 * minor
 */
int gpu_fake_driver_version(void);

/*
 * Module images (fake/fake_image.c). The fake reads PTX as nvcc and NVRTC emit it:
 * .version (first), .target, .address_size; `.entry NAME(.param ...)`, each
 * parameter's size, alignment and offset (`.param .align 8 .b8 p[24]` for a
 * struct); the performance directives before a body; `.global` and `.const`
 * variables, with their initialisers (cuModuleGetGlobal finds them); and it
 * skips bodies, `.func`s, `.extern` declarations, module-scope `.shared` and
 * `.local`, `.section .debug_*`, `.file`, and comments. Nothing is compiled:
 * an entry runs its host implementation (see "Kernels as host functions").
 * Malformed text is CUDA_ERROR_INVALID_PTX with a log naming the line and
 * what was expected (CU_JIT_ERROR_LOG_BUFFER). A fatbin is read for its first uncompressed PTX entry
 * (`nvcc -fatbin --no-compress -gencode arch=compute_90,code=compute_90`); a
 * cubin, or a fatbin without such an entry, is CUDA_ERROR_NOT_SUPPORTED, with
 * a message naming the cause and the nvcc flags that fix it: in the
 * CU_JIT_ERROR_LOG_BUFFER the caller passed, else from cuGetErrorString
 * (CUDA_ERROR_NOT_SUPPORTED) on the same thread until its next load.
 *
 * Besides PTX, the fake's own lines, for tests:
 *   .fake_kernel NAME        built-in kernel NAME is a function of the module
 *   .fake_entry NAME S...    an entry whose parameters take S bytes each (S:A
 *                            for alignment A; else the largest power of two
 *                            dividing S, at most 8), run by its host implementation
 *   .fake_max_registers N    every function has at most N (1 to 255) registers:
 *                            what cuLinkComplete writes for CU_JIT_MAX_REGISTERS
 *
 * Built-in kernels; n is an element count, threads past the grid do nothing:
 *   add_one(u32 *data, u32 n)                 data[i] += 1
 *   scale_add(u32 *data, u32 mul, u32 add, u32 n)  data[i] = data[i] * mul + add
 *   fill_u32(u32 *data, u32 value, u32 n)     data[i] = value
 *   copy_u32(u32 *dst, const u32 *src, u32 n) dst[i] = src[i]
 *   launch_info(u32 *out)                     out[0..6] = grid xyz, block xyz, shared bytes
 *   sleep_us(u32 us)                          advances the clock by us
 *   hold()                                    waits for gpu_fake_gate(true)
 * Pointer parameters are device addresses (8 bytes), the rest 4 bytes.
 *
 * Preset host implementation, of an entry a module's PTX declares (a
 * registration of the same name takes its place):
 *   gpushim_add_one(u64 data, u32 n)          data[i] += 1 (gpushim-info's self-test)
 */

/* ---- Kernels, attributes, occupancy, launches ---- */

/*
 * Functions: every built-in kernel uses 32 registers a thread and no static
 * shared memory; resident blocks are bounded by 2048 threads, 65536
 * registers and 32 blocks a multiprocessor, and by its 228 KiB of shared
 * memory (each block's dynamic bytes plus 1 KiB reserved). A launch over
 * 48 KiB of dynamic shared memory needs cuFuncSetAttribute first; a
 * cooperative one must fit on the device at once; a cluster holds at most 8.
 *
 * cuTensorMapEncodeTiled checks what the real one does (a live allocation
 * 16-byte aligned, the shape's limits) and writes opaque[0] = "FAKETMAP",
 * [1] = the address, [2] = type | rank << 8 | swizzle << 16 | L2 promotion
 * << 20 | fill << 24, [3 + i] = dims[i], [8 + i] = strides[i - 1], [12] =
 * box[i] << 12i, [13] = element_strides[i] << 4i.
 *
 * PTX: `.fake_global NAME BYTES` gives the module a zeroed global of that size
 * (cuModuleGetGlobal). Built-in kernel launch_ex_info(u32 *out) writes
 * out[0..5] = cluster xyz, cooperative, programmatic serialization, priority.
 */

/*
 * Device profiles. Each fake device is one real board, with its name, total
 * memory, compute capability and every one of CUDA 13.0's 147 device
 * attributes as that board reports them (fake/fake_profiles.c; checked
 * against the boards' published figures by tests/fake/test_profiles.c):
 *   h200     NVIDIA H200 (the default): 132 SMs at 1980 MHz, 139.8 GiB HBM3e
 *            on a 6144-bit bus, 50 MiB L2, compute 9.0, 228 KiB shared memory a
 *            multiprocessor, clusters and tensor maps
 *   a100     NVIDIA A100-SXM4-80GB: 108 SMs at 1410 MHz, 79.2 GiB HBM2e on
 *            5120 bits, 40 MiB L2, compute 8.0, 164 KiB shared a multiprocessor
 *   l4       NVIDIA L4: 58 SMs at 2040 MHz, 22 GiB GDDR6 on 192 bits, 48 MiB
 *            L2, compute 8.9, 100 KiB shared, 1536 threads a multiprocessor
 *   rtx4090  NVIDIA GeForce RTX 4090: 128 SMs at 2520 MHz, 23.6 GiB GDDR6X on
 *            384 bits, 72 MiB L2, compute 8.9, no ECC, FP64 at 1/64
 * A device's own: its PCI bus id (0x19 + 0x10 * ordinal), its multi-GPU
 * board group id (its ordinal), its UUID (bytes d*16+1, ..., d*16+16 for
 * device d, each XOR 0x40 times the profile's place in the list above).
 */

/**
 * Makes device `ordinal` the profile's board: its description
 * (gpu_fake_device_get()) and attributes become the profile's, and every
 * attribute set or forgotten before is forgotten.
 * @param ordinal the device
 * @param profile "h200", "a100", "l4" or "rtx4090"
 * @return 0, or -1 for no such device or profile
 */
int gpu_fake_device_profile(int ordinal, const char *profile);

/**
 * The profile of device `ordinal`.
 * @param ordinal the device
 * @return its name ("h200", ...), a static string; NULL for no such device
 */
const char *gpu_fake_device_profile_name(int ordinal);

/**
 * Sets one device attribute of device `ordinal`, over its profile's value
 * (the environment does the same: GPUSHIM_FAKE_ATTRIBUTES). Also for an
 * attribute that CUDA 13.0 does not have, which the device then knows.
 * MULTIPROCESSOR_COUNT and the compute capability are gpu_fake_device_desc's:
 * set them with gpu_fake_device_set() for cuDeviceGetAttribute and
 * gpu_device_get_info() to agree (an attribute set here wins for
 * cuDeviceGetAttribute).
 * @param ordinal the device
 * @param attribute the CUdevice_attribute, below 256
 * @param value what cuDeviceGetAttribute answers for it from now on, within
 *        what the attribute can be (gpushim(3), GPUSHIM_FAKE_ATTRIBUTES)
 * @return 0, or -1 for no such device, an attribute of 256 or more or a value
 *         the attribute cannot take
 */
int gpu_fake_device_attribute_set(int ordinal, int attribute, int value);
/**
 * Makes cuDeviceGetAttribute of device `ordinal` not know `attribute`
 * (CUDA_ERROR_INVALID_VALUE), as an older driver would not;
 * gpu_fake_device_attribute_set() or gpu_fake_device_profile() undoes it.
 * @param ordinal the device
 * @param attribute the CUdevice_attribute, below 256
 * @return 0, or -1 for no such device or an attribute of 256 or more
 */
int gpu_fake_device_attribute_forget(int ordinal, int attribute);

/* ---- Memory and interop ---- */

/*
 * How the fake plays them:
 *  - Contexts besides the primary ones (cuCtxCreate_v2, _v3, _v4): each has its
 *    own legacy stream, streams, modules and memory; cuCtxDestroy_v2 runs its
 *    work, frees what it owns and takes it off the calling thread's stack; its
 *    handle is never reused. Execution affinity and CIG parameters are
 *    CUDA_ERROR_NOT_SUPPORTED. cuMemAllocPitch rows are 512-byte aligned.
 *  - Device memory starts zeroed. An allocation of 64 KiB or more is an
 *    anonymous mapping without reserved swap, as a GPU driver's is: its pages
 *    cost nothing until touched, so a program may size its buffers as for the
 *    real device (tens of GiB) in a CI machine with far less memory. What a
 *    device has is its total memory (or GPUSHIM_FAKE_MEMORY_LIMIT), counted
 *    in bytes asked for, not touched. Addresses are never reused: a freed one
 *    stays an illegal address. Finding an address's allocation costs O(log n)
 *    in the live allocations (bench/fake_memory.c). cuMemFree, cuMemFreeHost,
 *    cuMemHostUnregister, the array destroys and cuModuleUnload run the work
 *    queued before them first, so queued work never loses its memory.
 *  - A kernel's illegal address, trap or other exception corrupts its context
 *    (GPUSHIM_FAKE_STICKY): every later call on it returns the error until the
 *    context is destroyed, a primary one released to zero.
 *  - Asynchronous copies: a pageable host source is staged at the call, a copy
 *    into pageable host memory has completed when the call returns; page-locked
 *    memory is read or written when the stream reaches the copy.
 *  - Stream-ordered allocation: cuMemAllocAsync allocates at once;
 *    cuMemFreeAsync is queued, and when it runs the bytes stay reserved by the
 *    device's one pool up to its release threshold (0 at start), beyond which
 *    they are released; cuMemPoolTrimTo releases down to what it keeps.
 *  - Managed memory lives at its host address, so the host reads and writes it
 *    directly; a prefetch is recorded at the call (gpu_fake_managed_location()).
 *  - IPC: a handle names its process. One of this process opens the very
 *    allocation (or event) again, counted live until closed (a real driver
 *    refuses that); one of a process that has exited is CUDA_ERROR_INVALID_VALUE,
 *    one of another live process CUDA_ERROR_NOT_SUPPORTED (the fake cannot
 *    share memory between processes).
 *  - A stream that waits on a value runs other streams' queued work until the
 *    value is met, or, with nothing else to run, waits for another thread
 *    (gpu_fake_poke(), gpu_fake_run(), a write from a stream it synchronises).
 *  - cuStreamCreateWithPriority clamps to the range [-5, 0] (greatest, least).
 */

/**
 * Bytes the device's pool holds for reuse (reserved and not in use).
 * @param device the device ordinal
 * @return the bytes; -1 for no such device
 */
long long gpu_fake_pool_cached(int device);

/**
 * Where the managed allocation at `addr` was last prefetched.
 * @param addr an address inside the allocation
 * @return its device's ordinal, -1 for the host, -2 if not managed
 */
int gpu_fake_managed_location(uint64_t addr);

/**
 * The advice last given for the managed allocation at `addr`.
 * @param addr an address inside the allocation
 * @return the CUmem_advise value, 0 for none, -1 if not managed
 */
int gpu_fake_managed_advice(uint64_t addr);


/* ---- Identity ---- */

/**
 * What this library is, e.g. "gpushim-fakecuda 0.2.0": gpushim's loader looks
 * this symbol up in the driver it loaded, so that its load report and
 * gpushim-info say "the gpushim fake driver, not a GPU".
 * @return a static string.
 */
const char *gpu_fake_identify(void);

/* ---- Kernels as host functions ---- */

/** Launch dimensions, as cuLaunchKernel takes them. */
typedef struct gpu_fake_dim3 {
    unsigned x; /**< x extent */
    unsigned y; /**< y extent */
    unsigned z; /**< z extent */
} gpu_fake_dim3;

struct gpu_fake_exec;

/**
 * One launch of a kernel, as its host implementation sees it when its stream
 * reaches it. Valid only during that call.
 */
typedef struct gpu_fake_launch {
    const char *name;          /**< the entry's name as the module declares it (.entry) */
    gpu_fake_dim3 grid;        /**< blocks in the grid */
    gpu_fake_dim3 block;       /**< threads in a block */
    unsigned shared_bytes;     /**< dynamic shared memory the launch asked for */
    int device;                /**< ordinal of the device whose context launched it */
    unsigned param_count;      /**< parameters the module declares for the entry */
    const size_t *param_sizes; /**< [param_count] their sizes in bytes, from the module */
    void *const *params;       /**< [param_count] params[i] points at a copy of parameter i as launched */
    void *shared;              /**< shared_bytes of zeroed host memory for the launch; NULL when 0 */
    void *user_data;           /**< as given to gpu_fake_kernel_register() */
    struct gpu_fake_exec *exec; /**< the fake's own; do not touch */
} gpu_fake_launch;

/**
 * A kernel's host implementation: does the whole grid's work in one call
 * (loop over blocks and threads as the kernel would). Runs on the thread that
 * made the fake run the stream's work, as a PTX kernel does: without the
 * fake's lock, so that other threads' calls and streams go on meanwhile,
 * unless a call that changes what a kernel reaches (an allocation, a free,
 * a module, a context) is in progress, which waits for it. It must not
 * call CUDA (such a call returns CUDA_ERROR_NOT_PERMITTED), and of this API
 * only gpu_fake_memory(), gpu_fake_param(), gpu_fake_texture_read() and the
 * surface accesses (another stops the program
 * with a message, rather than deadlock).
 * @param launch the launch being run.
 * @return 0 when the kernel completed; else a CUresult, which the stream then
 *         reports at its next synchronisation, as a faulting kernel would.
 */
typedef int (*gpu_fake_kernel_fn)(const gpu_fake_launch *launch);

/**
 * Makes `fn` the host implementation of every kernel entry named `name`: the
 * name as the PTX declares it, so an `extern "C"` kernel's own name or a C++
 * kernel's lowered (mangled) name, as nvrtcGetLoweredName gives it. A later
 * call for the same name replaces the earlier one. An entry with no host
 * implementation runs on the fake's PTX interpreter (see
 * gpu_fake_ptx_executed()); one the interpreter cannot run either (an
 * instruction it does not know, or no PTX) fails at the launch with
 * CUDA_ERROR_NOT_SUPPORTED and a message naming the entry, and the
 * instruction and its PTX line (on stderr, and cuGetErrorString of that code on
 * that thread until its next launch of a PTX entry). GPUSHIM_FAKE_KERNELS=a.so:b.so loads
 * such registrations from shared libraries (their constructors call this) at
 * the fake's first use. May be called from any thread, and from a constructor
 * while the fake configures itself.
 *
 * At a launch (cuLaunchKernel, cuLaunchCooperativeKernel, cuLaunchKernelEx)
 * the parameters are checked against the entry's layout and copied, from
 * kernelParams (each pointer read at its parameter's size) or from `extra`
 * (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE, split at the entry's offsets; a
 * size that differs is CUDA_ERROR_INVALID_VALUE); graph captures and
 * instantiations share that copy. A launch of a shape the device cannot run
 * (CUDA_ERROR_INVALID_VALUE) on a stream being captured invalidates the
 * capture, as the CUDA 13.0 driver does.
 * @param name the entry's name; copied.
 * @param fn the host implementation; NULL removes the registration.
 * @param user_data handed to fn in gpu_fake_launch::user_data.
 * @return 0, or -1 for a NULL or empty name or out of memory.
 */
int gpu_fake_kernel_register(const char *name, gpu_fake_kernel_fn fn, void *user_data);

/**
 * The host memory behind `bytes` bytes of device memory at `address`, for a
 * host implementation: checked against the live allocations that the
 * launching context may reach (its device's, and peers' it enabled), and
 * page-locked host memory at its device address (cuMemHostGetDevicePointer's,
 * the host address itself). Memory
 * outside them is not a segfault: the call returns NULL, prints what was
 * touched on stderr, counts GPU_FAKE_ANOMALY_EXEC_FAULT, and the launch's
 * stream reports CUDA_ERROR_ILLEGAL_ADDRESS at its next synchronisation.
 * @param launch the launch being run.
 * @param address a device address (a parameter's value, or inside one).
 * @param bytes how many bytes the implementation will touch from there; 0 is
 *        never a fault (the result is then not NULL, and not to be read).
 * @return host memory valid during the launch, or NULL as said.
 */
void *gpu_fake_memory(const gpu_fake_launch *launch, uint64_t address, size_t bytes);

/**
 * Copies parameter `index` of the launch to `out`: its declared size must be
 * exactly `size`.
 * @param launch the launch being run.
 * @param index the parameter, from 0.
 * @param out where its bytes go.
 * @param size sizeof the C type the implementation reads it as.
 * @return 0, or -1 for no such parameter or a size that differs (the launch
 *         then faults as gpu_fake_memory() says, with a message naming both sizes).
 */
int gpu_fake_param(const gpu_fake_launch *launch, unsigned index, void *out, size_t size);

/* ---- Textures and surfaces, for host kernels ---- */

/** A texel as a kernel's texture fetch returns it: up to four channels. */
typedef struct gpu_fake_texel {
    /**
     * The channels as floats: float and half formats as stored, 8- and 16-bit
     * integers promoted to [0, 1] (signed ones to [-1, 1]) unless the texture
     * reads integers; when it does, the integers converted. A channel the
     * format lacks is 0.
     */
    float f[4];
    /** The channels as integers, when `integer`: sign-extended, or zero-extended for unsigned formats. */
    int32_t i[4];
    /** Whether the texture returns integers (CU_TRSF_READ_AS_INTEGER, or a 32-bit integer format). */
    bool integer;
} gpu_fake_texel;

/**
 * Reads a texture object as a kernel's tex1D/tex2D/tex3D (and their Lod and
 * Layered forms) would, for a host implementation of that kernel (see
 * gpu_fake_kernel_register()). The texture's descriptor decides: normalized
 * coordinates or not, the address mode of each dimension (wrap, clamp,
 * mirror, border; without normalized coordinates only clamp and border, as
 * on a GPU), point or linear filtering (linear with the GPU's 8-bit
 * fractional weights, so results match a GPU's), the read mode. A layered
 * texture takes its layer as the coordinate after its dimensions. A
 * mipmapped one reads level `lod` (plus the bias, within the clamps; the
 * nearest level, or the two nearest blended with a linear mipmap filter).
 * A texture over linear memory reads element (int)coords[0] as tex1Dfetch
 * does, 0 in every channel outside the memory. Cubemaps are not read.
 * A handle that is no live texture object, or memory no longer allocated, is
 * a fault: the call prints why, returns -1, and the launch's stream reports
 * CUDA_ERROR_ILLEGAL_ADDRESS (as gpu_fake_memory() says).
 * @param launch the launch being run.
 * @param texture the CUtexObject, as the kernel's parameter holds it.
 * @param coords x, y and z (or the layer); those past the texture's dimensions are not read.
 * @param lod the level of detail, for a mipmapped texture; else not read.
 * @param[out] out the texel.
 * @return 0, or -1 as said.
 */
int gpu_fake_texture_read(const gpu_fake_launch *launch, uint64_t texture, const float coords[3], float lod,
                          gpu_fake_texel *out);

/** What a surface access outside the surface does, as cudaSurfaceBoundaryMode says. */
typedef enum gpu_fake_boundary {
    GPU_FAKE_BOUNDARY_ZERO = 0,  /**< a read gives zeros, a write does nothing */
    GPU_FAKE_BOUNDARY_CLAMP = 1, /**< the access is moved to the nearest element */
    GPU_FAKE_BOUNDARY_TRAP = 2,  /**< a fault, as gpu_fake_memory() says */
} gpu_fake_boundary;

/**
 * Reads `size` bytes of a surface object at byte x, row y, slice (or layer) z,
 * as surf1Dread/surf2Dread/surf3Dread (and the Layered forms) do: x counts
 * bytes, y and z elements; `size` is the element's size or a part of it.
 * @param launch the launch being run.
 * @param surface the CUsurfObject.
 * @param x bytes from the start of the row.
 * @param y the row (0 for a 1D surface).
 * @param z the slice or layer (0 for a 1D or 2D one).
 * @param[out] out where the bytes go.
 * @param size how many, 1 to 16, within an element.
 * @param boundary what an access outside the surface does.
 * @return 0 (an access outside under GPU_FAKE_BOUNDARY_ZERO included), or -1 after a fault.
 */
int gpu_fake_surface_read(const gpu_fake_launch *launch, uint64_t surface, long long x, long long y, long long z,
                          void *out, size_t size, gpu_fake_boundary boundary);

/**
 * Writes `size` bytes of a surface object, as surf1Dwrite/surf2Dwrite/
 * surf3Dwrite do; the arguments as gpu_fake_surface_read() takes them.
 * @param launch the launch being run.
 * @param surface the CUsurfObject.
 * @param x bytes from the start of the row.
 * @param y the row.
 * @param z the slice or layer.
 * @param in the bytes.
 * @param size how many, 1 to 16, within an element.
 * @param boundary what an access outside the surface does.
 * @return 0, or -1 after a fault.
 */
int gpu_fake_surface_write(const gpu_fake_launch *launch, uint64_t surface, long long x, long long y, long long z,
                           const void *in, size_t size, gpu_fake_boundary boundary);

/* ---- The PTX interpreter ---- */

/**
 * How many PTX instructions, counted once per thread that executed each, the
 * last launch the PTX interpreter ran executed: for benchmarks.
 *
 * The interpreter runs an entry of a loaded module's PTX that has no host
 * implementation: it decodes the module once when it loads, and runs a
 * launch's blocks over a pool of host threads (one per core;
 * GPUSHIM_FAKE_THREADS=N sets how many), in warps of 32 threads. Every global
 * and shared access is checked: one outside the live allocations (or the
 * block's shared memory) prints the kernel, block, thread, PTX line and
 * address, and the stream reports CUDA_ERROR_ILLEGAL_ADDRESS.
 * GPUSHIM_FAKE_CHECK=race also reports two threads of different warps
 * touching the same shared memory between barriers, one of them writing
 * (CUDA_ERROR_LAUNCH_FAILED). Device printf prints to stdout.
 * @return the count; 0 before any launch on the interpreter.
 */
uint64_t gpu_fake_ptx_executed(void);

/* ---- Faults on demand, besides gpu_fake_fail() ---- */

/**
 * Device `ordinal` falls off the bus: from now on every call that uses it
 * returns `result`: any call made with its context current (allocations,
 * frees, copies, launches, stream and event calls), synchronisations and
 * queries of its streams and events, and its device queries (name, memory,
 * attributes, PCI bus id, peer access, cuDevicePrimaryCtxRetain). Its queued
 * work is dropped, never run, so what waits for it (another device's stream
 * waiting on one of its events, too) does not hang. Destroying its streams
 * and events and releasing its primary context still work, as host-side
 * clean-up. GPUSHIM_FAKE_LOSE=ordinal:nth:result does it at the nth call into
 * the fake (every entry point counted, from 1).
 * @param ordinal the device.
 * @param result the CUresult those calls return; 0 means CUDA_ERROR_UNKNOWN
 *        (999), which is what a real driver reports after the kernel logs
 *        "Xid 79: GPU has fallen off the bus".
 * @return 0, or -1 for no such device.
 */
int gpu_fake_device_lose(int ordinal, int result);

/**
 * Out of memory after `bytes`: an allocation on device `ordinal` that would take
 * its bytes in use past `bytes` fails with CUDA_ERROR_OUT_OF_MEMORY (what
 * cuMemGetInfo and cuDeviceTotalMem report is unchanged). SIZE_MAX lifts it.
 * GPUSHIM_FAKE_MEMORY_LIMIT=bytes (K, M, G suffixes) sets it for every device.
 * @param ordinal the device.
 * @param bytes the limit.
 * @return 0, or -1 for no such device.
 */
int gpu_fake_memory_limit(int ordinal, size_t bytes);

/**
 * A stall: while on, no queued work of any stream runs, so queries say "not
 * ready" and synchronisations wait until another thread turns it off (a hung
 * GPU, for testing timeouts). GPUSHIM_FAKE_STALL=1 starts the fake stalled.
 * @param stalled on or off.
 */
void gpu_fake_stall(bool stalled);

/**
 * Whether work on a created stream (copies, launches, memsets, event
 * records and waits) needs the stream's context current. Strict (the
 * default) answers CUDA_ERROR_INVALID_CONTEXT where it is not, which catches
 * a client that forgets to make it current. Not strict, the fake does what
 * the real driver does: it runs the work in the stream's context, whatever
 * context the calling thread holds, or none.
 * @param strict on or off.
 */
void gpu_fake_strict_context(bool strict);

/**
 * Makes cuInit sleep `ms` milliseconds first, without the fake's lock held (as
 * GPUSHIM_FAKE_INIT_DELAY_MS does): a slow or hung driver.
 * @param ms the delay; 0 for none.
 */
void gpu_fake_init_delay(unsigned long ms);

/* ---- The report at exit ---- */

/**
 * Writes the objects still alive, by kind, to stderr ("gpushim-fakecuda: 2
 * device allocations, 1 stream still alive"), or that none are
 * ("gpushim-fakecuda: no object still alive"). Primary-context retains are
 * not counted: gpushim holds a device's primary context for the life of the
 * process. GPUSHIM_FAKE_REPORT=1 calls it at exit, after the atexit handlers
 * (from a destructor of the library), when the program used the fake;
 * GPUSHIM_FAKE_REPORT=strict also makes the process exit with status 86 when
 * anything is alive (stdio flushed first). A second line names the driver
 * functions the program called that the fake does not implement, with their
 * calls ("gpushim-fakecuda: called, not implemented by the fake
 * (CUDA_ERROR_NOT_SUPPORTED): cuArrayCreate_v2 (1)"); under strict, any such
 * call makes the status 86 too.
 * @return how many objects are alive, all kinds together.
 */
long gpu_fake_report(void);

#ifdef __cplusplus
}
#endif

#endif
