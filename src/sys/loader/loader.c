/* SPDX-License-Identifier: MIT */
/*
 * Loading libcuda.so.1 and resolving the table. The only file that touches dlfcn.h.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpushim/driver.h"

#include "attempts.h"
#include "sys/driver/driver.h"
#include "driver_search.h"
#include "base/env.h"
#include "entry_table.h"
#include "base/error.h"
#include "base/text.h"
#include "sys/trace/trace.h"

_Static_assert(GPU_CUDA_ABI_VERSION == CUABI_VERSION, "the public and the sys ABI version must agree");
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym's pointers must hold function pointers");

/* The env variable that names the one driver file to load. */
#define LIBCUDA_ENV "GPUSHIM_LIBCUDA"

/* Room for every candidate of a search (driver_search.h): the first, the loader's, the cache's, the folders'. */
enum { MAX_ATTEMPTS = 16 };

enum {
#define GPU__ENTRY(need, name, symbol, params, args) +1
    ENTRY_COUNT = 0
#include "sys/driver/entry_points.h"
#undef GPU__ENTRY
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_bool load_done; /* lets later calls skip pthread_once's call into libc */
static gpu_status load_status = GPU_ERR_NO_DRIVER;
struct gpu__driver gpu__driver_table;
static atomic_bool table_ready;
const struct gpu__driver *_Atomic gpu__driver_ready;
atomic_bool gpu__driver_hot;
static bool traced; /* tracing put its wrappers in the table */
static atomic_bool forked;
/* From the load's first step on, a child of fork() must not load again: its parent's driver state is half its own. */
static atomic_bool load_started;
/* While the load runs: which thread runs it, so that a call back into gpushim from the driver is refused. */
static atomic_bool loading;
static pthread_t loader;
static bool atfork_registered;
/* The library opened, once it proved to export what a driver does; never closed. */
static void *driver_handle;

/*
 * What gpu_driver_get_report() returns: NULL before the load, a snapshot of each
 * step while it runs (each filled before it is published and never changed
 * after), then `report`. Its strings live in static buffers (no heap: a
 * plugin that embeds libgpushim.a may be unloaded, and nothing may leak or
 * dangle then) sized for whole paths (PATH_MAX; dlopen takes no longer one)
 * and whole messages; text that still does not fit ends with a note saying
 * how long it was, never cut silently.
 */
static _Atomic(const gpu_load_report *) published;
static gpu_load_report report;
static gpu_load_report steps[3];
enum {
    PATH_BYTES = PATH_MAX + 64,
    ATTEMPT_BYTES = PATH_MAX + 512,
    MESSAGE_BYTES = (MAX_ATTEMPTS + 1) * ATTEMPT_BYTES,
    CHOICE_BYTES = 256,
};
static gpu_load_attempt attempts[MAX_ATTEMPTS];
static char attempt_text[MAX_ATTEMPTS][2][ATTEMPT_BYTES];
static struct gpu__attempts tried = {attempts, &attempt_text[0][0][0], ATTEMPT_BYTES, MAX_ATTEMPTS,
                                     &report.attempt_count};
static char loaded_file[PATH_BYTES];
static char choice[CHOICE_BYTES];
static struct gpu__driver_found found; /* what open_driver() opened, and why */
static char fake_identity[64];
static char message_buf[MESSAGE_BYTES];
static const char *message = "";

static gpu_entry_point entries[ENTRY_COUNT] = {
#define GPU__ENTRY(need, name, symbol, params, args) GPU__ENTRY_ROW(need, name, symbol)
#include "sys/driver/entry_points.h"
#undef GPU__ENTRY
};

static const gpu_load_report not_started = {
    .stage = GPU_LOAD_NOT_STARTED,
    .message = "the driver has not been loaded yet",
    .abi_version = CUABI_VERSION,
};

static void on_fork_child(void)
{
    /* A child may load its own driver only if its parent had not begun, or had failed for good. */
    if (atomic_load_explicit(&load_started, memory_order_relaxed) &&
        !(atomic_load_explicit(&load_done, memory_order_relaxed) && load_status != GPU_OK)) {
        atomic_store_explicit(&forked, true, memory_order_relaxed);
        atomic_store_explicit(&gpu__driver_hot, false, memory_order_relaxed);
        atomic_store_explicit(&gpu__driver_ready, NULL, memory_order_relaxed);
    }
}

/* The report's message, formatted. */
GPU__PRINTF(1, 2) static const char *set_message(const char *fmt, ...)
{
    const char *text;
    va_list ap;

    va_start(ap, fmt);
    text = gpu__text_vprintf(message_buf, sizeof(message_buf), fmt, ap);
    va_end(ap);
    return text;
}

/* Publishes what the load is doing now: `step` of the report, started at report.started_ns. */
static void publish_step(int i, const char *step, const char *what)
{
    steps[i] = report;
    steps[i].stage = GPU_LOAD_IN_PROGRESS;
    steps[i].step = step;
    steps[i].message = what;
    atomic_store_explicit(&published, &steps[i], memory_order_release);
}

/* Which library: GPUSHIM_LIBCUDA alone when set, else the first driver of the search (driver_search.h). */
static void *open_driver(void)
{
    const char *env = gpu__env_raw(LIBCUDA_ENV);

    if (env) {
        found.handle = gpu__attempt_open_env(&tried, LIBCUDA_ENV, env, RTLD_NOW | RTLD_LOCAL);
        found.label = found.handle ? attempts[report.attempt_count - 1].path : NULL;
        found.choice = found.handle ? LIBCUDA_ENV " names it" : NULL;
        return found.handle;
    }
    gpu__driver_search(&tried, choice, sizeof(choice), &found);
    return found.handle;
}

/* No library opened: the report says what was tried. */
static gpu_status open_failed(void)
{
    struct gpu__text t = {message_buf, sizeof(message_buf), 0};

    report.stage = GPU_LOAD_OPEN;
    gpu__text_add(&t, "no CUDA driver could be loaded:");
    report.only_gpushim = found.only_gpushim;
    if (found.only_gpushim)
        gpu__text_add(&t, " only gpushim's own libcuda.so.1 (libgpushim-cuda, a forwarder, not a driver) was found;");
    gpu__attempt_list(&tried, &t);
    message = gpu__text_end(&t);
    return GPU_ERR_NO_DRIVER;
}

/* The name of a CUresult before the table exists: the driver's own, else ours. */
static const char *early_result_name(void *handle, cuabi_result result)
{
    cuabi_result (*get_name)(cuabi_result, const char **);
    void *sym = dlsym(handle, "cuGetErrorName");
    const char *name = NULL;

    memcpy(&get_name, &sym, sizeof(sym));
    if (get_name && get_name(result, &name) == CUABI_SUCCESS && name)
        return name;
    name = gpu__result_name_own(result);
    return name ? name : "CUDA_ERROR_UNRECOGNIZED";
}

/*
 * The driver's cuGetErrorString of a result, dlsym'd (the table is not filled yet), as ": TEXT"; "" where it
 * has none. The fake driver says there which GPUSHIM_FAKE_* value it refused.
 */
static const char *early_result_text(void *handle, cuabi_result result, char *buf, size_t size)
{
    cuabi_result (*get_text)(cuabi_result, const char **);
    void *sym = dlsym(handle, "cuGetErrorString");
    const char *text = NULL;

    memcpy(&get_text, &sym, sizeof(sym));
    if (!get_text || get_text(result, &text) != CUABI_SUCCESS || !text || !text[0])
        return "";
    snprintf(buf, size, ": %.1024s", text);
    return buf;
}

static const char *query_reason(cuabi_result rc, cuabi_proc_address_query_result status)
{
    if (rc != CUABI_SUCCESS)
        return "cuGetProcAddress failed";
    switch (status) {
    case CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND:
        return "cuGetProcAddress: symbol not found";
    case CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT:
        return "cuGetProcAddress: not available at the pinned CUDA version";
    default:
        return "cuGetProcAddress returned no pointer";
    }
}

/* Resolves every entry point into `resolved`; returns how many required ones are missing. */
static size_t resolve_entries(void *handle, cuabi_pfn_cuGetProcAddress gpa, void *resolved[])
{
    size_t missing_required = 0;

    for (size_t i = 0; i < ENTRY_COUNT; i++) {
        gpu_entry_point *e = &entries[i];
        void *fn = NULL;
        void *exported;

        e->missing = NULL;
        if (gpa) {
            cuabi_proc_address_query_result status = CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            cuabi_result rc = gpa(e->name, &fn, CUABI_VERSION, CUABI_GET_PROC_ADDRESS_LEGACY_STREAM, &status);

            if (rc != CUABI_SUCCESS || status != CUABI_GET_PROC_ADDRESS_SUCCESS || !fn) {
                e->missing = query_reason(rc, status);
                fn = NULL;
            } else {
                e->via = "cuGetProcAddress";
            }
        }
        /* The versioned name is this exact ABI: safe to take when the driver's table has no answer. */
        exported = dlsym(handle, e->symbol);
        if (!fn && exported) {
            fn = exported;
            e->via = "dlsym";
            e->missing = NULL;
        } else if (!fn && !e->missing) {
            e->missing = "symbol not exported";
        }
        e->found = fn != NULL;
        e->exported = exported != NULL;
        e->matches_export = exported != NULL && exported == fn;
        if (!e->found)
            e->via = NULL;
        else if (strcmp(e->via, "dlsym") == 0)
            report.via_dlsym++;
        else
            report.via_get_proc_address++;
        if (!e->found && e->required)
            missing_required++;
        if (!e->found && !e->required)
            report.missing_optional++;
        resolved[i] = fn;
    }
    return missing_required;
}

static void fill_table(void *resolved[])
{
    size_t i = 0;

#define GPU__ENTRY(need, name, symbol, params, args) \
    memcpy(&gpu__driver_table.name, &resolved[i++], sizeof(gpu__driver_table.name));
#include "sys/driver/entry_points.h"
#undef GPU__ENTRY
}

static void describe_missing(const char *file)
{
    struct gpu__text t = {message_buf, sizeof(message_buf), 0};

    gpu__text_add(&t, "%s is not a usable CUDA driver: it lacks", file);
    for (size_t i = 0; i < ENTRY_COUNT; i++)
        if (entries[i].required && !entries[i].found)
            gpu__text_add(&t, " %s (%s)", entries[i].symbol, entries[i].missing);
    message = gpu__text_end(&t);
}

/*
 * gpushim's own fake driver (fake/, include/gpushim/fake.h) exports
 * gpu_fake_identify(); a real driver does not. Recorded in the report, so
 * that nobody takes the fake's results for a GPU's.
 */
static void identify_fake(void *handle)
{
    void *sym = dlsym(handle, "gpu_fake_identify");
    const char *(*identify)(void);
    const char *id;

    if (!sym)
        return;
    memcpy(&identify, &sym, sizeof(sym));
    id = identify();
    if (id && *id)
        report.fake = gpu__text_printf(fake_identity, sizeof(fake_identity), "%s", id);
}

static gpu_status load_from(void *handle)
{
    cuabi_pfn_cuInit init;
    cuabi_pfn_cuDriverGetVersion get_version;
    cuabi_pfn_cuGetProcAddress gpa;
    void *sym;
    void *resolved[ENTRY_COUNT];
    Dl_info info;
    cuabi_result rc;
    uint64_t t0;

    sym = dlsym(handle, CUABI_SYMBOL_cuInit);
    memcpy(&init, &sym, sizeof(sym));
    sym = dlsym(handle, CUABI_SYMBOL_cuDriverGetVersion);
    memcpy(&get_version, &sym, sizeof(sym));
    sym = dlsym(handle, CUABI_SYMBOL_cuGetProcAddress);
    memcpy(&gpa, &sym, sizeof(sym));

    report.file = found.label;
    report.choice = found.choice;
    if (!init || !get_version) {
        report.stage = GPU_LOAD_RESOLVE;
        message = set_message("%s is not a CUDA driver: it exports no %s", report.file,
                              init ? CUABI_SYMBOL_cuDriverGetVersion : CUABI_SYMBOL_cuInit);
        return GPU_ERR_NO_DRIVER;
    }
    memcpy(&sym, &init, sizeof(sym));
    if (gpu__inside_gpushim(sym)) {
        /* libgpushim-cuda's cuInit would forward to this very load: refuse it before calling it. */
        report.stage = GPU_LOAD_RESOLVE;
        message = set_message("%s is not a CUDA driver: its %s is gpushim's own forwarder (libgpushim-cuda)",
                              report.file, CUABI_SYMBOL_cuInit);
        return GPU_ERR_NO_DRIVER;
    }
    driver_handle = handle;
    if (dladdr(sym, &info) && info.dli_fname)
        report.file = gpu__text_printf(loaded_file, sizeof(loaded_file), "%s", info.dli_fname);
    identify_fake(handle);

    publish_step(1, "cuInit", "the driver is being loaded: cuInit(0) has not returned yet");
    t0 = gpu__now_ns();
    rc = init(0);
    report.init_ns = gpu__now_ns() - t0;
    report.init_called = true;
    report.init_result = rc;
    if (rc != CUABI_SUCCESS) {
        report.stage = GPU_LOAD_INIT;
        char text[1040];

        message = set_message("%s: cuInit(0) failed: %s (%u)%s", report.file, early_result_name(handle, rc), rc,
                              rc == CUABI_ERROR_STUB_LIBRARY ? ": this is the CUDA toolkit's stub library, not a driver"
                                                             : early_result_text(handle, rc, text, sizeof(text)));
        /* The stub answers every call with 34 and cannot say why: no driver, and gpushim says why instead. */
        if (rc == CUABI_ERROR_STUB_LIBRARY)
            driver_handle = NULL;
        return GPU_ERR_NO_DRIVER;
    }
    rc = get_version(&report.driver_version);
    if (rc != CUABI_SUCCESS) {
        report.stage = GPU_LOAD_INIT;
        message = set_message("%s: cuDriverGetVersion failed: %s (%u)", report.file, early_result_name(handle, rc), rc);
        return GPU_ERR_NO_DRIVER;
    }

    /* cuGetProcAddress refuses a version above the driver's own; older drivers get dlsym. */
    if (report.driver_version < CUABI_VERSION)
        gpa = NULL;
    report.used_get_proc_address = gpa != NULL;
    publish_step(2, "resolve", "the driver is being loaded: resolving its entry points");
    report.entries = entries;
    report.entry_count = ENTRY_COUNT;
    t0 = gpu__now_ns();
    report.missing_required = resolve_entries(handle, gpa, resolved);
    report.resolve_ns = gpu__now_ns() - t0;
    if (report.missing_required) {
        report.stage = GPU_LOAD_RESOLVE;
        describe_missing(report.file);
        return GPU_ERR_NO_DRIVER;
    }
    fill_table(resolved);
    traced = gpu__trace_install(&gpu__driver_table, &report); /* GPUSHIM_TRACE*: wrappers in the table, only when asked for */
    report.stage = GPU_LOAD_READY;
    message = "";
    return GPU_OK;
}

static void load(void)
{
    void *handle;
    uint64_t t0 = gpu__now_ns();

    loader = pthread_self();
    atomic_store_explicit(&loading, true, memory_order_release);
    /* Before the load begins, so that a fork() during it is seen (and one before it is not). */
    if (!atfork_registered)
        atfork_registered = pthread_atfork(NULL, NULL, on_fork_child) == 0;
    atomic_store_explicit(&load_started, true, memory_order_relaxed);
    report.abi_version = CUABI_VERSION;
    report.attempts = attempts;
    report.started_ns = t0;
    publish_step(0, "dlopen", "the driver is being loaded: opening the library");

    handle = open_driver();
    report.open_ns = gpu__now_ns() - t0;
    /* The handle is never closed: the table points into it for the life of the process. */
    load_status = handle ? load_from(handle) : open_failed();
    report.message = message;
    if (load_status == GPU_OK) {
        atomic_store_explicit(&table_ready, true, memory_order_release);
        atomic_store_explicit(&gpu__driver_ready, &gpu__driver_table, memory_order_release);
        atomic_store_explicit(&gpu__driver_hot, !traced, memory_order_release);
    }
    atomic_store_explicit(&published, &report, memory_order_release);
    atomic_store_explicit(&load_done, true, memory_order_release);
    atomic_store_explicit(&loading, false, memory_order_release);
}

static gpu_status fail_unloaded(void)
{
    if (atomic_load_explicit(&forked, memory_order_relaxed))
        return gpu__fail_static(GPU_ERR_FORKED, 0,
                                "the CUDA driver was loaded before fork(); a child process cannot use it "
                                "(load it in the child only, or exec a new program)");
    /* A driver whose cuInit failed says why in its CUresult; keep it for the caller. */
    return gpu__fail_static(GPU_ERR_NO_DRIVER, report.init_called ? (int)report.init_result : 0, message);
}

/* The first calls: run the load, unless this thread is inside it or the process is a child of one. */
static gpu_status wait_for_load(void)
{
    if (atomic_load_explicit(&forked, memory_order_relaxed))
        return fail_unloaded();
    if (atomic_load_explicit(&loading, memory_order_acquire) && pthread_equal(loader, pthread_self()))
        return gpu__fail_static(GPU_ERR_NO_DRIVER, 0,
                                "gpushim was called back from inside the driver's load (from cuInit); "
                                "the driver is not loaded yet");
    pthread_once(&load_once, load);
    return GPU_OK;
}

gpu_status gpu__driver_load(const struct gpu__driver **out)
{
    if (!atomic_load_explicit(&load_done, memory_order_acquire)) {
        gpu_status st = wait_for_load();

        if (st != GPU_OK)
            return st;
    }
    if (load_status == GPU_OK && !atomic_load_explicit(&forked, memory_order_relaxed)) {
        *out = &gpu__driver_table;
        return GPU_OK;
    }
    return fail_unloaded();
}

gpu_status gpu__driver_handle(void **out)
{
    const struct gpu__driver *drv;
    gpu_status st = gpu__driver_load(&drv);

    /* Not done: refused, as a call from inside the load or in a child forked during it. */
    if (!atomic_load_explicit(&load_done, memory_order_acquire) || !driver_handle)
        return st == GPU_OK ? fail_unloaded() : st;
    *out = driver_handle;
    return GPU_OK;
}

const struct gpu__driver *gpu__driver_peek(void)
{
    if (atomic_load_explicit(&table_ready, memory_order_acquire) &&
        !atomic_load_explicit(&forked, memory_order_relaxed))
        return &gpu__driver_table;
    return NULL;
}

gpu_status gpu_driver_load(void)
{
    const struct gpu__driver *drv;

    return gpu__driver_get(&drv);
}

gpu_status gpu_driver_get_version(int *out)
{
    const struct gpu__driver *drv;
    gpu_status st;

    GPU__NOT_NULL(out);
    st = gpu__driver_get(&drv);
    if (st == GPU_OK)
        *out = report.driver_version;
    return st;
}

const gpu_load_report *gpu_driver_get_report(void)
{
    const gpu_load_report *r = atomic_load_explicit(&published, memory_order_acquire);

    return r ? r : &not_started;
}

const char *gpu_load_stage_get_name(gpu_load_stage stage)
{
    switch (stage) {
    case GPU_LOAD_NOT_STARTED:
        return "not started";
    case GPU_LOAD_OPEN:
        return "open";
    case GPU_LOAD_RESOLVE:
        return "resolve";
    case GPU_LOAD_INIT:
        return "init";
    case GPU_LOAD_READY:
        return "ready";
    case GPU_LOAD_IN_PROGRESS:
        return "in progress";
    }
    return "unknown";
}

#ifdef GPUSHIM_FUZZING
/*
 * Forgets the load, so that a fuzzer (tests/fuzz) can run it again with other
 * values in one process. Only in that build: a real one loads once. The
 * driver's handle stays open, as always.
 */
void gpu__driver_forget(void);
void gpu__driver_forget(void)
{
    static const pthread_once_t fresh = PTHREAD_ONCE_INIT;

    memcpy(&load_once, &fresh, sizeof(fresh));
    atomic_store(&load_done, false);
    atomic_store(&table_ready, false);
    atomic_store(&gpu__driver_hot, false);
    atomic_store(&gpu__driver_ready, NULL);
    atomic_store(&load_started, false);
    traced = false;
    atomic_store(&published, NULL);
    load_status = GPU_ERR_NO_DRIVER;
    driver_handle = NULL;
    memset(&gpu__driver_table, 0, sizeof(gpu__driver_table));
    memset(&report, 0, sizeof(report));
    memset(steps, 0, sizeof(steps));
    memset(attempts, 0, sizeof(attempts));
    memset(attempt_text, 0, sizeof(attempt_text));
    memset(&found, 0, sizeof(found));
    message = "";
}
#endif
