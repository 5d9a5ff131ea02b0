/* SPDX-License-Identifier: MIT */
/*
 * Whether a program's compile may read files on disk (see program_disk.c).
 */
#ifndef GPUSHIM_PROGRAM_DISK_H
#define GPUSHIM_PROGRAM_DISK_H

#include <stddef.h>

/* A program's in-memory headers. */
typedef struct gpu__program_headers {
    size_t count;
    const char *const *names;
    const char *const *sources;
} gpu__program_headers;

typedef enum gpu__disk_use {
    GPU__DISK_NONE,     /* the output depends only on what the cache key covers */
    GPU__DISK_READ,     /* it may depend on a file on disk: `why` says which and where */
    GPU__DISK_NO_MEMORY,
} gpu__disk_use;

gpu__disk_use gpu__program_reads_disk(const char *source, const gpu__program_headers *headers,
                                      const char *const *options, size_t option_count, char *why, size_t why_size);

#endif
