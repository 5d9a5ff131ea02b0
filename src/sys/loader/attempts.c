/* SPDX-License-Identifier: MIT */
/*
 * The loaders' record of what they tried to open (see attempts.h).
 */
#include <dlfcn.h>
#include <limits.h>

#include "attempts.h"
#include "base/text.h"

void gpu__attempt_add(struct gpu__attempts *a, const char *path, const char *error)
{
    size_t i = *a->count;
    char *text;

    if (i >= a->max)
        return;
    text = a->text + 2 * i * a->text_size;
    a->items[i].path = gpu__text_printf(text, a->text_size, "%s", path);
    a->items[i].error = error ? gpu__text_printf(text + a->text_size, a->text_size, "%s", error) : NULL;
    *a->count = i + 1;
}

void *gpu__attempt_open(struct gpu__attempts *a, const char *path, int flags, const char *label,
                        const char *why_not)
{
    void *handle;
    const char *err;

    dlerror();
    handle = dlopen(path, flags);
    err = handle ? NULL : why_not ? why_not : dlerror();
    gpu__attempt_add(a, label ? label : path, handle ? NULL : (err ? err : "dlopen failed"));
    return handle;
}

void *gpu__attempt_open_env(struct gpu__attempts *a, const char *var, const char *path, int flags)
{
    char why[PATH_MAX + 512];

    if (path[0] == '/')
        return gpu__attempt_open(a, path, flags, NULL, NULL);
    gpu__attempt_add(a, path,
                     gpu__text_printf(why, sizeof(why), "%s=%s is not an absolute path; gpushim does not search for it",
                                      var, path));
    return NULL;
}

void gpu__attempt_list(const struct gpu__attempts *a, struct gpu__text *t)
{
    for (size_t i = 0; i < *a->count; i++)
        gpu__text_add(t, "%s %s", i ? ";" : "", a->items[i].error);
}
