/* SPDX-License-Identifier: MIT */
/*
 * The loaders' report text, in static buffers (no heap: a plugin that embeds
 * libgpushim.a may be unloaded, and nothing may leak or dangle then). Text
 * that does not fit is never cut silently: its last bytes say that it was
 * cut and how long it was. Also the loaders' clock.
 */
#ifndef GPUSHIM_SYS_TEXT_H
#define GPUSHIM_SYS_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "error.h"

/* Text built into `buf` (of `size` bytes) by gpu__text_add(); `used` counts what was asked for. */
struct gpu__text {
    char *buf;
    size_t size, used;
};

/* Appends to the text; what does not fit is counted, for gpu__text_end(). */
GPU__PRINTF(2, 3) void gpu__text_add(struct gpu__text *t, const char *fmt, ...);

/* Ends the text and returns it: if it ran past its buffer, the last bytes say so and how long it was. */
const char *gpu__text_end(struct gpu__text *t);

/* The formatted text in buf[0..size), ended as gpu__text_end() ends it. */
GPU__PRINTF(3, 0) const char *gpu__text_vprintf(char *buf, size_t size, const char *fmt, va_list ap);
GPU__PRINTF(3, 4) const char *gpu__text_printf(char *buf, size_t size, const char *fmt, ...);

/* CLOCK_MONOTONIC in nanoseconds: the loaders' stage times, the trace's timestamps. */
static inline uint64_t gpu__now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
