/* SPDX-License-Identifier: MIT */
/*
 * The kernel corpus (kernels.cu), compiled at test time and run through
 * gpushim, each result compared with a plain C reference: integer results
 * bit for bit, floating point within the precision CUDA documents for the
 * operations the kernel uses.
 *
 *   corpus SRC_DIR NVCC nvcc    kernels.cu through nvcc --ptx: -O3 for compute_75 and compute_90,
 *                               -G (debug code: calls for intrinsics) for compute_75
 *   corpus SRC_DIR NVCC nvrtc   kernels.cu through NVRTC (gpu_program_*) for compute_75
 *   corpus SRC_DIR NVCC all     both
 *   corpus SRC_DIR NVCC checks  checks.cu (nvcc compute_75, else NVRTC) on the fake driver: an
 *                               off-by-one write is reported with its thread and PTX line, and
 *                               with GPUSHIM_FAKE_CHECK=race a missing barrier is too, its
 *                               correct twin not; an instruction the interpreter does not run
 *                               fails its launch, naming it, and not the rest of the module
 *
 * NVCC is nvcc's path ("" when there is none). Against the fake driver
 * (GPUSHIM_LIBCUDA) its PTX interpreter runs the kernels; against a real
 * driver, the GPU does. Exits 77 (skipped) when no compiler or no device is
 * there.
 */
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpushim/gpushim.h>

#define SKIP 77

static int failures;
static const char *variant = "";
static gpu_stream *stream;
static gpu_module *module;

static void failf(const char *kernel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(const char *kernel, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "FAIL %s %s: ", variant, kernel);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    failures++;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1))) {
        if (fread(text, 1, (size_t)n, f) != (size_t)n) {
            free(text);
            text = NULL;
        } else {
            text[n] = '\0';
        }
    }
    fclose(f);
    return text;
}

/* nvcc OPT --ptx -arch=compute_ARCH SRC -o OUT, run without a shell; the PTX text or NULL. */
static char *nvcc_ptx(const char *nvcc, const char *opt, const char *src, const char *dir, int arch)
{
    char out[4200], archopt[32];
    pid_t pid;
    int status = 0;

    snprintf(out, sizeof(out), "%s/kernels.ptx", dir);
    snprintf(archopt, sizeof(archopt), "-arch=compute_%d", arch);
    pid = fork();
    if (pid == 0) {
        execl(nvcc, nvcc, opt, "--ptx", archopt, src, "-o", out, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "nvcc %s %s failed (status %d)\n", opt, archopt, status);
        return NULL;
    }
    {
        char *text = read_file(out);

        unlink(out);
        return text;
    }
}

static char *nvrtc_ptx(const char *src_path, const char *name)
{
    char *source = read_file(src_path), *ptx = NULL;
    gpu_program *p = NULL;
    const gpu_compile_options opts = {GPU_COMPILE_PTX, 75, NULL, 0, true};
    const void *data;
    size_t size;

    if (!source)
        return NULL;
    if (gpu_program_create(source, name, NULL, 0, &p) == GPU_OK && gpu_program_compile(p, NULL, &opts) == GPU_OK &&
        gpu_program_get_output(p, &data, &size) == GPU_OK && (ptx = malloc(size + 1))) {
        memcpy(ptx, data, size);
        ptx[size] = '\0';
    } else {
        fprintf(stderr, "NVRTC: %s\n", gpu_last_error_get_message());
    }
    gpu_program_destroy(p);
    free(source);
    return ptx;
}

/* ---- Launch helpers ---- */

static gpu_buffer *upload(const void *data, size_t bytes)
{
    gpu_buffer *b = NULL;

    if (gpu_buffer_create(gpu_stream_get_context(stream), bytes, &b) != GPU_OK) {
        fprintf(stderr, "gpu_buffer_create: %s\n", gpu_last_error_get_message());
        exit(1);
    }
    if (data && gpu_buffer_copy_from_host(b, data, bytes) != GPU_OK) {
        fprintf(stderr, "copy to the device: %s\n", gpu_last_error_get_message());
        exit(1);
    }
    return b;
}

static bool download(const char *kernel, const gpu_buffer *b, void *out, size_t bytes)
{
    if (gpu_buffer_copy_to_host(b, out, bytes) == GPU_OK)
        return true;
    failf(kernel, "copy from the device: %s", gpu_last_error_get_message());
    return false;
}

static bool launch(const char *kernel, unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned shared, void **args)
{
    gpu_launch_config c = gpu_launch_config_1d(gx, bx);
    gpu_status st;

    c.grid[1] = gy;
    c.block[1] = by;
    c.shared_mem_bytes = shared;
    st = gpu_stream_launch_kernel(stream, module, kernel, &c, args);
    if (st == GPU_OK)
        st = gpu_stream_synchronize(stream);
    if (st != GPU_OK) {
        failf(kernel, "launch: %s: %s", gpu_status_get_name(st), gpu_last_error_get_message());
        return false;
    }
    return true;
}

/* A launch with a whole configuration (cooperative, clusters); its status, after the stream synchronised. */
static gpu_status launch_config(const char *kernel, const gpu_launch_config *c, void **args)
{
    gpu_status st = gpu_stream_launch_kernel(stream, module, kernel, c, args);

    if (st == GPU_OK)
        st = gpu_stream_synchronize(stream);
    return st;
}

static uint64_t B(const gpu_buffer *b)
{
    return gpu_buffer_get_device_ptr(b);
}

/* A deterministic sequence for inputs. */
static uint32_t next_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static bool close_enough(float got, float want, float rel, float abs_tol)
{
    return fabsf(got - want) <= abs_tol + rel * fabsf(want);
}

static void check_floats(const char *kernel, const float *got, const float *want, size_t n, float rel, float abs_tol)
{
    for (size_t i = 0; i < n; i++)
        if (!close_enough(got[i], want[i], rel, abs_tol)) {
            failf(kernel, "element %zu: %.9g, expected %.9g", i, (double)got[i], (double)want[i]);
            return;
        }
}

static void check_words(const char *kernel, const uint32_t *got, const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            failf(kernel, "element %zu: %u, expected %u", i, got[i], want[i]);
            return;
        }
}

/* ---- The kernels ---- */

static void vector_add(void)
{
    enum { N = 1000 };
    float a[N], b[N], c[N], want[N];
    uint32_t s = 1;
    gpu_buffer *da, *db, *dc;
    int n = N;

    for (int i = 0; i < N; i++) {
        a[i] = (float)(next_rand(&s) % 1000) / 8.0f;
        b[i] = (float)(next_rand(&s) % 1000) / 16.0f;
        want[i] = a[i] + b[i];
    }
    da = upload(a, sizeof(a));
    db = upload(b, sizeof(b));
    dc = upload(NULL, sizeof(c));
    {
        uint64_t pa = B(da), pb = B(db), pc = B(dc);
        void *args[] = {&pa, &pb, &pc, &n};

        if (launch("vector_add", (N + 127) / 128, 1, 128, 1, 0, args) && download("vector_add", dc, c, sizeof(c)))
            check_floats("vector_add", c, want, N, 0, 0);
    }
    gpu_buffer_destroy(da);
    gpu_buffer_destroy(db);
    gpu_buffer_destroy(dc);
}

static void saxpy(void)
{
    enum { N = 1000 };
    float x[N], y[N], want[N], a = 1.5f;
    uint32_t s = 2;
    gpu_buffer *dx, *dy;
    int n = N;

    for (int i = 0; i < N; i++) {
        x[i] = (float)(next_rand(&s) % 2000) / 7.0f;
        y[i] = (float)(next_rand(&s) % 2000) / 3.0f;
        want[i] = fmaf(a, x[i], y[i]);
    }
    dx = upload(x, sizeof(x));
    dy = upload(y, sizeof(y));
    {
        uint64_t px = B(dx), py = B(dy);
        void *args[] = {&a, &px, &py, &n};

        /* Fewer threads than elements: the grid-stride loop runs several times. */
        if (launch("saxpy", 3, 1, 64, 1, 0, args) && download("saxpy", dy, y, sizeof(y)))
            check_floats("saxpy", y, want, N, 1e-6f, 0);
    }
    gpu_buffer_destroy(dx);
    gpu_buffer_destroy(dy);
}

static void matmul(void)
{
    enum { N = 40 };
    static float a[N * N], b[N * N], c[N * N], want[N * N];
    uint32_t s = 3;
    gpu_buffer *da, *db, *dc;
    int n = N;

    for (int i = 0; i < N * N; i++) {
        a[i] = (float)((int)(next_rand(&s) % 200) - 100) / 16.0f;
        b[i] = (float)((int)(next_rand(&s) % 200) - 100) / 32.0f;
    }
    for (int r = 0; r < N; r++)
        for (int k = 0; k < N; k++) {
            double sum = 0;

            for (int i = 0; i < N; i++)
                sum += (double)a[r * N + i] * b[i * N + k];
            want[r * N + k] = (float)sum;
        }
    da = upload(a, sizeof(a));
    db = upload(b, sizeof(b));
    dc = upload(NULL, sizeof(c));
    {
        uint64_t pa = B(da), pb = B(db), pc = B(dc);
        void *args[] = {&pa, &pb, &pc, &n};

        if (launch("matmul_tiled", 3, 3, 16, 16, 0, args) && download("matmul_tiled", dc, c, sizeof(c)))
            check_floats("matmul_tiled", c, want, N * N, 1e-5f, 1e-4f);
    }
    gpu_buffer_destroy(da);
    gpu_buffer_destroy(db);
    gpu_buffer_destroy(dc);
}

static void reduce_tree(void)
{
    enum { N = 3000, T = 128 };
    static uint32_t in[N];
    uint64_t want = 0, got = 0;
    uint32_t s = 4;
    gpu_buffer *din, *dout;
    int n = N;

    for (int i = 0; i < N; i++) {
        in[i] = next_rand(&s);
        want += in[i];
    }
    din = upload(in, sizeof(in));
    dout = upload(&got, sizeof(got));
    {
        uint64_t pi = B(din), po = B(dout);
        void *args[] = {&pi, &po, &n};

        if (launch("reduce_tree", (N + 2 * T - 1) / (2 * T), 1, T, 1, T * 4, args) &&
            download("reduce_tree", dout, &got, sizeof(got)) && got != want)
            failf("reduce_tree", "%llu, expected %llu", (unsigned long long)got, (unsigned long long)want);
    }
    gpu_buffer_destroy(din);
    gpu_buffer_destroy(dout);
}

static void reduce_shfl(void)
{
    enum { N = 5000 };
    static int32_t in[N];
    int32_t want = 0, got = 0;
    uint32_t s = 5;
    gpu_buffer *din, *dout;
    int n = N;

    for (int i = 0; i < N; i++) {
        in[i] = (int32_t)(next_rand(&s) % 2001) - 1000;
        want += in[i];
    }
    din = upload(in, sizeof(in));
    dout = upload(&got, sizeof(got));
    {
        uint64_t pi = B(din), po = B(dout);
        void *args[] = {&pi, &po, &n};

        /* 96 threads: the last warp reduction reads three warps' sums. */
        if (launch("reduce_shfl", 4, 1, 96, 1, 0, args) && download("reduce_shfl", dout, &got, sizeof(got)) &&
            got != want)
            failf("reduce_shfl", "%d, expected %d", got, want);
    }
    gpu_buffer_destroy(din);
    gpu_buffer_destroy(dout);
}

static void histogram(void)
{
    enum { N = 4000, BINS = 64 };
    static unsigned char data[N];
    uint32_t bins[BINS] = {0}, want[BINS] = {0};
    uint32_t s = 6;
    gpu_buffer *dd, *db;
    int n = N;

    for (int i = 0; i < N; i++) {
        data[i] = (unsigned char)next_rand(&s);
        want[data[i] & 63]++;
    }
    dd = upload(data, sizeof(data));
    db = upload(bins, sizeof(bins));
    {
        uint64_t pd = B(dd), pb = B(db);
        void *args[] = {&pd, &pb, &n};

        if (launch("histogram", 4, 1, 128, 1, 0, args) && download("histogram", db, bins, sizeof(bins)))
            check_words("histogram", bins, want, BINS);
    }
    gpu_buffer_destroy(dd);
    gpu_buffer_destroy(db);
}

static void scan(void)
{
    enum { N = 200, T = 128 };
    int32_t in[N], out[N], want[N];
    uint32_t s = 7;
    gpu_buffer *di, *dout;
    int n = N;

    for (int i = 0; i < N; i++) {
        in[i] = (int32_t)(next_rand(&s) % 100) - 50;
        want[i] = in[i] + (i % T ? want[i - 1] : 0);
    }
    di = upload(in, sizeof(in));
    dout = upload(NULL, sizeof(out));
    {
        uint64_t pi = B(di), po = B(dout);
        void *args[] = {&pi, &po, &n};

        if (launch("scan_block", (N + T - 1) / T, 1, T, 1, 2 * T * 4, args) && download("scan_block", dout, out, sizeof(out)))
            check_words("scan_block", (uint32_t *)out, (uint32_t *)want, N);
    }
    gpu_buffer_destroy(di);
    gpu_buffer_destroy(dout);
}

static void transpose(void)
{
    enum { W = 70, H = 45 };
    static float in[W * H], out[W * H], want[W * H];
    uint32_t s = 8;
    gpu_buffer *di, *dout;
    int w = W, h = H;

    for (int i = 0; i < W * H; i++)
        in[i] = (float)next_rand(&s);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            want[x * H + y] = in[y * W + x];
    di = upload(in, sizeof(in));
    dout = upload(NULL, sizeof(out));
    {
        uint64_t pi = B(di), po = B(dout);
        void *args[] = {&pi, &po, &w, &h};

        if (launch("transpose_padded", (W + 31) / 32, (H + 31) / 32, 32, 8, 0, args) &&
            download("transpose_padded", dout, out, sizeof(out)))
            check_floats("transpose_padded", out, want, W * H, 0, 0);
    }
    gpu_buffer_destroy(di);
    gpu_buffer_destroy(dout);
}

static void softmax(void)
{
    enum { R = 3, C = 100 };
    static float in[R * C], out[R * C], want[R * C];
    uint32_t s = 9;
    gpu_buffer *di, *dout;
    int cols = C;

    for (int i = 0; i < R * C; i++)
        in[i] = (float)((int)(next_rand(&s) % 2000) - 1000) / 100.0f;
    for (int r = 0; r < R; r++) {
        double m = -INFINITY, sum = 0;

        for (int c = 0; c < C; c++)
            m = fmax(m, in[r * C + c]);
        for (int c = 0; c < C; c++)
            sum += exp(in[r * C + c] - m);
        for (int c = 0; c < C; c++)
            want[r * C + c] = (float)(exp(in[r * C + c] - m) / sum);
    }
    di = upload(in, sizeof(in));
    dout = upload(NULL, sizeof(out));
    {
        uint64_t pi = B(di), po = B(dout);
        void *args[] = {&pi, &po, &cols};

        /* __expf is ex2.approx: 2 + 1.16 * |x| ulp; 1e-5 relative covers it for these inputs. */
        if (launch("softmax_rows", R, 1, 64, 1, 0, args) && download("softmax_rows", dout, out, sizeof(out)))
            check_floats("softmax_rows", out, want, R * C, 2e-5f, 1e-9f);
    }
    gpu_buffer_destroy(di);
    gpu_buffer_destroy(dout);
}

static uint16_t to_half(float f)
{
    /* Inputs here are multiples of 1/64 in [-8, 8): exact in half. */
    uint32_t x;
    int e;
    float m = frexpf(fabsf(f), &e);

    (void)x;
    if (f == 0)
        return 0;
    return (uint16_t)((f < 0 ? 0x8000 : 0) | ((uint32_t)(e - 1 + 15) << 10) | ((uint32_t)((m * 2 - 1) * 1024) & 1023));
}

static float from_half(uint16_t h)
{
    int e = (h >> 10) & 31, man = h & 1023;
    float v = e ? ldexpf(1.0f + (float)man / 1024.0f, e - 15) : ldexpf((float)man / 1024.0f, -14);

    return h & 0x8000 ? -v : v;
}

static void softmax_half(void)
{
    enum { R = 2, C = 50 };
    uint16_t in[R * C], out[R * C];
    float want[R * C];
    uint32_t s = 10;
    gpu_buffer *di, *dout;
    int cols = C;

    for (int i = 0; i < R * C; i++)
        in[i] = to_half((float)((int)(next_rand(&s) % 1024) - 512) / 64.0f);
    for (int r = 0; r < R; r++) {
        double m = -INFINITY, sum = 0;

        for (int c = 0; c < C; c++)
            m = fmax(m, from_half(in[r * C + c]));
        for (int c = 0; c < C; c++)
            sum += exp(from_half(in[r * C + c]) - m);
        for (int c = 0; c < C; c++)
            want[r * C + c] = (float)(exp(from_half(in[r * C + c]) - m) / sum);
    }
    di = upload(in, sizeof(in));
    dout = upload(NULL, sizeof(out));
    {
        uint64_t pi = B(di), po = B(dout);
        void *args[] = {&pi, &po, &cols};

        if (launch("softmax_half", R, 1, 32, 1, 0, args) && download("softmax_half", dout, out, sizeof(out))) {
            float got[R * C];

            for (int i = 0; i < R * C; i++)
                got[i] = from_half(out[i]);
            /* A half has 11 significant bits: within one rounding (2^-11 relative), plus subnormals. */
            check_floats("softmax_half", got, want, R * C, 1.0f / 1024, 1e-7f);
        }
    }
    gpu_buffer_destroy(di);
    gpu_buffer_destroy(dout);
}

static int compare_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void hello_printf(void)
{
    char path[] = "/tmp/gpushim-corpus-printf-XXXXXX", *text, *lines[64], expected[64][64];
    int fd = mkstemp(path), saved, base = 100, nlines = 0;

    if (fd < 0) {
        failf("hello_printf", "mkstemp");
        return;
    }
    fflush(stdout);
    saved = dup(1);
    dup2(fd, 1);
    {
        void *args[] = {&base};

        launch("hello_printf", 2, 1, 4, 1, 0, args);
    }
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(fd);
    text = read_file(path);
    unlink(path);
    if (!text) {
        failf("hello_printf", "no output file");
        return;
    }
    for (char *line = strtok(text, "\n"); line && nlines < 64; line = strtok(NULL, "\n"))
        lines[nlines++] = line;
    qsort(lines, (size_t)nlines, sizeof(lines[0]), compare_lines);
    for (int b = 0, k = 0; b < 2; b++)
        for (int t = 0; t < 4; t++, k++)
            snprintf(expected[k], sizeof(expected[k]), "block %d thread %d value %d %f", b, t, base + t, 0.5 * t);
    if (nlines != 8) {
        failf("hello_printf", "%d lines, expected 8", nlines);
    } else {
        for (int k = 0; k < 8; k++)
            if (strcmp(lines[k], expected[k]) != 0) {
                failf("hello_printf", "line \"%s\", expected \"%s\"", lines[k], expected[k]);
                break;
            }
    }
    free(text);
}

static uint32_t fib(uint32_t n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void fib_kernel(void)
{
    enum { T = 40 };
    uint32_t out[T], want[T];
    gpu_buffer *d = upload(NULL, sizeof(out));
    uint64_t p = B(d);
    void *args[] = {&p};

    for (int i = 0; i < T; i++)
        want[i] = fib((uint32_t)i % 12);
    if (launch("fib_kernel", 1, 1, T, 1, 0, args) && download("fib_kernel", d, out, sizeof(out)))
        check_words("fib_kernel", out, want, T);
    gpu_buffer_destroy(d);
}

static void warp_ops(void)
{
    enum { BLOCKS = 2, W = 32, R = 8 };
    uint32_t out[BLOCKS * W * R], want[BLOCKS * W * R];
    gpu_buffer *d = upload(NULL, sizeof(out));
    uint64_t p = B(d);
    void *args[] = {&p};

    for (unsigned b = 0; b < BLOCKS; b++)
        for (unsigned t = 0; t < W; t++) {
            uint32_t *o = want + (b * W + t) * R, ballot = 0;

            for (unsigned k = 0; k < W; k++)
                ballot |= (k % 3 == 0) << k;
            o[0] = ballot;
            o[1] = 1 | 2;
            o[2] = 0xfu << (4 * (t / 4));
            o[3] = t >= 3 ? (t - 3) * 10 : t * 10;
            o[4] = 14 + b;
            o[5] = 496 + 93;
            o[6] = t & 1 ? 0xaaaaaaaau : 16;
            o[7] = (t % 16) + 5 < 16 ? t + 5 + 100 : t + 100;
        }
    if (launch("warp_ops", BLOCKS, 1, W, 1, 0, args) && download("warp_ops", d, out, sizeof(out)))
        check_words("warp_ops", out, want, BLOCKS * W * R);
    gpu_buffer_destroy(d);
}

static uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s)
{
    uint64_t v = ((uint64_t)y << 32) | x;
    uint32_t r = 0;

    for (int i = 0; i < 4; i++)
        r |= (uint32_t)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}

static uint32_t bit_reverse(uint32_t x)
{
    uint32_t r = 0;

    for (int i = 0; i < 32; i++)
        r |= ((x >> i) & 1u) << (31 - i);
    return r;
}

static void bit_ops(void)
{
    enum { N = 300, R = 12 };
    static uint32_t in[N], out[N * R], want[N * R];
    uint32_t s = 11;
    gpu_buffer *di, *dout;
    int n = N;

    for (int i = 0; i < N; i++)
        in[i] = next_rand(&s) ^ (next_rand(&s) << 16);
    in[3] = 0;
    in[4] = 0x80000001u;
    for (int i = 0; i < N; i++) {
        uint32_t x = in[i], y = in[(i + 1) % N], *o = want + i * R;
        uint64_t a = ((uint64_t)x << 32) | y, b = ((uint64_t)y << 29) ^ x;
        int32_t sx = (int32_t)x;
        int32_t dv = ((int32_t)(y | 1) >> 3) | 1;

        o[0] = (uint32_t)__builtin_popcount(x) | (uint32_t)(y ? __builtin_clz(y) : 32) << 8 |
               (uint32_t)__builtin_ffs((int)x) << 16;
        o[1] = bit_reverse(x);
        o[2] = byte_perm(x, y, 0x5140 + (uint32_t)(i & 7));
        o[3] = (x >> (i % 29)) & 0x1ff;
        o[4] = (uint32_t)(sx >> (i % 31));
        o[5] = (uint32_t)(((uint64_t)x * y) >> 32);
        o[6] = (uint32_t)(((int64_t)sx * (int32_t)y) >> 32);
        o[7] = (uint32_t)((uint64_t)((__extension__(unsigned __int128)a * b) >> 64) >> 7);
        o[8] = (uint32_t)(a / (b | 1) + a % (y | 1));
        o[9] = (uint32_t)(sx / dv) ^ (uint32_t)(sx % 1000);
        o[10] = (uint32_t)(sx < (int32_t)y ? sx : (int32_t)y) ^ (x > y ? x : y);
        o[11] = (uint32_t)(int32_t)truncf((float)sx * 1e-3f) + (uint32_t)nearbyintf((float)x * 1e-6f) +
                (uint32_t)(int64_t)((double)a * 1e-12);
    }
    di = upload(in, sizeof(in));
    dout = upload(NULL, sizeof(out));
    {
        uint64_t pi = B(di), po = B(dout);
        void *args[] = {&pi, &po, &n};

        if (launch("bit_ops", (N + 63) / 64, 1, 64, 1, 0, args) && download("bit_ops", dout, out, sizeof(out)))
            check_words("bit_ops", out, want, N * R);
    }
    gpu_buffer_destroy(di);
    gpu_buffer_destroy(dout);
}

static void math_ops(void)
{
    enum { N = 200, R = 8 };
    static float in[N], out[N * R], want[N * R];
    static double dout[N], dwant[N];
    uint32_t s = 12;
    gpu_buffer *di, *dfo, *ddo;
    int n = N;

    for (int i = 0; i < N; i++)
        in[i] = (float)((int)(next_rand(&s) % 6001) - 3000) / 1000.0f;
    for (int i = 0; i < N; i++) {
        float x = in[i], *o = want + i * R;

        o[0] = sinf(x);
        o[1] = cosf(x);
        o[2] = log2f(fabsf(x) + 1.0f);
        o[3] = 1.0f / sqrtf(fabsf(x) + 0.5f);
        o[4] = sqrtf(fabsf(x));
        o[5] = x / 3.0f;
        o[6] = exp2f(x * 0.25f);
        o[7] = fminf(x, 1.0f) + fmaxf(x, -1.0f) + floorf(x) + ceilf(x) + truncf(x) + rintf(x);
        dwant[i] = (double)x * 1.5 + sqrt((double)fabsf(x)) - (double)i / 7.0;
    }
    di = upload(in, sizeof(in));
    dfo = upload(NULL, sizeof(out));
    ddo = upload(NULL, sizeof(dout));
    {
        uint64_t pi = B(di), po = B(dfo), pd = B(ddo);
        void *args[] = {&pi, &po, &pd, &n};

        /* The approximations' documented bounds: __sinf and __cosf 2^-21.4 absolute on [-pi, pi],
         * __log2f 2^-22 absolute, rsqrtf, ex2 and __fdividef 2 ulp: 4e-6 covers them all. */
        if (launch("math_ops", (N + 63) / 64, 1, 64, 1, 0, args) && download("math_ops", dfo, out, sizeof(out)) &&
            download("math_ops", ddo, dout, sizeof(dout))) {
            check_floats("math_ops", out, want, N * R, 4e-6f, 4e-6f);
            for (int i = 0; i < N; i++)
                if (fabs(dout[i] - dwant[i]) > 1e-14 * fabs(dwant[i]) + 1e-15) {
                    failf("math_ops", "double %d: %.17g, expected %.17g", i, dout[i], dwant[i]);
                    break;
                }
        }
    }
    gpu_buffer_destroy(di);
    gpu_buffer_destroy(dfo);
    gpu_buffer_destroy(ddo);
}

static void atomics(void)
{
    enum { N = 300, T = 64, BLOCKS = (N + T - 1) / T };
    uint32_t g[14] = {0xffffffffu, 0, 0xffffffffu, 0, 0, 0, 0, 0, 0, 0x7fffffff, 0, 0, 0, 0}, want[14];
    uint64_t g64[2] = {0, 0}, want64[2] = {0, 0};
    float gf = 0, wantf = 0;
    gpu_buffer *dg = upload(g, sizeof(g)), *dg64 = upload(g64, sizeof(g64)), *dgf = upload(&gf, sizeof(gf));
    uint64_t pg = B(dg), pg64 = B(dg64), pgf = B(dgf);
    int n = N;
    void *args[] = {&pg, &pg64, &pgf, &n};

    memcpy(want, g, sizeof(g));
    for (uint32_t i = 0; i < N; i++) {
        uint32_t v = i * 7 % 1000 + 3;

        want[0] = v < want[0] ? v : want[0];
        want[1] = i * 13 % 977 > want[1] ? i * 13 % 977 : want[1];
        want[2] &= ~(1u << (i % 32)) | (i & 1);
        want[3] |= 1u << (i % 29);
        want[4] ^= i * 2654435761u;
        want[5] = want[5] >= 9 ? 0 : want[5] + 1;
        want[6] = (want[6] == 0 || want[6] > 6) ? 6 : want[6] - 1;
        want[7] += 2;
        want[9] = (uint32_t)((int32_t)i - 50 < (int32_t)want[9] ? (int32_t)i - 50 : (int32_t)want[9]);
        want64[0] += (uint64_t)i << 33;
        want64[1] = (uint64_t)i * 0x100000001ull > want64[1] ? (uint64_t)i * 0x100000001ull : want64[1];
        wantf += (float)(i % 17);
    }
    for (uint32_t b = 0; b < BLOCKS; b++) {
        uint32_t s0 = 0, s1 = 0xffffffffu, s2 = 0, s3 = 0;

        for (uint32_t i = b * T; i < (b + 1) * T && i < N; i++) {
            s0 += i;
            s1 = i + 5 < s1 ? i + 5 : s1;
            s2 ^= i;
            s3 = 1;
        }
        want[10] += s0;
        want[11] += s1;
        want[12] += s2;
        want[13] += s3;
    }
    if (launch("atomics", BLOCKS, 1, T, 1, 0, args) && download("atomics", dg, g, sizeof(g)) &&
        download("atomics", dg64, g64, sizeof(g64)) && download("atomics", dgf, &gf, sizeof(gf))) {
        /* atomicExch leaves one thread's value: any of them. */
        if (g[8] < 1 || g[8] > N)
            failf("atomics", "exch left %u, not a thread's value", g[8]);
        g[8] = want[8];
        check_words("atomics", g, want, 14);
        if (g64[0] != want64[0] || g64[1] != want64[1])
            failf("atomics", "64-bit: %llx %llx, expected %llx %llx", (unsigned long long)g64[0],
                  (unsigned long long)g64[1], (unsigned long long)want64[0], (unsigned long long)want64[1]);
        if (gf != wantf)
            failf("atomics", "float add: %g, expected %g", (double)gf, (double)wantf);
    }
    gpu_buffer_destroy(dg);
    gpu_buffer_destroy(dg64);
    gpu_buffer_destroy(dgf);
}

/* The grid-wide barrier, where the PTX has it (nvcc's: NVRTC is not given cooperative groups' header). */
static void grid_sync(const char *ptx)
{
    enum { N = 5000, G = 8, T = 64 };
    static int32_t in[N];
    int32_t partial[G], out[2 * G], want = 0;
    uint32_t s = 13;
    gpu_buffer *di, *dp, *dout;
    int n = N;

    if (!strstr(ptx, ".entry grid_sync_sum"))
        return;
    for (int i = 0; i < N; i++) {
        in[i] = (int32_t)(next_rand(&s) % 2001) - 1000;
        want += in[i];
    }
    di = upload(in, sizeof(in));
    dp = upload(NULL, sizeof(partial));
    dout = upload(NULL, sizeof(out));
    {
        uint64_t pi = B(di), pp = B(dp), po = B(dout);
        void *args[] = {&pi, &pp, &po, &n};
        gpu_launch_config c = gpu_launch_config_1d(G, T);
        const char *threads = getenv("GPUSHIM_FAKE_THREADS");
        char *keep = threads ? strdup(threads) : NULL;

        c.cooperative = true;
        /* Twice: the fake's blocks on one host thread (every block must still run at once), then as the test runs. */
        for (int round = 0; round < 2; round++) {
            gpu_status st;

            memset(partial, 0, sizeof(partial));
            if (gpu_buffer_copy_from_host(dp, partial, sizeof(partial)) != GPU_OK) {
                failf("grid_sync_sum", "copy: %s", gpu_last_error_get_message());
                break;
            }
            if (round == 0)
                setenv("GPUSHIM_FAKE_THREADS", "1", 1);
            else if (keep)
                setenv("GPUSHIM_FAKE_THREADS", keep, 1);
            else
                unsetenv("GPUSHIM_FAKE_THREADS");
            st = launch_config("grid_sync_sum", &c, args);
            if (st != GPU_OK) {
                failf("grid_sync_sum", "launch: %s: %s", gpu_status_get_name(st), gpu_last_error_get_message());
                break;
            }
            if (!download("grid_sync_sum", dout, out, sizeof(out)))
                break;
            for (int i = 0; i < 2 * G; i++)
                if (out[i] != want) {
                    failf("grid_sync_sum", "round %d: element %d: %d, expected %d", round, i, out[i], want);
                    break;
                }
        }
        free(keep);
        /* A cooperative grid larger than fits on the device at once is refused, as the driver does. */
        c = gpu_launch_config_1d(1u << 20, 1024);
        c.cooperative = true;
        if (gpu_stream_launch_kernel(stream, module, "grid_sync_sum", &c, args) == GPU_OK ||
            gpu_last_error_get_cuda_result() != 720)
            failf("grid_sync_sum", "a cooperative grid of 2^20 blocks gave CUresult %d, expected "
                  "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (720)", gpu_last_error_get_cuda_result());
    }
    gpu_buffer_destroy(di);
    gpu_buffer_destroy(dp);
    gpu_buffer_destroy(dout);
}

static float from_bf16(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;

    memcpy(&f, &x, 4);
    return f;
}

/* Half and bfloat16, and warp reductions and scans, where the PTX has them (nvcc's). */
static void half_warp(const char *ptx)
{
    enum { G = 2, T = 32, N = G * T, R = 8 };
    float in[N], out[N * R], want[N * R];
    uint16_t sums[4] = {0, 0, 0, 0};
    gpu_buffer *di, *dout, *dsum;

    if (!strstr(ptx, ".entry half_warp_ops"))
        return;
    for (int i = 0; i < N; i++)
        in[i] = (float)((i * 5) % 64 - 32) / 8.0f;
    for (int w = 0; w < N / 32; w++) {
        int sum = 0, scan = 0;
        float m = -INFINITY;

        for (int k = 0; k < 32; k++) {
            sum += (w * 32 + k) % 7;
            m = fmaxf(m, in[w * 32 + k]);
        }
        for (int k = 0; k < 32; k++) {
            int i = w * 32 + k;
            float *o = want + i * R;

            scan += i % 7;
            o[0] = in[i] * in[i];
            o[1] = 2 * in[i];
            o[2] = 3 * in[i];
            o[3] = expf(in[i] / 4);
            o[4] = (float)sum;
            o[5] = (float)scan;
            o[6] = m;
            o[7] = (float)sum;
        }
    }
    di = upload(in, sizeof(in));
    dout = upload(NULL, sizeof(out));
    dsum = upload(sums, sizeof(sums));
    {
        uint64_t pi = B(di), po = B(dout), ph = B(dsum), ph2 = ph + 4, pb = ph + 2;
        void *args[] = {&pi, &po, &ph, &ph2, &pb};

        if (launch("half_warp_ops", G, 1, T, 1, 0, args) && download("half_warp_ops", dout, out, sizeof(out)) &&
            download("half_warp_ops", dsum, sums, sizeof(sums))) {
            for (int i = 0; i < N * R; i++)
                /* hexp: within half's precision (2^-10 relative, and its last bit); the rest exact. */
                if (i % R == 3 ? !close_enough(out[i], want[i], 2e-3f, 0) : out[i] != want[i]) {
                    failf("half_warp_ops", "thread %d result %d: %.9g, expected %.9g", i / R, i % R, (double)out[i],
                          (double)want[i]);
                    break;
                }
            /* 64 threads: half 0.5 each, half2 (1, 0.25) each, bfloat16 1 each. */
            if (from_half(sums[0]) != 32.0f || from_half(sums[2]) != 64.0f || from_half(sums[3]) != 16.0f ||
                from_bf16(sums[1]) != 64.0f)
                failf("half_warp_ops", "atomics: half %g, half2 (%g, %g), bfloat16 %g; expected 32, (64, 16), 64",
                      (double)from_half(sums[0]), (double)from_half(sums[2]), (double)from_half(sums[3]),
                      (double)from_bf16(sums[1]));
        }
    }
    gpu_buffer_destroy(di);
    gpu_buffer_destroy(dout);
    gpu_buffer_destroy(dsum);
}

/* The cluster kernels, where the PTX has them (compute_90 and later). */
static void clusters(const char *ptx)
{
    enum { G = 8, T = 64, C = 4 };
    uint32_t out[2 * G * T], fixed[G];
    gpu_buffer *d;
    uint64_t p;

    if (!strstr(ptx, ".entry cluster_exchange"))
        return;
    d = upload(NULL, sizeof(out));
    p = B(d);
    {
        void *args[] = {&p};
        gpu_launch_config c = gpu_launch_config_1d(G, T);
        gpu_status st;

        c.cluster[0] = C;
        c.cluster[1] = c.cluster[2] = 1;
        st = launch_config("cluster_exchange", &c, args);
        if (st != GPU_OK) {
            failf("cluster_exchange", "launch: %s: %s", gpu_status_get_name(st), gpu_last_error_get_message());
        } else if (download("cluster_exchange", d, out, sizeof(out))) {
            for (uint32_t b = 0; b < G; b++)
                for (uint32_t t = 0; t < T; t++) {
                    uint32_t rank = b % C, other = b - rank + (rank + 1) % C, *o = out + 2 * (b * T + t);
                    uint32_t want[2] = {other << 8 | t, rank | C << 8 | rank << 16};

                    if (o[0] != want[0] || o[1] != want[1]) {
                        failf("cluster_exchange", "block %u thread %u: %#x %#x, expected %#x %#x", b, t, o[0], o[1],
                              want[0], want[1]);
                        b = G;
                        break;
                    }
                }
        }
        /* The kernel's own cluster shape (2), taken by a plain launch. */
        st = launch_config("cluster_fixed", &(gpu_launch_config){.grid = {G, 1, 1}, .block = {T, 1, 1}}, args);
        if (st != GPU_OK) {
            failf("cluster_fixed", "launch: %s: %s", gpu_status_get_name(st), gpu_last_error_get_message());
        } else if (download("cluster_fixed", d, fixed, sizeof(fixed))) {
            for (uint32_t b = 0; b < G; b++)
                if (fixed[b] != b % 2 + 20 + 100 * b) {
                    failf("cluster_fixed", "block %u: %u, expected %u", b, fixed[b], b % 2 + 20 + 100 * b);
                    break;
                }
        }
    }
    gpu_buffer_destroy(d);
}

/* ---- The checks ---- */

/* Runs a launch with stderr going to a file; what it printed (the caller frees it), and the launch's status. */
static char *launch_captured(const char *kernel, unsigned threads, void **args, gpu_status *st)
{
    char path[] = "/tmp/gpushim-corpus-stderr-XXXXXX", *text;
    int fd = mkstemp(path), saved;
    gpu_launch_config c = gpu_launch_config_1d(1, threads);

    if (fd < 0)
        return NULL;
    fflush(stderr);
    saved = dup(2);
    dup2(fd, 2);
    *st = gpu_stream_launch_kernel(stream, module, kernel, &c, args);
    if (*st == GPU_OK)
        *st = gpu_stream_synchronize(stream);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    text = read_file(path);
    unlink(path);
    fprintf(stderr, "%s: %s", kernel, text ? text : "(nothing)\n");
    return text;
}

/* The line of the PTX text where `what` first appears after `after`; 0 if it does not. */
static unsigned ptx_line(const char *ptx, const char *after, const char *what)
{
    const char *start = strstr(ptx, after), *at = start ? strstr(start, what) : NULL;
    unsigned line = 1;

    if (!at)
        return 0;
    for (const char *p = ptx; p < at; p++)
        line += *p == '\n';
    return line;
}

static void expect_text(const char *kernel, const char *text, const char *needle)
{
    if (!text || !strstr(text, needle))
        failf(kernel, "the report does not say \"%s\"", needle);
}

/* A launch of `kernel` fails with GPU_ERR_NOT_SUPPORTED, saying `why` with the line where `at` is. */
static void expect_unsupported(const char *ptx, const char *kernel, void **args, const char *at, const char *why)
{
    char after[64], needle[200], *text;
    gpu_status st;

    text = launch_captured(kernel, 32, args, &st);
    if (st != GPU_ERR_NOT_SUPPORTED)
        failf(kernel, "the launch gave %s, expected GPU_ERR_NOT_SUPPORTED", gpu_status_get_name(st));
    snprintf(after, sizeof(after), "%s(", kernel);
    snprintf(needle, sizeof(needle), "PTX line %u: %s", ptx_line(ptx, after, at), why);
    expect_text(kernel, text, needle);
    snprintf(needle, sizeof(needle), "(kernel \"%s\")", kernel);
    expect_text(kernel, text, needle);
    free(text);
}

static void run_checks(const char *name, const char *ptx)
{
    const char *check = getenv("GPUSHIM_FAKE_CHECK");
    bool race = check && strstr(check, "race"), init = check && strstr(check, "init"),
         strict = check && strstr(check, "init-strict");
    int32_t data[64], want[64];
    gpu_buffer *d;
    uint64_t p;
    gpu_status st;
    char *text, needle[160];

    variant = name;
    if (!ptx || gpu_module_load_data(NULL, ptx, strlen(ptx) + 1, &module) != GPU_OK) {
        failf("(load)", "%s", ptx ? gpu_last_error_get_message() : "no PTX");
        return;
    }
    /* 100 elements, 128 threads: thread 100 writes the 101st. */
    d = upload(NULL, 100 * 4);
    p = B(d);
    {
        int n = 100;
        void *args[] = {&p, &n};

        text = launch_captured("fill_off_by_one", 128, args, &st);
    }
    if (st == GPU_OK || gpu_last_error_get_cuda_result() != 700)
        failf("fill_off_by_one", "the launch gave %s (CUresult %d), expected CUDA_ERROR_ILLEGAL_ADDRESS",
              gpu_status_get_name(st), gpu_last_error_get_cuda_result());
    snprintf(needle, sizeof(needle), "kernel \"fill_off_by_one\": block (0,0,0) thread (100,0,0): PTX line %u: write of 4 bytes at global address 0x%llx",
             ptx_line(ptx, "fill_off_by_one(", "st.global"), (unsigned long long)(p + 400));
    expect_text("fill_off_by_one", text, needle);
    free(text);
    gpu_buffer_destroy(d);

    for (int i = 0; i < 64; i++) {
        data[i] = i * 3 + 1;
        want[i] = (63 - i) * 3 + 1;
    }
    d = upload(data, sizeof(data));
    p = B(d);
    {
        void *args[] = {&p};

        text = launch_captured("reverse_synced", 64, args, &st);
        if (st != GPU_OK)
            failf("reverse_synced", "%s: %s", gpu_status_get_name(st), gpu_last_error_get_message());
        else if (text && text[0])
            failf("reverse_synced", "a report for a correct kernel");
        free(text);
        if (download("reverse_synced", d, data, sizeof(data)))
            check_words("reverse_synced", (uint32_t *)data, (uint32_t *)want, 64);
        text = launch_captured("reverse_racy", 64, args, &st);
    }
    if (race) {
        /*
         * Warp 0 runs to its end first (it has no barrier to wait at): thread 31
         * reads s[32]; then thread 32 of warp 1 writes s[32], with no barrier between.
         */
        if (st == GPU_OK)
            failf("reverse_racy", "the race check let a missing barrier pass");
        snprintf(needle, sizeof(needle), "kernel \"reverse_racy\": block (0,0,0) thread (32,0,0): PTX line %u: race on shared memory",
                 ptx_line(ptx, "reverse_racy(", "st.shared"));
        expect_text("reverse_racy", text, needle);
        expect_text("reverse_racy", text, "this write and an earlier read of thread (31,0,0) with no barrier between them");
    } else if (st != GPU_OK && !strict) {
        /* (The strict init check fails it too: warp 0 reads what warp 1 has not written yet.) */
        failf("reverse_racy", "without GPUSHIM_FAKE_CHECK=race: %s", gpu_status_get_name(st));
    }
    free(text);
    gpu_buffer_destroy(d);

    /* An instruction the interpreter does not run fails the launch, naming it, the kernel and the line. */
    d = upload(NULL, sizeof(data));
    p = B(d);
    {
        void *args[] = {&p};

        /* Operands it does not take, inside a { } block: that kernel only; the ones after it in the module run. */
        expect_unsupported(ptx, "uses_bad_operands", args, "bar.sync", "unsupported operands of \"bar.sync\"");
        expect_unsupported(ptx, "uses_brkpt", args, "brkpt;", "unsupported instruction \"brkpt\"");
        /* The rest of the module runs, calls included. */
        text = launch_captured("calls_twice", 32, args, &st);
        free(text);
        if (st != GPU_OK)
            failf("calls_twice", "%s: %s", gpu_status_get_name(st), gpu_last_error_get_message());
        else if (download("calls_twice", d, data, 32 * 4))
            for (int i = 0; i < 32; i++)
                if (data[i] != 2 * i) {
                    failf("calls_twice", "element %d: %d", i, data[i]);
                    break;
                }
    }
    gpu_buffer_destroy(d);

    /*
     * Uninitialised reads: 64 ints of which only the first 32 were copied in. The init check
     * reports thread 32's read, once for the launch, and the launch still succeeds (init-strict:
     * it fails with CUDA_ERROR_LAUNCH_FAILED); without the check nothing is said.
     */
    for (int i = 0; i < 64; i++)
        data[i] = i;
    d = upload(NULL, sizeof(data));
    if (gpu_buffer_copy_from_host(d, data, 32 * 4) != GPU_OK)
        failf("read_uninit", "copy: %s", gpu_last_error_get_message());
    p = B(d);
    {
        gpu_buffer *o = upload(NULL, sizeof(data));
        uint64_t po = B(o);
        void *args[] = {&p, &po};
        int reports;

        text = launch_captured("read_uninit", 64, args, &st);
        reports = 0;
        for (const char *at = text; at && (at = strstr(at, "uninitialised")); at++)
            reports++;
        if (!init) {
            if (st != GPU_OK || reports)
                failf("read_uninit", "without the init check: %s, %d reports", gpu_status_get_name(st), reports);
        } else {
            if (strict ? st == GPU_OK || gpu_last_error_get_cuda_result() != 719 : st != GPU_OK)
                failf("read_uninit", "the launch gave %s (CUresult %d) under %s", gpu_status_get_name(st),
                      gpu_last_error_get_cuda_result(), check);
            snprintf(needle, sizeof(needle),
                     "kernel \"read_uninit\": block (0,0,0) thread (32,0,0): PTX line %u: read of 4 bytes at global "
                     "address 0x%llx: its byte at 0x%llx was never written", ptx_line(ptx, "read_uninit(", "ld.global"),
                     (unsigned long long)(p + 128), (unsigned long long)(p + 128));
            expect_text("read_uninit", text, needle);
            if (reports != 1)
                failf("read_uninit", "%d reports, expected one for the launch", reports);
        }
        free(text);
        /* The kernel's own writes count: its output, read back by a second launch, is not reported. */
        if (gpu_buffer_copy_from_host(d, data, sizeof(data)) != GPU_OK)
            failf("read_uninit", "copy: %s", gpu_last_error_get_message());
        text = launch_captured("read_uninit", 64, args, &st);
        free(text);
        {
            void *args2[] = {&po, &p};

            text = launch_captured("read_uninit", 64, args2, &st);
            if (st != GPU_OK || (text && strstr(text, "uninitialised")))
                failf("read_uninit", "a read of what a kernel wrote: %s, %s", gpu_status_get_name(st), text ? text : "");
            free(text);
        }
        gpu_buffer_destroy(o);

        text = launch_captured("shared_uninit", 64, args, &st);
        if (init) {
            snprintf(needle, sizeof(needle),
                     "kernel \"shared_uninit\": block (0,0,0) thread (0,0,0): PTX line %u: read of 4 bytes at shared offset",
                     ptx_line(ptx, "shared_uninit(", "ld.shared"));
            expect_text("shared_uninit", text, needle);
            expect_text("shared_uninit", text, "was never written by a thread of the block: uninitialised shared memory");
        } else if (st != GPU_OK || (text && text[0])) {
            failf("shared_uninit", "without the init check: %s", gpu_status_get_name(st));
        }
        free(text);
    }
    gpu_buffer_destroy(d);

    /* A spin that cannot end: the watchdog (GPUSHIM_FAKE_WATCHDOG=1 here) stops it, naming the loop's branch. */
    memset(data, 0, sizeof(data));
    d = upload(data, sizeof(data));
    p = B(d);
    {
        void *args[] = {&p};

        text = launch_captured("spin_forever", 64, args, &st);
        if (st == GPU_OK || gpu_last_error_get_cuda_result() != 702)
            failf("spin_forever", "the launch gave %s (CUresult %d), expected CUDA_ERROR_LAUNCH_TIMEOUT", gpu_status_get_name(st),
                  gpu_last_error_get_cuda_result());
        snprintf(needle, sizeof(needle), "kernel \"spin_forever\": block (0,0,0) thread (0,0,0): PTX line %u: no progress",
                 ptx_line(ptx, "spin_forever(", "bra"));
        expect_text("spin_forever", text, needle);
        free(text);
    }
    gpu_buffer_destroy(d);
    gpu_module_destroy(module);
    module = NULL;
    printf("%s %s: checks%s%s\n", failures ? "FAIL" : "PASS", name, race ? " with the race check" : "",
           strict ? " with the strict init check" : init ? " with the init check" : "");
}

static void run_corpus(const char *name, const char *ptx)
{
    int before = failures;

    variant = name;
    if (!ptx) {
        failf("(compile)", "no PTX");
        return;
    }
    if (gpu_module_load_data(NULL, ptx, strlen(ptx) + 1, &module) != GPU_OK) {
        failf("(load)", "%s", gpu_last_error_get_message());
        return;
    }
    vector_add();
    saxpy();
    matmul();
    reduce_tree();
    reduce_shfl();
    histogram();
    scan();
    transpose();
    softmax();
    softmax_half();
    hello_printf();
    fib_kernel();
    warp_ops();
    bit_ops();
    math_ops();
    atomics();
    grid_sync(ptx);
    half_warp(ptx);
    clusters(ptx);
    gpu_module_destroy(module);
    module = NULL;
    printf("%s %s: %d kernels\n", failures == before ? "PASS" : "FAIL", name,
           16 + 2 * !!strstr(ptx, ".entry grid_sync_sum") + 2 * !!strstr(ptx, ".entry cluster_exchange"));
}

int main(int argc, char **argv)
{
    char src[4096], dir[] = "/tmp/gpushim-corpus-XXXXXX";
    const char *nvcc, *mode;
    bool want_nvcc, want_nvrtc, checks, ran = false;
    gpu_context *ctx = NULL;
    int count = 0;

    if (argc != 4) {
        fprintf(stderr, "usage: %s SRC_DIR NVCC nvcc|nvrtc|all\n", argv[0]);
        return 2;
    }
    nvcc = argv[2];
    mode = argv[3];
    checks = strcmp(mode, "checks") == 0;
    snprintf(src, sizeof(src), "%s/%s", argv[1], checks ? "checks.cu" : "kernels.cu");
    want_nvcc = strcmp(mode, "nvrtc") != 0;
    want_nvrtc = strcmp(mode, "nvcc") != 0;
    if (gpu_device_get_count(&count) != GPU_OK || count < 1 || gpu_context_retain_primary(0, &ctx) != GPU_OK) {
        printf("SKIP: no device: %s\n", gpu_last_error_get_message());
        return SKIP;
    }
    if (gpu_stream_create(ctx, &stream) != GPU_OK) {
        fprintf(stderr, "gpu_stream_create: %s\n", gpu_last_error_get_message());
        return 1;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (want_nvcc && nvcc[0] && access(nvcc, X_OK) == 0) {
        static const struct {
            const char *opt;
            int arch;
        } builds[] = {{"-O3", 75}, {"-O3", 90}, {"-G", 75}};

        for (size_t i = 0; i < (checks ? 1 : sizeof(builds) / sizeof(builds[0])); i++) {
            char name[32], *ptx = nvcc_ptx(nvcc, builds[i].opt, src, dir, builds[i].arch);

            snprintf(name, sizeof(name), "nvcc%s-compute_%d", builds[i].opt, builds[i].arch);
            (checks ? run_checks : run_corpus)(name, ptx);
            free(ptx);
            ran = true;
        }
    }
    if (want_nvrtc && !(checks && ran) && gpu_compiler_load() == GPU_OK) {
        char *ptx = nvrtc_ptx(src, checks ? "checks.cu" : "kernels.cu");

        (checks ? run_checks : run_corpus)("nvrtc-compute_75", ptx);
        free(ptx);
        ran = true;
    }
    rmdir(dir);
    gpu_stream_destroy(stream);
    gpu_context_destroy(ctx);
    if (!ran) {
        printf("SKIP: no compiler (nvcc: \"%s\"; NVRTC: %s)\n", nvcc, want_nvrtc ? "not loaded" : "not asked");
        return SKIP;
    }
    return failures ? 1 : 0;
}
