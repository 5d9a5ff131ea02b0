/* SPDX-License-Identifier: MIT */
/*
 * The asynchronous work queue against other threads, through the driver API
 * as a CUDA program calls it:
 *
 *   destroy_while_waited  a stream destroyed while other threads wait for it
 *                         in cuCtxSynchronize, cuEventSynchronize,
 *                         cuStreamSynchronize and a
 *                         synchronous copy: every wait ends, nothing is
 *                         read after its free
 *   others_run_meanwhile  while a kernel runs, another thread's
 *                         cuDriverGetVersion and cuDeviceGet answer, and
 *                         fork() returns, with the kernel still running; the
 *                         child's calls are answered as the driver answers them;
 *                         an allocation, a stream-ordered free and the first
 *                         launch of a library's kernel in the context (which
 *                         loads its globals) of other threads wait for it
 *                         and end once it does
 *   released_by_copy      a kernel that spins on a flag in device memory ends
 *                         once another thread writes the flag with a copy on
 *                         another stream (no watchdog)
 *   callback_status_fixed a stream callback is told the status as it was
 *                         when it was called, while another stream faults
 *   callback_after_fault  a callback after a kernel that faulted is told its fault
 *   library_unload_drains cuLibraryUnload runs the launches queued on its
 *                         kernels before it frees their globals
 *   fork_while_called     fork() while another thread is inside an entry
 *                         point: the child's calls are answered, none waits
 *                         for the parent's thread, which the child lacks
 *
 * Waits in these cases are bounded: a kernel that spins gives up after a
 * minute, and the assertions are on what was done, never on how long it took.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_test.h"

/* Built with ThreadSanitizer (gcc says so one way, clang another). */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

static cuabi_context ctx;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Waits (a minute at most) until `calls` of the named entry point were made. */
static void wait_calls(const char *name, long calls)
{
    double until = now_s() + 60;

    while (gpu_fake_calls(name) < calls && now_s() < until)
        sleep_ms(1);
    assert_true(gpu_fake_calls(name) >= calls);
}

static int setup(void **state)
{
    cuabi_device dev;

    (void)state;
    if (cuInit(0) != CUABI_SUCCESS || cuDeviceGet(&dev, 0) != CUABI_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUABI_SUCCESS || cuCtxSetCurrent(ctx) != CUABI_SUCCESS)
        return -1;
    return 0;
}

/* ---- A stream destroyed while others wait for it ---- */

struct waiter {
    int kind; /* 0: cuCtxSynchronize, 1: cuEventSynchronize, 2: cuMemcpyHtoD, 3: cuStreamSynchronize, 4: cuStreamDestroy */
    cuabi_event event;
    cuabi_stream stream;
    cuabi_deviceptr dst;
    cuabi_result rc;
};

static void *wait_main(void *arg)
{
    struct waiter *w = arg;
    uint32_t v = 7;

    cuCtxSetCurrent(ctx);
    switch (w->kind) {
    case 0: w->rc = cuCtxSynchronize(); break;
    case 1: w->rc = cuEventSynchronize(w->event); break;
    case 2: w->rc = cuMemcpyHtoD_v2(w->dst, &v, sizeof(v)); break;
    case 3: w->rc = cuStreamSynchronize(w->stream); break;
    default: w->rc = cuStreamDestroy_v2(w->stream); break;
    }
    return NULL;
}

static void destroy_while_waited(void **state)
{
    static const char *const entries[] = {"cuCtxSynchronize", "cuEventSynchronize", "cuMemcpyHtoD_v2",
                                          "cuStreamSynchronize", "cuStreamDestroy_v2"};
    cuabi_module mod;
    cuabi_function hold;
    cuabi_deviceptr dst;

    (void)state;
    CU_OK(cuModuleLoadData(&mod, ft_ptx));
    CU_OK(cuModuleGetFunction(&hold, mod, "hold"));
    CU_OK(cuMemAlloc_v2(&dst, 4));
    for (int round = 0; round < 4; round++) {
        struct waiter w[5];
        pthread_t t[5];
        cuabi_stream s;
        cuabi_event e;
        long calls[5];

        CU_OK(cuStreamCreate(&s, 0));
        CU_OK(cuEventCreate(&e, 0));
        gpu_fake_gate(false);
        CU_OK(cuLaunchKernel(hold, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
        CU_OK(cuEventRecord(e, s));
        for (int i = 0; i < 5; i++) {
            calls[i] = gpu_fake_calls(entries[i]);
            w[i] = (struct waiter){i, e, s, dst, CUABI_ERROR_UNKNOWN};
        }
        /* The waiters first, each into its wait; then the destroyer; then the kernel ends. */
        for (int i = 0; i < 5; i++) {
            assert_int_equal(pthread_create(&t[i], NULL, wait_main, &w[i]), 0);
            wait_calls(entries[i], calls[i] + 1);
            sleep_ms(20);
        }
        gpu_fake_gate(true);
        for (int i = 0; i < 5; i++) {
            assert_int_equal(pthread_join(t[i], NULL), 0);
            assert_int_equal(w[i].rc, CUABI_SUCCESS);
        }
        CU_OK(cuEventDestroy_v2(e));
    }
    CU_OK(cuMemFree_v2(dst));
    CU_OK(cuModuleUnload(mod));
}

/* ---- Other threads while a kernel runs ---- */

/* Entries that the tests' host kernels implement. */
static const char host_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry spin_host() { ret; }\n"
                               ".visible .entry fault_host() { ret; }\n";

static atomic_int spin_started, spin_release, spin_done, spin_gave_up;

/* Spins until released, a minute at most, reading the allocation user_data names all the while. */
static int spin_host(const gpu_fake_launch *l)
{
    double until = now_s() + 60;
    cuabi_deviceptr probe = *(const cuabi_deviceptr *)l->user_data;

    atomic_store(&spin_started, 1);
    while (!atomic_load(&spin_release) && gpu_fake_memory(l, probe, 4))
        if (now_s() > until) {
            atomic_store(&spin_gave_up, 1);
            break;
        }
    atomic_store(&spin_done, 1);
    return 0;
}

/* Touches an address no allocation holds: an illegal address. */
static int fault_host(const gpu_fake_launch *l)
{
    (void)gpu_fake_memory(l, 0x10, 4);
    return 0;
}

static void *sync_main(void *arg)
{
    cuCtxSetCurrent(ctx);
    return (void *)(intptr_t)cuStreamSynchronize(arg);
}

static const char global_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                 ".visible .global .align 4 .u32 counter;\n"
                                 ".visible .entry bump()\n"
                                 "{\n"
                                 "\t.reg .b32 %r<2>;\n"
                                 "\tld.global.u32 %r1, [counter];\n"
                                 "\tadd.u32 %r1, %r1, 1;\n"
                                 "\tst.global.u32 [counter], %r1;\n"
                                 "\tret;\n"
                                 "}\n";

/* The first launch of a library's kernel in the context, which loads its module there. */
static void *library_launch_main(void *arg)
{
    cuabi_stream other;
    cuabi_result rc;

    cuCtxSetCurrent(ctx);
    rc = cuStreamCreate(&other, CUABI_STREAM_NON_BLOCKING);
    if (rc == CUABI_SUCCESS)
        rc = cuLaunchKernel((cuabi_function)arg, 1, 1, 1, 1, 1, 1, 0, other, NULL, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamSynchronize(other);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamDestroy_v2(other);
    return (void *)(intptr_t)rc;
}

/* An allocation and its free, which change what a kernel reaches. */
static void *alloc_main(void *arg)
{
    cuabi_deviceptr p;
    cuabi_result rc;

    (void)arg;
    cuCtxSetCurrent(ctx);
    rc = cuMemAlloc_v2(&p, 64);
    if (rc == CUABI_SUCCESS)
        rc = cuMemFree_v2(p);
    return (void *)(intptr_t)rc;
}

static void others_run_meanwhile(void **state)
{
    cuabi_module mod;
    cuabi_function spin;
    cuabi_stream s, pool_stream;
    cuabi_deviceptr pooled;
    static cuabi_deviceptr probe;
    cuabi_library lib;
    cuabi_kernel bump;
    cuabi_device dev = -1;
    pthread_t t, alloc_thread, free_thread, library_thread;
    void *rc;
    int version = 0, status = -1, verdict[2];
    char told = 0;
    pid_t pid;

    (void)state;
    assert_int_equal(gpu_fake_kernel_register("spin_host", spin_host, &probe), 0);
    CU_OK(cuMemAlloc_v2(&probe, 4));
    CU_OK(cuLibraryLoadData(&lib, global_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryGetKernel(&bump, lib, "bump"));
    CU_OK(cuModuleLoadData(&mod, host_ptx));
    CU_OK(cuModuleGetFunction(&spin, mod, "spin_host"));
    CU_OK(cuStreamCreate(&s, CUABI_STREAM_NON_BLOCKING));
    /* A stream-ordered free queued before the kernel, run by another thread while the kernel runs. */
    CU_OK(cuStreamCreate(&pool_stream, CUABI_STREAM_NON_BLOCKING));
    CU_OK(cuMemAllocAsync(&pooled, 64, pool_stream));
    CU_OK(cuStreamSynchronize(pool_stream));
    CU_OK(cuMemFreeAsync(pooled, pool_stream));
    atomic_store(&spin_started, 0);
    atomic_store(&spin_release, 0);
    atomic_store(&spin_done, 0);
    atomic_store(&spin_gave_up, 0);
    CU_OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    /* Another thread's synchronize runs it. */
    assert_int_equal(pthread_create(&t, NULL, sync_main, s), 0);
    {
        double until = now_s() + 60;

        while (!atomic_load(&spin_started) && now_s() < until)
            sleep_ms(1);
    }
    assert_true(atomic_load(&spin_started));
    /* Cheap calls answer while it runs. */
    CU_OK(cuDriverGetVersion(&version));
    assert_true(version > 0);
    CU_OK(cuDeviceGet(&dev, 0));
    assert_int_equal(dev, 0);
    assert_false(atomic_load(&spin_done));
    /*
     * So does fork(); in the child the driver is not initialised, as a real driver's is not. The
     * child tells its verdict through a pipe: under valgrind its exit status is valgrind's, which
     * counts the parent's running launch, whose thread the child lacks, as lost.
     */
    assert_int_equal(pipe(verdict), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int v = 0;
        cuabi_device d;
        char c = '0';

        alarm(60);
        close(verdict[0]);
        if (cuDriverGetVersion(&v) != CUABI_SUCCESS || v != version)
            c = '1';
        else if (cuDeviceGet(&d, 0) != CUABI_ERROR_NOT_INITIALIZED)
            c = '2';
        else if (cuCtxSynchronize() != CUABI_ERROR_NOT_INITIALIZED)
            c = '3';
        if (write(verdict[1], &c, 1) != 1)
            _exit(4);
        _exit(0);
    }
    close(verdict[1]);
    assert_int_equal(pthread_create(&alloc_thread, NULL, alloc_main, NULL), 0);
    assert_int_equal(pthread_create(&free_thread, NULL, sync_main, pool_stream), 0);
    assert_int_equal(pthread_create(&library_thread, NULL, library_launch_main, (void *)bump), 0);
    assert_false(atomic_load(&spin_done));
    atomic_store(&spin_release, 1);
    assert_int_equal(pthread_join(alloc_thread, &rc), 0);
    assert_int_equal((intptr_t)rc, CUABI_SUCCESS);
    assert_int_equal(pthread_join(free_thread, &rc), 0);
    assert_int_equal((intptr_t)rc, CUABI_SUCCESS);
    assert_int_equal(pthread_join(library_thread, &rc), 0);
    assert_int_equal((intptr_t)rc, CUABI_SUCCESS);
    assert_int_equal(pthread_join(t, &rc), 0);
    assert_int_equal((intptr_t)rc, CUABI_SUCCESS);
    assert_false(atomic_load(&spin_gave_up));
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(read(verdict[0], &told, 1), 1);
    close(verdict[0]);
    assert_int_equal(told, '0');
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuStreamDestroy_v2(pool_stream));
    CU_OK(cuLibraryUnload(lib));
    CU_OK(cuMemFree_v2(probe));
    CU_OK(cuModuleUnload(mod));
}

/* ---- A kernel released by another thread's copy ---- */

#if !defined(UNDER_TSAN)

/*
 * Spins on flag[0] until it is nonzero, with an atomic read, then writes 1
 * to out[0]; after 2^32 reads it gives up and writes 2. started[0] is set
 * (in mapped host memory) first.
 */
static const char spin_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry spin_flag(.param .u64 flag, .param .u64 out, .param .u64 started)\n"
                               "{\n"
                               "\t.reg .pred %p<3>;\n"
                               "\t.reg .b32 %r<4>;\n"
                               "\t.reg .b64 %rd<6>;\n"
                               "\tld.param.u64 %rd1, [flag];\n"
                               "\tld.param.u64 %rd2, [out];\n"
                               "\tld.param.u64 %rd3, [started];\n"
                               "\tmov.u32 %r3, 1;\n"
                               "\tatom.global.exch.b32 %r2, [%rd3], %r3;\n"
                               "\tmov.u64 %rd4, 0;\n"
                               "$L_spin:\n"
                               "\tatom.global.or.b32 %r1, [%rd1], 0;\n"
                               "\tsetp.ne.u32 %p1, %r1, 0;\n"
                               "\t@%p1 bra $L_done;\n"
                               "\tadd.u64 %rd4, %rd4, 1;\n"
                               "\tsetp.lt.u64 %p2, %rd4, 4294967296;\n"
                               "\t@%p2 bra $L_spin;\n"
                               "\tmov.u32 %r3, 2;\n"
                               "\tst.global.u32 [%rd2], %r3;\n"
                               "\tret;\n"
                               "$L_done:\n"
                               "\tst.global.u32 [%rd2], %r3;\n"
                               "\tret;\n"
                               "}\n";

struct releaser {
    cuabi_deviceptr flag;
    volatile uint32_t *started;
    cuabi_result rc;
};

static void *release_main(void *arg)
{
    struct releaser *r = arg;
    cuabi_stream other;
    uint32_t one = 1;
    double until = now_s() + 60;

    cuCtxSetCurrent(ctx);
    while (!__atomic_load_n(r->started, __ATOMIC_ACQUIRE) && now_s() < until)
        sleep_ms(1);
    r->rc = cuStreamCreate(&other, CUABI_STREAM_NON_BLOCKING);
    if (r->rc == CUABI_SUCCESS)
        r->rc = cuMemcpyHtoDAsync_v2(r->flag, &one, sizeof(one), other);
    if (r->rc == CUABI_SUCCESS)
        r->rc = cuStreamSynchronize(other);
    if (r->rc == CUABI_SUCCESS)
        r->rc = cuStreamDestroy_v2(other);
    return NULL;
}
#endif

static void released_by_copy(void **state)
{
#if defined(UNDER_TSAN)
    /*
     * The kernel's reads and the copy's write of the flag are a race by C's
     * rules, which a GPU resolves in its memory system: ThreadSanitizer
     * would report the fake's copy, not a defect.
     */
    (void)state;
    skip();
#else
    cuabi_module mod;
    cuabi_function fn;
    cuabi_stream s;
    cuabi_deviceptr flag, out;
    uint32_t *started, got = 0;
    struct releaser r = {0};
    pthread_t t;
    void *params[3];
    cuabi_deviceptr started_dev;

    (void)state;
    CU_OK(cuModuleLoadData(&mod, spin_ptx));
    CU_OK(cuModuleGetFunction(&fn, mod, "spin_flag"));
    CU_OK(cuMemAlloc_v2(&flag, 4));
    CU_OK(cuMemAlloc_v2(&out, 4));
    CU_OK(cuMemsetD32_v2(flag, 0, 1));
    CU_OK(cuMemsetD32_v2(out, 0, 1));
    CU_OK(cuMemHostAlloc((void **)&started, 4, CUABI_MEMHOSTALLOC_DEVICEMAP));
    *started = 0;
    CU_OK(cuMemHostGetDevicePointer_v2(&started_dev, started, 0));
    CU_OK(cuStreamCreate(&s, CUABI_STREAM_NON_BLOCKING));
    params[0] = &flag;
    params[1] = &out;
    params[2] = &started_dev;
    CU_OK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
    r.flag = flag;
    r.started = started;
    r.rc = CUABI_ERROR_UNKNOWN;
    assert_int_equal(pthread_create(&t, NULL, release_main, &r), 0);
    CU_OK(cuStreamSynchronize(s));
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(r.rc, CUABI_SUCCESS);
    CU_OK(cuMemcpyDtoH_v2(&got, out, 4));
    assert_int_equal(got, 1);
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFreeHost(started));
    CU_OK(cuMemFree_v2(flag));
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(mod));
#endif
}

/* ---- Stream callbacks and the status they are told ---- */

static atomic_int callback_entered, fault_seen;
static cuabi_result callback_told;

/*
 * Records its status, then waits (a minute at most) until the other stream's
 * fault is in. The flags are relaxed: the other thread's fault must not be
 * ordered after what this thread did before the callback, or
 * ThreadSanitizer could not see a status read after the lock was dropped.
 */
static void status_wait(cuabi_stream stream, cuabi_result status, void *data)
{
    double until = now_s() + 60;

    (void)stream;
    (void)data;
    callback_told = status;
    atomic_store_explicit(&callback_entered, 1, memory_order_relaxed);
    while (!atomic_load_explicit(&fault_seen, memory_order_relaxed) && now_s() < until)
        sleep_ms(1);
}

static void *fault_main(void *arg)
{
    cuabi_function f = arg;
    cuabi_stream s2;
    cuabi_result rc;
    double until = now_s() + 60;

    cuCtxSetCurrent(ctx);
    while (!atomic_load_explicit(&callback_entered, memory_order_relaxed) && now_s() < until)
        sleep_ms(1);
    rc = cuStreamCreate(&s2, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s2, NULL, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuStreamSynchronize(s2);
    atomic_store_explicit(&fault_seen, 1, memory_order_relaxed);
    return (void *)(intptr_t)rc;
}

/* A context of its own, for a case that corrupts it. */
static cuabi_context own_context(void)
{
    cuabi_context c;

    CU_OK(cuCtxCreate_v2(&c, 0, 0));
    return c;
}

static void callback_status_fixed(void **state)
{
    cuabi_context mine = own_context(), saved = ctx;
    cuabi_module mod;
    cuabi_function f;
    cuabi_stream s;
    pthread_t t;
    void *rc;

    (void)state;
    ctx = mine;
    assert_int_equal(gpu_fake_kernel_register("fault_host", fault_host, NULL), 0);
    CU_OK(cuModuleLoadData(&mod, host_ptx));
    CU_OK(cuModuleGetFunction(&f, mod, "fault_host"));
    CU_OK(cuStreamCreate(&s, 0));
    atomic_store(&callback_entered, 0);
    atomic_store(&fault_seen, 0);
    callback_told = CUABI_ERROR_UNKNOWN;
    CU_OK(cuStreamAddCallback(s, status_wait, NULL, 0));
    assert_int_equal(pthread_create(&t, NULL, fault_main, f), 0);
    /* This thread calls the callback; the other's kernel faults while it runs. */
    assert_int_equal(cuStreamSynchronize(s), CUABI_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(pthread_join(t, &rc), 0);
    assert_int_equal((intptr_t)rc, CUABI_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(callback_told, CUABI_SUCCESS);
    ctx = saved;
    CU_OK(cuCtxDestroy_v2(mine));
    CU_OK(cuCtxSetCurrent(ctx));
}

static cuabi_result told_after_fault;

static void record_status(cuabi_stream stream, cuabi_result status, void *data)
{
    (void)stream;
    (void)data;
    told_after_fault = status;
}

static void callback_after_fault(void **state)
{
    cuabi_context mine = own_context();
    cuabi_module mod;
    cuabi_function f;
    cuabi_stream s;

    (void)state;
    assert_int_equal(gpu_fake_kernel_register("fault_host", fault_host, NULL), 0);
    CU_OK(cuModuleLoadData(&mod, host_ptx));
    CU_OK(cuModuleGetFunction(&f, mod, "fault_host"));
    CU_OK(cuStreamCreate(&s, 0));
    told_after_fault = CUABI_ERROR_UNKNOWN;
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CU_OK(cuStreamAddCallback(s, record_status, NULL, 0));
    assert_int_equal(cuStreamSynchronize(s), CUABI_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(told_after_fault, CUABI_ERROR_ILLEGAL_ADDRESS);
    CU_OK(cuCtxDestroy_v2(mine));
    CU_OK(cuCtxSetCurrent(ctx));
}

/* ---- Unloads and the work queued on what they free ---- */


static void library_unload_drains(void **state)
{
    cuabi_library lib;
    cuabi_kernel k;
    cuabi_function f;
    cuabi_stream s;

    (void)state;
    CU_OK(cuLibraryLoadData(&lib, global_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryGetKernel(&k, lib, "bump"));
    CU_OK(cuKernelGetFunction(&f, k));
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CU_OK(cuLibraryUnload(lib));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuStreamDestroy_v2(s));
}

/* ---- fork() while another thread is inside the fake ---- */

static atomic_bool calling_stop;

static void *calling_main(void *arg)
{
    int n;

    (void)arg;
    while (!atomic_load(&calling_stop))
        (void)cuDeviceGetCount(&n);
    return NULL;
}

static void fork_while_called(void **state)
{
    pthread_t t;
    int hung = 0;

    (void)state;
    atomic_store(&calling_stop, false);
    assert_int_equal(pthread_create(&t, NULL, calling_main, NULL), 0);
    for (int round = 0; round < 200; round++) {
        int status = 0;
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
            int n = -1;

            /* A child that waits for the parent's thread waits for good: the alarm ends it. */
            alarm(20);
            _exit(cuDeviceGetCount(&n) == CUABI_ERROR_NOT_INITIALIZED ? 0 : 1);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status))
            hung++;
        else
            assert_int_equal(WEXITSTATUS(status), 0);
        if (hung)
            break;
    }
    atomic_store(&calling_stop, true);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(hung, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(destroy_while_waited),   cmocka_unit_test(others_run_meanwhile),
        cmocka_unit_test(released_by_copy),       cmocka_unit_test(callback_after_fault),
        cmocka_unit_test(library_unload_drains),  cmocka_unit_test(callback_status_fixed),
        cmocka_unit_test(fork_while_called),
    };

    /* One case, by name: the queue's state after a failed one is not the next one's. */
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, setup, NULL);
}
