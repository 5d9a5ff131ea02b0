/* SPDX-License-Identifier: MIT */
/*
 * The input as a link input: its first byte picks the CUjitInputType (PTX,
 * a fatbin, a cubin, an object, a library, NVVM, or none), the rest is the
 * data, of exactly its size (no NUL added), through cuLinkAddData; on
 * success the link is completed and its image loaded. An input or a
 * refusal that says why in the link's error log, nothing read past the data
 * (ASan watches its exact copy), nothing left.
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
    /* By the first byte: the type of that number, for 0 to 5 (as CUjitInputType numbers them). */
    static const cuabi_jit_input_type types[] = {CUABI_JIT_INPUT_CUBIN,   CUABI_JIT_INPUT_PTX,
                                                 CUABI_JIT_INPUT_FATBINARY, CUABI_JIT_INPUT_OBJECT,
                                                 CUABI_JIT_INPUT_LIBRARY, CUABI_JIT_INPUT_NVVM,
                                                 (cuabi_jit_input_type)99};
    char log[512];
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
    cuabi_link_state s = NULL;
    cuabi_module m = NULL;
    unsigned char *input;
    void *image = NULL;
    size_t image_size = 0;
    cuabi_result rc;

    if (size < 2 || !(input = malloc(size - 1)))
        return 0;
    memcpy(input, data + 1, size - 1);
    log[0] = '\0';
    fz_check(cuLinkCreate_v2(2, options, values, &s) == CUABI_SUCCESS, "cuLinkCreate_v2", 0);
    rc = cuLinkAddData_v2(s, types[data[0] % (sizeof(types) / sizeof(types[0]))], input, size - 1, "input", 0, NULL,
                          NULL);
    fz_check(fz_load_status(rc), "cuLinkAddData_v2: an unexpected status", rc);
    fz_check(!fz_needs_reason(rc) || log[0], "cuLinkAddData_v2: a refusal without a reason", rc);
    free(input);
    if (rc == CUABI_SUCCESS) {
        rc = cuLinkComplete(s, &image, &image_size);
        fz_check(rc == CUABI_SUCCESS || rc == CUABI_ERROR_INVALID_PTX, "cuLinkComplete: an unexpected status", rc);
        if (rc == CUABI_SUCCESS) {
            rc = cuModuleLoadData(&m, image);
            fz_check(fz_load_status(rc), "cuModuleLoadData of the linked image: an unexpected status", rc);
            if (rc == CUABI_SUCCESS)
                fz_check(cuModuleUnload(m) == CUABI_SUCCESS, "cuModuleUnload", 0);
        }
    }
    fz_check(cuLinkDestroy(s) == CUABI_SUCCESS, "cuLinkDestroy", 0);
    fz_nothing_left();
    return 0;
}
