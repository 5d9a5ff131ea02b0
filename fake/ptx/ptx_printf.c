/* SPDX-License-Identifier: MIT */
/*
 * Device printf (vprintf): the format string lives in global memory, and
 * nvcc packs the arguments in the thread's local memory, each at its
 * natural alignment (ints and chars as 4 bytes, floats promoted to double,
 * pointers and 64-bit integers as 8). A call prints one whole line at once.
 * A failed assert prints its line as a GPU does.
 */
#include <stdio.h>
#include <string.h>

#include "ptx_internal.h"

/* The formats below are built from a conversion's flags, width and precision, checked one character at a time. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* A line's bytes; the largest width or precision (a wider one would be cut at the line's end anyway). */
enum { LINE_MAX_BYTES = 4096, MAX_FIELD = LINE_MAX_BYTES };

/* The next argument of `size` bytes, aligned; false past the buffer. */
static bool arg(const unsigned char *args, size_t max, size_t *at, size_t size, void *out)
{
    size_t a = (*at + size - 1) / size * size;

    if (!args || a > max || size > max - a)
        return false;
    memcpy(out, args + a, size);
    *at = a + size;
    return true;
}

/* A C string at a device address, copied into buf (at most size - 1 characters). */
static void device_string(struct ptx_mem *mem, uint64_t addr, char *buf, size_t size)
{
    const unsigned char *p = ptx_mem_global(mem, addr, 1);
    size_t n = 0, max;

    if (!p) {
        snprintf(buf, size, "(null)");
        return;
    }
    max = (size_t)(mem->hi - addr);
    while (n + 1 < size && n < max && p[n])
        n++;
    memcpy(buf, p, n);
    buf[n] = '\0';
}

/*
 * A width or a precision at *f, a number or `*` (the next argument), capped
 * at MAX_FIELD either way, as text in `out` (room for 8); its length. A
 * negative `*` width is left-justified, as C's is; a negative precision is none.
 */
static size_t field(const char **f, const unsigned char *args, size_t args_max, size_t *at, char *out)
{
    long long v = 0;
    bool given = false;

    if (**f == '*') {
        int32_t x = 0;

        arg(args, args_max, at, 4, &x);
        (*f)++;
        v = x;
        given = true;
    } else {
        for (; **f >= '0' && **f <= '9'; (*f)++) {
            if (v <= MAX_FIELD)
                v = v * 10 + (**f - '0');
            given = true;
        }
    }
    *out = '\0';
    if (!given)
        return 0;
    if (v < 0)
        v = v < -MAX_FIELD ? -MAX_FIELD : v;
    else if (v > MAX_FIELD)
        v = MAX_FIELD;
    return (size_t)snprintf(out, 8, "%lld", v);
}

int ptx_vprintf(struct ptx_mem *mem, uint64_t fmt_addr, const unsigned char *args, size_t args_max)
{
    char fmt[LINE_MAX_BYTES], out[LINE_MAX_BYTES];
    size_t o = 0, at = 0;
    const char *f;

    if (!ptx_mem_global(mem, fmt_addr, 1))
        return -2;
    device_string(mem, fmt_addr, fmt, sizeof(fmt));
    for (f = fmt; *f && o + 1 < sizeof(out);) {
        char spec[32], piece[LINE_MAX_BYTES];
        size_t sl = 0;
        int longs = 0, written = 0;
        char conv;

        if (*f != '%') {
            out[o++] = *f++;
            continue;
        }
        spec[sl++] = *f++;
        if (*f == '%') {
            out[o++] = '%';
            f++;
            continue;
        }
        /* Flags (each kept once), then a width and a precision, each a number or `*`, at most MAX_FIELD. */
        while (*f && strchr("-+ #0", *f)) {
            if (!memchr(spec, *f, sl))
                spec[sl++] = *f;
            f++;
        }
        sl += field(&f, args, args_max, &at, spec + sl);
        if (*f == '.') {
            f++;
            spec[sl++] = '.';
            if (field(&f, args, args_max, &at, spec + sl) && spec[sl] == '-')
                sl--; /* no precision */
            else
                sl += strlen(spec + sl);
        }
        while (*f && strchr("hlLzjt", *f)) {
            if (*f == 'l')
                longs++;
            if (*f == 'z' || *f == 'j' || *f == 't')
                longs = 2;
            f++;
        }
        conv = *f ? *f++ : '\0';
        spec[sl] = '\0';
        switch (conv) {
        case 'd':
        case 'i':
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            char full[48];
            long long v;

            snprintf(full, sizeof(full), "%sll%c", spec, conv == 'i' ? 'd' : conv);
            if (longs >= 1) {
                int64_t x = 0;

                arg(args, args_max, &at, 8, &x);
                v = x;
            } else {
                int32_t x = 0;

                arg(args, args_max, &at, 4, &x);
                v = conv == 'd' || conv == 'i' ? (long long)x : (long long)(uint32_t)x;
            }
            written = snprintf(piece, sizeof(piece), full, v);
            break;
        }
        case 'c': {
            char full[48];
            int32_t x = 0;

            arg(args, args_max, &at, 4, &x);
            snprintf(full, sizeof(full), "%sc", spec);
            written = snprintf(piece, sizeof(piece), full, (int)x);
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            char full[48];
            double v = 0;

            arg(args, args_max, &at, 8, &v);
            snprintf(full, sizeof(full), "%s%c", spec, conv);
            written = snprintf(piece, sizeof(piece), full, v);
            break;
        }
        case 's': {
            char full[48];
            uint64_t p = 0;
            char str[LINE_MAX_BYTES / 2];

            arg(args, args_max, &at, 8, &p);
            device_string(mem, p, str, sizeof(str));
            snprintf(full, sizeof(full), "%ss", spec);
            written = snprintf(piece, sizeof(piece), full, str);
            break;
        }
        case 'p': {
            uint64_t p = 0;

            arg(args, args_max, &at, 8, &p);
            written = snprintf(piece, sizeof(piece), "0x%llx", (unsigned long long)p);
            break;
        }
        default:
            written = snprintf(piece, sizeof(piece), "%s%c", spec, conv);
            break;
        }
        if (written > 0) {
            size_t n = (size_t)written < sizeof(piece) ? (size_t)written : sizeof(piece) - 1;

            if (n > sizeof(out) - 1 - o)
                n = sizeof(out) - 1 - o;
            memcpy(out + o, piece, n);
            o += n;
        }
    }
    out[o] = '\0';
    flockfile(stdout);
    fputs(out, stdout);
    fflush(stdout);
    funlockfile(stdout);
    return (int)o;
}

void ptx_assertfail(struct ptx_mem *mem, uint64_t message, uint64_t file, uint32_t line, uint64_t function,
                    const unsigned block[3], const unsigned thread[3])
{
    char m[512], f[512], fn[512];

    device_string(mem, message, m, sizeof(m));
    device_string(mem, file, f, sizeof(f));
    device_string(mem, function, fn, sizeof(fn));
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", f, line, fn,
            block[0], block[1], block[2], thread[0], thread[1], thread[2], m);
}
