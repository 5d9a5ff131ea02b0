// SPDX-License-Identifier: MIT
// Streams, events and cudaMemcpyAsync: two streams each fill, compute and copy back their half, the second
// waiting on an event of the first; page-locked host memory; events timed and queried.
#include "check.h"

__global__ void iota(int *p, int base, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        p[i] = base + i;
}

__global__ void add_from(int *p, const int *q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        p[i] += q[i];
}

int main()
{
    const int n = 4096, half = n / 2;
    int *host, *dev;
    cudaStream_t s[2];
    cudaEvent_t start, stop, first_done;

    CHECK_CUDA(cudaMallocHost(&host, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dev, n * sizeof(int)));
    CHECK_CUDA(cudaStreamCreate(&s[0]));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_CUDA(cudaEventCreateWithFlags(&first_done, cudaEventDisableTiming));

    for (int i = 0; i < n; i++)
        host[i] = -1;
    CHECK_CUDA(cudaEventRecord(start, s[0]));
    CHECK_CUDA(cudaMemsetAsync(dev, 0, n * sizeof(int), s[0]));
    iota<<<(half + 255) / 256, 256, 0, s[0]>>>(dev, 1000, half);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventRecord(first_done, s[0]));
    // The second half adds the first half's values: it must see them, so it waits on the event.
    CHECK_CUDA(cudaStreamWaitEvent(s[1], first_done, 0));
    iota<<<(half + 255) / 256, 256, 0, s[1]>>>(dev + half, 0, half);
    add_from<<<(half + 255) / 256, 256, 0, s[1]>>>(dev + half, dev, half);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpyAsync(host + half, dev + half, half * sizeof(int), cudaMemcpyDeviceToHost, s[1]));
    CHECK_CUDA(cudaMemcpyAsync(host, dev, half * sizeof(int), cudaMemcpyDeviceToHost, s[0]));
    CHECK_CUDA(cudaEventRecord(stop, s[0]));
    CHECK_CUDA(cudaStreamSynchronize(s[1]));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaStreamQuery(s[0]));
    CHECK_CUDA(cudaStreamQuery(s[1]));
    CHECK_CUDA(cudaEventQuery(stop));
    for (int i = 0; i < half; i++)
        CHECK(host[i] == 1000 + i);
    for (int i = 0; i < half; i++)
        CHECK(host[half + i] == 1000 + 2 * i);

    float ms = -1.0f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0.0f);
    // An event made without timing has none to give.
    CHECK_ERROR(cudaEventElapsedTime(&ms, start, first_done), cudaErrorInvalidResourceHandle);
    CHECK_ERROR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaGetLastError());

    // The legacy default stream orders against the blocking stream s[0].
    iota<<<(n + 255) / 256, 256>>>(dev, 7, n);
    CHECK_CUDA(cudaMemcpyAsync(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s[0]));
    CHECK_CUDA(cudaStreamSynchronize(s[0]));
    for (int i = 0; i < n; i++)
        CHECK(host[i] == 7 + i);

    // Host-to-host and the per-thread default stream's handle.
    int other[4] = {0};
    CHECK_CUDA(cudaMemcpyAsync(other, host, sizeof(other), cudaMemcpyHostToHost, cudaStreamPerThread));
    CHECK(other[3] == 10);
    CHECK_ERROR(cudaMemcpy(other, host, sizeof(other), (cudaMemcpyKind)42), cudaErrorInvalidMemcpyDirection);
    CHECK_ERROR(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);

    int *mapped, *managed;
    CHECK_CUDA(cudaHostAlloc(&mapped, sizeof(int), cudaHostAllocMapped));
    CHECK_CUDA(cudaMallocManaged(&managed, n * sizeof(int), cudaMemAttachGlobal));
    iota<<<(n + 255) / 256, 256>>>(managed, 3, n);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(managed[0] == 3 && managed[n - 1] == 3 + n - 1);

    CHECK_CUDA(cudaFree(managed));
    CHECK_CUDA(cudaFreeHost(mapped));
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    CHECK_CUDA(cudaEventDestroy(first_done));
    CHECK_CUDA(cudaStreamDestroy(s[0]));
    CHECK_CUDA(cudaStreamDestroy(s[1]));
    CHECK_CUDA(cudaFree(dev));
    CHECK_CUDA(cudaFreeHost(host));
    std::printf("streams and events: ok\n");
    return 0;
}
