/* SPDX-License-Identifier: MIT */
/*
 * cvt from every float type (f16, f32, f64) to every integer type (s8 to
 * s64, u8 to u64) in the four integer rounding modes, at the edges of the
 * integers' ranges: each result must be what the PTX ISA specifies (rounded,
 * saturated to the destination's range) and, for NaN, what sm_90 answers (0
 * from an f16 or f32 to 32 bits or fewer; the destination's sign bit alone
 * from an f64 or to 64 bits). Driver-API code linked
 * with gpushim-cuda: run on the fake's interpreter (fake suite) and on a GPU
 * (gpu suite), where it exits 77 without a driver or a device.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_abi.h"

#define GPU__ENTRY(need, name, symbol, params, args) cuabi_result symbol params;
#include "entry_points.h"
#undef GPU__ENTRY
#define GPU__FAKE_ENTRY(symbol, params) cuabi_result symbol params;
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY
cuabi_result cuInit(unsigned int flags);

#define HEAD ".version 7.8\n.target sm_75\n.address_size 64\n\n"

/* A driver call that must succeed; the program fails at the first that does not. */
#define CU_OK(call) \
    do { \
        cuabi_result rc_ = (call); \
        if (rc_ != CUABI_SUCCESS) { \
            fprintf(stderr, "test-ptx-cvt: %s: CUresult %d\n", #call, (int)rc_); \
            exit(1); \
        } \
    } while (0)

enum { RNI, RZI, RMI, RPI, NRND };
static const char *const rnd_names[NRND] = {"rni", "rzi", "rmi", "rpi"};
static const char *const src_names[3] = {"f16", "f32", "f64"};
static const struct {
    const char *name;
    unsigned bits;
    bool sign;
} dsts[] = {{"s8", 8, true},   {"s16", 16, true},  {"s32", 32, true},  {"s64", 64, true},
            {"u8", 8, false},  {"u16", 16, false}, {"u32", 32, false}, {"u64", 64, false}};
#define NDST (sizeof(dsts) / sizeof(dsts[0]))

/* Values at the edges of every integer type, and halves around them. */
static const double edges[] = {
    NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.4, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, 128.0, -128.5, -129.0, 255.5,
    256.0, -1.0, 32767.5, 32768.0, -32768.5, 65535.5, 65536.0, 2147483647.5, 2147483648.0, -2147483648.5,
    -2147483649.0, 4294967295.5, 4294967296.0, 9223372036854774784.0, 9223372036854775808.0, -9223372036854775808.0,
    -9223372036854777856.0, 1e19, -1e19, 18446744073709549568.0, 18446744073709551616.0, 3e38, -3e38, 1e300,
};
/* The same for halves, as bits: NaN, infinities, zeros, halves, 127.5, 128, -128.5, 255.5, 256, the largest, a subnormal. */
static const uint16_t half_edges[] = {0x7e00, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x3800, 0x3e00, 0x4100, 0xb800,
                                      0xbe00, 0xc100, 0x57f8, 0x5800, 0xd804, 0x5bfc, 0x5c00, 0x7bff, 0xfbff,
                                      0x0001, 0x8001, 0x7800, 0xf800};
#define NEDGE (sizeof(edges) / sizeof(edges[0]))

/* 2^e, without libm. */
static double pow2(int e)
{
    double v = 1.0;

    for (; e > 0; e--)
        v *= 2.0;
    for (; e < 0; e++)
        v /= 2.0;
    return v;
}

static double half_value(uint16_t h)
{
    int e = (h >> 10) & 31, man = h & 1023;
    double v = e == 0 ? man * pow2(-24) : e == 31 ? (man ? NAN : INFINITY) : (1024 + man) * pow2(e - 25);

    return h >> 15 ? -v : v;
}

/* v rounded to an integer as `rnd` says (v finite); at 2^52 and beyond every double is one. */
static double integral(double v, unsigned rnd)
{
    double t, frac;

    if (v >= 4503599627370496.0 || v <= -4503599627370496.0)
        return v;
    t = (double)(int64_t)v;
    frac = v - t;
    switch (rnd) {
    case RZI: return t;
    case RMI: return frac < 0 ? t - 1 : t;
    case RPI: return frac > 0 ? t + 1 : t;
    default:
        if (frac > 0.5 || (frac == 0.5 && (int64_t)t % 2))
            return t + 1;
        if (frac < -0.5 || (frac == -0.5 && (int64_t)t % 2))
            return t - 1;
        return t;
    }
}

/* Rounded as asked and saturated to the destination's range, NaN as sm_90 answers it; its bits. */
static uint64_t cvt_expected(double v, unsigned rnd, unsigned bits, bool sign, bool from_f64)
{
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    double r, lim;

    if (v != v)
        return from_f64 || bits == 64 ? (mask >> 1) + 1 : 0;
    r = v - v != 0 ? v : integral(v, rnd); /* infinities as they are */
    if (sign) {
        lim = pow2((int)bits - 1);
        if (r >= lim)
            return mask >> 1;
        if (r < -lim)
            return (mask >> 1) + 1;
        return (uint64_t)(int64_t)r & mask;
    }
    lim = pow2((int)bits);
    if (r <= 0)
        return 0;
    return r >= lim ? mask : (uint64_t)r;
}

/* The module: kernel cvt_<dst>_<src>_<rnd> converts element i of `in` (the source's bits) into element i of `out`. */
static char *module_text(void)
{
    size_t size = 96 * 1024, n = 0;
    char *ptx = malloc(size);

    if (!ptx)
        return NULL;
    n += (size_t)snprintf(ptx + n, size - n, HEAD);
    for (unsigned s = 0; s < 3; s++)
        for (size_t d = 0; d < NDST; d++)
            for (unsigned r = 0; r < NRND && n < size; r++) {
                unsigned bits = dsts[d].bits;
                const char *reg = bits <= 16 ? "%rs2" : bits == 32 ? "%r2" : "%rd9";
                const char *src = s == 0 ? "%rs1" : s == 1 ? "%f1" : "%fd1";

                n += (size_t)snprintf(
                    ptx + n, size - n,
                    ".visible .entry cvt_%s_%s_%s(.param .u64 in, .param .u64 out)\n{\n\t.reg .b16 %%rs<3>;\n"
                    "\t.reg .b32 %%r<3>;\n\t.reg .f32 %%f<2>;\n\t.reg .f64 %%fd<2>;\n\t.reg .b64 %%rd<10>;\n"
                    "\tld.param.u64 %%rd1, [in];\n\tld.param.u64 %%rd2, [out];\n\tmov.u32 %%r1, %%tid.x;\n"
                    "\tmul.wide.u32 %%rd3, %%r1, 8;\n\tadd.s64 %%rd4, %%rd1, %%rd3;\n\tadd.s64 %%rd5, %%rd2, %%rd3;\n"
                    "\tld.global.%s %s, [%%rd4];\n\tcvt.%s.%s.%s %s, %s;\n\tst.global.b%u [%%rd5], %s;\n\tret;\n}\n",
                    dsts[d].name, src_names[s], rnd_names[r], s == 0 ? "b16" : s == 1 ? "f32" : "f64", src,
                    rnd_names[r], dsts[d].name, src_names[s], reg, src, bits, reg);
            }
    if (n >= size) {
        free(ptx);
        return NULL;
    }
    return ptx;
}

int main(void)
{
    cuabi_device dev = 0;
    cuabi_context ctx = NULL;
    cuabi_module m = NULL;
    cuabi_deviceptr din = 0, dout = 0;
    uint64_t in[64], got[64];
    void *params[] = {&din, &dout};
    unsigned failures = 0, checked = 0;
    char *ptx;

    if (cuInit(0) != CUABI_SUCCESS || cuDeviceGet(&dev, 0) != CUABI_SUCCESS) {
        printf("test-ptx-cvt: no driver or no device: skipped\n");
        return 77;
    }
    if (!(ptx = module_text()))
        return 1;
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_OK(cuCtxSetCurrent(ctx));
    CU_OK(cuModuleLoadData(&m, ptx));
    free(ptx);
    CU_OK(cuMemAlloc_v2(&din, sizeof(in)));
    CU_OK(cuMemAlloc_v2(&dout, sizeof(got)));
    for (unsigned s = 0; s < 3; s++) {
        size_t count = s == 0 ? sizeof(half_edges) / sizeof(half_edges[0]) : NEDGE;
        double value[64];

        memset(in, 0, sizeof(in));
        for (size_t i = 0; i < count; i++) {
            if (s == 0) {
                in[i] = half_edges[i];
                value[i] = half_value(half_edges[i]);
            } else if (s == 1) {
                float f = (float)edges[i];
                uint32_t b;

                memcpy(&b, &f, 4);
                in[i] = b;
                value[i] = f;
            } else {
                memcpy(&in[i], &edges[i], 8);
                value[i] = edges[i];
            }
        }
        CU_OK(cuMemcpyHtoD_v2(din, in, sizeof(in)));
        for (size_t d = 0; d < NDST; d++)
            for (unsigned r = 0; r < NRND; r++) {
                char name[64];
                cuabi_function f = NULL;
                uint64_t mask = dsts[d].bits == 64 ? ~0ull : (1ull << dsts[d].bits) - 1;

                snprintf(name, sizeof(name), "cvt_%s_%s_%s", dsts[d].name, src_names[s], rnd_names[r]);
                CU_OK(cuModuleGetFunction(&f, m, name));
                CU_OK(cuMemsetD8_v2(dout, 0, sizeof(got)));
                CU_OK(cuLaunchKernel(f, 1, 1, 1, (unsigned)count, 1, 1, 0, NULL, params, NULL));
                CU_OK(cuCtxSynchronize());
                CU_OK(cuMemcpyDtoH_v2(got, dout, sizeof(got)));
                for (size_t i = 0; i < count; i++) {
                    uint64_t want = cvt_expected(value[i], r, dsts[d].bits, dsts[d].sign, s == 2);

                    checked++;
                    if ((got[i] & mask) != want) {
                        fprintf(stderr, "test-ptx-cvt: %s of %.17g: 0x%llx, expected 0x%llx\n", name, value[i],
                                (unsigned long long)(got[i] & mask), (unsigned long long)want);
                        failures++;
                    }
                }
            }
    }
    CU_OK(cuMemFree_v2(din));
    CU_OK(cuMemFree_v2(dout));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(dev));
    printf("test-ptx-cvt: %u conversions, %u wrong\n", checked, failures);
    return failures ? 1 : 0;
}
