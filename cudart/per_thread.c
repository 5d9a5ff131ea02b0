/* SPDX-License-Identifier: MIT */
/*
 * The per-thread default stream's forms (nvcc --default-stream per-thread,
 * or CUDA_API_PER_THREAD_DEFAULT_STREAM): the _ptds and _ptsz names that
 * cuda_runtime_api.h declares then, where stream 0 is the calling thread's
 * default stream rather than the legacy one. The header is read here as such
 * a program reads it, so it declares these names; this file calls only the
 * runtime's internal functions.
 */
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include "runtime.h"

/* Synchronous, on the per-thread default stream: an asynchronous copy there, waited for. */
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    CUstream s = gpu__cudart_stream(NULL, true);
    cudaError_t e = gpu__cudart_copy(dst, src, count, kind, true, s);

    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return count ? gpu__cudart_stream_synchronize(s) : cudaSuccess;
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream)
{
    return gpu__cudart_set(gpu__cudart_copy(dst, src, count, kind, true, gpu__cudart_stream(stream, true)));
}

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    CUstream s = gpu__cudart_stream(NULL, true);
    cudaError_t e = gpu__cudart_fill(devPtr, value, count, true, s);

    if (e != cudaSuccess)
        return gpu__cudart_set(e);
    return count ? gpu__cudart_stream_synchronize(s) : cudaSuccess;
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return gpu__cudart_set(gpu__cudart_fill(devPtr, value, count, true, gpu__cudart_stream(stream, true)));
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return gpu__cudart_stream_synchronize(gpu__cudart_stream(stream, true));
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    return gpu__cudart_stream_query(gpu__cudart_stream(stream, true));
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    return gpu__cudart_stream_wait_event(gpu__cudart_stream(stream, true), event, flags);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return gpu__cudart_event_record(event, gpu__cudart_stream(stream, true));
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                  cudaStream_t stream)
{
    return gpu__cudart_launch(gpu__cudart_function_of(func), gridDim, blockDim, args, sharedMem, stream, true, NULL,
                              0);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    return gpu__cudart_launch_config(config, func, args, true);
}
