/* SPDX-License-Identifier: MIT */
/*
 * The input as a module file, through cuModuleLoad, cuLibraryLoadFromFile
 * and cuLinkAddFile (as a fatbin and as PTX): a module or a refusal that
 * says why, whatever the bytes; a file's bytes are never taken for a
 * pointer (a wrapper's magic is refused), nothing is read past them, and
 * nothing is left loaded.
 */
#include <fcntl.h>
#include <unistd.h>

#include "fuzz_image.h"

static char dir[64], path[96];

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_init();
    snprintf(dir, sizeof(dir), "%s", "/tmp/fuzz-image-file-XXXXXX");
    fz_check(mkdtemp(dir) != NULL, "a folder for the input's file", 0);
    snprintf(path, sizeof(path), "%s/image", dir);
    atexit(cleanup);
    return 0;
}

/* Whether a refusal of the file says why: in `log`, or (cuModuleLoad has no log) to cuGetErrorString. */
static int said(cuabi_result rc, const char *log)
{
    const char *s = NULL;

    if (!fz_needs_reason(rc) || (log && log[0]))
        return 1;
    return cuGetErrorString(rc, &s) == CUABI_SUCCESS && s && s[0];
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static const cuabi_jit_input_type types[] = {CUABI_JIT_INPUT_FATBINARY, CUABI_JIT_INPUT_PTX,
                                                 CUABI_JIT_INPUT_CUBIN};
    char log[512];
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    cuabi_module m = NULL;
    cuabi_library l = NULL;
    cuabi_link_state s = NULL;
    cuabi_result rc;

    fz_check(fd >= 0 && write(fd, data, size) == (ssize_t)size && close(fd) == 0, "the input's file", 0);

    rc = cuModuleLoad(&m, path);
    fz_check(fz_load_status(rc), "cuModuleLoad: an unexpected status", rc);
    fz_check(said(rc, NULL), "cuModuleLoad: a refusal without a reason", rc);
    if (rc == CUABI_SUCCESS)
        fz_check(cuModuleUnload(m) == CUABI_SUCCESS, "cuModuleUnload", 0);

    log[0] = '\0';
    rc = cuLibraryLoadFromFile(&l, path, options, values, 2, NULL, NULL, 0);
    fz_check(fz_load_status(rc), "cuLibraryLoadFromFile: an unexpected status", rc);
    fz_check(said(rc, log), "cuLibraryLoadFromFile: a refusal without a reason", rc);
    if (rc == CUABI_SUCCESS)
        fz_check(cuLibraryUnload(l) == CUABI_SUCCESS, "cuLibraryUnload", 0);

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        fz_check(cuLinkCreate_v2(0, NULL, NULL, &s) == CUABI_SUCCESS, "cuLinkCreate_v2", 0);
        rc = cuLinkAddFile_v2(s, types[i], path, 0, NULL, NULL);
        fz_check(fz_load_status(rc), "cuLinkAddFile_v2: an unexpected status", rc);
        fz_check(cuLinkDestroy(s) == CUABI_SUCCESS, "cuLinkDestroy", 0);
    }
    fz_nothing_left();
    return 0;
}
