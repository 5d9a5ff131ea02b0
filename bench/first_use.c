/* SPDX-License-Identifier: MIT */
/*
 * First use: what loading the driver costs a fresh process, and what having
 * no driver costs.
 *
 *   1. Fresh processes (this program, exec'ed again) each load the driver and
 *      report process start (the parent's clock just before fork) to a usable
 *      table, split by gpu_driver_get_report() into dlopen, symbol resolution and
 *      cuInit. Medians over GPUSHIM_BENCH_PROCS processes.
 *   2. Fresh processes with GPUSHIM_LIBCUDA=/nonexistent/libcuda.so.1 (so this
 *      works on a GPU machine too) time the first call, which fails with
 *      GPU_ERR_NO_DRIVER, and then GPUSHIM_BENCH_CALLS more calls.
 *   3. A trivial program linked with libgpushim against one not linked, each
 *      exec'ed GPUSHIM_BENCH_EXECS times, alternating: start-up medians and
 *      their ratio.
 *
 * Parts 2 and 3 need no GPU. Part 1 reports "skipped: <reason>" without one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#ifndef STARTUP_LINKED
#define STARTUP_LINKED "startup-linked"
#endif
#ifndef STARTUP_PLAIN
#define STARTUP_PLAIN "startup-plain"
#endif

#define T0_ENV "GPUSHIM_BENCH_T0"
#define NO_DRIVER_PATH "/nonexistent/libcuda.so.1"
#define MAX_SAMPLES 1000

static char self[4096];

/* ---- The children. ---- */

static uint64_t parent_t0(void)
{
    const char *v = getenv(T0_ENV);

    return v ? strtoull(v, NULL, 10) : 0;
}

static int child_load(void)
{
    uint64_t t_main = gpu_test_now_ns(), t0 = parent_t0(), t1;
    gpu_status st = gpu_driver_load();
    const gpu_load_report *r;
    int count = 0;

    t1 = gpu_test_now_ns();
    r = gpu_driver_get_report();
    if (st == GPU_OK)
        st = gpu_device_get_count(&count);
    printf("LOAD status=%d exec_ns=%" PRIu64 " load_ns=%" PRIu64 " total_ns=%" PRIu64 " open_ns=%" PRIu64
           " resolve_ns=%" PRIu64 " init_ns=%" PRIu64 " devices=%d\n",
           (int)st, t_main - t0, t1 - t_main, t1 - t0, r->open_ns, r->resolve_ns, r->init_ns, count);
    if (st != GPU_OK)
        printf("REASON %s: %s\n", gpu_status_get_name(st), gpu_last_error_get_message());
    return 0;
}

static int child_no_driver(void)
{
    unsigned calls = gpu_test_env("GPUSHIM_BENCH_CALLS", 5000000);
    unsigned unexpected = 0;
    int count = 0;
    uint64_t t0, t1, t2;
    gpu_status first;

    t0 = gpu_test_now_ns();
    first = gpu_device_get_count(&count);
    t1 = gpu_test_now_ns();
    for (unsigned i = 0; i < calls; i++)
        unexpected += gpu_device_get_count(&count) != GPU_ERR_NO_DRIVER;
    t2 = gpu_test_now_ns();
    printf("NODRIVER status=%d first_ns=%" PRIu64 " per_call_ns=%.3f calls=%u unexpected=%u stage=%s\n", (int)first,
           t1 - t0, (double)(t2 - t1) / calls, calls, unexpected, gpu_load_stage_get_name(gpu_driver_get_report()->stage));
    return 0;
}

/* ---- The parent. ---- */

/* Runs this program with `mode`, returns its stdout (malloc'ed) or NULL. */
static char *run_child(const char *mode, bool no_driver)
{
    char t0[32];
    int fds[2];
    pid_t pid;
    char *text = NULL;
    size_t len = 0, cap = 0;
    int status;

    if (pipe(fds) != 0)
        return NULL;
    snprintf(t0, sizeof(t0), "%" PRIu64, gpu_test_now_ns());
    pid = fork();
    if (pid < 0)
        return NULL;
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        setenv(T0_ENV, t0, 1);
        if (no_driver)
            setenv("GPUSHIM_LIBCUDA", NO_DRIVER_PATH, 1);
        execl(self, self, mode, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        ssize_t got;

        if (len + 512 > cap) {
            char *grown = realloc(text, cap = cap ? cap * 2 : 4096);

            if (!grown)
                break;
            text = grown;
        }
        got = read(fds[0], text + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fds[0]);
    waitpid(pid, &status, 0);
    if (text)
        text[len] = '\0';
    return text;
}

/* fork + exec + wait of `path`, in microseconds. */
static double exec_us(const char *path)
{
    uint64_t t0 = gpu_test_now_ns();
    pid_t pid = fork();
    int status;

    if (pid == 0) {
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("FAILED: running %s\n", path);
        exit(1);
    }
    return (double)(gpu_test_now_ns() - t0) / 1e3;
}

static void row(const char *name, double *v, size_t n, double scale, const char *unit)
{
    double lo = gpu_test_min(v, n) / scale, hi = gpu_test_max(v, n) / scale;

    printf("  %-34s | %12.1f | %12.1f | %12.1f %s\n", name, gpu_test_median(v, n) / scale, lo, hi, unit);
}

static void part_load(unsigned procs)
{
    static double exec_ns[MAX_SAMPLES], load_ns[MAX_SAMPLES], total_ns[MAX_SAMPLES], open_ns[MAX_SAMPLES],
        resolve_ns[MAX_SAMPLES], init_ns[MAX_SAMPLES];
    size_t got = 0;

    for (unsigned i = 0; i < procs; i++) {
        char *out = run_child("--child-load", false);
        int st = -1, devices = 0;
        uint64_t e, l, t, o, r, in;

        if (!out || sscanf(out, "LOAD status=%d exec_ns=%" SCNu64 " load_ns=%" SCNu64 " total_ns=%" SCNu64
                           " open_ns=%" SCNu64 " resolve_ns=%" SCNu64 " init_ns=%" SCNu64 " devices=%d",
                           &st, &e, &l, &t, &o, &r, &in, &devices) != 8) {
            printf("first use: FAILED: a child's report could not be read: %s\n", out ? out : "(none)");
            free(out);
            return;
        }
        if (st != GPU_OK || devices < 1) {
            char *reason = strstr(out, "REASON ");

            if (reason)
                reason[strcspn(reason, "\n")] = '\0';
            printf("first use: load: skipped: %s\n", reason ? reason + 7 : "no CUDA device");
            free(out);
            return;
        }
        exec_ns[got] = (double)e;
        load_ns[got] = (double)l;
        total_ns[got] = (double)t;
        open_ns[got] = (double)o;
        resolve_ns[got] = (double)r;
        init_ns[got] = (double)in;
        got++;
        free(out);
    }
    printf("first use: %zu fresh processes, each loading the driver\n", got);
    printf("  %-34s | %12s | %12s | %12s\n", "stage", "median", "min", "max");
    row("fork+exec to main()", exec_ns, got, 1e3, "us");
    row("dlopen (open_ns)", open_ns, got, 1e3, "us");
    row("symbol resolution (resolve_ns)", resolve_ns, got, 1e3, "us");
    row("cuInit (init_ns)", init_ns, got, 1e3, "us");
    row("gpu_driver_load() in all", load_ns, got, 1e3, "us");
    row("process start to usable table", total_ns, got, 1e3, "us");
    printf("FIRST_USE total_us=%.1f open_us=%.1f resolve_us=%.1f init_us=%.1f\n",
           gpu_test_median(total_ns, got) / 1e3, gpu_test_median(open_ns, got) / 1e3,
           gpu_test_median(resolve_ns, got) / 1e3, gpu_test_median(init_ns, got) / 1e3);
}

static void part_no_driver(unsigned procs)
{
    static double first_ns[MAX_SAMPLES], per_call[MAX_SAMPLES];
    size_t got = 0;
    unsigned calls = 0;

    for (unsigned i = 0; i < procs; i++) {
        char *out = run_child("--child-no-driver", true);
        int st = -1;
        unsigned unexpected = 1;
        uint64_t f;
        double p;

        if (!out || sscanf(out, "NODRIVER status=%d first_ns=%" SCNu64 " per_call_ns=%lf calls=%u unexpected=%u", &st,
                           &f, &p, &calls, &unexpected) != 5 ||
            st != GPU_ERR_NO_DRIVER || unexpected) {
            printf("no driver: FAILED: %s\n", out ? out : "(no output)");
            free(out);
            return;
        }
        first_ns[got] = (double)f;
        per_call[got] = p;
        got++;
        free(out);
    }
    printf("no driver (GPUSHIM_LIBCUDA=%s): %zu fresh processes\n", NO_DRIVER_PATH, got);
    printf("  %-34s | %12s | %12s | %12s\n", "", "median", "min", "max");
    row("first call -> GPU_ERR_NO_DRIVER", first_ns, got, 1e3, "us");
    row("each later call", per_call, got, 1.0, "ns");
    printf("NO_DRIVER first_us=%.1f per_call_ns=%.3f calls=%u\n", gpu_test_median(first_ns, got) / 1e3,
           gpu_test_median(per_call, got), calls);
}

static void part_startup(unsigned execs)
{
    static double linked[MAX_SAMPLES], plain[MAX_SAMPLES];
    double l, p;

    exec_us(STARTUP_LINKED);
    exec_us(STARTUP_PLAIN);
    for (unsigned i = 0; i < execs; i++) {
        if (i % 2) {
            linked[i] = exec_us(STARTUP_LINKED);
            plain[i] = exec_us(STARTUP_PLAIN);
        } else {
            plain[i] = exec_us(STARTUP_PLAIN);
            linked[i] = exec_us(STARTUP_LINKED);
        }
    }
    l = gpu_test_median(linked, execs);
    p = gpu_test_median(plain, execs);
    printf("start-up: a trivial program, fork+exec+wait, %u times each, alternating\n", execs);
    printf("  %-34s | %12s | %12s | %12s\n", "", "median", "min", "max");
    row("linked with libgpushim", linked, execs, 1.0, "us");
    row("not linked", plain, execs, 1.0, "us");
    printf("  ratio linked / not linked: %.3f\n", l / p);
    printf("STARTUP linked_us=%.1f plain_us=%.1f ratio=%.4f\n", l, p, l / p);
}

int main(int argc, char **argv)
{
    unsigned procs = gpu_test_env("GPUSHIM_BENCH_PROCS", 10);
    unsigned execs = gpu_test_env("GPUSHIM_BENCH_EXECS", 200);
    ssize_t n;

    if (argc > 1 && strcmp(argv[1], "--child-load") == 0)
        return child_load();
    if (argc > 1 && strcmp(argv[1], "--child-no-driver") == 0)
        return child_no_driver();
    setvbuf(stdout, NULL, _IOLBF, 0);
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        printf("FAILED: /proc/self/exe: %s\n", strerror(errno));
        return 1;
    }
    self[n] = '\0';
    procs = procs > MAX_SAMPLES ? MAX_SAMPLES : procs;
    execs = execs > MAX_SAMPLES ? MAX_SAMPLES : execs;
    part_load(procs);
    part_no_driver(procs);
    part_startup(execs);
    return 0;
}
