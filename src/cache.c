/* SPDX-License-Identifier: MIT */
/*
 * The on-disk cache of compiled programs: one file per entry, named by its
 * key, written to a temporary file and renamed into place, so readers see a
 * whole entry or none. Each entry carries its key (a file of another key or
 * format is foreign) and a checksum of its payload (a corrupt or truncated
 * one is refused). The least recently used go when the folder passes its cap;
 * a hit touches the entry's modification time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "base/env.h"
#include "base/file.h"

#define CACHE_OFF_ENV "GPUSHIM_CACHE"
#define CACHE_DIR_ENV "GPUSHIM_CACHE_DIR"
#define CACHE_MAX_ENV "GPUSHIM_CACHE_MAX_BYTES"
#define DEFAULT_MAX_BYTES (256ull << 20)
/* A temporary file this old was left by a writer that died. */
#define STALE_TMP_SECONDS 600

static const char magic[8] = {'G', 'P', 'U', 'S', 'H', 'I', 'M', 'C'};
enum {
    FORMAT = 1,
    BYTE_ORDER_MARK = 0x01020304,
    KEY_HEX = 32,
    ENTRY_NAME_LEN = KEY_HEX + 4,      /* <key>.bin */
    TMP_NAME_LEN = 1 + KEY_HEX + 21,   /* .<key>.<16 hex>.tmp */
};

struct file_header {
    char magic[8];
    uint32_t format;
    uint32_t byte_order;
    uint64_t key[2];
    uint64_t payload_size;
    uint64_t checksum[2];
};

/* ---- FNV-1a-128: offset basis 0x6c62272e07bb014262b821756295c58d, prime 2^88 + 0x13b. ---- */

void gpu__hash_init(struct gpu__hash *h)
{
    h->hi = 0x6c62272e07bb0142ull;
    h->lo = 0x62b821756295c58dull;
}

void gpu__hash_bytes(struct gpu__hash *h, const void *data, size_t size)
{
    const unsigned char *p = data;
    uint64_t hi = h->hi, lo = h->lo;

    for (size_t i = 0; i < size; i++) {
        uint64_t a, b, low, carry;

        lo ^= p[i];
        /* (hi, lo) * (2^88 + 0x13b) mod 2^128, in 64-bit halves. */
        a = (lo & 0xffffffffu) * 0x13bu;
        b = (lo >> 32) * 0x13bu;
        low = a + (b << 32);
        carry = (b >> 32) + (low < a);
        hi = hi * 0x13bu + carry + (lo << 24);
        lo = low;
    }
    h->hi = hi;
    h->lo = lo;
}

void gpu__hash_field(struct gpu__hash *h, const void *data, size_t size)
{
    uint64_t n = size;

    gpu__hash_bytes(h, &n, sizeof(n));
    gpu__hash_bytes(h, data, size);
}

void gpu__cache_entry_free(struct gpu__cache_entry *e)
{
    free(e->output);
    free(e->log);
    for (size_t i = 0; e->lowered && i < e->name_count; i++)
        free(e->lowered[i]);
    free(e->lowered);
    memset(e, 0, sizeof(*e));
}

/* ---- Where. ---- */

/* mkdir -p, 0700 for the folders it makes. */
static int make_dirs(const char *dir)
{
    char path[PATH_MAX];
    size_t len = strlen(dir);

    if (len >= sizeof(path))
        return ENAMETOOLONG;
    memcpy(path, dir, len + 1);
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;

            *p = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST)
                return errno;
            *p = c;
            if (c == '\0')
                break;
        }
    }
    return 0;
}

static bool choose_dir(char *dir, size_t size, char *warning, size_t warning_size)
{
    char why[GPU__CACHE_WARNING_MAX] = "";
    const char *env = gpu__env_path(CACHE_DIR_ENV, why, sizeof(why));
    int n;

    if (why[0]) {
        snprintf(warning, warning_size, "cache off: %s", why);
        return false;
    }
    if (env) {
        n = snprintf(dir, size, "%s", env);
    } else if ((env = gpu__env("XDG_CACHE_HOME")) && env[0] == '/') {
        n = snprintf(dir, size, "%s/gpushim", env);
    } else if ((env = gpu__env("HOME")) && env[0] == '/') {
        n = snprintf(dir, size, "%s/.cache/gpushim", env);
    } else {
        snprintf(warning, warning_size,
                 "cache off: no folder for it (set " CACHE_DIR_ENV ", XDG_CACHE_HOME or HOME)");
        return false;
    }
    if (n < 0 || (size_t)n >= size - GPU__CACHE_NAME_MAX - 2) {
        snprintf(warning, warning_size, "cache off: the folder's path is too long");
        return false;
    }
    return true;
}

/*
 * Whether another user could put a file in the folder or swap one of ours:
 * its owner can, and so can anyone with write permission unless the sticky
 * bit keeps them to their own files (which the entry checks then refuse).
 */
static const char *dir_unsafe(const struct stat *st)
{
    if (!S_ISDIR(st->st_mode))
        return "is not a folder";
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return "belongs to another user";
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
        return "is writable by other users and not sticky";
    return NULL;
}

/* Appends "; " and the text in `add` to the warning in `w`, cut to fit. */
static void add_warning(char *w, size_t size, const char *add)
{
    size_t used = strlen(w);

    if (add[0] && used + 1 < size)
        snprintf(w + used, size - used, "%s%s", used ? "; " : "", add);
}

/* The folder, made and opened, into c->dirfd; false with `why` when it cannot be used. */
static bool open_dir(struct gpu__cache *c, char *why, size_t why_size)
{
    struct stat st = {0};
    const char *unsafe;
    int err;

    if (!choose_dir(c->dir, sizeof(c->dir), why, why_size))
        return false;
    err = make_dirs(c->dir);
    if (err) {
        snprintf(why, why_size, "cache off: cannot make %s: %s", c->dir, strerror(err));
        return false;
    }
    /* The folder the checks pass is the one used: every entry is opened relative to this descriptor. */
    c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->dirfd < 0) {
        snprintf(why, why_size, "cache off: cannot open %s: %s", c->dir, strerror(errno));
        return false;
    }
    unsafe = fstat(c->dirfd, &st) != 0 ? strerror(errno) : dir_unsafe(&st);
    if (unsafe) {
        snprintf(why, why_size, "cache off: the folder %s %s (owner uid %ld, mode %04o)", c->dir, unsafe,
                 (long)st.st_uid, (unsigned)(st.st_mode & 07777));
        return false;
    }
    return true;
}

bool gpu__cache_open(struct gpu__cache *c, const struct gpu__hash *key, char *warning, size_t warning_size)
{
    char why[GPU__CACHE_WARNING_MAX] = "";
    bool on;
    int n;

    c->on = false;
    c->dirfd = -1;
    c->key = *key;
    on = gpu__env_switch(CACHE_OFF_ENV, true, "the cache stays on", why, sizeof(why));
    add_warning(warning, warning_size, why);
    if (!on)
        return false;
    why[0] = '\0';
    c->max_bytes = gpu__env_count(CACHE_MAX_ENV, 0, ~0ull, DEFAULT_MAX_BYTES, why, sizeof(why));
    add_warning(warning, warning_size, why);
    why[0] = '\0';
    if (!open_dir(c, why, sizeof(why))) {
        add_warning(warning, warning_size, why);
        gpu__cache_close(c);
        return false;
    }
    snprintf(c->name, sizeof(c->name), "%016llx%016llx.bin", (unsigned long long)key->hi,
             (unsigned long long)key->lo);
    n = snprintf(c->path, sizeof(c->path), "%s/%s", c->dir, c->name);
    if (n < 0 || (size_t)n >= sizeof(c->path)) {
        add_warning(warning, warning_size, "cache off: the folder's path is too long");
        gpu__cache_close(c);
        return false;
    }
    c->on = true;
    return true;
}

void gpu__cache_close(struct gpu__cache *c)
{
    if (c->dirfd >= 0)
        close(c->dirfd);
    c->dirfd = -1;
    c->on = false;
}

/*
 * Opens a file of the folder for reading, as only this user's own could be:
 * never through a symbolic link (O_NOFOLLOW), never blocking (a FIFO), and
 * only a regular file with one link (no hard link to a file elsewhere),
 * owned by this user and writable by no one else. -1 with `why` otherwise,
 * -2 when there is no such file.
 */
static int open_own(int dirfd, const char *name, struct stat *st, const char **why)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

    if (fd < 0) {
        *why = errno == ELOOP ? "is a symbolic link" : strerror(errno);
        return errno == ENOENT ? -2 : -1;
    }
    if (fstat(fd, st) != 0)
        *why = strerror(errno);
    else if (!S_ISREG(st->st_mode))
        *why = "is not a regular file";
    else if (st->st_uid != geteuid())
        *why = "belongs to another user";
    else if (st->st_nlink != 1)
        *why = "has more than one link";
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        *why = "is writable by other users";
    else
        return fd;
    close(fd);
    return -1;
}

/* ---- Reading. ---- */

struct reader {
    const unsigned char *p;
    size_t left;
};

static bool take_u64(struct reader *r, uint64_t *v)
{
    if (r->left < sizeof(*v))
        return false;
    memcpy(v, r->p, sizeof(*v));
    r->p += sizeof(*v);
    r->left -= sizeof(*v);
    return true;
}

/* A length-prefixed field, copied with a NUL after it. */
static bool take_field(struct reader *r, unsigned char **out, size_t *size)
{
    uint64_t n;

    if (!take_u64(r, &n) || n > r->left)
        return false;
    *out = malloc((size_t)n + 1);
    if (!*out)
        return false;
    memcpy(*out, r->p, (size_t)n);
    (*out)[n] = '\0';
    *size = (size_t)n;
    r->p += n;
    r->left -= (size_t)n;
    return true;
}

static bool parse_payload(const unsigned char *p, size_t size, size_t name_count, struct gpu__cache_entry *e)
{
    struct reader r = {p, size};
    uint64_t count;
    size_t len;

    if (!take_field(&r, &e->output, &e->output_size) || e->output_size == 0)
        return false;
    if (!take_field(&r, (unsigned char **)&e->log, &e->log_size))
        return false;
    if (!take_u64(&r, &count) || count != name_count)
        return false;
    e->lowered = calloc(name_count ? name_count : 1, sizeof(*e->lowered));
    if (!e->lowered)
        return false;
    e->name_count = name_count;
    for (size_t i = 0; i < name_count; i++)
        if (!take_field(&r, (unsigned char **)&e->lowered[i], &len) || len == 0 || strlen(e->lowered[i]) != len)
            return false;
    return r.left == 0;
}

/* All `size` bytes read, through short reads and EINTR; false at an error or end of file. */
static bool read_all(int fd, void *buf, size_t size)
{
    unsigned char *p = buf;

    while (size > 0) {
        ssize_t n = read(fd, p, size);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
    }
    return true;
}

static gpu__cache_lookup refuse(int fd, void *buf, const char *path, const char *why, char *warning,
                                size_t warning_size)
{
    free(buf);
    if (fd >= 0)
        close(fd);
    snprintf(warning, warning_size, "cache entry %s %s: compiled again", path, why);
    return GPU__CACHE_BAD;
}

/* The header, if it is a gpushim entry of this format for `key`: `why` otherwise. */
static bool header_read(int fd, const struct stat *st, struct file_header *h, const struct gpu__hash *key,
                        const char **why)
{
    if ((size_t)st->st_size < sizeof(*h) || !read_all(fd, h, sizeof(*h)))
        *why = "is truncated (shorter than its header)";
    else if (memcmp(h->magic, magic, sizeof(magic)) != 0)
        *why = "is not a gpushim cache entry";
    else if (h->format != FORMAT || h->byte_order != BYTE_ORDER_MARK)
        *why = "is of another format or byte order";
    else if (h->key[0] != key->hi || h->key[1] != key->lo)
        *why = "holds another key";
    else
        return true;
    return false;
}

gpu__cache_lookup gpu__cache_read(const struct gpu__cache *c, size_t name_count, struct gpu__cache_entry *out,
                                  char *warning, size_t warning_size)
{
    struct file_header h;
    struct gpu__hash sum;
    struct stat st;
    unsigned char *payload;
    const char *why = NULL;
    char claim[96];
    int fd;

    fd = open_own(c->dirfd, c->name, &st, &why);
    if (fd == -2)
        return GPU__CACHE_ABSENT;
    if (fd < 0)
        return refuse(-1, NULL, c->path, why, warning, warning_size);
    if (!header_read(fd, &st, &h, &c->key, &why))
        return refuse(fd, NULL, c->path, why, warning, warning_size);
    /* The claim is checked against the file's real size and the cap before anything is allocated. */
    if (h.payload_size > GPU__CACHE_ENTRY_MAX) {
        snprintf(claim, sizeof(claim), "claims %llu bytes, over the cap of %llu", (unsigned long long)h.payload_size,
                 GPU__CACHE_ENTRY_MAX);
        return refuse(fd, NULL, c->path, claim, warning, warning_size);
    }
    if (h.payload_size != (uint64_t)st.st_size - sizeof(h))
        return refuse(fd, NULL, c->path,
                      h.payload_size > (uint64_t)st.st_size - sizeof(h) ? "is truncated" : "has bytes after its end",
                      warning, warning_size);
    payload = malloc(h.payload_size ? (size_t)h.payload_size : 1);
    if (!payload) {
        close(fd);
        return GPU__CACHE_NO_MEMORY;
    }
    if (!read_all(fd, payload, (size_t)h.payload_size))
        return refuse(fd, payload, c->path, "could not be read whole", warning, warning_size);
    gpu__hash_init(&sum);
    gpu__hash_bytes(&sum, payload, (size_t)h.payload_size);
    if (sum.hi != h.checksum[0] || sum.lo != h.checksum[1])
        return refuse(fd, payload, c->path, "is corrupt (its checksum does not match)", warning, warning_size);
    memset(out, 0, sizeof(*out));
    if (!parse_payload(payload, (size_t)h.payload_size, name_count, out)) {
        gpu__cache_entry_free(out);
        return refuse(fd, payload, c->path, "does not hold what its key says", warning, warning_size);
    }
    /* Most recently used now: eviction goes by modification time. */
    (void)futimens(fd, NULL);
    close(fd);
    free(payload);
    return GPU__CACHE_FOUND;
}

/* ---- Writing. ---- */

static unsigned char *put(unsigned char *p, const void *data, size_t size)
{
    uint64_t n = size;

    memcpy(p, &n, sizeof(n));
    memcpy(p + sizeof(n), data, size);
    return p + sizeof(n) + size;
}

struct entry_file {
    struct timespec mtime;
    unsigned long long size;
    char name[GPU__CACHE_NAME_MAX];
};

static int older_first(const void *a, const void *b)
{
    const struct entry_file *x = a, *y = b;

    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return 0;
}

static bool hex_to_u64(const char *s, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < 16; i++) {
        const char *d = strchr("0123456789abcdef", s[i]);

        if (!s[i] || !d)
            return false;
        *v = *v << 4 | (uint64_t)(d - "0123456789abcdef");
    }
    return true;
}

/*
 * The key in a name of the cache's own making: an entry "<key>.bin", or a
 * temporary file ".<key>.<16 hex>.tmp" (`*tmp`); false for any other name.
 */
static bool name_key(const char *name, struct gpu__hash *key, bool *tmp)
{
    size_t len = strlen(name);
    uint64_t ignored;

    *tmp = name[0] == '.';
    name += *tmp;
    if (!hex_to_u64(name, &key->hi) || !hex_to_u64(name + 16, &key->lo))
        return false;
    if (!*tmp)
        return len == ENTRY_NAME_LEN && strcmp(name + KEY_HEX, ".bin") == 0;
    return len == TMP_NAME_LEN && name[KEY_HEX] == '.' && hex_to_u64(name + KEY_HEX + 1, &ignored) &&
           strcmp(name + KEY_HEX + 17, ".tmp") == 0;
}

/*
 * Drops the least recently used entries (never `keep`) until the folder fits
 * its cap, and temporary files left by a writer that died. It touches only
 * what is the cache's own: a name it makes, a file open_own() accepts, and a
 * header of this format holding the key its name says. Anything else in the
 * folder, another user's above all, is neither counted nor removed.
 */
static void evict(const struct gpu__cache *c, const char *keep)
{
    int fd = dup(c->dirfd);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    struct entry_file *files = NULL, *grown;
    size_t count = 0, cap = 0;
    unsigned long long total = 0;
    struct dirent *de;
    time_t now = time(NULL);

    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    rewinddir(d);
    while ((de = readdir(d)) != NULL) {
        struct file_header h;
        struct gpu__hash key;
        struct stat st;
        const char *why;
        bool tmp, ours;
        int efd;

        if (!name_key(de->d_name, &key, &tmp) || (efd = open_own(dirfd(d), de->d_name, &st, &why)) < 0)
            continue;
        ours = header_read(efd, &st, &h, &key, &why);
        close(efd);
        if (!ours)
            continue;
        if (tmp) {
            if (now - st.st_mtim.tv_sec > STALE_TMP_SECONDS)
                (void)unlinkat(dirfd(d), de->d_name, 0);
            continue;
        }
        if (count == cap) {
            grown = realloc(files, (cap = cap ? cap * 2 : 64) * sizeof(*files));
            if (!grown)
                break;
            files = grown;
        }
        files[count].mtime = st.st_mtim;
        files[count].size = (unsigned long long)st.st_size;
        /* name_key() took only a name of the cache's own, at most TMP_NAME_LEN bytes. */
        memcpy(files[count].name, de->d_name, strlen(de->d_name) + 1);
        total += files[count].size;
        count++;
    }
    if (total > c->max_bytes && count > 0) {
        qsort(files, count, sizeof(*files), older_first);
        for (size_t i = 0; i < count && total > c->max_bytes; i++) {
            if (strcmp(files[i].name, keep) == 0)
                continue;
            /* Another process may have evicted it first: gone either way. */
            if (unlinkat(dirfd(d), files[i].name, 0) == 0 || errno == ENOENT)
                total -= files[i].size;
        }
    }
    closedir(d);
    free(files);
}

bool gpu__cache_write(const struct gpu__cache *c, const struct gpu__cache_entry *e, char *warning,
                      size_t warning_size)
{
    struct file_header h = {{0}, FORMAT, BYTE_ORDER_MARK, {c->key.hi, c->key.lo}, 0, {0, 0}};
    struct gpu__hash sum;
    char tmp[GPU__CACHE_NAME_MAX], prefix[GPU__CACHE_NAME_MAX];
    size_t payload_size = 8 + e->output_size + 8 + e->log_size + 8;
    unsigned char *buf, *p;
    int fd, err = 0;

    for (size_t i = 0; i < e->name_count; i++)
        payload_size += 8 + strlen(e->lowered[i]);
    if (payload_size > GPU__CACHE_ENTRY_MAX) {
        snprintf(warning, warning_size, "cache entry %s not written: %zu bytes, over the cap of %llu", c->path,
                 payload_size, GPU__CACHE_ENTRY_MAX);
        return false;
    }
    buf = malloc(sizeof(h) + payload_size);
    if (!buf) {
        snprintf(warning, warning_size, "cache entry %s not written: out of host memory", c->path);
        return false;
    }
    p = put(buf + sizeof(h), e->output, e->output_size);
    p = put(p, e->log, e->log_size);
    memcpy(p, &(uint64_t){e->name_count}, 8);
    p += 8;
    for (size_t i = 0; i < e->name_count; i++)
        p = put(p, e->lowered[i], strlen(e->lowered[i]));
    gpu__hash_init(&sum);
    gpu__hash_bytes(&sum, buf + sizeof(h), payload_size);
    memcpy(h.magic, magic, sizeof(magic));
    h.payload_size = payload_size;
    h.checksum[0] = sum.hi;
    h.checksum[1] = sum.lo;
    memcpy(buf, &h, sizeof(h));

    snprintf(prefix, sizeof(prefix), ".%016llx%016llx.", (unsigned long long)c->key.hi, (unsigned long long)c->key.lo);
    fd = gpu__file_create_unique(c->dirfd, prefix, ".tmp", tmp, sizeof(tmp));
    if (fd < 0) {
        err = errno;
    } else {
        /* EFBIG, ENOSPC, EDQUOT: the entry is not stored, and no temporary file is left. */
        err = gpu__file_write_all(fd, buf, sizeof(h) + payload_size);
        if (close(fd) != 0 && !err)
            err = errno;
        if (!err && renameat(c->dirfd, tmp, c->dirfd, c->name) != 0)
            err = errno;
        if (err)
            (void)unlinkat(c->dirfd, tmp, 0);
    }
    free(buf);
    if (err) {
        snprintf(warning, warning_size, "cache entry %s not written: %s", c->path, strerror(err));
        return false;
    }
    evict(c, c->name);
    return true;
}
