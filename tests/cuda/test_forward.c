/* SPDX-License-Identifier: MIT */
/*
 * libgpushim-cuda's forwarders, from a program that loads it as a user's
 * program would link it: every symbol's answer with no driver, on the fake
 * driver (each slot the driver's own export of that name), with a library
 * that is not a driver, from many threads at once and across fork().
 *
 * The case "driver" runs on a real driver (the gpu suite; 77 without one): every
 * symbol the driver exports is what its forwarder's calls land on.
 *
 * usage: test-forward CASE LIBGPUSHIM-CUDA [REASON]; GPUSHIM_LIBCUDA as the case wants,
 * REASON what the no-driver case expects cuGetErrorString(34) to contain.
 * The CUDA declarations it needs are its own: the build needs no toolkit.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpushim/gpushim.h>

enum { SUCCESS = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, STUB_LIBRARY = 34, NOT_SUPPORTED = 801, THREADS = 8 };

typedef unsigned (*no_args_fn)(void);
typedef unsigned (*error_text_fn)(unsigned, const char **);
typedef unsigned (*int_out_fn)(int *);

static const char *cuda_path;
static void *cuda;

static void *symbol(const char *name)
{
    void *p = dlsym(cuda, name);

    if (!p)
        fail_msg("libgpushim-cuda does not export %s", name);
    return p;
}

#define CALL_AS(type, name) ((type)(uintptr_t)symbol(name))

static const char *error_string(unsigned rc)
{
    const char *text = NULL;

    assert_int_equal(CALL_AS(error_text_fn, "cuGetErrorString")(rc, &text), SUCCESS);
    assert_non_null(text);
    return text;
}

static bool is_error_text(const char *name)
{
    return strcmp(name, "cuGetErrorName") == 0 || strcmp(name, "cuGetErrorString") == 0;
}

/* No driver: every function returns CUDA_ERROR_STUB_LIBRARY; cuGetErrorString(34) carries `why`. */
static void every_symbol_is_stub(const char *why)
{
    size_t n = gpu_cuda_get_symbol_count();
    const char *name = NULL;

    assert_true(n >= 600);
    for (size_t i = 0; i < n; i++) {
        void *target = (void *)1;
        gpu_status st = gpu_cuda_get_symbol(i, &name, &target);

        assert_true(st == GPU_ERR_NO_DRIVER);
        assert_null(target);
        if (!is_error_text(name)) /* a no-driver function reads none of its arguments */
            assert_int_equal(CALL_AS(no_args_fn, name)(), STUB_LIBRARY);
    }
    assert_non_null(strstr(error_string(STUB_LIBRARY), why));
    assert_int_equal(CALL_AS(error_text_fn, "cuGetErrorName")(STUB_LIBRARY, &name), SUCCESS);
    assert_string_equal(name, "CUDA_ERROR_STUB_LIBRARY");
    assert_int_equal(CALL_AS(error_text_fn, "cuGetErrorName")(0xDEAD, &name), INVALID_VALUE);
    assert_null(name);
    assert_int_equal(CALL_AS(error_text_fn, "cuGetErrorString")(STUB_LIBRARY, NULL), INVALID_VALUE);
    assert_int_equal(gpu_cuda_get_symbol(n, &name, &(void *){NULL}), GPU_ERR_INVALID_ARG);
    assert_int_equal(gpu_cuda_get_symbol(0, NULL, &(void *){NULL}), GPU_ERR_INVALID_ARG);
}

/* What the case expects gpushim's reason to say (argv[3]). */
static const char *expected_reason = "cannot open shared object file";

static void no_driver(void **state)
{
    every_symbol_is_stub(expected_reason);
    assert_int_equal(gpu_driver_load(), GPU_ERR_NO_DRIVER); /* the same one load, as gpushim's own API sees it */
}

/* GPUSHIM_LIBCUDA naming libgpushim-cuda itself: refused before its cuInit is called, never a recursion. */
static void self(void **state)
{
    every_symbol_is_stub("gpushim's own forwarder");
}

/*
 * Where a call of libgpushim-cuda's `name` lands: the slot its trampoline
 * reads holds the target. On x86-64 the trampoline is `jmp *slot(%rip)` (ff
 * 25, then the slot's distance from the next instruction); on AArch64
 * `adrp x16, slot; ldr x16, [x16, lo12(slot)]; br x16`.
 */
static void *landing(const char *name)
{
    const unsigned char *code = symbol(name);
    const unsigned char *slot;
    void *target;

#if defined(__aarch64__)
    uint32_t adrp, ldr;
    int64_t page;

    memcpy(&adrp, code, sizeof(adrp));
    memcpy(&ldr, code + 4, sizeof(ldr));
    assert_int_equal(adrp & 0x9f00001f, 0x90000010); /* adrp x16 */
    assert_int_equal(ldr & 0xffc003ff, 0xf9400210);  /* ldr x16, [x16, #imm] */
    /* The page offset: 21 bits (immhi, immlo), sign-extended, times 4096. */
    page = (int64_t)((uint64_t)((((adrp >> 5) & 0x7ffff) << 2) | ((adrp >> 29) & 3)) << 43) >> 31;
    slot = (const unsigned char *)(((uintptr_t)code & ~(uintptr_t)0xfff) + (uintptr_t)page) + ((ldr >> 10) & 0xfff) * 8;
#else
    int32_t distance;

    assert_int_equal(code[0], 0xff);
    assert_int_equal(code[1], 0x25);
    memcpy(&distance, code + 2, sizeof(distance));
    slot = code + 6 + distance;
#endif
    memcpy(&target, slot, sizeof(target));
    return target;
}

/*
 * Each slot is the driver's export of the very name, or CUDA_ERROR_NOT_SUPPORTED:
 * the fake driver's (GPUSHIM_LIBCUDA), or the real one's (libcuda.so.1).
 */
static void driver_slots(void **state)
{
    const char *file = getenv("GPUSHIM_LIBCUDA") ? getenv("GPUSHIM_LIBCUDA") : "libcuda.so.1";
    void *driver;
    size_t n = gpu_cuda_get_symbol_count(), forwarded = 0, missing = 0;
    int count = -1;

    /* A first call through a forwarder loads the driver. */
    assert_int_equal(CALL_AS(int_out_fn, "cuDeviceGetCount")(&count), SUCCESS);
    assert_true(count >= 1);
    assert_non_null(driver = dlopen(file, RTLD_NOW | RTLD_NOLOAD));
    for (size_t i = 0; i < n; i++) {
        const char *name;
        void *target = NULL;
        gpu_status st = gpu_cuda_get_symbol(i, &name, &target);
        void *own = dlsym(driver, name);

        if (own) {
            assert_int_equal(st, GPU_OK);
            assert_ptr_equal(target, own);
            assert_ptr_equal(landing(name), own); /* no wrapper between the trampoline and the driver */
            forwarded++;
        } else {
            assert_int_equal(st, GPU_ERR_NOT_SUPPORTED);
            assert_non_null(strstr(gpu_last_error_get_message(), name));
            assert_null(target);
            assert_int_equal(CALL_AS(no_args_fn, name)(), NOT_SUPPORTED);
            missing++;
        }
    }
    printf("%s: %zu of %zu symbols forwarded to its exports, each the same address; %zu answer "
           "CUDA_ERROR_NOT_SUPPORTED\n",
           file, forwarded, n, missing);
    assert_true(forwarded > 100);
    /* gpu_driver_get_symbol: the same lookup, for one name. */
    void *p = NULL;
    assert_int_equal(gpu_driver_get_symbol("cuDeviceGetCount", &p), GPU_OK);
    assert_ptr_equal(p, dlsym(driver, "cuDeviceGetCount"));
    assert_int_equal(gpu_driver_get_symbol("cuNoSuchFunction", &p), GPU_ERR_NOT_SUPPORTED);
    assert_int_equal(gpu_driver_get_symbol(NULL, &p), GPU_ERR_INVALID_ARG);
    dlclose(driver);
}

/*
 * A driver whose exports lie in libgpushim-cuda (it links it): each is refused,
 * and a call answers CUDA_ERROR_NOT_SUPPORTED instead of calling itself forever.
 */
static void wrapped(void **state)
{
    int count = -1, version = 0;
    const char *name;
    void *target = (void *)1;

    assert_int_equal(CALL_AS(int_out_fn, "cuDriverGetVersion")(&version), SUCCESS); /* the wrapper's own */
    assert_int_equal(version, 12080);
    assert_int_equal(CALL_AS(int_out_fn, "cuDeviceGetCount")(&count), NOT_SUPPORTED);
    assert_int_equal(count, -1);
    for (size_t i = 0; i < gpu_cuda_get_symbol_count(); i++) {
        gpu_status st = gpu_cuda_get_symbol(i, &name, &target);

        if (strcmp(name, "cuDeviceGetCount") == 0) {
            assert_int_equal(st, GPU_ERR_DRIVER);
            assert_non_null(strstr(gpu_last_error_get_message(), "inside gpushim"));
            assert_null(target);
        }
    }
}

static pthread_barrier_t start;
static unsigned results[THREADS];

static void *first_call(void *arg)
{
    int version = 0;

    pthread_barrier_wait(&start);
    results[(intptr_t)arg] = CALL_AS(int_out_fn, "cuDriverGetVersion")(&version);
    return NULL;
}

/* Many threads make the process's first call at once: one resolution, the same answer for all. */
static void threads(void **state)
{
    pthread_t t[THREADS];

    pthread_barrier_init(&start, NULL, THREADS);
    for (intptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, first_call, (void *)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(results[i], SUCCESS);
}

/*
 * After the parent resolved, a child's calls reach the driver as they would
 * under -lcuda: the parent's load initialised it, so the driver answers the
 * child NOT_INITIALIZED (CUDA is not fork-safe), not the forwarder's own 34.
 */
static void fork_after(void **state)
{
    int version = 0, status = 0;
    pid_t pid;

    assert_int_equal(CALL_AS(int_out_fn, "cuDriverGetVersion")(&version), SUCCESS);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int count = 0;

        _exit(CALL_AS(int_out_fn, "cuDeviceGetCount")(&count) == NOT_INITIALIZED && count == 0 ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        struct CMUnitTest test;
    } cases[] = {
        {"no-driver", cmocka_unit_test(no_driver)},
        {"self", cmocka_unit_test(self)},
        {"fake", cmocka_unit_test(driver_slots)},
        {"driver", cmocka_unit_test(driver_slots)},
        {"threads", cmocka_unit_test(threads)},
        {"wrapped", cmocka_unit_test(wrapped)},
        {"fork", cmocka_unit_test(fork_after)},
    };

    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s CASE LIBGPUSHIM-CUDA [REASON]\n", argv[0]);
        return 2;
    }
    cuda_path = argv[2];
    if (argc > 3)
        expected_reason = argv[3];
    if (strcmp(argv[1], "driver") == 0 && gpu_driver_load() != GPU_OK) {
        printf("skipped: no usable driver: %s\n", gpu_last_error_get_message());
        return 77;
    }
    cuda = dlopen(cuda_path, RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (strcmp(argv[1], cases[i].name) == 0)
            return _cmocka_run_group_tests(cases[i].name, &cases[i].test, 1, NULL, NULL);
    fprintf(stderr, "no case %s\n", argv[1]);
    return 2;
}
