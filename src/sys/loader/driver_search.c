/* SPDX-License-Identifier: MIT */
/*
 * The driver's places, and the files among them gpushim does not bind to
 * (see driver_search.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attempts.h"
#include "sys/driver/cuda_abi.h"
#include "sys/driver/driver.h"
#include "driver_search.h"
#include "base/env.h"
#include "ld_cache.h"
#include "base/text.h"

#define LIBCUDA_SONAME "libcuda.so.1"

enum { MAX_SEEN = 32, MAX_CACHE_PATHS = 8, WHY_BYTES = PATH_MAX + 512 };

/* Where distributions and container runtimes put the driver, for a process whose loader cache does not list it. */
static const char *const usual_dirs[] = {
#if defined(__x86_64__)
    "/usr/lib/x86_64-linux-gnu", /* Debian, Ubuntu */
#elif defined(__aarch64__)
    "/usr/lib/aarch64-linux-gnu",
#endif
    "/usr/lib64",              /* Fedora, RHEL, SUSE */
    "/usr/lib",                /* Arch */
    "/usr/local/nvidia/lib64", /* NVIDIA's container images */
    "/usr/lib/wsl/lib",        /* WSL */
    "/run/opengl-driver/lib",  /* NixOS */
};

bool gpu__inside_gpushim(void *p)
{
    Dl_info info, self, mark;
    void *handle, *marker;
    bool gpushim;

    if (!dladdr(p, &info))
        return false;
    if (dladdr((void *)&usual_dirs, &self) && self.dli_fbase == info.dli_fbase)
        return true;
    if (!info.dli_fname || !info.dli_fname[0])
        return false;
    /* RTLD_NOLOAD: the object is loaded already (it holds p); this only counts a reference, dropped below. */
    handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
        return false;
    /* libgpushim-cuda defines gpu_cuda_forwarder itself; a library that merely links it does not. */
    marker = dlsym(handle, "gpu_cuda_forwarder");
    gpushim = marker && dladdr(marker, &mark) && mark.dli_fbase == info.dli_fbase;
    dlclose(handle);
    return gpushim;
}

struct search {
    struct gpu__attempts *tried;
    /* Each file opened, by device and inode, with the index of its attempt. */
    struct {
        dev_t dev;
        ino_t ino;
        size_t attempt;
    } seen[MAX_SEEN];
    size_t seen_count;
    size_t gpushim; /* files opened and refused as gpushim's own */
    size_t other;   /* files found and refused for another reason, or that did not open */
};

GPU__PRINTF(3, 4) static void record(struct search *s, const char *label, const char *fmt, ...)
{
    char why[WHY_BYTES];
    va_list ap;

    va_start(ap, fmt);
    gpu__attempt_add(s->tried, label, gpu__text_vprintf(why, sizeof(why), fmt, ap));
    va_end(ap);
}

/* The label of the attempt that tried the file `st` before, or NULL: the first time it is seen. */
static const char *seen_as(const struct search *s, const struct stat *st)
{
    for (size_t i = 0; i < s->seen_count; i++)
        if (s->seen[i].dev == st->st_dev && s->seen[i].ino == st->st_ino)
            /* Past the report's room an attempt is not recorded, and has no label to name. */
            return s->seen[i].attempt < *s->tried->count ? s->tried->items[s->seen[i].attempt].path
                                                          : "a candidate tried above";
    return NULL;
}

/* Remembers the file `st` as the one the next attempt recorded is about. */
static void remember(struct search *s, const struct stat *st)
{
    if (s->seen_count == MAX_SEEN)
        return;
    s->seen[s->seen_count].dev = st->st_dev;
    s->seen[s->seen_count].ino = st->st_ino;
    s->seen[s->seen_count].attempt = *s->tried->count;
    s->seen_count++;
}

/* The file an open library was mapped from (its link map's name), and that file's identity. */
static const char *mapped_file(void *handle, struct stat *st, bool *known)
{
    struct link_map *map = NULL;

    *known = false;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name || !map->l_name[0])
        return "(unnamed object)";
    *known = stat(map->l_name, st) == 0;
    return map->l_name;
}

/* Why the open library is no driver to bind to, or NULL. */
static const char *refusal(struct search *s, void *handle)
{
    void *init = dlsym(handle, CUABI_SYMBOL_cuInit);

    if (!init) {
        s->other++;
        return "exports no " CUABI_SYMBOL_cuInit ", so it is not a CUDA driver";
    }
    /* Its cuInit is the one that would load gpushim's driver: binding to it would make each call call itself. */
    if (gpu__inside_gpushim(init)) {
        s->gpushim++;
        return "is gpushim's own forwarder (libgpushim-cuda), not a driver";
    }
    return NULL;
}

/*
 * One candidate: `path` opened with `flags` (RTLD_NOLOAD: only if loaded
 * already), recorded as `label`. Returns the handle when it is a driver;
 * else NULL, the attempt saying why (a file seen before is not opened again).
 */
static void *try_candidate(struct search *s, const char *path, int flags, const char *label)
{
    struct stat st;
    const char *same, *file, *why;
    bool known = path[0] == '/' && stat(path, &st) == 0, mapped;
    void *handle;

    /* A file tried already, under another name or through a link, is not tried again. */
    if (known && (same = seen_as(s, &st))) {
        record(s, label, "%s: skipped: the same file as %s, tried above", label, same);
        return NULL;
    }
    if (known)
        remember(s, &st);
    dlerror();
    handle = dlopen(path, flags);
    if (!handle) {
        const char *err = dlerror();

        if (flags & RTLD_NOLOAD)
            record(s, label, "%s: none in this process, so it is looked for on disk", label);
        else
            gpu__attempt_add(s->tried, label, err ? err : "dlopen failed");
        /* A file that is there and does not open (another machine's, damaged) is found, if not usable. */
        s->other += known;
        return NULL;
    }
    /* Opened handles stay open, as the driver's does: closing runs a library's destructors, which gain nothing here. */
    file = mapped_file(handle, &st, &mapped);
    /* Opened by name, the file is known only now. */
    if (!known && mapped && (same = seen_as(s, &st))) {
        record(s, label, "%s: skipped: %s, the same file as %s, tried above", label, file, same);
        return NULL;
    }
    if (!known && mapped)
        remember(s, &st);
    why = refusal(s, handle);
    if (why) {
        record(s, label, "%s: skipped: %s %s", label, file, why);
        return NULL;
    }
    gpu__attempt_add(s->tried, label, NULL);
    return handle;
}

/* libcuda.so.1 in the folder `dir`, as a candidate; NULL with *absent set (nothing tried) when there is none. */
static void *try_in_folder(struct search *s, const char *dir, bool *absent)
{
    char path[PATH_MAX];
    struct stat st;
    int n = snprintf(path, sizeof(path), "%s/" LIBCUDA_SONAME, dir);

    *absent = false;
    if (n < 0 || (size_t)n >= sizeof(path)) {
        record(s, dir, "%s: the folder's path is too long: not tried (a path cut to fit would name another file)",
               dir);
        return NULL;
    }
    if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
        *absent = true;
        return NULL;
    }
    return try_candidate(s, path, RTLD_NOW | RTLD_LOCAL, path);
}

/* Every libcuda.so.1 the loader cache lists, by full path. */
static void *try_cache(struct search *s)
{
    const char *paths[MAX_CACHE_PATHS];
    char *data = NULL;
    size_t size = 0;
    void *handle = NULL;
    int found, err = gpu__ld_cache_read(GPU__LD_CACHE_PATH, &data, &size);

    if (err) {
        record(s, GPU__LD_CACHE_PATH, "%s: not read: %s", GPU__LD_CACHE_PATH, strerror(err));
        return NULL;
    }
    found = gpu__ld_cache_find(data, size, LIBCUDA_SONAME, paths, MAX_CACHE_PATHS);
    if (found < 0)
        record(s, GPU__LD_CACHE_PATH, "%s: not read: not a loader cache in glibc's format", GPU__LD_CACHE_PATH);
    else if (found == 0)
        record(s, GPU__LD_CACHE_PATH, "%s: lists no " LIBCUDA_SONAME " for this machine", GPU__LD_CACHE_PATH);
    for (int i = 0; !handle && i < found; i++)
        handle = try_candidate(s, paths[i], RTLD_NOW | RTLD_LOCAL, paths[i]);
    free(data);
    return handle;
}

/*
 * Each folder of `list` (`count` of them; or, when `list` is NULL, the
 * colon-separated `text`), the folders that hold no libcuda.so.1 said in one
 * attempt labelled `what`.
 */
static void *try_folders(struct search *s, const char *const *list, size_t count, const char *text, const char *what)
{
    char dir[PATH_MAX], none[WHY_BYTES];
    struct gpu__text t = {none, sizeof(none), 0};
    size_t absent_count = 0, named = 0;
    void *handle = NULL;

    gpu__text_add(&t, "%s: no " LIBCUDA_SONAME " in", what);
    for (size_t i = 0; !handle && (list ? i < count : *text); i++) {
        bool absent = false;

        if (list) {
            snprintf(dir, sizeof(dir), "%s", list[i]);
        } else {
            size_t len = strcspn(text, ":");

            snprintf(dir, sizeof(dir), "%.*s", (int)(len < sizeof(dir) ? len : sizeof(dir) - 1), text);
            text += len + (text[len] == ':');
            if (len == 0)
                continue;
            named++;
            if (len >= sizeof(dir) || dir[0] != '/') {
                record(s, dir, "%s: %s: %s", what, dir,
                       len >= sizeof(dir) ? "a folder's path is too long: not tried"
                                          : "not an absolute folder; gpushim does not search relative ones");
                continue;
            }
        }
        handle = try_in_folder(s, dir, &absent);
        if (absent)
            gpu__text_add(&t, "%s %s", absent_count++ ? "," : "", dir);
    }
    if (!handle && absent_count)
        gpu__attempt_add(s->tried, what, gpu__text_end(&t));
    /* A value of colons alone names nothing to search, in place of the folders it replaces: say so. */
    if (!list && !named)
        record(s, what, "%s: names no folder (it wants absolute folders, colon-separated); nothing was searched",
               what);
    return handle;
}

void gpu__driver_search(struct gpu__attempts *tried, char *choice, size_t choice_size, struct gpu__driver_found *out)
{
    struct search s = {.tried = tried};
    const char *dirs = gpu__env(GPU__LIBCUDA_DIRS_ENV);
    const char *where = NULL;
    size_t first = *tried->count;
    void *handle;

    /* A driver the process already has (the CUDA runtime's, PyTorch's) is the one to share. */
    handle = try_candidate(&s, LIBCUDA_SONAME, RTLD_NOW | RTLD_NOLOAD, LIBCUDA_SONAME " (already loaded)");
    if (handle)
        where = LIBCUDA_SONAME " was already loaded in this process: gpushim shares it";
    if (!handle && (handle = try_candidate(&s, LIBCUDA_SONAME, RTLD_NOW | RTLD_LOCAL, LIBCUDA_SONAME)))
        where = "the dynamic loader found it as " LIBCUDA_SONAME;
    /*
     * By name, the loader answers with the library already loaded under that
     * name, or the first file its search finds: when either is gpushim, the
     * driver is found only by its full path.
     */
    if (!handle && dirs) {
        handle = try_folders(&s, NULL, 0, dirs, GPU__LIBCUDA_DIRS_ENV);
        where = "found in a folder of " GPU__LIBCUDA_DIRS_ENV;
    } else if (!handle) {
        handle = try_cache(&s);
        where = GPU__LD_CACHE_PATH " lists it as " LIBCUDA_SONAME;
        if (!handle) {
            handle = try_folders(&s, usual_dirs, sizeof(usual_dirs) / sizeof(usual_dirs[0]), NULL,
                                 "the usual driver folders");
            where = "found in one of the usual driver folders";
        }
    }
    out->handle = handle;
    /* The chosen attempt is the last recorded, the one without an error, unless the report had no room for it. */
    out->label = NULL;
    if (handle)
        out->label = *tried->count > first && !tried->items[*tried->count - 1].error
                         ? tried->items[*tried->count - 1].path
                         : LIBCUDA_SONAME;
    out->only_gpushim = !handle && s.gpushim > 0 && s.other == 0;
    out->choice = NULL;
    if (handle) {
        size_t skipped = *tried->count - 1 - first;

        out->choice = gpu__text_printf(choice, choice_size, "%s%s", where,
                                       skipped ? "; the candidates before it were skipped (the attempts say why)" : "");
    }
}
