/* SPDX-License-Identifier: MIT */
/*
 * CUresult: names and descriptions (the driver's, else gpushim's own from
 * result_name.c), and the mapping to gpu_status.
 */
#include <stdio.h>

#include "sys/driver/driver.h"
#include "base/error.h"

const char *gpu_cuda_result_get_name(int result)
{
    const struct gpu__driver *drv = gpu__driver_peek();
    const char *name = NULL;

    if (drv && drv->cuGetErrorName && drv->cuGetErrorName((cuabi_result)result, &name) == CUABI_SUCCESS &&
        name)
        return name;
    name = gpu__result_name_own((cuabi_result)result);
    return name ? name : "CUDA_ERROR_UNRECOGNIZED";
}

static const char *result_description(cuabi_result result)
{
    const struct gpu__driver *drv = gpu__driver_peek();
    const char *text = NULL;

    if (drv && drv->cuGetErrorString && drv->cuGetErrorString(result, &text) == CUABI_SUCCESS && text)
        return text;
    return NULL;
}

static gpu_status status_for(cuabi_result result, gpu_status category)
{
    switch (result) {
    case CUABI_ERROR_OUT_OF_MEMORY:
        return GPU_ERR_OUT_OF_MEMORY;
    case CUABI_ERROR_NO_DEVICE:
    case CUABI_ERROR_INVALID_DEVICE:
        return GPU_ERR_NO_DEVICE;
    case CUABI_ERROR_NOT_SUPPORTED:
        return GPU_ERR_NOT_SUPPORTED;
    default:
        return category;
    }
}

gpu_status gpu__check_detail(cuabi_result result, gpu_status category, const char *what, const char *detail)
{
    const char *text;

    if (result == CUABI_SUCCESS)
        return GPU_OK;
    text = result_description(result);
    return gpu__fail(status_for(result, category), (int)result, "%s: %s (%u)%s%s%s%s", what,
                     gpu_cuda_result_get_name((int)result), result, text ? ": " : "", text ? text : "",
                     detail && *detail ? ": " : "", detail ? detail : "");
}

gpu_status gpu__unsupported(const char *entry)
{
    return gpu__fail(GPU_ERR_NOT_SUPPORTED, 0, "%s: the loaded CUDA driver does not provide this entry point",
                     entry);
}
