/* SPDX-License-Identifier: MIT */
/*
 * The cost of ordering, in aprender-gpu's serving shape: c worker
 * threads, each with its own stream, serve requests of copy in, kernel, copy
 * out, checked against the host's answer. Three ways to do it:
 *
 *   a  ordered stream + legacy synchronous copies: aprender-gpu's default.
 *   b  non-blocking stream + legacy copies: aprender-gpu's racy opt-in.
 *   c  non-blocking stream + stream-ordered async copies on page-locked
 *      memory, then gpu_stream_synchronize: what gpushim recommends.
 *   d  c with two requests in flight a worker on its one stream: the worker
 *      writes the next request's input while the GPU serves this one, then
 *      waits for this one's event and checks it. Not aprender-gpu's shape: what
 *      a server does that wants the GPU busy, and what the stream's order
 *      (not a synchronisation) keeps right.
 *
 * For each c the modes take turns, in a rotating order, rep after rep, so
 * drift in clocks or temperature falls on all of them alike. Prints the median
 * requests/s of each, the ratios c/b, c/a, a/b, d/c, and the wrong outputs.
 * The target for c: no wrong output and at least 0.97x of b at c=8.
 *
 * The default request is the shape of tests/gpu/test_ordering.c, where the
 * racy mode is wrong only some of the time, as aprender-gpu measured it:
 * 1 Mi elements (4 MiB each way) and 2048 dependent steps each, a kernel of
 * about 0.15 ms on an H200 against copies of about as long. (A kernel much
 * longer than the copies makes mode b skip nearly all of the kernel's time,
 * since its copy out does not wait for it: b then measures a different,
 * always-wrong workload.)
 *
 * It then measures the bound for the same workload if the GPU were never
 * idle: the work kernel's time (back to back, on one stream and spread over
 * 8), the pinned copies' time (4 MiB in and 4 MiB out, both directions at
 * once, overlapped with the kernels), so a request costs at least the larger
 * of the two. Ours (c, and d) is printed as a fraction of that bound at each c, with
 * the host's own work a request (writing the input and checking the output,
 * on one thread: tests/support's loops, which a release build vectorizes),
 * which no GPU speed removes. A worker does its request's parts one after
 * another (aprender-gpu's shape: write, copy in, kernel, copy out, wait, check),
 * so c workers finish at most c requests in the time of one request's host
 * work in those runs (host_run_us, measured in c's workers) and its GPU parts
 * alone in turn (gpu_alone_us), and never more than the GPU-busy bound:
 * worker_bound_rps, and ours over it. Mode d's workers overlap their host
 * work with the GPU's, so d is bounded by the GPU alone, and by what the
 * host alone can do: c threads writing and checking requests at once, with
 * no GPU (host_only_rps; they share the host's memory bandwidth). The best of
 * c and d over the smaller of the two bounds is host_or_gpu_fraction:
 *
 *   ORDERING_BOUND c=8 bound_rps=.. gpushim_rps=.. fraction=.. kernel_us=.. copy_us=.. host_us=..
 *                  host_run_us=.. gpu_alone_us=.. worker_bound_rps=.. worker_fraction=..
 *                  two_in_flight_rps=.. two_in_flight_fraction=.. host_only_rps=..
 *                  host_or_gpu_bound_rps=.. host_or_gpu_fraction=..
 *
 * Knobs: GPUSHIM_BENCH_REPS, GPUSHIM_BENCH_REQUESTS (per worker and run),
 * GPUSHIM_BENCH_N (elements a request), GPUSHIM_BENCH_ITERS (work steps),
 * GPUSHIM_BOUND_BATCH (kernels or copies a bound measurement).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

enum mode { MODE_ORDERED, MODE_RACY, MODE_OURS, MODE_TWO_IN_FLIGHT, MODES };

static const char *const mode_label[MODES] = {
    "a ordered + legacy copies",
    "b non-blocking + legacy copies (racy)",
    "c non-blocking + async copies, pinned",
    "d as c, two requests in flight a worker",
};

/* Requests a worker has in flight at once. */
#define SLOTS 2

static const unsigned worker_counts[] = {1, 4, 8};
#define COUNTS (sizeof(worker_counts) / sizeof(worker_counts[0]))
#define MAX_REPS 64

struct run_spec {
    enum mode mode;
    unsigned requests;
    uint32_t n;
    uint32_t iters;
    work_map map;
    gpu_function *work;
    pthread_barrier_t start;
    pthread_barrier_t end;
};

struct worker {
    pthread_t thread;
    struct run_spec *spec;
    unsigned id;
    unsigned wrong;
    uint64_t host_ns; /* writing its inputs and checking its outputs, all its requests */
    bool failed;
    char error[512];
};

static bool worker_ok(struct worker *w, gpu_status st, const char *what)
{
    if (st == GPU_OK)
        return true;
    if (!w->failed)
        snprintf(w->error, sizeof(w->error), "%s: %s: %s", what, gpu_status_get_name(st), gpu_last_error_get_message());
    w->failed = true;
    return false;
}

/* One request's buffers: the host's and the device's. */
struct slot {
    gpu_buffer *d_in, *d_out;
    gpu_host_buffer *h_in, *h_out;
    uint32_t *in, *out;
    gpu_event *done; /* mode d: recorded after the request's copy out */
    uint32_t seed;
};

/* One request's three steps on `s`, the way `mode` does them; modes c and d only queue them. */
static bool serve(struct worker *w, gpu_stream *s, const struct slot *k)
{
    struct run_spec *sp = w->spec;
    size_t bytes = (size_t)sp->n * sizeof(uint32_t);
    uint64_t src = gpu_buffer_get_device_ptr(k->d_in), dst = gpu_buffer_get_device_ptr(k->d_out);
    uint32_t n = sp->n, iters = sp->iters;
    void *args[] = {&src, &dst, &n, &iters};
    gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(n), KERNEL_BLOCK);

    if (sp->mode == MODE_OURS || sp->mode == MODE_TWO_IN_FLIGHT)
        return worker_ok(w, gpu_buffer_copy_from_host_async(k->d_in, k->in, bytes, s), "copy in") &&
               worker_ok(w, gpu_stream_launch_function(s, sp->work, &config, args), "launch") &&
               worker_ok(w, gpu_buffer_copy_to_host_async(k->d_out, k->out, bytes, s), "copy out");
    return worker_ok(w, gpu_buffer_copy_from_host(k->d_in, k->in, bytes), "copy in") &&
           worker_ok(w, gpu_stream_launch_function(s, sp->work, &config, args), "launch") &&
           worker_ok(w, gpu_buffer_copy_to_host(k->d_out, k->out, bytes), "copy out");
}

/* Host work, timed into the worker's host_ns: writing a request's input. */
static void write_input(struct worker *w, struct slot *k, uint32_t seed)
{
    uint64_t t0 = gpu_test_now_ns();

    k->seed = seed;
    gpu_test_fill_input(k->in, w->spec->n, seed);
    w->host_ns += gpu_test_now_ns() - t0;
}

/* Host work, timed likewise: checking a request's output. */
static void check_output(struct worker *w, const struct slot *k)
{
    uint64_t t0 = gpu_test_now_ns();

    w->wrong += gpu_test_count_wrong(k->out, w->spec->n, k->seed, w->spec->map) != 0;
    w->host_ns += gpu_test_now_ns() - t0;
}

static bool slot_create(struct worker *w, struct slot *k, size_t bytes)
{
    enum mode mode = w->spec->mode;

    if (!worker_ok(w, gpu_buffer_create(NULL, bytes, &k->d_in), "buffer") ||
        !worker_ok(w, gpu_buffer_create(NULL, bytes, &k->d_out), "buffer"))
        return false;
    if (mode == MODE_TWO_IN_FLIGHT && !worker_ok(w, gpu_event_create(NULL, &k->done), "event"))
        return false;
    if (mode == MODE_OURS || mode == MODE_TWO_IN_FLIGHT) {
        if (!worker_ok(w, gpu_host_buffer_create(NULL, bytes, &k->h_in), "host buffer") ||
            !worker_ok(w, gpu_host_buffer_create(NULL, bytes, &k->h_out), "host buffer"))
            return false;
        k->in = gpu_host_buffer_get_data(k->h_in);
        k->out = gpu_host_buffer_get_data(k->h_out);
        return true;
    }
    k->in = malloc(bytes);
    k->out = malloc(bytes);
    return worker_ok(w, k->in && k->out ? GPU_OK : GPU_ERR_OUT_OF_MEMORY, "malloc");
}

static void slot_destroy(const struct slot *k)
{
    if (!k->h_in)
        free(k->in);
    if (!k->h_out)
        free(k->out);
    gpu_host_buffer_destroy(k->h_in);
    gpu_host_buffer_destroy(k->h_out);
    gpu_event_destroy(k->done);
    gpu_buffer_destroy(k->d_in);
    gpu_buffer_destroy(k->d_out);
}

/* Modes a, b and c: each request's parts one after another. */
static void serve_in_turn(struct worker *w, gpu_stream *s, struct slot *k)
{
    struct run_spec *sp = w->spec;

    for (unsigned r = 0; r < sp->requests; r++) {
        write_input(w, k, w->id * 7919u + r);
        if (!serve(w, s, k) || (sp->mode == MODE_OURS && !worker_ok(w, gpu_stream_synchronize(s), "synchronize")))
            return;
        check_output(w, k);
    }
}

/*
 * Mode d: request r is written and queued while r - 1 is on the GPU, then
 * r - 1 is waited for (its event) and checked. Request r reuses the slot of
 * r - 2, which was checked, so its copy out was done.
 */
static void serve_two_in_flight(struct worker *w, gpu_stream *s, struct slot k[SLOTS])
{
    unsigned requests = w->spec->requests;

    for (unsigned r = 0; r <= requests; r++) {
        struct slot *prev = r ? &k[(r - 1) % SLOTS] : NULL;

        if (r < requests) {
            struct slot *cur = &k[r % SLOTS];

            write_input(w, cur, w->id * 7919u + r);
            if (!serve(w, s, cur) || !worker_ok(w, gpu_stream_record_event(s, cur->done), "record"))
                return;
        }
        if (prev) {
            if (!worker_ok(w, gpu_event_synchronize(prev->done), "event synchronize"))
                return;
            check_output(w, prev);
        }
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct run_spec *sp = w->spec;
    size_t bytes = (size_t)sp->n * sizeof(uint32_t);
    unsigned flags = sp->mode == MODE_ORDERED ? GPU_STREAM_DEFAULT : GPU_STREAM_NON_BLOCKING;
    unsigned slots = sp->mode == MODE_TWO_IN_FLIGHT ? SLOTS : 1;
    struct slot k[SLOTS];
    gpu_stream *s = NULL;
    bool ready;

    /* Everything a worker needs is made before the clock starts. */
    memset(k, 0, sizeof(k));
    ready = worker_ok(w, gpu_stream_create_with_flags(NULL, flags, &s), "stream");
    for (unsigned i = 0; ready && i < slots; i++)
        ready = slot_create(w, &k[i], bytes);
    pthread_barrier_wait(&sp->start);
    if (ready && sp->mode == MODE_TWO_IN_FLIGHT)
        serve_two_in_flight(w, s, k);
    else if (ready)
        serve_in_turn(w, s, k);
    pthread_barrier_wait(&sp->end);
    /* After the clock: the racy mode may leave a kernel running on buffers about to go. */
    if (s)
        gpu_stream_synchronize(s);
    for (unsigned i = 0; i < slots; i++)
        slot_destroy(&k[i]);
    gpu_stream_destroy(s);
    return NULL;
}

/*
 * Runs `c` workers once; returns requests per second, adds the wrong outputs
 * to *wrong, and sets *host_ns to the host's work a request (the workers'
 * mean).
 */
static double run_once(struct run_spec *sp, unsigned c, unsigned seed, unsigned *wrong, double *host_ns)
{
    uint64_t host = 0;

    struct worker *w = calloc(c, sizeof(*w));
    uint64_t t0, t1;

    if (!w)
        bench_die("calloc", GPU_ERR_OUT_OF_MEMORY);
    pthread_barrier_init(&sp->start, NULL, c + 1);
    pthread_barrier_init(&sp->end, NULL, c + 1);
    for (unsigned i = 0; i < c; i++) {
        w[i].spec = sp;
        w[i].id = seed * 64 + i;
        if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0)
            bench_die("pthread_create", GPU_ERR_OUT_OF_MEMORY);
    }
    pthread_barrier_wait(&sp->start);
    t0 = gpu_test_now_ns();
    pthread_barrier_wait(&sp->end);
    t1 = gpu_test_now_ns();
    for (unsigned i = 0; i < c; i++)
        pthread_join(w[i].thread, NULL);
    pthread_barrier_destroy(&sp->start);
    pthread_barrier_destroy(&sp->end);
    for (unsigned i = 0; i < c; i++) {
        if (w[i].failed) {
            printf("FAILED: mode %s, worker %u: %s\n", mode_label[sp->mode], i, w[i].error);
            exit(1);
        }
        *wrong += w[i].wrong;
        host += w[i].host_ns;
    }
    *host_ns = (double)host / ((double)c * sp->requests);
    free(w);
    return (double)c * sp->requests / ((double)(t1 - t0) / 1e9);
}

/* What one request costs the GPU at the least, each part measured alone, in ns. */
struct bound {
    double kernel_ns;   /* the work kernel, best of back to back on one stream and spread over BOUND_STREAMS */
    double copy_ns;     /* one copy in and one copy out, the two directions running at once */
    double h2d_gbps;    /* each direction alone */
    double d2h_gbps;
    double host_ns;     /* writing one request's input and checking its output, one thread alone */
    double gpu_alone_ns; /* one request's GPU parts one after another: copy in, kernel, copy out */
    double host_rps[COUNTS]; /* requests/s of the host's work alone, on worker_counts[i] threads at once */
};

/*
 * The host's share of requests with no GPU at all: `count` threads at once,
 * each writing inputs and checking right outputs in page-locked buffers as
 * a worker does. Its requests/s is a ceiling for any worker shape on this
 * host: the threads share its memory bandwidth (and in a real run the copies
 * take their share of it too).
 */
struct host_only {
    pthread_t thread;
    const struct run_spec *spec;
    pthread_barrier_t *start;
    unsigned batch;
    unsigned wrong;
};

static void *host_only_main(void *arg)
{
    struct host_only *h = arg;
    size_t bytes = (size_t)h->spec->n * sizeof(uint32_t);
    gpu_host_buffer *in_buf = NULL, *out_buf = NULL;
    uint32_t *in, *out;

    BENCH_CHECK(gpu_host_buffer_create(NULL, bytes, &in_buf));
    BENCH_CHECK(gpu_host_buffer_create(NULL, bytes, &out_buf));
    in = gpu_host_buffer_get_data(in_buf);
    out = gpu_host_buffer_get_data(out_buf);
    for (uint32_t i = 0; i < h->spec->n; i++)
        out[i] = work_apply(h->spec->map, work_input(7, i));
    pthread_barrier_wait(h->start);
    for (unsigned r = 0; r < h->batch; r++) {
        gpu_test_fill_input(in, h->spec->n, 7);
        h->wrong += gpu_test_count_wrong(out, h->spec->n, 7, h->spec->map) != 0;
    }
    pthread_barrier_wait(h->start);
    gpu_host_buffer_destroy(in_buf);
    gpu_host_buffer_destroy(out_buf);
    return NULL;
}

static double host_only_rps(const struct run_spec *sp, unsigned count, unsigned batch)
{
    struct host_only *h = calloc(count, sizeof(*h));
    pthread_barrier_t start;
    unsigned wrong = 0;
    uint64_t t0;
    double secs;

    if (!h)
        bench_die("calloc", GPU_ERR_OUT_OF_MEMORY);
    pthread_barrier_init(&start, NULL, count + 1);
    for (unsigned i = 0; i < count; i++) {
        h[i] = (struct host_only){.spec = sp, .start = &start, .batch = batch};
        if (pthread_create(&h[i].thread, NULL, host_only_main, &h[i]) != 0)
            bench_die("pthread_create", GPU_ERR_OUT_OF_MEMORY);
    }
    pthread_barrier_wait(&start);
    t0 = gpu_test_now_ns();
    pthread_barrier_wait(&start);
    secs = (double)(gpu_test_now_ns() - t0) / 1e9;
    for (unsigned i = 0; i < count; i++) {
        pthread_join(h[i].thread, NULL);
        wrong += h[i].wrong;
    }
    pthread_barrier_destroy(&start);
    free(h);
    if (wrong) {
        printf("FAILED: the host's check of a right output found %u wrong\n", wrong);
        exit(1);
    }
    return (double)count * batch / secs;
}

#define BOUND_STREAMS 8
#define BOUND_TRIES 3

/* Seconds from the first call to the last stream's end: `batch` kernels round-robin over `k` streams. */
static double time_kernels(const struct run_spec *sp, gpu_stream **s, unsigned k, gpu_buffer **d, unsigned batch)
{
    uint32_t n = sp->n, iters = sp->iters;
    gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(n), KERNEL_BLOCK);
    uint64_t t0 = gpu_test_now_ns();

    for (unsigned i = 0; i < batch; i++) {
        uint64_t src = gpu_buffer_get_device_ptr(d[2 * (i % k)]), dst = gpu_buffer_get_device_ptr(d[2 * (i % k) + 1]);
        void *args[] = {&src, &dst, &n, &iters};

        BENCH_CHECK(gpu_stream_launch_function(s[i % k], sp->work, &config, args));
    }
    for (unsigned i = 0; i < k; i++)
        BENCH_CHECK(gpu_stream_synchronize(s[i]));
    return (double)(gpu_test_now_ns() - t0);
}

/* ns for `batch` copies in on s[0] (when h2d) and `batch` copies out on s[1] (when d2h), all at once. */
static double time_copies(gpu_stream **s, gpu_buffer **d, void *in, void *out, size_t bytes, unsigned batch,
                          bool h2d, bool d2h)
{
    uint64_t t0 = gpu_test_now_ns();

    for (unsigned i = 0; i < batch; i++) {
        if (h2d)
            BENCH_CHECK(gpu_buffer_copy_from_host_async(d[0], in, bytes, s[0]));
        if (d2h)
            BENCH_CHECK(gpu_buffer_copy_to_host_async(d[1], out, bytes, s[1]));
    }
    BENCH_CHECK(gpu_stream_synchronize(s[0]));
    BENCH_CHECK(gpu_stream_synchronize(s[1]));
    return (double)(gpu_test_now_ns() - t0);
}

static double smallest(double a, double b)
{
    return a < b ? a : b;
}

static void measure_bound(const struct run_spec *sp, unsigned batch, struct bound *b)
{
    size_t bytes = (size_t)sp->n * sizeof(uint32_t);
    gpu_stream *s[BOUND_STREAMS] = {NULL};
    gpu_buffer *d[2 * BOUND_STREAMS] = {NULL};
    gpu_host_buffer *h_in = NULL, *h_out = NULL;
    uint32_t *in, *out;
    double h2d = 1e300, d2h = 1e300;
    unsigned wrong = 0;
    uint64_t t0;

    for (unsigned i = 0; i < BOUND_STREAMS; i++) {
        BENCH_CHECK(gpu_stream_create_non_blocking(NULL, &s[i]));
        BENCH_CHECK(gpu_buffer_create(NULL, bytes, &d[2 * i]));
        BENCH_CHECK(gpu_buffer_create(NULL, bytes, &d[2 * i + 1]));
    }
    BENCH_CHECK(gpu_host_buffer_create(NULL, bytes, &h_in));
    BENCH_CHECK(gpu_host_buffer_create(NULL, bytes, &h_out));
    in = gpu_host_buffer_get_data(h_in);
    out = gpu_host_buffer_get_data(h_out);
    gpu_test_fill_input(in, sp->n, 1);

    b->kernel_ns = b->copy_ns = 1e300;
    /* Each a warm-up, then the best of BOUND_TRIES: a bound takes the GPU at its fastest. */
    time_kernels(sp, s, BOUND_STREAMS, d, BOUND_STREAMS);
    time_copies(s, d, in, out, bytes, 2, true, true);
    for (unsigned t = 0; t < BOUND_TRIES; t++) {
        b->kernel_ns = smallest(b->kernel_ns, time_kernels(sp, s, 1, d, batch) / batch);
        b->kernel_ns = smallest(b->kernel_ns, time_kernels(sp, s, BOUND_STREAMS, d, batch) / batch);
        b->copy_ns = smallest(b->copy_ns, time_copies(s, d, in, out, bytes, batch, true, true) / batch);
        h2d = smallest(h2d, time_copies(s, d, in, out, bytes, batch, true, false) / batch);
        d2h = smallest(d2h, time_copies(s, d, in, out, bytes, batch, false, true) / batch);
    }
    b->h2d_gbps = (double)bytes / h2d;
    b->d2h_gbps = (double)bytes / d2h;
    b->gpu_alone_ns = h2d + b->kernel_ns + d2h;

    /* The host's share of a request, as worker_main does it, on outputs that are right (so checked in full). */
    for (uint32_t i = 0; i < sp->n; i++)
        out[i] = work_apply(sp->map, work_input(7, i));
    t0 = gpu_test_now_ns();
    for (unsigned r = 0; r < batch; r++) {
        gpu_test_fill_input(in, sp->n, 7);
        wrong += gpu_test_count_wrong(out, sp->n, 7, sp->map) != 0;
    }
    b->host_ns = (double)(gpu_test_now_ns() - t0) / batch;
    if (wrong) {
        printf("FAILED: the host's check of a right output found %u wrong\n", wrong);
        exit(1);
    }
    /* The best of BOUND_TRIES, as for the GPU's parts. */
    for (size_t ci = 0; ci < COUNTS; ci++) {
        b->host_rps[ci] = 0;
        for (unsigned t = 0; t < BOUND_TRIES; t++) {
            double rps = host_only_rps(sp, worker_counts[ci], batch);

            b->host_rps[ci] = rps > b->host_rps[ci] ? rps : b->host_rps[ci];
        }
    }

    gpu_host_buffer_destroy(h_in);
    gpu_host_buffer_destroy(h_out);
    for (unsigned i = 0; i < 2 * BOUND_STREAMS; i++)
        gpu_buffer_destroy(d[i]);
    for (unsigned i = 0; i < BOUND_STREAMS; i++)
        gpu_stream_destroy(s[i]);
}

/*
 * The bound, and ours (c's median requests/s at each worker count, and d's)
 * as a fraction of it; `host` is c's host work a request in those runs.
 */
static void print_bound(const struct bound *b, const double ours[COUNTS], const double host[COUNTS],
                        const double two[COUNTS])
{
    double per_request = b->kernel_ns > b->copy_ns ? b->kernel_ns : b->copy_ns;
    double bound_rps = 1e9 / per_request;

    printf("\nbound if the GPU were never idle: a request costs max(kernel %.1f us, copies in and out at once %.1f us) "
           "= %.1f us, %.0f requests/s (%s-bound); pinned copies alone: in %.1f GB/s, out %.1f GB/s; the host's work "
           "a request (input and check, one thread alone): %.1f us; a request's GPU parts in turn: %.1f us\n",
           b->kernel_ns / 1e3, b->copy_ns / 1e3, per_request / 1e3, bound_rps,
           b->kernel_ns > b->copy_ns ? "kernel" : "copy", b->h2d_gbps, b->d2h_gbps, b->host_ns / 1e3,
           b->gpu_alone_ns / 1e3);
    for (size_t ci = 0; ci < COUNTS; ci++) {
        double worker_rps = worker_counts[ci] * 1e9 / (host[ci] + b->gpu_alone_ns);
        double both = b->host_rps[ci] < bound_rps ? b->host_rps[ci] : bound_rps;

        if (worker_rps > bound_rps)
            worker_rps = bound_rps;
        printf("ORDERING_BOUND c=%u bound_rps=%.1f gpushim_rps=%.1f fraction=%.4f kernel_us=%.2f copy_us=%.2f "
               "h2d_gbps=%.2f d2h_gbps=%.2f host_us=%.2f host_run_us=%.2f gpu_alone_us=%.2f worker_bound_rps=%.1f "
               "worker_fraction=%.4f two_in_flight_rps=%.1f two_in_flight_fraction=%.4f host_only_rps=%.1f "
               "host_or_gpu_bound_rps=%.1f host_or_gpu_fraction=%.4f\n",
               worker_counts[ci], bound_rps, ours[ci], ours[ci] / bound_rps, b->kernel_ns / 1e3, b->copy_ns / 1e3,
               b->h2d_gbps, b->d2h_gbps, b->host_ns / 1e3, host[ci] / 1e3, b->gpu_alone_ns / 1e3, worker_rps,
               ours[ci] / worker_rps, two[ci], two[ci] / bound_rps, b->host_rps[ci], both,
               (ours[ci] > two[ci] ? ours[ci] : two[ci]) / both);
        if (worker_counts[ci] == 8)
            printf("target at c=8 (>= 0.8 of the bound): c %s (%.2f), d %s (%.2f)\n",
                   ours[ci] / bound_rps >= 0.8 ? "met" : "NOT met", ours[ci] / bound_rps,
                   two[ci] / bound_rps >= 0.8 ? "met" : "NOT met", two[ci] / bound_rps);
    }
}

int main(void)
{
    unsigned reps = gpu_test_env("GPUSHIM_BENCH_REPS", 5);
    unsigned requests = gpu_test_env("GPUSHIM_BENCH_REQUESTS", 300);
    uint32_t n = gpu_test_env("GPUSHIM_BENCH_N", 1u << 20);
    uint32_t iters = gpu_test_env("GPUSHIM_BENCH_ITERS", 2048);
    static double rps[MODES][COUNTS][MAX_REPS], host[MODES][COUNTS][MAX_REPS];
    unsigned wrong[MODES][COUNTS];
    double ours[COUNTS], ours_host[COUNTS], two[COUNTS];
    struct run_spec spec;
    struct bound bound;
    unsigned seed = 1;

    if (!bench_gpu_ready("ordering"))
        return BENCH_SKIP;
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    memset(wrong, 0, sizeof(wrong));
    memset(&spec, 0, sizeof(spec));
    spec.n = n;
    spec.iters = iters;
    spec.map = work_map_for(iters);
    spec.work = bench_function(KERNEL_WORK);
    printf("ordering: %u reps x %u requests a worker; a request: %u elements (%zu KiB) in, work kernel of %u "
           "steps, out\n",
           reps, requests, n, (size_t)n * 4 / 1024, iters);

    /* A short run of each mode first: JIT, first allocations and the copy paths' warm-up are not measured. */
    for (int m = 0; m < MODES; m++) {
        unsigned ignored = 0;
        double unused;

        spec.mode = (enum mode)m;
        spec.requests = requests < 10 ? requests : 10;
        run_once(&spec, 2, seed++, &ignored, &unused);
    }
    spec.requests = requests;
    for (unsigned rep = 0; rep < reps; rep++)
        for (size_t ci = 0; ci < COUNTS; ci++)
            for (int k = 0; k < MODES; k++) {
                int m = (int)((rep + ci + (unsigned)k) % MODES);

                spec.mode = (enum mode)m;
                rps[m][ci][rep] = run_once(&spec, worker_counts[ci], seed++, &wrong[m][ci], &host[m][ci][rep]);
            }

    printf("\nmedian requests/s over %u reps (min..max); wrong = requests whose output differed from the host's\n",
           reps);
    for (int m = 0; m < MODES; m++)
        printf("  %s\n", mode_label[m]);
    printf("%3s | %22s | %22s | %22s | %22s | %6s | %6s | %6s | %6s | %8s | %8s | %8s | %8s\n", "c", "a req/s",
           "b req/s", "c req/s", "d req/s", "c/b", "c/a", "a/b", "d/c", "wrong a", "wrong b", "wrong c", "wrong d");
    for (size_t ci = 0; ci < COUNTS; ci++) {
        double med[MODES];
        char cell[MODES][64];
        unsigned total = reps * requests * worker_counts[ci];

        for (int m = 0; m < MODES; m++) {
            double lo = gpu_test_min(rps[m][ci], reps), hi = gpu_test_max(rps[m][ci], reps);

            med[m] = gpu_test_median(rps[m][ci], reps);
            snprintf(cell[m], sizeof(cell[m]), "%.0f (%.0f..%.0f)", med[m], lo, hi);
        }
        ours[ci] = med[MODE_OURS];
        ours_host[ci] = gpu_test_median(host[MODE_OURS][ci], reps);
        two[ci] = med[MODE_TWO_IN_FLIGHT];
        printf("%3u | %22s | %22s | %22s | %22s | %6.3f | %6.3f | %6.3f | %6.3f | %8u | %8u | %8u | %8u\n",
               worker_counts[ci], cell[0], cell[1], cell[2], cell[3], med[MODE_OURS] / med[MODE_RACY],
               med[MODE_OURS] / med[MODE_ORDERED], med[MODE_ORDERED] / med[MODE_RACY], two[ci] / med[MODE_OURS],
               wrong[0][ci], wrong[1][ci], wrong[2][ci], wrong[3][ci]);
        printf("ORDERING_BENCH c=%u requests=%u a_rps=%.1f b_rps=%.1f c_rps=%.1f d_rps=%.1f c_over_b=%.4f "
               "c_over_a=%.4f a_over_b=%.4f d_over_c=%.4f wrong_a=%u wrong_b=%u wrong_c=%u wrong_d=%u\n",
               worker_counts[ci], total, med[0], med[1], med[2], med[3], med[2] / med[1], med[2] / med[0],
               med[0] / med[1], med[3] / med[2], wrong[0][ci], wrong[1][ci], wrong[2][ci], wrong[3][ci]);
        if (worker_counts[ci] == 8)
            printf("target at c=8 (c wrong 0 and c/b >= 0.97): %s\n",
                   wrong[MODE_OURS][ci] == 0 && med[MODE_OURS] / med[MODE_RACY] >= 0.97 ? "met" : "NOT met");
    }

    measure_bound(&spec, gpu_test_env("GPUSHIM_BOUND_BATCH", 100), &bound);
    print_bound(&bound, ours, ours_host, two);
    return 0;
}
