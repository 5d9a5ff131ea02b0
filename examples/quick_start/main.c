/* SPDX-License-Identifier: MIT */
/* quick_start: multiplies 1000 floats by 3 on the GPU, then checks every one. */
#include <stdint.h>
#include <stdio.h>

#include <gpushim/gpushim.h>

/* The kernel, as `nvcc -ptx -arch=compute_75` compiles this CUDA C:
 *   extern "C" __global__ void scale(float *x, float a, unsigned n)
 *   {
 *       unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
 *       if (i < n) x[i] *= a;
 *   }
 */
static const char ptx[] =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry scale(.param .u64 x, .param .f32 a, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .f32 %f<4>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .b64 %rd<5>;\n"
    "    ld.param.u64 %rd1, [x];\n"
    "    ld.param.f32 %f1, [a];\n"
    "    ld.param.u32 %r2, [n];\n"
    "    mov.u32 %r3, %ctaid.x;\n"
    "    mov.u32 %r4, %ntid.x;\n"
    "    mov.u32 %r5, %tid.x;\n"
    "    mad.lo.s32 %r1, %r3, %r4, %r5;\n"
    "    setp.ge.u32 %p1, %r1, %r2;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mul.wide.u32 %rd3, %r1, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    ld.global.f32 %f2, [%rd4];\n"
    "    mul.f32 %f3, %f2, %f1;\n"
    "    st.global.f32 [%rd4], %f3;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

enum { N = 1000, BLOCK = 256 };

int main(void)
{
    float host[N];
    float a = 3.0f;
    unsigned n = N;
    uint64_t x = 0;
    void *args[] = {&x, &a, &n};
    gpu_launch_config config = gpu_launch_config_1d((N + BLOCK - 1) / BLOCK, BLOCK);
    gpu_stream *stream = NULL;
    gpu_module *module = NULL;
    gpu_buffer *buffer = NULL;
    gpu_status st;
    int rc = 1;

    for (unsigned i = 0; i < N; i++)
        host[i] = (float)i;

    /* NULL is device 0's primary context. The first call loads the driver. */
    if ((st = gpu_stream_create(NULL, &stream)) != GPU_OK ||
        (st = gpu_module_load_data(NULL, ptx, sizeof ptx - 1, &module)) != GPU_OK ||
        (st = gpu_buffer_create(NULL, sizeof host, &buffer)) != GPU_OK)
        goto out;
    x = gpu_buffer_get_device_ptr(buffer);
    if ((st = gpu_buffer_copy_from_host_async(buffer, host, sizeof host, stream)) != GPU_OK ||
        (st = gpu_stream_launch_kernel(stream, module, "scale", &config, args)) != GPU_OK ||
        (st = gpu_buffer_copy_to_host_async(buffer, host, sizeof host, stream)) != GPU_OK ||
        (st = gpu_stream_synchronize(stream)) != GPU_OK)
        goto out;

    rc = 0;
    for (unsigned i = 0; i < N; i++) {
        if (host[i] != 3.0f * (float)i) {
            fprintf(stderr, "quick_start: x[%u] = %g, want %g\n", i, host[i], 3.0f * (float)i);
            rc = 1;
            break;
        }
    }
    if (rc == 0)
        printf("quick_start: ok: %u floats times 3, with %s\n", n, gpu_driver_get_report()->file);
out:
    if (st != GPU_OK)
        fprintf(stderr, "quick_start: %s: %s\n", gpu_status_get_name(st), gpu_last_error_get_message());
    gpu_buffer_destroy(buffer);
    gpu_module_destroy(module);
    gpu_stream_destroy(stream);
    return rc;
}
