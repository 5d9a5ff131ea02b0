/* SPDX-License-Identifier: MIT */
/*
 * Whether a program's output may depend on files on disk, which its cache key
 * cannot cover: NVRTC reports no dependencies, so gpushim looks for every way
 * a compile reads a file and, finding one, skips the cache for that program.
 *
 * The ways: an option that names a folder or file to read (-I, --include-path,
 * -include, --pre-include, the precompiled-header options), and in the source
 * or an in-memory header an #include, #include_next, #import or #embed of a
 * name that is not an in-memory header (NVRTC looks for those beside the
 * program's name and in the include paths), a computed one (a macro, which
 * could be anything), or __has_include / __has_include_next / __has_embed of
 * such a name (the answer depends on the disk). The scan errs on the side of
 * skipping: a directive it cannot rule out, in a comment or a raw string
 * included, counts.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program_disk.h"

static bool is_ident(char c, bool first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* The text with its line splices (backslash, newline) removed, as the preprocessor sees it; NULL when out of memory. */
static char *spliced(const char *text)
{
    size_t n = strlen(text), j = 0;
    char *out = malloc(n + 1);

    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\\' && text[i + 1] == '\n') {
            i++;
            continue;
        }
        if (text[i] == '\\' && text[i + 1] == '\r' && text[i + 2] == '\n') {
            i += 2;
            continue;
        }
        out[j++] = text[i];
    }
    out[j] = '\0';
    return out;
}

/* Whether what comes before `at` (skipping blanks and block comments) is a directive's #, %: or ??=. */
static bool after_hash(const char *text, const char *at)
{
    const char *p = at;

    for (;;) {
        while (p > text && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\v' || p[-1] == '\f'))
            p--;
        if (p - text >= 2 && p[-1] == '/' && p[-2] == '*') {
            const char *q = p - 2;

            while (q - text >= 2 && !(q[-2] == '/' && q[-1] == '*'))
                q--;
            if (q - text < 2)
                return false;
            p = q - 2;
            continue;
        }
        break;
    }
    return (p > text && p[-1] == '#') || (p - text >= 2 && p[-2] == '%' && p[-1] == ':') ||
           (p - text >= 3 && p[-3] == '?' && p[-2] == '?' && p[-1] == '=');
}

/* Skips blanks and block comments forward. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\v' || *p == '\f')
            p++;
        if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");

            if (!end)
                return p + strlen(p);
            p = end + 2;
            continue;
        }
        return p;
    }
}

static bool in_memory(const char *name, size_t len, const gpu__program_headers *h)
{
    for (size_t i = 0; i < h->count; i++)
        if (strlen(h->names[i]) == len && memcmp(h->names[i], name, len) == 0)
            return true;
    return false;
}

/*
 * At `p`, a header name ("name" or <name>) for `what`: fine when it is an
 * in-memory header; otherwise the reason goes to `why` and true is returned.
 */
static bool names_disk(const char *p, const char *what, const char *in, const gpu__program_headers *h, char *why,
                       size_t why_size)
{
    char close = *p == '"' ? '"' : *p == '<' ? '>' : '\0';
    const char *end = close ? strchr(p + 1, close) : NULL;
    const char *newline = close ? strchr(p + 1, '\n') : NULL;

    if (!end || (newline && newline < end)) {
        snprintf(why, why_size, "%s %s names its file through a macro, which may be a file on disk", in, what);
        return true;
    }
    if (in_memory(p + 1, (size_t)(end - p - 1), h))
        return false;
    snprintf(why, why_size, "%s %s %.*s: not an in-memory header, so a file on disk", in, what, (int)(end - p + 1), p);
    return true;
}

static bool text_reads_disk(const char *text, const char *in, const gpu__program_headers *h, char *why,
                            size_t why_size)
{
    static const char *const directives[] = {"include", "include_next", "import", "embed"};
    static const char *const queries[] = {"__has_include", "__has_include_next", "__has_embed"};

    for (const char *p = text; *p; p++) {
        const char *start = p, *next;
        size_t len;
        bool directive = false, query = false;

        if (!is_ident(*p, true) || (p > text && is_ident(p[-1], false)))
            continue;
        while (is_ident(*p, false))
            p++;
        len = (size_t)(p - start);
        for (size_t i = 0; i < sizeof(directives) / sizeof(directives[0]); i++)
            directive |= strlen(directives[i]) == len && memcmp(start, directives[i], len) == 0;
        for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
            query |= strlen(queries[i]) == len && memcmp(start, queries[i], len) == 0;
        next = skip_blank(p);
        if (directive && (after_hash(text, start) || (len == 6 && memcmp(start, "import", 6) == 0 && (*next == '"' || *next == '<')))) {
            char what[32];

            snprintf(what, sizeof(what), "#%.*s", (int)len, start);
            if (names_disk(next, what, in, h, why, why_size))
                return true;
        } else if (query) {
            char what[32];

            snprintf(what, sizeof(what), "%.*s", (int)len, start);
            if (*next != '(' || names_disk(skip_blank(next + 1), what, in, h, why, why_size)) {
                if (*next != '(')
                    snprintf(why, why_size, "%s %s asks about a file on disk", in, what);
                return true;
            }
        }
        p--;
    }
    return false;
}

/* An NVRTC option that makes the compile read a file or folder named on the command line. */
static bool option_reads_disk(const char *o)
{
    static const char *const prefixes[] = {"-I", "--include-path", "-include", "--pre-include", "-pch", "--pch",
                                           "-use-pch", "--use-pch", "-create-pch", "--create-pch"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(o, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

gpu__disk_use gpu__program_reads_disk(const char *source, const gpu__program_headers *h, const char *const *options,
                                      size_t option_count, char *why, size_t why_size)
{
    char in[96];

    for (size_t i = 0; i < option_count; i++)
        if (option_reads_disk(options[i])) {
            snprintf(why, why_size, "the option \"%s\" reads from disk", options[i]);
            return GPU__DISK_READ;
        }
    for (size_t i = 0; i <= h->count; i++) {
        char *text = spliced(i == 0 ? source : h->sources[i - 1]);
        bool reads;

        if (!text)
            return GPU__DISK_NO_MEMORY;
        if (i == 0)
            snprintf(in, sizeof(in), "the source's");
        else
            snprintf(in, sizeof(in), "the header %.64s's", h->names[i - 1]);
        reads = text_reads_disk(text, in, h, why, why_size);
        free(text);
        if (reads)
            return GPU__DISK_READ;
    }
    return GPU__DISK_NONE;
}
