/* SPDX-License-Identifier: MIT */
/*
 * faults: a program that handles running out of device memory and losing
 * its device, as a GPU program should. It copies a block of data through two
 * device buffers in chunks and checks that it came back unchanged.
 *
 *   faults [--data=SIZE] [--want=SIZE] [--min=SIZE]
 *     --data  bytes to copy through the device (default 16M)
 *     --want  the size of each of the two device buffers it asks for (default 4M)
 *     --min   the smallest size it accepts (default 64K)
 *   SIZE is bytes with an optional K, M or G suffix, or "over": the device's
 *   total memory plus 1M, more than it has.
 *
 * Out of memory: it frees what the failed attempt took and tries again with
 * buffers half the size, down to --min; if even those do not fit it says so and
 * exits 3. A lost device (a CUresult after which the device or its context
 * cannot be used): it says so, releases everything it holds and exits 4.
 *
 * Exit status: 0 copied and checked, 1 another failure (said on stderr), 2 no
 * usable driver or device, 3 out of memory, 4 device lost, 64 usage.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpushim/gpushim.h>

enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_NO_GPU = 2, EXIT_NO_MEMORY = 3, EXIT_LOST = 4, EXIT_USAGE = 64 };

/* A SIZE of "over": the device's total memory plus this. */
#define OVER ((size_t)1 << 20)

struct work {
    gpu_context *ctx;
    gpu_stream *stream;
    gpu_buffer *a, *b; /* each `size` bytes */
    size_t size;
};

/*
 * Whether the last failure says the device (or its context) is gone for good:
 * the driver's sticky errors, after which every call on the context fails.
 */
static bool device_lost(void)
{
    static const char *const lost[] = {
        "CUDA_ERROR_DEVICE_UNAVAILABLE", /* fell off the bus, or was taken away */
        "CUDA_ERROR_ECC_UNCORRECTABLE",
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "CUDA_ERROR_LAUNCH_FAILED",
        "CUDA_ERROR_HARDWARE_STACK_ERROR",
        "CUDA_ERROR_UNKNOWN", /* what a GPU that fell off the bus (Xid 79) gives */
    };
    const char *name = gpu_cuda_result_get_name(gpu_last_error_get_cuda_result());

    for (size_t i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
        if (strcmp(name, lost[i]) == 0)
            return true;
    return false;
}

/* Says what failed; returns the exit status for it. */
static int report(const char *what, gpu_status st)
{
    if (device_lost()) {
        printf("faults: device lost while %s: %s; releasing everything and exiting\n", what, gpu_last_error_get_message());
        return EXIT_LOST;
    }
    fprintf(stderr, "faults: %s: %s: %s\n", what, gpu_status_get_name(st), gpu_last_error_get_message());
    return st == GPU_ERR_NO_DRIVER || st == GPU_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_ERROR;
}

/* Half of size, in whole 4 KiB pages (the data is copied in chunks of this). */
static size_t half(size_t size)
{
    return size / 2 / 4096 * 4096;
}

/* Two device buffers of `want` bytes, or smaller on out-of-memory, down to `min`. */
static int allocate(struct work *w, size_t want, size_t min)
{
    size_t size = want;

    for (;;) {
        gpu_status st = gpu_buffer_create(w->ctx, size, &w->a);

        if (st == GPU_OK)
            st = gpu_buffer_create(w->ctx, size, &w->b);
        if (st == GPU_OK) {
            w->size = size;
            return EXIT_OK;
        }
        gpu_buffer_destroy(w->a); /* what this attempt took, so the next has it */
        w->a = NULL;
        if (st != GPU_ERR_OUT_OF_MEMORY)
            return report("allocating device buffers", st);
        if (half(size) < min || half(size) == 0) {
            printf("faults: out of memory: not even 2 x %zu bytes fit (%s)\n", size, gpu_last_error_get_message());
            return EXIT_NO_MEMORY;
        }
        printf("faults: out of memory for 2 x %zu bytes; retrying with 2 x %zu\n", size, half(size));
        size = half(size);
    }
}

/* Copies src to dst through the device, w->size bytes at a time. */
static int copy_through(struct work *w, const unsigned char *src, unsigned char *dst, size_t bytes)
{
    size_t chunks = 0;

    for (size_t off = 0; off < bytes; off += w->size, chunks++) {
        size_t n = bytes - off < w->size ? bytes - off : w->size;
        gpu_status st;

        if ((st = gpu_buffer_copy_from_host_async(w->a, src + off, n, w->stream)) != GPU_OK ||
            (st = gpu_buffer_copy_async(w->b, w->a, n, w->stream)) != GPU_OK ||
            (st = gpu_buffer_copy_to_host_async(w->b, dst + off, n, w->stream)) != GPU_OK ||
            (st = gpu_stream_synchronize(w->stream)) != GPU_OK)
            return report("copying", st);
    }
    if (memcmp(src, dst, bytes) != 0) {
        fprintf(stderr, "faults: the data came back changed\n");
        return EXIT_ERROR;
    }
    printf("faults: ok: %zu bytes through 2 x %zu-byte device buffers in %zu chunk%s, checked, with %s\n", bytes,
           w->size, chunks, chunks == 1 ? "" : "s", gpu_driver_get_report()->file);
    return EXIT_OK;
}

/* A SIZE option's value: *over for "over", else *out; false if it is neither. */
static bool parse_size(const char *text, size_t *out, bool *over)
{
    char *end;
    unsigned long long v;
    int shift = 0;

    *over = strcmp(text, "over") == 0;
    if (*over)
        return true;
    if (*text < '0' || *text > '9')
        return false;
    v = strtoull(text, &end, 10);
    switch (*end) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || v == 0 || v > (SIZE_MAX >> shift))
        return false;
    *out = (size_t)v << shift;
    return true;
}

enum { DATA, WANT, MIN, SIZE_OPTIONS };

struct options {
    size_t size[SIZE_OPTIONS];
    bool over[SIZE_OPTIONS];
};

static bool parse_options(int argc, char **argv, struct options *o)
{
    static const char *const names[SIZE_OPTIONS] = {"--data=", "--want=", "--min="};

    for (int i = 1; i < argc; i++) {
        int k = 0;

        while (k < SIZE_OPTIONS && strncmp(argv[i], names[k], strlen(names[k])) != 0)
            k++;
        if (k == SIZE_OPTIONS || !parse_size(argv[i] + strlen(names[k]), &o->size[k], &o->over[k])) {
            fprintf(stderr, "faults: %s: usage: faults [--data=SIZE] [--want=SIZE] [--min=SIZE] "
                            "(SIZE: bytes, with K, M or G, or \"over\")\n", argv[i]);
            return false;
        }
    }
    return true;
}

static int run(struct work *w, struct options *o)
{
    gpu_device_info info;
    unsigned char *src, *dst;
    gpu_status st;
    int rc;

    if ((st = gpu_context_retain_primary(0, &w->ctx)) != GPU_OK || (st = gpu_device_get_info(0, &info)) != GPU_OK ||
        (st = gpu_stream_create(w->ctx, &w->stream)) != GPU_OK)
        return report("setting up", st);
    for (int k = 0; k < SIZE_OPTIONS; k++)
        if (o->over[k])
            o->size[k] = info.total_memory + OVER;
    src = malloc(o->size[DATA]);
    dst = malloc(o->size[DATA]);
    if (!src || !dst) {
        fprintf(stderr, "faults: out of host memory for 2 x %zu bytes\n", o->size[DATA]);
        rc = EXIT_ERROR;
    } else {
        for (size_t i = 0; i < o->size[DATA]; i++)
            src[i] = (unsigned char)(i * 131 + (i >> 12));
        rc = allocate(w, o->size[WANT], o->size[MIN]);
        if (rc == EXIT_OK)
            rc = copy_through(w, src, dst, o->size[DATA]);
    }
    free(dst);
    free(src);
    return rc;
}

int main(int argc, char **argv)
{
    struct options o = {.size = {16 << 20, 4 << 20, 64 << 10}};
    struct work w = {0};
    int rc;

    if (!parse_options(argc, argv, &o))
        return EXIT_USAGE;
    rc = run(&w, &o);
    /* The same release on every path; on a lost device these calls fail, and that is all. */
    gpu_buffer_destroy(w.b);
    gpu_buffer_destroy(w.a);
    gpu_stream_destroy(w.stream);
    gpu_context_destroy(w.ctx);
    return rc;
}
