/* SPDX-License-Identifier: MIT */
/*
 * vmm: virtual memory management. One range of addresses is reserved
 * (cuMemAddressReserve) and two physical allocations of the minimum
 * granularity (cuMemGetAllocationGranularity, cuMemCreate) are mapped side
 * by side into it (cuMemMap) and made readable and writable (cuMemSetAccess).
 * The contiguous range is then used like any device memory: cuMemsetD32, a
 * copy across the seam between the two allocations, and vector_add with its
 * three vectors on both sides of it; all checked, then unmapped and freed.
 *
 * usage: vmm VECTOR_ADD_PTX
 */
#include "common.h"

enum { BLOCK = 256 };

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction kernel;
    CUmemAllocationProp prop;
    CUmemAccessDesc access;
    CUmemGenericAllocationHandle handles[2];
    CUdeviceptr base;
    size_t granularity = 0, size, words, n;
    int supported = 0;
    unsigned *host;

    if (argc != 2)
        usage(argv[0], "VECTOR_ADD_PTX");
    CHECK(cuInit(0));
    ctx = context_create(&dev);
    CHECK(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    if (!supported) {
        fprintf(stderr, "device 0 does not support virtual memory management\n");
        return 1;
    }

    memset(&prop, 0, sizeof(prop));
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    CHECK(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (granularity == 0 || granularity % sizeof(unsigned) != 0)
        result_wrong("the allocation granularity");
    size = 2 * granularity;
    words = size / sizeof(unsigned);
    printf("vmm: granularity %zu bytes; two allocations mapped side by side, %zu bytes\n", granularity, size);

    CHECK(cuMemAddressReserve(&base, size, 0, 0, 0));
    CHECK(cuMemCreate(&handles[0], granularity, &prop, 0));
    CHECK(cuMemCreate(&handles[1], granularity, &prop, 0));
    CHECK(cuMemMap(base, granularity, 0, handles[0], 0));
    CHECK(cuMemMap(base + granularity, granularity, 0, handles[1], 0));
    /* A mapping keeps its allocation: the handles are not needed any more. */
    CHECK(cuMemRelease(handles[0]));
    CHECK(cuMemRelease(handles[1]));
    memset(&access, 0, sizeof(access));
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(base, size, &access, 1));

    host = malloc(size);
    if (host == NULL)
        result_wrong("out of host memory");

    /* A memset of the whole range, then a copy over the seam. */
    CHECK(cuMemsetD32(base, 0xa5a5a5a5u, words));
    {
        size_t span = granularity / 2, from = (granularity - span / 2) / sizeof(unsigned);

        for (size_t i = 0; i < span / sizeof(unsigned); i++)
            host[i] = (unsigned)(i * 2654435761u);
        CHECK(cuMemcpyHtoD(base + from * sizeof(unsigned), host, span));
        CHECK(cuMemcpyDtoH(host, base, size));
        for (size_t i = 0; i < words; i++) {
            unsigned want = i >= from && i < from + span / sizeof(unsigned)
                                ? (unsigned)((i - from) * 2654435761u) : 0xa5a5a5a5u;
            if (host[i] != want) {
                fprintf(stderr, "word %zu: %#x, expected %#x\n", i, host[i], want);
                result_wrong("memset and copy across the two allocations");
            }
        }
        printf("vmm: cuMemsetD32 and a %zu-byte copy across the seam: right\n", span);
    }

    /* vector_add on the mapping: a, b and c are its thirds; b straddles the seam. */
    n = words / 3;
    {
        CUdeviceptr a = base, b = base + n * sizeof(float), c = base + 2 * n * sizeof(float);
        float *f = (float *)host;
        int count = (int)n;
        void *args[] = {&a, &b, &c, &count};

        for (size_t i = 0; i < 2 * n; i++)
            f[i] = (float)(i % 4096);
        CHECK(cuMemcpyHtoD(base, f, 2 * n * sizeof(float)));
        kernel = kernel_load(argv[1], "vector_add", &module);
        CHECK(cuLaunchKernel(kernel, (unsigned)((n + BLOCK - 1) / BLOCK), 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL));
        CHECK(cuCtxSynchronize());
        CHECK(cuMemcpyDtoH(f, c, n * sizeof(float)));
        for (size_t i = 0; i < n; i++)
            if (f[i] != (float)(i % 4096) + (float)((n + i) % 4096)) {
                fprintf(stderr, "c[%zu] = %g\n", i, (double)f[i]);
                result_wrong("vector_add on the mapped range");
            }
        printf("vmm: vector_add over %zu elements in the mapped range: right\n", n);
        CHECK(cuModuleUnload(module));
    }

    CHECK(cuMemUnmap(base, size));
    CHECK(cuMemAddressFree(base, size));
    free(host);
    CHECK(cuCtxDestroy(ctx));
    printf("vmm: ok\n");
    return 0;
}
