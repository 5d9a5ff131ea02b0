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

/* The layouts being the same, the prototypes read gpushim's struct names as cuda.h's. */
#define cuabi_uuid CUuuid
#define cuabi_ctx_create_params CUctxCreateParams

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
