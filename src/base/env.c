/* SPDX-License-Identifier: MIT */
/*
 * Environment variables: one parser for every value gpushim reads (see env.h).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "env.h"

const char *gpu__env(const char *name)
{
    const char *v = secure_getenv(name);

    return v && v[0] ? v : NULL;
}

const char *gpu__env_raw(const char *name)
{
    return secure_getenv(name);
}

void gpu__env_warn_once(void *once, const char *warning)
{
    if (!atomic_flag_test_and_set((atomic_flag *)once))
        fprintf(stderr, "gpushim: %s\n", warning);
}

bool gpu__env_parse_switch(const char *text, bool *on)
{
    static const char *const yes[] = {"1", "on", "true", "yes"};
    static const char *const no[] = {"0", "off", "false", "no"};

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(text, yes[i]) == 0) {
            *on = true;
            return true;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *on = false;
            return true;
        }
    }
    return false;
}

bool gpu__env_parse_count(const char *text, unsigned long long min, unsigned long long max, unsigned long long *out)
{
    unsigned long long v = 0;

    if (!text[0])
        return false;
    for (const char *p = text; *p; p++) {
        unsigned d = (unsigned)(*p - '0');

        if (*p < '0' || *p > '9' || v > (~0ull - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool gpu__env_switch(const char *name, bool fallback, const char *fallback_says, char *warning, size_t warning_size)
{
    const char *v = gpu__env(name);
    bool on = fallback;

    if (v && !gpu__env_parse_switch(v, &on))
        snprintf(warning, warning_size, "%s=%s is not 0 or 1 (nor off/on, false/true, no/yes); %s", name, v,
                 fallback_says);
    return on;
}

unsigned long long gpu__env_count(const char *name, unsigned long long min, unsigned long long max,
                                  unsigned long long fallback, char *warning, size_t warning_size)
{
    const char *v = gpu__env(name);
    unsigned long long n = fallback;

    if (v && !gpu__env_parse_count(v, min, max, &n))
        snprintf(warning, warning_size, "%s=%s is not a number from %llu to %llu (digits alone); using %llu", name,
                 v, min, max, fallback);
    return n;
}

const char *gpu__env_path(const char *name, char *warning, size_t warning_size)
{
    const char *v = gpu__env(name);

    if (v && v[0] != '/') {
        snprintf(warning, warning_size, "%s=%s is not an absolute path", name, v);
        return NULL;
    }
    return v;
}
