/*
 * The fake as a program without gpushim sees it: driver calls made directly,
 * as a CUDA program makes them. One case per process (argv[1]), so that each
 * starts from the fake's configuration of its test().
 *
 *   big-memory  64 GiB allocated on the default device in a machine with far
 *               less memory, a few pages touched and read back, the rest
 *               zero, freed; the process grew by the pages touched only
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        struct CMUnitTest test;
    } cases[] = {
        {"big-memory", cmocka_unit_test(big_memory)},
    };

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
