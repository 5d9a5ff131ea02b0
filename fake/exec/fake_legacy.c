/* SPDX-License-Identifier: MIT */
/*
 * The legacy ABI: the driver's pre-_v2 forms that a program built against an
 * old cuda.h links, or gets from cuGetProcAddress at an old version (see
 * src/sys/driver/cuda_proc_versions.h). Each is served by its successor, counted
 * (and failed by fault rules) under its own name (fake_count_as()).
 *
 * The forms before CUDA 3.2 pass device addresses and sizes in 32 bits
 * (CUdeviceptr_v1). Going in, a 32-bit value always fits; coming out, one
 * that does not fit is refused with a message, as the driver refuses what
 * its ABI cannot express: every device address of the fake lies above 4 GiB
 * (FAKE_ADDR_BASE), so cuMemAlloc is out of memory, and a size of 4 GiB or
 * more is an invalid value. The legacy forms not here (the 32-bit 2D and 3D
 * copies, arrays, textures, ...) are the weak definitions of
 * fake_symbols.c: CUDA_ERROR_NOT_SUPPORTED, named on stderr.
 */
#include <stdint.h>
#include <stdio.h>

#include "fake_context.h"
#include "fake_core.h"

/* The result of a successor's call made for a legacy form: counting goes back to normal. */
static cuabi_result served(cuabi_result rc)
{
    fake_count_as(-1);
    return rc;
}

/* A legacy form's result that its 32 bits cannot hold: said on stderr, and `rc`. */
static cuabi_result refused(const char *name, const char *what, cuabi_result rc)
{
    fprintf(stderr,
            "gpushim-fakecuda: %s: %s does not fit the 32 bits of the legacy (pre-_v2) ABI: %s (%d); "
            "call its _v2 form\n",
            name, what, rc == CUABI_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_INVALID_VALUE",
            (int)rc);
    return rc;
}

/*
 * A legacy form its successor serves as it is: the arguments passed on (a
 * 32-bit address or size widened, which always fits), the call counted as
 * the legacy form's.
 */
#define FAKE_SERVED(name, successor, params, args) \
    cuabi_result name params \
    { \
        fake_count_as(FAKE_E_##name); \
        return served(successor args); \
    }

/* Handles: the same arguments as their successors. */
FAKE_SERVED(cuCtxCreate, cuCtxCreate_v2, (cuabi_context *ctx, unsigned int flags, cuabi_device dev), (ctx, flags, dev))
FAKE_SERVED(cuCtxDestroy, cuCtxDestroy_v2, (cuabi_context ctx), (ctx))
FAKE_SERVED(cuCtxPushCurrent, cuCtxPushCurrent_v2, (cuabi_context ctx), (ctx))
FAKE_SERVED(cuCtxPopCurrent, cuCtxPopCurrent_v2, (cuabi_context *ctx), (ctx))
FAKE_SERVED(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, (cuabi_device dev), (dev))
FAKE_SERVED(cuStreamDestroy, cuStreamDestroy_v2, (cuabi_stream stream), (stream))
FAKE_SERVED(cuEventDestroy, cuEventDestroy_v2, (cuabi_event event), (event))
FAKE_SERVED(cuMemHostRegister, cuMemHostRegister_v2, (void *ptr, size_t bytes, unsigned int flags),
            (ptr, bytes, flags))
/* CUDA 10.0's capture had no mode: what 10.1 calls the global one. */
FAKE_SERVED(cuStreamBeginCapture, cuStreamBeginCapture_v2, (cuabi_stream stream),
            (stream, CUABI_STREAM_CAPTURE_MODE_GLOBAL))

/* CUDA 5.5's linker and 4.1's IPC, 8.0's and 9.0's memory operations: the arguments of their successors. */
FAKE_SERVED(cuLinkCreate, cuLinkCreate_v2,
            (unsigned int num_options, cuabi_jit_option *options, void **option_values, cuabi_link_state *state),
            (num_options, options, option_values, state))
FAKE_SERVED(cuLinkAddData, cuLinkAddData_v2,
            (cuabi_link_state state, cuabi_jit_input_type type, void *data, size_t size, const char *name,
             unsigned int num_options, cuabi_jit_option *options, void **option_values),
            (state, type, data, size, name, num_options, options, option_values))
FAKE_SERVED(cuLinkAddFile, cuLinkAddFile_v2,
            (cuabi_link_state state, cuabi_jit_input_type type, const char *path, unsigned int num_options,
             cuabi_jit_option *options, void **option_values),
            (state, type, path, num_options, options, option_values))
FAKE_SERVED(cuIpcOpenMemHandle, cuIpcOpenMemHandle_v2,
            (cuabi_deviceptr *ptr, cuabi_ipc_mem_handle handle, unsigned int flags), (ptr, handle, flags))
/* A memory operation's CUDA 8.0 or 9.0 form, with the arguments of its _v2. */
#define FAKE_SERVED_MEMORY_OP(name, value_type) \
    FAKE_SERVED(name, name##_v2, (cuabi_stream stream, cuabi_deviceptr addr, value_type value, unsigned int flags), \
                (stream, addr, value, flags))
FAKE_SERVED_MEMORY_OP(cuStreamWriteValue32, cuabi_uint32)
FAKE_SERVED_MEMORY_OP(cuStreamWaitValue32, cuabi_uint32)
FAKE_SERVED_MEMORY_OP(cuStreamWriteValue64, cuabi_uint64)
FAKE_SERVED_MEMORY_OP(cuStreamWaitValue64, cuabi_uint64)
/* CUDA 10.1's capture information: the status and the ID, no graph. */
FAKE_SERVED(cuStreamGetCaptureInfo, cuStreamGetCaptureInfo_v2,
            (cuabi_stream stream, cuabi_stream_capture_status *status, cuabi_uint64 *id),
            (stream, status, id, NULL, NULL, NULL))

/* 32-bit device addresses and sizes going in. */
FAKE_SERVED(cuMemFree, cuMemFree_v2, (unsigned int ptr), (ptr))
FAKE_SERVED(cuMemcpyHtoD, cuMemcpyHtoD_v2, (unsigned int dst, const void *src, unsigned int bytes), (dst, src, bytes))
FAKE_SERVED(cuMemcpyDtoH, cuMemcpyDtoH_v2, (void *dst, unsigned int src, unsigned int bytes), (dst, src, bytes))
FAKE_SERVED(cuMemcpyDtoD, cuMemcpyDtoD_v2, (unsigned int dst, unsigned int src, unsigned int bytes),
            (dst, src, bytes))
FAKE_SERVED(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2,
            (unsigned int dst, const void *src, unsigned int bytes, cuabi_stream stream), (dst, src, bytes, stream))
FAKE_SERVED(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2,
            (void *dst, unsigned int src, unsigned int bytes, cuabi_stream stream), (dst, src, bytes, stream))
FAKE_SERVED(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2,
            (unsigned int dst, unsigned int src, unsigned int bytes, cuabi_stream stream), (dst, src, bytes, stream))
FAKE_SERVED(cuMemsetD8, cuMemsetD8_v2, (unsigned int dst, unsigned char value, unsigned int count),
            (dst, value, count))
FAKE_SERVED(cuMemsetD16, cuMemsetD16_v2, (unsigned int dst, unsigned short value, unsigned int count),
            (dst, value, count))
FAKE_SERVED(cuMemAllocHost, cuMemAllocHost_v2, (void **ptr, unsigned int bytes), (ptr, bytes))
FAKE_SERVED(cuMemsetD32, cuMemsetD32_v2, (unsigned int dst, unsigned int value, unsigned int count),
            (dst, value, count))

/* ---- Graphs before CUDA 12's forms ---- */

/*
 * CUDA 10.0's and 11.0's instantiation (alike): cuGraphInstantiateWithFlags
 * without flags; no node to blame and an empty log where it succeeds.
 */
static cuabi_result graph_instantiate(enum fake_entry entry, cuabi_graph_exec *exec, cuabi_graph graph,
                                      cuabi_graph_node *error_node, char *log, size_t log_size)
{
    cuabi_result rc;

    fake_count_as(entry);
    rc = served(cuGraphInstantiateWithFlags(exec, graph, 0));
    if (rc == CUABI_SUCCESS && error_node)
        *error_node = NULL;
    if (rc == CUABI_SUCCESS && log && log_size)
        log[0] = '\0';
    return rc;
}

cuabi_result cuGraphInstantiate(cuabi_graph_exec *exec, cuabi_graph graph, cuabi_graph_node *error_node, char *log,
                                size_t log_size)
{
    return graph_instantiate(FAKE_E_cuGraphInstantiate, exec, graph, error_node, log, log_size);
}

cuabi_result cuGraphInstantiate_v2(cuabi_graph_exec *exec, cuabi_graph graph, cuabi_graph_node *error_node,
                                   char *log, size_t log_size)
{
    return graph_instantiate(FAKE_E_cuGraphInstantiate_v2, exec, graph, error_node, log, log_size);
}

/* CUDA 10.2's update: the result and the node to blame in two places, as _v2 gives them in one. */
cuabi_result cuGraphExecUpdate(cuabi_graph_exec exec, cuabi_graph graph, cuabi_graph_node *error_node,
                               cuabi_graph_exec_update_result *result)
{
    cuabi_graph_exec_update_result_info info = {0};
    cuabi_result rc;

    fake_count_as(FAKE_E_cuGraphExecUpdate);
    rc = served(cuGraphExecUpdate_v2(exec, graph, error_node && result ? &info : NULL));
    if (error_node && result) {
        *error_node = info.error_node;
        *result = info.result;
    }
    return rc;
}

/* ---- Sizes coming out ---- */

cuabi_result cuDeviceTotalMem(unsigned int *bytes, cuabi_device dev)
{
    size_t total = 0;
    cuabi_result rc;

    fake_count_as(FAKE_E_cuDeviceTotalMem);
    rc = served(cuDeviceTotalMem_v2(bytes ? &total : NULL, dev));
    if (rc == CUABI_SUCCESS && total > UINT32_MAX)
        return refused("cuDeviceTotalMem", "the device's memory", CUABI_ERROR_INVALID_VALUE);
    if (rc == CUABI_SUCCESS)
        *bytes = (unsigned int)total;
    return rc;
}

cuabi_result cuMemGetInfo(unsigned int *free_bytes, unsigned int *total_bytes)
{
    size_t free_now = 0, total = 0;
    cuabi_result rc;

    fake_count_as(FAKE_E_cuMemGetInfo);
    rc = served(cuMemGetInfo_v2(free_bytes ? &free_now : NULL, total_bytes ? &total : NULL));
    if (rc == CUABI_SUCCESS && (free_now > UINT32_MAX || total > UINT32_MAX))
        return refused("cuMemGetInfo", "the device's memory", CUABI_ERROR_INVALID_VALUE);
    if (rc == CUABI_SUCCESS && free_bytes)
        *free_bytes = (unsigned int)free_now;
    if (rc == CUABI_SUCCESS && total_bytes)
        *total_bytes = (unsigned int)total;
    return rc;
}

/* ---- Device addresses coming out ---- */

cuabi_result cuMemGetAddressRange(unsigned int *base, unsigned int *size, unsigned int ptr)
{
    cuabi_deviceptr base64 = 0;
    size_t size64 = 0;
    cuabi_result rc;

    fake_count_as(FAKE_E_cuMemGetAddressRange);
    rc = served(cuMemGetAddressRange_v2(base ? &base64 : NULL, size ? &size64 : NULL, ptr));
    if (rc == CUABI_SUCCESS && (base64 > UINT32_MAX || size64 > UINT32_MAX))
        return refused("cuMemGetAddressRange", "the allocation's range", CUABI_ERROR_INVALID_VALUE);
    if (rc == CUABI_SUCCESS && base)
        *base = (unsigned int)base64;
    if (rc == CUABI_SUCCESS && size)
        *size = (unsigned int)size64;
    return rc;
}

cuabi_result cuModuleGetGlobal(unsigned int *ptr, unsigned int *bytes, cuabi_module module, const char *name)
{
    cuabi_deviceptr ptr64 = 0;
    size_t bytes64 = 0;
    cuabi_result rc;

    fake_count_as(FAKE_E_cuModuleGetGlobal);
    rc = served(cuModuleGetGlobal_v2(ptr ? &ptr64 : NULL, bytes ? &bytes64 : NULL, module, name));
    if (rc == CUABI_SUCCESS && (ptr64 > UINT32_MAX || bytes64 > UINT32_MAX))
        return refused("cuModuleGetGlobal", "the global's address", CUABI_ERROR_INVALID_VALUE);
    if (rc == CUABI_SUCCESS && ptr)
        *ptr = (unsigned int)ptr64;
    if (rc == CUABI_SUCCESS && bytes)
        *bytes = (unsigned int)bytes64;
    return rc;
}

cuabi_result cuMemHostGetDevicePointer(unsigned int *ptr, void *host, unsigned int flags)
{
    cuabi_deviceptr ptr64 = 0;
    cuabi_result rc;

    fake_count_as(FAKE_E_cuMemHostGetDevicePointer);
    rc = served(cuMemHostGetDevicePointer_v2(ptr ? &ptr64 : NULL, host, flags));
    if (rc == CUABI_SUCCESS && ptr64 > UINT32_MAX)
        return refused("cuMemHostGetDevicePointer", "the memory's device address", CUABI_ERROR_INVALID_VALUE);
    if (rc == CUABI_SUCCESS)
        *ptr = (unsigned int)ptr64;
    return rc;
}

/* The arguments as cuMemAlloc_v2 checks them, then no 32-bit address to give: out of memory. */
cuabi_result cuMemAlloc(unsigned int *ptr, unsigned int bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAlloc, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && (!ptr || bytes == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    _Static_assert(FAKE_ADDR_BASE > UINT32_MAX, "every device address needs more than 32 bits");
    if (rc == CUABI_SUCCESS)
        rc = refused("cuMemAlloc", "a device address of the fake (above 4 GiB)", CUABI_ERROR_OUT_OF_MEMORY);
    return fake_end(rc);
}
