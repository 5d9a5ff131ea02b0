/* SPDX-License-Identifier: MIT */
/* The libraries gpushim's tools put in front of a program (tool_layout.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool_layout.h"

/* The library folder as seen from the installed tool's folder (tools/meson.build). */
#ifndef GPUSHIM_TOOL_LIBDIR
#define GPUSHIM_TOOL_LIBDIR "../lib"
#endif

/* This program's folder, from /proc/self/exe. */
static bool own_folder(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    char *slash;

    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    out[n] = '\0';
    slash = strrchr(out, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return true;
}

/* The canonical path of `format`'s text into `out` (PATH_MAX bytes) when it names something readable. */
__attribute__((format(printf, 2, 3))) static bool found(char *out, const char *format, ...)
{
    char path[PATH_MAX];
    va_list ap;
    int n;

    va_start(ap, format);
    n = vsnprintf(path, sizeof(path), format, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0 && realpath(path, out) != NULL;
}

bool tool_layout_find(struct tool_layout *l)
{
    char self[PATH_MAX], probe[PATH_MAX];
    const char *cuda, *fake, *cudart;

    *l = (struct tool_layout){0};
    if (!own_folder(self, sizeof(self)))
        return false;
    l->installed = found(probe, "%s/%s/gpushim/cuda/libcuda.so.1", self, GPUSHIM_TOOL_LIBDIR);
    if (l->installed) {
        cuda = GPUSHIM_TOOL_LIBDIR "/gpushim/cuda";
        fake = GPUSHIM_TOOL_LIBDIR "/libgpushim-fakecuda.so";
        cudart = GPUSHIM_TOOL_LIBDIR "/gpushim/cudart";
    } else {
        /* src/meson.build makes src/gpushim/cuda, the installed folder's twin: its $ORIGIN/../.. is src/. */
        if (!found(probe, "%s/../src/gpushim/cuda/libcuda.so.1", self))
            return false;
        cuda = "../src/gpushim/cuda";
        fake = "../fake/libgpushim-fakecuda.so";
        cudart = "../cudart";
    }
    if (!found(l->cuda_dir, "%s/%s", self, cuda))
        return false;
    if (!found(l->fake, "%s/%s", self, fake))
        l->fake[0] = '\0';
    if (!found(probe, "%s/%s/libcudart.so.13", self, cudart) || !found(l->cudart_dir, "%s/%s", self, cudart))
        l->cudart_dir[0] = '\0';
    return true;
}

bool tool_env_prepend(const char *var, const char *front)
{
    const char *old = getenv(var);
    char *value = NULL;
    bool ok;

    if (asprintf(&value, "%s%s%s", front, old && *old ? ":" : "", old && *old ? old : "") < 0)
        return false;
    ok = setenv(var, value, 1) == 0;
    free(value);
    return ok;
}
