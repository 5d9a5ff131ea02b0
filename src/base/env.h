/* SPDX-License-Identifier: MIT */
/*
 * The one reader of gpushim's environment variables (and the fake driver's).
 *
 * Every variable is read with secure_getenv (nothing in a set-user-ID or
 * set-group-ID program), and every value is parsed here: a switch is 0 or 1
 * (also off/on, false/true, no/yes, in any case), a number is decimal digits
 * (a '-' first only where its range has negative numbers; no '+', space or
 * other suffix) within its range, a byte count may end in K, M or G, a path
 * is absolute. A value that is none of these is not guessed at: libgpushim's
 * caller gets its fallback and a warning naming the variable and the value;
 * the fake driver's cuInit fails with such a message (fake/fake_core.c).
 */
#ifndef GPUSHIM_ENV_H
#define GPUSHIM_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* The variable's value; NULL when it is unset or empty. */
const char *gpu__env(const char *name);

/* The value as set, "" included; NULL when unset: for a variable whose being set at all decides (GPUSHIM_LIBCUDA). */
const char *gpu__env_raw(const char *name);

/* Prints "gpushim: " and `warning` on stderr, once per `*once` flag (an atomic_flag of the caller's). */
void gpu__env_warn_once(void *once, const char *warning);

/* `text` as a switch into *on; false (and *on untouched) when it is none. */
bool gpu__env_parse_switch(const char *text, bool *on);

/* What may follow a number's digits. */
enum gpu__env_unit {
    GPU__ENV_UNIT_NONE,  /* nothing: digits alone */
    GPU__ENV_UNIT_BYTES, /* an optional K, M or G: times 1024, 1024^2, 1024^3 */
};

/*
 * `text` as a whole number from `lo` to `hi` (lo <= hi) in `unit` into *out:
 * the one number parser. False (and *out untouched) for anything else: an
 * empty text, a sign where the range has no negative numbers, a '+', a space,
 * junk after the digits, a value (after its unit) out of range or past 64 bits.
 */
bool gpu__env_number(const char *text, long long lo, long long hi, enum gpu__env_unit unit, long long *out);

/*
 * What gpu__env_number accepts, in words, into `buf` (returned): e.g. "a
 * whole number from 0 to 86400 (decimal digits alone)".
 */
const char *gpu__env_number_accepted(long long lo, long long hi, enum gpu__env_unit unit, char *buf, size_t size);

/* `text` as a count from `min` to `max` into *out (gpu__env_number's digits, unsigned); false (and *out untouched) when it is none. */
bool gpu__env_parse_count(const char *text, unsigned long long min, unsigned long long max, unsigned long long *out);

/*
 * The variable as a switch; `fallback` when it is unset, empty or no switch,
 * the last with "NAME=VALUE is not 0 or 1 ...; DOING" in `warning`, where
 * `fallback_says` is DOING (e.g. "the cache stays on").
 */
bool gpu__env_switch(const char *name, bool fallback, const char *fallback_says, char *warning, size_t warning_size);

/* The variable as a count from `min` to `max`; `fallback` as gpu__env_switch's. */
unsigned long long gpu__env_count(const char *name, unsigned long long min, unsigned long long max,
                                  unsigned long long fallback, char *warning, size_t warning_size);

/* The variable as an absolute path; NULL when unset or empty, and NULL with a warning when it is relative. */
const char *gpu__env_path(const char *name, char *warning, size_t warning_size);

#endif
