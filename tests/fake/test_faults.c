/* SPDX-License-Identifier: MIT */
/*
 * Faults on demand, through gpushim's API: a device that falls off
 * the bus, out of memory past a limit, a stall released from another thread,
 * a slow cuInit, devices described by the environment, and the report of live
 * objects at exit. gpushim loads the driver once per process and a lost device
 * stays lost, so each case is its own process: `test-faults CASE`, with the
 * environment meson.build gives it. The case "children" runs this program
 * again for the cases that must exit or die (malformed variables, the report),
 * and checks their status and stderr.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_test.h"

enum { N = 256, WANT_LOST = 46 };

static const char *self_path;

static gpu_module *load_ptx(void)
{
    gpu_module *m = NULL;

    FT_OK(gpu_module_load_data(NULL, ft_ptx, strlen(ft_ptx), &m));
    return m;
}

/* ---- Out of memory past a limit ---- */

/* Against the limit that is set (1 MiB): what fits, what does not, and what freeing gives back. */
static void check_limit_1m(void)
{
    gpu_buffer *a = NULL, *b = NULL;
    gpu_device_info info;

    FT_OK(gpu_buffer_create(NULL, 512 << 10, &a));
    FT_FAIL(gpu_buffer_create(NULL, 600 << 10, &b), GPU_ERR_OUT_OF_MEMORY, CUABI_ERROR_OUT_OF_MEMORY,
            "CUDA_ERROR_OUT_OF_MEMORY");
    assert_null(b);
    FT_OK(gpu_buffer_create(NULL, 512 << 10, &b)); /* exactly up to the limit */
    gpu_buffer_destroy(b);
    b = NULL;
    gpu_buffer_destroy(a);
    FT_OK(gpu_buffer_create(NULL, 1 << 20, &a));
    gpu_buffer_destroy(a);
    FT_FAIL(gpu_buffer_create(NULL, (1 << 20) + 1, &b), GPU_ERR_OUT_OF_MEMORY, CUABI_ERROR_OUT_OF_MEMORY, NULL);
    /* The limit is not what the device says it has. */
    FT_OK(gpu_device_get_info(0, &info));
    assert_true(info.total_memory == (size_t)150109880320); /* the H200 profile's */
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

static void memory_limit(void **state)
{
    gpu_buffer *b = NULL;

    (void)state;
    assert_int_equal(gpu_fake_memory_limit(0, 1 << 20), 0);
    assert_int_equal(gpu_fake_memory_limit(1, 1 << 20), -1); /* one device here */
    check_limit_1m();
    assert_int_equal(gpu_fake_memory_limit(0, SIZE_MAX), 0);
    FT_OK(gpu_buffer_create(NULL, 200 << 20, &b));
    gpu_buffer_destroy(b);
    assert_int_equal(gpu_fake_memory_limit(0, 0), 0);
    FT_FAIL(gpu_buffer_create(NULL, 1, &b), GPU_ERR_OUT_OF_MEMORY, CUABI_ERROR_OUT_OF_MEMORY, NULL);
}

/* GPUSHIM_FAKE_MEMORY_LIMIT=1M */
static void memory_limit_env(void **state)
{
    (void)state;
    check_limit_1m();
}

/* ---- A stall, released from another thread ---- */

static volatile int released;

static void *release_later(void *arg)
{
    struct timespec ts = {0, 100 * 1000000L};

    (void)arg;
    nanosleep(&ts, NULL);
    released = 1;
    gpu_fake_stall(false);
    return NULL;
}

/* Work queued while stalled does not run; a sync waits for the release and then sees the work done. */
static void check_stalled_then_released(void)
{
    static uint32_t want[N];
    gpu_module *m = load_ptx();
    gpu_buffer *b = ft_buffer_seq(NULL, N, 10);
    gpu_stream *s = NULL;
    pthread_t t;
    bool idle = true;

    FT_OK(gpu_stream_create(NULL, &s));
    FT_OK(ft_add_one(s, m, b, N));
    assert_true(gpu_fake_pending() >= 1);
    assert_int_equal(gpu_fake_run(100), 0);
    FT_OK(gpu_stream_is_complete(s, &idle));
    assert_false(idle);
    assert_int_equal(ft_peek(b, 0), 10);
    released = 0;
    assert_int_equal(pthread_create(&t, NULL, release_later, NULL), 0);
    FT_OK(gpu_stream_synchronize(s));
    assert_int_equal(released, 1);
    assert_int_equal(pthread_join(t, NULL), 0);
    FT_OK(gpu_stream_is_complete(s, &idle));
    assert_true(idle);
    for (uint32_t i = 0; i < N; i++)
        want[i] = 11 + i;
    FT_BUFFER_EQ(b, want, N);
    gpu_stream_destroy(s);
    gpu_buffer_destroy(b);
    gpu_module_destroy(m);
}

static void stall(void **state)
{
    (void)state;
    gpu_fake_stall(true);
    check_stalled_then_released();
    /* Released, work runs as it did. */
    assert_int_equal(gpu_fake_pending(), 0);
}

/* GPUSHIM_FAKE_STALL=1 */
static void stall_env(void **state)
{
    (void)state;
    check_stalled_then_released();
}

/* ---- A device that falls off the bus ---- */

static void lost_device(void **state)
{
    gpu_context *c0 = NULL, *c1 = NULL;
    gpu_stream *s0 = NULL, *s1 = NULL;
    gpu_buffer *b0 = NULL, *b1 = NULL, *more = NULL;
    gpu_event *e0 = NULL;
    gpu_module *m, *m1 = NULL;
    gpu_device_info info;
    uint32_t word = 0;
    bool idle;

    (void)state;
    FT_OK(gpu_context_retain_primary(0, &c0));
    FT_OK(gpu_context_retain_primary(1, &c1));
    m = load_ptx();
    FT_OK(gpu_module_load_data(c1, ft_ptx, strlen(ft_ptx), &m1));
    b0 = ft_buffer_seq(c0, N, 100);
    b1 = ft_buffer_seq(c1, N, 200);
    FT_OK(gpu_stream_create(c0, &s0));
    FT_OK(gpu_stream_create(c1, &s1));
    FT_OK(gpu_event_create(c0, &e0));
    FT_OK(ft_add_one(s0, m, b0, N));
    FT_OK(gpu_stream_record_event(s0, e0));
    /* Device 1's stream waits for device 0's work, which will never run. */
    FT_OK(gpu_stream_wait_event(s1, e0));
    /* Device 0's kernel and record, device 1's wait. */
    assert_int_equal(gpu_fake_pending(), 3);

    assert_int_equal(gpu_fake_device_lose(2, 0), -1);
    assert_int_equal(gpu_fake_device_lose(0, WANT_LOST), 0);
    /* Its queued work is gone, not run; device 1's wait is still queued. */
    assert_int_equal(gpu_fake_pending(), 1);
    assert_int_equal(ft_peek(b0, 0), 100);

    FT_FAIL(gpu_stream_synchronize(s0), GPU_ERR_STREAM_SYNC, WANT_LOST, "CUDA_ERROR_DEVICE_UNAVAILABLE (46): CUDA-capable device(s) is/are busy or unavailable");
    FT_FAIL(gpu_stream_is_complete(s0, &idle), GPU_ERR_STREAM_SYNC, WANT_LOST, NULL);
    FT_FAIL(gpu_event_synchronize(e0), GPU_ERR_EVENT, WANT_LOST, NULL);
    FT_FAIL(gpu_buffer_create(c0, 64, &more), GPU_ERR_TRANSFER, WANT_LOST, NULL);
    assert_null(more);
    FT_FAIL(gpu_buffer_copy_to_host(b0, &word, sizeof(word)), GPU_ERR_TRANSFER, WANT_LOST, NULL);
    FT_FAIL(ft_add_one(s0, m, b0, N), GPU_ERR_KERNEL_LAUNCH, WANT_LOST, NULL);
    FT_FAIL(gpu_context_synchronize(c0), GPU_ERR_STREAM_SYNC, WANT_LOST, NULL);
    FT_FAIL(gpu_device_get_info(0, &info), GPU_ERR_DRIVER, WANT_LOST, NULL);

    /* Device 1 goes on: its wait on the lost work does not hang. */
    FT_OK(gpu_stream_synchronize(s1));
    assert_int_equal(gpu_fake_pending(), 0);
    FT_OK(ft_add_one(s1, m1, b1, N));
    FT_OK(gpu_stream_synchronize(s1));
    assert_int_equal(ft_peek(b1, 0), 201);
    FT_OK(gpu_device_get_info(1, &info));

    /* Streams and events are still released. */
    gpu_event_destroy(e0);
    gpu_stream_destroy(s0);
    gpu_stream_destroy(s1);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_STREAMS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_EVENTS), 0);
    gpu_buffer_destroy(b1);
    gpu_buffer_destroy(b0);
    gpu_module_destroy(m1);
    gpu_module_destroy(m);
    gpu_context_destroy(c1);
    gpu_context_destroy(c0);
}

/* The default result: what a real driver says after "Xid 79: GPU has fallen off the bus". */
static void lost_device_default(void **state)
{
    gpu_buffer *b = NULL;

    (void)state;
    FT_OK(gpu_buffer_create(NULL, 64, &b));
    gpu_buffer_destroy(b);
    b = NULL;
    assert_int_equal(gpu_fake_device_lose(0, 0), 0);
    FT_FAIL(gpu_buffer_create(NULL, 64, &b), GPU_ERR_TRANSFER, CUABI_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN");
}

/* GPUSHIM_FAKE_LOSE=0:NTH:46: calls succeed up to the nth call into the fake, which is the first to fail. */
static void lost_device_env(void **state)
{
    const char *spec = getenv("GPUSHIM_FAKE_LOSE");
    unsigned long nth = strtoul(strchr(spec, ':') + 1, NULL, 10);
    int count = 0;
    bool failed = false;

    (void)state;
    FT_OK(gpu_device_get_count(&count));
    print_message("%lu calls into the fake after the load; device 0 is lost at call %lu\n", gpu_fake_calls_total(), nth);
    assert_true(gpu_fake_calls_total() < nth);
    while (!failed) {
        gpu_buffer *b = NULL;
        unsigned long before = gpu_fake_calls_total();
        gpu_status st = gpu_buffer_create(NULL, 64, &b);

        if (st == GPU_OK) {
            assert_true(gpu_fake_calls_total() < nth);
            gpu_buffer_destroy(b);
            continue;
        }
        failed = true;
        FT_FAIL(st, GPU_ERR_TRANSFER, WANT_LOST, NULL);
        assert_true(before < nth && gpu_fake_calls_total() >= nth);
    }
}

/* ---- A slow cuInit ---- */

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void init_delay(void **state)
{
    double start;
    int count = 0;

    (void)state;
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
    gpu_fake_init_delay(300);
    start = now_ms();
    FT_OK(gpu_device_get_count(&count));
    assert_true(now_ms() - start >= 300.0);
    assert_int_equal(count, 1);
    assert_true(gpu_driver_get_report()->init_ns >= 300u * 1000000u);
}

/* ---- Devices from the environment ---- */

/* GPUSHIM_FAKE_DEVICES=2 GPUSHIM_FAKE_DEVICE_NAME="Fake H200" GPUSHIM_FAKE_DEVICE_MEMORY=3G GPUSHIM_FAKE_COMPUTE_CAPABILITY=7.5 */
static void device_env(void **state)
{
    gpu_device_info info;
    gpu_buffer *b = NULL;

    (void)state;
    for (int d = 0; d < 2; d++) {
        FT_OK(gpu_device_get_info(d, &info));
        assert_string_equal(info.name, "Fake H200");
        assert_true(info.total_memory == (size_t)3 << 30);
        assert_int_equal(info.compute_major, 7);
        assert_int_equal(info.compute_minor, 5);
    }
    /* The memory is what allocations are checked against. */
    FT_OK(gpu_buffer_create(NULL, (size_t)2 << 30, &b));
    gpu_buffer_destroy(b);
}

/* ---- Cases run as children: the report at exit, malformed variables ---- */

/* Leaks one stream and one buffer, or (clean) releases them; returns 0 either way. */
static int child_report(bool leak)
{
    gpu_stream *s = NULL;
    gpu_buffer *b = NULL;

    if (gpu_stream_create(NULL, &s) != GPU_OK || gpu_buffer_create(NULL, 4096, &b) != GPU_OK)
        return 2;
    printf("child: made a stream and a buffer\n");
    if (!leak) {
        gpu_buffer_destroy(b);
        gpu_stream_destroy(s);
    }
    return 0;
}

/*
 * Under a refused configuration: gpushim's load fails with the fake's message, printed on stdout; cuInit
 * keeps failing with it and every call fails cleanly. Returns 3 when all of that holds.
 */
static int child_config(void)
{
    gpu_stream *s = NULL;
    gpu_status st = gpu_driver_load();
    const gpu_load_report *r = gpu_driver_get_report();
    const char *text = NULL;

    printf("child: %s\n", gpu_last_error_get_message());
    if (st != GPU_ERR_NO_DRIVER || r->stage != GPU_LOAD_INIT || r->init_result != CUABI_ERROR_INVALID_VALUE)
        return 4;
    if (gpu_stream_create(NULL, &s) == GPU_OK || cuInit(0) != CUABI_ERROR_INVALID_VALUE)
        return 5;
    if (cuGetErrorString(CUABI_ERROR_INVALID_VALUE, &text) != CUABI_SUCCESS || !strstr(text, "GPUSHIM_FAKE_"))
        return 6;
    if (cuCtxSynchronize() != CUABI_ERROR_NOT_INITIALIZED)
        return 7;
    return 3;
}

/*
 * Values a launch reads again, changed to refused ones after the configuration was read: the launch runs with
 * the defaults, and stderr says so once. Returns 0 when it does.
 */
static int child_late(void)
{
    static const char ptx[] = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";
    cuabi_module m = NULL;
    cuabi_context ctx = NULL;
    ft_capture c;

    if (cuInit(0) != CUABI_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, 0) != CUABI_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUABI_SUCCESS || cuModuleLoadData(&m, ptx) != CUABI_SUCCESS)
        return 2;
    setenv("GPUSHIM_FAKE_WATCHDOG", "2s", 1);
    setenv("GPUSHIM_FAKE_THREADS", "-4", 1);
    if (ft_launch_said(m, "k", 2, 32, NULL, &c) != CUABI_SUCCESS)
        return 3;
    if (!strstr(c.text, "GPUSHIM_FAKE_WATCHDOG=2s, set after the fake read its configuration: wants a whole number "
                        "from 0 to 86400 (decimal digits alone); the default holds"))
        return 5;
    if (ft_launch_said(m, "k", 2, 32, NULL, &c) != CUABI_SUCCESS)
        return 3;
    if (strstr(c.text, "set after"))
        return 6; /* told once */
    if (cuInit(0) != CUABI_SUCCESS)
        return 4;
    return 0;
}

struct child {
    const char *arg;     /* the child case */
    const char *env;     /* NAME=value set for it */
    int status;          /* its exit status, or -signal */
    const char *stderr_has;
    const char *stdout_has;
};

/* Runs this program with `c`, returns its stderr and stdout (in `out`) and checks its status. */
static void run_child(const struct child *c)
{
    char err[4096] = "", out[1024] = "";
    int perr[2], pout[2], st = 0;
    pid_t pid;
    ssize_t n;
    size_t len;

    assert_int_equal(pipe(perr), 0);
    assert_int_equal(pipe(pout), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const char *asan = getenv("ASAN_OPTIONS");
        char *copy = strdup(c->env);
        char *eq = copy ? strchr(copy, '=') : NULL;
        char opts[1024];

        if (!eq)
            _exit(120);
        *eq = '\0';
        setenv(copy, eq + 1, 1);
        /* A leak child leaks on purpose: the fake's report is what is tested, not LeakSanitizer's. */
        snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", asan ? asan : "", asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        dup2(perr[1], 2);
        dup2(pout[1], 1);
        close(perr[0]);
        close(pout[0]);
        execl(self_path, self_path, c->arg, (char *)NULL);
        _exit(121);
    }
    close(perr[1]);
    close(pout[1]);
    for (len = 0; (n = read(perr[0], err + len, sizeof(err) - 1 - len)) > 0;)
        len += (size_t)n;
    err[len] = '\0';
    for (len = 0; (n = read(pout[0], out + len, sizeof(out) - 1 - len)) > 0;)
        len += (size_t)n;
    out[len] = '\0';
    close(perr[0]);
    close(pout[0]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    print_message("%s %s: %s", c->env, c->arg, err);
    if (c->status < 0) {
        assert_true(WIFSIGNALED(st));
        assert_int_equal(WTERMSIG(st), -c->status);
    } else {
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), c->status);
    }
    if (c->stderr_has && !strstr(err, c->stderr_has))
        fail_msg("%s %s: stderr lacks '%s': '%s'", c->env, c->arg, c->stderr_has, err);
    if (c->stdout_has && !strstr(out, c->stdout_has))
        fail_msg("%s %s: stdout lacks '%s' (flushed before a strict exit): '%s'", c->env, c->arg, c->stdout_has,
                 out);
}

static void children(void **state)
{
    static const struct child cases[] = {
        {"child-leak", "GPUSHIM_FAKE_REPORT=1", 0, "gpushim-fakecuda: 1 device allocation, 1 stream still alive",
         "child: made"},
        {"child-leak", "GPUSHIM_FAKE_REPORT=strict", 86, "1 device allocation, 1 stream still alive", "child: made"},
        {"child-clean", "GPUSHIM_FAKE_REPORT=strict", 0, "gpushim-fakecuda: no object still alive", "child: made"},
        {"child-leak", "GPUSHIM_FAKE_REPORT=0", 0, NULL, "child: made"},
        /*
         * A malformed GPUSHIM_FAKE_* value: cuInit fails with CUDA_ERROR_INVALID_VALUE and a message naming the
         * variable, the value and what it accepts (child-config prints gpushim's), on stderr once; nothing aborts.
         */
        {"child-config", "GPUSHIM_FAKE_REPORT=yes", 3, "GPUSHIM_FAKE_REPORT=yes: wants 0, 1 or strict",
         "GPUSHIM_FAKE_REPORT=yes: wants 0, 1 or strict"},
        {"child-config", "GPUSHIM_FAKE_MEMORY_LIMIT=12X", 3, "GPUSHIM_FAKE_MEMORY_LIMIT=12X: wants a byte count from 0",
         "cuInit(0) failed: CUDA_ERROR_INVALID_VALUE (1): GPUSHIM_FAKE_MEMORY_LIMIT=12X: wants a byte count"},
        {"child-config", "GPUSHIM_FAKE_MEMORY_LIMIT=", 3, "GPUSHIM_FAKE_MEMORY_LIMIT=: wants a byte count", NULL},
        {"child-config", "GPUSHIM_FAKE_DEVICE_MEMORY=-1G", 3, "GPUSHIM_FAKE_DEVICE_MEMORY=-1G: wants a byte count",
         NULL},
        {"child-config", "GPUSHIM_FAKE_DEVICE_MEMORY=1T", 3, "GPUSHIM_FAKE_DEVICE_MEMORY=1T: wants a byte count", NULL},
        {"child-config", "GPUSHIM_FAKE_DEVICE_MEMORY=8589934592G", 3, "GPUSHIM_FAKE_DEVICE_MEMORY=8589934592G: wants", NULL},
        {"child-config", "GPUSHIM_FAKE_DEVICE_NAME=", 3, "GPUSHIM_FAKE_DEVICE_NAME=: wants 1 to 63 bytes", NULL},
        {"child-config", "GPUSHIM_FAKE_COMPUTE_CAPABILITY=9", 3, "GPUSHIM_FAKE_COMPUTE_CAPABILITY=9: wants major.minor",
         NULL},
        {"child-config", "GPUSHIM_FAKE_COMPUTE_CAPABILITY=9.x", 3,
         "GPUSHIM_FAKE_COMPUTE_CAPABILITY=9.x: its minor \"x\" is not a whole number from 0 to 9", NULL},
        {"child-config", "GPUSHIM_FAKE_LOSE=0:5", 3, "GPUSHIM_FAKE_LOSE=0:5: wants ordinal:nth:result", NULL},
        {"child-config", "GPUSHIM_FAKE_LOSE=9:5:46", 3,
         "GPUSHIM_FAKE_LOSE=9:5:46: its ordinal \"9\" is not a whole number from 0 to 7", NULL},
        {"child-config", "GPUSHIM_FAKE_STALL=2", 3, "GPUSHIM_FAKE_STALL=2: wants a switch", NULL},
        /* libgpushim's parser: digits alone (no sign, space, junk, unit or overflow), a switch is a switch. */
        {"child-config", "GPUSHIM_FAKE_DEVICES= 1", 3, "GPUSHIM_FAKE_DEVICES= 1: wants a whole number from 0 to 8",
         NULL},
        {"child-config", "GPUSHIM_FAKE_DEVICES=-1", 3, "GPUSHIM_FAKE_DEVICES=-1: wants a whole number from 0 to 8", NULL},
        {"child-config", "GPUSHIM_FAKE_DEVICES=18446744073709551617", 3,
         "GPUSHIM_FAKE_DEVICES=18446744073709551617: wants a whole number from 0 to 8", NULL},
        {"child-config", "GPUSHIM_FAKE_VERSION=+12080", 3, "GPUSHIM_FAKE_VERSION=+12080: wants a whole number", NULL},
        {"child-config", "GPUSHIM_FAKE_VERSION=12080x", 3, "GPUSHIM_FAKE_VERSION=12080x: wants a whole number", NULL},
        {"child-config", "GPUSHIM_FAKE_INIT_DELAY_MS=5ms", 3, "GPUSHIM_FAKE_INIT_DELAY_MS=5ms: wants a whole number",
         NULL},
        {"child-config", "GPUSHIM_FAKE_PEER=maybe", 3, "GPUSHIM_FAKE_PEER=maybe: wants a switch", NULL},
        {"child-config", "GPUSHIM_FAKE_GPA_TWIN=2", 3, "GPUSHIM_FAKE_GPA_TWIN=2: wants a switch", NULL},
        {"child-config", "GPUSHIM_FAKE_STICKY=sure", 3, "GPUSHIM_FAKE_STICKY=sure: wants a switch", NULL},
        {"child-config", "GPUSHIM_FAKE_FAIL=cuMemAlloc:0:2", 3,
         "GPUSHIM_FAKE_FAIL=cuMemAlloc:0:2: its nth \"0\" is not a whole number from 1 to 1000000", NULL},
        {"child-config", "GPUSHIM_FAKE_FAIL=cuNoSuchCall:1:2", 3,
         "GPUSHIM_FAKE_FAIL=cuNoSuchCall:1:2: its name \"cuNoSuchCall\" names no entry point", NULL},
        {"child-config", "GPUSHIM_FAKE_OMIT=cuNoSuchCall", 3, "its name \"cuNoSuchCall\" names no entry point", NULL},
        /* Variables read at a launch are read at the configuration too. */
        {"child-config", "GPUSHIM_FAKE_WATCHDOG=2s", 3, "GPUSHIM_FAKE_WATCHDOG=2s: wants a whole number from 0 to 86400",
         "GPUSHIM_FAKE_WATCHDOG=2s: wants a whole number from 0 to 86400"},
        {"child-config", "GPUSHIM_FAKE_THREADS=0", 3, "GPUSHIM_FAKE_THREADS=0: wants a whole number from 1 to 256", NULL},
        {"child-config", "GPUSHIM_FAKE_CHECK=race,rase", 3, "GPUSHIM_FAKE_CHECK=race,rase: names a check", NULL},
        /* A device attribute's value lies in what the attribute can be. */
        {"child-config", "GPUSHIM_FAKE_ATTRIBUTES=RESERVED_SHARED_MEMORY_PER_BLOCK=-1", 3,
         "its RESERVED_SHARED_MEMORY_PER_BLOCK value \"-1\" is not a whole number from 0 to 2147483647", NULL},
        {"child-config", "GPUSHIM_FAKE_ATTRIBUTES=TEXTURE_ALIGNMENT=0", 3,
         "its TEXTURE_ALIGNMENT value \"0\" is not a whole number from 1 to 2147483647", NULL},
        {"child-config", "GPUSHIM_FAKE_ATTRIBUTES=CLUSTER_LAUNCH=2", 3,
         "its CLUSTER_LAUNCH value \"2\" is not a whole number from 0 to 1", NULL},
        {"child-config", "GPUSHIM_FAKE_ATTRIBUTES=L2_CACHE_SIZE=2147483648", 3,
         "its L2_CACHE_SIZE value \"2147483648\" is not a whole number from 0 to 2147483647", NULL},
        {"child-config", "GPUSHIM_FAKE_ATTRIBUTES=1:WARP_SIZE=32", 3, "its device \"1\" is not a whole number from 0 to 0",
         NULL},
        {"child-config", "GPUSHIM_FAKE_ATTRIBUTES=NO_SUCH=1", 3, "its name \"NO_SUCH\" is no device attribute", NULL},
        {"child-clean", "GPUSHIM_FAKE_ATTRIBUTES=NUMA_ID=-1,COMPUTE_MODE=3", 0, NULL, "child: made"},
        {"child-clean", "GPUSHIM_FAKE_PEER=off", 0, NULL, "child: made"},
        {"child-clean", "GPUSHIM_FAKE_DEVICE_MEMORY=64M", 0, NULL, "child: made"},
        {"child-config", "GPUSHIM_FAKE_KERNELS=libkernels.so", 3,
         "GPUSHIM_FAKE_KERNELS=libkernels.so: its path \"libkernels.so\" is not an absolute path", NULL},
        {"child-config", "GPUSHIM_FAKE_KERNELS=/nonexistent/libkernels.so", 3, "does not load", NULL},
        {"child-late", "GPUSHIM_FAKE_PEER=1", 0, NULL, NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_child(&cases[i]);
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"memory-limit", cmocka_unit_test(memory_limit)},
        {"memory-limit-env", cmocka_unit_test(memory_limit_env)},
        {"stall", cmocka_unit_test(stall)},
        {"stall-env", cmocka_unit_test(stall_env)},
        {"lost", cmocka_unit_test(lost_device)},
        {"lost-default", cmocka_unit_test(lost_device_default)},
        {"lost-env", cmocka_unit_test(lost_device_env)},
        {"init-delay", cmocka_unit_test(init_delay)},
        {"device-env", cmocka_unit_test(device_env)},
        {"children", cmocka_unit_test(children)},
    };

    self_path = argv[0];
    if (argc == 2 && strcmp(argv[1], "child-leak") == 0)
        return child_report(true);
    if (argc == 2 && strcmp(argv[1], "child-clean") == 0)
        return child_report(false);
    if (argc == 2 && strcmp(argv[1], "child-config") == 0)
        return child_config();
    if (argc == 2 && strcmp(argv[1], "child-late") == 0)
        return child_late();
    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
