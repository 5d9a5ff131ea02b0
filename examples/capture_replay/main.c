/* SPDX-License-Identifier: MIT */
/*
 * capture_replay: captures a pipeline (copy in, affine, mirror_add, copy out)
 * on a stream into a graph, instantiates it once and replays it, with new
 * input each time; after every replay it checks every output element on the
 * host.
 *
 *   capture_replay [PTX [REPLAYS]]   PTX: pipeline.ptx by default; REPLAYS: 10
 *
 * The same binary runs on a GPU and, with GPUSHIM_LIBCUDA naming gpushim's
 * fake driver and GPUSHIM_FAKE_KERNELS naming libpipeline_host.so, on a
 * machine without one. Exits 0 when every replay was right, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpushim/gpushim.h>

enum { N = 65536 + 5, BLOCK = 128, MUL = 3, ADD = 1 };

/* What the pipeline makes of input in: out[i] = f(in[i]) + f(in[n - 1 - i]), f(v) = v * MUL + ADD. */
static int check(unsigned replay, const uint32_t *in, const uint32_t *out)
{
    for (unsigned i = 0; i < N; i++) {
        uint32_t want = (in[i] * MUL + ADD) + (in[N - 1 - i] * MUL + ADD);

        if (out[i] != want) {
            fprintf(stderr, "capture_replay: replay %u: out[%u] = %u, want %u\n", replay, i, out[i], want);
            return 1;
        }
    }
    return 0;
}

struct pipeline {
    gpu_context *ctx;
    gpu_stream *stream;
    gpu_module *module;
    gpu_host_buffer *in, *out; /* page-locked, so the graph's copies are truly asynchronous */
    gpu_buffer *x, *y;
    gpu_graph *graph;
    gpu_graph_exec *exec;
};

static int fail(const char *what, gpu_status st)
{
    fprintf(stderr, "capture_replay: %s: %s: %s\n", what, gpu_status_get_name(st), gpu_last_error_get_message());
    return 1;
}

/* Records the pipeline's four steps on p->stream (into the graph while it is captured). */
static gpu_status enqueue(struct pipeline *p)
{
    size_t bytes = (size_t)N * sizeof(uint32_t);
    uint64_t x = gpu_buffer_get_device_ptr(p->x), y = gpu_buffer_get_device_ptr(p->y);
    unsigned n = N, mul = MUL, add = ADD;
    void *affine_args[] = {&x, &mul, &add, &n};
    void *mirror_args[] = {&y, &x, &n};
    gpu_launch_config config = gpu_launch_config_1d((N + BLOCK - 1) / BLOCK, BLOCK);
    gpu_status st;

    /* The driver copies the arguments at each launch call, so locals are fine here. */
    if ((st = gpu_buffer_copy_from_host_async(p->x, gpu_host_buffer_get_data(p->in), bytes, p->stream)) != GPU_OK ||
        (st = gpu_stream_launch_kernel(p->stream, p->module, "affine", &config, affine_args)) != GPU_OK ||
        (st = gpu_stream_launch_kernel(p->stream, p->module, "mirror_add", &config, mirror_args)) != GPU_OK)
        return st;
    return gpu_buffer_copy_to_host_async(p->y, gpu_host_buffer_get_data(p->out), bytes, p->stream);
}

/* Sets up p and captures the pipeline into p->exec. */
static int build(struct pipeline *p, const char *ptx)
{
    size_t bytes = (size_t)N * sizeof(uint32_t);
    gpu_status st;

    if ((st = gpu_context_retain_primary(0, &p->ctx)) != GPU_OK ||
        /* Capture belongs on a non-blocking stream: see gpu_stream_begin_capture(). */
        (st = gpu_stream_create_non_blocking(p->ctx, &p->stream)) != GPU_OK ||
        (st = gpu_module_load_file(p->ctx, ptx, &p->module)) != GPU_OK ||
        (st = gpu_host_buffer_create(p->ctx, bytes, &p->in)) != GPU_OK ||
        (st = gpu_host_buffer_create(p->ctx, bytes, &p->out)) != GPU_OK ||
        (st = gpu_buffer_create(p->ctx, bytes, &p->x)) != GPU_OK ||
        (st = gpu_buffer_create(p->ctx, bytes, &p->y)) != GPU_OK)
        return fail("setting up", st);
    if ((st = gpu_stream_begin_capture(p->stream, GPU_CAPTURE_MODE_THREAD_LOCAL)) != GPU_OK)
        return fail("gpu_stream_begin_capture", st);
    st = enqueue(p);
    /* End the capture also when a step failed, so the stream is usable again. */
    gpu_status end = gpu_stream_end_capture(p->stream, &p->graph);
    if (st != GPU_OK)
        return fail("capturing the pipeline", st);
    if (end != GPU_OK)
        return fail("gpu_stream_end_capture", end);
    if ((st = gpu_graph_instantiate(p->graph, &p->exec)) != GPU_OK)
        return fail("gpu_graph_instantiate", st);
    return 0;
}

static int replay(struct pipeline *p, unsigned replays)
{
    uint32_t *in = gpu_host_buffer_get_data(p->in);
    const uint32_t *out = gpu_host_buffer_get_data(p->out);
    gpu_status st;

    for (unsigned r = 0; r < replays; r++) {
        for (unsigned i = 0; i < N; i++)
            in[i] = i * 2654435761u + r; /* new input each replay: the graph reads it at each launch */
        if ((st = gpu_stream_launch_graph(p->stream, p->exec)) != GPU_OK ||
            (st = gpu_stream_synchronize(p->stream)) != GPU_OK) {
            char what[64];

            snprintf(what, sizeof(what), "replay %u", r);
            return fail(what, st);
        }
        if (check(r, in, out))
            return 1;
    }
    printf("capture_replay: ok: %u replays of one graph (copy in, affine, mirror_add, copy out), "
           "%u elements checked after each, with %s\n",
           replays, (unsigned)N, gpu_driver_get_report()->file);
    return 0;
}

static void release(struct pipeline *p)
{
    gpu_graph_exec_destroy(p->exec);
    gpu_graph_destroy(p->graph);
    gpu_buffer_destroy(p->y);
    gpu_buffer_destroy(p->x);
    gpu_host_buffer_destroy(p->out);
    gpu_host_buffer_destroy(p->in);
    gpu_module_destroy(p->module);
    gpu_stream_destroy(p->stream);
    gpu_context_destroy(p->ctx);
}

int main(int argc, char **argv)
{
    const char *ptx = argc > 1 ? argv[1] : "pipeline.ptx";
    unsigned long replays = 10;
    char *end = NULL;
    struct pipeline p = {0};
    int rc;

    if (argc > 2)
        replays = strtoul(argv[2], &end, 10);
    if (argc > 3 || (end && (*end || end == argv[2] || replays == 0 || replays > 1000000))) {
        fprintf(stderr, "usage: capture_replay [PTX [REPLAYS]]   (REPLAYS: 1 to 1000000)\n");
        return 64;
    }
    rc = build(&p, ptx);
    if (rc == 0)
        rc = replay(&p, (unsigned)replays);
    release(&p);
    return rc;
}
