/* SPDX-License-Identifier: MIT */
/*
 * The JSON writer (tools/info_json.c): any bytes in, a valid JSON string out,
 * checked here by a decoder of its own: only the escapes JSON has, no raw
 * control character, valid UTF-8 (checked by code point, not by the writer's
 * table). Input that was valid UTF-8 must decode back to itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info_json.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz-json: %s\n", what);
        abort();
    }
}

/* Decodes one UTF-8 character at p (n bytes left): its length, or 0 if invalid. */
static size_t decode_utf8(const unsigned char *p, size_t n)
{
    unsigned long cp;
    size_t len;

    if (p[0] < 0x80)
        return 1;
    if ((p[0] & 0xe0) == 0xc0)
        len = 2, cp = p[0] & 0x1f;
    else if ((p[0] & 0xf0) == 0xe0)
        len = 3, cp = p[0] & 0x0f;
    else if ((p[0] & 0xf8) == 0xf0)
        len = 4, cp = p[0] & 0x07;
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
        return 0; /* overlong */
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

static int hex(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char *out = NULL;
    size_t out_size = 0, back_len = 0;
    FILE *f = open_memstream(&out, &out_size);
    unsigned char *back;
    int input_valid = 1;
    const unsigned char *p;

    check(f != NULL, "open_memstream");
    info_json_string_n(f, (const char *)data, size);
    check(fclose(f) == 0, "the writer's stream failed");
    for (size_t i = 0; i < size;) {
        size_t n = decode_utf8(data + i, size - i);

        if (!n) {
            input_valid = 0;
            break;
        }
        i += n;
    }
    p = (const unsigned char *)out;
    check(out_size >= 2 && p[0] == '"' && p[out_size - 1] == '"', "not a quoted string");
    back = malloc(out_size);
    check(back != NULL, "out of memory");
    for (size_t i = 1; i < out_size - 1;) {
        if (p[i] == '\\') {
            unsigned v = 0;

            check(i + 1 < out_size - 1, "an escape at the end");
            switch (p[i + 1]) {
            case '"':
            case '\\':
            case '/':
                back[back_len++] = p[i + 1];
                i += 2;
                continue;
            case 'n':
                back[back_len++] = '\n';
                i += 2;
                continue;
            case 't':
                back[back_len++] = '\t';
                i += 2;
                continue;
            case 'u':
                check(i + 5 < out_size - 1, "a short \\u escape");
                for (int k = 2; k < 6; k++) {
                    check(hex(p[i + k]) >= 0, "a \\u escape that is not hex");
                    v = v << 4 | (unsigned)hex(p[i + k]);
                }
                check(v < 0x80 || v == 0xfffd, "an escape the writer has no reason to write");
                if (v == 0xfffd) {
                    back[back_len++] = 0xef, back[back_len++] = 0xbf, back[back_len++] = 0xbd;
                } else {
                    back[back_len++] = (unsigned char)v;
                }
                i += 6;
                continue;
            default:
                check(0, "an escape JSON does not have");
            }
        }
        check(p[i] >= 0x20 && p[i] != '"', "a raw control character or quote inside the string");
        {
            size_t n = decode_utf8(p + i, out_size - 1 - i);

            check(n != 0, "the output is not valid UTF-8");
            memcpy(back + back_len, p + i, n);
            back_len += n;
            i += n;
        }
    }
    if (input_valid)
        check(back_len == size && memcmp(back, data, size) == 0, "valid UTF-8 did not come back as it went in");
    free(back);
    free(out);
    return 0;
}
