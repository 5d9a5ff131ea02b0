/* SPDX-License-Identifier: MIT */
/*
 * The two environment values gpushim reads, fuzzed: GPUSHIM_LIBCUDA (the
 * bytes before the input's first NUL) and GPUSHIM_STREAM_NONBLOCKING (the bytes
 * after it, up to a second NUL); and the bytes after a second NUL as a number
 * for the one parser of every GPUSHIM_* value (gpu__env_number), its range and
 * unit picked by their first byte, checked against what it must accept. The load runs afresh for each input (gpu__driver_forget, in
 * this build only). So that the fuzzer opens nothing it should not, a value
 * that starts with '/' is looked up under /nonexistent-gpushim-fuzz, except
 * an input whose first byte is '@', which names the fake driver: the one
 * way to a driver that loads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpushim/gpushim.h>

#include "base/env.h"

#ifndef FAKE_PATH
#error "FAKE_PATH names the fake driver"
#endif

void gpu__driver_forget(void);
unsigned gpu__stream_flags_from_env(const char *nonblocking_env);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz-env: %s\n", what);
        abort();
    }
}

static char *dup_n(const unsigned char *p, size_t n)
{
    char *s = malloc(n + 1);

    check(s != NULL, "out of memory");
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/*
 * `text` against gpu__env_number: what it takes is an optional '-' (a range
 * with negative numbers only), digits, a unit's letter (bytes only), nothing
 * else, within the range; the number written back in digits is taken again.
 */
static void number(const char *text, unsigned char pick)
{
    static const long long ranges[][2] = {
        {0, 8}, {1, 256}, {0, 86400}, {-2147483647LL - 1, 2147483647LL}, {-1, 2147483647LL},
        {0, 9223372036854775807LL}, {-9223372036854775807LL - 1, 9223372036854775807LL}, {1000, 99990},
    };
    const long long *r = ranges[pick % (sizeof(ranges) / sizeof(ranges[0]))];
    enum gpu__env_unit unit = pick & 0x80 ? GPU__ENV_UNIT_BYTES : GPU__ENV_UNIT_NONE;
    long long v = 12345, again = 0;
    size_t len = strlen(text), digits_at = text[0] == '-' ? 1 : 0, end = len;
    char back[32];

    if (!gpu__env_number(text, r[0], r[1], unit, &v)) {
        check(v == 12345, "gpu__env_number wrote a refused value");
        return;
    }
    check(v >= r[0] && v <= r[1], "gpu__env_number: a value out of its range");
    check(digits_at == 0 || r[0] < 0, "gpu__env_number: a sign where the range has none");
    if (unit == GPU__ENV_UNIT_BYTES && end > 0 && strchr("KMG", text[end - 1]))
        end--;
    check(end > digits_at, "gpu__env_number: no digits");
    for (size_t i = digits_at; i < end; i++)
        check(text[i] >= '0' && text[i] <= '9', "gpu__env_number: something other than digits");
    snprintf(back, sizeof(back), "%lld", v);
    check(gpu__env_number(back, r[0], r[1], GPU__ENV_UNIT_NONE, &again) && again == v,
          "gpu__env_number: the value in digits is not taken back");
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const unsigned char *nul = memchr(data, '\0', size);
    size_t first = nul ? (size_t)(nul - data) : size;
    char *libcuda = dup_n(data, first);
    const unsigned char *nul2 = nul ? memchr(nul + 1, '\0', size - first - 1) : NULL;
    char *nonblocking = nul ? dup_n(nul + 1, (size_t)((nul2 ? nul2 : data + size) - (nul + 1))) : NULL;
    char *value;
    const gpu_load_report *r;
    gpu_status st;
    unsigned flags;

    if (libcuda[0] == '@') {
        value = strdup(FAKE_PATH);
    } else if (libcuda[0] == '/') {
        value = malloc(first + 32);
        if (value)
            snprintf(value, first + 32, "/nonexistent-gpushim-fuzz%s", libcuda);
    } else {
        value = strdup(libcuda);
    }
    check(value != NULL, "out of memory");
    setenv("GPUSHIM_LIBCUDA", value, 1);
    gpu__driver_forget();
    st = gpu_driver_load();
    r = gpu_driver_get_report();
    check(st == GPU_OK || st == GPU_ERR_NO_DRIVER, "gpu_driver_load: an unexpected status");
    check((st == GPU_OK) == (r->stage == GPU_LOAD_READY), "the status and the report disagree");
    check(r->stage != GPU_LOAD_IN_PROGRESS && r->stage != GPU_LOAD_NOT_STARTED, "the load did not finish");
    check(r->attempt_count == 1, "GPUSHIM_LIBCUDA must be the one attempt");
    check(strncmp(r->attempts[0].path, value, 4096) == 0, "the attempt is not the value");
    check(st == GPU_OK || (r->message[0] != '\0' && gpu_last_error_get_message()[0] != '\0'), "a failure without a reason");
    check(value[0] == '/' || strstr(r->attempts[0].error, "is not an absolute path") != NULL,
          "a relative value was not refused");

    flags = gpu__stream_flags_from_env(nonblocking);
    check(flags == (nonblocking && strcmp(nonblocking, "1") == 0 ? GPU_STREAM_NON_BLOCKING : GPU_STREAM_DEFAULT),
          "gpu__stream_flags_from_env: only exactly \"1\" is non-blocking");
    if (st == GPU_OK) {
        gpu_stream *s = NULL;

        if (nonblocking)
            setenv(GPU_STREAM_NONBLOCKING_ENV, nonblocking, 1);
        else
            unsetenv(GPU_STREAM_NONBLOCKING_ENV);
        check(gpu_stream_create(NULL, &s) == GPU_OK, "gpu_stream_create against the fake");
        gpu_stream_destroy(s);
    }
    if (nul2 && nul2 + 1 < data + size) {
        char *text = dup_n(nul2 + 2, (size_t)(data + size - (nul2 + 2)));

        number(text, nul2[1]);
        free(text);
    }
    free(value);
    free(libcuda);
    free(nonblocking);
    return 0;
}
