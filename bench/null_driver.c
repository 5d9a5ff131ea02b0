/* SPDX-License-Identifier: MIT */
/*
 * libnullcuda: a CUDA driver whose calls cost next to nothing, for
 * bench/overhead. It exports what gpushim's loader needs (cuInit,
 * cuDriverGetVersion, cuGetProcAddress_v2 and every REQUIRED entry point of
 * src/sys/driver/entry_points.h, under its versioned symbol) and nothing optional.
 *
 * One device, one primary context, a per-thread current context with a
 * small push stack. Objects are small allocations, so that each handle is
 * distinct; copies copy nothing, launches run nothing, queries say "done".
 * The synchronous copies do copy (host memory stands in for device memory),
 * so a program that checks what it read back sees what it wrote.
 *
 * A REQUIRED entry point added to entry_points.h without a function here
 * fails to compile (the table below names it), and one whose prototype
 * differs from the list's fails on the table's types.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_abi.h"

#define NULL_API __attribute__((visibility("default")))

/* Prototypes of the REQUIRED entries, from the list: OPTIONAL ones are left out on purpose. */
#define NULL_DECLARE_REQUIRED(symbol, params) NULL_API cuabi_result symbol params;
#define NULL_DECLARE_OPTIONAL(symbol, params)
#define GPU__ENTRY(need, name, symbol, params, args) NULL_DECLARE_##need(symbol, params)
#include "entry_points.h"
#undef GPU__ENTRY

NULL_API cuabi_result cuInit(unsigned int flags);
NULL_API cuabi_result cuDriverGetVersion(int *version);
NULL_API cuabi_result cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags,
                                          cuabi_proc_address_query_result *status);

typedef void (*null_fn)(void);

/* Base name and function of every REQUIRED entry: what cuGetProcAddress_v2 answers with. */
#define NULL_TABLE_REQUIRED(name, symbol) {#name, (null_fn)symbol},
#define NULL_TABLE_OPTIONAL(name, symbol)
static const struct {
    const char *name;
    null_fn fn;
} required[] = {
#define GPU__ENTRY(need, name, symbol, params, args) NULL_TABLE_##need(name, symbol)
#include "entry_points.h"
#undef GPU__ENTRY
};

/* The same, typed by the list: a prototype that differs from entry_points.h does not compile. */
#define NULL_TYPED_REQUIRED(name, symbol) .name = symbol,
#define NULL_TYPED_OPTIONAL(name, symbol)
static const struct {
#define GPU__ENTRY(need, name, symbol, params, args) cuabi_result (*name) params;
#include "entry_points.h"
#undef GPU__ENTRY
} typed __attribute__((used)) = {
#define GPU__ENTRY(need, name, symbol, params, args) NULL_TYPED_##need(name, symbol)
#include "entry_points.h"
#undef GPU__ENTRY
};

struct cuabi_ctx_st {
    int device;
};

static struct cuabi_ctx_st primary = {0};

#define STACK_MAX 16
static _Thread_local cuabi_context current;
static _Thread_local cuabi_context stack[STACK_MAX];
static _Thread_local unsigned depth;

/* A distinct, freeable handle of any object type. */
static void *handle_new(void)
{
    return malloc(16);
}

cuabi_result cuInit(unsigned int flags)
{
    return flags == 0 ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
}

cuabi_result cuDriverGetVersion(int *version)
{
    if (!version)
        return CUABI_ERROR_INVALID_VALUE;
    *version = 12080;
    return CUABI_SUCCESS;
}

cuabi_result cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags,
                                 cuabi_proc_address_query_result *status)
{
    if (!symbol || !pfn)
        return CUABI_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
        if (strcmp(required[i].name, symbol) == 0) {
            memcpy(pfn, &required[i].fn, sizeof(*pfn));
            if (status)
                *status = CUABI_GET_PROC_ADDRESS_SUCCESS;
            return CUABI_SUCCESS;
        }
    *pfn = NULL;
    if (status)
        *status = CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUABI_ERROR_NOT_FOUND;
}

/* The calls that have nothing to do here: work is done (or skipped) at once, nothing needs releasing. */
#define NULL_NOOP(symbol, params) \
    cuabi_result symbol params \
    { \
        return CUABI_SUCCESS; \
    }
NULL_NOOP(cuDevicePrimaryCtxRelease_v2, (cuabi_device dev))
NULL_NOOP(cuCtxSynchronize, (void))
NULL_NOOP(cuStreamSynchronize, (cuabi_stream stream))
NULL_NOOP(cuStreamQuery, (cuabi_stream stream))
NULL_NOOP(cuStreamWaitEvent, (cuabi_stream stream, cuabi_event event, unsigned int flags))
NULL_NOOP(cuEventRecord, (cuabi_event event, cuabi_stream stream))
NULL_NOOP(cuEventQuery, (cuabi_event event))
NULL_NOOP(cuEventSynchronize, (cuabi_event event))
NULL_NOOP(cuMemcpyHtoDAsync_v2, (cuabi_deviceptr dst, const void *src, size_t bytes, cuabi_stream stream))
NULL_NOOP(cuMemcpyDtoHAsync_v2, (void *dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream))
NULL_NOOP(cuMemcpyDtoDAsync_v2, (cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream))
NULL_NOOP(cuMemHostRegister_v2, (void *ptr, size_t bytes, unsigned int flags))
NULL_NOOP(cuMemHostUnregister, (void *ptr))
NULL_NOOP(cuLaunchKernel, (cuabi_function f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                           unsigned int block_x, unsigned int block_y, unsigned int block_z,
                           unsigned int shared_mem_bytes, cuabi_stream stream, void **params, void **extra))

/* Devices: one. */
cuabi_result cuDeviceGetCount(int *count)
{
    *count = 1;
    return CUABI_SUCCESS;
}

cuabi_result cuDeviceGet(cuabi_device *device, int ordinal)
{
    if (ordinal != 0)
        return CUABI_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUABI_SUCCESS;
}

cuabi_result cuDeviceGetName(char *name, int len, cuabi_device dev)
{
    if (!name || len < 1)
        return CUABI_ERROR_INVALID_VALUE;
    strncpy(name, "gpushim null driver", (size_t)len - 1);
    name[len - 1] = '\0';
    return CUABI_SUCCESS;
}

cuabi_result cuDeviceTotalMem_v2(size_t *bytes, cuabi_device dev)
{
    *bytes = (size_t)1 << 30;
    return CUABI_SUCCESS;
}

cuabi_result cuDeviceGetAttribute(int *value, cuabi_device_attribute attrib, cuabi_device dev)
{
    switch (attrib) {
    case CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *value = 9;
        break;
    case CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *value = 1;
        break;
    default:
        *value = 0;
    }
    return CUABI_SUCCESS;
}

/* Contexts: one primary context; the current one is per thread. */
cuabi_result cuDevicePrimaryCtxRetain(cuabi_context *ctx, cuabi_device dev)
{
    *ctx = &primary;
    return CUABI_SUCCESS;
}

cuabi_result cuCtxGetCurrent(cuabi_context *ctx)
{
    *ctx = current;
    return CUABI_SUCCESS;
}

cuabi_result cuCtxSetCurrent(cuabi_context ctx)
{
    current = ctx;
    return CUABI_SUCCESS;
}

cuabi_result cuCtxPushCurrent_v2(cuabi_context ctx)
{
    if (depth == STACK_MAX)
        return CUABI_ERROR_INVALID_VALUE;
    stack[depth++] = current;
    current = ctx;
    return CUABI_SUCCESS;
}

cuabi_result cuCtxPopCurrent_v2(cuabi_context *ctx)
{
    if (depth == 0)
        return CUABI_ERROR_INVALID_CONTEXT;
    if (ctx)
        *ctx = current;
    current = stack[--depth];
    return CUABI_SUCCESS;
}

/* Streams and events: handles only; all work is done at once. */
cuabi_result cuStreamCreate(cuabi_stream *stream, unsigned int flags)
{
    *stream = handle_new();
    return *stream ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;
}

cuabi_result cuStreamDestroy_v2(cuabi_stream stream)
{
    free(stream);
    return CUABI_SUCCESS;
}

cuabi_result cuEventCreate(cuabi_event *event, unsigned int flags)
{
    *event = handle_new();
    return *event ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;
}

cuabi_result cuEventDestroy_v2(cuabi_event event)
{
    free(event);
    return CUABI_SUCCESS;
}

cuabi_result cuEventElapsedTime(float *ms, cuabi_event start, cuabi_event end)
{
    *ms = 0.0f;
    return CUABI_SUCCESS;
}

/* Memory: device memory is host memory; the asynchronous copies copy nothing. */
cuabi_result cuMemAlloc_v2(cuabi_deviceptr *ptr, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);

    if (!p)
        return CUABI_ERROR_OUT_OF_MEMORY;
    *ptr = (cuabi_deviceptr)(uintptr_t)p;
    return CUABI_SUCCESS;
}

cuabi_result cuMemFree_v2(cuabi_deviceptr ptr)
{
    free((void *)(uintptr_t)ptr);
    return CUABI_SUCCESS;
}

cuabi_result cuMemcpyHtoD_v2(cuabi_deviceptr dst, const void *src, size_t bytes)
{
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return CUABI_SUCCESS;
}

cuabi_result cuMemcpyDtoH_v2(void *dst, cuabi_deviceptr src, size_t bytes)
{
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return CUABI_SUCCESS;
}

cuabi_result cuMemcpyDtoD_v2(cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes)
{
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    return CUABI_SUCCESS;
}

cuabi_result cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    *ptr = malloc(bytes ? bytes : 1);
    return *ptr ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;
}

cuabi_result cuMemFreeHost(void *ptr)
{
    free(ptr);
    return CUABI_SUCCESS;
}

/* Modules: any image loads; every name is a function that does nothing. */
cuabi_result cuModuleLoadDataEx(cuabi_module *module, const void *image, unsigned int num_options,
                                cuabi_jit_option *options, void **option_values)
{
    *module = handle_new();
    return *module ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;
}

cuabi_result cuModuleUnload(cuabi_module module)
{
    free(module);
    return CUABI_SUCCESS;
}

cuabi_result cuModuleGetFunction(cuabi_function *function, cuabi_module module, const char *name)
{
    *function = (cuabi_function)module;
    return CUABI_SUCCESS;
}
