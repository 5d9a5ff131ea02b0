/* SPDX-License-Identifier: MIT */
/*
 * The two environment values gpushim reads, fuzzed: GPUSHIM_LIBCUDA (the
 * bytes before the input's first NUL) and GPUSHIM_STREAM_NONBLOCKING (the bytes
 * after it). The load runs afresh for each input (gpu__driver_forget, in
 * this build only). So that the fuzzer opens nothing it should not, a value
 * that starts with '/' is looked up under /nonexistent-gpushim-fuzz, except
 * an input whose first byte is '@', which names the fake driver: the one
 * way to a driver that loads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpushim/gpushim.h>

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

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const unsigned char *nul = memchr(data, '\0', size);
    size_t first = nul ? (size_t)(nul - data) : size;
    char *libcuda = dup_n(data, first);
    char *nonblocking = nul ? dup_n(nul + 1, size - first - 1) : NULL;
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
    free(value);
    free(libcuda);
    free(nonblocking);
    return 0;
}
