/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's core: its lock and configuration, fault injection, the
 * entry points' names and counts, cuInit, cuDriverGetVersion, and the control
 * API's counters. It calls the other parts only through their hooks
 * (fake_parts_register(), by fake_driver.c), naming none.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env.h"
#include "fake_core.h"

/* What cuDriverGetVersion says unless GPUSHIM_FAKE_VERSION says otherwise. */
#define FAKE_DEFAULT_VERSION 13000
/* A build without cuGetProcAddress_v2 plays a driver from before it (CUDA 11.3). */
#define FAKE_OLD_VERSION 11020

struct fake_state fake = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
};

/* Set while this thread runs a host function; see fake_begin(). */
_Thread_local bool fake_in_callback;

/* The per-thread variant (_ptsz, _ptds) this thread is in; -1 outside one. */
static _Thread_local int per_thread_entry = -1;

/* The entry the next fake_begin() on this thread counts its call as; -1 for its own. */
static _Thread_local int counted_as = -1;

/* Set in the child of a fork() made after a successful cuInit; see fake_begin(). */
static bool forked_after_init;

/* Every symbol's name, by entry. */
static const char *const symbol_names[FAKE_E_COUNT] = {
#define GPU__CUDA_SYMBOL(name, kinds, params) #name,
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
};

/* The entry points gpushim uses, by base name: what that name means here (gpu_fake_calls(), cuGetProcAddress). */
static const struct {
    const char *base;
    enum fake_entry entry;
} gpushim_entries[] = {
    {"cuInit", FAKE_E_cuInit},
    {"cuDriverGetVersion", FAKE_E_cuDriverGetVersion},
    {"cuGetProcAddress", FAKE_E_cuGetProcAddress_v2},
#define GPU__ENTRY(need, name, symbol, params, args) {#name, FAKE_E_##symbol},
#include "entry_points.h"
#undef GPU__ENTRY
};

size_t fake_base_length(const char *symbol, bool *per_thread)
{
    size_t n = strlen(symbol);

    *per_thread = n > 5 && (strcmp(symbol + n - 5, "_ptsz") == 0 || strcmp(symbol + n - 5, "_ptds") == 0);
    if (*per_thread)
        n -= 5;
    for (size_t i = n; i > 2; i--) {
        if (symbol[i - 1] >= '0' && symbol[i - 1] <= '9')
            continue;
        if (i < n && symbol[i - 1] == 'v' && symbol[i - 2] == '_')
            return i - 2;
        break;
    }
    return n;
}

/*
 * The entry of a base name: gpushim's meaning of it, else the newest revision
 * (the highest _vN; per-thread-stream variants when `per_thread`). -1 for none.
 */
static int entry_of_base(const char *base, bool per_thread)
{
    int best = -1;

    for (size_t i = 0; !per_thread && i < sizeof(gpushim_entries) / sizeof(gpushim_entries[0]); i++)
        if (strcmp(gpushim_entries[i].base, base) == 0)
            return (int)gpushim_entries[i].entry;
    for (int i = 0; i < FAKE_E_COUNT; i++) {
        bool pt;
        size_t n = fake_base_length(symbol_names[i], &pt);

        if (pt == per_thread && n == strlen(base) && strncmp(symbol_names[i], base, n) == 0 &&
            (best < 0 || strlen(symbol_names[i]) > strlen(symbol_names[best]) ||
             (strlen(symbol_names[i]) == strlen(symbol_names[best]) && strcmp(symbol_names[i], symbol_names[best]) > 0)))
            best = i;
    }
    return best;
}

const char *fake_entry_name(enum fake_entry entry)
{
    return symbol_names[entry];
}

static int symbol_compare(const void *key, const void *name)
{
    return strcmp(key, *(const char *const *)name);
}

int fake_symbol_entry(const char *symbol)
{
    const char *const *found = bsearch(symbol, symbol_names, FAKE_E_COUNT, sizeof(symbol_names[0]), symbol_compare);

    return found ? (int)(found - symbol_names) : -1;
}

/*
 * The fake's one fatal path: a host kernel of the test's own that calls the
 * control API, which would deadlock, and no thread-specific key left for the
 * per-thread default stream. It ends the process, naming what happened.
 */
static _Noreturn void die(const char *what, const char *detail)
{
    fprintf(stderr, "gpushim-fakecuda: %s: %s\n", what, detail);
    abort();
}

/*
 * The first configuration error: a GPUSHIM_FAKE_* value the fake cannot read
 * or act on (a GPUSHIM_FAKE_KERNELS library that does not load among them),
 * or no memory to keep it. A test that asked for a configuration must not run
 * against another, so cuInit fails with CUDA_ERROR_INVALID_VALUE while there
 * is one, and cuGetErrorString of that code says which variable, value and
 * what it accepts. Its own lock: GPUSHIM_FAKE_KERNELS is read without the fake's.
 */
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static char config_message[1024];
static atomic_bool config_refused;
/*
 * Set once the configuration is read: what a launch reads again (GPUSHIM_FAKE_THREADS, _WATCHDOG, _CHECK) and a
 * program changed since to a refused value is told once on stderr, its default holding; cuInit has answered.
 */
static atomic_bool config_read;
static bool late_told;

void fake_config_error(const char *var, const char *part, const char *part_text, const char *accepted)
{
    const char *value = gpu__env_raw(var);

    pthread_mutex_lock(&config_lock);
    if (atomic_load_explicit(&config_read, memory_order_relaxed)) {
        if (!late_told && part)
            fprintf(stderr, "gpushim-fakecuda: %s=%.256s, set after the fake read its configuration: its %s \"%.256s\" "
                            "%s; the default holds\n", var, value ? value : "", part, part_text ? part_text : "", accepted);
        else if (!late_told)
            fprintf(stderr, "gpushim-fakecuda: %s=%.256s, set after the fake read its configuration: %s; the default "
                            "holds\n", var, value ? value : "", accepted);
        late_told = true;
    } else if (!atomic_load_explicit(&config_refused, memory_order_relaxed)) {
        if (part)
            snprintf(config_message, sizeof(config_message), "%s=%.256s: its %s \"%.256s\" %s", var,
                     value ? value : "", part, part_text ? part_text : "", accepted);
        else
            snprintf(config_message, sizeof(config_message), "%s=%.256s: %s", var, value ? value : "", accepted);
        fprintf(stderr, "gpushim-fakecuda: %s; cuInit returns CUDA_ERROR_INVALID_VALUE (1)\n", config_message);
        atomic_store_explicit(&config_refused, true, memory_order_release);
    }
    pthread_mutex_unlock(&config_lock);
}

const char *fake_config_note(cuabi_result result)
{
    /* Written once, before config_refused is set, and never again. */
    return result == CUABI_ERROR_INVALID_VALUE && atomic_load_explicit(&config_refused, memory_order_acquire)
               ? config_message
               : NULL;
}

int fake_entry_find(const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof(gpushim_entries) / sizeof(gpushim_entries[0]); i++)
        if (strcmp(gpushim_entries[i].base, name) == 0)
            return (int)gpushim_entries[i].entry;
    for (int i = 0; i < FAKE_E_COUNT; i++)
        if (strcmp(symbol_names[i], name) == 0)
            return i;
    return entry_of_base(name, false);
}

/*
 * A function of the OpenGL, EGL or VDPAU interop: the fake has no graphics
 * API to share resources with, as a driver with no such context current.
 */
static bool graphics_interop(const char *name)
{
    static const char *const prefixes[] = {"cuGL", "cuGraphicsGL", "cuWGL", "cuEGL", "cuGraphicsEGL",
                                           "cuEventCreateFromEGLSync", "cuGraphicsResourceGetMappedEglFrame",
                                           "cuVDPAU", "cuGraphicsVDPAU"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

cuabi_result fake_unimplemented(enum fake_entry entry)
{
    cuabi_result rc = fake_begin(entry, false);
    const char *name = symbol_names[entry];

    if (rc == CUABI_SUCCESS && graphics_interop(name)) {
        /* cuGLInit is documented as no longer needed: it does nothing, and succeeds. */
        rc = strcmp(name, "cuGLInit") == 0 ? CUABI_SUCCESS : CUABI_ERROR_INVALID_GRAPHICS_CONTEXT;
        if (rc != CUABI_SUCCESS && fake.unimplemented[entry]++ == 0)
            fprintf(stderr,
                    "gpushim-fakecuda: %s: the fake driver has no OpenGL, EGL or VDPAU to share resources with: "
                    "it returns CUDA_ERROR_INVALID_GRAPHICS_CONTEXT (219)\n",
                    name);
    } else if (rc == CUABI_SUCCESS && entry == FAKE_E_cuGetExportTable) {
        /*
         * The undocumented tables NVIDIA's own runtime asks for, static or shared alike: without them it fails
         * every call. What works is the runtime over the documented driver API.
         */
        rc = CUABI_ERROR_NOT_SUPPORTED;
        if (fake.unimplemented[entry]++ == 0)
            fprintf(stderr,
                    "gpushim-fakecuda: this program's CUDA runtime is NVIDIA's, which needs driver tables the fake "
                    "does not serve (cuGetExportTable): build it with nvcc -cudart=shared and run it with "
                    "libgpushim-cudart as libcudart.so.13 (LD_LIBRARY_PATH=<libdir>/gpushim/cudart)\n");
    } else if (rc == CUABI_SUCCESS) {
        rc = CUABI_ERROR_NOT_SUPPORTED;
        if (fake.unimplemented[entry]++ == 0)
            fprintf(stderr,
                    "gpushim-fakecuda: %s is not implemented by the fake driver: it returns "
                    "CUDA_ERROR_NOT_SUPPORTED (801)\n",
                    name);
    }
    return fake_end(rc);
}

/* "GPUSHIM_FAKE_FAIL nth": the variable's name into `var`, and its part ("nth"), or NULL. */
static const char *split_label(const char *label, char *var, size_t size)
{
    size_t n = strcspn(label, " ");

    snprintf(var, size, "%.*s", (int)(n < size ? n : size - 1), label);
    return label[n] ? label + n + 1 : NULL;
}

bool fake_env_number(const char *label, const char *text, long lo, long hi, enum gpu__env_unit unit, long *out)
{
    long long v;
    char var[64], accepted[160];
    const char *part;

    if (gpu__env_number(text, lo, hi, unit, &v)) {
        *out = (long)v;
        return true;
    }
    part = split_label(label, var, sizeof(var));
    snprintf(accepted, sizeof(accepted), "%s", part ? "is not " : "wants ");
    gpu__env_number_accepted(lo, hi, unit, accepted + strlen(accepted), sizeof(accepted) - strlen(accepted));
    fake_config_error(var, part, text, accepted);
    return false;
}

/* A whole decimal number in [lo, hi] (gpu__env_number); anything else is a configuration error, and `lo`. */
static long parse_number(const char *var, const char *text, long lo, long hi)
{
    long v = lo;

    fake_env_number(var, text, lo, hi, GPU__ENV_UNIT_NONE, &v);
    return v;
}

/* A switch (0 or 1, off/on, false/true, no/yes); `fallback` when unset; anything else is a configuration error. */
static bool env_switch(const char *var, bool fallback)
{
    const char *v = gpu__env_raw(var);
    bool on = fallback;

    if (v && !gpu__env_parse_switch(v, &on))
        fake_config_error(var, NULL, NULL, "wants a switch: 0 or 1, off or on, false or true, no or yes");
    return on;
}

/* A fault rule; false when there is no memory for it. */
static bool add_rule(enum fake_entry entry, unsigned nth, bool onward, cuabi_result result)
{
    struct fake_rule *r = calloc(1, sizeof(*r));

    if (!r)
        return false;
    r->entry = entry;
    r->at = fake.calls[entry] + nth;
    r->onward = onward;
    r->result = result;
    r->next = fake.rules;
    fake.rules = r;
    return true;
}

/* Every fault rule dropped. */
static void rules_free(void)
{
    while (fake.rules) {
        struct fake_rule *r = fake.rules;

        fake.rules = r->next;
        free(r);
    }
}

/*
 * GPUSHIM_FAKE_FAIL=name:nth:result[,...], nth written "3+" for "the third and every later call". A malformed
 * item is a configuration error, and then no rule holds (configure()).
 */
static void parse_fail_rules(const char *spec)
{
    char *copy = strdup(spec);
    char *save = NULL;

    if (!copy) {
        fake_config_error("GPUSHIM_FAKE_FAIL", NULL, NULL, "finds no memory to keep it");
        return;
    }
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *nth = strchr(item, ':');
        char *result = nth ? strchr(nth + 1, ':') : NULL;
        long at, code;
        bool onward;
        size_t len;
        int entry;

        if (!result) {
            fake_config_error("GPUSHIM_FAKE_FAIL", "item", item, "is not name:nth:result (nth written 3+ for every call from the third)");
            break;
        }
        *nth++ = '\0';
        *result++ = '\0';
        entry = fake_entry_find(item);
        if (entry < 0) {
            fake_config_error("GPUSHIM_FAKE_FAIL", "name", item, "names no entry point of the driver API");
            break;
        }
        len = strlen(nth);
        onward = len > 0 && nth[len - 1] == '+';
        if (onward)
            nth[len - 1] = '\0';
        if (!fake_env_number("GPUSHIM_FAKE_FAIL nth", nth, 1, 1000000, GPU__ENV_UNIT_NONE, &at) ||
            !fake_env_number("GPUSHIM_FAKE_FAIL result", result, 1, 100000, GPU__ENV_UNIT_NONE, &code))
            break;
        if (!add_rule((enum fake_entry)entry, (unsigned)at, onward, (cuabi_result)code)) {
            fake_config_error("GPUSHIM_FAKE_FAIL", NULL, NULL, "finds no memory to keep it");
            break;
        }
    }
    free(copy);
}

static void parse_omit(const char *spec)
{
    char *copy = strdup(spec);
    char *save = NULL;

    if (!copy) {
        fake_config_error("GPUSHIM_FAKE_OMIT", NULL, NULL, "finds no memory to keep it");
        return;
    }
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int entry = fake_entry_find(item);

        if (entry < 0) {
            fake_config_error("GPUSHIM_FAKE_OMIT", "name", item, "names no entry point of the driver API");
            break;
        }
        fake.omit[entry] = true;
    }
    free(copy);
}

void *fake_self(void)
{
    static void *self;
    Dl_info info;

    if (!self && dladdr(&fake, &info) && info.dli_fname)
        self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    return self;
}

static bool self_exports(const char *symbol)
{
    return fake_self() && dlsym(fake_self(), symbol);
}

/* The parts of the fake, in fake_driver.c's order: the core calls them through it, naming none. */
static _Atomic(const struct fake_part *) parts_table;
static _Atomic size_t parts_table_count;

/*
 * Registered by a constructor while another thread may already call in (a
 * forwarder that resolved the fake in one thread hands it to the others):
 * the count is stored before the table, which is published with release.
 */
void fake_parts_register(const struct fake_part *table, size_t count)
{
    atomic_store_explicit(&parts_table_count, count, memory_order_relaxed);
    atomic_store_explicit(&parts_table, table, memory_order_release);
}

const struct fake_part *fake_parts(size_t *count)
{
    const struct fake_part *table = atomic_load_explicit(&parts_table, memory_order_acquire);

    *count = table ? atomic_load_explicit(&parts_table_count, memory_order_relaxed) : 0;
    return table;
}

/* The parts' hooks without arguments, in the table's order. */
enum part_hook { PART_LOAD, PART_CONFIGURE, PART_ON_CALL };

static void parts_run(enum part_hook hook)
{
    size_t n;
    const struct fake_part *p = fake_parts(&n);

    for (size_t i = 0; i < n; i++) {
        void (*fn)(void) = hook == PART_LOAD ? p[i].load : hook == PART_CONFIGURE ? p[i].configure : p[i].on_call;

        if (fn)
            fn();
    }
}

/* Reads the environment once, under the lock: the core's variables, then each part's. */
static void configure(void)
{
    const char *v;

    fake.configured = true;
    fake.driver_version = self_exports("cuGetProcAddress_v2") ? FAKE_DEFAULT_VERSION : FAKE_OLD_VERSION;
    if ((v = gpu__env_raw("GPUSHIM_FAKE_VERSION")))
        fake.driver_version = (int)parse_number("GPUSHIM_FAKE_VERSION", v, 1000, 99990);
    if ((v = gpu__env_raw("GPUSHIM_FAKE_INIT_FAIL")))
        fake.init_fail = (cuabi_result)parse_number("GPUSHIM_FAKE_INIT_FAIL", v, 0, 4294967295L);
    if ((v = gpu__env_raw("GPUSHIM_FAKE_FAIL")))
        parse_fail_rules(v);
    if ((v = gpu__env_raw("GPUSHIM_FAKE_OMIT")))
        parse_omit(v);
    fake.twin_stream_query = env_switch("GPUSHIM_FAKE_GPA_TWIN", false);
    if ((v = gpu__env_raw("GPUSHIM_FAKE_INIT_DELAY_MS")))
        fake.init_delay_ms = parse_number("GPUSHIM_FAKE_INIT_DELAY_MS", v, 0, 86400000);
    fake.init_callback_status = -1;
    if ((v = gpu__env_raw("GPUSHIM_FAKE_INIT_CALLBACK")) && !(fake.init_callback = strdup(v)))
        fake_config_error("GPUSHIM_FAKE_INIT_CALLBACK", NULL, NULL, "finds no memory to keep it");
    /* Read again where it is used; read here too, so that a malformed one fails cuInit. */
    fake_checks();
    parts_run(PART_CONFIGURE);
    /* A refused configuration: cuInit answers CUDA_ERROR_INVALID_VALUE, not a fault rule's result. */
    if (fake_config_note(CUABI_ERROR_INVALID_VALUE))
        rules_free();
    atomic_store_explicit(&config_read, true, memory_order_release);
}

void fake_configure_again(void)
{
    fake_lock();
    pthread_mutex_lock(&config_lock);
    atomic_store_explicit(&config_refused, false, memory_order_relaxed);
    atomic_store_explicit(&config_read, false, memory_order_relaxed);
    config_message[0] = '\0';
    pthread_mutex_unlock(&config_lock);
    rules_free();
    memset(fake.omit, 0, sizeof(fake.omit));
    free(fake.init_callback);
    fake.init_callback = NULL;
    configure();
    fake_unlock();
}

_Noreturn void fake_die(const char *what, const char *detail)
{
    die(what, detail);
}

long fake_parse_number(const char *var, const char *text, long lo, long hi)
{
    return parse_number(var, text, lo, hi);
}

bool fake_env_switch(const char *var, bool fallback)
{
    return env_switch(var, fallback);
}

unsigned fake_checks(void)
{
    const char *v = gpu__env_raw("GPUSHIM_FAKE_CHECK");
    unsigned checks = 0;

    /* A comma-separated list of checks; a word the fake does not know is a configuration error, and no check. */
    while (v && *v) {
        size_t len = strcspn(v, ",");

        if (len == 4 && memcmp(v, "race", 4) == 0)
            checks |= FAKE_CHECK_RACE;
        else if (len == 4 && memcmp(v, "init", 4) == 0)
            checks |= FAKE_CHECK_INIT;
        else if (len == 11 && memcmp(v, "init-strict", 11) == 0)
            checks |= FAKE_CHECK_INIT | FAKE_CHECK_INIT_STRICT;
        else if (len)
            fake_config_error("GPUSHIM_FAKE_CHECK", NULL, NULL,
                              "names a check the fake does not have: it wants race, init or init-strict, comma-separated");
        v += len + (v[len] == ',');
    }
    return checks;
}

size_t fake_parse_bytes(const char *var, const char *text)
{
    long n = 0;

    fake_env_number(var, text, 0, (long)(SIZE_MAX >> 1), GPU__ENV_UNIT_BYTES, &n);
    return (size_t)n;
}

void fake_lock(void)
{
    /* Without the lock: what a part loads (GPUSHIM_FAKE_KERNELS's libraries) may call the fake from its constructors. */
    parts_run(PART_LOAD);
    pthread_mutex_lock(&fake.lock);
    if (!fake.configured)
        configure();
}

void fake_unlock(void)
{
    pthread_mutex_unlock(&fake.lock);
}

/*
 * The entry points that run beside a kernel running without the lock: by
 * base name (without _vN, _ptsz, _ptds). None changes the allocations,
 * modules, contexts, textures or arrays that a kernel reads; every other
 * entry point waits for such kernels first (fake_begin()).
 */
static const char *const beside_kernels[] = {
    "cuDriverGetVersion", "cuGetErrorString", "cuGetErrorName", "cuGetProcAddress",
    "cuDeviceGet", "cuDeviceGetCount", "cuDeviceGetName", "cuDeviceGetAttribute", "cuDeviceTotalMem",
    "cuDeviceGetUuid", "cuDeviceComputeCapability", "cuDeviceGetPCIBusId", "cuDeviceGetByPCIBusId",
    "cuDeviceCanAccessPeer", "cuDevicePrimaryCtxGetState", "cuDeviceGetP2PAttribute", "cuDeviceGetLuid",
    "cuDeviceGetProperties",
    "cuCtxGetCurrent", "cuCtxSetCurrent", "cuCtxPushCurrent", "cuCtxPopCurrent", "cuCtxGetDevice",
    "cuCtxSynchronize", "cuCtxGetFlags", "cuCtxGetApiVersion", "cuCtxGetId", "cuCtxGetLimit",
    "cuCtxGetStreamPriorityRange", "cuCtxGetCacheConfig",
    "cuStreamCreate", "cuStreamCreateWithPriority", "cuStreamDestroy", "cuStreamSynchronize", "cuStreamQuery",
    "cuStreamWaitEvent", "cuStreamAddCallback", "cuLaunchHostFunc", "cuStreamGetCtx", "cuStreamGetFlags",
    "cuStreamGetId", "cuStreamGetPriority", "cuStreamGetAttribute",
    "cuEventCreate", "cuEventDestroy", "cuEventRecord", "cuEventRecordWithFlags", "cuEventQuery",
    "cuEventSynchronize", "cuEventElapsedTime",
    "cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel", "cuModuleGetFunction", "cuFuncGetAttribute",
    "cuKernelGetFunction", "cuLibraryGetKernel",
    "cuMemcpy", "cuMemcpyAsync", "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD", "cuMemcpyHtoDAsync",
    "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync", "cuMemcpyPeer", "cuMemcpyPeerAsync",
    "cuMemsetD8", "cuMemsetD16", "cuMemsetD32", "cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async",
    "cuMemGetInfo", "cuMemGetAddressRange", "cuPointerGetAttribute", "cuPointerGetAttributes",
    "cuStreamWriteValue32", "cuStreamWriteValue64", "cuStreamWaitValue32", "cuStreamWaitValue64",
};
static bool runs_beside[FAKE_E_COUNT];

static void beside_kernels_index(void)
{
    for (int e = 0; e < FAKE_E_COUNT; e++) {
        const char *name = fake_entry_name((enum fake_entry)e);
        bool per_thread;
        size_t len = fake_base_length(name, &per_thread);

        for (size_t i = 0; i < sizeof(beside_kernels) / sizeof(beside_kernels[0]); i++)
            if (strlen(beside_kernels[i]) == len && strncmp(beside_kernels[i], name, len) == 0)
                runs_beside[e] = true;
    }
}

/* The calling thread's entry points in progress that wait for the kernels (fake.writers counts them all). */
static _Thread_local unsigned writer_depth;

/* Waits until no kernel runs without the lock, and keeps later ones from running so until fake_end(). */
static void exclude_kernels(void)
{
    fake.writers_waiting++;
    while (fake.kernels_unlocked)
        pthread_cond_wait(&fake.cond, &fake.lock);
    fake.writers_waiting--;
    fake.writers++;
    writer_depth++;
}

bool fake_kernels_exclude(void)
{
    bool waited = fake.kernels_unlocked != 0;

    if (writer_depth)
        return false;
    exclude_kernels();
    return waited;
}

static void fork_watch(void);

cuabi_result fake_begin(enum fake_entry entry, bool needs_init)
{
    static pthread_once_t beside_once = PTHREAD_ONCE_INIT;
    static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

    unsigned long n;

    /* The real driver refuses CUDA calls from a host function, too. */
    if (fake_in_callback)
        return CUABI_ERROR_NOT_PERMITTED;
    /* A per-thread variant's name is the most particular, even for a legacy form it calls. */
    if (counted_as >= 0)
        entry = (enum fake_entry)counted_as;
    counted_as = -1;
    if (fake_per_thread_call() >= 0)
        entry = (enum fake_entry)fake_per_thread_call();
    pthread_once(&beside_once, beside_kernels_index);
    pthread_once(&fork_once, fork_watch);
    fake_lock();
    if (!runs_beside[entry])
        exclude_kernels();
    n = ++fake.calls[entry];
    parts_run(PART_ON_CALL);
    /*
     * CUDA is not fork-safe: in the child of a process that initialised it,
     * the driver answers NOT_INITIALIZED to cuInit and every call that needs
     * it, for good. The parent's contexts and memory are not the child's.
     */
    if (forked_after_init && (needs_init || entry == FAKE_E_cuInit))
        return CUABI_ERROR_NOT_INITIALIZED;
    for (struct fake_rule *r = fake.rules; r; r = r->next)
        if (r->entry == entry && (n == r->at || (r->onward && n > r->at)))
            return r->result;
    if (needs_init && !fake.initialized)
        return CUABI_ERROR_NOT_INITIALIZED;
    return CUABI_SUCCESS;
}

void fake_count_as(int entry)
{
    counted_as = entry;
}

int fake_per_thread_call(void)
{
    return per_thread_entry;
}

void fake_per_thread_enter(int entry)
{
    per_thread_entry = entry;
}

cuabi_result fake_end(cuabi_result rc)
{
    if (fake_in_callback)
        return rc;
    if (writer_depth) {
        writer_depth--;
        fake.writers--;
    }
    fake_unlock();
    return rc;
}

/* ---- Initialisation ---- */

/*
 * A slow or hung driver, and one that calls back into its client: cuInit
 * sleeps and calls the named function of the process without the lock, as
 * a real driver's cuInit holds none of its client's.
 */
static cuabi_result init_hazards(void)
{
    long delay = fake.init_delay_ms;
    const char *callback = fake.init_callback;

    fake_unlock();
    if (delay > 0) {
        struct timespec ts = {delay / 1000, delay % 1000 * 1000000L};

        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    if (callback) {
        void *sym = dlsym(RTLD_DEFAULT, callback);
        int (*fn)(void);
        int status;

        if (!sym) {
            fprintf(stderr,
                    "gpushim-fakecuda: GPUSHIM_FAKE_INIT_CALLBACK names no function of the process: %s: "
                    "cuInit returns CUDA_ERROR_NOT_FOUND\n",
                    callback);
            fake_lock();
            return CUABI_ERROR_NOT_FOUND;
        }
        memcpy(&fn, &sym, sizeof(sym));
        status = fn();
        fake_lock();
        fake.init_callback_status = status;
        fake_unlock();
    }
    fake_lock();
    return CUABI_SUCCESS;
}

/* The lock is held across fork(): another thread's entry point in progress would hold it in the child for good. */
static void fork_prepare_lock(void)
{
    pthread_mutex_lock(&fake.lock);
}

static void fork_parent_unlock(void)
{
    pthread_mutex_unlock(&fake.lock);
}

/* In a fork's child, single-threaded: whether the parent had initialised the driver. */
static void fork_child_mark(void)
{
    if (fake.initialized)
        forked_after_init = true;
    /* The parent's other threads, kernels and entry points in progress among them, are not the child's. */
    fake.kernels_unlocked = 0;
    fake.writers = writer_depth;
    fake.writers_waiting = 0;
    pthread_mutex_unlock(&fake.lock);
}

static void fork_watch(void)
{
    pthread_atfork(fork_prepare_lock, fork_parent_unlock, fork_child_mark);
}

cuabi_result cuInit(unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuInit, false);

    if (rc == CUABI_SUCCESS && fake_config_note(CUABI_ERROR_INVALID_VALUE))
        rc = CUABI_ERROR_INVALID_VALUE; /* a GPUSHIM_FAKE_* value refused: cuGetErrorString says which */
    if (rc == CUABI_SUCCESS && (fake.init_delay_ms > 0 || fake.init_callback))
        rc = init_hazards();
    if (rc == CUABI_SUCCESS) {
        if (flags != 0)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (fake.init_fail)
            rc = fake.init_fail;
        else if (fake.device_count == 0)
            rc = CUABI_ERROR_NO_DEVICE;
        else
            fake.initialized = true;
    }
    return fake_end(rc);
}

cuabi_result cuDriverGetVersion(int *version)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDriverGetVersion, false);

    if (rc == CUABI_SUCCESS) {
        if (!version)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            *version = fake.driver_version;
    }
    return fake_end(rc);
}

/* ---- Control API: calls, counts, fault rules ---- */

FAKE_API unsigned long gpu_fake_unimplemented_calls(void)
{
    unsigned long n = 0;

    fake_lock();
    for (int i = 0; i < FAKE_E_COUNT; i++)
        n += fake.unimplemented[i];
    fake_unlock();
    return n;
}

FAKE_API int gpu_fake_init_callback_status(void)
{
    int status;

    fake_lock();
    status = fake.init_callback_status;
    fake_unlock();
    return status;
}

FAKE_API long gpu_fake_calls(const char *entry)
{
    int i = fake_entry_find(entry);
    long n;

    if (i < 0)
        return -1;
    fake_lock();
    n = (long)fake.calls[i];
    fake_unlock();
    return n;
}

FAKE_API unsigned long gpu_fake_calls_total(void)
{
    unsigned long n = 0;

    fake_lock();
    for (int i = 0; i < FAKE_E_COUNT; i++)
        n += fake.calls[i];
    fake_unlock();
    return n;
}

FAKE_API long gpu_fake_live(gpu_fake_live_kind kind)
{
    long n;

    if ((unsigned)kind >= GPU_FAKE_LIVE_KIND_COUNT)
        return -1;
    fake_lock();
    n = fake.live[kind];
    fake_unlock();
    return n;
}

FAKE_API void gpu_fake_live_get(gpu_fake_live_counts *out)
{
    fake_lock();
    memcpy(out->count, fake.live, sizeof(out->count));
    fake_unlock();
}

FAKE_API unsigned long gpu_fake_anomalies(gpu_fake_anomaly kind)
{
    unsigned long n;

    if ((unsigned)kind >= GPU_FAKE_ANOMALY_COUNT)
        return 0;
    fake_lock();
    n = fake.anomalies[kind];
    fake_unlock();
    return n;
}

static int fail_rule(const char *entry, unsigned nth, bool onward, int result)
{
    int i = fake_entry_find(entry);
    bool added;

    if (i < 0 || nth == 0)
        return -1;
    fake_lock();
    added = add_rule((enum fake_entry)i, nth, onward, (cuabi_result)result);
    fake_unlock();
    return added ? 0 : -1;
}

FAKE_API int gpu_fake_fail(const char *entry, unsigned nth, int result)
{
    return fail_rule(entry, nth, false, result);
}

FAKE_API int gpu_fake_fail_from(const char *entry, unsigned nth, int result)
{
    return fail_rule(entry, nth, true, result);
}

FAKE_API void gpu_fake_fail_reset(void)
{
    fake_lock();
    while (fake.rules) {
        struct fake_rule *r = fake.rules;

        fake.rules = r->next;
        free(r);
    }
    fake_unlock();
}

FAKE_API void gpu_fake_gpa_get(gpu_fake_gpa_stats *out)
{
    fake_lock();
    *out = fake.gpa;
    fake_unlock();
}

FAKE_API unsigned long gpu_fake_gpa_asked(const char *name)
{
    int i = fake_entry_find(name);
    unsigned long n;

    if (i < 0)
        return 0;
    fake_lock();
    n = fake.gpa_asked[i];
    fake_unlock();
    return n;
}

FAKE_API int gpu_fake_driver_version(void)
{
    int v;

    fake_lock();
    v = fake.driver_version;
    fake_unlock();
    return v;
}

FAKE_API uint64_t gpu_fake_clock_ns(void)
{
    uint64_t t;

    fake_lock();
    t = fake.clock_ns;
    fake_unlock();
    return t;
}
