/* SPDX-License-Identifier: MIT */
/*
 * What the real driver does with the hot calls on a stream of context A while
 * no context, A itself, or another context B of the same device is current:
 * each call's CUresult, and whether the data came out right (a copy in, a
 * kernel adding one, a record and a wait, a copy out). It talks to
 * libcuda.so.1 directly, without gpushim: the facts behind call.h's choice to
 * check the thread's context before a hot call. Not run by the
 * suites; on a GPU machine:  build/tools/context-probe
 * Prints one "PROBE current=..." line per case; exit 1 when setup fails.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void *CUcontext, *CUstream, *CUevent, *CUmodule, *CUfunction;
typedef unsigned long long CUdeviceptr;

static const char ptx[] =
    ".version 6.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry add_one(.param .u64 data, .param .u32 n)\n{\n"
    "    .reg .pred %p;\n    .reg .b32 %r<7>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [data];\n    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n    setp.ge.u32 %p, %r5, %r1;\n    @%p bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n    mul.wide.u32 %rd3, %r5, 4;\n    add.s64 %rd2, %rd2, %rd3;\n"
    "    ld.global.u32 %r6, [%rd2];\n    add.u32 %r6, %r6, 1;\n    st.global.u32 [%rd2], %r6;\n"
    "DONE:\n    ret;\n}\n";

#define N 4096

/* dlsym's answer as a function pointer, the way ISO C allows. */
#define SYM(var, name) \
    do { \
        void *sym_ = dlsym(h, name); \
        memcpy(&(var), &sym_, sizeof(var)); \
    } while (0)

int main(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    CUresult (*cuInit)(unsigned), (*cuDevicePrimaryCtxRetain)(CUcontext *, int);
    CUresult (*cuCtxCreate)(CUcontext *, unsigned, int), (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuStreamCreate)(CUstream *, unsigned), (*cuEventCreate)(CUevent *, unsigned);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *), (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t), (*cuMemAllocHost)(void **, size_t);
    CUresult (*h2d)(CUdeviceptr, const void *, size_t, CUstream), (*d2h)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*cuStreamQuery)(CUstream), (*cuStreamSynchronize)(CUstream), (*cuEventRecord)(CUevent, CUstream);
    CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void **, void **);

    if (!h) {
        printf("PROBE no driver: %s\n", dlerror());
        return 1;
    }
    SYM(cuInit, "cuInit");
    SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    SYM(cuCtxCreate, "cuCtxCreate_v2");
    SYM(cuCtxSetCurrent, "cuCtxSetCurrent");
    SYM(cuStreamCreate, "cuStreamCreate");
    SYM(cuEventCreate, "cuEventCreate");
    SYM(cuModuleLoadData, "cuModuleLoadData");
    SYM(cuModuleGetFunction, "cuModuleGetFunction");
    SYM(cuMemAlloc, "cuMemAlloc_v2");
    SYM(cuMemAllocHost, "cuMemAllocHost_v2");
    SYM(h2d, "cuMemcpyHtoDAsync_v2");
    SYM(d2h, "cuMemcpyDtoHAsync_v2");
    SYM(cuStreamQuery, "cuStreamQuery");
    SYM(cuStreamSynchronize, "cuStreamSynchronize");
    SYM(cuEventRecord, "cuEventRecord");
    SYM(cuStreamWaitEvent, "cuStreamWaitEvent");
    SYM(cuLaunchKernel, "cuLaunchKernel");
    if (!cuInit || !cuDevicePrimaryCtxRetain || !cuCtxCreate || !cuCtxSetCurrent || !cuStreamCreate || !cuEventCreate ||
        !cuModuleLoadData || !cuModuleGetFunction || !cuMemAlloc || !cuMemAllocHost || !h2d || !d2h || !cuStreamQuery ||
        !cuStreamSynchronize || !cuEventRecord || !cuStreamWaitEvent || !cuLaunchKernel) {
        printf("PROBE the driver lacks an entry point used here\n");
        return 1;
    }
    CUcontext a, b;
    CUstream s;
    CUevent e;
    CUmodule m;
    CUfunction f;
    CUdeviceptr d;
    uint32_t *host;

    if (cuInit(0) || cuDevicePrimaryCtxRetain(&a, 0) || cuCtxSetCurrent(a) || cuStreamCreate(&s, 1) ||
        cuEventCreate(&e, 2) || cuModuleLoadData(&m, ptx) || cuModuleGetFunction(&f, m, "add_one") ||
        cuMemAlloc(&d, N * 4) || cuMemAllocHost((void **)&host, N * 4) || cuCtxCreate(&b, 0, 0)) {
        printf("PROBE setup failed\n");
        return 1;
    }
    const char *names[3] = {"none", "A (the stream's)", "B (another context, same device)"};
    CUcontext cur[3] = {NULL, a, b};
    for (int k = 0; k < 3; k++) {
        unsigned n = N;
        void *args[2] = {&d, &n};
        int wrong = 0;
        CUresult r[6];

        for (int i = 0; i < N; i++)
            host[i] = (uint32_t)i * 3 + (uint32_t)k;
        cuCtxSetCurrent(cur[k]);
        r[0] = h2d(d, host, N * 4, s);
        r[1] = cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, s, args, NULL);
        r[2] = cuEventRecord(e, s);
        r[3] = cuStreamWaitEvent(s, e, 0);
        memset(host, 0, N * 4);
        r[4] = d2h(host, d, N * 4, s);
        r[5] = cuStreamQuery(s);
        cuCtxSetCurrent(a);
        cuStreamSynchronize(s);
        for (int i = 0; i < N; i++)
            wrong += host[i] != (uint32_t)i * 3 + (uint32_t)k + (r[1] == 0 ? 1u : 0u);
        printf("PROBE current=%s h2d=%d launch=%d record=%d wait=%d d2h=%d query=%d wrong=%d\n", names[k], r[0], r[1],
               r[2], r[3], r[4], r[5], wrong);
    }
    return 0;
}
