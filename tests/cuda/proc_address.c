/* SPDX-License-Identifier: MIT */
/*
 * A program that, as the CUDA runtime does, resolves driver functions through
 * cuGetProcAddress_v2 and calls them through those pointers, run on the fake
 * driver (GPUSHIM_LIBCUDA): linked with libgpushim-cuda, or built with
 * PROC_ADDRESS_DLOPEN, opening libcuda.so.1 itself as the runtime does.
 *
 * usage: proc-address traced|untraced K
 *        proc-address exit N | signal
 * traced: every pointer handed out is libgpushim-cuda's own export of the
 * name the driver chose, so the calls through it are traced; untraced: the
 * driver's own export. Then each function is called K times, and the fake's
 * call counters of the phase are printed as JSON, one line, with the calls
 * the program made by name, for check-proc-address.py to compare with the
 * trace. `exit N` makes one call and returns N; `signal` makes one and ends
 * by SIGTERM (no exit handlers run, so no trace is written), for
 * gpushim-trace's exit status.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cu_result;

enum { PER_THREAD_DEFAULT_STREAM = 2, VERSION = 12000 };

/* One function to resolve: the base name asked, the flags, the export expected, the pointer handed out. */
struct wanted {
    const char *base;
    unsigned long long flags;
    const char *symbol;
    void *pfn;
    long calls;
};

/*
 * Where the driver's exports are looked up: built with PROC_ADDRESS_DLOPEN,
 * the libcuda.so.1 the dynamic loader finds, opened as the CUDA runtime
 * opens it; else the program's own, those of the libgpushim-cuda it links.
 */
static void *driver_exports(void)
{
#ifdef PROC_ADDRESS_DLOPEN
    return dlopen("libcuda.so.1", RTLD_NOW);
#else
    return RTLD_DEFAULT;
#endif
}

#ifndef PROC_ADDRESS_DLOPEN
/* A reference that keeps libgpushim-cuda among the program's libraries (the link is --as-needed). */
cu_result cuInit(unsigned flags);
cu_result (*volatile proc_address_linked)(unsigned) = cuInit;
#endif

static int fail(const char *what, int rc)
{
    fprintf(stderr, "proc-address: %s: %d\n", what, rc);
    return 1;
}

int main(int argc, char **argv)
{
    struct wanted w[] = {
        {"cuInit", 0, "cuInit", NULL, 0},
        {"cuDriverGetVersion", 0, "cuDriverGetVersion", NULL, 0},
        {"cuDeviceGetCount", 0, "cuDeviceGetCount", NULL, 0},
        {"cuDeviceGet", 0, "cuDeviceGet", NULL, 0},
        {"cuDeviceTotalMem", 0, "cuDeviceTotalMem_v2", NULL, 0},
        {"cuDevicePrimaryCtxRetain", 0, "cuDevicePrimaryCtxRetain", NULL, 0},
        {"cuDevicePrimaryCtxRelease", 0, "cuDevicePrimaryCtxRelease_v2", NULL, 0},
        {"cuCtxSetCurrent", 0, "cuCtxSetCurrent", NULL, 0},
        {"cuStreamQuery", PER_THREAD_DEFAULT_STREAM, "cuStreamQuery_ptsz", NULL, 0},
        {"cuGetProcAddress", 0, "cuGetProcAddress_v2", NULL, 0},
    };
    enum { N = sizeof(w) / sizeof(w[0]) };
    const char *driver = getenv("GPUSHIM_LIBCUDA");
    void *fake;
    long (*fake_calls)(const char *);
    long before[N + 1], direct_gpa;
    int traced, k, version = 0, rc;
    void *exports = driver_exports();
    cu_result (*cuDriverGetVersion)(int *) = NULL;
    cu_result (*cuGetProcAddress_v2)(const char *, void **, int, unsigned long long, int *) = NULL;

#ifdef PROC_ADDRESS_DLOPEN
    if (!exports)
        return fail("libcuda.so.1 does not open", 0);
#endif
    *(void **)&cuDriverGetVersion = dlsym(exports, "cuDriverGetVersion");
    *(void **)&cuGetProcAddress_v2 = dlsym(exports, "cuGetProcAddress_v2");
    if (!cuDriverGetVersion || !cuGetProcAddress_v2)
        return fail("no cuDriverGetVersion or cuGetProcAddress_v2", 0);

    if (argc == 3 && strcmp(argv[1], "exit") == 0)
        return cuDriverGetVersion(&version) == 0 ? atoi(argv[2]) : 1;
    if (argc == 2 && strcmp(argv[1], "signal") == 0) {
        cuDriverGetVersion(&version);
        raise(SIGTERM);
        return 1;
    }
    if (argc != 3 || (strcmp(argv[1], "traced") != 0 && strcmp(argv[1], "untraced") != 0) || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: proc-address traced|untraced K | exit N | signal\n");
        return 2;
    }
    traced = strcmp(argv[1], "traced") == 0;
    k = atoi(argv[2]);
    /* The first call loads the driver; the phase counted starts after it. */
    if ((rc = cuDriverGetVersion(&version)) != 0)
        return fail("cuDriverGetVersion", rc);
    fake = driver ? dlopen(driver, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!fake)
        return fail("the fake driver is not loaded (GPUSHIM_LIBCUDA)", 0);
    *(void **)&fake_calls = dlsym(fake, "gpu_fake_calls");
    if (!fake_calls)
        return fail("gpu_fake_calls", 0);
    for (int i = 0; i < N; i++)
        before[i] = fake_calls(w[i].symbol);
    before[N] = fake_calls("cuCtxSynchronize");

    for (int i = 0; i < N; i++) {
        int status = -1;
        void *expected = dlsym(traced ? exports : fake, w[i].symbol);

        rc = cuGetProcAddress_v2(w[i].base, &w[i].pfn, VERSION, w[i].flags, &status);
        if (rc != 0 || status != 0 || !w[i].pfn)
            return fail(w[i].base, rc ? rc : status);
        if (w[i].pfn != expected) {
            fprintf(stderr, "proc-address: %s: %p handed out, %s's %s at %p expected\n", w[i].base, w[i].pfn,
                    traced ? "libgpushim-cuda" : "the driver", w[i].symbol, expected);
            return 1;
        }
    }
    direct_gpa = N;

    for (int j = 0; j < k; j++) {
        cu_result (*init)(unsigned) = NULL;
        cu_result (*get_version)(int *) = NULL;
        cu_result (*get_count)(int *) = NULL;
        cu_result (*get)(int *, int) = NULL;
        cu_result (*total_mem)(size_t *, int) = NULL;
        cu_result (*retain)(void **, int) = NULL;
        cu_result (*release)(int) = NULL;
        cu_result (*set_current)(void *) = NULL;
        cu_result (*query)(void *) = NULL;
        cu_result (*gpa)(const char *, void **, int, unsigned long long, int *) = NULL;
        cu_result (*sync)(void) = NULL;
        void *ctx = NULL, *sync_p = NULL;
        int count = 0, dev = -1, status = -1;
        size_t bytes = 0;

        memcpy(&init, &w[0].pfn, sizeof(void *));
        memcpy(&get_version, &w[1].pfn, sizeof(void *));
        memcpy(&get_count, &w[2].pfn, sizeof(void *));
        memcpy(&get, &w[3].pfn, sizeof(void *));
        memcpy(&total_mem, &w[4].pfn, sizeof(void *));
        memcpy(&retain, &w[5].pfn, sizeof(void *));
        memcpy(&release, &w[6].pfn, sizeof(void *));
        memcpy(&set_current, &w[7].pfn, sizeof(void *));
        memcpy(&query, &w[8].pfn, sizeof(void *));
        memcpy(&gpa, &w[9].pfn, sizeof(void *));
        if ((rc = init(0)) || (rc = get_version(&version)) || (rc = get_count(&count)) || (rc = get(&dev, 0)) ||
            (rc = total_mem(&bytes, dev)) || (rc = retain(&ctx, dev)) || (rc = set_current(ctx)) ||
            (rc = query(NULL)) || (rc = gpa("cuCtxSynchronize", &sync_p, VERSION, 0, &status)) || !sync_p)
            return fail("a call through a pointer cuGetProcAddress_v2 handed out", rc);
        memcpy(&sync, &sync_p, sizeof(void *));
        if ((rc = sync()) || (rc = set_current(NULL)) || (rc = release(dev)))
            return fail("a call through a pointer cuGetProcAddress_v2 handed out", rc);
    }
    /* Each was called K times through its pointer, cuCtxSetCurrent twice; cuGetProcAddress_v2 N times directly. */
    for (int i = 0; i < N; i++)
        w[i].calls = k;
    w[7].calls = 2L * k;
    w[9].calls += direct_gpa;

    printf("{\"k\":%d,\"calls\":{", k);
    for (int i = 0; i < N; i++)
        printf("\"%s\":[%ld,%ld],", w[i].symbol, w[i].calls, fake_calls(w[i].symbol) - before[i]);
    printf("\"cuCtxSynchronize\":[%d,%ld]}}\n", k, fake_calls("cuCtxSynchronize") - before[N]);
    return 0;
}
