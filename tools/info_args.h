/* SPDX-License-Identifier: MIT */
/*
 * gpushim-info's command line, apart from the program so that it can be
 * tested and fuzzed on its own. Also the exit statuses, documented in
 * usage() and gpushim-info(1).
 */
#ifndef GPUSHIM_INFO_ARGS_H
#define GPUSHIM_INFO_ARGS_H

#include <stdbool.h>
#include <stdio.h>

enum {
    INFO_EXIT_OK = 0,
    INFO_EXIT_NO_DRIVER = 1,    /* no usable driver */
    INFO_EXIT_NO_DEVICE = 2,    /* a usable driver that counts no device */
    INFO_EXIT_SELF_TEST = 3,    /* the self-test failed */
    INFO_EXIT_DEVICE_COUNT = 4, /* cuDeviceGetCount failed: how many devices is not known */
    INFO_EXIT_TIMEOUT = 5,      /* --timeout: the driver's load had not finished in time */
    INFO_EXIT_USAGE = 64,       /* a usage error */
    INFO_EXIT_WRITE = 74,       /* the output could not be written */
};

/* The longest --timeout: a day. */
#define INFO_TIMEOUT_MAX 86400.0

struct info_options {
    bool json;
    bool self_test;
    bool help;
    double timeout_s; /* 0: wait for the load however long it takes */
};

/*
 * Parses argv[1..argc-1] into *out (defaults: text, self-test, no timeout).
 * Returns INFO_EXIT_OK, or INFO_EXIT_USAGE after writing why to `err`.
 * argv[i] may hold any bytes; nothing is kept past the call but *out.
 */
int info_args_parse(int argc, char *const argv[], struct info_options *out, FILE *err);

/* The usage text, with the exit statuses. */
void info_usage(FILE *f);

#endif
