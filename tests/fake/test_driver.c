/* SPDX-License-Identifier: MIT */
/*
 * The fake as a program without gpushim sees it: driver calls made directly,
 * as a CUDA program makes them. One case per process (argv[1]), so that each
 * starts from the fake's configuration of its test().
 *
 *   big-memory  64 GiB allocated on the default device in a machine with far
 *               less memory, a few pages touched and read back, the rest
 *               zero, freed; the process grew by the pages touched only
 *   host-memory two devices by default on this host: together they report no
 *               more than half the host's memory, each no more than its board;
 *               with GPUSHIM_FAKE_DEVICE_MEMORY=board, each the board's
 *   legacy-launch  the legacy launch API: cuFuncSetBlockShape, cuParamSet*,
 *               cuLaunch, cuLaunchGrid, cuLaunchGridAsync, and their refusals
 *   profiles    each profile (GPUSHIM_FAKE_DEVICE=h200,a100,l4,rtx4090, one a
 *               device) against its board's published figures; every
 *               attribute of CUDA 13.0 answered; gpu_fake_device_profile()
 *   attributes  GPUSHIM_FAKE_ATTRIBUTES's overrides, and the API's
 *   symbols     every function of the driver (src/sys/cuda_symbols.h) found in
 *               the fake with dlsym; prints how many it implements; one it
 *               does not answers CUDA_ERROR_NOT_SUPPORTED, and under
 *               GPUSHIM_FAKE_REPORT=strict fails the run (a child process)
 *   host-side   what a driver-API program does besides its kernels: contexts
 *               of its own (cuCtxCreate's three revisions, destroy, flags),
 *               modules from memory, a fatbin or a file, a vector add in its
 *               context, pitched memory and 2D fills, pointer attributes,
 *               the occupancy calculators without flags
 *   host-sweep  each driver call of those operations failed in turn: nothing
 *               is left alive
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

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

/* The host's memory in bytes (MemTotal), or 0 where /proc/meminfo cannot say. */
static size_t host_total(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kib = 0;

    if (!f)
        return 0;
    if (fscanf(f, "MemTotal: %llu kB", &kib) != 1)
        kib = 0;
    fclose(f);
    return (size_t)kib << 10;
}

/* Two devices: by default no more memory together than half the host has; with "board" each the board's. */
static void host_memory(void **state)
{
    const size_t board = 150109880320; /* the H200 profile's */
    const char *asked = getenv("GPUSHIM_FAKE_DEVICE_MEMORY");
    size_t total[2] = {0, 0}, host = host_total();

    (void)state;
    CU_OK(cuInit(0));
    for (int d = 0; d < 2; d++) {
        CU_OK(cuDeviceTotalMem_v2(&total[d], d));
        if (asked && strcmp(asked, "board") == 0)
            assert_int_equal(total[d], board);
        else
            assert_true(total[d] > 0 && total[d] <= board);
    }
    if (host && !asked)
        assert_true(total[0] + total[1] <= host / 2);
}

static void big_memory(void **state)
{
    const size_t gib = (size_t)1 << 30, bytes = 64 * gib, page = 4096;
    const size_t offsets[] = {0, 5 * gib + 123, 32 * gib, bytes - 8};
    cuabi_deviceptr p = 0, q = 0;
    size_t before, total = 0, free_bytes = 0;

    (void)state;
    ft_retain_current(0);
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

/*
 * README.md (GPUSHIM_TEST_README) gives both counts as they are: "every one
 * of the N functions" and "M are implemented".
 */
static void readme_says(int implemented, int count)
{
    const char *path = getenv("GPUSHIM_TEST_README");
    char text[65536], want[64];
    size_t n;
    FILE *f;

    if (!path)
        return;
    assert_non_null(f = fopen(path, "r"));
    n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    snprintf(want, sizeof(want), "\n%d are implemented", implemented);
    if (!strstr(text, want))
        fail_msg("README.md does not say \"%d are implemented\" (the fake's count)", implemented);
    snprintf(want, sizeof(want), "every one of the %d\n", count);
    if (!strstr(text, want))
        fail_msg("README.md does not say \"every one of the %d\" (src/sys/cuda_symbols.h's count)", count);
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
    readme_says(implemented, (int)SYMBOL_COUNT);
    assert_int_equal(gpu_fake_symbol_implemented("cuMemAlloc_v2"), 1);
    assert_int_equal(gpu_fake_symbol_implemented("cuNoSuchFunction"), -1);
    /* One the fake does not implement: it says so, and counts the call. */
    assert_int_equal(gpu_fake_symbol_implemented("cuGraphicsMapResources"), 0);
    CU_OK(cuInit(0));
    assert_int_equal(driver_function(lib, "cuGraphicsMapResources")(), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(driver_function(lib, "cuGraphicsMapResources")(), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(gpu_fake_unimplemented_calls(), 2);
    assert_int_equal(gpu_fake_calls("cuGraphicsMapResources"), 2);
    /*
     * The graphics interop is exported (a program that links it starts) and
     * says there is no graphics context; cuGLInit, a no-op, succeeds.
     */
    assert_int_equal(driver_function(lib, "cuGraphicsGLRegisterBuffer")(), CUABI_ERROR_INVALID_GRAPHICS_CONTEXT);
    assert_int_equal(driver_function(lib, "cuGLCtxCreate_v2")(), CUABI_ERROR_INVALID_GRAPHICS_CONTEXT);
    assert_int_equal(driver_function(lib, "cuEGLStreamConsumerConnect")(), CUABI_ERROR_INVALID_GRAPHICS_CONTEXT);
    assert_int_equal(driver_function(lib, "cuVDPAUGetDevice")(), CUABI_ERROR_INVALID_GRAPHICS_CONTEXT);
    assert_int_equal(driver_function(lib, "cuGLInit")(), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_unimplemented_calls(), 6);
    /* A fault rule applies to it as to any entry point. */
    assert_int_equal(gpu_fake_fail("cuGraphicsMapResources", 1, CUABI_ERROR_OUT_OF_MEMORY), 0);
    assert_int_equal(driver_function(lib, "cuGraphicsMapResources")(), CUABI_ERROR_OUT_OF_MEMORY);
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
    assert_non_null(strstr(text, "cuCoredumpGetAttribute is not implemented by the fake driver"));
    assert_non_null(strstr(text, "called, not implemented by the fake (CUDA_ERROR_NOT_SUPPORTED): cuCoredumpGetAttribute (1)"));
}

/* The child of `symbols`: one call of a function the fake does not implement, and a clean exit otherwise. */
static int symbols_child(void)
{
    void *lib = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    void *sym = lib ? dlsym(lib, "cuCoredumpGetAttribute") : NULL;
    cuabi_result (*fn)(void) = NULL;

    if (!sym || cuInit(0) != CUABI_SUCCESS)
        return 1;
    memcpy(&fn, &sym, sizeof(fn));
    return fn() == CUABI_ERROR_NOT_SUPPORTED ? 0 : 2;
}

/* A file holding `text`, mode 0600, in the temporary folder; its path in `path`. */
static void temp_file(char *path, size_t size, const char *text)
{
    int fd;

    snprintf(path, size, "%s/fake-module-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void contexts(void)
{
    cuabi_context primary = NULL, a = NULL, b = NULL, cur = NULL;
    cuabi_ctx_create_params params = {0};
    cuabi_deviceptr p = 0;
    cuabi_device dev = -1;
    unsigned flags = 0, version = 0;

    CU_OK(cuDevicePrimaryCtxRetain(&primary, 0));
    assert_int_equal(cuCtxCreate_v2(&a, 3, 0), CUABI_ERROR_INVALID_VALUE); /* two scheduling flags */
    assert_int_equal(cuCtxCreate_v2(&a, 0x100, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxCreate_v2(&a, 0, 1), CUABI_ERROR_INVALID_DEVICE);
    assert_int_equal(cuCtxCreate_v2(NULL, 0, 0), CUABI_ERROR_INVALID_VALUE);
    /* Made current on this thread, with its flags. */
    CU_OK(cuCtxCreate_v2(&a, 4, 0));
    assert_ptr_not_equal(a, primary);
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, a);
    CU_OK(cuCtxGetDevice(&dev));
    assert_int_equal(dev, 0);
    CU_OK(cuCtxGetFlags(&flags));
    assert_int_equal(flags, 4);
    CU_OK(cuCtxSetFlags(1));
    CU_OK(cuCtxGetFlags(&flags));
    assert_int_equal(flags, 1);
    CU_OK(cuCtxGetApiVersion(a, &version));
    assert_int_equal(version, 3020);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 1);
    CU_OK(cuMemAlloc_v2(&p, 4096));
    /* _v4 with no parameters, and _v3 without affinity, are contexts too; with them, not supported. */
    CU_OK(cuCtxCreate_v4(&b, NULL, 0, 0));
    CU_OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, b);
    CU_OK(cuCtxPopCurrent_v2(&cur));
    assert_ptr_equal(cur, b);
    CU_OK(cuCtxDestroy_v2(b));
    assert_int_equal(cuCtxPushCurrent_v2(b), CUABI_ERROR_INVALID_CONTEXT); /* gone for good */
    assert_int_equal(cuCtxDestroy_v2(b), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuCtxCreate_v3(&b, NULL, 0, 0, 0));
    CU_OK(cuCtxDestroy_v2(b));
    assert_int_equal(cuCtxCreate_v3(&b, (cuabi_exec_affinity_param *)&params, 1, 0, 0), CUABI_ERROR_NOT_SUPPORTED);
    params.cig = (cuabi_ctx_cig_param *)&params;
    assert_int_equal(cuCtxCreate_v4(&b, &params, 0, 0), CUABI_ERROR_NOT_SUPPORTED);
    params.cig = NULL;
    params.exec_affinity_count = -1;
    assert_int_equal(cuCtxCreate_v4(&b, &params, 0, 0), CUABI_ERROR_INVALID_VALUE);
    /* A primary context is released, never destroyed. */
    assert_int_equal(cuCtxDestroy_v2(primary), CUABI_ERROR_INVALID_CONTEXT);
    /* Destroying a context frees what was allocated in it, and takes it off this thread's stack. */
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 1);
    CU_OK(cuCtxDestroy_v2(a));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 0);
    CU_OK(cuCtxGetCurrent(&cur));
    assert_null(cur);
    assert_int_equal(cuCtxGetDevice(&dev), CUABI_ERROR_INVALID_CONTEXT);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* cuModuleLoadData, then a vector add (add_one) in a context of the program's own. */
static void vector_add(void)
{
    enum { N = 1000 };
    static uint32_t in[N], out[N];
    cuabi_context ctx = NULL;
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    cuabi_deviceptr d = 0;
    unsigned n = N;
    void *params[] = {&d, &n};

    for (unsigned i = 0; i < N; i++)
        in[i] = i * 7;
    CU_OK(cuCtxCreate_v2(&ctx, 0, 0));
    CU_OK(cuModuleLoadData(&m, ft_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "add_one"));
    CU_OK(cuMemAlloc_v2(&d, sizeof(in)));
    CU_OK(cuMemcpyHtoD_v2(d, in, sizeof(in)));
    CU_OK(cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof(out)));
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(out[i], in[i] + 1);
    /* The module and the memory go with the context. */
    CU_OK(cuCtxDestroy_v2(ctx));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

/*
 * The legacy launch API: a PTX add_one's pointer and count written at their byte
 * offsets (cuParamSetv, cuParamSeti, then cuParamSetf with the count's bits),
 * its block shape and a 2D grid; the refusals of a launch with no block
 * shape, a buffer of the wrong size, offsets past the parameter space.
 */
static const char legacy_ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                                 ".visible .entry add_one(.param .u64 p, .param .u32 n)\n{\n"
                                 "  .reg .pred %q;\n  .reg .b32 %r<6>;\n  .reg .b64 %d<4>;\n"
                                 "  ld.param.u64 %d1, [p];\n  ld.param.u32 %r1, [n];\n"
                                 "  mov.u32 %r2, %ctaid.y;\n  mov.u32 %r3, %nctaid.x;\n  mov.u32 %r4, %ctaid.x;\n"
                                 "  mad.lo.u32 %r2, %r2, %r3, %r4;\n  mov.u32 %r3, %ntid.x;\n  mul.lo.u32 %r3, %r3, %ntid.y;\n"
                                 "  mov.u32 %r4, %tid.y;\n  mov.u32 %r5, %ntid.x;\n  mad.lo.u32 %r4, %r4, %r5, %tid.x;\n"
                                 "  mad.lo.u32 %r2, %r2, %r3, %r4;\n  setp.ge.u32 %q, %r2, %r1;\n  @%q bra done;\n"
                                 "  cvta.to.global.u64 %d1, %d1;\n  mul.wide.u32 %d2, %r2, 4;\n  add.s64 %d1, %d1, %d2;\n"
                                 "  ld.global.u32 %r3, [%d1];\n  add.s32 %r3, %r3, 1;\n  st.global.u32 [%d1], %r3;\n"
                                 "done:\n  ret;\n}\n";

static void legacy_launch(void **state)
{
    enum { N = 1000 };
    static uint32_t in[N], out[N];
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    cuabi_deviceptr d = 0;
    unsigned half = 500;
    float half_bits;

    (void)state;
    ft_retain_current(0);
    for (unsigned i = 0; i < N; i++)
        in[i] = i * 3;
    CU_OK(cuModuleLoadData(&m, legacy_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "add_one"));
    CU_OK(cuMemAlloc_v2(&d, sizeof(in)));
    CU_OK(cuMemcpyHtoD_v2(d, in, sizeof(in)));
    CU_OK(cuParamSetv(f, 0, &d, sizeof(d)));
    CU_OK(cuParamSeti(f, 8, N));
    CU_OK(cuParamSetSize(f, 12));
    assert_int_equal(cuLaunchGrid(f, 4, 1), CUABI_ERROR_INVALID_VALUE); /* no block shape yet */
    CU_OK(cuFuncSetBlockShape(f, 128, 2, 1));
    CU_OK(cuFuncSetSharedSize(f, 0));
    CU_OK(cuLaunchGrid(f, 2, 2)); /* 4 blocks of 256 threads */
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof(out)));
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(out[i], in[i] + 1);
    /* A count of 500 by its bits, as a float; one block of 256, then the rest on a stream. */
    memcpy(&half_bits, &half, sizeof(half_bits));
    CU_OK(cuParamSetf(f, 8, half_bits));
    CU_OK(cuFuncSetBlockShape(f, 256, 1, 1));
    CU_OK(cuLaunch(f));
    CU_OK(cuLaunchGridAsync(f, 2, 1, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(out, d, sizeof(out)));
    /* The first 256 took two more, the rest of the first 500 one more: add_one runs blocks x 256 threads below n. */
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(out[i], in[i] + 1 + (i < 256) + (i < half));
    /* The parameter buffer's size must be what the entry declares. */
    CU_OK(cuParamSetSize(f, 16));
    assert_int_equal(cuLaunchGrid(f, 1, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSetSize(f, 1 << 20), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSeti(f, 32764, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSeti(f, -4, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSetv(f, 0, NULL, 8), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncSetBlockShape(f, 0, 1, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchGrid(f, 0, 1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncSetBlockShape(NULL, 1, 1, 1), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLaunch(NULL), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void module_forms(void)
{
    char path[256], link[300];
    cuabi_module m = NULL;
    cuabi_function f = NULL;

    ft_retain_current(0);
    CU_OK(cuModuleLoadFatBinary(&m, ft_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "fill_u32"));
    CU_OK(cuModuleUnload(m));
    temp_file(path, sizeof(path), ft_ptx);
    CU_OK(cuModuleLoad(&m, path));
    CU_OK(cuModuleGetFunction(&f, m, "copy_u32"));
    CU_OK(cuModuleUnload(m));
    /* What the fake will not read: a link, a file others may write; none at all. */
    snprintf(link, sizeof(link), "%s.link", path);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(cuModuleLoad(&m, link), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(chmod(path, 0666), 0);
    assert_int_equal(cuModuleLoad(&m, path), CUABI_ERROR_INVALID_VALUE);
    unlink(link);
    unlink(path);
    assert_int_equal(cuModuleLoad(&m, path), CUABI_ERROR_FILE_NOT_FOUND);
    assert_int_equal(cuModuleLoad(&m, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void pitched(void)
{
    enum { W = 1000, H = 7 };
    static uint32_t back[H][256];
    cuabi_deviceptr d = 0, base = 0;
    size_t pitch = 0;
    int type = 0;

    ft_retain_current(0);
    assert_int_equal(cuMemAllocPitch_v2(&d, &pitch, W, H, 3), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemAllocPitch_v2(&d, &pitch, W, H, 4));
    assert_int_equal(pitch, 1024);
    /* Rows of 250 words set, the 6 words of padding after each untouched. */
    CU_OK(cuMemsetD2D32_v2(d, pitch, 0xabcd1234u, W / 4, H));
    CU_OK(cuMemsetD2D8Async(d + pitch, pitch, 0x11, 8, 2, NULL));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuMemcpyDtoH_v2(back, d, sizeof(back)));
    for (int r = 0; r < H; r++)
        for (int i = 0; i < 256; i++) {
            uint32_t want = i >= W / 4 ? 0 : (r == 1 || r == 2) && i < 2 ? 0x11111111u : 0xabcd1234u;

            assert_int_equal(back[r][i], want);
        }
    assert_int_equal(cuMemsetD2D32_v2(d, 16, 0, 8, 2), CUABI_ERROR_INVALID_VALUE);       /* pitch under a row */
    assert_int_equal(cuMemsetD2D32_v2(d, pitch, 0, 8, H + 1), CUABI_ERROR_INVALID_VALUE); /* past the end */
    assert_int_equal(cuMemsetD2D16_v2(d + 1, pitch, 0, 8, 2), CUABI_ERROR_INVALID_VALUE); /* misaligned */
    CU_OK(cuPointerGetAttribute(&base, CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 5 * pitch + 12));
    assert_int_equal(base, d);
    CU_OK(cuPointerGetAttribute(&type, CUABI_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    assert_int_equal(type, CUABI_MEMORYTYPE_DEVICE);
    assert_int_equal(cuPointerGetAttribute(&base, CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR, 0x1000),
                     CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree_v2(d));
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void occupancy_and_device(void)
{
    cuabi_module m = NULL;
    cuabi_function f = NULL;
    int a = -1, b = -2, grid_a = 0, block_a = 0, grid_b = 1, block_b = 1, major = 0, minor = 0;
    size_t shared = 0;
    cuabi_uuid u1, u2;

    ft_retain_current(0);
    CU_OK(cuModuleLoadData(&m, ft_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "add_one"));
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&a, f, 256, 1024));
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&b, f, 256, 1024, 0));
    assert_int_equal(a, b);
    assert_true(a > 0);
    CU_OK(cuOccupancyMaxPotentialBlockSize(&grid_a, &block_a, f, NULL, 0, 0));
    CU_OK(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid_b, &block_b, f, NULL, 0, 0, 0));
    assert_int_equal(grid_a, grid_b);
    assert_int_equal(block_a, block_b);
    /* The most shared memory with which 4 blocks of 256 threads still fit: one byte more, and they do not. */
    CU_OK(cuOccupancyAvailableDynamicSMemPerBlock(&shared, f, 4, 256));
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&a, f, 256, shared));
    assert_true(a >= 4);
    if (shared < 48 * 1024) {
        CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&a, f, 256, shared + 1));
        assert_true(a < 4);
    }
    assert_int_equal(cuOccupancyAvailableDynamicSMemPerBlock(&shared, f, 0, 256), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuModuleUnload(m));
    CU_OK(cuDeviceGetUuid(&u1, 0));
    CU_OK(cuDeviceGetUuid_v2(&u2, 0));
    assert_memory_equal(u1.bytes, u2.bytes, sizeof(u1.bytes));
    CU_OK(cuDeviceComputeCapability(&major, &minor, 0));
    assert_int_equal(major * 10 + minor, 90);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

static void host_side(void **state)
{
    (void)state;
    CU_OK(cuInit(0));
    contexts();
    vector_add();
    module_forms();
    pitched();
    occupancy_and_device();
}

/* The operations of host_side as one sequence of driver calls, stopping at the first failure and cleaning up. */
static cuabi_result host_sequence(void)
{
    cuabi_context ctx = NULL;
    cuabi_module m = NULL;
    cuabi_deviceptr d = 0;
    size_t pitch = 0;
    cuabi_result rc = cuCtxCreate_v4(&ctx, NULL, 0, 0);

    if (rc == CUABI_SUCCESS)
        rc = cuModuleLoadData(&m, ft_ptx);
    if (rc == CUABI_SUCCESS)
        rc = cuMemAllocPitch_v2(&d, &pitch, 100, 10, 4);
    if (rc == CUABI_SUCCESS)
        rc = cuMemsetD2D8_v2(d, pitch, 1, 100, 10);
    if (rc == CUABI_SUCCESS)
        rc = cuMemsetD2D32Async(d, pitch, 1, 25, 10, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuCtxSynchronize();
    if (d)
        cuMemFree_v2(d);
    if (m)
        cuModuleUnload(m);
    if (ctx && cuCtxDestroy_v2(ctx) != CUABI_SUCCESS)
        cuCtxDestroy_v2(ctx); /* a failed destroy is tried again, as a careful program would */
    return rc;
}

static void host_sweep(void **state)
{
    static const char *const calls[] = {"cuCtxCreate_v4", "cuModuleLoadData", "cuMemAllocPitch_v2", "cuMemsetD2D8_v2",
                                        "cuMemsetD2D32Async", "cuCtxSynchronize", "cuMemFree_v2", "cuModuleUnload",
                                        "cuCtxDestroy_v2"};
    gpu_fake_live_counts before, after;

    (void)state;
    CU_OK(cuInit(0));
    CU_OK(host_sequence());
    gpu_fake_live_get(&before);
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        assert_int_equal(gpu_fake_fail(calls[i], 1, CUABI_ERROR_UNKNOWN), 0);
        host_sequence();
        gpu_fake_fail_reset();
        gpu_fake_live_get(&after);
        for (int k = 0; k < GPU_FAKE_LIVE_KIND_COUNT; k++)
            if (after.count[k] != before.count[k])
                fail_msg("%s failed: live kind %d went from %ld to %ld", calls[i], k, before.count[k], after.count[k]);
    }
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_CONTEXTS), 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        struct CMUnitTest test;
    } cases[] = {
        {"big-memory", cmocka_unit_test(big_memory)},
        {"host-memory", cmocka_unit_test(host_memory)},
        {"legacy-launch", cmocka_unit_test(legacy_launch)},
        {"host-memory-board", cmocka_unit_test(host_memory)},
        {"profiles", cmocka_unit_test(profiles)},
        {"attributes", cmocka_unit_test(attributes)},
        {"symbols", cmocka_unit_test(symbols)},
        {"host-side", cmocka_unit_test(host_side)},
        {"host-sweep", cmocka_unit_test(host_sweep)},
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
