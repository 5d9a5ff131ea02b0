/* SPDX-License-Identifier: MIT */
/*
 * libgpushim loaded with dlopen by a program that does not link it:
 * argv[1] names the object, libgpushim.so or a plugin embedding
 * libgpushim.a; GPUSHIM_LIBCUDA names the fake driver, or, unset, the real
 * one is used (the gpu suite: exit 77 without one). The object opens, loads
 * the driver and reports through gpu_last_error_get_message() 100 times over, with
 * dlclose between; then a child forked after the load is refused with
 * GPU_ERR_FORKED. A plain program, not cmocka: each failure says what and
 * exits 1.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpushim/gpushim.h>

enum { CYCLES = 100 };

struct api {
    void *handle;
    gpu_status (*driver_load)(void);
    gpu_status (*driver_version)(int *);
    const gpu_load_report *(*driver_report)(void);
    const char *(*last_error)(void);
};

static _Noreturn void fail(const char *what, const char *detail)
{
    fprintf(stderr, "test-dlopen: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void *sym(void *handle, const char *name)
{
    void *p = dlsym(handle, name);

    if (!p)
        fail("dlsym", name);
    return p;
}

static void api_open(struct api *a, const char *path)
{
    void *p;

    a->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!a->handle)
        fail("dlopen", dlerror());
    p = sym(a->handle, "gpu_driver_load");
    memcpy(&a->driver_load, &p, sizeof(p));
    p = sym(a->handle, "gpu_driver_get_version");
    memcpy(&a->driver_version, &p, sizeof(p));
    p = sym(a->handle, "gpu_driver_get_report");
    memcpy(&a->driver_report, &p, sizeof(p));
    p = sym(a->handle, "gpu_last_error_get_message");
    memcpy(&a->last_error, &p, sizeof(p));
}

/* How often the fake's cuInit ran: asked of the fake itself, which gpushim has open. */
static long fake_init_calls(void)
{
    void *fake = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    long (*calls)(const char *);
    void *p;
    long n;

    if (!fake)
        fail("the fake driver is not loaded", getenv("GPUSHIM_LIBCUDA"));
    p = sym(fake, "gpu_fake_calls");
    memcpy(&calls, &p, sizeof(p));
    n = calls("cuInit");
    dlclose(fake);
    return n;
}

static void use(const struct api *a)
{
    int version = 0;

    if (a->driver_load() != GPU_OK && !getenv("GPUSHIM_LIBCUDA")) {
        printf("skipped: no usable driver: %s\n", a->last_error());
        exit(77);
    }
    if (a->driver_load() != GPU_OK)
        fail("gpu_driver_load", a->last_error());
    if (a->driver_report()->stage != GPU_LOAD_READY)
        fail("the report is not ready", a->driver_report()->message);
    if (a->driver_version(&version) != GPU_OK || version <= 0)
        fail("gpu_driver_get_version", a->last_error());
    /* A formatted message: the per-thread buffer works in every instance. */
    if (a->driver_version(NULL) != GPU_ERR_INVALID_ARG || !strstr(a->last_error(), "gpu_driver_get_version: out is NULL"))
        fail("an argument error was not reported", a->last_error());
}

int main(int argc, char **argv)
{
    struct api a;
    int status = 0;
    long inits;
    pid_t pid;

    if (argc != 2)
        fail("usage: [GPUSHIM_LIBCUDA=fake] test-dlopen LIBRARY", NULL);
    for (int i = 0; i < CYCLES; i++) {
        api_open(&a, argv[1]);
        use(&a);
        if (dlclose(a.handle) != 0)
            fail("dlclose", dlerror());
    }
    api_open(&a, argv[1]);
    use(&a);
    inits = getenv("GPUSHIM_LIBCUDA") ? fake_init_calls() : 1;
    /*
     * libgpushim.so is never unloaded: its one load stands, and cuInit ran
     * once. A plugin embedding the archive is unloaded by dlclose and loads
     * the driver afresh in each instance: once a cycle, at most.
     */
    if (inits < 1 || inits > CYCLES + 1)
        fail("cuInit ran an unexpected number of times", NULL);
    if (strstr(argv[1], "libgpushim.so") && inits != 1)
        fail("libgpushim.so was unloaded: cuInit ran more than once", NULL);
    printf("%d cycles of dlopen, load, dlclose: cuInit ran %ld time(s)\n", CYCLES, inits);

    pid = fork();
    if (pid < 0)
        fail("fork", NULL);
    if (pid == 0) {
        alarm(30);
        _exit(a.driver_load() == GPU_ERR_FORKED && strstr(a.last_error(), "fork()") ? 0 : 1);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail("the child forked after the load was not refused with GPU_ERR_FORKED", NULL);
    use(&a);
    dlclose(a.handle);
    printf("ok: the child got GPU_ERR_FORKED; the parent still works\n");
    return 0;
}
