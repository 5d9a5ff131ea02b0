/* SPDX-License-Identifier: MIT */
/*
 * What the image targets share (fuzz_image_*.c): the fake driver's entry
 * points, called directly as a CUDA program calls them, a current context,
 * the statuses a load may answer, and the image forms an entry point that
 * takes no size is given: bounded by their own headers, as the API asks of
 * its caller.
 */
#ifndef FUZZ_IMAGE_H
#define FUZZ_IMAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_abi.h"
#include <gpushim/fake.h>

#define GPU__ENTRY(need, name, symbol, params, args) cuabi_result symbol params;
#include "entry_points.h"
#undef GPU__ENTRY
#define GPU__FAKE_ENTRY(symbol, params) cuabi_result symbol params;
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY
cuabi_result cuInit(unsigned int flags);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
const char *__ubsan_default_options(void);

/* Undefined behaviour is a finding like any other: the input that shows it is kept. */
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

static inline void fz_check(int ok, const char *what, cuabi_result rc)
{
    if (!ok) {
        fprintf(stderr, "fuzz-image: %s (CUresult %d)\n", what, (int)rc);
        abort();
    }
}

/* cuInit and the primary context current, with each fault told once: one process runs every input. */
static inline void fz_init(void)
{
    cuabi_context ctx = NULL;

    setenv("GPUSHIM_FAKE_STICKY", "0", 1);
    fz_check(cuInit(0) == CUABI_SUCCESS, "cuInit", 0);
    fz_check(cuDevicePrimaryCtxRetain(&ctx, 0) == CUABI_SUCCESS && cuCtxSetCurrent(ctx) == CUABI_SUCCESS,
             "a context", 0);
}

/* What a load of any bytes may answer: a module, or a refusal of the image. */
static inline int fz_load_status(cuabi_result rc)
{
    switch (rc) {
    case CUABI_SUCCESS:
    case CUABI_ERROR_INVALID_VALUE:     /* a file refused, an empty input */
    case CUABI_ERROR_OUT_OF_MEMORY:     /* globals larger than the device */
    case CUABI_ERROR_INVALID_IMAGE:
    case CUABI_ERROR_INVALID_PTX:
    case CUABI_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUABI_ERROR_NOT_SUPPORTED:
    case CUABI_ERROR_NO_BINARY_FOR_GPU:
        return 1;
    default:
        return 0;
    }
}

/* Whether the load's failure `rc` is one that must say why in the error log. */
static inline int fz_needs_reason(cuabi_result rc)
{
    return rc == CUABI_ERROR_INVALID_IMAGE || rc == CUABI_ERROR_INVALID_PTX || rc == CUABI_ERROR_NOT_SUPPORTED ||
           rc == CUABI_ERROR_NO_BINARY_FOR_GPU;
}

/* Nothing the input made is left behind. */
static inline void fz_nothing_left(void)
{
    fz_check(gpu_fake_live(GPU_FAKE_LIVE_MODULES) == 0, "a module was left loaded", 0);
    fz_check(gpu_fake_live(GPU_FAKE_LIVE_LIBRARIES) == 0, "a library was left loaded", 0);
    fz_check(gpu_fake_live(GPU_FAKE_LIVE_LINKS) == 0, "a link was left", 0);
}

static inline uint64_t fz_le64(const unsigned char *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline void fz_put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static const unsigned char fz_fatbin_magic[4] = {0x50, 0xed, 0x55, 0xba};
static const unsigned char fz_wrapper_magic[4] = {0xb1, 0x43, 0x62, 0x46};

/*
 * `size` bytes as a fatbin (size at least 16) that a caller may pass with no
 * size: the fatbin magic, and a header whose size is at most what there is.
 */
static inline void fz_fatbin_bound(unsigned char *fb, size_t size)
{
    memcpy(fb, fz_fatbin_magic, 4);
    if (fz_le64(fb + 8) > size - 16)
        fz_put64(fb + 8, size - 16);
}

#endif
