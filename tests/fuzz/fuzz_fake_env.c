/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's configuration, fuzzed: the input's first byte picks a
 * GPUSHIM_FAKE_* variable, the bytes after it up to a NUL are its value, and
 * the fake reads its environment again (fake_configure_again). Whatever the
 * value, nothing aborts or crashes: it is taken, or it is a configuration
 * error whose message names the variable, and then cuInit returns
 * CUDA_ERROR_INVALID_VALUE with that message as cuGetErrorString's. A value
 * taken leaves the fake in its domains (0 to 8 devices, each with memory).
 * GPUSHIM_FAKE_KERNELS is left out: it loads code from the paths it names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_core.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char *const variables[] = {
    "GPUSHIM_FAKE_DEVICES",       "GPUSHIM_FAKE_DEVICE",        "GPUSHIM_FAKE_ATTRIBUTES",
    "GPUSHIM_FAKE_DEVICE_NAME",   "GPUSHIM_FAKE_DEVICE_MEMORY", "GPUSHIM_FAKE_COMPUTE_CAPABILITY",
    "GPUSHIM_FAKE_VERSION",       "GPUSHIM_FAKE_INIT_FAIL",     "GPUSHIM_FAKE_INIT_DELAY_MS",
    "GPUSHIM_FAKE_INIT_CALLBACK", "GPUSHIM_FAKE_FAIL",          "GPUSHIM_FAKE_OMIT",
    "GPUSHIM_FAKE_GPA_TWIN",      "GPUSHIM_FAKE_PEER",          "GPUSHIM_FAKE_MEMORY_LIMIT",
    "GPUSHIM_FAKE_LOSE",          "GPUSHIM_FAKE_STALL",         "GPUSHIM_FAKE_STICKY",
    "GPUSHIM_FAKE_PROGRESS",      "GPUSHIM_FAKE_REPORT",        "GPUSHIM_FAKE_THREADS",
    "GPUSHIM_FAKE_CHECK",         "GPUSHIM_FAKE_WATCHDOG",
};

static void check(int ok, const char *what, const char *var, const char *value)
{
    if (!ok) {
        fprintf(stderr, "fuzz-fake-env: %s=%s: %s\n", var, value, what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const char *var;
    const char *note, *text = NULL;
    char *value;
    size_t n;

    if (size == 0)
        return 0;
    var = variables[data[0] % (sizeof(variables) / sizeof(variables[0]))];
    n = strnlen((const char *)data + 1, size - 1);
    value = malloc(n + 1);
    check(value != NULL, "out of memory", var, "");
    memcpy(value, data + 1, n);
    value[n] = '\0';
    setenv(var, value, 1);
    fake_configure_again();
    note = fake_config_note(CUABI_ERROR_INVALID_VALUE);
    if (note) {
        check(strncmp(note, var, strlen(var)) == 0 && note[strlen(var)] == '=', "the message names another variable",
              var, value);
        /* Before any delay or callback: a refused configuration is answered at once. */
        check(cuInit(0) == CUABI_ERROR_INVALID_VALUE, "cuInit did not refuse the configuration", var, value);
        check(cuGetErrorString(CUABI_ERROR_INVALID_VALUE, &text) == CUABI_SUCCESS && text == note,
              "cuGetErrorString is not the message", var, value);
    } else {
        check(fake.device_count >= 0 && fake.device_count <= FAKE_MAX_DEVICES, "a device count out of range", var,
              value);
        for (int i = 0; i < fake.device_count; i++)
            check(fake.devices[i].desc.total_memory > 0 && fake.devices[i].desc.multiprocessors > 0,
                  "a device without memory or multiprocessors", var, value);
    }
    unsetenv(var);
    free(value);
    return 0;
}
