/* SPDX-License-Identifier: MIT */
/*
 * What the driver's JIT linker does with a global or a function that several
 * inputs define, against what the fake driver does: .common globals of
 * different sizes become one variable of the largest size, a .weak global or
 * function gives way to a .visible one, and what the PTX ISA refuses of them
 * is refused. Written against the toolkit's cuda.h, linked with gpushim-cuda,
 * run on the fake (suite fake) and on a GPU (suite gpu). Prints each case's
 * answer; exits 1 if any differs from the table, 77 without a device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "expect.h"

#define HEADER ".version 8.0\n.target sm_75\n.address_size 64\n"

/*
 * Two inputs that share `env`, .common in both (8 and 32 bytes), and `mode`
 * and which(), .weak in the first and .visible in the second.
 */
static const char input_a[] = HEADER
    ".common .global .align 4 .b8 env[8];\n"
    ".weak .global .align 4 .u32 mode = 1;\n"
    ".weak .func (.param .b32 r) which()\n"
    "{\n"
    "  st.param.b32 [r], 1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry put(.param .u32 v)\n"
    "{\n"
    "  .reg .b32 %r<2>;\n"
    "  ld.param.u32 %r1, [v];\n"
    "  st.global.u32 [env], %r1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry mode_a(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<2>;\n"
    "  .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  ld.global.u32 %r1, [mode];\n"
    "  st.global.u32 [%rd1], %r1;\n"
    "  {\n"
    "  .param .b32 w;\n"
    "  call.uni (w), which, ();\n"
    "  ld.param.b32 %r1, [w];\n"
    "  }\n"
    "  st.global.u32 [%rd1+4], %r1;\n"
    "  ret;\n"
    "}\n";

static const char input_b[] = HEADER
    ".common .global .align 8 .b8 env[32];\n"
    ".visible .global .align 4 .u32 mode = 2;\n"
    ".visible .func (.param .b32 r) which()\n"
    "{\n"
    "  st.param.b32 [r], 2;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry get(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  ld.global.u32 %r1, [env];\n"
    "  ld.global.u32 %r2, [env+28];\n"
    "  st.global.u32 [%rd1], %r1;\n"
    "  st.global.u32 [%rd1+4], %r2;\n"
    "  ld.global.u32 %r1, [mode];\n"
    "  st.global.u32 [%rd1+8], %r1;\n"
    "  ret;\n"
    "}\n";

/* The link of `n` PTX texts loaded into *m; the first failure, its call named in *where. */
static CUresult link_load(const char *const *texts, int n, CUmodule *m, const char **where)
{
    CUlinkState l = NULL;
    void *image = NULL;
    size_t size = 0;
    CUresult rc;

    *where = "cuLinkCreate";
    rc = cuLinkCreate(0, NULL, NULL, &l);
    for (int i = 0; rc == CUDA_SUCCESS && i < n; i++) {
        char name[32];

        snprintf(name, sizeof(name), "in%d.ptx", i);
        *where = "cuLinkAddData";
        rc = cuLinkAddData(l, CU_JIT_INPUT_PTX, (void *)texts[i], strlen(texts[i]) + 1, name, 0, NULL, NULL);
    }
    if (rc == CUDA_SUCCESS) {
        *where = "cuLinkComplete";
        rc = cuLinkComplete(l, &image, &size);
    }
    if (rc == CUDA_SUCCESS) {
        *where = "cuModuleLoadData";
        rc = cuModuleLoadData(m, image);
    }
    if (l)
        cuLinkDestroy(l);
    return rc;
}

static CUresult launch(CUmodule m, const char *name, void **params)
{
    CUfunction f = NULL;
    CUresult rc = cuModuleGetFunction(&f, m, name);

    if (rc == CUDA_SUCCESS)
        rc = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
    return rc == CUDA_SUCCESS ? cuCtxSynchronize() : rc;
}

static void shared_variables(void)
{
    const char *const texts[] = {input_a, input_b};
    const char *where = NULL;
    CUmodule m = NULL;
    CUdeviceptr env = 0, mode = 0, out = 0;
    size_t bytes = 0;
    unsigned v = 0x1234, far = 0xabc, got[3] = {0};
    void *put_args[] = {&v}, *out_args[] = {&out};

    expect("two inputs, .common env of 8 and 32 bytes: linked and loaded", link_load(texts, 2, &m, &where),
           CUDA_SUCCESS);
    if (!m) {
        wrong++;
        return;
    }
    expect("cuModuleGetGlobal env", cuModuleGetGlobal(&env, &bytes, m, "env"), CUDA_SUCCESS);
    expect_true("  of the largest size, 32 bytes", bytes == 32);
    expect("cuModuleGetGlobal mode (.weak = 1, .visible = 2)", cuModuleGetGlobal(&mode, &bytes, m, "mode"),
           CUDA_SUCCESS);
    cuMemcpyDtoH(got, mode, 4);
    expect_true("  the .visible one's value, 2", bytes == 4 && got[0] == 2);
    cuMemAlloc(&out, sizeof(got));
    cuMemcpyHtoD(env + 28, &far, 4);
    expect("put (the 8-byte input's) writes env", launch(m, "put", put_args), CUDA_SUCCESS);
    expect("get (the 32-byte input's) reads env and its last word", launch(m, "get", out_args), CUDA_SUCCESS);
    cuMemcpyDtoH(got, out, sizeof(got));
    expect_true("  one variable: put's value and the host's last word", got[0] == 0x1234 && got[1] == 0xabc);
    expect_true("  mode, read from the .visible input, 2", got[2] == 2);
    expect("mode_a (the .weak input's) reads mode, calls which()", launch(m, "mode_a", out_args), CUDA_SUCCESS);
    cuMemcpyDtoH(got, out, 8);
    expect_true("  the .visible mode and which(): 2 and 2", got[0] == 2 && got[1] == 2);
    cuMemFree(out);
    cuModuleUnload(m);
}

/* A link of `a` and `b` (NULL: `a` alone) that loads, or one that is refused somewhere, as `ok` says. */
static void link_case(const char *what, const char *a, const char *b, int ok, const char *global, size_t bytes)
{
    char ta[256], tb[256];
    const char *const texts[] = {ta, tb};
    const char *where = NULL;
    CUmodule m = NULL;
    CUresult rc;

    snprintf(ta, sizeof(ta), HEADER "%s\n", a);
    snprintf(tb, sizeof(tb), HEADER "%s\n", b ? b : "");
    rc = link_load(texts, b ? 2 : 1, &m, &where);
    if (ok) {
        expect(what, rc, CUDA_SUCCESS);
    } else if (rc == CUDA_SUCCESS) {
        printf("%-*s linked, expected refused\n", EXPECT_COLUMN, what);
        wrong++;
    } else {
        const char *name = NULL;

        cuGetErrorName(rc, &name);
        printf("%-*s %s by %s\n", EXPECT_COLUMN, what, name ? name : "?", where);
    }
    if (m && global) {
        CUdeviceptr p = 0;
        size_t size = 0;

        expect_true("  cuModuleGetGlobal: its size",
                    cuModuleGetGlobal(&p, &size, m, global) == CUDA_SUCCESS && size == bytes);
    }
    if (m)
        cuModuleUnload(m);
}

static void refusals(void)
{
    link_case("initialised .common c[4], another c[2]: linked", ".common .global .u32 c[2];",
              ".common .global .u32 c[4] = {5, 6, 7, 8};", 1, "c", 16);
    link_case("two .weak w: linked", ".weak .global .u32 w = 3;", ".weak .global .u32 w = 4;", 1, "w", 4);
    link_case(".common c initialised in both inputs: refused", ".common .global .u32 c = 1;",
              ".common .global .u32 c = 2;", 0, NULL, 0);
    link_case("initialised .common c smaller than another: refused", ".common .global .u32 c = 1;",
              ".common .global .u32 c[2];", 0, NULL, 0);
    link_case(".common c in one input, .visible c in the other: refused", ".common .global .u32 c;",
              ".visible .global .u32 c;", 0, NULL, 0);
    link_case(".visible v in both inputs: refused", ".visible .global .u32 v;", ".visible .global .u32 v;", 0, NULL,
              0);
    link_case(".weak w of 4 bytes, .weak w of 8: refused", ".weak .global .u32 w;", ".weak .global .u32 w[2];", 0,
              NULL, 0);
    link_case(".common on a .const variable: refused", ".common .const .u32 k;", NULL, 0, NULL, 0);
    link_case(".common on a function: refused", ".common .func f()\n{\n  ret;\n}", NULL, 0, NULL, 0);
    link_case(".common c twice in one input: refused", ".common .global .u32 c;\n.common .global .u32 c;", NULL, 0,
              NULL, 0);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;

    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    if (cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        printf("failed: no context\n");
        return 1;
    }
    shared_variables();
    refusals();
    cuDevicePrimaryCtxRelease(dev);
    printf("%d answers differ from the fake's\n", wrong);
    return wrong ? 1 : 0;
}
