/* SPDX-License-Identifier: MIT */
/*
 * The loaders' report text (text.h).
 */
#include <stdio.h>
#include <string.h>

#include "text.h"

void gpu__text_add(struct gpu__text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(t->buf + (t->used < t->size ? t->used : t->size - 1), t->used < t->size ? t->size - t->used : 1,
                  fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n;
}

const char *gpu__text_end(struct gpu__text *t)
{
    if (t->used >= t->size) {
        char note[64];
        int n = snprintf(note, sizeof(note), " [... cut: %zu bytes in all]", t->used);

        memcpy(t->buf + t->size - 1 - (size_t)n, note, (size_t)n + 1);
    }
    return t->buf;
}

const char *gpu__text_vprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct gpu__text t = {buf, size, 0};
    int n = vsnprintf(buf, size, fmt, ap);

    t.used = n > 0 ? (size_t)n : 0;
    return gpu__text_end(&t);
}

const char *gpu__text_printf(char *buf, size_t size, const char *fmt, ...)
{
    const char *text;
    va_list ap;

    va_start(ap, fmt);
    text = gpu__text_vprintf(buf, size, fmt, ap);
    va_end(ap);
    return text;
}
