/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "info_args.h"

void info_usage(FILE *f)
{
    fputs("usage: gpushim-info [--json] [--no-self-test] [--timeout SECONDS]\n"
          "Says whether a usable CUDA driver was found and why not; with a GPU, runs a self-test.\n"
          "--timeout SECONDS: if loading the driver takes longer, say what is stuck and exit 5.\n"
          "Exit status: 0 usable driver, 1 no usable driver, 2 no device, 3 self-test failed,\n"
          "4 the device count failed, 5 the load timed out, 64 usage, 74 output not written.\n",
          f);
}

/* A number of seconds in (0, INFO_TIMEOUT_MAX], decimal, nothing after it. */
static bool parse_seconds(const char *text, double *out)
{
    char *end;
    double v;

    if (!text || !*text || strspn(text, "0123456789.") != strlen(text))
        return false;
    errno = 0;
    v = strtod(text, &end);
    if (errno || *end || !isfinite(v) || v <= 0 || v > INFO_TIMEOUT_MAX)
        return false;
    *out = v;
    return true;
}

int info_args_parse(int argc, char *const argv[], struct info_options *out, FILE *err)
{
    struct info_options o = {.self_test = true};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (strcmp(a, "--no-self-test") == 0) {
            o.self_test = false;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o.help = true;
        } else if (strcmp(a, "--timeout") == 0 || strncmp(a, "--timeout=", 10) == 0) {
            const char *v = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);

            if (!parse_seconds(v, &o.timeout_s)) {
                fprintf(err, "gpushim-info: --timeout wants a number of seconds above 0 and at most %.0f\n",
                        INFO_TIMEOUT_MAX);
                info_usage(err);
                return INFO_EXIT_USAGE;
            }
        } else {
            fputs("gpushim-info: unknown argument '", err);
            /* Printed as it is, but no control character reaches the terminal. */
            for (const char *p = a; *p; p++)
                fputc((unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p, err);
            fputs("'\n", err);
            info_usage(err);
            return INFO_EXIT_USAGE;
        }
    }
    *out = o;
    return INFO_EXIT_OK;
}
