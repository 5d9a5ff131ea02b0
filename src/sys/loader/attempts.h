/* SPDX-License-Identifier: MIT */
/*
 * The libraries a loader tried to open, for its report: each path as given to
 * dlopen (or a label) and why it failed, in the loader's static buffers and
 * never cut silently (text.h). The driver's loader and NVRTC's share it.
 */
#ifndef GPUSHIM_SYS_ATTEMPTS_H
#define GPUSHIM_SYS_ATTEMPTS_H

#include <stddef.h>

#include "gpushim/driver.h"

/*
 * A report's attempt list and the storage behind its strings: `text` holds
 * 2 * max strings of text_size bytes (attempt i's path, then its error).
 */
struct gpu__attempts {
    gpu_load_attempt *items;
    char *text;
    size_t text_size;
    size_t max;
    size_t *count; /* the report's attempt_count */
};

/* Records one attempt; `error` NULL means it opened. Past `max`, attempts are not recorded. */
void gpu__attempt_add(struct gpu__attempts *a, const char *path, const char *error);

/*
 * dlopen(path, flags), recorded as `label` (NULL: the path); when it fails,
 * `why_not` (NULL: dlerror()'s text) is the error.
 */
void *gpu__attempt_open(struct gpu__attempts *a, const char *path, int flags, const char *label,
                        const char *why_not);

/*
 * The library that environment variable `var` names (`path`, its value),
 * dlopen(path, flags)'d where the path is absolute; a relative one is not
 * searched for, and is recorded as not tried, saying why.
 */
void *gpu__attempt_open_env(struct gpu__attempts *a, const char *var, const char *path, int flags);

struct gpu__text;

/* Appends " <error>; <error>; ..." (every attempt's) to a report's text. */
void gpu__attempt_list(const struct gpu__attempts *a, struct gpu__text *t);

#endif
