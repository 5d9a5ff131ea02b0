/* SPDX-License-Identifier: MIT */
/*
 * The legacy ABI: the driver's pre-_v2 forms that a program built against an
 * old cuda.h links, or gets from cuGetProcAddress at an old version (see
 * src/sys/cuda_proc_versions.h). Each is served by its successor, counted
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

#include "fake_internal.h"

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

/* ---- Handles: the same arguments as their successors ---- */

cuabi_result cuCtxCreate(cuabi_context *ctx, unsigned int flags, cuabi_device dev)
{
    fake_count_as(FAKE_E_cuCtxCreate);
    return served(cuCtxCreate_v2(ctx, flags, dev));
}

cuabi_result cuCtxDestroy(cuabi_context ctx)
{
    fake_count_as(FAKE_E_cuCtxDestroy);
    return served(cuCtxDestroy_v2(ctx));
}

cuabi_result cuCtxPushCurrent(cuabi_context ctx)
{
    fake_count_as(FAKE_E_cuCtxPushCurrent);
    return served(cuCtxPushCurrent_v2(ctx));
}

cuabi_result cuCtxPopCurrent(cuabi_context *ctx)
{
    fake_count_as(FAKE_E_cuCtxPopCurrent);
    return served(cuCtxPopCurrent_v2(ctx));
}

cuabi_result cuDevicePrimaryCtxRelease(cuabi_device dev)
{
    fake_count_as(FAKE_E_cuDevicePrimaryCtxRelease);
    return served(cuDevicePrimaryCtxRelease_v2(dev));
}

cuabi_result cuStreamDestroy(cuabi_stream stream)
{
    fake_count_as(FAKE_E_cuStreamDestroy);
    return served(cuStreamDestroy_v2(stream));
}

cuabi_result cuEventDestroy(cuabi_event event)
{
    fake_count_as(FAKE_E_cuEventDestroy);
    return served(cuEventDestroy_v2(event));
}

/* CUDA 10.0's capture had no mode: what 10.1 calls the global one. */
cuabi_result cuStreamBeginCapture(cuabi_stream stream)
{
    fake_count_as(FAKE_E_cuStreamBeginCapture);
    return served(cuStreamBeginCapture_v2(stream, CUABI_STREAM_CAPTURE_MODE_GLOBAL));
}

cuabi_result cuMemHostRegister(void *ptr, size_t bytes, unsigned int flags)
{
    fake_count_as(FAKE_E_cuMemHostRegister);
    return served(cuMemHostRegister_v2(ptr, bytes, flags));
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

/* ---- Device addresses ---- */

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

cuabi_result cuMemFree(unsigned int ptr)
{
    fake_count_as(FAKE_E_cuMemFree);
    return served(cuMemFree_v2(ptr));
}

cuabi_result cuMemcpyHtoD(unsigned int dst, const void *src, unsigned int bytes)
{
    fake_count_as(FAKE_E_cuMemcpyHtoD);
    return served(cuMemcpyHtoD_v2(dst, src, bytes));
}

cuabi_result cuMemcpyDtoH(void *dst, unsigned int src, unsigned int bytes)
{
    fake_count_as(FAKE_E_cuMemcpyDtoH);
    return served(cuMemcpyDtoH_v2(dst, src, bytes));
}

cuabi_result cuMemcpyDtoD(unsigned int dst, unsigned int src, unsigned int bytes)
{
    fake_count_as(FAKE_E_cuMemcpyDtoD);
    return served(cuMemcpyDtoD_v2(dst, src, bytes));
}

cuabi_result cuMemcpyHtoDAsync(unsigned int dst, const void *src, unsigned int bytes, cuabi_stream stream)
{
    fake_count_as(FAKE_E_cuMemcpyHtoDAsync);
    return served(cuMemcpyHtoDAsync_v2(dst, src, bytes, stream));
}

cuabi_result cuMemcpyDtoHAsync(void *dst, unsigned int src, unsigned int bytes, cuabi_stream stream)
{
    fake_count_as(FAKE_E_cuMemcpyDtoHAsync);
    return served(cuMemcpyDtoHAsync_v2(dst, src, bytes, stream));
}

cuabi_result cuMemcpyDtoDAsync(unsigned int dst, unsigned int src, unsigned int bytes, cuabi_stream stream)
{
    fake_count_as(FAKE_E_cuMemcpyDtoDAsync);
    return served(cuMemcpyDtoDAsync_v2(dst, src, bytes, stream));
}

cuabi_result cuMemsetD8(unsigned int dst, unsigned char value, unsigned int count)
{
    fake_count_as(FAKE_E_cuMemsetD8);
    return served(cuMemsetD8_v2(dst, value, count));
}

cuabi_result cuMemsetD16(unsigned int dst, unsigned short value, unsigned int count)
{
    fake_count_as(FAKE_E_cuMemsetD16);
    return served(cuMemsetD16_v2(dst, value, count));
}

cuabi_result cuMemsetD32(unsigned int dst, unsigned int value, unsigned int count)
{
    fake_count_as(FAKE_E_cuMemsetD32);
    return served(cuMemsetD32_v2(dst, value, count));
}
