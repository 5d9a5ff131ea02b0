/* SPDX-License-Identifier: MIT */
/*
 * The work that check-trace.py traces: argv[1] names it, the checker sets
 * GPUSHIM_TRACE* and reads the file this process leaves at exit. Each mode
 * checks its own data, then prints one JSON line on stdout: the handles the
 * checker looks for in the trace and how often the fake saw each entry point
 * called, which the trace must match call for call.
 *
 *   sequence   a known series of calls, one of them failed on purpose
 *   threads    16 threads, each its own stream and buffer, the same series
 *   exit       16 threads at work when the main thread calls exit()
 *   gpu        launches and copies on two streams and the legacy stream
 *   wait FILE  the driver loaded (the trace begun), makes FILE.ready, then waits until
 *              FILE exists: another process traces to the same path meanwhile
 *   exec       the sequence, its counts printed, then the process execs sh, which
 *              runs no exit handler of this program's
 *   exec-self  the same, then the process execs this program again in mode sequence:
 *              the second image goes on with the first one's trace
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_test.h"

enum { THREADS = 16, ROUNDS = 20, N = 1024 };

/* Outside a cmocka run: a failed check ends the process, with the trace written. */
#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond, gpu_last_error_get_message()); \
            exit(2); \
        } \
    } while (0)
#define OK(expr) CHECK((expr) == GPU_OK)

static gpu_module *module;
static char extra[256]; /* what a mode tells the checker besides the counts */

static const char *const entries[] = {
#define GPU__ENTRY(need, name, symbol, params, args) #name,
#include "entry_points.h"
#undef GPU__ENTRY
};

/* The JSON line: `extra` (handles, as "key":"value" pairs) and the fake's count of every entry point. */
static void report(const char *handles)
{
    printf("{%s%s\"counts\":{", handles, handles[0] ? "," : "");
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
        printf("%s\"%s\":%ld", i ? "," : "", entries[i], gpu_fake_calls(entries[i]));
    printf("}}\n");
    fflush(stdout);
}

/* Upload 0..N-1, add one on the stream, wait, read back and check: the series every thread runs. */
static void round_trip(gpu_stream *s, gpu_buffer *b, uint32_t *host)
{
    for (uint32_t i = 0; i < N; i++)
        host[i] = i;
    OK(gpu_buffer_copy_from_host(b, host, N * sizeof(*host)));
    OK(ft_add_one(s, module, b, N));
    OK(gpu_stream_synchronize(s));
    OK(gpu_buffer_copy_to_host(b, host, N * sizeof(*host)));
    for (uint32_t i = 0; i < N; i++)
        CHECK(host[i] == i + 1);
}

static void sequence(void)
{
    static uint32_t host[N];
    gpu_stream *s = NULL;
    gpu_buffer *b = NULL;
    bool idle = true;

    OK(gpu_stream_create_non_blocking(NULL, &s));
    CHECK(gpu_fake_fail("cuMemAlloc", 1, CUABI_ERROR_OUT_OF_MEMORY) == 0);
    CHECK(gpu_buffer_create(NULL, N * sizeof(uint32_t), &b) == GPU_ERR_OUT_OF_MEMORY);
    OK(gpu_buffer_create(NULL, N * sizeof(uint32_t), &b));
    round_trip(s, b, host);
    /* A CUresult that is an answer, not an error: NOT_READY while the hold kernel waits. */
    gpu_fake_gate(false);
    OK(ft_hold(s, module));
    OK(gpu_stream_is_complete(s, &idle));
    CHECK(!idle);
    gpu_fake_gate(true);
    OK(gpu_stream_synchronize(s));
    snprintf(extra, sizeof(extra), "\"stream\":\"%p\",\"buffer\":\"0x%llx\"", gpu_stream_get_raw(s),
             (unsigned long long)gpu_buffer_get_device_ptr(b));
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
    /* A negative int argument: the trace keeps its sign. */
    OK(gpu_stream_create_with_priority(NULL, GPU_STREAM_DEFAULT, -1, &s));
    gpu_stream_destroy(s);
}

static atomic_bool stop;
static pthread_barrier_t all_made; /* exit mode: every thread has made its stream and buffer */
static atomic_int started; /* threads that finished a round */

static void *worker(void *arg)
{
    uint32_t *host = malloc(N * sizeof(*host));
    gpu_stream *s = NULL;
    gpu_buffer *b = NULL;
    bool forever = arg != NULL;

    CHECK(host != NULL);
    OK(gpu_stream_create_non_blocking(NULL, &s));
    OK(gpu_buffer_create(NULL, N * sizeof(*host), &b));
    /*
     * Until exit() every thread calls as fast as it can, and the trace's slots
     * run out within milliseconds: each thread's first calls are in before any
     * thread starts, so a thread the scheduler starts late still has its calls
     * in the file.
     */
    if (forever)
        pthread_barrier_wait(&all_made);
    for (int r = 0; forever ? !atomic_load(&stop) : r < ROUNDS; r++) {
        round_trip(s, b, host);
        if (r == 0)
            atomic_fetch_add(&started, 1);
    }
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
    free(host);
    return NULL;
}

static void threads(bool exit_midway)
{
    pthread_t t[THREADS];

    CHECK(pthread_barrier_init(&all_made, NULL, THREADS) == 0);
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, exit_midway ? (void *)1 : NULL) == 0);
    if (exit_midway) {
        /* The trace must come out whole while every thread is still in the middle of its calls. */
        while (atomic_load(&started) < THREADS)
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
        printf("{\"exit\":true}\n");
        fflush(stdout);
        exit(0);
    }
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
}

/* Per stream: a sleep of 100 us, a device-to-device copy; a legacy-stream upload first. */
static void gpu(void)
{
    enum { SPANS = 5 };
    gpu_stream *s[2] = {NULL, NULL};
    gpu_buffer *a = ft_buffer_seq(NULL, N, 7), *b = NULL;

    OK(gpu_buffer_create(NULL, N * sizeof(uint32_t), &b));
    for (int k = 0; k < 2; k++)
        OK(gpu_stream_create_non_blocking(NULL, &s[k]));
    for (int i = 0; i < SPANS; i++)
        for (int k = 0; k < 2; k++) {
            OK(ft_sleep_us(s[k], module, 100));
            OK(gpu_buffer_copy_async(b, a, N * sizeof(uint32_t), s[k]));
        }
    for (int k = 0; k < 2; k++)
        OK(gpu_stream_synchronize(s[k]));
    /* The fake runs the legacy stream's queue (the upload's end event) only when asked to. */
    OK(gpu_context_synchronize(NULL));
    CHECK(ft_peek(b, N - 1) == 7 + N - 1);
    snprintf(extra, sizeof(extra), "\"streams\":[\"%p\",\"%p\"]", gpu_stream_get_raw(s[0]), gpu_stream_get_raw(s[1]));
    for (int k = 0; k < 2; k++)
        gpu_stream_destroy(s[k]);
    gpu_buffer_destroy(a);
    gpu_buffer_destroy(b);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    OK(gpu_module_load_data(NULL, ft_ptx, strlen(ft_ptx) + 1, &module));
    if (strcmp(mode, "sequence") == 0)
        sequence();
    else if (strcmp(mode, "threads") == 0)
        threads(false);
    else if (strcmp(mode, "exit") == 0)
        threads(true);
    else if (strcmp(mode, "gpu") == 0)
        gpu();
    else if (strcmp(mode, "wait") == 0 && argc > 2) {
        char ready[4096];
        FILE *f;

        /* The driver is loaded, so the trace has begun: FILE.ready says so. */
        snprintf(ready, sizeof(ready), "%s.ready", argv[2]);
        f = fopen(ready, "w");
        CHECK(f != NULL);
        fclose(f);
        /* A minute at most: the checker makes the file as soon as the other process is done. */
        for (int i = 0; access(argv[2], F_OK) != 0; i++) {
            CHECK(i < 60000);
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
    } else if (strcmp(mode, "exec") == 0 || strcmp(mode, "exec-self") == 0) {
        sequence();
        gpu_module_destroy(module);
        report(extra);
        if (strcmp(mode, "exec") == 0)
            execl("/bin/sh", "sh", "-c", "exit 0", (char *)NULL);
        else
            execl(argv[0], argv[0], "sequence", (char *)NULL);
        fprintf(stderr, "exec failed\n");
        return 3;
    } else {
        fprintf(stderr, "usage: %s sequence|threads|exit|gpu|wait FILE|exec|exec-self\n", argv[0]);
        return 64;
    }
    gpu_module_destroy(module);
    report(extra);
    return 0;
}
