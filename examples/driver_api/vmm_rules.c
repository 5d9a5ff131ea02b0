/* SPDX-License-Identifier: MIT */
/*
 * vmm_rules: what the driver refuses in virtual memory management, rule by
 * rule, each call's result against the one expected (the fake driver plays
 * the same rules: run on a GPU, a line marked "differs" is a rule the fake
 * has wrong). Nothing here touches memory that is not accessible, which on a
 * GPU would end the context.
 *
 * usage: vmm_rules
 */
#include "common.h"

static int wrong;

static void expect(const char *rule, CUresult got, CUresult want)
{
    const char *g = NULL, *w = NULL;

    cuGetErrorName(got, &g);
    cuGetErrorName(want, &w);
    printf("vmm_rules: %s: %s%s%s\n", rule, g ? g : "?", got == want ? "" : ", differs: expected ",
           got == want ? "" : (w ? w : "?"));
    wrong += got != want;
}

int main(int argc, char **argv)
{
    CUmemAllocationProp prop, shareable;
    CUmemGenericAllocationHandle h, two, plain, retained;
    CUmemLocation here;
    CUdeviceptr r;
    CUdevice dev;
    CUcontext ctx;
    size_t g = 0, rec = 0;
    unsigned long long flags = 1;
    int fd = -1;

    (void)argv;
    if (argc != 1)
        usage(argv[0], "");
    CHECK(cuInit(0));
    ctx = context_create(&dev);
    memset(&prop, 0, sizeof(prop));
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    here = prop.location;
    shareable = prop;
    shareable.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CHECK(cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    printf("vmm_rules: granularity %zu bytes, recommended %zu\n", g, rec);

    expect("cuMemCreate of half a granule", cuMemCreate(&h, g / 2, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemCreate(&h, g, &prop, 0));
    CHECK(cuMemCreate(&two, 2 * g, &shareable, 0));
    CHECK(cuMemCreate(&plain, g, &prop, 0));
    CHECK(cuMemAddressReserve(&r, 4 * g, 0, 0, 0));
    expect("cuMemMap a page past a granule", cuMemMap(r + 4096, g, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
    expect("cuMemMap at an offset past the allocation's end", cuMemMap(r, g, g, h, 0), CUDA_ERROR_NOT_SUPPORTED);
    expect("cuMemMap past the reservation's end", cuMemMap(r + 4 * g, g, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
    expect("cuMemMap", cuMemMap(r, g, 0, h, 0), CUDA_SUCCESS);
    expect("cuMemMap over a mapping", cuMemMap(r, g, 0, plain, 0), CUDA_ERROR_INVALID_VALUE);
    expect("cuMemMap of an allocation's second granule (an offset)", cuMemMap(r + g, g, g, two, 0),
           CUDA_ERROR_NOT_SUPPORTED);
    expect("cuMemMap of an allocation's first granule of two", cuMemMap(r + g, g, 0, two, 0),
           CUDA_ERROR_NOT_SUPPORTED);
    expect("cuMemMap of a second allocation beside the first", cuMemMap(r + g, g, 0, plain, 0), CUDA_SUCCESS);
    expect("cuMemGetAccess before cuMemSetAccess", cuMemGetAccess(&flags, &here, r), CUDA_SUCCESS);
    printf("vmm_rules: access before cuMemSetAccess: %llu\n", flags);
    expect("cuMemUnmap of half a mapping", cuMemUnmap(r, g / 2), CUDA_ERROR_INVALID_VALUE);
    expect("cuMemRetainAllocationHandle where nothing is mapped",
           cuMemRetainAllocationHandle(&retained, (void *)(uintptr_t)(r + 3 * g)), CUDA_ERROR_INVALID_VALUE);
    expect("cuMemExportToShareableHandle of an allocation made for none",
           cuMemExportToShareableHandle(&fd, plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_ERROR_INVALID_VALUE);
    expect("cuMemAddressFree of a range still mapped", cuMemAddressFree(r, 4 * g), CUDA_ERROR_INVALID_VALUE);
    expect("cuMemUnmap of two mappings side by side", cuMemUnmap(r, 2 * g), CUDA_SUCCESS);
    CHECK(cuMemMap(r, g, 0, h, 0));
    expect("cuMemUnmap of a mapping and the unmapped granule after it", cuMemUnmap(r, 2 * g), CUDA_SUCCESS);
    expect("cuMemAddressFree of part of a reservation", cuMemAddressFree(r, 2 * g), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemRelease(h));
    CHECK(cuMemRelease(two));
    CHECK(cuMemRelease(plain));
    CHECK(cuMemAddressFree(r, 4 * g));
    CHECK(cuCtxDestroy(ctx));
    if (wrong) {
        fprintf(stderr, "vmm_rules: %d results differ from the rules expected\n", wrong);
        return 1;
    }
    printf("vmm_rules: ok\n");
    return 0;
}
