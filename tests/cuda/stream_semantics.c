/* SPDX-License-Identifier: MIT */
/*
 * What the driver does with queued work and errors, against what the fake
 * driver does: asynchronous copies and pageable host memory, a free while
 * a launch still uses the memory, a free with no context current, and a
 * kernel's illegal address, which corrupts its context until it is
 * destroyed. Written against the toolkit's cuda.h, linked with gpushim-cuda,
 * run on the fake (suite fake) and on a GPU (suite gpu). Prints each case's
 * answer; exits 1 if any differs from the table, 77 without a device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "expect.h"

/* store(p, v): *p = v, by one thread. */
static const char ptx[] = ".version 7.0\n"
                          ".target sm_70\n"
                          ".address_size 64\n"
                          ".visible .entry store(.param .u64 p, .param .u32 v)\n"
                          "{\n"
                          "    .reg .b64 %rd<2>;\n"
                          "    .reg .b32 %r<2>;\n"
                          "    ld.param.u64 %rd1, [p];\n"
                          "    ld.param.u32 %r1, [v];\n"
                          "    st.global.u32 [%rd1], %r1;\n"
                          "    ret;\n"
                          "}\n";

static CUresult store(CUfunction f, CUstream s, CUdeviceptr p, unsigned v)
{
    void *params[] = {&p, &v};

    return cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, NULL);
}

static void pageable(CUfunction f, CUstream s, CUdeviceptr d)
{
    enum { N = 1 << 16 };
    unsigned *src = malloc(N * sizeof(unsigned)), *dst = malloc(N * sizeof(unsigned));
    int same = 1;

    if (!src || !dst) {
        free(src);
        free(dst);
        wrong++;
        return;
    }
    for (unsigned i = 0; i < N; i++)
        src[i] = i * 3 + 1;
    expect("pageable source: cuMemcpyHtoDAsync behind a launch", store(f, s, d, 5) == CUDA_SUCCESS
               ? cuMemcpyHtoDAsync(d, src, N * sizeof(unsigned), s) : CUDA_ERROR_UNKNOWN, CUDA_SUCCESS);
    memset(src, 0xff, N * sizeof(unsigned)); /* staged already: the copy does not see this */
    expect("pageable destination: cuMemcpyDtoHAsync behind a launch",
           store(f, s, d + 8, 77) == CUDA_SUCCESS ? cuMemcpyDtoHAsync(dst, d, N * sizeof(unsigned), s)
                                                   : CUDA_ERROR_UNKNOWN,
           CUDA_SUCCESS);
    /* Done when the call returned: read with no synchronisation. */
    for (unsigned i = 0; i < N; i++)
        same &= dst[i] == (i == 2 ? 77u : i * 3 + 1);
    expect_true("  the copy into pageable memory done at return, source staged", same);
    expect("  cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    free(src);
    free(dst);
}

static void frees(CUfunction f, CUstream s, CUcontext ctx)
{
    CUdeviceptr p = 0;
    CUcontext none = NULL;

    expect("cuMemFree while a queued launch writes the memory",
           cuMemAlloc(&p, 4096) == CUDA_SUCCESS && store(f, s, p, 1) == CUDA_SUCCESS ? cuMemFree(p)
                                                                                     : CUDA_ERROR_UNKNOWN,
           CUDA_SUCCESS);
    expect("  then cuCtxSynchronize", cuCtxSynchronize(), CUDA_SUCCESS);
    if (cuMemAlloc(&p, 4096) != CUDA_SUCCESS || cuCtxPopCurrent(&none) != CUDA_SUCCESS) {
        wrong++;
        return;
    }
    expect("cuMemFree of a valid pointer with no context current", cuMemFree(p), CUDA_SUCCESS);
    cuCtxPushCurrent(ctx);
}

/* Last: the context is corrupted, then released to none and retained again. */
static void sticky(CUfunction f, CUdevice dev)
{
    CUdeviceptr p = 0, q = 0;
    CUcontext ctx = NULL;
    unsigned v = 0;

    expect("a kernel storing to address 16: cuLaunchKernel",
           cuMemAlloc(&p, 16) == CUDA_SUCCESS ? store(f, NULL, 16, 1) : CUDA_ERROR_UNKNOWN, CUDA_SUCCESS);
    expect("  then cuMemcpyDtoH of valid memory", cuMemcpyDtoH(&v, p, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
    expect("  then cuCtxSynchronize", cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    expect("  then cuCtxSynchronize again", cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    expect("  then cuMemAlloc", cuMemAlloc(&q, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
    expect("  then cuLaunchKernel", store(f, NULL, p, 1), CUDA_ERROR_ILLEGAL_ADDRESS);
    expect("the primary context released", cuDevicePrimaryCtxRelease(dev), CUDA_SUCCESS);
    /* The error outlives the context: "the process must be terminated" (cudaErrorIllegalAddress). */
    expect("  retained afresh", cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_ERROR_ILLEGAL_ADDRESS);
    cuCtxSetCurrent(ctx);
    expect("  then cuMemAlloc", cuMemAlloc(&q, 16), CUDA_ERROR_INVALID_CONTEXT);
    expect("  then cuMemcpyDtoH", cuMemcpyDtoH(&v, q, 4), CUDA_ERROR_INVALID_CONTEXT);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule m = NULL;
    CUfunction f = NULL;
    CUstream s = NULL;
    CUdeviceptr d = 0;

    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    if (cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS ||
        cuModuleLoadData(&m, ptx) != CUDA_SUCCESS || cuModuleGetFunction(&f, m, "store") != CUDA_SUCCESS ||
        cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS || cuMemAlloc(&d, 1 << 18) != CUDA_SUCCESS) {
        printf("failed: no context, module, stream or memory\n");
        return 1;
    }
    pageable(f, s, d);
    frees(f, s, ctx);
    cuMemFree(d);
    cuStreamDestroy(s);
    sticky(f, dev);
    printf("%d answers differ from the fake's\n", wrong);
    return wrong ? 1 : 0;
}
