/* SPDX-License-Identifier: MIT */
/*
 * A small JSON writer for gpushim-info (and any tool section that prints
 * JSON): every string it writes is valid UTF-8 JSON, whatever bytes it is
 * given. Valid UTF-8 passes through; each byte that does not start a valid
 * sequence becomes \ufffd; '"', '\\' and control characters are escaped.
 * Each function writes to `f` and returns nothing: the caller checks
 * ferror(f) once, at the end.
 */
#ifndef GPUSHIM_INFO_JSON_H
#define GPUSHIM_INFO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* `s` as a JSON string; NULL as null. */
void info_json_string(FILE *f, const char *s);

/* The first `len` bytes of `s` as a JSON string (NUL bytes become \u0000). */
void info_json_string_n(FILE *f, const char *s, size_t len);

/* true or false. */
void info_json_bool(FILE *f, bool b);

/* How many bytes of valid UTF-8 start `s` (1 to 4), or 0 if `s[0]` starts none; `avail` bytes are readable. */
size_t info_utf8_sequence(const unsigned char *s, size_t avail);

#endif
