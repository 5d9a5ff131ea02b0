/* SPDX-License-Identifier: MIT */
/*
 * Call tracing on real hardware: a child process runs launches and copies
 * with GPUSHIM_TRACE and GPUSHIM_TRACE_GPU=1 set (gpushim reads them when it
 * loads the driver, which the parent never does), and the parent reads the
 * file it left at exit: the driver calls, and GPU spans measured by timing
 * events, one track per stream, that show the GPU's own durations (a spin
 * kernel of a known length) and never overlap on one stream.
 *
 * The file goes to GPUSHIM_TRACE_OUT where that is set (maint/run-gpu.sh puts
 * it in $OUT, and checks it again with a strict JSON parser), else to a
 * temporary file that is removed. Prints a TRACE_GPU line for the summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

enum { SPINS = 5, FILLS = 5, N = 1 << 20, SPIN_US = 2000, MAX_SPANS = 256 };
/* A legacy-stream upload, the spins on one stream, fills and downloads on another. */
#define WANT_SPANS (1 + SPINS + 2 * FILLS)

#define CHILD_CHECK(what, st) \
    do { \
        gpu_status st_ = (st); \
        if (st_ != GPU_OK) { \
            printf("FAIL gpu-trace child: %s: %s: %s\n", (what), gpu_status_get_name(st_), gpu_last_error_get_message()); \
            exit(1); \
        } \
    } while (0)

static int child(const char *path)
{
    gpu_stream *a = NULL, *b = NULL;
    gpu_buffer *dev = NULL;
    gpu_host_buffer *host = NULL;
    static uint32_t in[N];
    uint32_t *out;
    int rc;

    if (setenv("GPUSHIM_TRACE", path, 1) != 0 || setenv("GPUSHIM_TRACE_GPU", "1", 1) != 0)
        return 1;
    rc = gpu_test_start("gpu-trace");
    if (rc != 0)
        return rc;
    CHILD_CHECK("stream a", gpu_stream_create_non_blocking(NULL, &a));
    CHILD_CHECK("stream b", gpu_stream_create_non_blocking(NULL, &b));
    CHILD_CHECK("buffer", gpu_buffer_create(NULL, N * sizeof(uint32_t), &dev));
    CHILD_CHECK("host buffer", gpu_host_buffer_create(NULL, N * sizeof(uint32_t), &host));
    for (uint32_t i = 0; i < N; i++)
        in[i] = i;
    CHILD_CHECK("upload", gpu_buffer_copy_from_host(dev, in, N * sizeof(uint32_t)));
    for (int i = 0; i < SPINS; i++)
        CHILD_CHECK("spin", gpu_test_launch_spin(a, (uint64_t)SPIN_US * 1000u));
    for (int i = 0; i < FILLS; i++) {
        CHILD_CHECK("fill", gpu_test_launch_fill(b, dev, 0x5eed0000u + (uint32_t)i, N));
        CHILD_CHECK("download", gpu_buffer_copy_to_host_async(dev, gpu_host_buffer_get_data(host), N * sizeof(uint32_t), b));
    }
    CHILD_CHECK("sync a", gpu_stream_synchronize(a));
    CHILD_CHECK("sync b", gpu_stream_synchronize(b));
    out = gpu_host_buffer_get_data(host);
    for (uint32_t i = 0; i < N; i++)
        if (out[i] != 0x5eed0000u + FILLS - 1) {
            printf("FAIL gpu-trace child: out[%u] = 0x%x, want 0x%x\n", i, out[i], 0x5eed0000u + FILLS - 1);
            return 1;
        }
    gpu_host_buffer_destroy(host);
    gpu_buffer_destroy(dev);
    gpu_stream_destroy(a);
    gpu_stream_destroy(b);
    return 0; /* the trace is written at exit */
}

struct span {
    char name[64];
    unsigned tid;
    double ts, dur;
};

static int by_track_then_start(const void *x, const void *y)
{
    const struct span *a = x, *b = y;

    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    long size;

    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)size + 1)) && fread(text, 1, (size_t)size, f) == (size_t)size)
        text[size] = '\0';
    else {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    return text;
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;

    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static size_t meta(const char *text, const char *key)
{
    const char *p = strstr(text, key);

    return p ? strtoul(p + strlen(key), NULL, 10) : (size_t)-1;
}

/* Whether every span on track `tid` is a kernel launch. */
static bool track_only_launches(const struct span *spans, size_t n, unsigned tid)
{
    for (size_t i = 0; i < n; i++)
        if (spans[i].tid == tid && strcmp(spans[i].name, "cuLaunchKernel") != 0)
            return false;
    return true;
}

/* The checks on the file, in C: the shape the writer gives each line (run-gpu.sh parses it strictly too). */
static int check(const char *path)
{
    static struct span spans[MAX_SPANS];
    char *text = read_all(path);
    size_t n = 0, spins = 0, tracks = 0, bad = 0;
    size_t len;

    if (!text) {
        printf("FAIL gpu-trace: no trace at %s\n", path);
        return 1;
    }
    len = strlen(text);
    if (strncmp(text, "{\"traceEvents\":[", 16) != 0 || len < 3 || strcmp(text + len - 3, "}}\n") != 0) {
        printf("FAIL gpu-trace: %s does not have the trace file's shape\n", path);
        free(text);
        return 1;
    }
    for (const char *p = text; (p = strstr(p, "{\"name\":\"")) && n < MAX_SPANS; p++) {
        struct span *s = &spans[n];

        if (sscanf(p, "{\"name\":\"%63[^\"]\",\"cat\":\"gpu\",\"ph\":\"X\",\"pid\":%*d,\"tid\":%u,\"ts\":%lf,\"dur\":%lf}",
                   s->name, &s->tid, &s->ts, &s->dur) == 4)
            n++;
    }
    qsort(spans, n, sizeof(spans[0]), by_track_then_start);
    printf("TRACE_GPU file=%s driver_calls=%zu gpu_spans=%zu (want %d) failed=%zu unfinished=%zu dropped=%zu spin_us=",
           path, count_of(text, "\"cat\":\"driver\""), n, WANT_SPANS, meta(text, "\"gpu_spans_failed\":"),
           meta(text, "\"gpu_spans_unfinished\":"), meta(text, "\"gpu_spans_dropped\":"));
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || spans[i].tid != spans[i - 1].tid)
            tracks++;
        else if (spans[i - 1].ts + spans[i - 1].dur > spans[i].ts + 0.001) {
            printf("[overlap on track %u at %.3f] ", spans[i].tid, spans[i].ts);
            bad++;
        }
        /*
         * The spins are the launches on the track of stream a, which holds
         * nothing else: not told apart by length, as under a sanitizer the
         * fills on stream b take as long.
         */
        if (strcmp(spans[i].name, "cuLaunchKernel") == 0 && track_only_launches(spans, n, spans[i].tid)) {
            printf("%s%.1f", spins ? "," : "", spans[i].dur);
            spins++;
            /* The spin kernel waits on the GPU's clock: its span is its length, plus launch latency. */
            bad += spans[i].dur < SPIN_US * 0.95 || spans[i].dur > SPIN_US * 20;
        }
    }
    printf(" tracks=%zu\n", tracks);
    bad += n != WANT_SPANS || spins != SPINS || tracks != 3 || meta(text, "\"gpu_spans_failed\":") != 0 ||
           meta(text, "\"gpu_spans_unfinished\":") != 0 || meta(text, "\"dropped_events\":") != 0 ||
           count_of(text, "\"cat\":\"driver\"") < WANT_SPANS;
    free(text);
    if (bad)
        printf("FAIL gpu-trace: %zu checks failed\n", bad);
    return bad ? 1 : 0;
}

int main(void)
{
    const char *out = getenv("GPUSHIM_TRACE_OUT");
    char path[4096];
    int status = 0, rc;
    pid_t pid;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (out && out[0])
        snprintf(path, sizeof(path), "%s", out);
    else
        snprintf(path, sizeof(path), "/tmp/gpushim-gpu-trace-%d.json", (int)getpid());
    unlink(path);
    /* The parent never loads the driver: the child is the process that is traced. */
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0)
        exit(child(path));
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        printf("FAIL gpu-trace: the child did not exit normally\n");
        return 1;
    }
    if (WEXITSTATUS(status) != 0) {
        unlink(path);
        return WEXITSTATUS(status); /* 77: no GPU; the child said why */
    }
    rc = check(path);
    if (!out || !out[0])
        unlink(path);
    return rc;
}
