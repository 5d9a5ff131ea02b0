/* SPDX-License-Identifier: MIT */
/*
 * The dynamic loader's cache (/etc/ld.so.cache, as glibc's ldconfig writes
 * it), read as untrusted input: the files it lists under one name for this
 * process's kind of library. The format read is glibc's "glibc-ld.so.cache"
 * version 1.1, alone or after the old "ld.so-1.7.0" table; any other text is
 * no cache. Every count, offset and string is checked against the file's
 * size before it is used.
 */
#ifndef GPUSHIM_SYS_LD_CACHE_H
#define GPUSHIM_SYS_LD_CACHE_H

#include <stddef.h>

/* The loader's cache, where glibc keeps it. */
#define GPU__LD_CACHE_PATH "/etc/ld.so.cache"

/* The largest cache read: glibc's hold a few thousand names in well under a MiB. */
enum { GPU__LD_CACHE_MAX_BYTES = 64 << 20 };

/*
 * The paths that cache text data[0..size) lists for `name` (e.g.
 * "libcuda.so.1") for this process's machine and ABI, in the cache's order:
 * up to `max` of them into paths[], each pointing into `data` and ending
 * within it. Returns how many it stored (0 when it lists none), or -1 when
 * `data` is not a cache in a format this reader knows.
 */
int gpu__ld_cache_find(const char *data, size_t size, const char *name, const char **paths, size_t max);

/*
 * Reads the file `path` whole (a regular file of at most
 * GPU__LD_CACHE_MAX_BYTES) into *data, allocated with malloc for the caller
 * to free, and its size into *size. Returns 0, or an errno value (EFBIG past
 * the limit, EINVAL for a file that is not regular) with nothing allocated.
 */
int gpu__ld_cache_read(const char *path, char **data, size_t *size);

#endif
