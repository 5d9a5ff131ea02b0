/* SPDX-License-Identifier: MIT */
/*
 * Errors: the driver's codes mapped to the runtime's, the runtime's names and
 * strings, and each thread's last error.
 */
#include "runtime.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Thread_local cudaError_t last_error = cudaSuccess;
static char init_reason[1024];
static atomic_bool init_reason_set; /* released once init_reason is written */

/*
 * driver_types.h documents each runtime error and cuda.h each driver one; since
 * CUDA 10 the runtime's codes take the driver's values for the conditions they
 * share (cudaErrorIllegalAddress 700 is CUDA_ERROR_ILLEGAL_ADDRESS 700). A
 * driver code with no runtime code of its value is cudaErrorUnknown.
 */
cudaError_t gpu__cudart_map(CUresult r)
{
    switch ((int)r) {
#define GPU__CUDART_SYMBOL(name)
#define GPU__CUDART_OTHER(name)
#define GPU__CUDART_ERROR(name, value) case value:
#include "cudart_symbols.h"
#undef GPU__CUDART_ERROR
#undef GPU__CUDART_OTHER
#undef GPU__CUDART_SYMBOL
        return (cudaError_t)r;
    default:
        return cudaErrorUnknown;
    }
}

cudaError_t gpu__cudart_set(cudaError_t e)
{
    if (e != cudaSuccess)
        last_error = e;
    return e;
}

cudaError_t gpu__cudart_result(CUresult r)
{
    return gpu__cudart_set(gpu__cudart_map(r));
}

cudaError_t gpu__cudart_not_supported(void)
{
    return gpu__cudart_set(cudaErrorNotSupported);
}

void gpu__cudart_set_init_reason(const char *why)
{
    snprintf(init_reason, sizeof(init_reason), "%s", why);
    atomic_store_explicit(&init_reason_set, true, memory_order_release);
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;

    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return last_error;
}

static const struct error_name {
    int value;
    const char *name;
} names[] = {
#define GPU__CUDART_SYMBOL(name)
#define GPU__CUDART_OTHER(name)
#define GPU__CUDART_ERROR(name, value) {value, #name},
#include "cudart_symbols.h"
#undef GPU__CUDART_ERROR
#undef GPU__CUDART_OTHER
#undef GPU__CUDART_SYMBOL
};
#define ERROR_COUNT (sizeof(names) / sizeof(names[0]))

static const struct error_name *find(cudaError_t error)
{
    for (size_t i = 0; i < ERROR_COUNT; i++)
        if (names[i].value == (int)error)
            return &names[i];
    return NULL;
}

const char *cudaGetErrorName(cudaError_t error)
{
    const struct error_name *e = find(error);

    return e ? e->name : "cudaErrorUnknown";
}

/* Strings in words, where the one read from the name would say too little. */
static const struct error_name own_strings[] = {
    {cudaSuccess, "no error"},
    {cudaErrorInvalidValue, "invalid argument"},
    {cudaErrorMemoryAllocation, "out of memory"},
    {cudaErrorInsufficientDriver, "no CUDA driver could be loaded, or it is older than this runtime"},
    {cudaErrorNoDevice, "no CUDA-capable device is detected"},
    {cudaErrorInvalidResourceHandle, "invalid resource handle"},
    {cudaErrorIllegalAddress, "an illegal memory access was encountered"},
    {cudaErrorNotSupported, "operation not supported, by the driver or, for a runtime function it does not "
                                   "implement, by libgpushim-cudart"},
    {cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device: build with a "
                                      "PTX target (nvcc -gencode arch=compute_XX,code=compute_XX)"},
    {cudaErrorInvalidDeviceFunction, "invalid device function: not a kernel registered with the runtime"},
};

/* "cudaErrorLaunchOutOfResources" read as "launch out of resources", once per code. */
static char derived[sizeof(names) / sizeof(names[0])][96];
static pthread_once_t derived_once = PTHREAD_ONCE_INIT;

static void derive_strings(void)
{
    for (size_t i = 0; i < ERROR_COUNT; i++) {
        const char *p = names[i].name + strlen("cudaError");
        size_t n = 0;

        for (; *p && n + 2 < sizeof(derived[i]); p++) {
            if (isupper((unsigned char)*p) && n > 0 && !isupper((unsigned char)p[-1]))
                derived[i][n++] = ' ';
            derived[i][n++] = (char)tolower((unsigned char)*p);
        }
        derived[i][n] = '\0';
    }
}

const char *cudaGetErrorString(cudaError_t error)
{
    const struct error_name *e = find(error);

    if (error == cudaErrorInsufficientDriver && atomic_load_explicit(&init_reason_set, memory_order_acquire))
        return init_reason;
    for (size_t i = 0; i < sizeof(own_strings) / sizeof(own_strings[0]); i++)
        if (own_strings[i].value == (int)error)
            return own_strings[i].name;
    if (!e)
        return "unrecognized error code";
    pthread_once(&derived_once, derive_strings);
    return derived[e - names];
}
