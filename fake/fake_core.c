/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's core: its lock and configuration, fault injection, cuInit,
 * cuDriverGetVersion, cuGetProcAddress in its forms (answered by version from
 * src/driver/cuda_proc_versions.h), the error names, and the control API's
 * counters.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_proc_rows.h"
#include "env.h"
#include "fake_internal.h"

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

/* The length of a symbol's base name: without _ptsz or _ptds, then without _vN. */
static size_t base_length(const char *symbol, bool *per_thread)
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
        size_t n = base_length(symbol_names[i], &pt);

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

/*
 * Every entry point of the list, as a table of the list's own types: this
 * fails to compile if a prototype differs from entry_points.h, and to link
 * if one is not defined.
 */
static const struct {
#define GPU__ENTRY(need, name, symbol, params, args) cuabi_result (*name) params;
#include "entry_points.h"
#undef GPU__ENTRY
} all_entries __attribute__((used)) = {
#define GPU__ENTRY(need, name, symbol, params, args) .name = symbol,
#include "entry_points.h"
#undef GPU__ENTRY
};

/*
 * The fake's one fatal path: a GPUSHIM_FAKE_* value it cannot read or act on
 * (a GPUSHIM_FAKE_KERNELS library that does not load among them), or no
 * memory to keep it, found while the environment is read (configure(),
 * before any call returns); and a host kernel of the test's own that calls
 * the control API, which would deadlock. It ends the process, naming the
 * variable and the value, because a test that asked for a configuration must
 * not run against another: every call failing instead would read as the
 * driver's answer. Everything a program passes at run time is answered with
 * an error instead.
 */
static _Noreturn void die(const char *what, const char *detail)
{
    fprintf(stderr, "gpushim-fakecuda: %s: %s\n", what, detail);
    abort();
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

/* A whole decimal number in [lo, hi]; anything else stops the program, loudly. */
/*
 * gpushim's own parser (src/base/env.c): digits alone, a '-' first where the
 * range has negative numbers, within [lo, hi]; anything else ends the
 * process, naming it.
 */
static long parse_number(const char *var, const char *text, long lo, long hi)
{
    bool negative = text[0] == '-' && lo < 0;
    unsigned long long v;

    if (negative ? !gpu__env_parse_count(text + 1, 0, (unsigned long long)(-(lo + 1)) + 1, &v)
                 : hi < 0 || !gpu__env_parse_count(text, lo > 0 ? (unsigned long long)lo : 0, (unsigned long long)hi,
                                                   &v))
        die(var, text);
    /* lo is never LONG_MIN here, so -v fits. */
    if (negative && -(long)v > hi)
        die(var, text);
    return negative ? -(long)v : (long)v;
}

/* A switch (0 or 1, off/on, false/true, no/yes); `fallback` when unset; anything else ends the process. */
static bool env_switch(const char *var, bool fallback)
{
    const char *v = gpu__env_raw(var);
    bool on = fallback;

    if (v && !gpu__env_parse_switch(v, &on))
        die(var, v);
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

/* GPUSHIM_FAKE_FAIL=name:nth:result[,...], nth written "3+" for "the third and every later call". */
static void parse_fail_rules(const char *spec)
{
    char *copy = strdup(spec);
    char *save = NULL;

    if (!copy)
        die("GPUSHIM_FAKE_FAIL", "out of memory");
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *nth = strchr(item, ':');
        char *result = nth ? strchr(nth + 1, ':') : NULL;
        bool onward;
        size_t len;
        int entry;

        if (!result)
            die("GPUSHIM_FAKE_FAIL wants name:nth:result", item);
        *nth++ = '\0';
        *result++ = '\0';
        entry = fake_entry_find(item);
        if (entry < 0)
            die("GPUSHIM_FAKE_FAIL names no entry point", item);
        len = strlen(nth);
        onward = len > 0 && nth[len - 1] == '+';
        if (onward)
            nth[len - 1] = '\0';
        if (!add_rule((enum fake_entry)entry, (unsigned)parse_number("GPUSHIM_FAKE_FAIL nth", nth, 1, 1000000),
                      onward, (cuabi_result)parse_number("GPUSHIM_FAKE_FAIL result", result, 1, 100000)))
            die("GPUSHIM_FAKE_FAIL", "out of memory");
    }
    free(copy);
}

static void parse_omit(const char *spec)
{
    char *copy = strdup(spec);
    char *save = NULL;

    if (!copy)
        die("GPUSHIM_FAKE_OMIT", "out of memory");
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int entry = fake_entry_find(item);

        if (entry < 0)
            die("GPUSHIM_FAKE_OMIT names no entry point", item);
        fake.omit[entry] = true;
    }
    free(copy);
}

/* This library's own handle: dlsym on it tells what this build exports. */
static void *self_handle(void)
{
    static void *self;
    Dl_info info;

    if (!self && dladdr(&fake, &info) && info.dli_fname)
        self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    return self;
}

static bool self_exports(const char *symbol)
{
    return self_handle() && dlsym(self_handle(), symbol);
}

/* Reads the environment once, under the lock. */
static void configure(void)
{
    const char *v;
    int devices = -1; /* as GPUSHIM_FAKE_DEVICE says */

    fake.configured = true;
    fake.driver_version = self_exports("cuGetProcAddress_v2") ? FAKE_DEFAULT_VERSION : FAKE_OLD_VERSION;
    if ((v = gpu__env_raw("GPUSHIM_FAKE_VERSION")))
        fake.driver_version = (int)parse_number("GPUSHIM_FAKE_VERSION", v, 1000, 99990);
    if ((v = gpu__env_raw("GPUSHIM_FAKE_INIT_FAIL")))
        fake.init_fail = (cuabi_result)parse_number("GPUSHIM_FAKE_INIT_FAIL", v, 0, 4294967295L);
    if ((v = gpu__env_raw("GPUSHIM_FAKE_DEVICES")))
        devices = (int)parse_number("GPUSHIM_FAKE_DEVICES", v, 0, FAKE_MAX_DEVICES);
    fake_devices_configure(devices, env_switch("GPUSHIM_FAKE_PEER", true));
    if ((v = gpu__env_raw("GPUSHIM_FAKE_FAIL")))
        parse_fail_rules(v);
    if ((v = gpu__env_raw("GPUSHIM_FAKE_OMIT")))
        parse_omit(v);
    fake.twin_stream_query = env_switch("GPUSHIM_FAKE_GPA_TWIN", false);
    if ((v = gpu__env_raw("GPUSHIM_FAKE_INIT_DELAY_MS")))
        fake.init_delay_ms = parse_number("GPUSHIM_FAKE_INIT_DELAY_MS", v, 0, 86400000);
    fake.init_callback_status = -1;
    if ((v = gpu__env_raw("GPUSHIM_FAKE_INIT_CALLBACK")) && !(fake.init_callback = strdup(v)))
        die("GPUSHIM_FAKE_INIT_CALLBACK", "out of memory");
    fake_faults_configure();
    fake_report_configure();
    fake_stream_configure();
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

size_t fake_parse_bytes(const char *var, const char *text)
{
    size_t len = strlen(text);
    unsigned shift = 0;
    char digits[32];
    long long n;

    if (len > 0 && strchr("KMG", text[len - 1])) {
        shift = text[len - 1] == 'K' ? 10 : text[len - 1] == 'M' ? 20 : 30;
        len--;
    }
    if (len == 0 || len >= sizeof(digits))
        fake_die(var, text);
    memcpy(digits, text, len);
    digits[len] = '\0';
    n = fake_parse_number(var, digits, 0, (long)((SIZE_MAX >> 1) >> shift));
    return (size_t)n << shift;
}


void fake_lock(void)
{
    fake_host_kernels_load(); /* without the lock: the libraries' constructors may call the fake */
    pthread_mutex_lock(&fake.lock);
    if (!fake.configured)
        configure();
}

void fake_unlock(void)
{
    pthread_mutex_unlock(&fake.lock);
}

cuabi_result fake_begin(enum fake_entry entry, bool needs_init)
{
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
    fake_lock();
    n = ++fake.calls[entry];
    fake_faults_on_call();
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

cuabi_result fake_end(cuabi_result rc)
{
    if (!fake_in_callback)
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

/* In a fork's child, single-threaded: whether the parent had initialised the driver. */
static void fork_child_mark(void)
{
    if (fake.initialized)
        forked_after_init = true;
}

static void fork_watch(void)
{
    pthread_atfork(NULL, NULL, fork_child_mark);
}

cuabi_result cuInit(unsigned int flags)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    cuabi_result rc = fake_begin(FAKE_E_cuInit, false);

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
    if (rc == CUABI_SUCCESS)
        pthread_once(&once, fork_watch);
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

/* A second function behind cuStreamQuery, so that cuGetProcAddress can hand out a pointer that is not the export. */
static cuabi_result stream_query_twin(cuabi_stream stream)
{
    return cuStreamQuery(stream);
}

static int proc_version_compare(const void *key, const void *row)
{
    return strcmp(key, ((const struct gpu__cuda_proc *)row)->base);
}

static int symbol_compare(const void *key, const void *name)
{
    return strcmp(key, *(const char *const *)name);
}

/* The entry of a symbol of the driver; -1 for a name the list lacks. */
static int symbol_entry(const char *symbol)
{
    const char *const *found = bsearch(symbol, symbol_names, FAKE_E_COUNT, sizeof(symbol_names[0]), symbol_compare);

    return found ? (int)(found - symbol_names) : -1;
}

/*
 * The symbol the driver hands out for `base` at `version`: the row of the
 * newest version <= `version`, a per-thread one where asked and there is one.
 * NULL for a name the table lacks (*known false) or a version before its first.
 */
static const char *proc_symbol(const char *base, int version, bool per_thread, bool *known)
{
    const struct gpu__cuda_proc *row =
        bsearch(base, gpu__cuda_procs, GPU__CUDA_PROC_COUNT, sizeof(gpu__cuda_procs[0]), proc_version_compare);
    const struct gpu__cuda_proc *end = gpu__cuda_procs + GPU__CUDA_PROC_COUNT;
    const char *best = NULL, *best_per_thread = NULL;

    *known = row != NULL;
    if (!row)
        return NULL;
    while (row > gpu__cuda_procs && strcmp(row[-1].base, base) == 0)
        row--;
    for (; row < end && strcmp(row->base, base) == 0; row++)
        if (row->version <= version) {
            if (row->per_thread)
                best_per_thread = row->symbol;
            else
                best = row->symbol;
        }
    return per_thread && best_per_thread ? best_per_thread : best;
}

/*
 * The pointer for a base name at a CUDA version. As documented for the real
 * driver, a name it has no answer for is still CUDA_SUCCESS, with *pfn NULL
 * and the reason in the status.
 */
static void gpa_lookup(const char *base, void **pfn, int cuda_version, cuabi_uint64 flags,
                       cuabi_proc_address_query_result *status)
{
    bool per_thread = (flags & CUABI_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    bool known = false;
    const char *symbol = proc_symbol(base, cuda_version, per_thread, &known);
    int asked = known ? fake_entry_find(base) : -1;
    int entry = symbol ? symbol_entry(symbol) : -1;
    void *fn;

    /* Base names only, as the real driver: "cuMemAlloc_v2" is not a name it knows. */
    *status = CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (asked < 0)
        return;
    fake.gpa_asked[asked]++;
    if (fake.omit[asked] || (entry >= 0 && fake.omit[entry]))
        return;
    if (!symbol) {
        *status = CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
        return;
    }
    /* What this build does not export, it does not have: the variants leave symbols out. */
    fn = entry >= 0 && self_handle() ? dlsym(self_handle(), symbol) : NULL;
    if (!fn)
        return;
    if (entry == FAKE_E_cuStreamQuery && fake.twin_stream_query) {
        cuabi_result (*twin)(cuabi_stream) = stream_query_twin;

        memcpy(&fn, &twin, sizeof(fn));
    }
    *pfn = fn;
    *status = CUABI_GET_PROC_ADDRESS_SUCCESS;
}

/* cuGetProcAddress in every form: counted as `entry`, the status only where the form has one. */
static cuabi_result get_proc_address(enum fake_entry entry, const char *symbol, void **pfn, int cuda_version,
                                     cuabi_uint64 flags, cuabi_proc_address_query_result *status)
{
    cuabi_result rc = fake_begin(entry, false);
    cuabi_proc_address_query_result st = CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;

    if (rc == CUABI_SUCCESS) {
        gpu_fake_gpa_stats *g = &fake.gpa;

        g->flags_and = g->calls ? g->flags_and & flags : flags;
        g->flags_or |= flags;
        g->min_version = g->calls && g->min_version < cuda_version ? g->min_version : cuda_version;
        g->max_version = g->calls && g->max_version > cuda_version ? g->max_version : cuda_version;
        g->last_version = cuda_version;
        g->calls++;
        /* A version newer than the driver's is refused outright. */
        if (!symbol || !pfn || (flags & ~(cuabi_uint64)3u) || cuda_version > fake.driver_version) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            *pfn = NULL;
            gpa_lookup(symbol, pfn, cuda_version, flags, &st);
            g->found += st == CUABI_GET_PROC_ADDRESS_SUCCESS;
        }
        if (status)
            *status = st;
    }
    return fake_end(rc);
}

cuabi_result cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags,
                                 cuabi_proc_address_query_result *status)
{
    return get_proc_address(FAKE_E_cuGetProcAddress_v2, symbol, pfn, cuda_version, flags, status);
}

/* CUDA 11.3's form, without the status: a name it has no answer for is only a NULL pointer. */
cuabi_result cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags)
{
    return get_proc_address(FAKE_E_cuGetProcAddress, symbol, pfn, cuda_version, flags, NULL);
}

/* ---- Error names ---- */

static const char *result_name(cuabi_result result)
{
    switch (result) {
#define FAKE_RESULT_NAME(name, value) \
    case value: \
        return "CUDA_" #name;
        CUABI_RESULT_LIST(FAKE_RESULT_NAME)
#undef FAKE_RESULT_NAME
    }
    return NULL;
}

/* The sentences the real driver uses, for the results this fake gives. */
static const char *result_text(cuabi_result result)
{
    switch (result) {
    case CUABI_SUCCESS: return "no error";
    case CUABI_ERROR_INVALID_VALUE: return "invalid argument";
    case CUABI_ERROR_OUT_OF_MEMORY: return "out of memory";
    case CUABI_ERROR_NOT_INITIALIZED: return "initialization error";
    case CUABI_ERROR_STUB_LIBRARY: return "CUDA driver is a stub library";
    case CUABI_ERROR_NO_DEVICE: return "no CUDA-capable device is detected";
    case CUABI_ERROR_DEVICE_UNAVAILABLE: return "CUDA-capable device(s) is/are busy or unavailable";
    case CUABI_ERROR_INVALID_DEVICE: return "invalid device ordinal";
    case CUABI_ERROR_INVALID_IMAGE: return "device kernel image is invalid";
    case CUABI_ERROR_INVALID_CONTEXT: return "invalid device context";
    case CUABI_ERROR_PEER_ACCESS_UNSUPPORTED: return "peer access is not supported between these two devices";
    case CUABI_ERROR_INVALID_PTX: return "a PTX JIT compilation failed";
    case CUABI_ERROR_INVALID_HANDLE: return "invalid resource handle";
    case CUABI_ERROR_ILLEGAL_STATE: return "the operation cannot be performed in the present state";
    case CUABI_ERROR_NOT_FOUND: return "named symbol not found";
    case CUABI_ERROR_NOT_READY: return "device not ready";
    case CUABI_ERROR_ILLEGAL_ADDRESS: return "an illegal memory access was encountered";
    case CUABI_ERROR_PEER_ACCESS_ALREADY_ENABLED: return "peer access is already enabled";
    case CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return "part or all of the requested memory range is already mapped";
    case CUABI_ERROR_HOST_MEMORY_NOT_REGISTERED: return "pointer does not correspond to a registered memory region";
    case CUABI_ERROR_NOT_PERMITTED: return "operation not permitted";
    case CUABI_ERROR_NOT_SUPPORTED: return "operation not supported";
    case CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED: return "operation not permitted when stream is capturing";
    case CUABI_ERROR_STREAM_CAPTURE_INVALIDATED: return "operation failed due to a previous error during capture";
    case CUABI_ERROR_STREAM_CAPTURE_IMPLICIT: return "operation would make the legacy stream depend on a capturing blocking stream";
    case CUABI_ERROR_UNKNOWN: return "unknown error";
    default: return result_name(result) ? "an error the fake driver does not describe" : NULL;
    }
}

cuabi_result cuGetErrorName(cuabi_result error, const char **str)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGetErrorName, false);

    if (rc == CUABI_SUCCESS) {
        if (!str) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            *str = result_name(error);
            rc = *str ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
        }
    }
    return fake_end(rc);
}

cuabi_result cuGetErrorString(cuabi_result error, const char **str)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGetErrorString, false);

    if (rc == CUABI_SUCCESS) {
        if (!str) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            *str = fake_host_kernel_note(error)  ? fake_host_kernel_note(error)
                   : fake_module_note(error) ? fake_module_note(error)
                                             : result_text(error);
            rc = *str ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
        }
    }
    return fake_end(rc);
}

/* ---- Control API: calls, counts, fault rules ---- */

/* The entry of a per-thread variant's base: its name without _ptsz or _ptds; -1 for none. */
static int base_entry(const char *variant)
{
    size_t n = strlen(variant) - 5;

    for (int i = 0; i < FAKE_E_COUNT; i++)
        if (strlen(symbol_names[i]) == n && strncmp(symbol_names[i], variant, n) == 0)
            return i;
    return -1;
}

FAKE_API int gpu_fake_symbol_implemented(const char *name)
{
    bool per_thread = false;
    void *fn;
    int i;

    for (i = 0; name && i < FAKE_E_COUNT && strcmp(symbol_names[i], name) != 0; i++)
        ;
    if (!name || i == FAKE_E_COUNT)
        return -1;
    fn = self_handle() ? dlsym(self_handle(), name) : NULL;
    if (!fn || fake_symbol_unimplemented(fn))
        return 0;
    /* A per-thread variant is the fake's own where its base is. */
    base_length(name, &per_thread);
    return !per_thread || fake_per_thread_base_implemented(base_entry(name));
}

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
