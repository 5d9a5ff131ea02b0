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

/* The decimal digits from `text` up to `end` (at least one, nothing else) into *v; false past 64 bits. */
static bool digits(const char *text, const char *end, unsigned long long *v)
{
    *v = 0;
    if (text == end)
        return false;
    for (const char *p = text; p < end; p++) {
        unsigned d = (unsigned)(*p - '0');

        if (*p < '0' || *p > '9' || *v > (~0ull - d) / 10)
            return false;
        *v = *v * 10 + d;
    }
    return true;
}

bool gpu__env_parse_count(const char *text, unsigned long long min, unsigned long long max, unsigned long long *out)
{
    unsigned long long v;

    if (!digits(text, text + strlen(text), &v) || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool gpu__env_number(const char *text, long long lo, long long hi, enum gpu__env_unit unit, long long *out)
{
    const char *end = text + strlen(text);
    bool negative = text[0] == '-' && lo < 0;
    unsigned shift = 0;
    unsigned long long magnitude, most;
    long long v;

    if (lo > hi)
        return false;
    if (unit == GPU__ENV_UNIT_BYTES && end > text && strchr("KMG", end[-1])) {
        shift = end[-1] == 'K' ? 10 : end[-1] == 'M' ? 20 : 30;
        end--;
    }
    if (!digits(text + negative, end, &magnitude) || magnitude > (~0ull >> shift))
        return false;
    magnitude <<= shift;
    if (negative) {
        /* -(lo + 1) + 1 is lo's magnitude, which LLONG_MIN's is too. */
        most = (unsigned long long)(-(lo + 1)) + 1;
        if (magnitude > most || (magnitude > 0 && hi < 0 && magnitude - 1 < (unsigned long long)(-(hi + 1))))
            return false;
        v = magnitude == 0 ? 0 : -(long long)(magnitude - 1) - 1;
        if (v > hi)
            return false;
        *out = v;
        return true;
    }
    if (hi < 0 || magnitude > (unsigned long long)hi || (lo > 0 && magnitude < (unsigned long long)lo))
        return false;
    *out = (long long)magnitude;
    return true;
}

const char *gpu__env_number_accepted(long long lo, long long hi, enum gpu__env_unit unit, char *buf, size_t size)
{
    if (unit == GPU__ENV_UNIT_BYTES)
        snprintf(buf, size, "a byte count from %lld to %lld (decimal digits, then nothing for bytes or K, M or G for "
                 "KiB, MiB or GiB)", lo, hi);
    else
        snprintf(buf, size, "a whole number from %lld to %lld (%s)", lo, hi,
                 lo < 0 ? "decimal digits, '-' first for a negative one" : "decimal digits alone");
    return buf;
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
