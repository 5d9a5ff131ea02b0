/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's PTX interpreter against the same loops in scalar C, in
 * one process, on one host thread (GPUSHIM_FAKE_THREADS=1), for six kernels
 * written here in PTX:
 *
 *   vadd       c[i] = a[i] + b[i], a thread an element
 *   saxpy      y[i] = a * x[i] + y[i] (fma), a thread an element
 *   matmul     C = A B, 256 x 256 f32, 16 x 16 tiles in shared memory (fma)
 *   reduce     a block's sum by shuffles, the warps' partial sums through
 *              shared memory, one atomic add a block
 *   histogram  256 bins of bytes, an atomic add an element
 *   mandelbrot iterations of z = z^2 + c until |z| > 2, a thread a pixel
 *
 * Each kernel's results are compared with the C loop's, bit for bit; the
 * program fails when they differ. Prints, a kernel a row, the median over
 * RUNS runs of: PTX thread-instructions (gpu_fake_ptx_executed()) per
 * second of the process's CPU time, and the interpreter's CPU time as a
 * multiple of the C loop's. Then an empty <<<1,1>>> launch (launch and
 * synchronize, wall time, GPUSHIM_FAKE_THREADS unset) and cuMemsetD8/D32
 * against memset() in GB/s.
 *
 * `bench-ptx-kernels NAME [RUNS]` runs one kernel only (for a profiler:
 * `valgrind --tool=callgrind --toggle-collect=ptx_run_blocks`), `launch`
 * the launch and memset figures only, "" every one. Asserts nothing about
 * the timing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpushim/fake.h>
#include <gpushim/gpushim.h>

#include "util.h"

enum { RUNS = 5, MAX_ARGS = 6 };

/* The sizes: elements of vadd, saxpy and reduce; matmul's n; histogram's bytes; mandelbrot's side. */
enum { N_VEC = 1 << 21, N_MAT = 256, TILE = 16, N_RED = 1 << 21, N_HIST = 1 << 21, N_MANDEL = 256, MAXIT = 256 };

static const char head[] = ".version 8.0\n.target sm_75\n.address_size 64\n";

/* The thread's global index in %r5 (from %r2-%r4), its parameters read first. */
#define GLOBAL_INDEX                                                                                                   \
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n  mad.lo.s32 %r5, %r3, %r4, %r2;\n"

static const char vadd_ptx[] =
    ".visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<10>;\n"
    "  ld.param.u64 %rd1, [a];\n  ld.param.u64 %rd2, [b];\n  ld.param.u64 %rd3, [c];\n  ld.param.u32 %r1, [n];\n"
    GLOBAL_INDEX
    "  setp.ge.u32 %p1, %r5, %r1;\n  @%p1 bra $DONE;\n"
    "  cvta.to.global.u64 %rd4, %rd1;\n  cvta.to.global.u64 %rd5, %rd2;\n  cvta.to.global.u64 %rd6, %rd3;\n"
    "  mul.wide.u32 %rd7, %r5, 4;\n  add.s64 %rd4, %rd4, %rd7;\n  add.s64 %rd5, %rd5, %rd7;\n  add.s64 %rd6, %rd6, %rd7;\n"
    "  ld.global.f32 %f1, [%rd4];\n  ld.global.f32 %f2, [%rd5];\n  add.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd6], %f3;\n"
    "$DONE:\n  ret;\n}\n";

static const char saxpy_ptx[] =
    ".visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<5>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.f32 %f1, [a];\n  ld.param.u64 %rd1, [x];\n  ld.param.u64 %rd2, [y];\n  ld.param.u32 %r1, [n];\n"
    GLOBAL_INDEX
    "  setp.ge.u32 %p1, %r5, %r1;\n  @%p1 bra $DONE;\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n  cvta.to.global.u64 %rd4, %rd2;\n"
    "  mul.wide.u32 %rd5, %r5, 4;\n  add.s64 %rd3, %rd3, %rd5;\n  add.s64 %rd4, %rd4, %rd5;\n"
    "  ld.global.f32 %f2, [%rd3];\n  ld.global.f32 %f3, [%rd4];\n  fma.rn.f32 %f4, %f1, %f2, %f3;\n"
    "  st.global.f32 [%rd4], %f4;\n"
    "$DONE:\n  ret;\n}\n";

/* matmul's prologue and tile loop up to the products, which main() unrolls; %r6 row, %r7 column. */
static const char matmul_head[] =
    ".visible .entry matmul(.param .u64 A, .param .u64 B, .param .u64 C, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<20>;\n  .reg .f32 %f<6>;\n  .reg .b64 %rd<10>;\n"
    "  .shared .align 4 .f32 As[256];\n  .shared .align 4 .f32 Bs[256];\n"
    "  ld.param.u64 %rd1, [A];\n  ld.param.u64 %rd2, [B];\n  ld.param.u64 %rd3, [C];\n  ld.param.u32 %r1, [n];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n  cvta.to.global.u64 %rd3, %rd3;\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %tid.y;\n  mov.u32 %r4, %ctaid.x;\n  mov.u32 %r5, %ctaid.y;\n"
    "  shl.b32 %r6, %r5, 4;\n  add.s32 %r6, %r6, %r3;\n  shl.b32 %r7, %r4, 4;\n  add.s32 %r7, %r7, %r2;\n"
    "  shl.b32 %r8, %r3, 4;\n  add.s32 %r8, %r8, %r2;\n  shl.b32 %r8, %r8, 2;\n"
    "  mov.u32 %r9, As;\n  add.s32 %r10, %r9, %r8;\n  mov.u32 %r11, Bs;\n  add.s32 %r12, %r11, %r8;\n"
    "  shl.b32 %r13, %r3, 6;\n  add.s32 %r13, %r9, %r13;\n  shl.b32 %r14, %r2, 2;\n  add.s32 %r14, %r11, %r14;\n"
    "  mov.f32 %f1, 0f00000000;\n  mov.u32 %r15, 0;\n"
    "$TILE:\n"
    "  mad.lo.s32 %r16, %r6, %r1, %r15;\n  add.s32 %r16, %r16, %r2;\n  mul.wide.u32 %rd4, %r16, 4;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n  ld.global.f32 %f2, [%rd5];\n  st.shared.f32 [%r10], %f2;\n"
    "  add.s32 %r17, %r15, %r3;\n  mad.lo.s32 %r17, %r17, %r1, %r7;\n  mul.wide.u32 %rd6, %r17, 4;\n"
    "  add.s64 %rd7, %rd2, %rd6;\n  ld.global.f32 %f3, [%rd7];\n  st.shared.f32 [%r12], %f3;\n"
    "  bar.sync 0;\n";
static const char matmul_tail[] =
    "  bar.sync 0;\n  add.s32 %r15, %r15, 16;\n  setp.lt.u32 %p1, %r15, %r1;\n  @%p1 bra $TILE;\n"
    "  mad.lo.s32 %r18, %r6, %r1, %r7;\n  mul.wide.u32 %rd8, %r18, 4;\n  add.s64 %rd9, %rd3, %rd8;\n"
    "  st.global.f32 [%rd9], %f1;\n  ret;\n}\n";

/* A block of 256 threads: each warp's sum by shuffles, then warp 0's of the 8 partial sums, then one atomic. */
#define SHFL_ADD(d)                                                                                                    \
    "  shfl.sync.down.b32 %r7, %r6, " #d ", 31, 0xffffffff;\n  add.s32 %r6, %r6, %r7;\n"
static const char reduce_ptx[] =
    ".visible .entry reduce(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<6>;\n  .shared .align 4 .b32 partial[8];\n"
    "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n  ld.param.u32 %r1, [n];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
    GLOBAL_INDEX
    "  mov.u32 %r6, 0;\n  setp.ge.u32 %p1, %r5, %r1;\n  @%p1 bra $SUM;\n"
    "  mul.wide.u32 %rd3, %r5, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r6, [%rd4];\n"
    "$SUM:\n"
    SHFL_ADD(16) SHFL_ADD(8) SHFL_ADD(4) SHFL_ADD(2) SHFL_ADD(1)
    "  and.b32 %r8, %r2, 31;\n  shr.u32 %r9, %r2, 5;\n  mov.u32 %r10, partial;\n"
    "  setp.ne.u32 %p2, %r8, 0;\n  @%p2 bra $WAIT;\n"
    "  shl.b32 %r11, %r9, 2;\n  add.s32 %r11, %r10, %r11;\n  st.shared.u32 [%r11], %r6;\n"
    "$WAIT:\n  bar.sync 0;\n  setp.ne.u32 %p3, %r9, 0;\n  @%p3 bra $DONE;\n"
    "  mov.u32 %r6, 0;\n  setp.lt.u32 %p2, %r8, 8;\n  shl.b32 %r11, %r8, 2;\n  add.s32 %r11, %r10, %r11;\n"
    "  @%p2 ld.shared.u32 %r6, [%r11];\n"
    SHFL_ADD(4) SHFL_ADD(2) SHFL_ADD(1)
    "  setp.ne.u32 %p2, %r8, 0;\n  @%p2 bra $DONE;\n  atom.global.add.u32 %r12, [%rd2], %r6;\n"
    "$DONE:\n  ret;\n}\n";

static const char histogram_ptx[] =
    ".visible .entry histogram(.param .u64 in, .param .u64 bins, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [bins];\n  ld.param.u32 %r1, [n];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
    GLOBAL_INDEX
    "  mov.u32 %r6, %nctaid.x;\n  mul.lo.s32 %r7, %r6, %r4;\n"
    "  setp.ge.u32 %p1, %r5, %r1;\n  @%p1 bra $DONE;\n"
    "$LOOP:\n"
    "  cvt.u64.u32 %rd3, %r5;\n  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u8 %r8, [%rd4];\n"
    "  mul.wide.u32 %rd5, %r8, 4;\n  add.s64 %rd6, %rd2, %rd5;\n  atom.global.add.u32 %r9, [%rd6], 1;\n"
    "  add.s32 %r5, %r5, %r7;\n  setp.lt.u32 %p1, %r5, %r1;\n  @%p1 bra $LOOP;\n"
    "$DONE:\n  ret;\n}\n";

/* A pixel a thread: c = (x0 + px * step, y0 + py * step); the iterations until |z| > 2, at most maxit. */
static const char mandelbrot_ptx[] =
    ".visible .entry mandelbrot(.param .u64 out, .param .u32 side, .param .f32 x0, .param .f32 y0, "
    ".param .f32 step, .param .u32 maxit)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<12>;\n  .reg .f32 %f<16>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r1, [side];\n  ld.param.f32 %f1, [x0];\n"
    "  ld.param.f32 %f2, [y0];\n  ld.param.f32 %f3, [step];\n  ld.param.u32 %r6, [maxit];\n"
    GLOBAL_INDEX
    "  mul.lo.s32 %r7, %r1, %r1;\n  setp.ge.u32 %p1, %r5, %r7;\n  @%p1 bra $DONE;\n"
    "  rem.u32 %r8, %r5, %r1;\n  div.u32 %r9, %r5, %r1;\n"
    "  cvt.rn.f32.u32 %f4, %r8;\n  mul.rn.f32 %f4, %f4, %f3;\n  add.rn.f32 %f4, %f4, %f1;\n"
    "  cvt.rn.f32.u32 %f5, %r9;\n  mul.rn.f32 %f5, %f5, %f3;\n  add.rn.f32 %f5, %f5, %f2;\n"
    "  mov.f32 %f6, 0f00000000;\n  mov.f32 %f7, 0f00000000;\n  mov.u32 %r10, 0;\n"
    "$LOOP:\n"
    "  mul.rn.f32 %f8, %f6, %f6;\n  mul.rn.f32 %f9, %f7, %f7;\n  add.rn.f32 %f10, %f8, %f9;\n"
    "  setp.gt.f32 %p2, %f10, 0f40800000;\n  @%p2 bra $OUT;\n  setp.ge.u32 %p2, %r10, %r6;\n  @%p2 bra $OUT;\n"
    "  mul.rn.f32 %f11, %f6, %f7;\n  add.rn.f32 %f11, %f11, %f11;\n  add.rn.f32 %f7, %f11, %f5;\n"
    "  sub.rn.f32 %f6, %f8, %f9;\n  add.rn.f32 %f6, %f6, %f4;\n  add.s32 %r10, %r10, 1;\n  bra $LOOP;\n"
    "$OUT:\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n  mul.wide.u32 %rd3, %r5, 4;\n  add.s64 %rd2, %rd2, %rd3;\n"
    "  st.global.u32 [%rd2], %r10;\n"
    "$DONE:\n  ret;\n}\n";

static const char empty_ptx[] = ".visible .entry empty()\n{\n  ret;\n}\n";

static const float MANDEL_X0 = -2.0f, MANDEL_Y0 = -1.25f, MANDEL_STEP = 2.5f / N_MANDEL;

/* ---- The C loops ---- */

static void vadd_c(const float *a, const float *b, float *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

/* fmaf inline where the CPU has it (as the GPU has), else the C library's. */
#if defined(__x86_64__) && defined(__GNUC__)
#define FMA_TARGET __attribute__((target("fma")))
#else
#define FMA_TARGET
#endif

FMA_TARGET static void saxpy_c(float a, const float *x, float *y, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        y[i] = __builtin_fmaf(a, x[i], y[i]);
}

/* In the kernel's order: the products summed k by k from 0. */
FMA_TARGET static void matmul_c(const float *a, const float *b, float *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            float s = 0;

            for (unsigned k = 0; k < n; k++)
                s = __builtin_fmaf(a[i * n + k], b[k * n + j], s);
            c[i * n + j] = s;
        }
}

static void reduce_c(const uint32_t *in, uint32_t *out, unsigned n)
{
    uint32_t s = 0;

    for (unsigned i = 0; i < n; i++)
        s += in[i];
    *out = s;
}

static void histogram_c(const uint8_t *in, uint32_t *bins, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        bins[in[i]]++;
}

static void mandelbrot_c(uint32_t *out, unsigned side, float x0, float y0, float step, unsigned maxit)
{
    for (unsigned i = 0; i < side * side; i++) {
        float cx = (float)(i % side) * step + x0, cy = (float)(i / side) * step + y0, zr = 0, zi = 0;
        unsigned it = 0;

        for (;;) {
            float zr2 = zr * zr, zi2 = zi * zi, zri;

            if (zr2 + zi2 > 4.0f || it >= maxit)
                break;
            zri = zr * zi;
            zri = zri + zri;
            zi = zri + cy;
            zr = zr2 - zi2;
            zr = zr + cx;
            it++;
        }
        out[i] = it;
    }
}

/* ---- The harness ---- */

static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    return (double)gpu_test_now_ns() * 1e-9;
}

static void check(gpu_status st, const char *what)
{
    if (st != GPU_OK)
        bench_die(what, st);
}

static double median(double *v, int n)
{
    return gpu_test_median(v, (size_t)n);
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A buffer of `bytes`, filled from host memory `src` (or zeroed when NULL). */
static gpu_buffer *buffer(size_t bytes, const void *src)
{
    gpu_buffer *b;

    check(gpu_buffer_create(NULL, bytes, &b), "buffer");
    if (src)
        check(gpu_buffer_copy_from_host(b, src, bytes), "copy to device");
    else
        check(gpu_buffer_memset(b, 0, bytes, 1, 0), "memset");
    return b;
}

/* One kernel: its launch, its inputs' reset before each run, the C loop and the results to compare. */
struct kernel {
    const char *name;
    gpu_launch_config cfg;
    void *args[MAX_ARGS];
    gpu_buffer *reset;       /* zeroed before each run (an accumulator), or NULL */
    const void *reset_from;  /* or refilled from this host copy */
    size_t reset_bytes;
    gpu_buffer *result;
    void *expect, *got;      /* the C loop's results; the kernel's, copied back */
    size_t result_bytes;
    void (*c_loop)(void *ctx);
    void *c_ctx;
};

struct sizes {
    float *a, *b, *c, *x, *y, *y0, *ma, *mb, *mc;
    uint32_t *rin, rsum, *bins;
    uint8_t *hin;
    uint32_t *mandel;
};

static void run_vadd(void *p) { struct sizes *s = p; vadd_c(s->a, s->b, s->c, N_VEC); }
static void run_saxpy(void *p)
{
    struct sizes *s = p;

    memcpy(s->y, s->y0, (size_t)N_VEC * 4);
    saxpy_c(2.5f, s->x, s->y, N_VEC);
}
static void run_matmul(void *p) { struct sizes *s = p; matmul_c(s->ma, s->mb, s->mc, N_MAT); }
static void run_reduce(void *p) { struct sizes *s = p; reduce_c(s->rin, &s->rsum, N_RED); }
static void run_histogram(void *p)
{
    struct sizes *s = p;

    memset(s->bins, 0, 256 * 4);
    histogram_c(s->hin, s->bins, N_HIST);
}
static void run_mandelbrot(void *p)
{
    struct sizes *s = p;

    mandelbrot_c(s->mandel, N_MANDEL, MANDEL_X0, MANDEL_Y0, MANDEL_STEP, MAXIT);
}

/* Runs kernel k RUNS times and its C loop as often; prints its row; false when the results differ. */
static bool measure(gpu_stream *s, gpu_module *m, struct kernel *k, int runs, double *rate_out)
{
    double rate[RUNS], ratio[RUNS];
    uint64_t executed = 0;

    for (int i = 0; i < runs; i++) {
        double t, c;

        if (k->reset)
            check(k->reset_from ? gpu_buffer_copy_from_host(k->reset, k->reset_from, k->reset_bytes)
                                : gpu_buffer_memset(k->reset, 0, k->reset_bytes, 1, 0), "reset");
        t = cpu_now();
        check(gpu_stream_launch_kernel(s, m, k->name, &k->cfg, k->args), k->name);
        check(gpu_stream_synchronize(s), k->name);
        t = cpu_now() - t;
        executed = gpu_fake_ptx_executed();
        c = cpu_now();
        k->c_loop(k->c_ctx);
        c = cpu_now() - c;
        rate[i] = (double)executed / t;
        ratio[i] = t / (c > 1e-9 ? c : 1e-9);
    }
    check(gpu_buffer_copy_to_host(k->result, k->got, k->result_bytes), "copy to host");
    if (memcmp(k->got, k->expect, k->result_bytes) != 0) {
        fprintf(stderr, "bench-ptx-kernels: %s: the kernel's results differ from the C loop's\n", k->name);
        return false;
    }
    *rate_out = median(rate, runs);
    printf("%-11s %14llu %16.3e %10.1fx\n", k->name, (unsigned long long)executed, *rate_out, median(ratio, runs));
    return true;
}

/* An empty <<<1,1>>> launch and its synchronization: microseconds, the median of 5 rounds of 2000. */
static double empty_launch_us(gpu_stream *s, gpu_module *m)
{
    gpu_launch_config cfg = gpu_launch_config_1d(1, 1);
    double r[5];

    unsetenv("GPUSHIM_FAKE_THREADS"); /* the pool's default size, one thread a core */
    for (int i = 0; i < 5; i++) {
        double t = wall_now();

        for (int j = 0; j < 2000; j++) {
            check(gpu_stream_launch_kernel(s, m, "empty", &cfg, NULL), "empty");
            check(gpu_stream_synchronize(s), "empty");
        }
        r[i] = (wall_now() - t) / 2000 * 1e6;
    }
    setenv("GPUSHIM_FAKE_THREADS", "1", 1);
    return median(r, 5);
}

/* cuMemsetD8 (element 1) or D32 (element 4) over 64 MiB, and memset() over as many host bytes: GB/s, median of 5. */
static void memset_rates(unsigned element, double *fake_gbs, double *host_gbs)
{
    enum { BYTES = 64 << 20 };
    gpu_buffer *b;
    unsigned char *h = malloc(BYTES);
    double f[5], c[5];

    if (!h) {
        fprintf(stderr, "bench-ptx-kernels: out of memory\n");
        exit(1);
    }
    check(gpu_buffer_create(NULL, BYTES, &b), "buffer");
    /* Each page touched once first, so that no arm pays the first touch's page faults. */
    check(gpu_buffer_memset(b, 0, BYTES, 1, 0), "memset");
    memset(h, 0, BYTES);
    for (int i = 0; i < 5; i++) {
        double t = wall_now();

        check(gpu_buffer_memset(b, 0, BYTES / element, element, element == 1 ? 0x5au : 0x3f800000u + (unsigned)i),
              "memset");
        check(gpu_stream_synchronize(NULL), "memset");
        f[i] = BYTES / (wall_now() - t) * 1e-9;
        t = wall_now();
        memset(h, 0x5a + i, BYTES);
        c[i] = BYTES / (wall_now() - t) * 1e-9;
        if (h[i * 1000] != (unsigned char)(0x5a + i))
            exit(1);
    }
    {
        uint32_t first, last;

        check(gpu_buffer_copy_to_host(b, h, BYTES), "copy to host");
        memcpy(&first, h, 4);
        memcpy(&last, h + BYTES - 4, 4);
        if (first != last || (element == 1 && first != 0x5a5a5a5au) || (element == 4 && first != 0x3f800004u)) {
            fprintf(stderr, "bench-ptx-kernels: memset wrote the wrong values\n");
            exit(1);
        }
    }
    gpu_buffer_destroy(b);
    free(h);
    *fake_gbs = median(f, 5);
    *host_gbs = median(c, 5);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 && argv[1][0] ? argv[1] : NULL;
    int runs = argc > 2 ? atoi(argv[2]) : RUNS;
    static struct sizes z;
    struct kernel ks[6];
    gpu_buffer *bufs[16];
    int nb = 0, failed = 0;
    gpu_stream *s = NULL;
    gpu_module *m = NULL;
    size_t cap = 64 * 1024, len;
    char *text;
    unsigned seed = 12345, n_vec = N_VEC, n_mat = N_MAT, n_red = N_RED, n_hist = N_HIST, side = N_MANDEL, maxit = MAXIT;
    float alpha = 2.5f, x0 = MANDEL_X0, y0 = MANDEL_Y0, step = MANDEL_STEP;
    uint64_t p[16];
    double rates[6];
    int nrates = 0;

    if (!getenv("GPUSHIM_LIBCUDA")) {
        printf("bench-ptx-kernels: skipped: GPUSHIM_LIBCUDA must name gpushim's fake driver\n");
        return 77;
    }
    if (runs < 1 || runs > RUNS)
        runs = RUNS;
    setenv("GPUSHIM_FAKE_THREADS", "1", 1);
    unsetenv("GPUSHIM_FAKE_CHECK");

    /* The module: every kernel, matmul's 16 products a tile unrolled. */
    text = malloc(cap);
    if (!text)
        return 1;
    len = (size_t)snprintf(text, cap, "%s%s%s%s%s%s%s", head, vadd_ptx, saxpy_ptx, reduce_ptx, histogram_ptx,
                           mandelbrot_ptx, empty_ptx);
    len += (size_t)snprintf(text + len, cap - len, "%s", matmul_head);
    for (int k = 0; k < TILE; k++)
        len += (size_t)snprintf(text + len, cap - len,
                                "  ld.shared.f32 %%f4, [%%r13+%d];\n  ld.shared.f32 %%f5, [%%r14+%d];\n"
                                "  fma.rn.f32 %%f1, %%f4, %%f5, %%f1;\n", k * 4, k * TILE * 4);
    snprintf(text + len, cap - len, "%s", matmul_tail);
    check(gpu_stream_create(NULL, &s), "stream");
    check(gpu_module_load_data(NULL, text, strlen(text) + 1, &m), "module");
    free(text);

    /* Inputs: small integers as floats (exact sums), bytes, words. */
    z.a = malloc((size_t)N_VEC * 4);
    z.b = malloc((size_t)N_VEC * 4);
    z.c = malloc((size_t)N_VEC * 4);
    z.x = malloc((size_t)N_VEC * 4);
    z.y = malloc((size_t)N_VEC * 4);
    z.y0 = malloc((size_t)N_VEC * 4);
    z.ma = malloc((size_t)N_MAT * N_MAT * 4);
    z.mb = malloc((size_t)N_MAT * N_MAT * 4);
    z.mc = malloc((size_t)N_MAT * N_MAT * 4);
    z.rin = malloc((size_t)N_RED * 4);
    z.bins = malloc(256 * 4);
    z.hin = malloc(N_HIST);
    z.mandel = malloc((size_t)N_MANDEL * N_MANDEL * 4);
    if (!z.a || !z.b || !z.c || !z.x || !z.y || !z.y0 || !z.ma || !z.mb || !z.mc || !z.rin || !z.bins || !z.hin ||
        !z.mandel)
        return 1;
    for (unsigned i = 0; i < N_VEC; i++) {
        z.a[i] = (float)(lcg(&seed) % 1000) * 0.25f;
        z.b[i] = (float)(lcg(&seed) % 1000) * 0.5f;
        z.x[i] = (float)(lcg(&seed) % 1000) * 0.001f;
        z.y0[i] = (float)(lcg(&seed) % 1000) * 0.003f;
    }
    for (unsigned i = 0; i < N_MAT * N_MAT; i++) {
        z.ma[i] = (float)(lcg(&seed) % 2000) * 0.001f - 1.0f;
        z.mb[i] = (float)(lcg(&seed) % 2000) * 0.001f - 1.0f;
    }
    for (unsigned i = 0; i < N_RED; i++)
        z.rin[i] = lcg(&seed);
    for (unsigned i = 0; i < N_HIST; i++)
        z.hin[i] = (uint8_t)(lcg(&seed) % 200 + (i & 31)); /* uneven: some bins busier */

    bufs[nb] = buffer((size_t)N_VEC * 4, z.a), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;        /* 0 a */
    bufs[nb] = buffer((size_t)N_VEC * 4, z.b), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;        /* 1 b */
    bufs[nb] = buffer((size_t)N_VEC * 4, NULL), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;       /* 2 c */
    bufs[nb] = buffer((size_t)N_VEC * 4, z.x), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;        /* 3 x */
    bufs[nb] = buffer((size_t)N_VEC * 4, z.y0), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;       /* 4 y */
    bufs[nb] = buffer((size_t)N_MAT * N_MAT * 4, z.ma), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++; /* 5 A */
    bufs[nb] = buffer((size_t)N_MAT * N_MAT * 4, z.mb), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++; /* 6 B */
    bufs[nb] = buffer((size_t)N_MAT * N_MAT * 4, NULL), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++; /* 7 C */
    bufs[nb] = buffer((size_t)N_RED * 4, z.rin), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;      /* 8 in */
    bufs[nb] = buffer(4, NULL), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;                       /* 9 sum */
    bufs[nb] = buffer(N_HIST, z.hin), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;                 /* 10 bytes */
    bufs[nb] = buffer(256 * 4, NULL), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++;                 /* 11 bins */
    bufs[nb] = buffer((size_t)N_MANDEL * N_MANDEL * 4, NULL), p[nb] = gpu_buffer_get_device_ptr(bufs[nb]), nb++; /* 12 */

    /* The C loops' results once, to compare with; the kernels' land in the `got` copies. */
    run_vadd(&z);
    run_saxpy(&z);
    run_matmul(&z);
    run_reduce(&z);
    run_histogram(&z);
    run_mandelbrot(&z);

    memset(ks, 0, sizeof(ks));
    ks[0] = (struct kernel){"vadd", gpu_launch_config_1d(N_VEC / 256, 256), {&p[0], &p[1], &p[2], &n_vec},
                            NULL, NULL, 0, bufs[2], z.c, malloc((size_t)N_VEC * 4), (size_t)N_VEC * 4, run_vadd, &z};
    ks[1] = (struct kernel){"saxpy", gpu_launch_config_1d(N_VEC / 256, 256), {&alpha, &p[3], &p[4], &n_vec},
                            bufs[4], z.y0, (size_t)N_VEC * 4, bufs[4], z.y, malloc((size_t)N_VEC * 4),
                            (size_t)N_VEC * 4, run_saxpy, &z};
    {
        gpu_launch_config cfg = gpu_launch_config_1d(N_MAT / TILE, TILE);

        cfg.grid[1] = N_MAT / TILE;
        cfg.block[1] = TILE;
        ks[2] = (struct kernel){"matmul", cfg, {&p[5], &p[6], &p[7], &n_mat}, NULL, NULL, 0, bufs[7], z.mc,
                                malloc((size_t)N_MAT * N_MAT * 4), (size_t)N_MAT * N_MAT * 4, run_matmul, &z};
    }
    ks[3] = (struct kernel){"reduce", gpu_launch_config_1d(N_RED / 256, 256), {&p[8], &p[9], &n_red}, bufs[9], NULL,
                            4, bufs[9], &z.rsum, malloc(4), 4, run_reduce, &z};
    ks[4] = (struct kernel){"histogram", gpu_launch_config_1d(N_HIST / 256 / 8, 256), {&p[10], &p[11], &n_hist},
                            bufs[11], NULL, 256 * 4, bufs[11], z.bins, malloc(256 * 4), 256 * 4, run_histogram, &z};
    ks[5] = (struct kernel){"mandelbrot", gpu_launch_config_1d(N_MANDEL * N_MANDEL / 128, 128),
                            {&p[12], &side, &x0, &y0, &step, &maxit}, NULL, NULL, 0, bufs[12], z.mandel,
                            malloc((size_t)N_MANDEL * N_MANDEL * 4), (size_t)N_MANDEL * N_MANDEL * 4, run_mandelbrot, &z};

    printf("PTX interpreter against scalar C, one host thread; median of %d runs; CPU time\n", runs);
    printf("%-11s %14s %16s %11s\n", "kernel", "instructions", "instr/CPU-second", "vs C");
    for (int i = 0; i < 6; i++) {
        if (!ks[i].got)
            return 1;
        if (only && strcmp(only, ks[i].name) != 0)
            continue;
        if (!measure(s, m, &ks[i], runs, &rates[nrates]))
            failed = 1;
        else
            nrates++;
    }
    if (nrates > 1)
        printf("%-11s %14s %16.3e\n", "median", "", median(rates, nrates));
    if (!only || strcmp(only, "launch") == 0) {
        double f, h;

        printf("\nempty <<<1,1>>> launch and synchronize: %.2f us\n", empty_launch_us(s, m));
        memset_rates(1, &f, &h);
        printf("cuMemsetD8  64 MiB: %7.2f GB/s, memset() %7.2f GB/s (%.2fx)\n", f, h, f / h);
        memset_rates(4, &f, &h);
        printf("cuMemsetD32 64 MiB: %7.2f GB/s, memset() %7.2f GB/s (%.2fx)\n", f, h, f / h);
    }
    for (int i = 0; i < 6; i++)
        free(ks[i].got);
    for (int i = 0; i < nb; i++)
        gpu_buffer_destroy(bufs[i]);
    gpu_module_destroy(m);
    gpu_stream_destroy(s);
    free(z.a), free(z.b), free(z.c), free(z.x), free(z.y), free(z.y0), free(z.ma), free(z.mb), free(z.mc);
    free(z.rin), free(z.bins), free(z.hin), free(z.mandel);
    return failed;
}
