/* SPDX-License-Identifier: MIT */
/*
 * The on-disk cache of compiled programs (see program.h for what users see).
 */
#ifndef GPUSHIM_CACHE_H
#define GPUSHIM_CACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FNV-1a, 128 bits: the cache's key and each entry's checksum. */
struct gpu__hash {
    uint64_t hi;
    uint64_t lo;
};

void gpu__hash_init(struct gpu__hash *h);
void gpu__hash_bytes(struct gpu__hash *h, const void *data, size_t size);
/* The field's length, then its bytes: no two lists of fields hash the same stream. */
void gpu__hash_field(struct gpu__hash *h, const void *data, size_t size);

enum {
    GPU__CACHE_WARNING_MAX = 1024,
    GPU__CACHE_NAME_MAX = 64,
};

/* The largest payload an entry may hold or claim (1 GiB): anything larger is refused before it is read. */
#define GPU__CACHE_ENTRY_MAX (1ull << 30)

/* One compile's view of the cache; gpu__cache_close() ends it. */
struct gpu__cache {
    bool on;
    int dirfd; /* the folder, opened and checked once per compile; every entry is reached through it */
    struct gpu__hash key;
    char dir[PATH_MAX];
    char name[GPU__CACHE_NAME_MAX]; /* <key in hex>.bin */
    char path[PATH_MAX];            /* dir/name, for messages and gpu_program_get_cache_path() */
    unsigned long long max_bytes;
};

/* What an entry holds; the pointers are the reader's to free (gpu__cache_entry_free). */
struct gpu__cache_entry {
    unsigned char *output;
    size_t output_size;
    char *log; /* NUL-terminated */
    size_t log_size;
    size_t name_count;
    char **lowered; /* name_count NUL-terminated names */
};

void gpu__cache_entry_free(struct gpu__cache_entry *e);

/*
 * Reads the environment, makes the folder (0700) and opens it. false (and
 * `warning` says why, unless the cache is merely turned off) when there is no
 * cache to use: among others a folder that another user could write into or
 * rename in (one not owned by this user or root, or writable by its group or
 * others without the sticky bit). A warning about the environment may come
 * with true.
 */
bool gpu__cache_open(struct gpu__cache *c, const struct gpu__hash *key, char *warning, size_t warning_size);

/* Closes what gpu__cache_open() opened; safe on a cache that did not open. */
void gpu__cache_close(struct gpu__cache *c);

typedef enum gpu__cache_lookup {
    GPU__CACHE_ABSENT,   /* no entry */
    GPU__CACHE_FOUND,    /* *out filled; the entry's time was touched */
    GPU__CACHE_BAD,      /* an entry that must not be used: `warning` says why */
    GPU__CACHE_NO_MEMORY,
} gpu__cache_lookup;

/* Looks the key up; an entry must hold `name_count` lowered names. */
gpu__cache_lookup gpu__cache_read(const struct gpu__cache *c, size_t name_count, struct gpu__cache_entry *out,
                                  char *warning, size_t warning_size);

/*
 * Stores the entry atomically (a temporary file renamed over the entry), then
 * evicts the least recently used entries beyond the size cap. false with
 * `warning` set when it could not be stored.
 */
bool gpu__cache_write(const struct gpu__cache *c, const struct gpu__cache_entry *e, char *warning,
                      size_t warning_size);

#endif
