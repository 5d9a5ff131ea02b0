/* SPDX-License-Identifier: MIT */
/*
 * vector_add: adds two vectors on the GPU with the kernel in vector_add.cu
 * and checks every element on the host.
 *
 *   vector_add [PTX]     PTX: the kernel's PTX file (default vector_add.ptx)
 *
 * The same binary runs on a GPU and, with GPUSHIM_LIBCUDA naming gpushim's
 * fake driver and GPUSHIM_FAKE_KERNELS naming libvector_add_host.so, on a
 * machine without one. Prints one line saying what it saw; exits 0 when every
 * element is right, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpushim/gpushim.h>

enum { N = (1 << 20) + 3, BLOCK = 256 }; /* not a multiple of BLOCK: the kernel's bound check matters */

static int fail(const char *what, gpu_status st)
{
    fprintf(stderr, "vector_add: %s: %s: %s\n", what, gpu_status_get_name(st), gpu_last_error_get_message());
    return 1;
}

/* Checks c against a + b; prints the first wrong element. */
static int check(const float *a, const float *b, const float *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) {
            fprintf(stderr, "vector_add: c[%u] = %g, want %g + %g = %g\n", i, c[i], a[i], b[i], a[i] + b[i]);
            return 1;
        }
    }
    return 0;
}

static int run(const char *ptx, float *a, float *b, float *c)
{
    gpu_context *ctx = NULL;
    gpu_stream *stream = NULL;
    gpu_module *module = NULL;
    gpu_buffer *da = NULL, *db = NULL, *dc = NULL;
    size_t bytes = (size_t)N * sizeof(float);
    unsigned n = N;
    uint64_t pa, pb, pc;
    void *args[] = {&pa, &pb, &pc, &n};
    gpu_launch_config config = gpu_launch_config_1d((N + BLOCK - 1) / BLOCK, BLOCK);
    int rc = 1;
    gpu_status st;

    if ((st = gpu_context_retain_primary(0, &ctx)) != GPU_OK) {
        fail("gpu_context_retain_primary", st);
        goto out;
    }
    if ((st = gpu_stream_create(ctx, &stream)) != GPU_OK || (st = gpu_module_load_file(ctx, ptx, &module)) != GPU_OK ||
        (st = gpu_buffer_create(ctx, bytes, &da)) != GPU_OK || (st = gpu_buffer_create(ctx, bytes, &db)) != GPU_OK ||
        (st = gpu_buffer_create(ctx, bytes, &dc)) != GPU_OK) {
        fail("setting up", st);
        goto out;
    }
    pa = gpu_buffer_get_device_ptr(da);
    pb = gpu_buffer_get_device_ptr(db);
    pc = gpu_buffer_get_device_ptr(dc);
    if ((st = gpu_buffer_copy_from_host_async(da, a, bytes, stream)) != GPU_OK ||
        (st = gpu_buffer_copy_from_host_async(db, b, bytes, stream)) != GPU_OK ||
        (st = gpu_stream_launch_kernel(stream, module, "vector_add", &config, args)) != GPU_OK ||
        (st = gpu_buffer_copy_to_host_async(dc, c, bytes, stream)) != GPU_OK ||
        (st = gpu_stream_synchronize(stream)) != GPU_OK) {
        fail("running vector_add", st);
        goto out;
    }
    rc = check(a, b, c, n);
    if (rc == 0)
        printf("vector_add: ok: %u elements, c[i] == a[i] + b[i] for every one, with %s\n", n,
               gpu_driver_get_report()->file);
out:
    gpu_buffer_destroy(dc);
    gpu_buffer_destroy(db);
    gpu_buffer_destroy(da);
    gpu_module_destroy(module);
    gpu_stream_destroy(stream);
    gpu_context_destroy(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    const char *ptx = argc > 1 ? argv[1] : "vector_add.ptx";
    float *a = malloc((size_t)N * sizeof(float)), *b = malloc((size_t)N * sizeof(float));
    float *c = calloc(N, sizeof(float));
    int rc = 1;

    if (argc > 2) {
        fprintf(stderr, "usage: vector_add [PTX]\n");
        rc = 64;
    } else if (!a || !b || !c) {
        fprintf(stderr, "vector_add: out of host memory\n");
    } else {
        for (unsigned i = 0; i < N; i++) {
            a[i] = (float)i;
            b[i] = (float)(2 * (N - i)); /* sums up to 3N, exact in a float */
        }
        rc = run(ptx, a, b, c);
    }
    free(c);
    free(b);
    free(a);
    return rc;
}
