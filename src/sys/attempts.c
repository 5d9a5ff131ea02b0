/*
 * The loaders' record of what they tried to open (see attempts.h).
 */
#include <dlfcn.h>
#include <stdio.h>

#include "attempts.h"

void gpu__attempt_add(struct gpu__attempts *a, const char *path, const char *error)
{
    size_t i = *a->count;

    if (i >= a->max)
        return;
    snprintf(a->text[i][0], sizeof(a->text[i][0]), "%s", path);
    a->items[i].path = a->text[i][0];
    a->items[i].error = NULL;
    if (error) {
        snprintf(a->text[i][1], sizeof(a->text[i][1]), "%s", error);
        a->items[i].error = a->text[i][1];
    }
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

void gpu__attempt_describe(const struct gpu__attempts *a, const char *lead, char *message, size_t size)
{
    size_t used = (size_t)snprintf(message, size, "%s", lead);

    for (size_t i = 0; i < *a->count && used < size; i++)
        used += (size_t)snprintf(message + used, size - used, "%s %s", i ? ";" : "", a->items[i].error);
}
