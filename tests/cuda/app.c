/* SPDX-License-Identifier: MIT */
/*
 * A driver-API program as users write them, compiled with the toolkit's own
 * cuda.h and linked with libgpushim-cuda instead of -lcuda: it copies a
 * buffer through the device on a stream and checks it. Built twice, the
 * second time with CUDA_API_PER_THREAD_DEFAULT_STREAM (the _ptsz/_ptds names).
 *
 * usage: app no-driver   cuInit must fail with CUDA_ERROR_STUB_LIBRARY and
 *                        cuGetErrorString must say why (exit 0 when it does)
 *        app run         every call must succeed and the data come back
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call) \
    do { \
        CUresult rc_ = (call); \
        if (rc_ != CUDA_SUCCESS) { \
            const char *name_ = "?", *text_ = "?"; \
            cuGetErrorName(rc_, &name_); \
            cuGetErrorString(rc_, &text_); \
            fprintf(stderr, "%s: %s (%d): %s\n", #call, name_, (int)rc_, text_); \
            return 1; \
        } \
    } while (0)

static int no_driver(void)
{
    const char *name = NULL, *text = NULL;
    CUresult rc = cuInit(0);

    cuGetErrorName(rc, &name);
    cuGetErrorString(rc, &text);
    printf("cuInit: %s (%d): %s\n", name ? name : "?", (int)rc, text ? text : "?");
    return rc == CUDA_ERROR_STUB_LIBRARY && text && strstr(text, "cannot open shared object file") ? 0 : 1;
}

static int run(void)
{
    enum { N = 1024 };
    unsigned in[N], out[N];
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    CUdeviceptr d;
    char name[128];
    int count = 0, version = 0;

    for (unsigned i = 0; i < N; i++)
        in[i] = i * 2654435761u;
    memset(out, 0, sizeof(out));
    CHECK(cuInit(0));
    CHECK(cuDriverGetVersion(&version));
    CHECK(cuDeviceGetCount(&count));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetName(name, sizeof(name), dev));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK(cuMemAlloc(&d, sizeof(in)));
    CHECK(cuMemcpyHtoDAsync(d, in, sizeof(in), stream));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuMemcpyDtoH(out, d, sizeof(out)));
    CHECK(cuMemFree(d));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    if (memcmp(in, out, sizeof(in)) != 0) {
        fprintf(stderr, "the data did not come back\n");
        return 1;
    }
    printf("%s, driver %d, %d device(s): %zu bytes there and back\n", name, version, count, sizeof(in));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "no-driver") == 0)
        return no_driver();
    if (argc == 2 && strcmp(argv[1], "run") == 0)
        return run();
    fprintf(stderr, "usage: %s no-driver|run\n", argv[0]);
    return 2;
}
