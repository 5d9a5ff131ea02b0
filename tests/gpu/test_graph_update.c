/* SPDX-License-Identifier: MIT */
/*
 * Graphs, further, on the GPU: capture info during a capture, an
 * update from a new capture of the same shape that changes a kernel argument
 * (the replay writes the new value), an update of another shape refused with
 * the reason, an upload before the first launch, and the DOT of a graph.
 * Figures on lines starting "GRAPH_UPDATE ".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

enum { N = 4096 };

static uint32_t host[N];

static gpu_graph *capture_fills(gpu_stream *s, gpu_buffer *b, uint32_t value, int kernels, uint64_t *id)
{
    gpu_capture_status status = GPU_CAPTURE_STATUS_NONE;
    gpu_graph *g;

    assert_gpu_ok(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_GLOBAL));
    assert_gpu_ok(gpu_stream_get_capture_info(s, &status, id));
    assert_int_equal(status, GPU_CAPTURE_STATUS_ACTIVE);
    assert_true(*id != 0);
    for (int i = 0; i < kernels; i++)
        assert_gpu_ok(gpu_test_launch_fill(s, b, value + (uint32_t)i, N));
    assert_gpu_ok(gpu_stream_end_capture(s, &g));
    return g;
}

static void expect_all(uint32_t want)
{
    for (uint32_t i = 0; i < N; i++)
        if (host[i] != want)
            fail_msg("word %u is 0x%x, not 0x%x", i, host[i], want);
}

static void update_upload_dot(void **state)
{
    gpu_capture_status status = GPU_CAPTURE_STATUS_ACTIVE;
    uint64_t id1 = 0, id2 = 0, id3 = 0, none = 7;
    gpu_graph *g1, *g2, *g3;
    gpu_graph_exec *x;
    gpu_stream *s;
    gpu_buffer *b;
    char path[] = "/tmp/gpushim-graph-XXXXXX";
    char text[4096] = {0};
    size_t len;
    FILE *f;
    int fd;

    (void)state;
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_buffer_create(NULL, sizeof(host), &b));
    assert_gpu_ok(gpu_stream_get_capture_info(s, &status, &none));
    assert_int_equal(status, GPU_CAPTURE_STATUS_NONE);
    assert_int_equal(none, 0);
    g1 = capture_fills(s, b, 0x111, 1, &id1);
    g2 = capture_fills(s, b, 0x222, 1, &id2);
    g3 = capture_fills(s, b, 0x333, 2, &id3);
    assert_true(id1 != id2 && id2 != id3);

    assert_gpu_ok(gpu_graph_instantiate(g1, &x));
    assert_gpu_ok(gpu_graph_exec_upload(x, s));
    assert_gpu_ok(gpu_stream_launch_graph(s, x));
    assert_gpu_ok(gpu_buffer_copy_to_host_async(b, host, sizeof(host), s));
    assert_gpu_ok(gpu_stream_synchronize(s));
    expect_all(0x111);
    /* Same shape, another argument: the replay writes the new value. */
    assert_gpu_ok(gpu_graph_exec_update(x, g2));
    assert_gpu_ok(gpu_stream_launch_graph(s, x));
    assert_gpu_ok(gpu_buffer_copy_to_host_async(b, host, sizeof(host), s));
    assert_gpu_ok(gpu_stream_synchronize(s));
    expect_all(0x222);
    /* Two kernels for one: refused, saying why; the executable graph still runs what it did. */
    assert_gpu_status(gpu_graph_exec_update(x, g3), GPU_ERR_GRAPH_LAUNCH);
    printf("GRAPH_UPDATE refused (another shape): %s\n", gpu_last_error_get_message());
    assert_int_equal(gpu_last_error_get_cuda_result(), 910);
    assert_non_null(strstr(gpu_last_error_get_message(), "CU_GRAPH_EXEC_UPDATE_ERROR"));
    assert_gpu_ok(gpu_test_launch_fill(s, b, 0, N));
    assert_gpu_ok(gpu_stream_launch_graph(s, x));
    assert_gpu_ok(gpu_buffer_copy_to_host_async(b, host, sizeof(host), s));
    assert_gpu_ok(gpu_stream_synchronize(s));
    expect_all(0x222);

    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_gpu_ok(gpu_graph_write_dot(g3, path, true));
    f = fopen(path, "r");
    assert_non_null(f);
    len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    unlink(path);
    assert_true(len > 0);
    assert_non_null(strstr(text, "digraph"));
    printf("GRAPH_UPDATE update with a new argument: replay correct; upload ok; capture ids %llu %llu %llu; "
           "DOT %zu+ bytes\n", (unsigned long long)id1, (unsigned long long)id2, (unsigned long long)id3, len);
    gpu_graph_exec_destroy(x);
    gpu_graph_destroy(g3);
    gpu_graph_destroy(g2);
    gpu_graph_destroy(g1);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(update_upload_dot),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-graph-update");

    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
