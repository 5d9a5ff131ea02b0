/* SPDX-License-Identifier: MIT */
/*
 * What the table holds, tracing off and on: argv[1] is "off" or "on" (the
 * checker sets GPUSHIM_TRACE for "on"). Off, every pointer is the driver's
 * own export, so a call costs what it cost before tracing existed; on, every
 * pointer the driver has is a wrapper outside the driver, and an optional
 * entry point it lacks stays NULL. Linked with the static library, to read
 * the table itself.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

int main(int argc, char **argv)
{
    const char *lib = getenv("GPUSHIM_LIBCUDA");
    bool on = argc > 1 && strcmp(argv[1], "on") == 0;
    const struct gpu__driver *drv = NULL;
    void *handle;
    int bad = 0, checked = 0;

    if (argc < 2 || (!on && strcmp(argv[1], "off") != 0) || !lib) {
        fprintf(stderr, "usage: GPUSHIM_LIBCUDA=... %s off|on\n", argv[0]);
        return 64;
    }
    if (gpu__driver_get(&drv) != GPU_OK || !(handle = dlopen(lib, RTLD_NOW | RTLD_NOLOAD))) {
        fprintf(stderr, "the fake driver did not load\n");
        return 1;
    }
#define GPU__ENTRY(need, name, symbol, params, args) \
    { \
        void *own = dlsym(handle, #symbol), *got; \
        Dl_info info = {0}; \
        memcpy(&got, &drv->name, sizeof(got)); \
        checked++; \
        if (!on && got != own) { \
            fprintf(stderr, "off: %s is %p, the driver's %s is %p\n", #name, got, #symbol, own); \
            bad++; \
        } else if (on && own && (got == own || !dladdr(got, &info) || !info.dli_fname || \
                                 strstr(info.dli_fname, "fakecuda"))) { \
            fprintf(stderr, "on: %s is %p (%s), not a wrapper\n", #name, got, info.dli_fname); \
            bad++; \
        } else if (on && !own && got) { \
            fprintf(stderr, "on: %s, which the driver lacks, is %p\n", #name, got); \
            bad++; \
        } \
    }
#include "entry_points.h"
#undef GPU__ENTRY
    printf("TRACE_TABLE %s: %d entry points checked, %d wrong\n", argv[1], checked, bad);
    dlclose(handle);
    return bad ? 1 : 0;
}
