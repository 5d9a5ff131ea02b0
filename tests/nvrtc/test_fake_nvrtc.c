/* SPDX-License-Identifier: MIT */
/*
 * gpu_program_* and the cache against fake/nvrtc/, a fake libnvrtc.
 *
 * usage: test-fake-nvrtc MODE
 * The fake libraries' files come in FAKE_NVRTC_LIB and FAKE_NVRTC_BUILTINS_LIB;
 * each mode lays out a folder of them (as an NVRTC install would be) and
 * points gpushim at it before its first call, since NVRTC loads once a process:
 *
 *   api            the API and the cache, with libnvrtc-builtins beside NVRTC
 *   missing        GPUSHIM_LIBNVRTC names no file
 *   relative       GPUSHIM_LIBNVRTC is not absolute
 *   not-nvrtc      GPUSHIM_LIBNVRTC names a library that is no NVRTC ($FAKE_NOT_NVRTC)
 *   broken         an NVRTC without nvrtcCompileProgram ($FAKE_NVRTC_BROKEN_LIB)
 *   old            an NVRTC without cubin output or an architecture list ($FAKE_NVRTC_OLD_LIB)
 *   version-fail   nvrtcVersion fails
 *   version-zero   nvrtcVersion says 0.0
 *   version-odd    nvrtcVersion says 99.7 (no builtins of that version needed)
 *   no-builtins    no libnvrtc-builtins beside NVRTC: compiles fail, saying so
 *   already-loaded the process loaded NVRTC itself first; gpushim shares it
 *   search         no GPUSHIM_LIBNVRTC, and the system loader finds only broken files
 *                  (LD_LIBRARY_PATH): CUDA_HOME, then CUDA_PATH's targets/x86_64-linux/lib,
 *                  where the fake is; its builtins come from there too
 *   library-path   as search, with /usr/local/cuda hidden (a private mount namespace,
 *                  unshare -m; 77 where that is not allowed): GPUSHIM_LIBRARY_PATH's folders
 *   child DIR      (used by api) compile one fixed program with DIR as the cache; exit 10 + the cache state
 */
#include <dirent.h>
#include <grp.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpushim/gpushim.h>

#include "nvrtc_abi.h"

static char folder[256];
static char nvrtc_path[300];
static char self[4096];

static const char kernel_source[] =
    "template <typename T> __global__ void scale(T *x, T a, unsigned n) { }\n"
    "extern \"C\" __global__ void add_one(int *x) { }\n";

/* ---- Helpers ---- */

static const char *need_env(const char *name)
{
    const char *v = getenv(name);

    if (!v || v[0] != '/') {
        fprintf(stderr, "%s must name a file\n", name);
        exit(1);
    }
    return v;
}

/* A folder holding `lib` as libnvrtc.so.12, and the builtins beside it when asked. */
static void make_folder(const char *lib, bool builtins)
{
    char path[400];

    snprintf(folder, sizeof(folder), "/tmp/gpushim-fake-nvrtc-XXXXXX");
    assert_non_null(mkdtemp(folder));
    snprintf(nvrtc_path, sizeof(nvrtc_path), "%s/libnvrtc.so.12", folder);
    assert_int_equal(symlink(lib, nvrtc_path), 0);
    if (builtins) {
        snprintf(path, sizeof(path), "%s/libnvrtc-builtins.so.12.4", folder);
        assert_int_equal(symlink(need_env("FAKE_NVRTC_BUILTINS_LIB"), path), 0);
    }
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[600];

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        struct stat st;

        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int fake_compiles(void)
{
    void *h = dlopen(nvrtc_path, RTLD_NOW | RTLD_NOLOAD);
    int (*count)(void);
    void *sym;

    assert_non_null(h);
    sym = dlsym(h, "fake_nvrtc_compile_count");
    assert_non_null(sym);
    memcpy(&count, &sym, sizeof(sym));
    dlclose(h);
    return count();
}

/* A fresh cache folder, made the one gpushim uses. */
static void fresh_cache(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/gpushim-cache-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("GPUSHIM_CACHE_DIR", dir, 1);
    unsetenv("GPUSHIM_CACHE");
    unsetenv("GPUSHIM_CACHE_MAX_BYTES");
    unsetenv("FAKE_NVRTC_FAIL");
}

static size_t count_files(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t n = 0;

    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);

        if (len > strlen(suffix) && strcmp(de->d_name + len - strlen(suffix), suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

static const gpu_compile_options ptx80 = {GPU_COMPILE_PTX, 80, NULL, 0, false};

/* Compiles `source` with `o`; returns the program (the caller destroys it). */
static gpu_program *compile(const char *source, const gpu_compile_options *o, gpu_status expect)
{
    gpu_program *p;

    assert_int_equal(gpu_program_create(source, "k.cu", NULL, 0, &p), GPU_OK);
    assert_int_equal(gpu_program_add_name_expression(p, "scale<float>"), GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, o), expect);
    return p;
}

static gpu_cache_state compile_state(const char *source, const gpu_compile_options *o)
{
    gpu_program *p = compile(source, o, GPU_OK);
    gpu_cache_state s = gpu_program_get_cache_state(p);

    gpu_program_destroy(p);
    return s;
}

static char *output_text(const gpu_program *p)
{
    const void *data;
    size_t size;

    assert_int_equal(gpu_program_get_output(p, &data, &size), GPU_OK);
    assert_true(size > 0);
    return (char *)data;
}

/* The cache entry a compile of `source` with `o` uses. */
static void entry_path(const char *source, const gpu_compile_options *o, char *path, size_t size)
{
    gpu_program *p = compile(source, o, GPU_OK);

    assert_non_null(gpu_program_get_cache_path(p));
    snprintf(path, size, "%s", gpu_program_get_cache_path(p));
    gpu_program_destroy(p);
}

static int run_child(const char *dir, const char *const *env)
{
    pid_t pid = fork();
    int status;

    assert_true(pid >= 0);
    if (pid == 0) {
        for (const char *const *e = env; e && *e; e += 2)
            setenv(e[0], e[1], 1);
        execl(self, self, "child", dir, (char *)NULL);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* ---- api: compiling ---- */

static void ptx_names_the_kernels_and_the_target(void **state)
{
    char dir[64];
    gpu_program *p;
    const char *lowered, *log;
    size_t log_size;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    p = compile(kernel_source, &ptx80, GPU_OK);
    assert_non_null(strstr(output_text(p), ".target compute_80\n"));
    assert_int_equal(gpu_program_get_lowered_name(p, "scale<float>", &lowered), GPU_OK);
    assert_string_equal(lowered, "_Z4fakescale_float_");
    assert_non_null(strstr(output_text(p), ".visible .entry _Z4fakescale_float_()"));
    assert_int_equal(gpu_program_get_lowered_name(p, "scale<double>", &lowered), GPU_ERR_FUNCTION_NOT_FOUND);
    assert_non_null(strstr(gpu_last_error_get_message(), "scale<double>"));
    assert_int_equal(gpu_program_get_log(p, &log, &log_size), GPU_OK);
    assert_string_equal(log, "");
    assert_int_equal(log_size, 0);
    assert_int_equal(gpu_program_get_cache_state(p), GPU_CACHE_MISS);
    assert_null(gpu_program_get_cache_warning(p));
    gpu_program_destroy(p);
    remove_tree(dir);
}

static void cubin_is_for_the_sm_and_binary(void **state)
{
    gpu_compile_options o = {GPU_COMPILE_CUBIN, 90, NULL, 0, false};
    char dir[64];
    gpu_program *p;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    p = compile(kernel_source, &o, GPU_OK);
    assert_memory_equal(output_text(p), "\177ELF", 4);
    assert_non_null(strstr(output_text(p), ".target sm_90\n"));
    gpu_program_destroy(p);
    remove_tree(dir);
}

static void headers_and_options_reach_nvrtc(void **state)
{
    static const char *const options[] = {"-std=c++17", "-DN=4"};
    gpu_program_header headers[] = {{"a.h", "#define A 1\n"}, {"dir/b.h", "#define B 2\n"}};
    gpu_compile_options o = {GPU_COMPILE_PTX, 75, options, 2, false};
    char dir[64];
    gpu_program *p;
    char *text;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    assert_int_equal(gpu_program_create(kernel_source, "named.cu", headers, 2, &p), GPU_OK);
    /* Copied: the caller's strings may go. */
    headers[0].name = "changed";
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_OK);
    text = output_text(p);
    assert_non_null(strstr(text, "// fake PTX of named.cu\n"));
    assert_non_null(strstr(text, "// option -std=c++17\n// option -DN=4\n// option --gpu-architecture=compute_75\n"));
    assert_non_null(strstr(text, "// header a.h\n// header dir/b.h\n"));
    gpu_program_destroy(p);
    remove_tree(dir);
}

static void a_compile_error_is_gpu_err_compile_with_the_log(void **state)
{
    char dir[64];
    gpu_program *p;
    const char *log;
    const void *data;
    size_t size;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    p = compile("#error this kernel is broken\n", &ptx80, GPU_ERR_COMPILE);
    assert_non_null(strstr(gpu_last_error_get_message(), "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION (6)"));
    assert_non_null(strstr(gpu_last_error_get_message(), "k.cu(1): error: #error this kernel is broken"));
    assert_int_equal(gpu_program_get_log(p, &log, &size), GPU_OK);
    assert_non_null(strstr(log, "1 error detected"));
    assert_int_equal(size, strlen(log));
    assert_int_equal(gpu_program_get_output(p, &data, &size), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_compile(p, NULL, &ptx80), GPU_ERR_INVALID_ARG);
    /* Nothing stored for a failed compile. */
    assert_int_equal(count_files(dir, ".bin"), 0);
    gpu_program_destroy(p);
    remove_tree(dir);
}

static void arguments_are_checked_first(void **state)
{
    static const char *const arch_option[] = {"-arch=sm_80"};
    static const char *const null_option[] = {NULL};
    gpu_compile_options o = ptx80;
    gpu_program_header no_name = {NULL, "x"};
    gpu_program *p;
    const void *data;
    const char *s;
    size_t size;
    gpu_module *m;

    (void)state;
    assert_int_equal(gpu_program_create(NULL, NULL, NULL, 0, &p), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_create("x", NULL, NULL, 0, NULL), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_create("x", NULL, NULL, 1, &p), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_create("x", NULL, &no_name, 1, &p), GPU_ERR_INVALID_ARG);
    assert_non_null(strstr(gpu_last_error_get_message(), "header 0 has no name"));
    assert_int_equal(gpu_program_compile(NULL, NULL, NULL), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_add_name_expression(NULL, "x"), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_get_output(NULL, &data, &size), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_get_log(NULL, &s, &size), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_get_lowered_name(NULL, "x", &s), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_load_module(NULL, NULL, &m), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_module_load_source(NULL, NULL, NULL, &m), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_get_cache_state(NULL), GPU_CACHE_OFF);
    assert_null(gpu_program_get_cache_path(NULL));
    assert_null(gpu_program_get_cache_warning(NULL));
    gpu_program_destroy(NULL);

    assert_int_equal(gpu_program_create("x", NULL, NULL, 0, &p), GPU_OK);
    assert_int_equal(gpu_program_add_name_expression(p, ""), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_get_output(p, &data, &size), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_get_lowered_name(p, "x", &s), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_load_module(p, NULL, &m), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_get_log(p, &s, NULL), GPU_OK);
    assert_string_equal(s, "");
    o.options = arch_option;
    o.option_count = 1;
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_ERR_INVALID_ARG);
    assert_non_null(strstr(gpu_last_error_get_message(), "names an architecture"));
    o.options = null_option;
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_ERR_INVALID_ARG);
    o.options = NULL;
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_ERR_INVALID_ARG);
    o = ptx80;
    o.arch = 5;
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_ERR_INVALID_ARG);
    o = ptx80;
    o.target = (gpu_compile_target)7;
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_ERR_INVALID_ARG);
    /* None of those counted as the program's one compile. */
    unsetenv("GPUSHIM_CACHE_DIR");
    setenv("GPUSHIM_CACHE", "0", 1);
    assert_int_equal(gpu_program_compile(p, NULL, &ptx80), GPU_OK);
    assert_int_equal(gpu_program_add_name_expression(p, "late"), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_program_compile(p, NULL, &ptx80), GPU_ERR_INVALID_ARG);
    gpu_program_destroy(p);
}

static void the_device_arch_needs_the_driver(void **state)
{
    gpu_program *p;
    gpu_module *m;

    (void)state;
    /* The test environment names no usable driver (GPUSHIM_LIBCUDA). */
    setenv("GPUSHIM_CACHE", "0", 1);
    p = compile(kernel_source, NULL, GPU_ERR_NO_DRIVER);
    gpu_program_destroy(p);
    assert_int_equal(gpu_module_load_source(NULL, "extern \"C\" __global__ void k() {}", &ptx80, &m),
                     GPU_ERR_NO_DRIVER);
}

/* Every NVRTC call a compile makes, failing in turn: a clear error naming it, nothing leaked. */
static void each_nvrtc_call_failing_in_turn(void **state)
{
    static const char *const calls[] = {
#define GPU__NVRTC_ENTRY(need, ret, name, params) #name,
#include "nvrtc_entry_points.h"
#undef GPU__NVRTC_ENTRY
    };
    gpu_compile_options cubin = {GPU_COMPILE_CUBIN, 90, NULL, 0, false};
    char dir[64];
    int failed = 0;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        for (int t = 0; t < 2; t++) {
            gpu_compile_options o = t ? cubin : ptx80;
            gpu_program *p;
            gpu_status st;

            o.no_cache = true;
            setenv("FAKE_NVRTC_FAIL", calls[i], 1);
            assert_int_equal(gpu_program_create(kernel_source, NULL, NULL, 0, &p), GPU_OK);
            assert_int_equal(gpu_program_add_name_expression(p, "scale<int>"), GPU_OK);
            st = gpu_program_compile(p, NULL, &o);
            unsetenv("FAKE_NVRTC_FAIL");
            if (st != GPU_OK) {
                failed++;
                assert_int_equal(st, GPU_ERR_COMPILE);
                assert_non_null(strstr(gpu_last_error_get_message(), calls[i]));
                assert_non_null(strstr(gpu_last_error_get_message(), "NVRTC_ERROR_INTERNAL_ERROR (11)"));
            }
            gpu_program_destroy(p);
        }
    }
    /* Create, add, compile, log size, log, lowered: both targets; PTX size, PTX; cubin size, cubin. */
    assert_int_equal(failed, 6 * 2 + 2 + 2);
    assert_int_equal(count_files(dir, ".bin"), 0);
    remove_tree(dir);
}

struct thread_job {
    int index;
    gpu_status status;
    bool right_output;
};

static void *compile_in_thread(void *arg)
{
    struct thread_job *job = arg;
    char source[128], expect[64];
    gpu_program *p;

    snprintf(source, sizeof(source), "extern \"C\" __global__ void k%d() {}\n", job->index % 4);
    snprintf(expect, sizeof(expect), "void k%d()", job->index % 4);
    job->status = gpu_program_create(source, NULL, NULL, 0, &p);
    if (job->status != GPU_OK)
        return NULL;
    job->status = gpu_program_compile(p, NULL, &ptx80);
    if (job->status == GPU_OK) {
        const void *data;
        size_t size;

        job->right_output = gpu_program_get_output(p, &data, &size) == GPU_OK && strstr(data, expect) != NULL;
    }
    gpu_program_destroy(p);
    return NULL;
}

static void threads_compile_at_once(void **state)
{
    enum { THREADS = 16 };
    pthread_t threads[THREADS];
    struct thread_job jobs[THREADS];
    char dir[64];

    (void)state;
    fresh_cache(dir, sizeof(dir));
    setenv("FAKE_NVRTC_DELAY_MS", "20", 1);
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (struct thread_job){i, GPU_ERR_DRIVER, false};
        assert_int_equal(pthread_create(&threads[i], NULL, compile_in_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        assert_int_equal(jobs[i].status, GPU_OK);
        assert_true(jobs[i].right_output);
    }
    unsetenv("FAKE_NVRTC_DELAY_MS");
    /* Four programs, however many threads raced to store each. */
    assert_int_equal(count_files(dir, ".bin"), 4);
    assert_int_equal(count_files(dir, ".tmp"), 0);
    remove_tree(dir);
}

/* ---- api: the cache ---- */

static void a_hit_is_the_same_output_without_nvrtc(void **state)
{
    char dir[64];
    gpu_program *a, *b;
    const void *da, *db;
    size_t sa, sb;
    const char *la, *lb;
    int before;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    a = compile("#warning keep me\n", &ptx80, GPU_OK);
    assert_int_equal(gpu_program_get_cache_state(a), GPU_CACHE_MISS);
    before = fake_compiles();
    b = compile("#warning keep me\n", &ptx80, GPU_OK);
    assert_int_equal(fake_compiles(), before);
    assert_int_equal(gpu_program_get_cache_state(b), GPU_CACHE_HIT);
    assert_string_equal(gpu_program_get_cache_path(a), gpu_program_get_cache_path(b));
    assert_int_equal(strncmp(gpu_program_get_cache_path(b), dir, strlen(dir)), 0);
    assert_int_equal(gpu_program_get_output(a, &da, &sa), GPU_OK);
    assert_int_equal(gpu_program_get_output(b, &db, &sb), GPU_OK);
    assert_int_equal(sa, sb);
    assert_memory_equal(da, db, sa);
    assert_int_equal(gpu_program_get_lowered_name(b, "scale<float>", &lb), GPU_OK);
    assert_int_equal(gpu_program_get_lowered_name(a, "scale<float>", &la), GPU_OK);
    assert_string_equal(la, lb);
    /* The compile's warnings come back with a hit. */
    assert_int_equal(gpu_program_get_log(b, &lb, NULL), GPU_OK);
    assert_non_null(strstr(lb, "warning: #warning keep me"));
    gpu_program_destroy(a);
    gpu_program_destroy(b);
    assert_int_equal(count_files(dir, ".bin"), 1);
    remove_tree(dir);
}

static void the_key_covers_everything_that_changes_the_output(void **state)
{
    static const char *const opt_a[] = {"-DX=1"};
    static const char *const opt_b[] = {"-DX=2"};
    gpu_compile_options o = ptx80;
    gpu_program_header h1 = {"h.h", "1"}, h2 = {"h.h", "2"}, h3 = {"g.h", "1"};
    char dir[64];
    gpu_program *p;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    assert_int_equal(compile_state(kernel_source, &o), GPU_CACHE_MISS);
    assert_int_equal(compile_state(kernel_source, &o), GPU_CACHE_HIT);
    assert_int_equal(compile_state("extern \"C\" __global__ void other() {}", &o), GPU_CACHE_MISS);
    o.arch = 86;
    assert_int_equal(compile_state(kernel_source, &o), GPU_CACHE_MISS);
    o.target = GPU_COMPILE_CUBIN;
    assert_int_equal(compile_state(kernel_source, &o), GPU_CACHE_MISS);
    o.options = opt_a;
    o.option_count = 1;
    assert_int_equal(compile_state(kernel_source, &o), GPU_CACHE_MISS);
    o.options = opt_b;
    assert_int_equal(compile_state(kernel_source, &o), GPU_CACHE_MISS);
    assert_int_equal(compile_state(kernel_source, &o), GPU_CACHE_HIT);
    /* Headers: content and name. */
    for (int i = 0; i < 4; i++) {
        const gpu_program_header *h = i == 0 ? &h1 : i == 1 ? &h2 : i == 2 ? &h3 : &h1;

        assert_int_equal(gpu_program_create(kernel_source, "k.cu", h, 1, &p), GPU_OK);
        assert_int_equal(gpu_program_compile(p, NULL, &ptx80), GPU_OK);
        assert_int_equal(gpu_program_get_cache_state(p), i < 3 ? GPU_CACHE_MISS : GPU_CACHE_HIT);
        gpu_program_destroy(p);
    }
    /* Name expressions. */
    assert_int_equal(gpu_program_create(kernel_source, "k.cu", NULL, 0, &p), GPU_OK);
    assert_int_equal(gpu_program_add_name_expression(p, "scale<double>"), GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, &ptx80), GPU_OK);
    assert_int_equal(gpu_program_get_cache_state(p), GPU_CACHE_MISS);
    gpu_program_destroy(p);
    /* The NVRTC version: another process, with another version, misses; the same one hits. */
    assert_int_equal(run_child(dir, (const char *const[]){"FAKE_NVRTC_VERSION", "12.4", NULL}), 10 + GPU_CACHE_MISS);
    assert_int_equal(run_child(dir, (const char *const[]){"FAKE_NVRTC_VERSION", "12.4", NULL}), 10 + GPU_CACHE_HIT);
    assert_int_equal(run_child(dir, (const char *const[]){"FAKE_NVRTC_VERSION", "12.5", "FAKE_NVRTC_BUILTINS", "0",
                                                          NULL}),
                     10 + GPU_CACHE_MISS);
    remove_tree(dir);
}

static void write_bytes(const char *path, long offset, const void *data, size_t size, bool truncate_after)
{
    int fd = open(path, O_WRONLY);

    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, data, size, offset), (ssize_t)size);
    if (truncate_after)
        assert_int_equal(ftruncate(fd, offset + (long)size), 0);
    close(fd);
}

static void expect_replaced(const char *why)
{
    gpu_program *p = compile(kernel_source, &ptx80, GPU_OK);

    assert_int_equal(gpu_program_get_cache_state(p), GPU_CACHE_REPLACED);
    assert_non_null(gpu_program_get_cache_warning(p));
    assert_non_null(strstr(gpu_program_get_cache_warning(p), why));
    assert_non_null(strstr(output_text(p), "// source:\n"));
    gpu_program_destroy(p);
    /* Replaced by a good entry. */
    assert_int_equal(compile_state(kernel_source, &ptx80), GPU_CACHE_HIT);
}

static void bad_entries_are_compiled_again_and_replaced(void **state)
{
    char dir[64], path[512], other[512];
    struct stat st;
    gpu_compile_options o86 = ptx80;
    char buf[8192];
    ssize_t n;
    int fd;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    entry_path(kernel_source, &ptx80, path, sizeof(path));
    assert_int_equal(stat(path, &st), 0);

    /* One byte of the payload flipped. */
    write_bytes(path, st.st_size - 3, "#", 1, false);
    expect_replaced("checksum");
    /* Cut short. */
    assert_int_equal(truncate(path, st.st_size / 2), 0);
    expect_replaced("truncated");
    assert_int_equal(truncate(path, 10), 0);
    expect_replaced("truncated");
    /* Longer than its header says. */
    write_bytes(path, st.st_size, "tail", 4, true);
    expect_replaced("bytes after its end");
    /* Not gpushim's at all. */
    write_bytes(path, 0, "ELF? no, a stranger's file with enough bytes to pass for a header......", 72, true);
    expect_replaced("not a gpushim cache entry");
    /* Another format version. */
    write_bytes(path, 8, "\x07\x00\x00\x00", 4, false);
    expect_replaced("another format");
    /* A whole, valid entry of another key under this name. */
    o86.arch = 86;
    entry_path(kernel_source, &o86, other, sizeof(other));
    fd = open(other, O_RDONLY);
    assert_true(fd >= 0);
    n = read(fd, buf, sizeof(buf));
    close(fd);
    assert_true(n > 0);
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, buf, (size_t)n), n);
    close(fd);
    expect_replaced("another key");
    /* Another user's file, even a good entry: root can make one here; others cannot, and skip it. */
    if (chown(path, 65534, 65534) == 0)
        expect_replaced("belongs to another user");
    else
        printf("  (not root: the other user's entry is not tried)\n");
    remove_tree(dir);
}

static void old_entries_go_first_when_the_cap_is_passed(void **state)
{
    char dir[64], paths[4][512], cap[32];
    const char *sources[4] = {"extern \"C\" __global__ void a() {}", "extern \"C\" __global__ void b() {}",
                              "extern \"C\" __global__ void c() {}", "extern \"C\" __global__ void d() {}"};
    struct stat st;
    long long total = 0;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    for (int i = 0; i < 3; i++) {
        struct timespec times[2];

        entry_path(sources[i], &ptx80, paths[i], sizeof(paths[i]));
        assert_int_equal(stat(paths[i], &st), 0);
        total += st.st_size;
        /* a oldest, then b, then c: an hour apart, whatever the clock's grain. */
        times[0].tv_sec = times[1].tv_sec = time(NULL) - 3600 * (3 - i);
        times[0].tv_nsec = times[1].tv_nsec = 0;
        assert_int_equal(utimensat(AT_FDCWD, paths[i], times, 0), 0);
    }
    /* A hit makes a the most recently used. */
    assert_int_equal(compile_state(sources[0], &ptx80), GPU_CACHE_HIT);
    /* Room for three entries of this size: the fourth pushes out the least recently used, b. */
    snprintf(cap, sizeof(cap), "%lld", total + total / 6);
    setenv("GPUSHIM_CACHE_MAX_BYTES", cap, 1);
    entry_path(sources[3], &ptx80, paths[3], sizeof(paths[3]));
    assert_int_equal(stat(paths[0], &st), 0);
    assert_int_equal(stat(paths[1], &st), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(stat(paths[2], &st), 0);
    assert_int_equal(stat(paths[3], &st), 0);
    /* A cap below one entry keeps the newest entry alone. */
    setenv("GPUSHIM_CACHE_MAX_BYTES", "1", 1);
    assert_int_equal(compile_state(sources[1], &ptx80), GPU_CACHE_MISS);
    assert_int_equal(count_files(dir, ".bin"), 1);
    assert_int_equal(compile_state(sources[1], &ptx80), GPU_CACHE_HIT);
    /* A cap that is no number: a warning, and the default cap. */
    setenv("GPUSHIM_CACHE_MAX_BYTES", "lots", 1);
    {
        gpu_program *p = compile(sources[2], &ptx80, GPU_OK);

        assert_non_null(gpu_program_get_cache_warning(p));
        assert_non_null(strstr(gpu_program_get_cache_warning(p), "not a number"));
        gpu_program_destroy(p);
    }
    assert_int_equal(count_files(dir, ".bin"), 2);
    remove_tree(dir);
}

static void two_processes_at_once_both_succeed(void **state)
{
    char dir[64];
    pid_t pids[2];

    (void)state;
    fresh_cache(dir, sizeof(dir));
    for (int i = 0; i < 2; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            /* Both compile for 300 ms, so neither finds the other's entry. */
            setenv("FAKE_NVRTC_DELAY_MS", "300", 1);
            execl(self, self, "child", dir, (char *)NULL);
            _exit(127);
        }
    }
    for (int i = 0; i < 2; i++) {
        int status;

        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 10 + GPU_CACHE_MISS);
    }
    assert_int_equal(count_files(dir, ".bin"), 1);
    assert_int_equal(count_files(dir, ".tmp"), 0);
    assert_int_equal(run_child(dir, NULL), 10 + GPU_CACHE_HIT);
    remove_tree(dir);
}

static void an_unusable_cache_is_a_warning_not_a_failure(void **state)
{
    char dir[64], path[512];
    gpu_program *p;
    int before;

    (void)state;
    /* A folder that cannot be made (even by root). */
    fresh_cache(dir, sizeof(dir));
    setenv("GPUSHIM_CACHE_DIR", "/dev/null/gpushim", 1);
    p = compile(kernel_source, &ptx80, GPU_OK);
    assert_int_equal(gpu_program_get_cache_state(p), GPU_CACHE_OFF);
    assert_non_null(strstr(gpu_program_get_cache_warning(p), "cannot make /dev/null/gpushim"));
    assert_null(gpu_program_get_cache_path(p));
    gpu_program_destroy(p);
    /* A relative folder is refused. */
    setenv("GPUSHIM_CACHE_DIR", "relative/cache", 1);
    p = compile(kernel_source, &ptx80, GPU_OK);
    assert_non_null(strstr(gpu_program_get_cache_warning(p), "not an absolute path"));
    gpu_program_destroy(p);
    /* An entry that cannot be written: a folder stands where the file would go. */
    setenv("GPUSHIM_CACHE_DIR", dir, 1);
    entry_path(kernel_source, &ptx80, path, sizeof(path));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    p = compile(kernel_source, &ptx80, GPU_OK);
    assert_int_equal(gpu_program_get_cache_state(p), GPU_CACHE_MISS);
    assert_non_null(strstr(gpu_program_get_cache_warning(p), "is not a regular file"));
    assert_non_null(strstr(gpu_program_get_cache_warning(p), "not written"));
    assert_int_equal(count_files(dir, ".tmp"), 0);
    gpu_program_destroy(p);
    remove_tree(dir);
    /* Turned off, or skipped for one compile: NVRTC compiles each time, nothing is stored. */
    fresh_cache(dir, sizeof(dir));
    setenv("GPUSHIM_CACHE", "0", 1);
    before = fake_compiles();
    p = compile(kernel_source, &ptx80, GPU_OK);
    assert_int_equal(gpu_program_get_cache_state(p), GPU_CACHE_OFF);
    assert_null(gpu_program_get_cache_warning(p));
    assert_null(gpu_program_get_cache_path(p));
    gpu_program_destroy(p);
    unsetenv("GPUSHIM_CACHE");
    {
        gpu_compile_options o = ptx80;

        o.no_cache = true;
        assert_int_equal(compile_state(kernel_source, &o), GPU_CACHE_OFF);
    }
    assert_int_equal(fake_compiles(), before + 2);
    assert_int_equal(count_files(dir, ".bin"), 0);
    remove_tree(dir);
    /* No folder at all: no GPUSHIM_CACHE_DIR, XDG_CACHE_HOME or HOME. */
    unsetenv("GPUSHIM_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    p = compile(kernel_source, &ptx80, GPU_OK);
    assert_non_null(strstr(gpu_program_get_cache_warning(p), "no folder for it"));
    gpu_program_destroy(p);
}

static void the_cache_folder_follows_xdg_then_home(void **state)
{
    char dir[64], expect[128];
    gpu_program *p;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    unsetenv("GPUSHIM_CACHE_DIR");
    setenv("XDG_CACHE_HOME", dir, 1);
    p = compile(kernel_source, &ptx80, GPU_OK);
    snprintf(expect, sizeof(expect), "%s/gpushim/", dir);
    assert_int_equal(strncmp(gpu_program_get_cache_path(p), expect, strlen(expect)), 0);
    gpu_program_destroy(p);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", dir, 1);
    p = compile(kernel_source, &ptx80, GPU_OK);
    snprintf(expect, sizeof(expect), "%s/.cache/gpushim/", dir);
    assert_int_equal(strncmp(gpu_program_get_cache_path(p), expect, strlen(expect)), 0);
    gpu_program_destroy(p);
    remove_tree(dir);
}

/* ---- api: what the cache trusts ---- */

/* A copy of the file `from` at `to`, mode 0600. */
static void copy_file(const char *from, const char *to)
{
    char buf[8192];
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ssize_t n;

    assert_true(in >= 0 && out >= 0);
    while ((n = read(in, buf, sizeof(buf))) > 0)
        assert_int_equal(write(out, buf, (size_t)n), n);
    close(in);
    close(out);
}

/* Compiles kernel_source as ptx80 and checks where the output came from and, when `why`, the warning. */
static void expect_compile(gpu_cache_state state, const char *why)
{
    gpu_program *p = compile(kernel_source, &ptx80, GPU_OK);

    assert_int_equal(gpu_program_get_cache_state(p), state);
    if (why) {
        if (!gpu_program_get_cache_warning(p) || !strstr(gpu_program_get_cache_warning(p), why))
            fail_msg("the warning \"%s\" does not say \"%s\"", gpu_program_get_cache_warning(p), why);
    }
    assert_non_null(strstr(output_text(p), "// source:\n"));
    gpu_program_destroy(p);
}

/*
 * Entries another writer could have put in the folder are not used: a
 * symbolic link to a file this user owns holding an entry's bytes, a hard
 * link to one, a file writable by its group, a FIFO (which must not block).
 * Each is compiled again and replaced.
 */
static void planted_entries_are_not_trusted(void **state)
{
    char dir[64], path[512], elsewhere[128], victim[192];
    pid_t pid;
    int status;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    entry_path(kernel_source, &ptx80, path, sizeof(path));
    snprintf(elsewhere, sizeof(elsewhere), "/tmp/gpushim-elsewhere-XXXXXX");
    assert_non_null(mkdtemp(elsewhere));
    snprintf(victim, sizeof(victim), "%s/download.bin", elsewhere);
    copy_file(path, victim);
    /* A symbolic link, whoever made it. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink(victim, path), 0);
    expect_compile(GPU_CACHE_REPLACED, "is a symbolic link");
    expect_compile(GPU_CACHE_HIT, NULL);
    /* A hard link to the same bytes. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(link(victim, path), 0);
    expect_compile(GPU_CACHE_REPLACED, "has more than one link");
    /* Writable by the group. */
    assert_int_equal(chmod(path, 0660), 0);
    expect_compile(GPU_CACHE_REPLACED, "writable by other users");
    expect_compile(GPU_CACHE_HIT, NULL);
    /* A FIFO: in a child with an alarm, as an open() that blocks would hang the test. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        gpu_program *p;

        alarm(20);
        if (gpu_program_create(kernel_source, "k.cu", NULL, 0, &p) != GPU_OK ||
            gpu_program_add_name_expression(p, "scale<float>") != GPU_OK ||
            gpu_program_compile(p, NULL, &ptx80) != GPU_OK)
            _exit(2);
        _exit(gpu_program_get_cache_state(p) == GPU_CACHE_REPLACED &&
                      strstr(gpu_program_get_cache_warning(p), "is not a regular file")
                  ? 0
                  : 3);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("a FIFO at the entry's path: the compile %s %d", WIFEXITED(status) ? "exited" : "died of signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    expect_compile(GPU_CACHE_HIT, NULL);
    remove_tree(dir);
    remove_tree(elsewhere);
}

/*
 * The folder: one another user could write into (a shared group folder
 * without the sticky bit) or owns is not used at all, with a warning naming
 * it; a sticky folder of root's (1777, as /tmp) is, with each entry checked.
 */
static void the_folder_is_checked_on_every_compile(void **state)
{
    char dir[64], path[512], other[600], sub[128];
    int before;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    entry_path(kernel_source, &ptx80, path, sizeof(path));
    /* A shared group folder: group-writable, set-group-ID, not sticky. */
    assert_int_equal(chmod(dir, 02770), 0);
    before = fake_compiles();
    {
        gpu_program *p = compile(kernel_source, &ptx80, GPU_OK);

        assert_int_equal(gpu_program_get_cache_state(p), GPU_CACHE_OFF);
        assert_null(gpu_program_get_cache_path(p));
        assert_non_null(strstr(gpu_program_get_cache_warning(p), dir));
        assert_non_null(strstr(gpu_program_get_cache_warning(p), "writable by other users and not sticky"));
        gpu_program_destroy(p);
    }
    assert_int_equal(fake_compiles(), before + 1);
    /* World-writable and sticky, owned by root (or this user): used; entries are checked one by one. */
    assert_int_equal(chmod(dir, 01777), 0);
    if (geteuid() == 0) {
        expect_compile(GPU_CACHE_HIT, NULL);
        /* Another user's file and another user's symbolic link under the entry's name. */
        assert_int_equal(chown(path, 65534, 65534), 0);
        expect_compile(GPU_CACHE_REPLACED, "belongs to another user");
        snprintf(other, sizeof(other), "%s.other", path);
        copy_file(path, other);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(symlink(other, path), 0);
        assert_int_equal(lchown(path, 65534, 65534), 0);
        expect_compile(GPU_CACHE_REPLACED, "is a symbolic link");
        expect_compile(GPU_CACHE_HIT, NULL);
        /* A folder of another user's, however its mode reads. */
        snprintf(sub, sizeof(sub), "%s/theirs", dir);
        assert_int_equal(mkdir(sub, 0755), 0);
        assert_int_equal(chown(sub, 65534, 65534), 0);
        setenv("GPUSHIM_CACHE_DIR", sub, 1);
        expect_compile(GPU_CACHE_OFF, "belongs to another user");
        assert_int_equal(chmod(sub, 01777), 0);
        expect_compile(GPU_CACHE_OFF, "belongs to another user");
        setenv("GPUSHIM_CACHE_DIR", dir, 1);
    } else {
        printf("  (not root: another user's files and folders are not tried here)\n");
    }
    remove_tree(dir);
}

/* Eviction removes only the cache's own files: this user's, named and headed as entries. */
static void eviction_removes_only_its_own(void **state)
{
    const char *names[] = {
        "0123456789abcdef0123456789abcdef.bin", /* an entry's name, not an entry: stays */
        ".0123456789abcdef0123456789abcdef.0123456789abcdef.tmp", /* an old temporary name, not an entry */
        ".notes.tmp",                            /* another program's temporary file */
    };
    char dir[64], path[512], theirs[600], tmp[600], stranger[600];
    struct timespec old[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
    const char *slash;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    assert_int_equal(chmod(dir, 01777), 0);
    entry_path(kernel_source, &ptx80, path, sizeof(path));
    slash = strrchr(path, '/');
    /* Another user's good entry, and its stale temporary file: a sticky folder shared with them. */
    entry_path("extern \"C\" __global__ void theirs() {}", &ptx80, theirs, sizeof(theirs));
    snprintf(tmp, sizeof(tmp), "%s/.%.32s.00000000deadbeef.tmp", dir, slash + 1);
    copy_file(path, tmp);
    assert_int_equal(utimensat(AT_FDCWD, tmp, old, 0), 0);
    assert_int_equal(utimensat(AT_FDCWD, theirs, old, 0), 0);
    if (geteuid() == 0) {
        assert_int_equal(chown(theirs, 65534, 65534), 0);
        assert_int_equal(chown(tmp, 65534, 65534), 0);
    }
    /* This user's files that are not gpushim's, whatever their names. */
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        FILE *f;

        snprintf(stranger, sizeof(stranger), "%s/%s", dir, names[i]);
        f = fopen(stranger, "w");
        assert_non_null(f);
        fputs("not a cache entry, but large enough to be counted against the cap........................", f);
        fclose(f);
        assert_int_equal(utimensat(AT_FDCWD, stranger, old, 0), 0);
    }
    /* The tightest cap: everything the cache may evict goes, except the newest entry. */
    setenv("GPUSHIM_CACHE_MAX_BYTES", "1", 1);
    assert_int_equal(compile_state("extern \"C\" __global__ void e() {}", &ptx80), GPU_CACHE_MISS);
    assert_int_equal(access(path, F_OK), -1); /* this user's own old entry went */
    if (geteuid() == 0) {
        assert_int_equal(access(theirs, F_OK), 0);
        assert_int_equal(access(tmp, F_OK), 0);
    } else {
        /* Not root, the stale temporary file is this user's own (an entry's bytes under a temporary name): it went. */
        assert_int_equal(access(tmp, F_OK), -1);
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(stranger, sizeof(stranger), "%s/%s", dir, names[i]);
        if (access(stranger, F_OK) != 0)
            fail_msg("eviction removed %s, which is not a cache entry", names[i]);
    }
    /* As root: the other user's stale temporary file, made root's own, does go. */
    if (geteuid() == 0) {
        assert_int_equal(chown(tmp, 0, 0), 0);
        assert_int_equal(utimensat(AT_FDCWD, tmp, old, 0), 0);
        assert_int_equal(compile_state("extern \"C\" __global__ void f() {}", &ptx80), GPU_CACHE_MISS);
        assert_int_equal(access(tmp, F_OK), -1);
    }
    unsetenv("GPUSHIM_CACHE_MAX_BYTES");
    remove_tree(dir);
}

/* An entry whose header claims 64 GiB, and a file that big (sparse): refused before any allocation, replaced. */
static void a_huge_claim_is_refused_and_replaced(void **state)
{
    char dir[64], path[512];
    uint64_t claim = (64ull << 30) - 56;
    int fd;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    entry_path(kernel_source, &ptx80, path, sizeof(path));
    fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    /* magic 8, format 4, byte order 4, key 16: the payload's size is at offset 32. */
    assert_int_equal(pwrite(fd, &claim, sizeof(claim), 32), (ssize_t)sizeof(claim));
    assert_int_equal(ftruncate(fd, (off_t)(64ull << 30)), 0);
    close(fd);
    expect_compile(GPU_CACHE_REPLACED, "over the cap");
    expect_compile(GPU_CACHE_HIT, NULL);
    remove_tree(dir);
}

/* ulimit -f below an entry's size: the compile succeeds, the write is a warning, the process lives. */
static void a_file_size_limit_is_a_warning(void **state)
{
    char dir[64];
    pid_t pid;
    int status;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit small = {64, 64};
        gpu_program *p;

        signal(SIGXFSZ, SIG_DFL);
        if (setrlimit(RLIMIT_FSIZE, &small) != 0)
            _exit(2);
        if (gpu_program_create(kernel_source, "k.cu", NULL, 0, &p) != GPU_OK || gpu_program_compile(p, NULL, &ptx80))
            _exit(3);
        if (gpu_program_get_cache_state(p) != GPU_CACHE_MISS || !gpu_program_get_cache_warning(p) ||
            !strstr(gpu_program_get_cache_warning(p), strerror(EFBIG))) {
            fprintf(stderr, "state %d, warning %s\n", gpu_program_get_cache_state(p), gpu_program_get_cache_warning(p));
            _exit(4);
        }
        gpu_program_destroy(p);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("under ulimit -f the compiling process %s %d", WIFEXITED(status) ? "exited" : "died of signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    assert_int_equal(count_files(dir, ".tmp"), 0);
    assert_int_equal(count_files(dir, ".bin"), 0);
    remove_tree(dir);
}

/* GPUSHIM_CACHE and GPUSHIM_CACHE_MAX_BYTES: the documented values, and a warning naming any other. */
static void cache_variables_take_documented_values(void **state)
{
    const char *offs[] = {"0", "off", "false", "no", "OFF"};
    char dir[64];
    int before;

    (void)state;
    fresh_cache(dir, sizeof(dir));
    for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
        setenv("GPUSHIM_CACHE", offs[i], 1);
        before = fake_compiles();
        expect_compile(GPU_CACHE_OFF, NULL);
        assert_int_equal(fake_compiles(), before + 1);
    }
    assert_int_equal(count_files(dir, ".bin"), 0);
    setenv("GPUSHIM_CACHE", "maybe", 1);
    expect_compile(GPU_CACHE_MISS, "GPUSHIM_CACHE=maybe is not 0 or 1");
    setenv("GPUSHIM_CACHE", "on", 1);
    expect_compile(GPU_CACHE_HIT, NULL);
    unsetenv("GPUSHIM_CACHE");
    /* Not a wrapped-around 2^64 - 5: a warning, and the default cap (the entry stays). */
    setenv("GPUSHIM_CACHE_MAX_BYTES", " -5", 1);
    expect_compile(GPU_CACHE_HIT, "GPUSHIM_CACHE_MAX_BYTES= -5 is not a number");
    setenv("GPUSHIM_CACHE_MAX_BYTES", "+100", 1);
    expect_compile(GPU_CACHE_HIT, "GPUSHIM_CACHE_MAX_BYTES=+100 is not a number");
    setenv("GPUSHIM_CACHE_MAX_BYTES", "18446744073709551616", 1);
    expect_compile(GPU_CACHE_HIT, "is not a number");
    unsetenv("GPUSHIM_CACHE_MAX_BYTES");
    remove_tree(dir);
}

/*
 * A compile that may read a file on disk is never cached (NVRTC reports no
 * dependencies, so the key could not cover the file); one that reads only
 * in-memory headers is. Each case compiles twice: the second is no hit.
 */
static void what_reads_the_disk_is_not_cached(void **state)
{
    static const char *const include_path[] = {"-I/opt/include"}, *const long_path[] = {"--include-path=/opt"},
                             *const pre[] = {"-include=/opt/pre.h"}, *const pch[] = {"-use-pch=/tmp/x.pch"},
                             *const harmless[] = {"-DINCLUDE=1", "-std=c++17"};
    const struct {
        const char *source;
        const char *const *options;
        size_t option_count;
        const char *why; /* NULL: cached */
    } cases[] = {
        {"#include \"on_disk.h\"\n", NULL, 0, "#include \"on_disk.h\": not an in-memory header"},
        {"#include <vector>\n", NULL, 0, "#include <vector>"},
        {"  #  include \"on_disk.h\"\n", NULL, 0, "on_disk.h"},
        {"#/* a comment */include \"on_disk.h\"\n", NULL, 0, "on_disk.h"},
        {"/* one\n */ #include \"on_disk.h\"\n", NULL, 0, "on_disk.h"},
        {"#inc\\\nlude \"on_disk.h\"\n", NULL, 0, "on_disk.h"},
        {"%:include \"on_disk.h\"\n", NULL, 0, "on_disk.h"},
        {"#define H \"mem.h\"\n#include H\n", NULL, 0, "through a macro"},
        {"#include_next <on_disk.h>\n", NULL, 0, "#include_next"},
        {"#embed \"table.bin\"\n", NULL, 0, "#embed"},
        {"#if __has_include(\"maybe.h\")\n#endif\n", NULL, 0, "__has_include"},
        {"// k\n", include_path, 1, "the option \"-I/opt/include\" reads from disk"},
        {"// k\n", long_path, 1, "--include-path=/opt"},
        {"// k\n", pre, 1, "-include=/opt/pre.h"},
        {"// k\n", pch, 1, "-use-pch"},
        /* Cached: in-memory headers, by either spelling, and words that are no directive. */
        {"#include \"mem.h\"\n#include <mem.h>\n", NULL, 0, NULL},
        {"#if __has_include(\"mem.h\")\n#endif\n", NULL, 0, NULL},
        {"// we include nothing; the word include is not a directive\n", harmless, 2, NULL},
    };
    const gpu_program_header mem = {"mem.h", "#define MEM 1\n"};
    char dir[64];

    (void)state;
    fresh_cache(dir, sizeof(dir));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gpu_compile_options o = ptx80;

        o.options = cases[i].options;
        o.option_count = cases[i].option_count;
        for (int round = 0; round < 2; round++) {
            int before = fake_compiles();
            gpu_program *p;
            const char *w;

            assert_int_equal(gpu_program_create(cases[i].source, "k.cu", &mem, 1, &p), GPU_OK);
            assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_OK);
            w = gpu_program_get_cache_warning(p);
            if (cases[i].why) {
                if (gpu_program_get_cache_state(p) != GPU_CACHE_OFF || !w || !strstr(w, cases[i].why) ||
                    !strstr(w, "cache skipped") || gpu_program_get_cache_path(p) || fake_compiles() != before + 1)
                    fail_msg("case %zu (%s), round %d: state %d, warning \"%s\"", i, cases[i].source, round,
                             gpu_program_get_cache_state(p), w ? w : "(none)");
            } else if (gpu_program_get_cache_state(p) != (round ? GPU_CACHE_HIT : GPU_CACHE_MISS) || w) {
                fail_msg("case %zu (%s), round %d: state %d, warning \"%s\": should be cached", i, cases[i].source,
                         round, gpu_program_get_cache_state(p), w ? w : "(none)");
            }
            gpu_program_destroy(p);
        }
    }
    remove_tree(dir);
}

/* As uid and gid 65534 (root only): compiles kernel_source with `dir` as the cache; 10 + the cache state, and `why` found in the warning. */
static int compile_as_user(const char *dir, const char *why)
{
    pid_t pid = fork();
    int status;

    assert_true(pid >= 0);
    if (pid == 0) {
        gpu_program *p;
        const char *w;

        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
            _exit(2);
        setenv("GPUSHIM_CACHE_DIR", dir, 1);
        if (gpu_program_create(kernel_source, "k.cu", NULL, 0, &p) != GPU_OK ||
            gpu_program_add_name_expression(p, "scale<float>") != GPU_OK ||
            gpu_program_compile(p, NULL, &ptx80) != GPU_OK)
            _exit(3);
        w = gpu_program_get_cache_warning(p);
        if (why && (!w || !strstr(w, why))) {
            fprintf(stderr, "as a user: the warning \"%s\" does not say \"%s\"\n", w ? w : "(none)", why);
            _exit(4);
        }
        _exit(10 + (int)gpu_program_get_cache_state(p));
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/*
 * The same checks from a user's side (uid 65534, from a root test run): in a
 * sticky folder of root's, an entry root replaced with its own symbolic link
 * or file is another user's; the user's folder shared with a group is no
 * cache; one of root's is a cache the user may read but not add to.
 */
static void a_user_trusts_only_their_own(void **state)
{
    char sticky[64], shared[64], path[512], copy[600];
    DIR *d;
    struct dirent *de;

    (void)state;
    if (geteuid() != 0) {
        printf("  (skipped: running as another user needs root to switch to uid 65534)\n");
        return;
    }
    fresh_cache(sticky, sizeof(sticky));
    assert_int_equal(chmod(sticky, 01777), 0);
    assert_int_equal(compile_as_user(sticky, NULL), 10 + GPU_CACHE_MISS);
    assert_int_equal(compile_as_user(sticky, NULL), 10 + GPU_CACHE_HIT);
    /* The user's entry, found by name; root swaps a symbolic link to a copy of it in its place. */
    d = opendir(sticky);
    assert_non_null(d);
    path[0] = '\0';
    while ((de = readdir(d)) != NULL)
        if (strstr(de->d_name, ".bin"))
            snprintf(path, sizeof(path), "%s/%s", sticky, de->d_name);
    closedir(d);
    assert_true(path[0] != '\0');
    snprintf(copy, sizeof(copy), "%s.copy", path);
    copy_file(path, copy);
    assert_int_equal(chown(copy, 65534, 65534), 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink(copy, path), 0);
    /* Root's link in a sticky folder cannot be replaced by the user: compiled, not stored, never followed. */
    assert_int_equal(compile_as_user(sticky, "is a symbolic link"), 10 + GPU_CACHE_MISS);
    assert_int_equal(unlink(path), 0);
    copy_file(copy, path); /* root's own file now, readable by all */
    assert_int_equal(chmod(path, 0644), 0);
    assert_int_equal(compile_as_user(sticky, "belongs to another user"), 10 + GPU_CACHE_MISS);
    remove_tree(sticky);
    /* The user's own folder shared with a group; root's folder the user cannot write. */
    fresh_cache(shared, sizeof(shared));
    assert_int_equal(chown(shared, 65534, 65534), 0);
    assert_int_equal(chmod(shared, 0770), 0);
    assert_int_equal(compile_as_user(shared, "writable by other users and not sticky"), 10 + GPU_CACHE_OFF);
    assert_int_equal(chmod(shared, 0700), 0);
    assert_int_equal(compile_as_user(shared, NULL), 10 + GPU_CACHE_MISS);
    assert_int_equal(compile_as_user(shared, NULL), 10 + GPU_CACHE_HIT);
    assert_int_equal(chown(shared, 0, 0), 0);
    assert_int_equal(chmod(shared, 0755), 0);
    /* Root's folder: trusted (root could do anything anyway), the user's entry in it used; none can be added. */
    assert_int_equal(compile_as_user(shared, NULL), 10 + GPU_CACHE_HIT);
    remove_tree(shared);
    assert_int_equal(mkdir(shared, 0755), 0);
    assert_int_equal(compile_as_user(shared, "not written: Permission denied"), 10 + GPU_CACHE_MISS);
    remove_tree(shared);
}

static void the_report_says_what_was_loaded(void **state)
{
    const gpu_compiler_report *r = gpu_compiler_get_report();
    char builtins[400];
    int major, minor;

    (void)state;
    assert_int_equal(gpu_compiler_get_version(&major, &minor), GPU_OK);
    assert_int_equal(major, 12);
    assert_int_equal(minor, 4);
    assert_int_equal(gpu_compiler_get_version(NULL, &minor), GPU_ERR_INVALID_ARG);
    assert_int_equal(r->stage, GPU_LOAD_READY);
    assert_string_equal(r->message, "");
    assert_string_equal(r->file, nvrtc_path);
    assert_int_equal(r->version_major, 12);
    snprintf(builtins, sizeof(builtins), "%s/libnvrtc-builtins.so.12.4", folder);
    assert_string_equal(r->builtins, builtins);
    assert_int_equal(r->arch_count, 5);
    assert_int_equal(r->archs[4], 90);
    assert_int_equal(r->missing_required + r->missing_optional, 0);
    assert_true(r->entry_count >= 15);
    assert_int_equal(r->attempt_count, 1);
    assert_string_equal(r->attempts[0].path, nvrtc_path);
    assert_null(r->attempts[0].error);
}

/* ---- The other modes: one load each ---- */

static void expect_no_compiler(gpu_load_stage stage, const char *says)
{
    const gpu_compiler_report *r;
    gpu_program *p;
    int major, minor;

    assert_int_equal(gpu_compiler_get_report()->stage, GPU_LOAD_NOT_STARTED);
    /* A program is made without NVRTC; its compile says why there is none. */
    assert_int_equal(gpu_program_create(kernel_source, NULL, NULL, 0, &p), GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, &ptx80), GPU_ERR_NO_COMPILER);
    assert_non_null(strstr(gpu_last_error_get_message(), says));
    assert_int_equal(gpu_program_get_cache_state(p), GPU_CACHE_OFF);
    gpu_program_destroy(p);
    assert_int_equal(gpu_compiler_load(), GPU_ERR_NO_COMPILER);
    assert_int_equal(gpu_compiler_get_version(&major, &minor), GPU_ERR_NO_COMPILER);
    r = gpu_compiler_get_report();
    assert_int_equal(r->stage, stage);
    assert_non_null(strstr(r->message, says));
    assert_string_equal(gpu_last_error_get_message(), r->message);
}

/*
 * A folder (`dir`, a mkdtemp template) of empty libnvrtc.so.12 and .13: put first in
 * LD_LIBRARY_PATH, the system loader stops at them ("file too short") rather than look on.
 */
static bool make_decoys(char *dir)
{
    char path[600];

    if (!mkdtemp(dir))
        return false;
    for (int v = 12; v <= 13; v++) {
        int fd;

        snprintf(path, sizeof(path), "%s/libnvrtc.so.%d", dir, v);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return false;
        close(fd);
    }
    return true;
}

/* The parent half of "search": lays out the folders, then runs the checks in a process that starts with them. */
static int search_parent(void)
{
    char decoys[64] = "/tmp/gpushim-decoys-XXXXXX", home[64] = "/tmp/gpushim-cuda-home-XXXXXX";
    char path[600];
    pid_t pid;
    int status;

    make_folder(need_env("FAKE_NVRTC_LIB"), true);
    assert_true(make_decoys(decoys));
    assert_non_null(mkdtemp(home));
    snprintf(path, sizeof(path), "%s/lib64", home);
    assert_int_equal(mkdir(path, 0700), 0);
    /* CUDA_PATH: the fake's folder, reached through targets/x86_64-linux/lib. */
    snprintf(path, sizeof(path), "%s/root", folder);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/root/targets", folder);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/root/targets/x86_64-linux", folder);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/root/targets/x86_64-linux/lib", folder);
    assert_int_equal(symlink(folder, path), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        snprintf(path, sizeof(path), "%s/root", folder);
        setenv("LD_LIBRARY_PATH", decoys, 1);
        setenv("CUDA_HOME", home, 1);
        setenv("CUDA_PATH", path, 1);
        unsetenv("GPUSHIM_LIBNVRTC");
        execl(self, self, "search-child", (char *)NULL);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    remove_tree(decoys);
    remove_tree(home);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void search_child(void)
{
    const char *home = getenv("CUDA_HOME"), *root = getenv("CUDA_PATH");
    const gpu_compiler_report *r;
    char expect[700];
    gpu_program *p;

    assert_non_null(home);
    assert_non_null(root);
    setenv("GPUSHIM_CACHE", "0", 1);
    assert_int_equal(gpu_compiler_load(), GPU_OK);
    r = gpu_compiler_get_report();
    for (size_t i = 0; i < r->attempt_count; i++)
        printf("  tried %s: %s\n", r->attempts[i].path, r->attempts[i].error ? r->attempts[i].error : "opened");
    /* Already loaded? (2), the system loader (2), CUDA_HOME's two folders (4), CUDA_PATH's (4, the last opens). */
    assert_int_equal(r->attempt_count, 12);
    assert_non_null(strstr(r->attempts[2].error, "file too short"));
    assert_string_equal(r->attempts[3].path, "libnvrtc.so.12");
    snprintf(expect, sizeof(expect), "%s/lib64/libnvrtc.so.13", home);
    assert_string_equal(r->attempts[4].path, expect);
    snprintf(expect, sizeof(expect), "%s/targets/x86_64-linux/lib/libnvrtc.so.12", home);
    assert_string_equal(r->attempts[7].path, expect);
    snprintf(expect, sizeof(expect), "%s/targets/x86_64-linux/lib/libnvrtc.so.12", root);
    assert_string_equal(r->attempts[11].path, expect);
    assert_null(r->attempts[11].error);
    assert_string_equal(r->file, expect);
    snprintf(expect, sizeof(expect), "%s/targets/x86_64-linux/lib/libnvrtc-builtins.so.12.4", root);
    assert_string_equal(r->builtins, expect);
    /* The fake, like NVRTC, finds its builtins by name only: loaded beside it first, it does. */
    p = compile(kernel_source, &ptx80, GPU_OK);
    gpu_program_destroy(p);
}

/*
 * The parent half of "library-path": GPUSHIM_LIBRARY_PATH comes after /usr/local/cuda, so the
 * child runs where an empty folder is mounted over it, in a mount namespace of its own.
 * Returns the child's exit status: 77 when the namespace or the mount is not allowed.
 */
static int library_path_parent(void)
{
    char decoys[64] = "/tmp/gpushim-decoys-XXXXXX", empty[64] = "/tmp/gpushim-empty-XXXXXX";
    char list[4096], long_folder[2049];
    pid_t pid;
    int status;

    make_folder(need_env("FAKE_NVRTC_LIB"), true);
    if (!make_decoys(decoys) || !mkdtemp(empty))
        return 1;
    /* A folder longer than any path gpushim builds: reported, not cut and tried. */
    long_folder[0] = '/';
    memset(long_folder + 1, 'a', sizeof(long_folder) - 2);
    long_folder[sizeof(long_folder) - 1] = '\0';
    /* A relative folder, one that is not there, an empty item, the long one, then the fake's. */
    snprintf(list, sizeof(list), "relative/lib:/nonexistent/gpushim-lib::%s:%s", long_folder, folder);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        setenv("LD_LIBRARY_PATH", decoys, 1);
        setenv("GPUSHIM_LIBRARY_PATH", list, 1);
        unsetenv("CUDA_HOME");
        unsetenv("CUDA_PATH");
        unsetenv("GPUSHIM_LIBNVRTC");
        execlp("unshare", "unshare", "-m", "sh", "-c",
               /* The checks' own failures come back as 100 and more: 1 is unshare's refusal. */
               "if [ -e /usr/local/cuda ]; then mount --bind \"$0\" /usr/local/cuda || exit 77; fi; "
               "\"$1\" library-path-child && exit 0; exit 100",
               empty, self, (char *)NULL);
        _exit(77);
    }
    if (waitpid(pid, &status, 0) != pid)
        return 1;
    remove_tree(decoys);
    rmdir(empty);
    if (!WIFEXITED(status))
        return 1;
    switch (WEXITSTATUS(status)) {
    case 0:
        return 0;
    case 1: /* unshare's own refusal (no privilege for a mount namespace) */
    case 77:
        printf("skipped: no private mount namespace to hide /usr/local/cuda in\n");
        return 77;
    default:
        return 1;
    }
}

static void library_path_child(void)
{
    const gpu_compiler_report *r;
    const char *list = getenv("GPUSHIM_LIBRARY_PATH");
    char expect[700];
    size_t n;

    setenv("GPUSHIM_CACHE", "0", 1);
    assert_int_equal(gpu_compiler_load(), GPU_OK);
    r = gpu_compiler_get_report();
    n = r->attempt_count;
    for (size_t i = 0; i < n; i++)
        printf("  tried %s: %s\n", r->attempts[i].path, r->attempts[i].error ? r->attempts[i].error : "opened");
    /*
     * ..., /usr/local/cuda's four, then relative (1), /nonexistent (2), the long folder (1, not
     * tried), the fake's folder (2, the last opens).
     */
    assert_true(n >= 10);
    assert_string_equal(r->attempts[n - 7].path, "/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.12");
    assert_non_null(r->attempts[n - 7].error);
    assert_string_equal(r->attempts[n - 6].path, "relative/lib");
    assert_non_null(strstr(r->attempts[n - 6].error, "not an absolute folder"));
    assert_string_equal(r->attempts[n - 5].path, "/nonexistent/gpushim-lib/libnvrtc.so.13");
    assert_string_equal(r->attempts[n - 4].path, "/nonexistent/gpushim-lib/libnvrtc.so.12");
    /* The long folder's name is kept as far as it fits, and says that it was cut and how long it was. */
    assert_int_equal(strncmp(r->attempts[n - 3].path, "/aaaa", 5), 0);
    assert_non_null(strstr(r->attempts[n - 3].path, "[... cut: 2048 bytes in all]"));
    assert_non_null(strstr(r->attempts[n - 3].error, "too long: not tried"));
    snprintf(expect, sizeof(expect), "%s/libnvrtc.so.12", strrchr(list, ':') + 1);
    assert_string_equal(r->attempts[n - 1].path, expect);
    assert_null(r->attempts[n - 1].error);
    assert_string_equal(r->file, expect);
    assert_non_null(r->builtins);
    gpu_program_destroy(compile(kernel_source, &ptx80, GPU_OK));
}

static void run_mode(const char *mode)
{
    if (strcmp(mode, "missing") == 0) {
        setenv("GPUSHIM_LIBNVRTC", "/nonexistent/gpushim/libnvrtc.so.12", 1);
        expect_no_compiler(GPU_LOAD_OPEN, "/nonexistent/gpushim/libnvrtc.so.12: cannot open shared object file");
        assert_non_null(strstr(gpu_compiler_get_report()->message, "set GPUSHIM_LIBNVRTC"));
        assert_int_equal(gpu_compiler_get_report()->attempt_count, 1);
    } else if (strcmp(mode, "relative") == 0) {
        setenv("GPUSHIM_LIBNVRTC", "libnvrtc.so.12", 1);
        expect_no_compiler(GPU_LOAD_OPEN, "GPUSHIM_LIBNVRTC=libnvrtc.so.12 is not an absolute path");
    } else if (strcmp(mode, "not-nvrtc") == 0) {
        setenv("GPUSHIM_LIBNVRTC", need_env("FAKE_NOT_NVRTC"), 1);
        expect_no_compiler(GPU_LOAD_RESOLVE, "is not a usable NVRTC: it lacks nvrtcGetErrorString nvrtcVersion");
        assert_int_equal(gpu_compiler_get_report()->missing_required, 11);
    } else if (strcmp(mode, "broken") == 0) {
        make_folder(need_env("FAKE_NVRTC_BROKEN_LIB"), true);
        setenv("GPUSHIM_LIBNVRTC", nvrtc_path, 1);
        expect_no_compiler(GPU_LOAD_RESOLVE, "libnvrtc.so.12 is not a usable NVRTC: it lacks nvrtcCompileProgram");
        assert_int_equal(gpu_compiler_get_report()->missing_required, 1);
    } else if (strcmp(mode, "version-fail") == 0 || strcmp(mode, "version-zero") == 0) {
        make_folder(need_env("FAKE_NVRTC_LIB"), true);
        setenv("GPUSHIM_LIBNVRTC", nvrtc_path, 1);
        if (strcmp(mode, "version-fail") == 0) {
            setenv("FAKE_NVRTC_FAIL", "nvrtcVersion", 1);
            expect_no_compiler(GPU_LOAD_INIT, "nvrtcVersion failed: NVRTC_ERROR_INTERNAL_ERROR (11)");
        } else {
            setenv("FAKE_NVRTC_VERSION", "0.0", 1);
            expect_no_compiler(GPU_LOAD_INIT, "nvrtcVersion says 0.0, which no NVRTC is");
        }
    } else if (strcmp(mode, "version-odd") == 0) {
        int major, minor;
        gpu_program *p;

        make_folder(need_env("FAKE_NVRTC_LIB"), true);
        setenv("GPUSHIM_LIBNVRTC", nvrtc_path, 1);
        setenv("FAKE_NVRTC_VERSION", "99.7", 1);
        setenv("FAKE_NVRTC_BUILTINS", "0", 1);
        setenv("GPUSHIM_CACHE", "0", 1);
        assert_int_equal(gpu_compiler_get_version(&major, &minor), GPU_OK);
        assert_int_equal(major * 100 + minor, 9907);
        /* No libnvrtc-builtins.so.99.7 beside it: the report says so, and nothing fails for it. */
        assert_null(gpu_compiler_get_report()->builtins);
        assert_non_null(strstr(gpu_compiler_get_report()->builtins_note, "libnvrtc-builtins.so.99.7 is absent"));
        p = compile(kernel_source, &ptx80, GPU_OK);
        gpu_program_destroy(p);
    } else if (strcmp(mode, "no-builtins") == 0) {
        gpu_program *p;

        make_folder(need_env("FAKE_NVRTC_LIB"), false);
        setenv("GPUSHIM_LIBNVRTC", nvrtc_path, 1);
        setenv("GPUSHIM_CACHE", "0", 1);
        assert_int_equal(gpu_compiler_load(), GPU_OK);
        assert_null(gpu_compiler_get_report()->builtins);
        assert_non_null(strstr(gpu_compiler_get_report()->builtins_note, "libnvrtc-builtins.so.12.4 is absent"));
        p = compile(kernel_source, &ptx80, GPU_ERR_COMPILE);
        assert_non_null(strstr(gpu_last_error_get_message(), "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7)"));
        assert_non_null(strstr(gpu_last_error_get_message(), "could not load libnvrtc-builtins.so.12.4"));
        gpu_program_destroy(p);
    } else if (strcmp(mode, "old") == 0) {
        gpu_compile_options cubin = {GPU_COMPILE_CUBIN, 80, NULL, 0, true};
        gpu_program *p;

        make_folder(need_env("FAKE_NVRTC_OLD_LIB"), true);
        setenv("GPUSHIM_LIBNVRTC", nvrtc_path, 1);
        setenv("GPUSHIM_CACHE", "0", 1);
        p = compile(kernel_source, &cubin, GPU_ERR_NOT_SUPPORTED);
        assert_non_null(strstr(gpu_last_error_get_message(), "has no nvrtcGetCUBIN"));
        gpu_program_destroy(p);
        p = compile(kernel_source, &ptx80, GPU_OK);
        gpu_program_destroy(p);
        assert_int_equal(gpu_compiler_get_report()->arch_count, 0);
        assert_int_equal(gpu_compiler_get_report()->missing_optional, 4);
    } else if (strcmp(mode, "already-loaded") == 0) {
        const gpu_compiler_report *r;

        make_folder(need_env("FAKE_NVRTC_LIB"), true);
        unsetenv("GPUSHIM_LIBNVRTC");
        assert_non_null(dlopen(nvrtc_path, RTLD_NOW | RTLD_LOCAL));
        assert_int_equal(gpu_compiler_load(), GPU_OK);
        r = gpu_compiler_get_report();
        assert_int_equal(r->attempt_count, 2);
        assert_string_equal(r->attempts[0].path, "libnvrtc.so.13 (already loaded)");
        assert_non_null(r->attempts[0].error);
        assert_string_equal(r->attempts[1].path, "libnvrtc.so.12 (already loaded)");
        assert_null(r->attempts[1].error);
        assert_string_equal(r->file, nvrtc_path);
        assert_int_equal(r->version_major, 12);
    } else if (strcmp(mode, "search") == 0) {
        assert_int_equal(search_parent(), 0);
    } else if (strcmp(mode, "search-child") == 0) {
        search_child();
    } else if (strcmp(mode, "library-path-child") == 0) {
        library_path_child();
    } else {
        fail_msg("unknown mode %s", mode);
    }
}

static void mode_test(void **state)
{
    run_mode(*state);
}

static int child_compile(const char *dir)
{
    gpu_program *p;
    gpu_cache_state s;

    setenv("GPUSHIM_CACHE_DIR", dir, 1);
    if (gpu_program_create(kernel_source, "k.cu", NULL, 0, &p) != GPU_OK)
        return 1;
    if (gpu_program_compile(p, NULL, &ptx80) != GPU_OK) {
        fprintf(stderr, "child: %s\n", gpu_last_error_get_message());
        gpu_program_destroy(p);
        return 1;
    }
    s = gpu_program_get_cache_state(p);
    gpu_program_destroy(p);
    return 10 + (int)s;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest api[] = {
        cmocka_unit_test(ptx_names_the_kernels_and_the_target),
        cmocka_unit_test(the_report_says_what_was_loaded),
        cmocka_unit_test(cubin_is_for_the_sm_and_binary),
        cmocka_unit_test(headers_and_options_reach_nvrtc),
        cmocka_unit_test(a_compile_error_is_gpu_err_compile_with_the_log),
        cmocka_unit_test(arguments_are_checked_first),
        cmocka_unit_test(the_device_arch_needs_the_driver),
        cmocka_unit_test(each_nvrtc_call_failing_in_turn),
        cmocka_unit_test(threads_compile_at_once),
        cmocka_unit_test(a_hit_is_the_same_output_without_nvrtc),
        cmocka_unit_test(the_key_covers_everything_that_changes_the_output),
        cmocka_unit_test(bad_entries_are_compiled_again_and_replaced),
        cmocka_unit_test(old_entries_go_first_when_the_cap_is_passed),
        cmocka_unit_test(two_processes_at_once_both_succeed),
        cmocka_unit_test(an_unusable_cache_is_a_warning_not_a_failure),
        cmocka_unit_test(the_cache_folder_follows_xdg_then_home),
        cmocka_unit_test(planted_entries_are_not_trusted),
        cmocka_unit_test(the_folder_is_checked_on_every_compile),
        cmocka_unit_test(eviction_removes_only_its_own),
        cmocka_unit_test(a_huge_claim_is_refused_and_replaced),
        cmocka_unit_test(a_file_size_limit_is_a_warning),
        cmocka_unit_test(cache_variables_take_documented_values),
        cmocka_unit_test(a_user_trusts_only_their_own),
        cmocka_unit_test(what_reads_the_disk_is_not_cached),
    };
    const char *mode = argc > 1 ? argv[1] : "api";
    int rc;

    if (strcmp(mode, "child") == 0 && argc > 2)
        return child_compile(argv[2]);
    if (!realpath("/proc/self/exe", self))
        return 1;
    if (strcmp(mode, "library-path") == 0) {
        rc = library_path_parent();
    } else if (strcmp(mode, "api") == 0) {
        make_folder(need_env("FAKE_NVRTC_LIB"), true);
        setenv("GPUSHIM_LIBNVRTC", nvrtc_path, 1);
        rc = cmocka_run_group_tests_name("fake-nvrtc", api, NULL, NULL);
    } else {
        const struct CMUnitTest one[] = {cmocka_unit_test_prestate(mode_test, (void *)mode)};

        rc = cmocka_run_group_tests_name(mode, one, NULL, NULL);
    }
    if (folder[0])
        remove_tree(folder);
    return rc;
}
