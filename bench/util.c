/* SPDX-License-Identifier: MIT */
/*
 * The benchmarks' own helpers; see util.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

bool bench_gpu_ready(const char *name)
{
    char why[512];

    if (gpu_test_find_device(why, sizeof(why)))
        return true;
    printf("%s: skipped: %s\n", name, why);
    return false;
}

void bench_die(const char *what, gpu_status st)
{
    printf("FAILED: %s: %s (CUresult %d): %s\n", what, gpu_status_get_name(st), gpu_last_error_get_cuda_result(),
           gpu_last_error_get_message());
    exit(1);
}

gpu_function *bench_function(const char *name)
{
    gpu_function *f = NULL;

    BENCH_CHECK(gpu_test_load_kernels());
    BENCH_CHECK(gpu_module_get_function(gpu_test_module(), name, &f));
    return f;
}
