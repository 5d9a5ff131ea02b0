/* SPDX-License-Identifier: MIT */
/*
 * The consumer program: built against an installed gpushim by CMake,
 * pkg-config and Meson (see run.sh), then run.
 *
 * With GPUSHIM_LIBCUDA naming a file that does not exist, every call that
 * needs the driver must fail with GPU_ERR_NO_DRIVER and a message naming that
 * file. With any other driver (the fake, a real one) a stream and a buffer must
 * work: 4096 words copied in and back out unchanged. Exits 0 when what it saw is
 * right, 1 otherwise, saying why on stderr.
 */
#define _POSIX_C_SOURCE 200809L /* access() under -std=c11 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpushim/gpushim.h>

enum { WORDS = 4096 };

static int fail(const char *what, gpu_status st)
{
    fprintf(stderr, "consumer: %s: %s: %s\n", what, gpu_status_get_name(st), gpu_last_error_get_message());
    return 1;
}

static int expect_no_driver(const char *path)
{
    gpu_stream *stream = NULL;
    gpu_status st = gpu_stream_create(NULL, &stream);
    const gpu_load_report *r = gpu_driver_get_report();

    if (st != GPU_ERR_NO_DRIVER || stream)
        return fail("gpu_stream_create without a driver should be GPU_ERR_NO_DRIVER", st);
    if (!strstr(gpu_last_error_get_message(), path)) {
        fprintf(stderr, "consumer: the error does not name %s: '%s'\n", path, gpu_last_error_get_message());
        return 1;
    }
    if (r->stage != GPU_LOAD_OPEN || r->attempt_count != 1) {
        fprintf(stderr, "consumer: load report: stage %s, %zu attempts; want open, 1\n",
                gpu_load_stage_get_name(r->stage), r->attempt_count);
        return 1;
    }
    printf("consumer: ok: GPU_ERR_NO_DRIVER: %s\n", gpu_last_error_get_message());
    return 0;
}

static int expect_round_trip(void)
{
    static uint32_t in[WORDS], out[WORDS];
    gpu_stream *stream = NULL;
    gpu_buffer *buf = NULL;
    gpu_status st;
    int rc = 1;

    for (uint32_t i = 0; i < WORDS; i++)
        in[i] = i * 2654435761u;
    st = gpu_stream_create(NULL, &stream);
    if (st != GPU_OK)
        return fail("gpu_stream_create", st);
    st = gpu_buffer_create(NULL, sizeof(in), &buf);
    if (st == GPU_OK)
        st = gpu_buffer_copy_from_host(buf, in, sizeof(in));
    if (st == GPU_OK)
        st = gpu_buffer_copy_to_host(buf, out, sizeof(out));
    if (st == GPU_OK)
        st = gpu_stream_synchronize(stream);
    if (st != GPU_OK)
        fail("buffer round trip", st);
    else if (memcmp(in, out, sizeof(in)) != 0)
        fprintf(stderr, "consumer: the words came back changed\n");
    else
        rc = 0;
    if (rc == 0)
        printf("consumer: ok: %d words through %s\n", WORDS, gpu_driver_get_report()->file);
    gpu_buffer_destroy(buf);
    gpu_stream_destroy(stream);
    return rc;
}

int main(void)
{
    const char *lib = getenv("GPUSHIM_LIBCUDA");

    if (GPUSHIM_VERSION_MAJOR != 1) {
        fprintf(stderr, "consumer: built against gpushim %d.%d, want 1.x\n", GPUSHIM_VERSION_MAJOR,
                GPUSHIM_VERSION_MINOR);
        return 1;
    }
    if (strcmp(gpu_status_get_name(GPU_ERR_NO_DRIVER), "GPU_ERR_NO_DRIVER") != 0) {
        fprintf(stderr, "consumer: gpu_status_get_name(GPU_ERR_NO_DRIVER) is '%s'\n", gpu_status_get_name(GPU_ERR_NO_DRIVER));
        return 1;
    }
    if (lib && access(lib, F_OK) != 0)
        return expect_no_driver(lib);
    return expect_round_trip();
}
