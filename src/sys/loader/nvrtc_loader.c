/* SPDX-License-Identifier: MIT */
/*
 * Loading libnvrtc and resolving its table. With loader.c, the only files
 * that touch dlfcn.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpushim/program.h"

#include "attempts.h"
#include "base/env.h"
#include "sys/driver/compiler.h"
#include "entry_table.h"
#include "base/error.h"
#include "base/text.h"

#define LIBNVRTC_ENV "GPUSHIM_LIBNVRTC"
#define LIBRARY_PATH_ENV "GPUSHIM_LIBRARY_PATH"

/* Newest first; the bare libnvrtc.so (a development symlink) is never tried. */
static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12"};
static const char *const root_envs[] = {"CUDA_HOME", "CUDA_PATH"};
static const char *const root_subdirs[] = {"lib64", "targets/x86_64-linux/lib"};
#define DEFAULT_CUDA_ROOT "/usr/local/cuda"

enum { MAX_ATTEMPTS = 64, TEXT_MAX = 1024, MESSAGE_MAX = 16384, MAX_ARCHS = 128 };

enum {
#define GPU__NVRTC_ENTRY(need, ret, name, params) +1
    ENTRY_COUNT = 0
#include "sys/driver/nvrtc_entry_points.h"
#undef GPU__NVRTC_ENTRY
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_bool load_done;
static gpu_status load_status = GPU_ERR_NO_COMPILER;
static struct gpu__nvrtc table;

static gpu_compiler_report report;
static atomic_bool report_ready;
static gpu_load_attempt attempts[MAX_ATTEMPTS];
static char attempt_text[MAX_ATTEMPTS][2][TEXT_MAX];
static struct gpu__attempts tried = {attempts, &attempt_text[0][0][0], TEXT_MAX, MAX_ATTEMPTS, &report.attempt_count};
static char message[MESSAGE_MAX];
static char loaded_file[TEXT_MAX];
static char builtins_file[TEXT_MAX];
static char builtins_note[2 * TEXT_MAX];
static int archs[MAX_ARCHS];

static gpu_entry_point entries[ENTRY_COUNT] = {
#define GPU__NVRTC_ENTRY(need, ret, name, params) GPU__ENTRY_ROW(need, name, name)
#include "sys/driver/nvrtc_entry_points.h"
#undef GPU__NVRTC_ENTRY
};

static const gpu_compiler_report not_started = {
    .stage = GPU_LOAD_NOT_STARTED,
    .message = "NVRTC has not been loaded yet",
};

/* Why a folder was not tried. */
#define TOO_LONG "the folder's path is too long: not tried (a path cut to fit would name another file)"

/* Each soname in `dir`; `dir` is remembered when one opens, for the builtins. */
static void *try_folder(const char *dir, char *opened_dir, size_t opened_size)
{
    char path[TEXT_MAX];

    if (dir[0] != '/') {
        char why[TEXT_MAX];

        gpu__attempt_add(&tried, dir,
                         gpu__text_printf(why, sizeof(why),
                                          "%s: not an absolute folder; gpushim does not search relative ones", dir));
        return NULL;
    }
    for (size_t i = 0; i < sizeof(sonames) / sizeof(sonames[0]); i++) {
        int n = snprintf(path, sizeof(path), "%s/%s", dir, sonames[i]);
        void *handle;

        if (n < 0 || (size_t)n >= sizeof(path)) {
            gpu__attempt_add(&tried, dir, TOO_LONG);
            return NULL;
        }
        handle = gpu__attempt_open(&tried, path, RTLD_NOW | RTLD_LOCAL, NULL, NULL);
        if (handle) {
            snprintf(opened_dir, opened_size, "%s", dir);
            return handle;
        }
    }
    return NULL;
}

static void *try_cuda_root(const char *root, char *opened_dir, size_t opened_size)
{
    char dir[TEXT_MAX];
    void *handle = NULL;

    for (size_t i = 0; !handle && i < sizeof(root_subdirs) / sizeof(root_subdirs[0]); i++) {
        int n = snprintf(dir, sizeof(dir), "%s/%s", root, root_subdirs[i]);

        if (n >= 0 && (size_t)n < sizeof(dir))
            handle = try_folder(dir, opened_dir, opened_size);
        else
            gpu__attempt_add(&tried, root, TOO_LONG);
    }
    return handle;
}

static void *try_library_path(const char *list, char *opened_dir, size_t opened_size)
{
    char dir[TEXT_MAX];
    void *handle = NULL;

    while (!handle && *list) {
        size_t len = strcspn(list, ":");

        if (len > 0 && len < sizeof(dir)) {
            memcpy(dir, list, len);
            dir[len] = '\0';
            handle = try_folder(dir, opened_dir, opened_size);
        } else if (len > 0) {
            gpu__attempt_add(&tried, gpu__text_printf(dir, sizeof(dir), "%.*s", (int)len, list), TOO_LONG);
        }
        list += len;
        if (*list == ':')
            list++;
    }
    return handle;
}

/*
 * Which library, in the order program.h gives. `opened_dir` is set when it
 * came from a folder the system loader may not search.
 */
static void *open_nvrtc(char *opened_dir, size_t opened_size)
{
    const char *env = gpu__env_raw(LIBNVRTC_ENV);
    const char *list;
    void *handle = NULL;

    opened_dir[0] = '\0';
    if (env) {
        handle = gpu__attempt_open_env(&tried, LIBNVRTC_ENV, env, RTLD_NOW | RTLD_LOCAL);
        if (handle)
            snprintf(opened_dir, opened_size, "%.*s", (int)(strrchr(env, '/') - env), env);
        return handle;
    }
    for (size_t i = 0; !handle && i < sizeof(sonames) / sizeof(sonames[0]); i++) {
        char label[TEXT_MAX], why[TEXT_MAX];

        snprintf(label, sizeof(label), "%s (already loaded)", sonames[i]);
        snprintf(why, sizeof(why), "%s (already loaded): none in this process, so it is looked for on disk", sonames[i]);
        handle = gpu__attempt_open(&tried, sonames[i], RTLD_NOW | RTLD_NOLOAD, label, why);
    }
    for (size_t i = 0; !handle && i < sizeof(sonames) / sizeof(sonames[0]); i++)
        handle = gpu__attempt_open(&tried, sonames[i], RTLD_NOW | RTLD_LOCAL, NULL, NULL);
    for (size_t i = 0; !handle && i < sizeof(root_envs) / sizeof(root_envs[0]); i++) {
        const char *root = gpu__env(root_envs[i]);

        if (root && root[0])
            handle = try_cuda_root(root, opened_dir, opened_size);
    }
    if (!handle)
        handle = try_cuda_root(DEFAULT_CUDA_ROOT, opened_dir, opened_size);
    list = gpu__env(LIBRARY_PATH_ENV);
    if (!handle && list)
        handle = try_library_path(list, opened_dir, opened_size);
    return handle;
}

/* No library opened: the report says what was tried. */
static gpu_status open_failed(void)
{
    struct gpu__text t = {message, sizeof(message), 0};

    report.stage = GPU_LOAD_OPEN;
    gpu__text_add(&t, "no NVRTC (libnvrtc) could be loaded:");
    gpu__attempt_list(&tried, &t);
    gpu__text_add(&t, " (set " LIBNVRTC_ENV " to the file, or " LIBRARY_PATH_ENV " to its folder)");
    gpu__text_end(&t);
    return GPU_ERR_NO_COMPILER;
}

static size_t resolve_entries(void *handle, void *resolved[])
{
    size_t missing_required = 0;

    for (size_t i = 0; i < ENTRY_COUNT; i++) {
        gpu_entry_point *e = &entries[i];

        resolved[i] = dlsym(handle, e->symbol);
        e->found = e->exported = e->matches_export = resolved[i] != NULL;
        e->via = e->found ? "dlsym" : NULL;
        e->missing = e->found ? NULL : "symbol not exported";
        if (!e->found && e->required)
            missing_required++;
        if (!e->found && !e->required)
            report.missing_optional++;
    }
    return missing_required;
}

static void fill_table(void *resolved[])
{
    size_t i = 0;

#define GPU__NVRTC_ENTRY(need, ret, name, params) memcpy(&table.name, &resolved[i++], sizeof(table.name));
#include "sys/driver/nvrtc_entry_points.h"
#undef GPU__NVRTC_ENTRY
}

/*
 * NVRTC opens libnvrtc-builtins.so.M.m by name when it compiles, which the
 * system loader finds only in its own folders; a library of that soname
 * already loaded is found first, so load the one beside NVRTC now.
 */
static void load_builtins(const char *dir)
{
    char path[TEXT_MAX];
    struct stat st;
    void *handle;

    if (!dir[0]) {
        snprintf(builtins_note, sizeof(builtins_note),
                 "NVRTC came through the system loader, which finds libnvrtc-builtins itself");
        report.builtins_note = builtins_note;
        return;
    }
    snprintf(path, sizeof(path), "%s/libnvrtc-builtins.so.%d.%d", dir, table.major, table.minor);
    if (stat(path, &st) != 0) {
        snprintf(builtins_note, sizeof(builtins_note),
                 "%s is absent: NVRTC will look for libnvrtc-builtins.so.%d.%d through the system loader", path,
                 table.major, table.minor);
        report.builtins_note = builtins_note;
        return;
    }
    dlerror();
    /* Never closed: NVRTC uses it at every compile. */
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *err = dlerror();

        snprintf(builtins_note, sizeof(builtins_note), "%s", err ? err : "dlopen failed");
        report.builtins_note = builtins_note;
        return;
    }
    snprintf(builtins_file, sizeof(builtins_file), "%s", path);
    report.builtins = builtins_file;
}

static void list_archs(void)
{
    int n = 0;

    if (!table.nvrtcGetNumSupportedArchs || !table.nvrtcGetSupportedArchs)
        return;
    if (table.nvrtcGetNumSupportedArchs(&n) != NVRTCABI_SUCCESS || n <= 0 || n > MAX_ARCHS)
        return;
    if (table.nvrtcGetSupportedArchs(archs) != NVRTCABI_SUCCESS)
        return;
    report.archs = archs;
    report.arch_count = (size_t)n;
}

static gpu_status load_from(void *handle, const char *dir)
{
    void *resolved[ENTRY_COUNT];
    Dl_info info;
    struct stat st;
    nvrtcabi_result rc;
    uint64_t t0 = gpu__now_ns();

    report.file = attempts[report.attempt_count - 1].path;
    report.entries = entries;
    report.entry_count = ENTRY_COUNT;
    report.missing_required = resolve_entries(handle, resolved);
    report.resolve_ns = gpu__now_ns() - t0;
    for (size_t i = 0; i < ENTRY_COUNT; i++)
        if (resolved[i] && dladdr(resolved[i], &info) && info.dli_fname) {
            snprintf(loaded_file, sizeof(loaded_file), "%s", info.dli_fname);
            report.file = loaded_file;
            break;
        }
    if (report.missing_required) {
        struct gpu__text t = {message, sizeof(message), 0};

        report.stage = GPU_LOAD_RESOLVE;
        gpu__text_add(&t, "%s is not a usable NVRTC: it lacks", report.file);
        for (size_t i = 0; i < ENTRY_COUNT; i++)
            if (entries[i].required && !entries[i].found)
                gpu__text_add(&t, " %s", entries[i].symbol);
        gpu__text_end(&t);
        return GPU_ERR_NO_COMPILER;
    }
    fill_table(resolved);
    rc = table.nvrtcVersion(&table.major, &table.minor);
    if (rc != NVRTCABI_SUCCESS || table.major <= 0 || table.minor < 0) {
        const char *name = gpu__nvrtc_result_name(rc);

        report.stage = GPU_LOAD_INIT;
        if (rc != NVRTCABI_SUCCESS)
            gpu__text_printf(message, sizeof(message), "%s: nvrtcVersion failed: %s (%u)", report.file,
                             name ? name : "NVRTC_ERROR_UNRECOGNIZED", rc);
        else
            gpu__text_printf(message, sizeof(message), "%s: nvrtcVersion says %d.%d, which no NVRTC is",
                             report.file, table.major, table.minor);
        return GPU_ERR_NO_COMPILER;
    }
    if (stat(report.file, &st) == 0)
        table.file_size = (unsigned long long)st.st_size;
    report.version_major = table.major;
    report.version_minor = table.minor;
    load_builtins(dir);
    list_archs();
    report.stage = GPU_LOAD_READY;
    message[0] = '\0';
    return GPU_OK;
}

static void load(void)
{
    char dir[TEXT_MAX];
    void *handle;
    uint64_t t0 = gpu__now_ns();

    report.attempts = attempts;
    report.message = message;
    handle = open_nvrtc(dir, sizeof(dir));
    report.open_ns = gpu__now_ns() - t0;
    /* The handle is never closed: the table points into it for the life of the process. */
    load_status = handle ? load_from(handle, dir) : open_failed();
    atomic_store_explicit(&report_ready, true, memory_order_release);
    atomic_store_explicit(&load_done, true, memory_order_release);
}

gpu_status gpu__nvrtc_get(const struct gpu__nvrtc **out)
{
    if (!atomic_load_explicit(&load_done, memory_order_acquire))
        pthread_once(&load_once, load);
    if (load_status == GPU_OK) {
        *out = &table;
        return GPU_OK;
    }
    return gpu__fail_static(GPU_ERR_NO_COMPILER, 0, message);
}

const char *gpu__nvrtc_result_name(nvrtcabi_result result)
{
    switch (result) {
#define NVRTCABI_RESULT_NAME(name, value) \
    case NVRTCABI_##name: \
        return "NVRTC_" #name;
        NVRTCABI_RESULT_LIST(NVRTCABI_RESULT_NAME)
#undef NVRTCABI_RESULT_NAME
    }
    return NULL;
}

gpu_status gpu__nvrtc_check(const struct gpu__nvrtc *nv, nvrtcabi_result result, gpu_status category,
                            const char *what, const char *detail)
{
    const char *name, *text;

    if (result == NVRTCABI_SUCCESS)
        return GPU_OK;
    name = gpu__nvrtc_result_name(result);
    text = nv->nvrtcGetErrorString(result);
    /* 0: gpu_last_error_get_cuda_result() is for CUresults, and this is none. */
    return gpu__fail(result == NVRTCABI_ERROR_OUT_OF_MEMORY ? GPU_ERR_OUT_OF_MEMORY : category, 0,
                     "%s: %s (%u): %s%s%s", what, name ? name : "NVRTC_ERROR_UNRECOGNIZED", result,
                     text ? text : "no description", detail ? ": " : "", detail ? detail : "");
}

gpu_status gpu_compiler_load(void)
{
    const struct gpu__nvrtc *nv;

    return gpu__nvrtc_get(&nv);
}

gpu_status gpu_compiler_get_version(int *major, int *minor)
{
    const struct gpu__nvrtc *nv;
    gpu_status st;

    GPU__NOT_NULL(major, minor);
    st = gpu__nvrtc_get(&nv);
    if (st == GPU_OK) {
        *major = nv->major;
        *minor = nv->minor;
    }
    return st;
}

const gpu_compiler_report *gpu_compiler_get_report(void)
{
    if (atomic_load_explicit(&report_ready, memory_order_acquire))
        return &report;
    return &not_started;
}
