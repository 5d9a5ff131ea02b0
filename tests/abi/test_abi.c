/*
 * gpushim's own CUDA declarations (src/sys/cuda_abi.h, entry_points.h)
 * checked against the toolkit's cuda.h: every constant's value, every type's
 * size, every entry point's prototype (at compile time), and that each
 * versioned symbol is the one cuda.h itself maps the name to (at run time).
 *
 * Built only where cuda.h is found; the library never needs it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <cuda.h>

/* Make gpushim's opaque handle types the very structs cuda.h declares, so prototypes can be compared. */
#define cuabi_ctx_st CUctx_st
#define cuabi_mod_st CUmod_st
#define cuabi_func_st CUfunc_st
#define cuabi_stream_st CUstream_st
#define cuabi_event_st CUevent_st
#define cuabi_graph_st CUgraph_st
#define cuabi_graph_exec_st CUgraphExec_st
#define cuabi_graph_node_st CUgraphNode_st
#include "cuda_abi.h"

#define SAME_VALUE(a, b) _Static_assert((long long)(a) == (long long)(b), #a " == " #b)
#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " is " #b)

/* Every CUresult gpushim names has cuda.h's value. */
#define CHECK_RESULT(name, value) SAME_VALUE(CUABI_##name, CUDA_##name); SAME_VALUE(value, CUDA_##name);
CUABI_RESULT_LIST(CHECK_RESULT)

SAME_VALUE(CUABI_STREAM_DEFAULT, CU_STREAM_DEFAULT);
SAME_VALUE(CUABI_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
SAME_VALUE(CUABI_EVENT_DEFAULT, CU_EVENT_DEFAULT);
SAME_VALUE(CUABI_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING);
SAME_VALUE(CUABI_STREAM_CAPTURE_MODE_GLOBAL, CU_STREAM_CAPTURE_MODE_GLOBAL);
SAME_VALUE(CUABI_STREAM_CAPTURE_MODE_THREAD_LOCAL, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
SAME_VALUE(CUABI_STREAM_CAPTURE_MODE_RELAXED, CU_STREAM_CAPTURE_MODE_RELAXED);
SAME_VALUE(CUABI_STREAM_CAPTURE_STATUS_NONE, CU_STREAM_CAPTURE_STATUS_NONE);
SAME_VALUE(CUABI_STREAM_CAPTURE_STATUS_ACTIVE, CU_STREAM_CAPTURE_STATUS_ACTIVE);
SAME_VALUE(CUABI_STREAM_CAPTURE_STATUS_INVALIDATED, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
SAME_VALUE(CUABI_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER);
SAME_VALUE(CUABI_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(CUABI_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER);
SAME_VALUE(CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME_VALUE(CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME_VALUE(CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_DEFAULT, CU_GET_PROC_ADDRESS_DEFAULT);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_LEGACY_STREAM, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
SAME_VALUE(CUABI_MEMHOSTALLOC_PORTABLE, CU_MEMHOSTALLOC_PORTABLE);
SAME_VALUE(CUABI_MEMHOSTREGISTER_PORTABLE, CU_MEMHOSTREGISTER_PORTABLE);

SAME_TYPE(cuabi_result, CUresult);
SAME_TYPE(cuabi_device, CUdevice);
SAME_TYPE(cuabi_deviceptr, CUdeviceptr);
SAME_TYPE(cuabi_uint64, cuuint64_t);
SAME_TYPE(cuabi_context, CUcontext);
SAME_TYPE(cuabi_module, CUmodule);
SAME_TYPE(cuabi_function, CUfunction);
SAME_TYPE(cuabi_stream, CUstream);
SAME_TYPE(cuabi_event, CUevent);
SAME_TYPE(cuabi_graph, CUgraph);
SAME_TYPE(cuabi_graph_exec, CUgraphExec);
SAME_TYPE(cuabi_graph_node, CUgraphNode);
SAME_TYPE(cuabi_host_fn, CUhostFn);
SAME_TYPE(cuabi_jit_option, CUjit_option);
SAME_TYPE(cuabi_device_attribute, CUdevice_attribute);
SAME_TYPE(cuabi_stream_capture_mode, CUstreamCaptureMode);
SAME_TYPE(cuabi_stream_capture_status, CUstreamCaptureStatus);
SAME_TYPE(cuabi_proc_address_query_result, CUdriverProcAddressQueryResult);
_Static_assert(sizeof(cuabi_result) == sizeof(CUresult), "CUresult's size");
_Static_assert(sizeof(cuabi_deviceptr) == sizeof(CUdeviceptr), "CUdeviceptr's size");

/* The bootstrap functions, looked up with dlsym. */
SAME_TYPE(cuabi_pfn_cuInit, __typeof__(&cuInit));
SAME_TYPE(cuabi_pfn_cuDriverGetVersion, __typeof__(&cuDriverGetVersion));
SAME_TYPE(cuabi_pfn_cuGetProcAddress, __typeof__(&cuGetProcAddress_v2));

/*
 * Every entry point's prototype is the one cuda.h declares for the name.
 * `name` is expanded here, so cuda.h's own version macros pick the symbol.
 */
#define GPU__ENTRY(need, name, symbol, params, args) SAME_TYPE(cuabi_result(*) params, __typeof__(&name));
#include "entry_points.h"
#undef GPU__ENTRY

/*
 * Entry points whose CUDA 12.0 symbol, the one gpushim pins, is older than
 * the one this cuda.h maps the name to. Their prototypes are the same (checked
 * above); cuGetProcAddress at version 12000 returns the older one.
 */
static const char *const newer_in_header[][2] = {
    {"cuEventElapsedTime", "cuEventElapsedTime_v2"}, /* _v2 since CUDA 12.8 */
};

#define STR_(x) #x
#define STR(x) STR_(x)

struct mapping {
    const char *name;
    const char *ours;
    const char *header; /* what cuda.h maps the name to */
};

static const struct mapping mappings[] = {
#define GPU__ENTRY(need, name, symbol, params, args) {#name, #symbol, STR(name)},
#include "entry_points.h"
#undef GPU__ENTRY
};

static void symbols_are_the_ones_cuda_h_names(void **state)
{
    int mismatches = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(mappings) / sizeof(mappings[0]); i++) {
        const struct mapping *m = &mappings[i];
        bool expected = false;

        if (strcmp(m->ours, m->header) == 0)
            continue;
        for (size_t j = 0; j < sizeof(newer_in_header) / sizeof(newer_in_header[0]); j++)
            if (strcmp(m->name, newer_in_header[j][0]) == 0 && strcmp(m->header, newer_in_header[j][1]) == 0)
                expected = true;
        if (!expected) {
            print_error("%s: gpushim uses %s, cuda.h %s\n", m->name, m->ours, m->header);
            mismatches++;
        }
    }
    assert_int_equal(mismatches, 0);
}

static void pinned_version_is_cuda_12_0(void **state)
{
    (void)state;
    assert_int_equal(CUABI_VERSION, 12000);
    /* The header checked against must be at least as new as the ABI pinned. */
    assert_true(CUDA_VERSION >= CUABI_VERSION);
    printf("checked %zu entry points against cuda.h %d\n", sizeof(mappings) / sizeof(mappings[0]), CUDA_VERSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(symbols_are_the_ones_cuda_h_names),
        cmocka_unit_test(pinned_version_is_cuda_12_0),
    };

    return cmocka_run_group_tests_name("abi", tests, NULL, NULL);
}
