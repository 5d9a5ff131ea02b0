/* SPDX-License-Identifier: MIT */
/*
 * jit_link: two PTX units linked at run time by the driver's JIT linker
 * (cuLinkCreate, cuLinkAddData twice, cuLinkComplete), the linked image
 * loaded with cuModuleLoadData before cuLinkDestroy frees it, and the
 * kernel's results checked. link_main.ptx's kernel calls a device function
 * that only link_lib.ptx defines.
 *
 * usage: jit_link LINK_MAIN_PTX LINK_LIB_PTX
 */
#include "common.h"

enum { N = 4096, BLOCK = 128, LOG_SIZE = 8192 };

static char error_log[LOG_SIZE], info_log[LOG_SIZE];

/* Like CHECK, with the linker's error log. */
#define CHECK_LINK(call) \
    do { \
        CUresult link_rc_ = (call); \
        if (link_rc_ != CUDA_SUCCESS) { \
            fprintf(stderr, "linker error log:\n%s\n", error_log); \
            check_failed(#call, link_rc_); \
        } \
    } while (0)

static void add_ptx(CUlinkState link, const char *path, const char *name)
{
    size_t size = 0;
    char *ptx = module_file_read(path, &size);

    /* PTX is passed with its terminating NUL. */
    CHECK_LINK(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, size + 1, name, 0, NULL, NULL));
    free(ptx);
}

static float poly(float x)
{
    return 3.0f * x * x - 2.0f * x + 1.0f;
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUlinkState link;
    CUmodule module;
    CUfunction kernel;
    CUdeviceptr d_in, d_out;
    void *image = NULL;
    size_t image_size = 0;
    int n = N;
    static float in[N], out[N];
    CUjit_option options[] = {
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    };
    void *values[] = {
        error_log, (void *)(size_t)LOG_SIZE,
        info_log, (void *)(size_t)LOG_SIZE,
    };

    if (argc != 3)
        usage(argv[0], "LINK_MAIN_PTX LINK_LIB_PTX");
    CHECK(cuInit(0));
    ctx = context_create(&dev);

    CHECK(cuLinkCreate(sizeof(options) / sizeof(options[0]), options, values, &link));
    add_ptx(link, argv[1], "link_main.ptx");
    add_ptx(link, argv[2], "link_lib.ptx");
    CHECK_LINK(cuLinkComplete(link, &image, &image_size));
    if (image == NULL || image_size == 0)
        result_wrong("cuLinkComplete gave no image");
    /* The image belongs to the link state: load it before destroying that. */
    CHECK(cuModuleLoadData(&module, image));
    CHECK(cuLinkDestroy(link));
    printf("jit_link: link_main.ptx and link_lib.ptx linked into one image and loaded\n");

    CHECK(cuModuleGetFunction(&kernel, module, "apply_poly"));
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 1000 - 500);
    CHECK(cuMemAlloc(&d_in, sizeof(in)));
    CHECK(cuMemAlloc(&d_out, sizeof(out)));
    CHECK(cuMemcpyHtoD(d_in, in, sizeof(in)));
    {
        void *args[] = {&d_in, &d_out, &n};

        CHECK(cuLaunchKernel(kernel, (N + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL));
        CHECK(cuCtxSynchronize());
    }
    CHECK(cuMemcpyDtoH(out, d_out, sizeof(out)));
    for (int i = 0; i < N; i++)
        if (out[i] != poly(in[i])) {
            fprintf(stderr, "out[%d] = %g, expected %g\n", i, (double)out[i], (double)poly(in[i]));
            result_wrong("the linked kernel");
        }
    printf("jit_link: apply_poly called poly() from the other unit: %d values right\n", N);

    CHECK(cuMemFree(d_in));
    CHECK(cuMemFree(d_out));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));
    printf("jit_link: ok\n");
    return 0;
}
