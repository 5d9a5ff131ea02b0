/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's own entry points (src/sys/fake_entry_points.h) against
 * the toolkit's cuda.h: each prototype is the one cuda.h declares for that
 * very symbol. cuda.h declares the older revisions and the per-thread
 * variants only for the driver's own build (__CUDA_API_VERSION_INTERNAL),
 * which this file plays, so that every exported name has its declaration.
 *
 * Built only where cuda.h is found; the library never needs it.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <stddef.h>
#include <stdio.h>

#include <cuda.h>

#include "abi_handles.h"

#define SAME_VALUE(a, b) _Static_assert((long long)(a) == (long long)(b), #a " == " #b)
#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " is " #b)
#define SAME_FIELD(ours, theirs, a, b) \
    _Static_assert(offsetof(ours, a) == offsetof(theirs, b), #ours "." #a " is at " #theirs "." #b); \
    SAME_TYPE(__typeof__(((ours *)0)->a), __typeof__(((theirs *)0)->b))

SAME_VALUE(CUABI_CTX_SCHED_MASK, CU_CTX_SCHED_MASK);
SAME_VALUE(CUABI_CTX_FLAGS_MASK, CU_CTX_FLAGS_MASK);
SAME_TYPE(cuabi_exec_affinity_param, CUexecAffinityParam);
_Static_assert(sizeof(cuabi_ctx_create_params) == sizeof(CUctxCreateParams), "CUctxCreateParams's size");
SAME_FIELD(cuabi_ctx_create_params, CUctxCreateParams, exec_affinity, execAffinityParams);
SAME_FIELD(cuabi_ctx_create_params, CUctxCreateParams, exec_affinity_count, numExecAffinityParams);
SAME_FIELD(cuabi_ctx_create_params, CUctxCreateParams, cig, cigParams);

_Static_assert(sizeof(cuabi_mem_location) == sizeof(CUmemLocation), "CUmemLocation's size");
SAME_FIELD(cuabi_mem_location, CUmemLocation, type, type);
SAME_FIELD(cuabi_mem_location, CUmemLocation, id, id);
_Static_assert(sizeof(cuabi_mem_allocation_prop) == sizeof(CUmemAllocationProp), "CUmemAllocationProp's size");
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, type, type);
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, handle_types, requestedHandleTypes);
_Static_assert(offsetof(cuabi_mem_allocation_prop, location) == offsetof(CUmemAllocationProp, location), "location");
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, win32_metadata, win32HandleMetaData);
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, alloc_flags.compression, allocFlags.compressionType);
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, alloc_flags.usage, allocFlags.usage);
_Static_assert(sizeof(cuabi_mem_access_desc) == sizeof(CUmemAccessDesc), "CUmemAccessDesc's size");
_Static_assert(offsetof(cuabi_mem_access_desc, location) == offsetof(CUmemAccessDesc, location), "location");
SAME_FIELD(cuabi_mem_access_desc, CUmemAccessDesc, flags, flags);
SAME_TYPE(cuabi_mem_handle, CUmemGenericAllocationHandle);
SAME_VALUE(CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
SAME_VALUE(CUABI_MEM_HANDLE_TYPE_WIN32, CU_MEM_HANDLE_TYPE_WIN32);
SAME_VALUE(CUABI_MEM_HANDLE_TYPE_WIN32_KMT, CU_MEM_HANDLE_TYPE_WIN32_KMT);
SAME_VALUE(CUABI_MEM_HANDLE_TYPE_FABRIC, CU_MEM_HANDLE_TYPE_FABRIC);
SAME_VALUE(CUABI_MEM_ACCESS_FLAGS_PROT_NONE, CU_MEM_ACCESS_FLAGS_PROT_NONE);
SAME_VALUE(CUABI_MEM_ACCESS_FLAGS_PROT_READ, CU_MEM_ACCESS_FLAGS_PROT_READ);
SAME_VALUE(CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
SAME_VALUE(CUABI_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_DEVICE);
SAME_VALUE(CUABI_MEM_LOCATION_TYPE_HOST, CU_MEM_LOCATION_TYPE_HOST);
SAME_VALUE(CUABI_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_ALLOCATION_TYPE_PINNED);
SAME_VALUE(CUABI_MEM_ALLOC_GRANULARITY_MINIMUM, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
SAME_VALUE(CUABI_MEM_ALLOC_GRANULARITY_RECOMMENDED, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);

/* The layouts being the same, the prototypes read gpushim's struct names as cuda.h's. */
#define cuabi_uuid CUuuid
#define cuabi_ctx_create_params CUctxCreateParams
#define cuabi_mem_location CUmemLocation
#define cuabi_mem_allocation_prop CUmemAllocationProp
#define cuabi_mem_access_desc CUmemAccessDesc

#define GPU__FAKE_ENTRY(symbol, params) SAME_TYPE(cuabi_result(*) params, __typeof__(&symbol));
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY

int main(void)
{
    unsigned n = 0;

#define GPU__FAKE_ENTRY(symbol, params) n++;
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY
    printf("checked %u of the fake driver's own entry points against cuda.h %d\n", n, CUDA_VERSION);
    return 0;
}
