/* SPDX-License-Identifier: MIT */
/*
 * Images whose bytes lie about themselves, through every entry point that
 * loads one (fake/objects/fake_image.c's bounded reader), one case a process:
 *
 *  - a fatbin file cut short (cuModuleLoad, cuLibraryLoadFromFile,
 *    cuLinkAddFile) is refused as INVALID_IMAGE, never read past its end;
 *    with FT_NVCC_DIR, nvcc's own fatbins cut at 682 bytes, too;
 *  - a file that starts as nvcc's in-memory wrapper (__fatBinC_Wrapper_t)
 *    is refused: the pointer in its bytes 8-15, which here names a page no
 *    one may read, is never followed;
 *  - PTX is read as PTX only: a link input of type CU_JIT_INPUT_PTX, or the
 *    PTX a fatbin given to cuLibraryLoadData carries, that holds a wrapper
 *    or a fatbin is refused as INVALID_PTX;
 *  - PTX or a fatbin given to the linker as a cubin is refused, once;
 *  - a wrapper the caller passes in memory is followed, and its fatbin read
 *    only as far as the fatbin's header says: one ending at a page that no
 *    one may read loads; a sized input ending there is read to its size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_test.h"

static long page;

#if defined(__SANITIZE_THREAD__)
#define TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN_BUILD 1
#endif
#endif
#ifndef TSAN_BUILD
#define TSAN_BUILD 0
#endif

/*
 * An address inside two pages that no one may read, whose six low bytes
 * hold no NUL: copied as text, it stays whole, so that a reader that follows
 * it faults rather than reading something else.
 */
static uintptr_t hostile_pointer(void)
{
    static uintptr_t at;
    void *want = (void *)(uintptr_t)0x414141414000u, *p;

    if (at)
        return at;
    /* ThreadSanitizer ends the process at a mapping outside the ranges it shadows: any address will do there. */
    p = TSAN_BUILD ? MAP_FAILED
                   : mmap(want, 2 * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)
        p = mmap(NULL, 2 * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    at = p == want ? (uintptr_t)0x414141414141u : (uintptr_t)p + 0x41;
    return at;
}

/* `n` bytes of `data` placed to end where a page that no one may read begins; unmapped by guarded_free(). */
static unsigned char *guarded(const void *data, size_t n)
{
    size_t pages = (n + (size_t)page - 1) / (size_t)page + 1;
    unsigned char *p = mmap(NULL, pages * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    assert_true(p != MAP_FAILED);
    assert_int_equal(mprotect(p + (pages - 1) * (size_t)page, (size_t)page, PROT_NONE), 0);
    p += (pages - 1) * (size_t)page - n;
    memcpy(p, data, n);
    return p;
}

static void guarded_free(unsigned char *p, size_t n)
{
    size_t pages = (n + (size_t)page - 1) / (size_t)page + 1;
    unsigned char *base = p + n - (pages - 1) * (size_t)page;

    munmap(base, pages * (size_t)page);
}

/* A fatbin of one PTX entry for compute_50 whose payload is `payload` (`len` bytes), `extra` bytes more declared. */
static size_t fatbin_of(unsigned char *out, const void *payload, size_t len, uint64_t extra)
{
    uint32_t magic = 0xba55ed50u, version = 1u | 16u << 16, kind = 1u | 0x0101u << 16, header = 64, arch = 50;
    uint64_t bytes = len + extra, entries = 64 + bytes;

    memset(out, 0, 16 + 64);
    memcpy(out, &magic, 4);
    memcpy(out + 4, &version, 4);
    memcpy(out + 8, &entries, 8);
    memcpy(out + 16, &kind, 4);
    memcpy(out + 20, &header, 4);
    memcpy(out + 24, &bytes, 8);
    memcpy(out + 16 + 28, &arch, 4);
    memcpy(out + 80, payload, len);
    return 80 + len;
}

/* nvcc's __fatBinC_Wrapper_t as bytes: the magic, a version with no NUL byte, `data`, no file name. */
static size_t wrapper_of(unsigned char *out, uintptr_t data)
{
    uint32_t magic = 0x466243b1u, version = 0x01010101u;
    uint64_t d = data, name = 0;

    memcpy(out, &magic, 4);
    memcpy(out + 4, &version, 4);
    memcpy(out + 8, &d, 8);
    memcpy(out + 16, &name, 8);
    return 24;
}

static const char ptx[] = ".version 8.0\n.target sm_50\n.address_size 64\n.visible .entry k() { ret; }\n";

/* A file of the user's (mode 0600) holding `n` bytes of `data`; its path in `path`. */
static void file_of(char *path, size_t path_size, const void *data, size_t n)
{
    int fd;

    snprintf(path, path_size, "%s/gpushim-image-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
}

/* Why the last load failed, as the fake tells cuGetErrorString. */
static const char *said(cuabi_result rc)
{
    const char *s = NULL;

    assert_int_equal(cuGetErrorString(rc, &s), CUABI_SUCCESS);
    return s ? s : "";
}

#define ASSERT_SAID(rc, needle)                                                                                        \
    do {                                                                                                               \
        const char *said_ = said(rc);                                                                                  \
        if (!strstr(said_, (needle)))                                                                                  \
            fail_msg("the fake said \"%s\", not \"%s\"", said_, (needle));                                           \
    } while (0)

enum entry { BY_MODULE, BY_LIBRARY, BY_LINK };

/* Loads the file at `path` through `e` (a link input of `type`); the driver's answer. */
static cuabi_result load_file(enum entry e, const char *path, cuabi_jit_input_type type)
{
    cuabi_module m = NULL;
    cuabi_library l = NULL;
    cuabi_link_state s = NULL;
    cuabi_result rc;

    switch (e) {
    case BY_MODULE:
        if ((rc = cuModuleLoad(&m, path)) == CUABI_SUCCESS)
            CU_OK(cuModuleUnload(m));
        return rc;
    case BY_LIBRARY:
        if ((rc = cuLibraryLoadFromFile(&l, path, NULL, NULL, 0, NULL, NULL, 0)) == CUABI_SUCCESS)
            CU_OK(cuLibraryUnload(l));
        return rc;
    default:
        CU_OK(cuLinkCreate_v2(0, NULL, NULL, &s));
        rc = cuLinkAddFile_v2(s, type, path, 0, NULL, NULL);
        CU_OK(cuLinkDestroy(s));
        return rc;
    }
}

static cuabi_result link_data(cuabi_jit_input_type type, const void *data, size_t size)
{
    cuabi_link_state s = NULL;
    cuabi_result rc;

    CU_OK(cuLinkCreate_v2(0, NULL, NULL, &s));
    rc = cuLinkAddData_v2(s, type, (void *)(uintptr_t)data, size, "input", 0, NULL, NULL);
    CU_OK(cuLinkDestroy(s));
    return rc;
}

/* ---- A fatbin file cut short ---- */

/* A fatbin whose header declares 512 bytes of PTX more than the file holds; the file ends after its text. */
static void file_cut(enum entry e)
{
    unsigned char fb[256];
    char path[4096];
    size_t n = fatbin_of(fb, ptx, sizeof(ptx) - 1, 512);
    cuabi_result rc;

    file_of(path, sizeof(path), fb, n);
    rc = load_file(e, path, CUABI_JIT_INPUT_FATBINARY);
    unlink(path);
    assert_int_equal(rc, CUABI_ERROR_INVALID_IMAGE);
    ASSERT_SAID(rc, "whose header says it has");
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

static void file_cut_module(void **state)
{
    (void)state;
    file_cut(BY_MODULE);
}

static void file_cut_library(void **state)
{
    (void)state;
    file_cut(BY_LIBRARY);
}

static void file_cut_link(void **state)
{
    (void)state;
    file_cut(BY_LINK);
}

/* nvcc's fatbins (FT_NVCC_DIR: where the build put them), their first 682 bytes, through each file entry point. */
static void nvcc_cut(void **state)
{
    static const char *const names[] = {"ptx_kernels.fatbin", "ptx_kernels_compressed.fatbin",
                                        "ptx_kernels_multi.fatbin"};
    const char *dir = getenv("FT_NVCC_DIR");

    (void)state;
    if (!dir)
        skip();
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        unsigned char bytes[682];
        char from[4096], path[4096];
        FILE *f;

        snprintf(from, sizeof(from), "%s/%s", dir, names[i]);
        assert_non_null(f = fopen(from, "rb"));
        assert_int_equal(fread(bytes, 1, sizeof(bytes), f), sizeof(bytes));
        fclose(f);
        file_of(path, sizeof(path), bytes, sizeof(bytes));
        for (enum entry e = BY_MODULE; e <= BY_LINK; e++) {
            cuabi_result rc = load_file(e, path, CUABI_JIT_INPUT_FATBINARY);

            if (rc != CUABI_ERROR_INVALID_IMAGE)
                fail_msg("%s cut to 682 bytes, entry point %d: %d, not INVALID_IMAGE", names[i], (int)e, (int)rc);
            ASSERT_SAID(rc, "whose header says it has");
        }
        unlink(path);
    }
}

/* ---- A file that holds a wrapper's pointer ---- */

/* A file of nvcc's wrapper, its pointer naming a page no one may read, loaded through `e` as `type`. */
static void file_wrapper(enum entry e, cuabi_jit_input_type type, cuabi_result want, const char *needle)
{
    unsigned char w[24];
    char path[4096];
    cuabi_result rc;

    file_of(path, sizeof(path), w, wrapper_of(w, hostile_pointer()));
    rc = load_file(e, path, type);
    unlink(path);
    assert_int_equal(rc, want);
    if (needle)
        ASSERT_SAID(rc, needle);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

static void file_wrapper_module(void **state)
{
    (void)state;
    file_wrapper(BY_MODULE, 0, CUABI_ERROR_INVALID_IMAGE, "holds a pointer");
}

static void file_wrapper_library(void **state)
{
    (void)state;
    file_wrapper(BY_LIBRARY, 0, CUABI_ERROR_INVALID_IMAGE, "holds a pointer");
}

static void file_wrapper_link(void **state)
{
    (void)state;
    file_wrapper(BY_LINK, CUABI_JIT_INPUT_FATBINARY, CUABI_ERROR_INVALID_IMAGE, "holds a pointer");
}

/* The same file as a PTX input: text, which no PTX reader takes. */
static void file_wrapper_link_ptx(void **state)
{
    (void)state;
    file_wrapper(BY_LINK, CUABI_JIT_INPUT_PTX, CUABI_ERROR_INVALID_PTX, NULL);
}

/* ---- PTX that holds another image ---- */

/* A link input of type PTX that holds nvcc's wrapper, its pointer naming a page no one may read. */
static void link_ptx_wrapper(void **state)
{
    unsigned char w[24];
    size_t n = wrapper_of(w, hostile_pointer());
    unsigned char *p = guarded(w, n);

    (void)state;
    assert_int_equal(link_data(CUABI_JIT_INPUT_PTX, p, n), CUABI_ERROR_INVALID_PTX);
    guarded_free(p, n);
}

/* A link input of type PTX that holds a fatbin's header, 1 MiB declared, ending where no one may read. */
static void link_ptx_fatbin(void **state)
{
    unsigned char fb[256];
    size_t n = fatbin_of(fb, ptx, sizeof(ptx) - 1, 1u << 20);
    unsigned char *p;

    (void)state;
    p = guarded(fb, 16);
    assert_int_equal(link_data(CUABI_JIT_INPUT_PTX, p, 16), CUABI_ERROR_INVALID_PTX);
    guarded_free(p, 16);
    p = guarded(fb, n);
    assert_int_equal(link_data(CUABI_JIT_INPUT_PTX, p, n), CUABI_ERROR_INVALID_PTX);
    guarded_free(p, n);
}

/* cuLibraryLoadData of a fatbin whose PTX is `payload`: refused as PTX. */
static void library_nested(const void *payload, size_t len)
{
    unsigned char fb[256];
    size_t n = fatbin_of(fb, payload, len, 0);
    unsigned char *p = guarded(fb, n);
    cuabi_library l = NULL;
    cuabi_module m = NULL;

    assert_int_equal(cuLibraryLoadData(&l, p, NULL, NULL, 0, NULL, NULL, 0), CUABI_ERROR_INVALID_PTX);
    assert_int_equal(cuModuleLoadData(&m, p), CUABI_ERROR_INVALID_PTX);
    assert_int_equal(cuModuleLoadFatBinary(&m, p), CUABI_ERROR_INVALID_PTX);
    guarded_free(p, n);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LIBRARIES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

/* A fatbin whose PTX is a wrapper, its pointer naming a page no one may read. */
static void library_nested_wrapper(void **state)
{
    unsigned char w[24];

    (void)state;
    library_nested(w, wrapper_of(w, hostile_pointer()));
}

/* A fatbin whose PTX is a fatbin that declares 1 MiB. */
static void library_nested_fatbin(void **state)
{
    unsigned char inner[256];

    (void)state;
    fatbin_of(inner, ptx, sizeof(ptx) - 1, 1u << 20);
    library_nested(inner, 16);
}

/* ---- A link input of the wrong type ---- */

/* PTX and a fatbin given as CU_JIT_INPUT_CUBIN, in memory and in a file: refused, and freed once. */
static void link_cubin_not_elf(void **state)
{
    unsigned char fb[256];
    size_t n = fatbin_of(fb, ptx, sizeof(ptx) - 1, 0);
    char path[4096];
    cuabi_result rc;

    (void)state;
    assert_int_equal(link_data(CUABI_JIT_INPUT_CUBIN, ptx, sizeof(ptx)), CUABI_ERROR_INVALID_IMAGE);
    assert_int_equal(link_data(CUABI_JIT_INPUT_CUBIN, fb, n), CUABI_ERROR_INVALID_IMAGE);
    ASSERT_SAID(CUABI_ERROR_INVALID_IMAGE, "no ELF file");
    file_of(path, sizeof(path), ptx, sizeof(ptx) - 1);
    rc = load_file(BY_LINK, path, CUABI_JIT_INPUT_CUBIN);
    unlink(path);
    assert_int_equal(rc, CUABI_ERROR_INVALID_IMAGE);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LINKS), 0);
}

/* ---- What is read, and no further ---- */

/*
 * A wrapper in the caller's memory, whose fatbin's PTX (no NUL) runs to a
 * page no one may read, loads through every entry point that takes one; a
 * link input, which has a size, takes the fatbin but not the wrapper.
 */
static void memory_bounded(void **state)
{
    unsigned char fb[256], w[24];
    size_t n = fatbin_of(fb, ptx, sizeof(ptx) - 1, 0);
    unsigned char *p = guarded(fb, n), *text = guarded(ptx, sizeof(ptx) - 1);
    cuabi_module m = NULL;
    cuabi_library l = NULL;
    cuabi_function f = NULL;

    (void)state;
    wrapper_of(w, (uintptr_t)p);
    CU_OK(cuModuleLoadData(&m, w));
    CU_OK(cuModuleGetFunction(&f, m, "k"));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuModuleLoadFatBinary(&m, w));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuModuleLoadDataEx(&m, p, 0, NULL, NULL));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuLibraryLoadData(&l, w, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryUnload(l));
    CU_OK(cuLibraryLoadData(&l, p, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryUnload(l));
    CU_OK(link_data(CUABI_JIT_INPUT_FATBINARY, p, n));
    assert_int_equal(link_data(CUABI_JIT_INPUT_FATBINARY, p, n - 1), CUABI_ERROR_INVALID_IMAGE);
    assert_int_equal(link_data(CUABI_JIT_INPUT_FATBINARY, w, sizeof(w)), CUABI_ERROR_INVALID_IMAGE);
    CU_OK(link_data(CUABI_JIT_INPUT_PTX, text, sizeof(ptx) - 1));
    guarded_free(p, n);
    guarded_free(text, sizeof(ptx) - 1);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

static int setup(void **state)
{
    (void)state;
    page = sysconf(_SC_PAGESIZE);
    ft_retain_current(0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
    return 0;
}

#define CASE(name, fn) {name, cmocka_unit_test_setup_teardown(fn, setup, teardown)}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        CASE("file-cut-module", file_cut_module),
        CASE("file-cut-library", file_cut_library),
        CASE("file-cut-link", file_cut_link),
        CASE("nvcc-cut", nvcc_cut),
        CASE("file-wrapper-module", file_wrapper_module),
        CASE("file-wrapper-library", file_wrapper_library),
        CASE("file-wrapper-link", file_wrapper_link),
        CASE("file-wrapper-link-ptx", file_wrapper_link_ptx),
        CASE("link-ptx-wrapper", link_ptx_wrapper),
        CASE("link-ptx-fatbin", link_ptx_fatbin),
        CASE("library-nested-wrapper", library_nested_wrapper),
        CASE("library-nested-fatbin", library_nested_fatbin),
        CASE("link-cubin-not-elf", link_cubin_not_elf),
        CASE("memory-bounded", memory_bounded),
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
