/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's PTX interpreter: PTX instructions executed per second
 * (each counted once per thread that ran it), on one host thread and on
 * more, for two kernels written here in PTX:
 *
 *   alu     a loop of fma, add, setp and a branch in registers: the
 *           interpreter's dispatch and arithmetic alone
 *   stream  c[i] = a[i] + b[i] over a grid-stride loop: loads and stores,
 *           each address checked against the live allocations
 *
 * Runs against the fake (GPUSHIM_LIBCUDA names it); GPUSHIM_FAKE_THREADS is
 * set for each row. Then `stream` on one host thread under each of the
 * optional checks (GPUSHIM_FAKE_CHECK, set before its buffers are made, as the
 * init check's shadow is made with an allocation), as a ratio to no check. Prints the median of 5 runs a row: instructions a second
 * of wall time (and its ratio to one thread: the scaling, which needs idle
 * cores to mean anything), and a second of the process's CPU time (the rate
 * of one core, which other load on the machine does not change much);
 * asserts nothing about the timing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpushim/fake.h>
#include <gpushim/gpushim.h>

static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry alu(.param .u64 out, .param .u32 iters)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r1, [iters];\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n"
    "  mad.lo.s32 %r5, %r3, %r4, %r2;\n  cvt.rn.f32.u32 %f1, %r5;\n  mov.f32 %f2, 0f3F800000;\n"
    "  mov.u32 %r6, 0;\n"
    "$LOOP:\n"
    "  fma.rn.f32 %f2, %f2, 0f3F7FF000, %f1;\n  add.s32 %r6, %r6, 1;\n"
    "  setp.lt.u32 %p1, %r6, %r1;\n  @%p1 bra $LOOP;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n  mul.wide.u32 %rd3, %r5, 4;\n  add.s64 %rd2, %rd2, %rd3;\n"
    "  st.global.f32 [%rd2], %f2;\n  ret;\n}\n"
    ".visible .entry stream(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [a];\n  ld.param.u64 %rd2, [b];\n  ld.param.u64 %rd3, [c];\n  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n"
    "  mad.lo.s32 %r5, %r3, %r4, %r2;\n  mov.u32 %r6, %nctaid.x;\n  mul.lo.s32 %r7, %r6, %r4;\n"
    "  setp.ge.u32 %p1, %r5, %r1;\n  @%p1 bra $DONE;\n"
    "$LOOP:\n"
    "  mul.wide.u32 %rd4, %r5, 4;\n  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n"
    "  add.s64 %rd7, %rd3, %rd4;\n  ld.global.f32 %f1, [%rd5];\n  ld.global.f32 %f2, [%rd6];\n"
    "  add.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd7], %f3;\n  add.s32 %r5, %r5, %r7;\n"
    "  setp.lt.u32 %p1, %r5, %r1;\n  @%p1 bra $LOOP;\n"
    "$DONE:\n  ret;\n}\n";

enum { RUNS = 5, BLOCKS = 64, THREADS = 256, ALU_ITERS = 200, N = 1 << 20 };

static double now(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(gpu_status st, const char *what)
{
    if (st != GPU_OK) {
        fprintf(stderr, "bench-ptx: %s: %s\n", what, gpu_last_error_get_message());
        exit(1);
    }
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Instructions a second of wall time and of CPU time: the medians of RUNS launches. */
static double rate(gpu_stream *s, gpu_module *m, const char *kernel, void **args, uint64_t *executed, double *per_cpu)
{
    double r[RUNS], c[RUNS];
    gpu_launch_config cfg = gpu_launch_config_1d(BLOCKS, THREADS);

    for (int i = 0; i < RUNS; i++) {
        double t = now(CLOCK_MONOTONIC), cpu = now(CLOCK_PROCESS_CPUTIME_ID);

        check(gpu_stream_launch_kernel(s, m, kernel, &cfg, args), kernel);
        check(gpu_stream_synchronize(s), kernel);
        t = now(CLOCK_MONOTONIC) - t;
        cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
        *executed = gpu_fake_ptx_executed();
        r[i] = (double)*executed / t;
        c[i] = (double)*executed / cpu;
    }
    qsort(r, RUNS, sizeof(r[0]), compare);
    qsort(c, RUNS, sizeof(c[0]), compare);
    *per_cpu = c[RUNS / 2];
    return r[RUNS / 2];
}

/* The stream kernel's three buffers, a and b filled; their device addresses in p. */
static void buffers(gpu_buffer *buf[3], uint64_t p[3])
{
    for (int i = 0; i < 3; i++) {
        check(gpu_buffer_create(NULL, (size_t)N * 4, &buf[i]), "buffer");
        p[i] = gpu_buffer_get_device_ptr(buf[i]);
    }
    check(gpu_buffer_memset(buf[0], 0, N, 4, 0x3f800000u), "memset");
    check(gpu_buffer_memset(buf[1], 0, N, 4, 0x40000000u), "memset");
}

int main(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    gpu_stream *s = NULL;
    gpu_module *m = NULL;
    gpu_buffer *buf[3];
    uint64_t p[3], executed = 0;
    unsigned iters = ALU_ITERS, n = N;
    void *alu_args[] = {&p[2], &iters}, *stream_args[] = {&p[0], &p[1], &p[2], &n};
    static const char *const checks[] = {"", "race", "init", "race,init"};
    double base[2] = {0, 0};
    const char *const kernels[2] = {"alu", "stream"};
    void **args[2] = {alu_args, stream_args};

    if (!getenv("GPUSHIM_LIBCUDA")) {
        printf("bench-ptx: skipped: GPUSHIM_LIBCUDA must name gpushim's fake driver\n");
        return 77;
    }
    check(gpu_stream_create(NULL, &s), "stream");
    check(gpu_module_load_data(NULL, ptx, sizeof(ptx), &m), "module");
    unsetenv("GPUSHIM_FAKE_CHECK");
    buffers(buf, p);
    printf("PTX interpreter: %d blocks of %d threads; %ld cores online; median of %d launches\n", BLOCKS, THREADS,
           cores, RUNS);
    printf("%-8s %8s %14s %10s %16s %12s\n", "kernel", "threads", "instr/s (wall)", "vs 1", "instr/CPU-second", "instructions");
    for (int k = 0; k < 2; k++)
        for (long t = 1; t <= cores; t = t * 2 > cores && t < cores ? cores : t * 2) {
            char value[16];
            double r, per_cpu;

            snprintf(value, sizeof(value), "%ld", t);
            setenv("GPUSHIM_FAKE_THREADS", value, 1);
            r = rate(s, m, kernels[k], args[k], &executed, &per_cpu);
            if (t == 1)
                base[k] = r;
            printf("%-8s %8ld %14.3e %9.2fx %16.3e %12llu\n", kernels[k], t, r, r / base[k], per_cpu,
                   (unsigned long long)executed);
        }
    for (int i = 0; i < 3; i++)
        gpu_buffer_destroy(buf[i]);
    printf("\n%-10s %8s %14s %10s\n", "checks", "threads", "instr/s (wall)", "vs none");
    setenv("GPUSHIM_FAKE_THREADS", "1", 1);
    for (size_t k = 0; k < sizeof(checks) / sizeof(checks[0]); k++) {
        double r, per_cpu;

        if (checks[k][0])
            setenv("GPUSHIM_FAKE_CHECK", checks[k], 1);
        else
            unsetenv("GPUSHIM_FAKE_CHECK");
        buffers(buf, p);
        r = rate(s, m, "stream", stream_args, &executed, &per_cpu);
        if (k == 0)
            base[1] = r;
        printf("%-10s %8d %14.3e %9.2fx\n", checks[k][0] ? checks[k] : "none", 1, r, r / base[1]);
        for (int i = 0; i < 3; i++)
            gpu_buffer_destroy(buf[i]);
    }
    gpu_module_destroy(m);
    gpu_stream_destroy(s);
    return 0;
}
