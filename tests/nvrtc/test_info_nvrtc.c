/* SPDX-License-Identifier: MIT */
/*
 * gpushim-info's NVRTC part, in text and JSON.
 * usage: test-info-nvrtc GPUSHIM_INFO missing|real
 *   missing: GPUSHIM_LIBNVRTC names no file: "not usable", with the path tried.
 *   real:    NVRTC as found here: its file, version and architectures (77 where none loads).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *info;
static const char *mode;

static void run(const char *args, char *out, size_t size)
{
    char cmd[1024];
    FILE *p;
    size_t n;

    snprintf(cmd, sizeof(cmd), "'%s' %s --no-self-test 2>&1", info, args);
    p = popen(cmd, "r");
    assert_non_null(p);
    n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    pclose(p);
}

static void text_and_json_describe_nvrtc(void **state)
{
    char out[65536];

    (void)state;
    run("", out, sizeof(out));
    if (strcmp(mode, "missing") == 0) {
        assert_non_null(strstr(out, "nvrtc: not usable (failed at stage: open)"));
        assert_non_null(strstr(out, "/nonexistent/gpushim-test/libnvrtc.so.13: cannot open shared object file"));
    } else {
        assert_null(strstr(out, "nvrtc: not usable"));
        assert_non_null(strstr(out, "nvrtc: /"));
        assert_non_null(strstr(out, "  NVRTC 1"));
        assert_non_null(strstr(out, "  architectures: "));
        assert_non_null(strstr(out, " 90"));
    }
    run("--json", out, sizeof(out));
    assert_non_null(strstr(out, "  \"nvrtc\": {\n    \"usable\": "));
    if (strcmp(mode, "missing") == 0) {
        assert_non_null(strstr(out, "\"usable\": false,\n    \"stage\": \"open\""));
        assert_non_null(strstr(out, "\"path\": \"/nonexistent/gpushim-test/libnvrtc.so.13\""));
    } else {
        assert_non_null(strstr(out, "\"usable\": true,\n    \"stage\": \"ready\""));
        assert_non_null(strstr(out, "\"architectures\": [75, "));
    }
    /* Still one JSON object: it ends where it should. */
    assert_int_equal(out[0], '{');
    assert_non_null(strstr(out, "\n  }\n}\n"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(text_and_json_describe_nvrtc)};
    char out[65536];

    if (argc < 3)
        return 64;
    info = argv[1];
    mode = argv[2];
    if (strcmp(mode, "real") == 0) {
        run("", out, sizeof(out));
        if (strstr(out, "nvrtc: not usable")) {
            puts("skipped: no NVRTC here");
            return 77;
        }
    }
    return cmocka_run_group_tests_name("info-nvrtc", tests, NULL, NULL);
}
