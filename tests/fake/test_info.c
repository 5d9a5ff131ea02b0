/* SPDX-License-Identifier: MIT */
/*
 * gpushim-info against the fake driver: a failing
 * cuDeviceGetCount has its own status and says why; every failed self-test
 * step has a detail; --json is valid UTF-8 JSON whatever bytes a path holds;
 * output that cannot be written is an error; --timeout says what is stuck.
 * argv[1] is the program; GPUSHIM_LIBCUDA names the fake. Each case sets the
 * fake's environment for the runs it makes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>

#include "../../tools/info_json.h"

static const char *program;
static const char *fake_path;
static char out[65536];

/* Runs the program with `args` (and `redirect`, e.g. "> /dev/full"); its exit status, its output in `out`. */
static int run(const char *args, const char *redirect)
{
    char cmd[4096];
    FILE *p;
    size_t n;
    int status;

    snprintf(cmd, sizeof(cmd), "'%s' %s %s", program, args, redirect ? redirect : "2>&1");
    p = popen(cmd, "r");
    assert_non_null(p);
    n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    status = pclose(p);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void fake_env(const char *var, const char *value)
{
    unsetenv("GPUSHIM_FAKE_FAIL");
    unsetenv("GPUSHIM_FAKE_INIT_DELAY_MS");
    unsetenv("GPUSHIM_FAKE_INIT_FAIL");
    setenv("GPUSHIM_LIBCUDA", fake_path, 1);
    if (var)
        setenv(var, value, 1);
}

/* The whole of `s` is valid UTF-8 with no raw control character but newlines: what a JSON reader accepts. */
static void assert_utf8_json_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);

    for (size_t i = 0; i < len;) {
        size_t n = info_utf8_sequence(p + i, len - i);

        if (n == 0)
            fail_msg("byte %zu (0x%02x) is not valid UTF-8", i, p[i]);
        if (p[i] < 0x20 && p[i] != '\n')
            fail_msg("byte %zu is a raw control character", i);
        i += n;
    }
}

static void device_count_fails(void **state)
{
    (void)state;
    fake_env("GPUSHIM_FAKE_FAIL", "cuDeviceGetCount:1:999");
    assert_int_equal(run("--no-self-test", NULL), 4);
    assert_non_null(strstr(out, "devices: unknown: GPU_ERR_DRIVER: cuDeviceGetCount: CUDA_ERROR_UNKNOWN (999)"));
    assert_null(strstr(out, "devices: 0"));
    assert_int_equal(run("--json --no-self-test", NULL), 4);
    assert_non_null(strstr(out, "\"device_count_error\": \"GPU_ERR_DRIVER: cuDeviceGetCount: CUDA_ERROR_UNKNOWN"));
}

/* Every failed step has a detail, the one that failed without a gpushim error too. */
static void self_test_details(void **state)
{
    char *line;

    (void)state;
    /* cuEventQuery says "not ready" after the synchronise: gpushim succeeds, the step fails. */
    fake_env("GPUSHIM_FAKE_FAIL", "cuEventQuery:1+:600");
    assert_int_equal(run("", NULL), 3);
    line = strstr(out, "  event   FAILED  ");
    assert_non_null(line);
    assert_non_null(strstr(line, "GPU_ERR_EVENT: the event was not complete"));
    for (line = strstr(out, "FAILED  "); line; line = strstr(line + 1, "FAILED  ")) {
        const char *detail = line + strlen("FAILED  ");

        if (*detail == '\n' || *detail == '\0' || strncmp(detail, "GPU_ERR_", 8) != 0)
            fail_msg("a failed step without a detail: %.80s", line);
        if (strncmp(strchr(detail, ':'), ": \n", 3) == 0)
            fail_msg("a failed step with an empty detail: %.80s", line);
    }
}

/* The self-test passes on the fake: its kernel runs as the preset host implementation of gpushim_add_one. */
static void self_test_passes(void **state)
{
    (void)state;
    fake_env(NULL, NULL);
    assert_int_equal(run("", NULL), 0);
    assert_non_null(strstr(out, "  kernel  ok      JIT-compiled PTX ("));
    assert_non_null(strstr(out, "4096 words each incremented once"));
    assert_non_null(strstr(out, "  graph   ok  "));
    assert_null(strstr(out, "FAILED"));
}

static void json_any_bytes(void **state)
{
    (void)state;
    fake_env(NULL, NULL);
    setenv("GPUSHIM_LIBCUDA", "/tmp/\xff\xfe\xc3\x28\xed\xa0\x80\xe2\x82\xac\x01.so", 1);
    assert_int_equal(run("--json", NULL), 1);
    assert_utf8_json_text(out);
    /* Each invalid byte one replacement character; valid UTF-8 (the euro sign) as it was. */
    assert_non_null(strstr(out, "\"/tmp/\\ufffd\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd\xe2\x82\xac\\u0001.so\""));
}

static void write_errors(void **state)
{
    (void)state;
    fake_env(NULL, NULL);
    assert_int_equal(run("--no-self-test", "> /dev/full 2>/dev/null"), 74);
    assert_int_equal(run("--json --no-self-test", "> /dev/full 2>/dev/null"), 74);
    assert_int_equal(run("--help", "> /dev/full 2>/dev/null"), 74);
    assert_int_equal(run("--no-self-test", "2>&1 > /dev/full"), 74);
    assert_non_null(strstr(out, "could not write the output"));
}

static void timeout_says_what_is_stuck(void **state)
{
    struct timespec t0, t1;

    (void)state;
    fake_env("GPUSHIM_FAKE_INIT_DELAY_MS", "600000");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(run("--timeout 0.5 --no-self-test", NULL), 5);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* Not a timing claim: the point is that it returns at all, long before cuInit would. */
    assert_true(t1.tv_sec - t0.tv_sec < 60);
    assert_non_null(strstr(out, "the load has not finished after 0.5 s; it is stuck in cuInit of"));
    assert_non_null(strstr(out, fake_path));
    assert_int_equal(run("--json --timeout=0.5", NULL), 5);
    assert_non_null(strstr(out, "\"stage\": \"in progress\""));
    assert_non_null(strstr(out, "\"timed_out\": true"));
    assert_non_null(strstr(out, "\"step\": \"cuInit\""));
    /* Given time, the same slow load finishes. */
    fake_env("GPUSHIM_FAKE_INIT_DELAY_MS", "200");
    assert_int_equal(run("--timeout 30 --no-self-test", NULL), 0);
    assert_int_equal(run("--timeout 0", NULL), 64);
    assert_int_equal(run("--timeout", NULL), 64);
    assert_int_equal(run("--timeout 1e3", NULL), 64);
    assert_int_equal(run("--timeout 86401", NULL), 64);
}

/* The exact report as printed: each entry's real `via` counted; cuInit's result, 0xFFFFFFFF too, apart from "called". */
static void report_exact(void **state)
{
    const char *line;
    int gpa = -1, dl = -1;

    (void)state;
    fake_env("GPUSHIM_FAKE_FAIL", "cuGetProcAddress:1+:1");
    assert_int_equal(run("--no-self-test", NULL), 0);
    line = strstr(out, "entry points at 12000: ");
    assert_non_null(line);
    assert_int_equal(sscanf(line, "entry points at 12000: %d resolved with cuGetProcAddress_v2, %d with dlsym;", &gpa,
                            &dl), 2);
    assert_int_equal(gpa, 0);
    assert_true(dl > 40);
    assert_int_equal(run("--json --no-self-test", NULL), 0);
    line = strstr(out, "\"resolved\": {\"cuGetProcAddress_v2\": 0, \"dlsym\": ");
    assert_non_null(line);
    assert_int_equal(atoi(line + strlen("\"resolved\": {\"cuGetProcAddress_v2\": 0, \"dlsym\": ")), dl);
    fake_env("GPUSHIM_FAKE_INIT_FAIL", "4294967295");
    assert_int_equal(run("", NULL), 1);
    assert_non_null(strstr(out, "cuInit returned 4294967295 (0xffffffff)"));
    assert_int_equal(run("--json", NULL), 1);
    assert_non_null(strstr(out, "\"init_called\": true,\n  \"init_result\": 4294967295,"));
    fake_env(NULL, NULL);
    assert_int_equal(run("--json --no-self-test", NULL), 0);
    assert_non_null(strstr(out, "\"init_called\": true,\n  \"init_result\": 0,"));
    setenv("GPUSHIM_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    assert_int_equal(run("--json", NULL), 1);
    assert_non_null(strstr(out, "\"init_called\": false,"));
}

/* The fake says it is gpushim's fake driver, not a GPU, in text and JSON; no other library does. */
static void says_it_is_the_fake(void **state)
{
    (void)state;
    fake_env(NULL, NULL);
    assert_int_equal(run("--no-self-test", NULL), 0);
    assert_non_null(strstr(out, "  this is gpushim's fake driver (gpushim-fakecuda "));
    assert_non_null(strstr(out, "): a CUDA driver simulated in host memory, not a GPU\n"));
    assert_int_equal(run("--json --no-self-test", NULL), 0);
    assert_non_null(strstr(out, "\n  \"fake_driver\": \"gpushim-fakecuda "));
    assert_utf8_json_text(out);
    setenv("GPUSHIM_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    assert_int_equal(run("--json", NULL), 1);
    assert_non_null(strstr(out, "\n  \"fake_driver\": null,"));
    assert_int_equal(run("", NULL), 1);
    assert_null(strstr(out, "fake driver"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_count_fails),
        cmocka_unit_test(self_test_details),
        cmocka_unit_test(self_test_passes),
        cmocka_unit_test(json_any_bytes),
        cmocka_unit_test(write_errors),
        cmocka_unit_test(timeout_says_what_is_stuck),
        cmocka_unit_test(report_exact),
        cmocka_unit_test(says_it_is_the_fake),
    };

    fake_path = getenv("GPUSHIM_LIBCUDA");
    if (argc != 2 || !fake_path)
        return 2;
    program = argv[1];
    return cmocka_run_group_tests_name("gpushim-info against the fake", tests, NULL, NULL);
}
