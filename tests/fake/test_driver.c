/*
 * The fake as a program without gpushim sees it: driver calls made directly,
 * as a CUDA program makes them. One case per process (argv[1]), so that each
 * starts from the fake's configuration of its test().
 *
 *   big-memory  64 GiB allocated on the default device in a machine with far
 *               less memory, a few pages touched and read back, the rest
 *               zero, freed; the process grew by the pages touched only
 *   profiles    each profile (GPUSHIM_FAKE_DEVICE=h200,a100,l4,rtx4090, one a
 *               device) against its board's published figures; every
 *               attribute of CUDA 13.0 answered; gpu_fake_device_profile()
 *   attributes  GPUSHIM_FAKE_ATTRIBUTES's overrides, and the API's
 *   symbols     every function of the driver (src/sys/cuda_symbols.h) found in
 *               the fake with dlsym; prints how many it implements; one it
 *               does not answers CUDA_ERROR_NOT_SUPPORTED, and under
 *               GPUSHIM_FAKE_REPORT=strict fails the run (a child process)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

#define CU_OK(call) assert_int_equal((call), CUABI_SUCCESS)

static cuabi_context retain_current(int device)
{
    cuabi_context ctx = NULL;

    CU_OK(cuInit(0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, device));
    CU_OK(cuCtxSetCurrent(ctx));
    return ctx;
}

/* The process's resident memory in bytes, from /proc/self/statm. */
static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;

    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu %lu", &size, &resident), 2);
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

static void big_memory(void **state)
{
    const size_t gib = (size_t)1 << 30, bytes = 64 * gib, page = 4096;
    const size_t offsets[] = {0, 5 * gib + 123, 32 * gib, bytes - 8};
    cuabi_deviceptr p = 0, q = 0;
    size_t before, total = 0, free_bytes = 0;

    (void)state;
    retain_current(0);
    CU_OK(cuDeviceTotalMem_v2(&total, 0));
    assert_true(total > bytes);
    before = resident_bytes();
    CU_OK(cuMemAlloc_v2(&p, bytes));
    assert_int_equal(gpu_fake_device_used(0), bytes);
    CU_OK(cuMemGetInfo_v2(&free_bytes, &total));
    assert_int_equal(free_bytes, total - bytes);
    for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
        uint64_t v = 0x0123456789abcdefull + i, back = 0, zero = 1;

        CU_OK(cuMemcpyHtoD_v2(p + offsets[i], &v, sizeof(v)));
        CU_OK(cuMemcpyDtoH_v2(&back, p + offsets[i], sizeof(back)));
        assert_int_equal(back, v);
        /* Memory never written reads as zero, as a fresh allocation does here. */
        CU_OK(cuMemcpyDtoH_v2(&zero, p + offsets[i] + (offsets[i] >= page ? -page : page), sizeof(zero)));
        assert_int_equal(zero, 0);
    }
    CU_OK(cuMemsetD8_v2(p + 7 * gib, 0x5a, page));
    /* A few pages touched: the process did not grow by anything like the allocation. */
    assert_true(resident_bytes() - before < 64 * ((size_t)1 << 20));
    /* Past the rest of the device's memory: out of memory, and nothing changes. */
    assert_int_equal(cuMemAlloc_v2(&q, total - bytes + 1), CUABI_ERROR_OUT_OF_MEMORY);
    assert_int_equal(gpu_fake_device_used(0), bytes);
    CU_OK(cuMemFree_v2(p));
    assert_int_equal(gpu_fake_device_used(0), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    /* A limit below the size: the same request is out of memory. */
    assert_int_equal(gpu_fake_memory_limit(0, 32 * gib), 0);
    assert_int_equal(cuMemAlloc_v2(&p, bytes), CUABI_ERROR_OUT_OF_MEMORY);
    CU_OK(cuMemAlloc_v2(&p, 16 * gib));
    CU_OK(cuMemFree_v2(p));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/*
 * Whether this process can map `bytes` as the fake does (no swap reserved):
 * not under valgrind, whose address space is smaller. Without it the case is skipped.
 */
static bool can_map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (p == MAP_FAILED)
        return false;
    munmap(p, bytes);
    return true;
}

/*
 * The boards' published figures (NVIDIA's datasheets and the CUDA
 * Programming Guide's table of compute capabilities), written apart from the
 * fake's own table so that a slip in either shows.
 */
static const struct published {
    const char *profile, *name;
    int sms, clock_mhz, memory_gib, bus_bits, l2_mib, major, minor;
    int threads_per_sm, blocks_per_sm, shared_per_sm_kib, optin_kib, ecc, fp64_ratio;
} boards[] = {
    /* The H200's memory bus and L2 as a real one reports them: its datasheet gives neither. */
    {"h200", "NVIDIA H200", 132, 1980, 141, 6016, 60, 9, 0, 2048, 32, 228, 227, 1, 2},
    {"a100", "NVIDIA A100-SXM4-80GB", 108, 1410, 80, 5120, 40, 8, 0, 2048, 32, 164, 163, 1, 2},
    {"l4", "NVIDIA L4", 58, 2040, 24, 192, 48, 8, 9, 1536, 24, 100, 99, 1, 64},
    {"rtx4090", "NVIDIA GeForce RTX 4090", 128, 2520, 24, 384, 72, 8, 9, 1536, 24, 100, 99, 0, 64},
};

static int attribute(int device, int attribute)
{
    int v = -12345;

    CU_OK(cuDeviceGetAttribute(&v, (cuabi_device_attribute)attribute, device));
    return v;
}

/* Device `d` is the board: every figure it publishes, and the limits every board of its generation shares. */
static void check_board(int d, const struct published *b)
{
    char name[64] = "";
    size_t total = 0;
    const size_t gib = (size_t)1 << 30;

    CU_OK(cuDeviceGetName(name, sizeof(name), d));
    assert_string_equal(name, b->name);
    assert_string_equal(gpu_fake_device_profile_name(d), b->profile);
    CU_OK(cuDeviceTotalMem_v2(&total, d));
    /* What a board reports is a little under its capacity: the driver keeps some. */
    assert_true(total <= (size_t)b->memory_gib * gib && total >= (size_t)b->memory_gib * gib / 100 * 90);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), b->sms);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_CLOCK_RATE), b->clock_mhz * 1000);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH), b->bus_bits);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), b->l2_mib << 20);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), b->major);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), b->minor);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), b->threads_per_sm);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR), b->blocks_per_sm);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
                     b->shared_per_sm_kib << 10);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), b->optin_kib << 10);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_ECC_ENABLED), b->ecc);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO), b->fp64_ratio);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH), b->major >= 9);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED), b->major >= 9);
    /* The same on every board since compute 7.0. */
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z), 64);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), 2147483647);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK), 48 << 10);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK), 65536);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR), 65536);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY), 64 << 10);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK), 1024);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_COMPUTE_MODE), 0);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING), 1);
    assert_int_equal(attribute(d, CUABI_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID), d);
}

static void profiles(void **state)
{
    int count = 0, v = 0;
    cuabi_uuid u0, u1;

    (void)state;
    CU_OK(cuInit(0));
    CU_OK(cuDeviceGetCount(&count));
    assert_int_equal(count, 4);
    for (int d = 0; d < 4; d++) {
        check_board(d, &boards[d]);
        /* Every attribute of CUDA 13.0 has an answer, as on the real driver; none past them. */
        for (int a = 1; a < CUABI_DEVICE_ATTRIBUTE_COUNT; a++)
            assert_int_equal(cuDeviceGetAttribute(&v, (cuabi_device_attribute)a, d), CUABI_SUCCESS);
        assert_int_equal(cuDeviceGetAttribute(&v, (cuabi_device_attribute)CUABI_DEVICE_ATTRIBUTE_COUNT, d),
                         CUABI_ERROR_INVALID_VALUE);
    }
    /* A device takes another profile whole: the L4 becomes an H200, with an H200's UUID for its place. */
    CU_OK(cuDeviceGetUuid_v2(&u0, 2));
    assert_int_equal(gpu_fake_device_attribute_set(2, CUABI_DEVICE_ATTRIBUTE_CLOCK_RATE, 1), 0);
    assert_int_equal(gpu_fake_device_profile(2, "h200"), 0);
    check_board(2, &boards[0]);
    CU_OK(cuDeviceGetUuid_v2(&u1, 2));
    assert_memory_not_equal(u0.bytes, u1.bytes, sizeof(u0.bytes));
    assert_int_equal(u1.bytes[0], 2 * 16 + 1);
    assert_int_equal(gpu_fake_device_profile(2, "h100"), -1);
    assert_int_equal(gpu_fake_device_profile(4, "h200"), -1);
    assert_int_equal(gpu_fake_device_profile(0, NULL), -1);
    assert_null(gpu_fake_device_profile_name(4));
}

static void attributes(void **state)
{
    (void)state;
    CU_OK(cuInit(0));
    /* GPUSHIM_FAKE_ATTRIBUTES=COMPUTE_MODE=2,1:CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE=4096 */
    assert_int_equal(attribute(0, CUABI_DEVICE_ATTRIBUTE_COMPUTE_MODE), 2);
    assert_int_equal(attribute(1, CUABI_DEVICE_ATTRIBUTE_COMPUTE_MODE), 2);
    assert_int_equal(attribute(0, CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 60 << 20);
    assert_int_equal(attribute(1, CUABI_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 4096);
    /* And through the API: one attribute, one device. */
    assert_int_equal(gpu_fake_device_attribute_set(0, CUABI_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 7), 0);
    assert_int_equal(attribute(0, CUABI_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT), 7);
    assert_int_equal(attribute(1, CUABI_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT), 3);
    assert_int_equal(gpu_fake_device_attribute_set(0, 200, 5), 0); /* newer than CUDA 13.0: now known */
    assert_int_equal(attribute(0, 200), 5);
    assert_int_equal(gpu_fake_device_attribute_forget(1, CUABI_DEVICE_ATTRIBUTE_WARP_SIZE), 0);
    assert_int_equal(cuDeviceGetAttribute(&(int){0}, CUABI_DEVICE_ATTRIBUTE_WARP_SIZE, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_device_attribute_set(0, 256, 5), -1);
}

static const char *const driver_symbols[] = {
#define GPU__CUDA_SYMBOL(name, kinds, params) #name,
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
};

enum { SYMBOL_COUNT = sizeof(driver_symbols) / sizeof(driver_symbols[0]) };

static const char *self_exe;

/* A driver function by name, as a program that links libcuda would find it. */
static cuabi_result (*driver_function(void *lib, const char *name))(void)
{
    void *sym = dlsym(lib, name);
    cuabi_result (*fn)(void) = NULL;

    assert_non_null(sym);
    memcpy(&fn, &sym, sizeof(fn));
    return fn;
}

static void symbols(void **state)
{
    void *lib = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    int implemented = 0, status = 0;
    int err[2];
    char text[4096] = "";
    ssize_t got;
    size_t len = 0;
    pid_t pid;

    (void)state;
    assert_non_null(lib);
    for (size_t i = 0; i < SYMBOL_COUNT; i++) {
        int yes = gpu_fake_symbol_implemented(driver_symbols[i]);

        if (!dlsym(lib, driver_symbols[i]))
            fail_msg("%s is not exported", driver_symbols[i]);
        assert_true(yes == 0 || yes == 1);
        implemented += yes;
    }
    printf("fake driver: %d of the %d driver functions implemented (src/sys/cuda_symbols.h)\n", implemented,
           (int)SYMBOL_COUNT);
    assert_int_equal(gpu_fake_symbol_implemented("cuMemAlloc_v2"), 1);
    assert_int_equal(gpu_fake_symbol_implemented("cuNoSuchFunction"), -1);
    /* One the fake does not implement: it says so, and counts the call. */
    assert_int_equal(gpu_fake_symbol_implemented("cuArrayCreate_v2"), 0);
    CU_OK(cuInit(0));
    assert_int_equal(driver_function(lib, "cuArrayCreate_v2")(), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(driver_function(lib, "cuArrayCreate_v2")(), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(gpu_fake_unimplemented_calls(), 2);
    assert_int_equal(gpu_fake_calls("cuArrayCreate_v2"), 2);
    /* A fault rule applies to it as to any entry point. */
    assert_int_equal(gpu_fake_fail("cuArrayCreate_v2", 1, CUABI_ERROR_OUT_OF_MEMORY), 0);
    assert_int_equal(driver_function(lib, "cuArrayCreate_v2")(), CUABI_ERROR_OUT_OF_MEMORY);
    /* Under GPUSHIM_FAKE_REPORT=strict, a run that called one fails, naming it. */
    assert_int_equal(pipe(err), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(err[1], 2);
        close(err[0]);
        setenv("GPUSHIM_FAKE_REPORT", "strict", 1);
        execl(self_exe, self_exe, "symbols-child", (char *)NULL);
        _exit(127);
    }
    close(err[1]);
    while ((got = read(err[0], text + len, sizeof(text) - 1 - len)) > 0)
        len += (size_t)got;
    close(err[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 86);
    assert_non_null(strstr(text, "cuLinkCreate_v2 is not implemented by the fake driver"));
    assert_non_null(strstr(text, "called, not implemented by the fake (CUDA_ERROR_NOT_SUPPORTED): cuLinkCreate_v2 (1)"));
}

/* The child of `symbols`: one call of a function the fake does not implement, and a clean exit otherwise. */
static int symbols_child(void)
{
    void *lib = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    void *sym = lib ? dlsym(lib, "cuLinkCreate_v2") : NULL;
    cuabi_result (*fn)(void) = NULL;

    if (!sym || cuInit(0) != CUABI_SUCCESS)
        return 1;
    memcpy(&fn, &sym, sizeof(fn));
    return fn() == CUABI_ERROR_NOT_SUPPORTED ? 0 : 2;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        struct CMUnitTest test;
    } cases[] = {
        {"big-memory", cmocka_unit_test(big_memory)},
        {"profiles", cmocka_unit_test(profiles)},
        {"attributes", cmocka_unit_test(attributes)},
        {"symbols", cmocka_unit_test(symbols)},
    };

    self_exe = argv[0];
    if (argc == 2 && strcmp(argv[1], "symbols-child") == 0)
        return symbols_child();
    if (argc == 2 && strcmp(argv[1], "big-memory") == 0 && !can_map((size_t)64 << 30)) {
        printf("skipped: this process cannot map 64 GiB (valgrind's address space is smaller)\n");
        return 77;
    }
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++)
        if (strcmp(argv[1], cases[i].name) == 0)
            return _cmocka_run_group_tests(cases[i].name, &cases[i].test, 1, NULL, NULL);
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
}
