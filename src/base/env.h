/* SPDX-License-Identifier: MIT */
/*
 * The one reader of gpushim's environment variables (and the fake driver's).
 *
 * Every variable is read with secure_getenv (nothing in a set-user-ID or
 * set-group-ID program), and every value is parsed here: a switch is 0 or 1
 * (also off/on, false/true, no/yes, in any case), a count is decimal digits
 * alone (no sign, space or suffix) within its range, a path is absolute. A
 * value that is none of these is not guessed at: the caller gets its fallback
 * and a warning naming the variable and the value.
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

/* `text` as a count from `min` to `max` into *out; false (and *out untouched) when it is none. */
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
