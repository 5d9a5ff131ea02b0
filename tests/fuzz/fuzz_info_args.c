/* SPDX-License-Identifier: MIT */
/*
 * gpushim-info's command line (tools/info_args.c): the input split at NUL
 * bytes into up to 63 arguments. Any bytes: a usage error or options within
 * their bounds, never a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "info_args.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static FILE *sink;
    char *copy = malloc(size + 1);
    char *argv[65] = {"gpushim-info"};
    int argc = 1;
    struct info_options o = {0};
    int rc;

    if (!copy)
        abort();
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    memcpy(copy, data, size);
    copy[size] = '\0';
    for (size_t i = 0; i <= size && argc < 64;) {
        argv[argc++] = copy + i;
        i += strlen(copy + i) + 1;
    }
    argv[argc] = NULL;
    rc = info_args_parse(argc, argv, &o, sink);
    if (rc != INFO_EXIT_OK && rc != INFO_EXIT_USAGE)
        abort();
    if (rc == INFO_EXIT_OK && (o.timeout_s < 0 || o.timeout_s > INFO_TIMEOUT_MAX))
        abort();
    free(copy);
    return 0;
}
