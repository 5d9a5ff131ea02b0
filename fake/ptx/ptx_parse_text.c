/* SPDX-License-Identifier: MIT */
/* The PTX decoder's text: growing arrays, errors, words, statements and blocks skipped, numbers and types. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_decode.h"

const struct ptx_type_info ptx_types[T_COUNT] = {
    [T_NONE] = {"", 0, K_BITS},        [T_B8] = {"b8", 1, K_BITS},       [T_B16] = {"b16", 2, K_BITS},
    [T_B32] = {"b32", 4, K_BITS},      [T_B64] = {"b64", 8, K_BITS},     [T_B128] = {"b128", 16, K_BITS},
    [T_U8] = {"u8", 1, K_UNSIGNED},    [T_U16] = {"u16", 2, K_UNSIGNED}, [T_U32] = {"u32", 4, K_UNSIGNED},
    [T_U64] = {"u64", 8, K_UNSIGNED},  [T_S8] = {"s8", 1, K_SIGNED},     [T_S16] = {"s16", 2, K_SIGNED},
    [T_S32] = {"s32", 4, K_SIGNED},    [T_S64] = {"s64", 8, K_SIGNED},   [T_F16] = {"f16", 2, K_FLOAT},
    [T_F16X2] = {"f16x2", 4, K_FLOAT}, [T_BF16] = {"bf16", 2, K_FLOAT},  [T_BF16X2] = {"bf16x2", 4, K_FLOAT},
    [T_F32] = {"f32", 4, K_FLOAT},     [T_F64] = {"f64", 8, K_FLOAT},    [T_PRED] = {"pred", 1, K_PRED},
};

bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t n = *cap ? *cap : 16;
    void *q;

    if (need <= *cap)
        return true;
    while (n < need)
        n *= 2;
    if (!(q = realloc(*p, n * elem)))
        return false;
    *p = q;
    *cap = n;
    return true;
}

/* "PTX line N: " and the formatted reason into `out`, unless it holds one already. */
static void reason(char *out, size_t size, unsigned line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void reason(char *out, size_t size, unsigned line, const char *fmt, va_list ap)
{
    char what[150];

    if (out[0])
        return;
    vsnprintf(what, sizeof(what), fmt, ap);
    snprintf(out, size, "PTX line %u: %s", line, what);
}

/* The formatted reason into buffer `out` of the decoder, after "PTX line N: ", unless it holds one already. */
#define REASON(out, line, fmt)                                                                                         \
    do {                                                                                                               \
        va_list ap;                                                                                                    \
                                                                                                                       \
        va_start(ap, fmt);                                                                                             \
        reason(out, sizeof(out), line, fmt, ap);                                                                       \
        va_end(ap);                                                                                                    \
    } while (0)

/* The function's error: the first reason is kept. Returns false. */
bool errf(struct decoder *d, unsigned line, const char *fmt, ...)
{
    REASON(d->err, line, fmt);
    return false;
}

/* Refuses the module: the first reason is kept; decoding stops. Returns false. */
bool fatalf(struct decoder *d, unsigned line, const char *fmt, ...)
{
    REASON(d->fatal, line, fmt);
    return false;
}

/* Skips a string whose `"` is next: to its closing `"` or the end of its line, `\"` passed over. */
static void skip_string(struct decoder *d)
{
    for (d->p++; *d->p && *d->p != '"' && *d->p != '\n'; d->p++)
        d->p += d->p[0] == '\\' && d->p[1] && d->p[1] != '\n';
    if (*d->p == '"')
        d->p++;
    else if (!d->open_string)
        d->open_string = d->line;
}


/* The next character outside space, comments and strings (strings passed over); 0 at the end of the text. */
static char next_char(struct decoder *d)
{
    for (;;) {
        skip_space(d);
        if (*d->p != '"')
            return *d->p;
        skip_string(d);
    }
}

/*
 * Skips to the `;` ending a statement, bracketed parts passed over; with
 * `body`, a function's header (one bracket it left open counts as closed)
 * ends at a `;` or through the { } body that follows it. False at the end
 * of the text.
 */
bool skip_statement(struct decoder *d, bool body)
{
    int depth = 0;

    for (;;) {
        if (!next_char(d))
            return false;
        if (*d->p == ';' && depth <= 0) {
            d->p++;
            return true;
        }
        if (body && *d->p == '{' && depth <= 0) {
            d->p++;
            return skip_block(d, true);
        }
        depth += *d->p == '(' || *d->p == '[' || *d->p == '{';
        depth -= *d->p == ')' || *d->p == ']' || *d->p == '}';
        d->p++;
    }
}

/* Skips a { } block whose { is next (or already read when `open`); false when the text ends inside it. */
bool skip_block(struct decoder *d, bool open)
{
    int depth = open ? 1 : 0;

    if (!open && !accept(d, '{'))
        return true;
    if (!open)
        depth = 1;
    while (depth > 0) {
        if (!next_char(d))
            return false;
        depth += *d->p == '{';
        depth -= *d->p == '}';
        d->p++;
    }
    return true;
}

bool parse_uint(const char *s, size_t len, unsigned long long *out)
{
    char buf[40];
    char *end;

    if (len == 0 || len >= sizeof(buf) || s[0] < '0' || s[0] > '9')
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    *out = strtoull(buf, &end, 0);
    return *end == '\0' || (end[0] == 'U' && end[1] == '\0');
}

enum ptx_type type_of(const char *s, size_t len)
{
    for (int t = T_B8; t < T_COUNT; t++)
        if (is(s, len, ptx_types[t].name))
            return (enum ptx_type)t;
    return T_NONE;
}
