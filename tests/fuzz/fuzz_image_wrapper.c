/* SPDX-License-Identifier: MIT */
/*
 * nvcc's __fatBinC_Wrapper_t in the caller's memory, whose fatbin is the
 * input (its magic set and its header's size held to the input's, as a
 * caller's fatbin is), through cuModuleLoadDataEx, cuModuleLoadFatBinary and
 * cuLibraryLoadData, and the bare fatbin through cuModuleLoadData: a module
 * or a refusal that says why, nothing read past the input (ASan watches its
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

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct {
        uint32_t magic, version;
        const void *data, *filename;
    } wrapper = {0x466243b1u, 1, NULL, NULL};
    char log[512];
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
    unsigned char *fb;
    cuabi_module m = NULL;
    cuabi_library l = NULL;
    cuabi_result rc;

    if (size < 16 || !(fb = malloc(size)))
        return 0;
    memcpy(fb, data, size);
    fz_fatbin_bound(fb, size);
    wrapper.data = fb;

    log[0] = '\0';
    rc = cuModuleLoadDataEx(&m, &wrapper, 2, options, values);
    fz_check(fz_load_status(rc), "cuModuleLoadDataEx: an unexpected status", rc);
    fz_check(!fz_needs_reason(rc) || log[0], "cuModuleLoadDataEx: a refusal without a reason", rc);
    if (rc == CUABI_SUCCESS)
        fz_check(cuModuleUnload(m) == CUABI_SUCCESS, "cuModuleUnload", 0);
    rc = cuModuleLoadFatBinary(&m, &wrapper);
    fz_check(fz_load_status(rc), "cuModuleLoadFatBinary: an unexpected status", rc);
    if (rc == CUABI_SUCCESS)
        fz_check(cuModuleUnload(m) == CUABI_SUCCESS, "cuModuleUnload", 0);
    rc = cuModuleLoadData(&m, fb);
    fz_check(fz_load_status(rc), "cuModuleLoadData: an unexpected status", rc);
    if (rc == CUABI_SUCCESS)
        fz_check(cuModuleUnload(m) == CUABI_SUCCESS, "cuModuleUnload", 0);
    rc = cuLibraryLoadData(&l, &wrapper, NULL, NULL, 0, NULL, NULL, 0);
    fz_check(fz_load_status(rc), "cuLibraryLoadData: an unexpected status", rc);
    if (rc == CUABI_SUCCESS) {
        /* The library's module in the context, loaded from its PTX at this first need. */
        rc = cuLibraryGetModule(&m, l);
        fz_check(fz_load_status(rc), "cuLibraryGetModule: an unexpected status", rc);
        fz_check(cuLibraryUnload(l) == CUABI_SUCCESS, "cuLibraryUnload", 0);
    }
    free(fb);
    fz_nothing_left();
    return 0;
}
