/* SPDX-License-Identifier: MIT */
/*
 * gpushim-info without a driver: exit status 1, and output (text and JSON)
 * that names the path tried and why it failed. argv[1] is the program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

static const char *program;

/* Runs the program with `args`; returns its exit status and its stdout in `out`. */
static int run(const char *args, char *out, size_t size)
{
    char cmd[4096];
    FILE *p;
    size_t n;
    int status;

    snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", program, args);
    p = popen(cmd, "r");
    assert_non_null(p);
    n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    status = pclose(p);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void text_says_why(void **state)
{
    static char out[65536];

    (void)state;
    assert_int_equal(run("", out, sizeof(out)), 1);
    assert_non_null(strstr(out, "driver: not usable (failed at stage: open)"));
    assert_non_null(strstr(out, getenv("GPUSHIM_LIBCUDA")));
    assert_non_null(strstr(out, "No such file or directory"));
}

static void json_says_why(void **state)
{
    static char out[65536];

    (void)state;
    assert_int_equal(run("--json", out, sizeof(out)), 1);
    assert_non_null(strstr(out, "\"usable\": false"));
    assert_non_null(strstr(out, "\"stage\": \"open\""));
    assert_non_null(strstr(out, getenv("GPUSHIM_LIBCUDA")));
    assert_non_null(strstr(out, "\"devices\": ["));
    assert_int_equal(out[0], '{');
}

static void usage_errors_exit_64(void **state)
{
    static char out[4096];

    (void)state;
    assert_int_equal(run("--bogus", out, sizeof(out)), 64);
    assert_non_null(strstr(out, "unknown argument '--bogus'"));
    assert_int_equal(run("--help", out, sizeof(out)), 0);
    assert_non_null(strstr(out, "usage: gpushim-info"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_says_why),
        cmocka_unit_test(json_says_why),
        cmocka_unit_test(usage_errors_exit_64),
    };

    if (argc != 2 || !getenv("GPUSHIM_LIBCUDA"))
        return 2;
    program = argv[1];
    return cmocka_run_group_tests_name("gpushim-info", tests, NULL, NULL);
}
