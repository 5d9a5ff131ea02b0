/* SPDX-License-Identifier: MIT */
/*
 * per_thread_stream: built with -DCUDA_API_PER_THREAD_DEFAULT_STREAM, so that
 * cuda.h maps the stream-ordered calls to their per-thread names (_ptsz, and
 * _ptds for the synchronous copies). Each of THREADS threads works on the
 * default stream, which is then its own: asynchronous copies, vector_add,
 * cuStreamSynchronize(0); each thread's results are checked.
 *
 * usage: per_thread_stream VECTOR_ADD_PTX
 */
#include "common.h"

#include <pthread.h>

#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error per_thread_stream.c is built with -DCUDA_API_PER_THREAD_DEFAULT_STREAM
#endif

enum { THREADS = 4, N = 10000, BLOCK = 128 };

struct work {
    CUcontext ctx;
    CUfunction kernel;
    int index;
    float *in, *out; /* page-locked, N floats each */
};

static void *thread_main(void *arg)
{
    struct work *w = arg;
    CUdeviceptr d_in, d_out;
    int n = N;
    void *args[] = {&d_in, &d_in, &d_out, &n};

    CHECK(cuCtxSetCurrent(w->ctx));
    for (int i = 0; i < N; i++)
        w->in[i] = (float)(w->index * 100000 + i);
    CHECK(cuMemAlloc(&d_in, N * sizeof(float)));
    CHECK(cuMemAlloc(&d_out, N * sizeof(float)));
    /* Stream 0 is this thread's own default stream. */
    CHECK(cuMemcpyHtoDAsync(d_in, w->in, N * sizeof(float), 0));
    CHECK(cuLaunchKernel(w->kernel, (N + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0, 0, args, NULL));
    CHECK(cuMemcpyDtoHAsync(w->out, d_out, N * sizeof(float), 0));
    CHECK(cuStreamSynchronize(0));
    CHECK(cuMemFree(d_in));
    CHECK(cuMemFree(d_out));
    return NULL;
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    struct work work[THREADS];
    pthread_t threads[THREADS];
    CUfunction kernel;

    if (argc != 2)
        usage(argv[0], "VECTOR_ADD_PTX");
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    kernel = kernel_load(argv[1], "vector_add", &module);

    for (int t = 0; t < THREADS; t++) {
        work[t].ctx = ctx;
        work[t].kernel = kernel;
        work[t].index = t;
        CHECK(cuMemAllocHost((void **)&work[t].in, N * sizeof(float)));
        CHECK(cuMemAllocHost((void **)&work[t].out, N * sizeof(float)));
        if (pthread_create(&threads[t], NULL, thread_main, &work[t]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        for (int i = 0; i < N; i++)
            if (work[t].out[i] != 2.0f * work[t].in[i]) {
                fprintf(stderr, "thread %d: out[%d] = %g\n", t, i, (double)work[t].out[i]);
                result_wrong("vector_add on a per-thread default stream");
            }
        printf("per_thread_stream: thread %d: %d elements on its default stream: right\n", t, N);
        CHECK(cuMemFreeHost(work[t].in));
        CHECK(cuMemFreeHost(work[t].out));
    }
    /* The legacy stream is still there by name, and synchronizes with every thread's. */
    CHECK(cuStreamSynchronize(CU_STREAM_LEGACY));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("per_thread_stream: ok\n");
    return 0;
}
