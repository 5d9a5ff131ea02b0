/* SPDX-License-Identifier: MIT */
/*
 * Modules and their functions (fake/objects/fake_module.c). With no argument, the
 * group: module "files" that are not regular files or are far too large, which
 * must not hurt the process, read by gpu_module_load_file. With one, that case
 * alone, called as a CUDA program calls the driver:
 *
 *   modules    cuFuncGetName, cuFuncGetModule, cuModuleGetFunctionCount,
 *              cuModuleEnumerateFunctions, cuModuleGetLoadingMode; their errors
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fake_test.h"

static void modules(void **state)
{
    cuabi_module m = NULL, got = NULL;
    cuabi_function f = NULL, g = NULL, all[3] = {NULL, NULL, NULL};
    const char *name = NULL;
    unsigned count = 0;
    cuabi_module_loading_mode mode = 0;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuModuleLoadData(&m, ft_two_kernels));
    CU_OK(cuModuleGetFunctionCount(&count, m));
    assert_int_equal(count, 2);
    /* Up to numFunctions handles, in the image's order: those cuModuleGetFunction gives. */
    CU_OK(cuModuleGetFunction(&f, m, "add_one"));
    CU_OK(cuModuleGetFunction(&g, m, "scale_add"));
    CU_OK(cuModuleEnumerateFunctions(all, 1, m));
    assert_ptr_equal(all[0], f);
    assert_null(all[1]);
    CU_OK(cuModuleEnumerateFunctions(all, 3, m));
    assert_ptr_equal(all[0], f);
    assert_ptr_equal(all[1], g);
    assert_null(all[2]);
    CU_OK(cuFuncGetName(&name, g));
    assert_string_equal(name, "scale_add");
    CU_OK(cuFuncGetName(&name, all[0]));
    assert_string_equal(name, "add_one");
    CU_OK(cuFuncGetModule(&got, f));
    assert_ptr_equal(got, m);
    CU_OK(cuModuleGetLoadingMode(&mode));
    assert_int_equal(mode, CUABI_MODULE_EAGER_LOADING);
    /* Errors. */
    assert_int_equal(cuFuncGetName(NULL, f), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetName(&name, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetName(&name, (cuabi_function)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetModule(NULL, f), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetModule(&got, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetModule(&got, (cuabi_function)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetFunctionCount(NULL, m), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleGetFunctionCount(&count, NULL), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleEnumerateFunctions(NULL, 2, m), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleEnumerateFunctions(all, 2, (cuabi_module)(uintptr_t)0x99), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetLoadingMode(NULL), CUABI_ERROR_INVALID_VALUE);
    /* Unloaded: its handles are no longer known. */
    CU_OK(cuModuleUnload(m));
    assert_int_equal(cuModuleGetFunctionCount(&count, m), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleEnumerateFunctions(all, 2, m), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetName(&name, f), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncGetModule(&got, f), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

static char dir_path[64];

static int setup(void **state)
{
    (void)state;
    /* A hang is a failure: a blocking open or read would stop here, not forever. */
    alarm(60);
    snprintf(dir_path, sizeof(dir_path), "/tmp/gpushim-hostile-XXXXXX");
    assert_non_null(mkdtemp(dir_path));
    /* Device 0's primary context, made once here, so that later refusals make no driver call at all. */
    FT_OK(gpu_context_synchronize(NULL));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rmdir(dir_path);
    return 0;
}

static void path_in_dir(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", dir_path, name);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void module_file_not_regular(void **state)
{
    gpu_module *m = (gpu_module *)&m;
    char path[128];
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int sock;

    (void)state;
    FT_INVALID(gpu_module_load_file(NULL, "/dev/zero", &m), "/dev/zero is a character device");
    FT_INVALID(gpu_module_load_file(NULL, "/dev/null", &m), "/dev/null is a character device");
    FT_INVALID(gpu_module_load_file(NULL, dir_path, &m), "is a directory, not a regular file");

    /* A FIFO with no writer: a blocking open would never return. */
    path_in_dir(path, sizeof(path), "fifo");
    assert_int_equal(mkfifo(path, 0600), 0);
    FT_INVALID(gpu_module_load_file(NULL, path, &m), "is a FIFO, not a regular file");
    unlink(path);

    path_in_dir(addr.sun_path, sizeof(addr.sun_path), "sock");
    snprintf(path, sizeof(path), "%s", addr.sun_path);
    sock = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(sock >= 0);
    assert_int_equal(bind(sock, (struct sockaddr *)&addr, sizeof(addr)), 0);
    /* A socket cannot be opened at all: the open's own error. */
    FT_FAIL(gpu_module_load_file(NULL, path, &m), GPU_ERR_MODULE_LOAD, 0, strerror(ENXIO));
    close(sock);
    unlink(path);
    assert_ptr_equal(m, (gpu_module *)&m);
}

static void module_file_too_large(void **state)
{
    gpu_module *m = (gpu_module *)&m;
    char path[128];
    struct timespec t0;
    int fd;

    (void)state;
    /* 3 GiB of holes: nothing to read, but far over the cap. Refused at fstat, not after reading. */
    path_in_dir(path, sizeof(path), "sparse");
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 3LL << 30), 0);
    close(fd);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FT_INVALID(gpu_module_load_file(NULL, path, &m), "is 3221225472 bytes, more than the 1073741824");
    /* Not a timing claim: reading 3 GiB first would take seconds and 3 GiB of memory. */
    assert_true(seconds_since(&t0) < 5.0);

    /* One byte over the cap is over; the cap itself would be read (not tried: a GiB of memory). */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, GPU_MODULE_FILE_MAX + 1), 0);
    close(fd);
    FT_INVALID(gpu_module_load_file(NULL, path, &m), "is 1073741825 bytes");
    unlink(path);
    assert_ptr_equal(m, (gpu_module *)&m);
}

static void module_file_regular(void **state)
{
    gpu_module *m = NULL;
    gpu_function *f = NULL;
    char path[128], link_path[128];
    size_t len = strlen(ft_ptx);
    int fd;

    (void)state;
    path_in_dir(path, sizeof(path), "kernels.ptx");
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, ft_ptx, len), (ssize_t)len);
    close(fd);
    FT_OK(gpu_module_load_file(NULL, path, &m));
    FT_OK(gpu_module_get_function(m, "add_one", &f));
    gpu_module_destroy(m);
    /* A symbolic link to a regular file is that file. */
    path_in_dir(link_path, sizeof(link_path), "link.ptx");
    assert_int_equal(symlink(path, link_path), 0);
    m = NULL;
    FT_OK(gpu_module_load_file(NULL, link_path, &m));
    gpu_module_destroy(m);
    unlink(link_path);
    unlink(path);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(module_file_not_regular),
        cmocka_unit_test(module_file_too_large),
        cmocka_unit_test(module_file_regular),
    };
    static const ft_case cases[] = {
        {"modules", cmocka_unit_test(modules)},
    };

    return ft_run(argc, argv, "module", tests, sizeof(tests) / sizeof(tests[0]), setup, teardown, cases,
                  sizeof(cases) / sizeof(cases[0]));
}
