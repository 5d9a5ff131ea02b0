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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"

#define CACHE_OFF_ENV "GPUSHIM_CACHE"
#define CACHE_DIR_ENV "GPUSHIM_CACHE_DIR"
#define CACHE_MAX_ENV "GPUSHIM_CACHE_MAX_BYTES"
#define DEFAULT_MAX_BYTES (256ull << 20)
/* A temporary file this old was left by a writer that died. */
#define STALE_TMP_SECONDS 600

static const char magic[8] = {'G', 'P', 'U', 'S', 'H', 'I', 'M', 'C'};
enum { FORMAT = 1, BYTE_ORDER_MARK = 0x01020304, KEY_HEX = 32, ENTRY_NAME_LEN = KEY_HEX + 4 };

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
    const char *env = secure_getenv(CACHE_DIR_ENV);
    int n;

    if (env && env[0]) {
        if (env[0] != '/') {
            snprintf(warning, warning_size, "cache off: " CACHE_DIR_ENV "=%s is not an absolute path", env);
            return false;
        }
        n = snprintf(dir, size, "%s", env);
    } else if ((env = secure_getenv("XDG_CACHE_HOME")) && env[0] == '/') {
        n = snprintf(dir, size, "%s/gpushim", env);
    } else if ((env = secure_getenv("HOME")) && env[0] == '/') {
        n = snprintf(dir, size, "%s/.cache/gpushim", env);
    } else {
        snprintf(warning, warning_size,
                 "cache off: no folder for it (set " CACHE_DIR_ENV ", XDG_CACHE_HOME or HOME)");
        return false;
    }
    if (n < 0 || (size_t)n >= size - ENTRY_NAME_LEN - 2) {
        snprintf(warning, warning_size, "cache off: the folder's path is too long");
        return false;
    }
    return true;
}

bool gpu__cache_open(struct gpu__cache *c, const struct gpu__hash *key, char *warning, size_t warning_size)
{
    const char *off = secure_getenv(CACHE_OFF_ENV);
    const char *max = secure_getenv(CACHE_MAX_ENV);
    int err, n;

    c->on = false;
    c->key = *key;
    if (off && strcmp(off, "0") == 0)
        return false;
    if (!choose_dir(c->dir, sizeof(c->dir), warning, warning_size))
        return false;
    c->max_bytes = DEFAULT_MAX_BYTES;
    if (max && max[0]) {
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(max, &end, 10);
        if (errno || *end || max[0] == '-')
            snprintf(warning, warning_size, CACHE_MAX_ENV "=%s is not a number of bytes; the cap is %llu", max,
                     DEFAULT_MAX_BYTES);
        else
            c->max_bytes = v;
    }
    err = make_dirs(c->dir);
    if (err) {
        snprintf(warning, warning_size, "cache off: cannot make %s: %s", c->dir, strerror(err));
        return false;
    }
    n = snprintf(c->path, sizeof(c->path), "%s/%016llx%016llx.bin", c->dir, (unsigned long long)key->hi,
                 (unsigned long long)key->lo);
    if (n < 0 || (size_t)n >= sizeof(c->path)) {
        snprintf(warning, warning_size, "cache off: the folder's path is too long");
        return false;
    }
    c->on = true;
    return true;
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

/* All `size` bytes read (or written), through short transfers and EINTR; false at an error or end of file. */
static bool transfer_all(int fd, void *buf, size_t size, bool writing)
{
    unsigned char *p = buf;

    while (size > 0) {
        ssize_t n = writing ? write(fd, p, size) : read(fd, p, size);

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

gpu__cache_lookup gpu__cache_read(const struct gpu__cache *c, size_t name_count, struct gpu__cache_entry *out,
                                  char *warning, size_t warning_size)
{
    struct file_header h;
    struct gpu__hash sum;
    struct stat st;
    unsigned char *payload;
    int fd;

    fd = open(c->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return GPU__CACHE_ABSENT;
        return refuse(-1, NULL, c->path, strerror(errno), warning, warning_size);
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return refuse(fd, NULL, c->path, "is not a regular file", warning, warning_size);
    /* Code another user could have written is not run. */
    if (st.st_uid != geteuid())
        return refuse(fd, NULL, c->path, "belongs to another user", warning, warning_size);
    if ((size_t)st.st_size < sizeof(h) || !transfer_all(fd, &h, sizeof(h), false))
        return refuse(fd, NULL, c->path, "is truncated (shorter than its header)", warning, warning_size);
    if (memcmp(h.magic, magic, sizeof(magic)) != 0)
        return refuse(fd, NULL, c->path, "is not a gpushim cache entry", warning, warning_size);
    if (h.format != FORMAT || h.byte_order != BYTE_ORDER_MARK)
        return refuse(fd, NULL, c->path, "is of another format or byte order", warning, warning_size);
    if (h.key[0] != c->key.hi || h.key[1] != c->key.lo)
        return refuse(fd, NULL, c->path, "holds another key", warning, warning_size);
    if (h.payload_size != (uint64_t)st.st_size - sizeof(h))
        return refuse(fd, NULL, c->path,
                      h.payload_size > (uint64_t)st.st_size - sizeof(h) ? "is truncated" : "has bytes after its end",
                      warning, warning_size);
    payload = malloc(h.payload_size ? (size_t)h.payload_size : 1);
    if (!payload) {
        close(fd);
        return GPU__CACHE_NO_MEMORY;
    }
    if (!transfer_all(fd, payload, (size_t)h.payload_size, false))
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
    char name[ENTRY_NAME_LEN + 1];
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

static bool is_entry_name(const char *name)
{
    if (strlen(name) != ENTRY_NAME_LEN || strcmp(name + KEY_HEX, ".bin") != 0)
        return false;
    for (int i = 0; i < KEY_HEX; i++)
        if (!strchr("0123456789abcdef", name[i]))
            return false;
    return true;
}

/* Drops the least recently used entries (never `keep`) until the folder fits its cap. */
static void evict(const struct gpu__cache *c, const char *keep)
{
    DIR *d = opendir(c->dir);
    struct entry_file *files = NULL, *grown;
    size_t count = 0, cap = 0;
    unsigned long long total = 0;
    struct dirent *de;
    time_t now = time(NULL);

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        size_t len = strlen(de->d_name);

        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (de->d_name[0] == '.' && len > 4 && strcmp(de->d_name + len - 4, ".tmp") == 0) {
            if (now - st.st_mtim.tv_sec > STALE_TMP_SECONDS)
                (void)unlinkat(dirfd(d), de->d_name, 0);
            continue;
        }
        if (!is_entry_name(de->d_name))
            continue;
        if (count == cap) {
            grown = realloc(files, (cap = cap ? cap * 2 : 64) * sizeof(*files));
            if (!grown)
                break;
            files = grown;
        }
        files[count].mtime = st.st_mtim;
        files[count].size = (unsigned long long)st.st_size;
        memcpy(files[count].name, de->d_name, ENTRY_NAME_LEN + 1);
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
    static atomic_uint serial;
    struct file_header h = {{0}, FORMAT, BYTE_ORDER_MARK, {c->key.hi, c->key.lo}, 0, {0, 0}};
    struct gpu__hash sum;
    char tmp[PATH_MAX];
    size_t payload_size = 8 + e->output_size + 8 + e->log_size + 8;
    unsigned char *buf, *p;
    int fd, n, err = 0;
    bool ok;

    for (size_t i = 0; i < e->name_count; i++)
        payload_size += 8 + strlen(e->lowered[i]);
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

    /* Unique per process and per call: two writers never share a temporary file. */
    n = snprintf(tmp, sizeof(tmp), "%s/.%016llx%016llx.%ld.%u.tmp", c->dir, (unsigned long long)c->key.hi,
                 (unsigned long long)c->key.lo, (long)getpid(), atomic_fetch_add(&serial, 1));
    fd = n < 0 || (size_t)n >= sizeof(tmp) ? -1 : open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        err = n < 0 || (size_t)n >= sizeof(tmp) ? ENAMETOOLONG : errno;
    } else {
        ok = transfer_all(fd, buf, sizeof(h) + payload_size, true);
        if (!ok)
            err = errno ? errno : EIO;
        if (close(fd) != 0 && !err)
            err = errno;
        if (!err && rename(tmp, c->path) != 0)
            err = errno;
        if (err)
            unlink(tmp);
    }
    free(buf);
    if (err) {
        snprintf(warning, warning_size, "cache entry %s not written: %s", c->path, strerror(err));
        return false;
    }
    evict(c, strrchr(c->path, '/') + 1);
    return true;
}
