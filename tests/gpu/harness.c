/* SPDX-License-Identifier: MIT */
/*
 * The gpu suite's start; see harness.h. The rest is tests/support.
 */
#include <stdio.h>

#include "harness.h"

int gpu_test_start(const char *program)
{
    char why[512];
    gpu_status st;

    if (!gpu_test_find_device(why, sizeof(why))) {
        printf("SKIP %s: %s\n", program, why);
        return GPU_TEST_SKIP;
    }
    st = gpu_test_load_kernels();
    if (st != GPU_OK) {
        printf("FAIL %s: cannot load %s (%s): %s\n", program, gpu_test_ptx_path(), gpu_status_get_name(st),
               gpu_last_error_get_message());
        return 1;
    }
    return 0;
}
