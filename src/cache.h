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

enum { GPU__CACHE_WARNING_MAX = 1024 };

/* One compile's view of the cache. */
struct gpu__cache {
    bool on;
    struct gpu__hash key;
    char dir[PATH_MAX];
    char path[PATH_MAX]; /* dir/<key in hex>.bin */
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
 * Reads the environment, makes the folder. false (and `warning` says why,
 * unless the cache is merely turned off) when there is no cache to use.
 */
bool gpu__cache_open(struct gpu__cache *c, const struct gpu__hash *key, char *warning, size_t warning_size);

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
