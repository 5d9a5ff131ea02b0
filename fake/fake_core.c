/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's core: its lock and configuration, fault injection, cuInit,
 * cuDriverGetVersion, cuGetProcAddress_v2, the error names, the legacy
 * unversioned symbols (which abort), and the control API's counters.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env.h"
#include "fake_internal.h"

/* What cuDriverGetVersion says unless GPUSHIM_FAKE_VERSION says otherwise. */
#define FAKE_DEFAULT_VERSION 12080
/* A build without cuGetProcAddress_v2 plays a driver from before it (CUDA 11.3). */
#define FAKE_OLD_VERSION 11020

struct fake_state fake = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
};

/* Set while this thread runs a host function; see fake_begin(). */
_Thread_local bool fake_in_callback;

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

cuabi_result fake_unimplemented(enum fake_entry entry)
{
    cuabi_result rc = fake_begin(entry, false);

    if (rc == CUABI_SUCCESS) {
        rc = CUABI_ERROR_NOT_SUPPORTED;
        if (fake.unimplemented[entry]++ == 0)
            fprintf(stderr,
                    "gpushim-fakecuda: %s is not implemented by the fake driver: it returns "
                    "CUDA_ERROR_NOT_SUPPORTED (801)\n",
                    symbol_names[entry]);
    }
    return fake_end(rc);
}

/* A whole decimal number in [lo, hi]; anything else stops the program, loudly. */
/*
 * gpushim's own parser (src/sys/env.c): digits alone, a '-' first where the
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

static void add_rule(enum fake_entry entry, unsigned nth, bool onward, cuabi_result result)
{
    struct fake_rule *r = calloc(1, sizeof(*r));

    if (!r)
        die("fault rule", "out of memory");
    r->entry = entry;
    r->at = fake.calls[entry] + nth;
    r->onward = onward;
    r->result = result;
    r->next = fake.rules;
    fake.rules = r;
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
        add_rule((enum fake_entry)entry, (unsigned)parse_number("GPUSHIM_FAKE_FAIL nth", nth, 1, 1000000), onward,
                 (cuabi_result)parse_number("GPUSHIM_FAKE_FAIL result", result, 1, 100000));
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
    if (fake_per_thread_call() >= 0)
        entry = (enum fake_entry)fake_per_thread_call();
    fake_lock();
    n = ++fake.calls[entry];
    fake_faults_on_call();
    for (struct fake_rule *r = fake.rules; r; r = r->next)
        if (r->entry == entry && (n == r->at || (r->onward && n > r->at)))
            return r->result;
    if (needs_init && !fake.initialized)
        return CUABI_ERROR_NOT_INITIALIZED;
    return CUABI_SUCCESS;
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
static void init_hazards(void)
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

        if (!sym)
            die("GPUSHIM_FAKE_INIT_CALLBACK names no function of the process", callback);
        memcpy(&fn, &sym, sizeof(sym));
        status = fn();
        fake_lock();
        fake.init_callback_status = status;
        fake_unlock();
    }
    fake_lock();
}

cuabi_result cuInit(unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuInit, false);

    if (rc == CUABI_SUCCESS && (fake.init_delay_ms > 0 || fake.init_callback))
        init_hazards();
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

/* ---- The legacy ABI: present, as in the real driver, and never to be called ---- */

static _Noreturn void legacy_called(const char *name)
{
    fprintf(stderr,
            "gpushim-fakecuda: %s called: that is the legacy (pre-_v2) ABI, which gpushim must never use\n", name);
    abort();
}

#define FAKE_LEGACY(name) \
    FAKE_API cuabi_result name(void); \
    cuabi_result name(void) \
    { \
        legacy_called(#name); \
    }

FAKE_LEGACY(cuMemAlloc)
FAKE_LEGACY(cuMemFree)
FAKE_LEGACY(cuMemcpyHtoD)
FAKE_LEGACY(cuMemcpyDtoH)
FAKE_LEGACY(cuMemcpyDtoD)
FAKE_LEGACY(cuMemcpyHtoDAsync)
FAKE_LEGACY(cuMemcpyDtoHAsync)
FAKE_LEGACY(cuMemcpyDtoDAsync)
FAKE_LEGACY(cuStreamDestroy)
FAKE_LEGACY(cuEventDestroy)
FAKE_LEGACY(cuCtxPushCurrent)
FAKE_LEGACY(cuCtxPopCurrent)
FAKE_LEGACY(cuDevicePrimaryCtxRelease)
FAKE_LEGACY(cuDeviceTotalMem)
FAKE_LEGACY(cuStreamBeginCapture)
FAKE_LEGACY(cuMemHostRegister)

typedef cuabi_result (*legacy_fn)(void);

/*
 * When each entry point appeared, and for the renamed ones when the current
 * revision did: asked for an older cudaVersion, cuGetProcAddress answers
 * "version not sufficient", or hands out the legacy function, as the real
 * driver does. Entries not listed date from before CUDA 4.0.
 */
static const struct {
    const char *base;
    int since;
    int revised;
    legacy_fn legacy;
} versions[] = {
    {"cuMemAlloc", 2000, 3020, cuMemAlloc},
    {"cuMemFree", 2000, 3020, cuMemFree},
    {"cuMemcpyHtoD", 2000, 3020, cuMemcpyHtoD},
    {"cuMemcpyDtoH", 2000, 3020, cuMemcpyDtoH},
    {"cuMemcpyDtoD", 2000, 3020, cuMemcpyDtoD},
    {"cuMemcpyHtoDAsync", 2000, 3020, cuMemcpyHtoDAsync},
    {"cuMemcpyDtoHAsync", 2000, 3020, cuMemcpyDtoHAsync},
    {"cuMemcpyDtoDAsync", 3000, 3020, cuMemcpyDtoDAsync},
    {"cuDeviceTotalMem", 2000, 3020, cuDeviceTotalMem},
    {"cuStreamDestroy", 2000, 4000, cuStreamDestroy},
    {"cuEventDestroy", 2000, 4000, cuEventDestroy},
    {"cuCtxPushCurrent", 2000, 4000, cuCtxPushCurrent},
    {"cuCtxPopCurrent", 2000, 4000, cuCtxPopCurrent},
    {"cuMemHostRegister", 4000, 6050, cuMemHostRegister},
    {"cuDevicePrimaryCtxRelease", 7000, 11000, cuDevicePrimaryCtxRelease},
    {"cuStreamBeginCapture", 10000, 10010, cuStreamBeginCapture},
    {"cuDevicePrimaryCtxRetain", 7000, 0, NULL},
    {"cuGetErrorName", 6000, 0, NULL},
    {"cuGetErrorString", 6000, 0, NULL},
    {"cuLaunchHostFunc", 10000, 0, NULL},
    {"cuStreamEndCapture", 10000, 0, NULL},
    {"cuStreamIsCapturing", 10000, 0, NULL},
    {"cuGraphLaunch", 10000, 0, NULL},
    {"cuGraphDestroy", 10000, 0, NULL},
    {"cuGraphExecDestroy", 10000, 0, NULL},
    {"cuGraphInstantiateWithFlags", 11040, 0, NULL},
    {"cuGetProcAddress", 11030, 0, NULL},
};

/* A second function behind cuStreamQuery, so that cuGetProcAddress can hand out a pointer that is not the export. */
static cuabi_result stream_query_twin(cuabi_stream stream)
{
    return cuStreamQuery(stream);
}

/*
 * The pointer for a base name at a CUDA version. As documented for the real
 * driver, a name it has no answer for is still CUDA_SUCCESS, with *pfn NULL
 * and the reason in the status.
 */
static void gpa_lookup(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags,
                       cuabi_proc_address_query_result *status)
{
    bool per_thread = (flags & CUABI_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    int entry = -1;
    void *fn;

    *status = CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    /* Base names only, as the real driver: "cuMemAlloc_v2" is not a name it knows. */
    for (int i = 0; i < FAKE_E_COUNT && entry < 0; i++) {
        bool pt;

        if (base_length(symbol_names[i], &pt) == strlen(symbol) && strncmp(symbol_names[i], symbol, strlen(symbol)) == 0)
            entry = per_thread && entry_of_base(symbol, true) >= 0 ? entry_of_base(symbol, true)
                                                                  : entry_of_base(symbol, false);
    }
    if (entry < 0)
        return;
    fake.gpa_asked[entry]++;
    if (fake.omit[entry])
        return;
    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
        if (strcmp(versions[i].base, symbol) != 0)
            continue;
        if (cuda_version < versions[i].since) {
            *status = CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
            return;
        }
        if (cuda_version < versions[i].revised) {
            memcpy(pfn, &versions[i].legacy, sizeof(*pfn));
            *status = CUABI_GET_PROC_ADDRESS_SUCCESS;
            return;
        }
    }
    /* What this build does not export, it does not have: the variants leave symbols out. */
    fn = self_handle() ? dlsym(self_handle(), symbol_names[entry]) : NULL;
    if (!fn)
        return;
    if (entry == FAKE_E_cuStreamQuery && fake.twin_stream_query) {
        cuabi_result (*twin)(cuabi_stream) = stream_query_twin;

        memcpy(&fn, &twin, sizeof(fn));
    }
    *pfn = fn;
    *status = CUABI_GET_PROC_ADDRESS_SUCCESS;
}

cuabi_result cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags,
                                 cuabi_proc_address_query_result *status)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGetProcAddress_v2, false);
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

    if (i < 0 || nth == 0)
        return -1;
    fake_lock();
    add_rule((enum fake_entry)i, nth, onward, (cuabi_result)result);
    fake_unlock();
    return 0;
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
