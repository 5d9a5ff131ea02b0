/* SPDX-License-Identifier: MIT */
/*
 * The input as an image in the caller's memory, which cuLibraryLoadData and
 * cuModuleLoadData take without a size, in the form the API asks of its
 * caller: PTX ends with a NUL (one is added), a fatbin's header says no more
 * than the input holds, and an input that starts as nvcc's wrapper
 * (__fatBinC_Wrapper_t, 24 bytes) has its pointer set to the fatbin that
 * follows it. A library or a refusal, and on success its kernels and its
 * module in the context; nothing read past the input (ASan watches its
 * exact copy), nothing left loaded.
 */
#include "fuzz_image.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_init();
    return 0;
}

/* The library's kernels, counted and listed, and its module in the context. */
static void library_use(cuabi_library l)
{
    unsigned count = 0;
    cuabi_kernel kernels[4];
    cuabi_module m = NULL;
    cuabi_result rc;

    fz_check(cuLibraryGetKernelCount(&count, l) == CUABI_SUCCESS, "cuLibraryGetKernelCount", 0);
    if (count)
        fz_check(cuLibraryEnumerateKernels(kernels, count < 4 ? count : 4, l) == CUABI_SUCCESS,
                 "cuLibraryEnumerateKernels", 0);
    rc = cuLibraryGetModule(&m, l);
    fz_check(fz_load_status(rc), "cuLibraryGetModule: an unexpected status", rc);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char log[512];
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
    unsigned char *image = malloc(size + 1);
    cuabi_library l = NULL;
    cuabi_module m = NULL;
    cuabi_result rc;

    if (!image)
        return 0;
    memcpy(image, data, size);
    image[size] = '\0';
    if (size >= 4 && memcmp(image, fz_fatbin_magic, 4) == 0) {
        if (size < 16) {
            free(image);
            return 0;
        }
        fz_fatbin_bound(image, size);
    } else if (size >= 4 && memcmp(image, fz_wrapper_magic, 4) == 0) {
        unsigned char *fb = image + 24;

        if (size < 24 + 16) {
            free(image);
            return 0;
        }
        fz_fatbin_bound(fb, size - 24);
        memcpy(image + 8, &fb, sizeof(fb));
    }

    log[0] = '\0';
    rc = cuLibraryLoadData(&l, image, options, values, 2, NULL, NULL, 0);
    fz_check(fz_load_status(rc), "cuLibraryLoadData: an unexpected status", rc);
    fz_check(!fz_needs_reason(rc) || log[0], "cuLibraryLoadData: a refusal without a reason", rc);
    if (rc == CUABI_SUCCESS) {
        library_use(l);
        fz_check(cuLibraryUnload(l) == CUABI_SUCCESS, "cuLibraryUnload", 0);
    }
    rc = cuModuleLoadData(&m, image);
    fz_check(fz_load_status(rc), "cuModuleLoadData: an unexpected status", rc);
    if (rc == CUABI_SUCCESS)
        fz_check(cuModuleUnload(m) == CUABI_SUCCESS, "cuModuleUnload", 0);
    free(image);
    fz_nothing_left();
    return 0;
}
