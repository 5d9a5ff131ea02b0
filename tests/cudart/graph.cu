// SPDX-License-Identifier: MIT
// Stream capture: a fill, two kernels and a copy back captured from a stream into a graph, instantiated once and
// launched three times; the stream reports its capture while it lasts.
#include "check.h"

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        p[i] += 1;
}

__global__ void times_two(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        p[i] *= 2;
}

int main()
{
    const int n = 300;
    int *dev, *host;
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamCaptureStatus status;

    CHECK_CUDA(cudaMalloc(&dev, n * sizeof(int)));
    CHECK_CUDA(cudaMallocHost(&host, n * sizeof(int)));
    CHECK_CUDA(cudaMemset(dev, 0, n * sizeof(int)));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK_CUDA(cudaStreamIsCapturing(s, &status));
    CHECK(status == cudaStreamCaptureStatusActive);
    unsigned long long id = 0;
    CHECK_CUDA(cudaStreamGetCaptureInfo(s, &status, &id));
    CHECK(status == cudaStreamCaptureStatusActive && id != 0);
    // This thread's capture mode, exchanged and put back.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&mode));
    CHECK(mode == cudaStreamCaptureModeGlobal);
    CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&mode));
    CHECK(mode == cudaStreamCaptureModeRelaxed);
    add_one<<<(n + 127) / 128, 128, 0, s>>>(dev, n);
    times_two<<<(n + 127) / 128, 128, 0, s>>>(dev, n);
    CHECK_CUDA(cudaMemcpyAsync(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamEndCapture(s, &graph));
    CHECK_CUDA(cudaStreamIsCapturing(s, &status));
    CHECK(status == cudaStreamCaptureStatusNone);
    // Nothing ran while capturing.
    int first = -1;
    CHECK_CUDA(cudaMemcpy(&first, dev, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(first == 0);

    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 3; i++)
        CHECK_CUDA(cudaGraphLaunch(exec, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    // ((0 + 1) * 2 + 1) * 2 + 1) * 2 = 14
    for (int i = 0; i < n; i++)
        CHECK(host[i] == 14);
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFreeHost(host));
    CHECK_CUDA(cudaFree(dev));
    std::printf("graph: ok\n");
    return 0;
}
