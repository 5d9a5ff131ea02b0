/*
 * Module images and kernel names through gpu_module_load_data and
 * gpu_module_get_function, against the fake driver (and so its PTX reader):
 * the input's first line (at most 255 bytes) is the kernel name, the rest
 * the image. Whatever the bytes, a clear status, and nothing left loaded.
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
        fprintf(stderr, "fuzz-module: %s (%s)\n", what, gpu_last_error());
        abort();
    }
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
    check(st == GPU_OK || gpu_last_error()[0] != '\0', "load: a failure without a reason");
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
