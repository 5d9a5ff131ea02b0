/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "info_json.h"

size_t info_utf8_sequence(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0; /* a continuation byte, an overlong lead (c0, c1) or past U+10FFFF (f5-ff) */
    /* The second byte's range rules out overlong forms, surrogates and code points past U+10FFFF. */
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

void info_json_string_n(FILE *f, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;

    fputc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned char c = p[i];
        size_t n = info_utf8_sequence(p + i, len - i);

        if (n == 0) {
            fputs("\\ufffd", f);
            i++;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fwrite(p + i, 1, n, f);
        i += n;
    }
    fputc('"', f);
}

void info_json_string(FILE *f, const char *s)
{
    if (!s)
        fputs("null", f);
    else
        info_json_string_n(f, s, strlen(s));
}

void info_json_bool(FILE *f, bool b)
{
    fputs(b ? "true" : "false", f);
}
