/* SPDX-License-Identifier: MIT */
/*
 * The loader cache's reader (src/sys/loader/ld_cache.c) on caches built here, whole
 * and broken in every way a file can be (cut at each length, counts and
 * offsets past the end, strings without their end), and on this machine's
 * /etc/ld.so.cache against what `ldconfig -p` lists.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ld_cache.h"

#if defined(__x86_64__)
#define OWN_FLAGS 0x0303u
#define LDCONFIG_KIND "(libc6,x86-64)"
#elif defined(__aarch64__)
#define OWN_FLAGS 0x0a03u
#define LDCONFIG_KIND "(libc6,AArch64)"
#else
#define OWN_FLAGS 0x0003u
#define LDCONFIG_KIND "(libc6)"
#endif
#define OTHER_FLAGS 0x0003u /* a 32-bit library's, on a 64-bit machine */

enum { NEW_HEADER = 48, NEW_ENTRY = 24, MAX_BYTES = 4096 };

struct entry {
    uint32_t flags;
    const char *key, *value;
};

static void put32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, sizeof(v));
}

/* A cache in glibc's new format into buf (after `old` entries of the old format when old >= 0); returns its size. */
static size_t build(unsigned char *buf, const struct entry *e, size_t n, int old)
{
    size_t start = 0, strings, at;

    memset(buf, 0, MAX_BYTES);
    if (old >= 0) {
        memcpy(buf, "ld.so-1.7.0", 11);
        put32(buf + 12, (uint32_t)old);
        start = (16 + (size_t)old * 12 + 7) & ~(size_t)7;
    }
    memcpy(buf + start, "glibc-ld.so.cache1.1", 20);
    put32(buf + start + 20, (uint32_t)n);
    buf[start + 28] = 2; /* little endian; flipped below where the host is not */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    buf[start + 28] = 3;
#endif
    strings = NEW_HEADER + n * NEW_ENTRY;
    at = strings;
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = buf + start + NEW_HEADER + i * NEW_ENTRY;

        put32(p, e[i].flags);
        put32(p + 4, (uint32_t)at);
        memcpy(buf + start + at, e[i].key, strlen(e[i].key) + 1);
        at += strlen(e[i].key) + 1;
        put32(p + 8, (uint32_t)at);
        memcpy(buf + start + at, e[i].value, strlen(e[i].value) + 1);
        at += strlen(e[i].value) + 1;
    }
    put32(buf + start + 24, (uint32_t)(at - strings));
    return start + at;
}

static const struct entry sample[] = {
    {OWN_FLAGS, "libc.so.6", "/lib/libc.so.6"},
    {OWN_FLAGS, "libcuda.so.1", "/usr/lib/a/libcuda.so.1"},
    {OTHER_FLAGS == OWN_FLAGS ? 0x0000u : OTHER_FLAGS, "libcuda.so.1", "/usr/lib/i386/libcuda.so.1"},
    {OWN_FLAGS, "libcuda.so.1", "relative/libcuda.so.1"},
    {OWN_FLAGS, "libcuda.so.1", "/usr/lib/b/libcuda.so.1"},
};
enum { SAMPLE = sizeof(sample) / sizeof(sample[0]) };

/* Each path of this process's kind, absolute, in order; the others not. */
static void finds_own_kind(void **state)
{
    static unsigned char buf[MAX_BYTES];
    const char *paths[4];

    (void)state;
    for (int old = -1; old <= 3; old++) {
        size_t size = build(buf, sample, SAMPLE, old);

        assert_int_equal(gpu__ld_cache_find((const char *)buf, size, "libcuda.so.1", paths, 4), 2);
        assert_string_equal(paths[0], "/usr/lib/a/libcuda.so.1");
        assert_string_equal(paths[1], "/usr/lib/b/libcuda.so.1");
        assert_int_equal(gpu__ld_cache_find((const char *)buf, size, "libcuda.so.1", paths, 1), 1);
        assert_int_equal(gpu__ld_cache_find((const char *)buf, size, "libnone.so", paths, 4), 0);
        assert_int_equal(gpu__ld_cache_find((const char *)buf, size, "libc.so.6", paths, 4), 1);
    }
}

/* Cut at every length, on the heap at its exact size (so that a sanitizer sees a read past it): never more. */
static void every_cut(void **state)
{
    static unsigned char buf[MAX_BYTES];
    const char *paths[4];

    (void)state;
    for (int old = -1; old <= 1; old++) {
        size_t size = build(buf, sample, SAMPLE, old);

        for (size_t cut = 0; cut <= size; cut++) {
            char *copy = malloc(cut ? cut : 1);
            int n;

            assert_non_null(copy);
            memcpy(copy, buf, cut);
            n = gpu__ld_cache_find(copy, cut, "libcuda.so.1", paths, 4);
            assert_true(n >= -1 && n <= 2);
            for (int i = 0; i < n; i++)
                assert_true(paths[i] >= copy && paths[i] + strlen(paths[i]) < copy + cut);
            free(copy);
        }
    }
}

static void hostile(void **state)
{
    static unsigned char buf[MAX_BYTES];
    const char *paths[4];
    size_t size = build(buf, sample, SAMPLE, -1);
    const char *data = (const char *)buf;

    (void)state;
    /* A count past the file. */
    put32(buf + 20, 0xffffffffu);
    assert_int_equal(gpu__ld_cache_find(data, size, "libcuda.so.1", paths, 4), -1);
    put32(buf + 20, SAMPLE);
    /* A path's offset past the end, and at the very end: that entry is left out. */
    put32(buf + NEW_HEADER + 1 * NEW_ENTRY + 8, 0xfffffff0u);
    put32(buf + NEW_HEADER + 4 * NEW_ENTRY + 8, (uint32_t)size);
    assert_int_equal(gpu__ld_cache_find(data, size, "libcuda.so.1", paths, 4), 0);
    /* A last string without its end. */
    size = build(buf, sample, SAMPLE, -1);
    assert_int_equal(gpu__ld_cache_find(data, size - 1, "libcuda.so.1", paths, 4), 1);
    /* The other byte order, an unknown version, the old format alone, an old count past the file. */
    buf[28] ^= 1;
    assert_int_equal(gpu__ld_cache_find(data, size, "libcuda.so.1", paths, 4), -1);
    buf[28] ^= 1;
    buf[19] = '2';
    assert_int_equal(gpu__ld_cache_find(data, size, "libcuda.so.1", paths, 4), -1);
    size = build(buf, sample, SAMPLE, 2);
    memset(buf + 32, 'x', 20);
    assert_int_equal(gpu__ld_cache_find(data, size, "libcuda.so.1", paths, 4), -1);
    size = build(buf, sample, SAMPLE, 2);
    put32(buf + 12, 0x7fffffffu);
    assert_int_equal(gpu__ld_cache_find(data, size, "libcuda.so.1", paths, 4), -1);
    assert_int_equal(gpu__ld_cache_find("", 0, "libcuda.so.1", paths, 4), -1);
}

static void read_errors(void **state)
{
    char *data = (char *)1;
    size_t size = 7;

    (void)state;
    assert_int_equal(gpu__ld_cache_read("/nonexistent/gpushim-test/ld.so.cache", &data, &size), ENOENT);
    assert_int_equal(gpu__ld_cache_read("/", &data, &size), EINVAL);
    assert_ptr_equal(data, (char *)1);
    assert_int_equal(size, 7);
}

/* Each library this machine's cache lists for `name`, as `ldconfig -p` prints them; -1 without ldconfig. */
static int ldconfig_lists(const char *name, char paths[][4096], int max)
{
    char line[8192], want[256];
    FILE *p = popen("ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null", "r");
    int n = 0;

    if (!p)
        return -1;
    snprintf(want, sizeof(want), "\t%s " LDCONFIG_KIND " => ", name);
    while (fgets(line, sizeof(line), p)) {
        char *arrow;

        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, want, strlen(want)) != 0 || !(arrow = strstr(line, " => ")))
            continue;
        if (n < max)
            snprintf(paths[n], sizeof(paths[n]), "%s", arrow + 4);
        n++;
    }
    return pclose(p) == 0 || n ? n : -1;
}

static void this_machine(void **state)
{
    static char want[8][4096];
    static const char *const names[] = {"libc.so.6", "libm.so.6", "libcuda.so.1", "libnvrtc.so.13"};
    const char *paths[8];
    char *data = NULL;
    size_t size = 0;
    int err = gpu__ld_cache_read(GPU__LD_CACHE_PATH, &data, &size);

    (void)state;
    if (err) {
        printf("skipped: %s: %s\n", GPU__LD_CACHE_PATH, strerror(err));
        return;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        int expect = ldconfig_lists(names[i], want, 8);
        int n = gpu__ld_cache_find(data, size, names[i], paths, 8);

        if (expect < 0) {
            printf("skipped: no ldconfig -p to compare with\n");
            break;
        }
        printf("%s: %d in the cache\n", names[i], n);
        assert_int_equal(n, expect);
        for (int k = 0; k < n; k++)
            assert_string_equal(paths[k], want[k]);
    }
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_own_kind), cmocka_unit_test(every_cut),    cmocka_unit_test(hostile),
        cmocka_unit_test(read_errors),    cmocka_unit_test(this_machine),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
