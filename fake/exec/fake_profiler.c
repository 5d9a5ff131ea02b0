/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's profiler control (cudaProfiler.h): there is no profiler
 * to start or stop, so both succeed with a current context and do nothing,
 * as the driver's do when no profiling tool is attached.
 */
#include "fake_context.h"
#include "fake_core.h"

static cuabi_result profiler_call(enum fake_entry entry)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    return fake_end(rc);
}

cuabi_result cuProfilerStart(void)
{
    return profiler_call(FAKE_E_cuProfilerStart);
}

cuabi_result cuProfilerStop(void)
{
    return profiler_call(FAKE_E_cuProfilerStop);
}
