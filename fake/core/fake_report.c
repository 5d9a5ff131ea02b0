/* SPDX-License-Identifier: MIT */
/*
 * What the fake says about itself: its identity, which gpushim's loader looks
 * up to tell it from a real driver, and the report of what is still alive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "fake_core.h"
#include "fake_report.h"

FAKE_API const char *gpu_fake_identify(void)
{
    return "gpushim-fakecuda " FAKE_VERSION;
}

/* ---- The report at exit ---- */

enum { REPORT_OFF, REPORT_ON, REPORT_STRICT };

/* The exit status of GPUSHIM_FAKE_REPORT=strict when something is alive. */
#define FAKE_REPORT_STRICT_STATUS 86

static int report_mode;

static const struct {
    const char *one, *many;
} kind_names[GPU_FAKE_LIVE_KIND_COUNT] = {
    [GPU_FAKE_LIVE_DEVICE_ALLOCS] = {"device allocation", "device allocations"},
    [GPU_FAKE_LIVE_HOST_ALLOCS] = {"host allocation", "host allocations"},
    [GPU_FAKE_LIVE_HOST_REGISTERED] = {"registered host range", "registered host ranges"},
    [GPU_FAKE_LIVE_STREAMS] = {"stream", "streams"},
    [GPU_FAKE_LIVE_EVENTS] = {"event", "events"},
    [GPU_FAKE_LIVE_MODULES] = {"module", "modules"},
    [GPU_FAKE_LIVE_GRAPHS] = {"graph", "graphs"},
    [GPU_FAKE_LIVE_GRAPH_EXECS] = {"executable graph", "executable graphs"},
    [GPU_FAKE_LIVE_CONTEXT_RETAINS] = {"primary-context retain", "primary-context retains"},
    [GPU_FAKE_LIVE_CONTEXTS] = {"context", "contexts"},
    [GPU_FAKE_LIVE_VMM_ALLOCS] = {"physical allocation", "physical allocations"},
    [GPU_FAKE_LIVE_VMM_RESERVATIONS] = {"address reservation", "address reservations"},
    [GPU_FAKE_LIVE_LINKS] = {"JIT linker state", "JIT linker states"},
    [GPU_FAKE_LIVE_LIBRARIES] = {"library", "libraries"},
    [GPU_FAKE_LIVE_ARRAYS] = {"CUDA array", "CUDA arrays"},
    [GPU_FAKE_LIVE_MIPMAPPED_ARRAYS] = {"mipmapped array", "mipmapped arrays"},
    [GPU_FAKE_LIVE_TEXTURES] = {"texture object", "texture objects"},
    [GPU_FAKE_LIVE_SURFACES] = {"surface object", "surface objects"},
};

void fake_report_configure(void)
{
    const char *v = gpu__env_raw("GPUSHIM_FAKE_REPORT");

    if (!v || strcmp(v, "0") == 0)
        report_mode = REPORT_OFF;
    else if (strcmp(v, "1") == 0)
        report_mode = REPORT_ON;
    else if (strcmp(v, "strict") == 0)
        report_mode = REPORT_STRICT;
    else
        fake_config_error("GPUSHIM_FAKE_REPORT", NULL, NULL, "wants 0, 1 or strict");
}

/* The driver functions called that the fake does not implement, with their calls, on one line. */
static void report_unimplemented(void)
{
    char line[1024];
    size_t len = 0;
    unsigned long calls = 0;

    fake_lock();
    for (int e = 0; e < FAKE_E_COUNT; e++) {
        unsigned long n = fake.unimplemented[e];

        if (n == 0)
            continue;
        if (len < sizeof(line))
            len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s (%lu)", calls ? ", " : "",
                                    fake_entry_name((enum fake_entry)e), n);
        calls += n;
    }
    fake_unlock();
    if (calls)
        fprintf(stderr, "gpushim-fakecuda: called, not implemented by the fake (CUDA_ERROR_NOT_SUPPORTED): %s\n", line);
}

FAKE_API long gpu_fake_report(void)
{
    char line[512];
    size_t len = 0;
    long total = 0;

    fake_lock();
    len = (size_t)snprintf(line, sizeof(line), "gpushim-fakecuda: ");
    for (int k = 0; k < GPU_FAKE_LIVE_KIND_COUNT; k++) {
        long n = fake.live[k];

        /* The primary-context retains are gpushim's own, held for the life of the process. */
        if (n <= 0 || k == GPU_FAKE_LIVE_CONTEXT_RETAINS)
            continue;
        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%ld %s", total ? ", " : "", n,
                                n == 1 ? kind_names[k].one : kind_names[k].many);
        total += n;
    }
    fake_unlock();
    fprintf(stderr, "%s%s\n", line, total ? " still alive" : "no object still alive");
    report_unimplemented();
    return total;
}

/*
 * At exit, after every atexit handler (gpushim's trace writer among them),
 * as a library's destructors run last. The strict status replaces the
 * program's own, so stdio is flushed first.
 */
__attribute__((destructor)) static void report_at_exit(void)
{
    long alive;

    if (!report_mode)
        return;
    alive = gpu_fake_report();
    if (report_mode == REPORT_STRICT && (alive > 0 || gpu_fake_unimplemented_calls() > 0)) {
        fflush(NULL);
        _exit(FAKE_REPORT_STRICT_STATUS);
    }
}
