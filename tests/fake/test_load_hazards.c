/* SPDX-License-Identifier: MIT */
/*
 * The load under hazard: a driver whose cuInit
 * is slow (GPUSHIM_FAKE_INIT_DELAY_MS) while another thread forks or reads the
 * report; one that calls back into gpushim from cuInit
 * (GPUSHIM_FAKE_INIT_CALLBACK); and a report that must be exact: each entry's
 * real `via` counted, cuInit's result apart from whether it was called (and
 * 0xFFFFFFFF as it is), paths kept whole. argv[1] names the case; the load
 * happens once a process, so meson runs each case as its own test.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_test.h"

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- A callback from inside cuInit is refused, not a deadlock ---- */

static void callback_refused(void **state)
{
    (void)state;
    /* GPUSHIM_FAKE_INIT_CALLBACK=gpu_driver_load: cuInit calls back on the loading thread. */
    FT_OK(gpu_driver_load());
    assert_int_equal(gpu_fake_init_callback_status(), GPU_ERR_NO_DRIVER);
    assert_int_equal(gpu_fake_calls("cuInit"), 1);
    /* The refusal was the callback's; the load itself finished, and later calls see it. */
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_READY);
    FT_OK(gpu_driver_load());
}

static void callback_message(void **state)
{
    (void)state;
    /* GPUSHIM_FAKE_INIT_CALLBACK=gpu_device_count_probe: what the refused call said. */
    FT_OK(gpu_driver_load());
    assert_int_equal(gpu_fake_init_callback_status(), 0);
}

/* Called by the fake's cuInit (through dlsym): checks what a call back from the load gets. */
__attribute__((visibility("default"))) int gpu_device_count_probe(void);
int gpu_device_count_probe(void)
{
    int n = -1;
    const gpu_load_report *r = gpu_driver_get_report();

    if (gpu_device_get_count(&n) != GPU_ERR_NO_DRIVER || n != -1)
        return 1;
    if (!strstr(gpu_last_error_get_message(), "called back from inside the driver's load"))
        return 2;
    /* The report, read from inside the load, says where it is. */
    if (r->stage != GPU_LOAD_IN_PROGRESS || !r->step || strcmp(r->step, "cuInit") != 0)
        return 3;
    if (strcmp(gpu_load_stage_get_name(r->stage), "in progress") != 0 || r->started_ns == 0)
        return 4;
    return 0;
}

/* ---- A slow cuInit, the report meanwhile, and fork() during it ---- */

static void *loader_thread(void *arg)
{
    *(gpu_status *)arg = gpu_driver_load();
    return NULL;
}

/* The child of a fork() during the load: refused at once, cuInit not run again. */
static int child_during_load(void)
{
    uint64_t t0 = now_ns();
    gpu_buffer *b = (gpu_buffer *)&t0;

    alarm(20);
    if (gpu_driver_load() != GPU_ERR_FORKED || !strstr(gpu_last_error_get_message(), "fork()"))
        return 1;
    if (gpu_buffer_create(NULL, 4, &b) != GPU_ERR_FORKED || b != (gpu_buffer *)&t0)
        return 2;
    /* The parent's one call, copied: never a second in this image. */
    if (gpu_fake_calls("cuInit") != 1)
        return 3;
    /* Promptly: not after the parent's cuInit would have returned (GPUSHIM_FAKE_INIT_DELAY_MS=1500). */
    if (now_ns() - t0 > 1000000000u)
        return 4;
    /* The report is the parent's snapshot at the fork, not a second load. */
    if (gpu_driver_get_report()->stage != GPU_LOAD_IN_PROGRESS || gpu_driver_get_report()->attempt_count > 1)
        return 5;
    return 0;
}

static void slow_init(void **state)
{
    pthread_t t;
    gpu_status st = GPU_ERR_DRIVER;
    const gpu_load_report *r;
    uint64_t t0 = now_ns(), deadline = t0 + 10000000000u;
    int status = -1;
    pid_t pid;

    (void)state;
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
    assert_int_equal(pthread_create(&t, NULL, loader_thread, &st), 0);
    /* Until cuInit is entered: the report must say so, with the file and the start. */
    while ((r = gpu_driver_get_report())->stage != GPU_LOAD_IN_PROGRESS || !r->step || strcmp(r->step, "cuInit") != 0) {
        assert_true(now_ns() < deadline);
        usleep(1000);
    }
    assert_string_equal(gpu_load_stage_get_name(r->stage), "in progress");
    assert_non_null(strstr(r->message, "cuInit(0) has not returned"));
    assert_true(r->started_ns >= t0 && r->started_ns <= now_ns());
    assert_non_null(r->file);
    assert_int_equal(r->attempt_count, 1);
    assert_false(r->init_called);
    /* The report names cuInit just before the call enters the driver: wait for the fake to count it. */
    while (gpu_fake_calls("cuInit") != 1) {
        assert_true(now_ns() < deadline);
        usleep(1000);
    }

    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(child_during_load());
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    assert_int_equal(pthread_join(t, NULL), 0);
    FT_OK(st);
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_READY);
    assert_null(r->step);
    assert_true(r->init_called);
    assert_true(r->init_ns >= 1000000000u);
    assert_int_equal(r->attempt_count, 1);
    assert_int_equal(gpu_fake_calls("cuInit"), 1);
}

/* ---- The report is exact ---- */

/* GPUSHIM_FAKE_FAIL=cuGetProcAddress:1+:1: it fails for every entry, and dlsym does all the work. */
static void via_counted(void **state)
{
    const gpu_load_report *r;
    size_t gpa = 0, dl = 0;

    (void)state;
    FT_OK(gpu_driver_load());
    r = gpu_driver_get_report();
    assert_true(r->used_get_proc_address);
    for (size_t i = 0; i < r->entry_count; i++) {
        if (r->entries[i].via && strcmp(r->entries[i].via, "cuGetProcAddress") == 0)
            gpa++;
        else if (r->entries[i].via && strcmp(r->entries[i].via, "dlsym") == 0)
            dl++;
    }
    assert_int_equal(r->via_get_proc_address, gpa);
    assert_int_equal(r->via_dlsym, dl);
    assert_int_equal(gpa, 0);
    assert_int_equal(dl, r->entry_count - r->missing_optional - r->missing_required);
    assert_true(dl > 0);
}

/* GPUSHIM_FAKE_INIT_FAIL=4294967295: cuInit's result as it is, and apart from "was it called". */
static void init_all_ones(void **state)
{
    const gpu_load_report *r;

    (void)state;
    FT_FAIL(gpu_driver_load(), GPU_ERR_NO_DRIVER, -1, "cuInit(0) failed: CUDA_ERROR_UNRECOGNIZED (4294967295)");
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_INIT);
    assert_true(r->init_called);
    assert_true(r->init_result == 0xFFFFFFFFu);
}

/* A directory path of more than 511 bytes under /tmp: 3 levels of 200 characters. */
static void long_dir(char *out, size_t size, bool make)
{
    char name[201];

    memset(name, 'd', 200);
    name[200] = '\0';
    snprintf(out, size, "/tmp/gpushim-long-%d", (int)getpid());
    if (make)
        assert_true(mkdir(out, 0700) == 0 || errno == EEXIST);
    for (int i = 0; i < 3; i++) {
        size_t used = strlen(out);

        snprintf(out + used, size - used, "/%s", name);
        if (make)
            assert_true(mkdir(out, 0700) == 0 || errno == EEXIST);
    }
}

/* GPUSHIM_LIBCUDA, reached through a link whose path is more than 511 bytes: kept whole. */
static void long_paths(void **state)
{
    char dir[1024], path[1200];
    const char *fake_path = getenv("GPUSHIM_LIBCUDA");

    (void)state;
    long_dir(dir, sizeof(dir), true);
    snprintf(path, sizeof(path), "%s/libcuda.so.1", dir);
    assert_true(strlen(path) > 600);
    unlink(path);
    assert_int_equal(symlink(fake_path, path), 0);
    setenv("GPUSHIM_LIBCUDA", path, 1);
    FT_OK(gpu_driver_load());
    assert_int_equal(gpu_driver_get_report()->attempt_count, 1);
    assert_string_equal(gpu_driver_get_report()->attempts[0].path, path);
    assert_null(gpu_driver_get_report()->attempts[0].error);
    unlink(path);
    for (int i = 0; i < 4; i++) {
        rmdir(dir);
        *strrchr(dir, '/') = '\0';
    }
}

/* GPUSHIM_LIBCUDA names a missing file with a path of more than 511 bytes. */
static void long_missing(void **state)
{
    char dir[1024], path[1200];
    const gpu_load_report *r;

    (void)state;
    long_dir(dir, sizeof(dir), false);
    snprintf(path, sizeof(path), "%s/libcuda.so.1", dir);
    setenv("GPUSHIM_LIBCUDA", path, 1);
    FT_FAIL(gpu_driver_load(), GPU_ERR_NO_DRIVER, 0, path);
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_OPEN);
    assert_string_equal(r->attempts[0].path, path);
    assert_non_null(strstr(r->attempts[0].error, path));
    assert_non_null(strstr(r->message, path));
    assert_non_null(strstr(gpu_last_error_get_message(), "No such file or directory"));
}

/* A value longer than any path dlopen takes: kept up to PATH_MAX and more, and the cut said. */
static void huge_path(void **state)
{
    static char path[6002];
    const gpu_load_report *r;

    (void)state;
    path[0] = '/';
    memset(path + 1, 'a', 6000);
    setenv("GPUSHIM_LIBCUDA", path, 1);
    FT_FAIL(gpu_driver_load(), GPU_ERR_NO_DRIVER, 0, "cut: ");
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_OPEN);
    assert_true(strlen(r->attempts[0].path) > 4096);
    assert_non_null(strstr(r->attempts[0].path, "aaaa [... cut: 6001 bytes in all]"));
    assert_int_equal(strncmp(r->attempts[0].path, path, 4096), 0);
    assert_non_null(strstr(r->attempts[0].error, "cut: "));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"callback", cmocka_unit_test(callback_refused)},
        {"callback-message", cmocka_unit_test(callback_message)},
        {"slow-init", cmocka_unit_test(slow_init)},
        {"via", cmocka_unit_test(via_counted)},
        {"init-all-ones", cmocka_unit_test(init_all_ones)},
        {"long-paths", cmocka_unit_test(long_paths)},
        {"long-missing", cmocka_unit_test(long_missing)},
        {"huge-path", cmocka_unit_test(huge_path)},
    };

    /* A deadlock or a hang fails the test, rather than stopping the suite. */
    alarm(60);
    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
