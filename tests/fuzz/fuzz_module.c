/* SPDX-License-Identifier: MIT */
/*
 * Module images and kernel names through gpu_module_load_data and
 * gpu_module_get_function, against the fake driver (and so its PTX reader):
 * the input's first line (at most 255 bytes) is the kernel name, the rest
 * the image. Whatever the bytes, a clear status, and nothing left loaded; and
 * for a binary image the status gpushim's size check must give, from a
 * reference check of its own (in 128-bit arithmetic, which cannot wrap): an
 * image shorter than its headers say is GPU_ERR_INVALID_ARG, a whole one goes
 * to the driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpushim/gpushim.h>

#include <gpushim/fake.h>

#ifndef FAKE_PATH
#error "FAKE_PATH names the fake driver"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz-module: %s (%s)\n", what, gpu_last_error_get_message());
        abort();
    }
}

static unsigned __int128 le(const unsigned char *p, unsigned bytes)
{
    unsigned __int128 v = 0;

    while (bytes--)
        v = v << 8 | p[bytes];
    return v;
}

/* -1: not a binary image; 1: one as long as its own headers say; 0: shorter. */
static int binary_whole(const unsigned char *p, size_t size)
{
    if (size < 4 || (memcmp(p, "\x7f" "ELF", 4) != 0 && memcmp(p, "\x50\xed\x55\xba", 4) != 0))
        return -1;
    if (p[0] == 0x50)
        return size >= 16 && 16 + le(p + 8, 8) <= size;
    return size >= 64 && p[4] == 2 && le(p + 32, 8) + le(p + 54, 2) * le(p + 56, 2) <= size &&
           le(p + 40, 8) + le(p + 58, 2) * le(p + 60, 2) <= size;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("GPUSHIM_LIBCUDA", FAKE_PATH, 1);
    check(gpu_driver_load() == GPU_OK, "the fake driver does not load");
    return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const unsigned char *nl = memchr(data, '\n', size < 256 ? size : 256);
    size_t name_len = nl ? (size_t)(nl - data) : 0;
    char name[256];
    const unsigned char *image = nl ? nl + 1 : data;
    size_t image_size = size - (size_t)(image - data);
    gpu_module *m = NULL;
    gpu_function *f = NULL;
    gpu_status st;

    memcpy(name, data, name_len);
    name[name_len] = '\0';
    st = gpu_module_load_data(NULL, image, image_size, &m);
    /* GPU_ERR_NOT_SUPPORTED: a cubin, or a fatbin without uncompressed PTX, which the fake cannot run. */
    check(st == GPU_OK || st == GPU_ERR_MODULE_LOAD || st == GPU_ERR_INVALID_ARG || st == GPU_ERR_NOT_SUPPORTED,
          "load: an unexpected status");
    check(st == GPU_OK || gpu_last_error_get_message()[0] != '\0', "load: a failure without a reason");
    switch (binary_whole(image, image_size)) {
    case 0:
        check(st == GPU_ERR_INVALID_ARG, "load: an image shorter than its headers say was not refused");
        break;
    case 1:
        check(st != GPU_ERR_INVALID_ARG, "load: a whole binary image was refused before the driver saw it");
        break;
    default:
        break;
    }
    check((st == GPU_OK) == (m != NULL), "load: out set on failure, or not on success");
    if (st == GPU_OK) {
        st = gpu_module_get_function(m, name, &f);
        check(st == GPU_OK || st == GPU_ERR_FUNCTION_NOT_FOUND || st == GPU_ERR_INVALID_ARG,
              "get_function: an unexpected status");
        check((st == GPU_OK) == (f != NULL), "get_function: out set on failure, or not on success");
        gpu_module_destroy(m);
    }
    check(gpu_fake_live(GPU_FAKE_LIVE_MODULES) == 0, "a module was left loaded");
    return 0;
}
