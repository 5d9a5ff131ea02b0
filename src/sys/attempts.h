/*
 * The libraries a loader tried to open, for its report: each path as given to
 * dlopen (or a label) and why it failed. The driver's loader and NVRTC's
 * share it.
 */
#ifndef GPUSHIM_SYS_ATTEMPTS_H
#define GPUSHIM_SYS_ATTEMPTS_H

#include <stddef.h>

#include "gpushim/driver.h"

enum { GPU__ATTEMPT_TEXT_MAX = 1024 };

/* A report's attempt list and the storage behind its strings; static, filled during the load. */
struct gpu__attempts {
    gpu_load_attempt *items;
    char (*text)[2][GPU__ATTEMPT_TEXT_MAX]; /* [i][0] the path, [i][1] the error */
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

/* "<lead> <error>; <error>; ..." into message[0..size). */
void gpu__attempt_describe(const struct gpu__attempts *a, const char *lead, char *message, size_t size);

#endif
