// SPDX-License-Identifier: MIT
// A graph built by hand with every kind of node the runtime adds: memcpy (host to device, device to device,
// device to host, 1D and 3D), memset, kernel, event record and wait, a child graph, empty and host nodes; launched
// twice, then with an executable graph's new kernel and host parameters, then updated from a changed clone.
#include <cstring>

#include "check.h"

__global__ void add(int *p, int value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        p[i] += value;
}

static void CUDART_CB count(void *user_data)
{
    ++*static_cast<int *>(user_data);
}

static const int n = 256;

static void check_out(const int *out, const int *in, int added)
{
    for (int i = 0; i < n; i++)
        if (out[i] != in[i] + added) {
            std::fprintf(stderr, "out[%d] = %d, want %d\n", i, out[i], in[i] + added);
            std::exit(1);
        }
}

int main()
{
    int *a, *b, in[n], out[n], calls = 0, other_calls = 0;
    int five = 5, hundred = 100, len = n;
    cudaStream_t s;
    cudaEvent_t e;
    cudaGraph_t graph, child, clone;
    cudaGraphExec_t exec;
    cudaGraphNode_t h2d, set, kern, d2d, rec, wait, sub, empty, d2h, host, child_kern, twin;

    for (int i = 0; i < n; i++)
        in[i] = 3 * i;
    CHECK_CUDA(cudaMalloc(&a, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&b, n * sizeof(int)));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreate(&e));
    CHECK_CUDA(cudaGraphCreate(&graph, 0));

    CHECK_CUDA(cudaGraphAddMemcpyNode1D(&h2d, graph, nullptr, 0, a, in, sizeof(in), cudaMemcpyHostToDevice));
    cudaMemsetParams ms = {};
    ms.dst = b;
    ms.value = 0x7f;
    ms.elementSize = 4;
    ms.width = n;
    ms.height = 1;
    CHECK_CUDA(cudaGraphAddMemsetNode(&set, graph, nullptr, 0, &ms));
    void *args_a[] = {&a, &five, &len};
    cudaKernelNodeParams kp = {};
    kp.func = reinterpret_cast<void *>(add);
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(n);
    kp.kernelParams = args_a;
    CHECK_CUDA(cudaGraphAddKernelNode(&kern, graph, &h2d, 1, &kp));
    cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr(a, n * sizeof(int), n, 1);
    copy.dstPtr = make_cudaPitchedPtr(b, n * sizeof(int), n, 1);
    copy.extent = make_cudaExtent(n * sizeof(int), 1, 1);
    copy.kind = cudaMemcpyDeviceToDevice;
    cudaGraphNode_t two[] = {kern, set};
    CHECK_CUDA(cudaGraphAddMemcpyNode(&d2d, graph, two, 2, &copy));
    CHECK_CUDA(cudaGraphAddEventRecordNode(&rec, graph, &d2d, 1, e));
    CHECK_CUDA(cudaGraphAddEventWaitNode(&wait, graph, &rec, 1, e));
    CHECK_CUDA(cudaGraphCreate(&child, 0));
    void *args_b[] = {&b, &hundred, &len};
    kp.kernelParams = args_b;
    CHECK_CUDA(cudaGraphAddKernelNode(&child_kern, child, nullptr, 0, &kp));
    CHECK_CUDA(cudaGraphAddChildGraphNode(&sub, graph, &wait, 1, child));
    CHECK_CUDA(cudaGraphAddEmptyNode(&empty, graph, &sub, 1));
    CHECK_CUDA(cudaGraphAddMemcpyNode1D(&d2h, graph, &empty, 1, out, b, sizeof(out), cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp = {count, &calls};
    CHECK_CUDA(cudaGraphAddHostNode(&host, graph, &d2h, 1, &hp));
    five = hundred = 1000; // the nodes copied their arguments

    size_t count_nodes = 0;
    CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count_nodes));
    CHECK(count_nodes == 10);
    CHECK_CUDA(cudaGraphGetRootNodes(graph, nullptr, &count_nodes));
    CHECK(count_nodes == 2);
    cudaGraphNodeType type;
    CHECK_CUDA(cudaGraphNodeGetType(sub, &type));
    CHECK(type == cudaGraphNodeTypeGraph);

    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int round = 1; round <= 2; round++) {
        std::memset(out, 0, sizeof(out));
        CHECK_CUDA(cudaGraphLaunch(exec, s));
        CHECK_CUDA(cudaStreamSynchronize(s));
        check_out(out, in, 105);
        CHECK(calls == round);
    }

    // New parameters in the executable graph only.
    int seven = 7;
    void *args_7[] = {&a, &seven, &len};
    kp.kernelParams = args_7;
    CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, kern, &kp));
    cudaHostNodeParams other = {count, &other_calls};
    CHECK_CUDA(cudaGraphExecHostNodeSetParams(exec, host, &other));
    CHECK_CUDA(cudaGraphLaunch(exec, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    check_out(out, in, 107);
    CHECK(calls == 2 && other_calls == 1);

    // A clone with another kernel value, found by the original's node, updates the executable graph.
    CHECK_CUDA(cudaGraphClone(&clone, graph));
    CHECK_CUDA(cudaGraphNodeFindInClone(&twin, kern, clone));
    int nine = 9;
    void *args_9[] = {&a, &nine, &len};
    kp.kernelParams = args_9;
    CHECK_CUDA(cudaGraphKernelNodeSetParams(twin, &kp));
    cudaGraphExecUpdateResultInfo info;
    CHECK_CUDA(cudaGraphExecUpdate(exec, clone, &info));
    CHECK(info.result == cudaGraphExecUpdateSuccess);
    CHECK_CUDA(cudaGraphLaunch(exec, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    check_out(out, in, 109);
    CHECK(calls == 3);

    // A node of another graph is no dependency.
    cudaGraphNode_t stray;
    CHECK_ERROR(cudaGraphAddEmptyNode(&stray, child, &kern, 1), cudaErrorInvalidValue);

    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(clone));
    CHECK_CUDA(cudaGraphDestroy(child));
    CHECK_CUDA(cudaGraphDestroy(graph));
    CHECK_CUDA(cudaEventDestroy(e));
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(b));
    std::printf("graph by hand: every kind of node, launched, set, cloned and updated\n");
    return 0;
}
