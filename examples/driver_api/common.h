/* SPDX-License-Identifier: MIT */
/*
 * What every program here shares: the check of each driver call, and reading
 * a compiled module (PTX) from a file named on the command line.
 *
 * Plain driver-API code against the toolkit's cuda.h: nothing here knows
 * whether -lcuda or -lgpushim-cuda provides the cu* functions.
 */
#ifndef DRIVER_API_COMMON_H
#define DRIVER_API_COMMON_H

#include <cuda.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest module file a program reads. */
#define MODULE_FILE_MAX ((size_t)64 << 20)

/* Prints the failed call with the driver's name and text for its result, and exits 1. */
static inline void check_failed(const char *call, CUresult rc)
{
    const char *name = NULL, *text = NULL;

    if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || name == NULL)
        name = "(unknown CUresult)";
    if (cuGetErrorString(rc, &text) != CUDA_SUCCESS || text == NULL)
        text = "(no description)";
    fprintf(stderr, "%s failed: %s (%d): %s\n", call, name, (int)rc, text);
    exit(1);
}

#define CHECK(call) \
    do { \
        CUresult check_rc_ = (call); \
        if (check_rc_ != CUDA_SUCCESS) \
            check_failed(#call, check_rc_); \
    } while (0)

/* Prints a failed check of a result and exits 1. */
static inline void result_wrong(const char *what)
{
    fprintf(stderr, "result check failed: %s\n", what);
    exit(1);
}

/*
 * The whole of the regular file at `path`, NUL-terminated (cuModuleLoadData
 * takes PTX as a C string), with its size (without the NUL) in *size when
 * size is not NULL. A symbolic link, a file that is not regular, one over
 * MODULE_FILE_MAX, and one that another user owns or others may write are
 * refused. Exits 1 on any failure; the caller frees.
 */
static inline char *module_file_read(const char *path, size_t *size)
{
    struct stat st;
    char *data;
    size_t done = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        exit(1);
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (unsigned long long)st.st_size > MODULE_FILE_MAX) {
        fprintf(stderr, "%s: not a regular file of at most %zu bytes\n", path, MODULE_FILE_MAX);
        close(fd);
        exit(1);
    }
    /* Code this program runs: only from a file that no one else could have written. */
    if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        fprintf(stderr, "%s: owned by another user or writable by others: not loaded\n", path);
        close(fd);
        exit(1);
    }
    data = malloc((size_t)st.st_size + 1);
    if (data == NULL) {
        fprintf(stderr, "%s: out of memory\n", path);
        close(fd);
        exit(1);
    }
    while (done < (size_t)st.st_size) {
        ssize_t n = read(fd, data + done, (size_t)st.st_size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "%s: %s\n", path, n < 0 ? strerror(errno) : "shorter than its size");
            free(data);
            close(fd);
            exit(1);
        }
        done += (size_t)n;
    }
    close(fd);
    data[done] = '\0';
    if (size != NULL)
        *size = done;
    return data;
}

/*
 * Device 0 and a context of its own, current on this thread. cuda.h 13 maps
 * cuCtxCreate to cuCtxCreate_v4, which takes a CUctxCreateParams* (NULL: a
 * plain context); older ones to cuCtxCreate_v2, which does not.
 */
static inline CUcontext context_create(CUdevice *dev)
{
    CUcontext ctx;

    CHECK(cuDeviceGet(dev, 0));
#if CUDA_VERSION >= 13000
    CHECK(cuCtxCreate(&ctx, NULL, 0, *dev));
#else
    CHECK(cuCtxCreate(&ctx, 0, *dev));
#endif
    return ctx;
}

/* The kernel `name` of the PTX file at `path`, loaded into the current context as *module. */
static inline CUfunction kernel_load(const char *path, const char *name, CUmodule *module)
{
    CUfunction kernel;
    char *ptx = module_file_read(path, NULL);
    CUresult rc = cuModuleLoadData(module, ptx);

    free(ptx);
    if (rc != CUDA_SUCCESS) {
        fprintf(stderr, "%s: not loaded\n", path);
        check_failed("cuModuleLoadData", rc);
    }
    rc = cuModuleGetFunction(&kernel, *module, name);
    if (rc != CUDA_SUCCESS) {
        fprintf(stderr, "%s: no kernel %s\n", path, name);
        check_failed("cuModuleGetFunction", rc);
    }
    return kernel;
}

/* A program's usage line when its arguments are wrong: exits 2. */
static inline void usage(const char *program, const char *arguments)
{
    fprintf(stderr, "usage: %s %s\n", program, arguments);
    exit(2);
}

#endif
