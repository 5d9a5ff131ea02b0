/* SPDX-License-Identifier: MIT */
/*
 * bench/forward: what a call through libgpushim-cuda costs against the same
 * call through -lcuda's PLT, both in this process, paired rep by rep.
 *
 * Each arm is the same code (forward_arm.c), built once linked with the
 * driver library (the -lcuda arm) and once with libgpushim-cuda (the gpushim
 * arm, whose trampoline jumps through its slot to the same driver's export).
 * With GPUSHIM_LIBCUDA naming libnullcuda (a driver whose calls cost next to
 * nothing), the difference is the forwarding alone; with it unset, both arms
 * reach the real libcuda.so.1 (one instance: gpushim's loader takes the one
 * the -lcuda arm loaded).
 *
 * usage: bench-forward DIRECT_ARM GPUSHIM_ARM    (the arms' shared libraries)
 * Prints one line per call: each arm's median ns per call over the reps, and
 * the median and the spread of the paired differences. Never asserts a time.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "util.h"

enum { REPS = 31, CALLS = 200000, ARMS = 2 };

struct arm {
    const char *path;
    unsigned (*setup)(void **stream, void **event);
    unsigned (*ctx_get_current)(unsigned n);
    unsigned (*stream_query)(void *stream, unsigned n);
    unsigned (*event_query)(void *event, unsigned n);
    void *stream, *event;
};

static void load(struct arm *a, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

    a->path = path;
    if (!h) {
        printf("forward: skipped: %s\n", dlerror());
        exit(BENCH_SKIP);
    }
    *(void **)&a->setup = dlsym(h, "forward_arm_setup");
    *(void **)&a->ctx_get_current = dlsym(h, "forward_arm_ctx_get_current");
    *(void **)&a->stream_query = dlsym(h, "forward_arm_stream_query");
    *(void **)&a->event_query = dlsym(h, "forward_arm_event_query");
    if (!a->setup || !a->ctx_get_current || !a->stream_query || !a->event_query) {
        printf("forward: FAILED: %s lacks the arm's functions\n", path);
        exit(1);
    }
}

static unsigned run(const struct arm *a, int call, unsigned n)
{
    switch (call) {
    case 0:
        return a->ctx_get_current(n);
    case 1:
        return a->stream_query(a->stream, n);
    default:
        return a->event_query(a->event, n);
    }
}

static double ns_per_call(const struct arm *a, int call)
{
    uint64_t t0 = gpu_test_now_ns();
    unsigned bad = run(a, call, CALLS);
    uint64_t t1 = gpu_test_now_ns();

    if (bad) {
        printf("forward: FAILED: %s: a call returned %u\n", a->path, bad);
        exit(1);
    }
    return (double)(t1 - t0) / CALLS;
}

int main(int argc, char **argv)
{
    static const char *const calls[] = {"cuCtxGetCurrent", "cuStreamQuery", "cuEventQuery"};
    struct arm arms[ARMS];
    unsigned rc;

    if (argc != 3) {
        fprintf(stderr, "usage: %s DIRECT_ARM GPUSHIM_ARM\n", argv[0]);
        return 2;
    }
    load(&arms[0], argv[1]);
    load(&arms[1], argv[2]);
    for (int i = 0; i < ARMS; i++) {
        if ((rc = arms[i].setup(&arms[i].stream, &arms[i].event)) != 0) {
            printf("forward: skipped: %s: setting up a context and a stream failed with CUresult %u\n", arms[i].path,
                   rc);
            return BENCH_SKIP;
        }
    }
    printf("forward: driver %s; -lcuda arm %s; gpushim arm %s; %d reps of %d calls, paired\n",
           getenv("GPUSHIM_LIBCUDA") ? getenv("GPUSHIM_LIBCUDA") : "libcuda.so.1", argv[1], argv[2], REPS, CALLS);
    for (int c = 0; c < 3; c++) {
        double direct[REPS], shim[REPS], diff[REPS];

        run(&arms[0], c, CALLS); /* warm both */
        run(&arms[1], c, CALLS);
        for (int r = 0; r < REPS; r++) {
            /* Alternate which arm goes first, so that neither always follows the other. */
            int first = r & 1;

            double a = ns_per_call(&arms[first], c);
            double b = ns_per_call(&arms[!first], c);
            direct[r] = first ? b : a;
            shim[r] = first ? a : b;
            diff[r] = shim[r] - direct[r];
        }
        double lo = gpu_test_min(diff, REPS), hi = gpu_test_max(diff, REPS);
        double d = gpu_test_median(diff, REPS);
        double dm = gpu_test_median(direct, REPS), sm = gpu_test_median(shim, REPS);
        printf("FORWARD call=%s direct_ns=%.3f gpushim_ns=%.3f added_ns_median=%.3f added_ns_min=%.3f "
               "added_ns_max=%.3f ratio=%.4f\n",
               calls[c], dm, sm, d, lo, hi, sm / dm);
    }
    return 0;
}
