/* SPDX-License-Identifier: MIT */
/*
 * The loader cache's reader (src/sys/loader/ld_cache.c): any bytes as the cache
 * file's, in a buffer of exactly their size, so that a read past the end is
 * the sanitizer's to find. Every path it answers must lie inside the
 * buffer, end there, and be absolute; the count is within what was asked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ld_cache.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

enum { MAX_PATHS = 4 };

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz-ld-cache: %s\n", what);
        abort();
    }
}

/* Looks `name` up in the cache text buf[0..size), with room for `max` paths, and checks the answer. */
static void find(const char *buf, size_t size, const char *name, size_t max)
{
    const char *paths[MAX_PATHS];
    int n = gpu__ld_cache_find(buf, size, name, paths, max);

    check(n >= -1 && n <= (int)max, "a count outside -1 .. max");
    for (int i = 0; i < n; i++) {
        size_t at = (size_t)(paths[i] - buf);

        check(paths[i] >= buf && at < size, "a path outside the cache");
        check(memchr(paths[i], '\0', size - at) != NULL, "a path that does not end inside the cache");
        check(paths[i][0] == '/', "a path that is not absolute");
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char *buf = malloc(size ? size : 1);

    check(buf != NULL, "out of memory");
    if (size)
        memcpy(buf, data, size);
    find(buf, size, "libcuda.so.1", MAX_PATHS);
    find(buf, size, "libcuda.so.1", 1);
    find(buf, size, "", MAX_PATHS);
    free(buf);
    return 0;
}
