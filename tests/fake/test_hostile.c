/* SPDX-License-Identifier: MIT */
/*
 * Hostile input that must not hurt the process: module "files" that are not
 * regular files or are far too large, and host ranges that
 * wrap around the address space or are registered twice, checked in
 * gpushim and in the fake, which must be as strict as the driver.
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

/* ---- gpu_module_load_file reads regular files only, of a bounded size ---- */

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

/* ---- Host ranges that wrap around, and registering twice ---- */

static void host_register_overflow(void **state)
{
    gpu_host_buffer *h = (gpu_host_buffer *)&h;
    static uint32_t mem[64];
    void *high = (void *)(UINTPTR_MAX - 4095);

    (void)state;
    FT_INVALID(gpu_host_buffer_register(NULL, mem, SIZE_MAX, &h), "ptr + bytes");
    FT_INVALID(gpu_host_buffer_register(NULL, mem, SIZE_MAX - (size_t)(uintptr_t)mem + 1, &h), "overflows");
    FT_INVALID(gpu_host_buffer_register(NULL, high, 4097, &h), "overflows");
    FT_INVALID(gpu_host_buffer_register(NULL, high, 4096, &h), "overflows");
    assert_ptr_equal(h, (gpu_host_buffer *)&h);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 0);
}

/* The fake called as a CUDA program would: as strict as the driver. */
static void fake_register_strict(void **state)
{
    static uint32_t mem[1024];
    cuabi_context ctx = NULL;

    (void)state;
    assert_int_equal(cuDevicePrimaryCtxRetain(&ctx, 0), CUABI_SUCCESS);
    assert_int_equal(cuCtxPushCurrent_v2(ctx), CUABI_SUCCESS);
    assert_int_equal(cuMemHostRegister_v2(mem, SIZE_MAX, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemHostRegister_v2((void *)(UINTPTR_MAX - 15), 32, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 0);
    assert_int_equal(cuMemHostRegister_v2(mem + 256, 1024, 0), CUABI_SUCCESS);
    /* The same range again, one inside it, ones that overlap either end: already registered. */
    assert_int_equal(cuMemHostRegister_v2(mem + 256, 1024, 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    assert_int_equal(cuMemHostRegister_v2(mem + 300, 16, 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    assert_int_equal(cuMemHostRegister_v2(mem, 1028, 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    assert_int_equal(cuMemHostRegister_v2(mem + 511, 64, 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    /* A larger range around it, too (the check must look both ways). */
    assert_int_equal(cuMemHostRegister_v2(mem, sizeof(mem), 0), CUABI_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    /* Ranges that only touch it are free. */
    assert_int_equal(cuMemHostRegister_v2(mem, 1024, 0), CUABI_SUCCESS);
    assert_int_equal(cuMemHostRegister_v2(mem + 512, 1024, 0), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 3);
    assert_int_equal(cuMemHostUnregister(mem), CUABI_SUCCESS);
    assert_int_equal(cuMemHostUnregister(mem + 256), CUABI_SUCCESS);
    assert_int_equal(cuMemHostUnregister(mem + 512), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_HOST_REGISTERED), 0);
    assert_int_equal(cuCtxPopCurrent_v2(&ctx), CUABI_SUCCESS);
    assert_int_equal(cuDevicePrimaryCtxRelease_v2(0), CUABI_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(module_file_not_regular),
        cmocka_unit_test(module_file_too_large),
        cmocka_unit_test(module_file_regular),
        cmocka_unit_test(host_register_overflow),
        cmocka_unit_test(fake_register_strict),
    };

    return cmocka_run_group_tests_name("hostile", tests, setup, teardown);
}
