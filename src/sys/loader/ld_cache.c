/* SPDX-License-Identifier: MIT */
/*
 * The dynamic loader's cache, read as untrusted input (see ld_cache.h).
 *
 * The layout, as glibc's elf/dl-cache.h defines it (host byte order):
 *   old part (optional): "ld.so-1.7.0", a 32-bit count at 12, that many
 *     12-byte entries from 16; the new part follows, 8-aligned.
 *   new part: "glibc-ld.so.cache" "1.1", a 32-bit count at 20, the string
 *     table's size at 24, a flags byte at 28 (its low 2 bits: 2 little endian,
 *     3 big endian, 0 not said), then from 48 that many 24-byte entries:
 *     32-bit flags, the name's offset, the path's offset, 4 unused bytes, a
 *     64-bit hardware-capability word. Offsets count from the new part's
 *     start.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ld_cache.h"

#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_MAGIC "glibc-ld.so.cache1.1"

enum {
    OLD_HEADER = 16,
    OLD_ENTRY = 12,
    NEW_HEADER = 48,
    NEW_ENTRY = 24,
    NEW_ALIGN = 8,
    ENDIAN_MASK = 3,
    ENDIAN_LITTLE = 2,
    ENDIAN_BIG = 3,
};

/* An entry's flags for a library of this process's kind, as ldconfig writes them. */
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_TYPE_MASK 0x00ff
#if defined(__x86_64__) && defined(__LP64__)
#define FLAGS_WANTED (FLAG_ELF_LIBC6 | 0x0300) /* FLAG_X8664_LIB64 */
#elif defined(__aarch64__) && defined(__LP64__)
#define FLAGS_WANTED (FLAG_ELF_LIBC6 | 0x0a00) /* FLAG_AARCH64_LIB64 */
#endif

static uint32_t read_u32(const char *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static int flags_fit(uint32_t flags)
{
#ifdef FLAGS_WANTED
    return flags == FLAGS_WANTED;
#else
    /* Elsewhere any ELF libc6 entry: dlopen refuses one of another machine, saying so. */
    return (flags & FLAG_TYPE_MASK) == FLAG_ELF_LIBC6;
#endif
}

/* The string at `offset` of the part data[0..size): NULL unless it starts inside and ends (NUL) inside. */
static const char *string_at(const char *data, size_t size, uint32_t offset)
{
    if (offset >= size || !memchr(data + offset, '\0', size - offset))
        return NULL;
    return data + offset;
}

/* A cache that says it is written in the other byte order than this process's is not read. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ENDIAN_OTHER ENDIAN_LITTLE
#else
#define ENDIAN_OTHER ENDIAN_BIG
#endif

/* Where the new part starts: 0, or after the old table; SIZE_MAX when there is none. */
static size_t new_part(const char *data, size_t size)
{
    size_t offset;
    uint32_t count;

    if (size >= sizeof(NEW_MAGIC) - 1 && memcmp(data, NEW_MAGIC, sizeof(NEW_MAGIC) - 1) == 0)
        return 0;
    if (size < OLD_HEADER || memcmp(data, OLD_MAGIC, sizeof(OLD_MAGIC) - 1) != 0)
        return SIZE_MAX;
    count = read_u32(data + 12);
    if (count > (size - OLD_HEADER) / OLD_ENTRY)
        return SIZE_MAX;
    offset = OLD_HEADER + (size_t)count * OLD_ENTRY;
    offset = (offset + NEW_ALIGN - 1) & ~(size_t)(NEW_ALIGN - 1);
    if (offset > size || size - offset < sizeof(NEW_MAGIC) - 1 ||
        memcmp(data + offset, NEW_MAGIC, sizeof(NEW_MAGIC) - 1) != 0)
        return SIZE_MAX;
    return offset;
}

int gpu__ld_cache_find(const char *data, size_t size, const char *name, const char **paths, size_t max)
{
    size_t start = new_part(data, size), found = 0;
    const char *part;
    uint32_t count;

    if (start == SIZE_MAX)
        return -1;
    part = data + start;
    size -= start;
    if (size < NEW_HEADER)
        return -1;
    if (((unsigned char)part[28] & ENDIAN_MASK) == ENDIAN_OTHER)
        return -1;
    count = read_u32(part + 20);
    if (count > (size - NEW_HEADER) / NEW_ENTRY)
        return -1;
    for (uint32_t i = 0; i < count && found < max; i++) {
        const char *entry = part + NEW_HEADER + (size_t)i * NEW_ENTRY;
        const char *key, *value;

        if (!flags_fit(read_u32(entry)))
            continue;
        key = string_at(part, size, read_u32(entry + 4));
        value = string_at(part, size, read_u32(entry + 8));
        if (key && value && value[0] == '/' && strcmp(key, name) == 0)
            paths[found++] = value;
    }
    return (int)found;
}

int gpu__ld_cache_read(const char *path, char **data, size_t *size)
{
    struct stat st;
    size_t done = 0, want;
    char *buf;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    int err = 0;

    if (fd < 0)
        return errno;
    if (fstat(fd, &st) != 0) {
        err = errno;
    } else if (!S_ISREG(st.st_mode)) {
        err = EINVAL;
    } else if (st.st_size < 0 || (unsigned long long)st.st_size > GPU__LD_CACHE_MAX_BYTES) {
        err = EFBIG;
    }
    if (err) {
        close(fd);
        return err;
    }
    want = (size_t)st.st_size;
    buf = malloc(want ? want : 1);
    if (!buf) {
        close(fd);
        return ENOMEM;
    }
    /* The file may shrink while it is read (ldconfig replaces it whole, but a copy may be written in place). */
    while (done < want) {
        ssize_t n = read(fd, buf + done, want - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = errno;
            break;
        }
        if (n == 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    if (err) {
        free(buf);
        return err;
    }
    *data = buf;
    *size = done;
    return 0;
}
