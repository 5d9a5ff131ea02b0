/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the fake suite's programs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_test.h"

const char ft_ptx[] = "// the fake driver's kernels\n"
                      ".version 8.0\n"
                      ".target sm_90\n"
                      ".address_size 64\n"
                      ".fake_kernel add_one\n"
                      ".fake_kernel scale_add\n"
                      ".fake_kernel fill_u32\n"
                      ".fake_kernel copy_u32\n"
                      ".fake_kernel launch_info\n"
                      ".fake_kernel sleep_us\n"
                      ".fake_kernel hold\n";

const char ft_two_kernels[] = ".version 8.0\n.fake_kernel add_one\n.fake_kernel scale_add\n";

void ft_ok_(gpu_status st, const char *expr, const char *file, int line)
{
    if (st == GPU_OK)
        return;
    print_error("%s returned %s (CUresult %d): %s\n", expr, gpu_status_get_name(st), gpu_last_error_get_cuda_result(),
                gpu_last_error_get_message());
    _fail(file, line);
}

void ft_fail_(gpu_status st, gpu_status want, int cuda, const char *needle, const char *expr, const char *file,
              int line)
{
    const char *msg = gpu_last_error_get_message();

    if (st == want && gpu_last_error_get_cuda_result() == cuda && (needle ? strstr(msg, needle) != NULL : msg[0] != '\0'))
        return;
    print_error("%s: want %s (CUresult %d, message with \"%s\"), got %s (CUresult %d): \"%s\"\n", expr,
                gpu_status_get_name(want), cuda, needle ? needle : "", gpu_status_get_name(st), gpu_last_error_get_cuda_result(), msg);
    _fail(file, line);
}

void ft_mark_take(ft_mark *m)
{
    gpu_fake_live_get(&m->live);
    for (int i = 0; i < GPU_FAKE_ANOMALY_COUNT; i++)
        m->anomalies[i] = gpu_fake_anomalies((gpu_fake_anomaly)i);
}

void ft_mark_check_(const ft_mark *m, const char *file, int line)
{
    static const char *const kinds[GPU_FAKE_LIVE_KIND_COUNT] = {
        "device allocations", "host allocations", "host registrations", "streams",
        "events", "modules", "graphs", "graph execs", "context retains", "contexts", "physical allocations",
        "address reservations", "CUDA arrays", "mipmapped arrays", "texture objects", "surface objects",
    };
    static const char *const anomalies[GPU_FAKE_ANOMALY_COUNT] = {"bad releases", "objects freed by release",
                                                              "execution faults"};
    gpu_fake_live_counts now;
    bool bad = false;

    gpu_fake_live_get(&now);
    for (int i = 0; i < GPU_FAKE_LIVE_KIND_COUNT; i++)
        if (now.count[i] != m->live.count[i]) {
            print_error("the fake holds %ld %s, %ld at the mark\n", now.count[i], kinds[i], m->live.count[i]);
            bad = true;
        }
    for (int i = 0; i < GPU_FAKE_ANOMALY_COUNT; i++)
        if (gpu_fake_anomalies((gpu_fake_anomaly)i) != m->anomalies[i]) {
            print_error("the fake saw %lu %s, %lu at the mark\n", gpu_fake_anomalies((gpu_fake_anomaly)i), anomalies[i],
                        m->anomalies[i]);
            bad = true;
        }
    if (bad)
        _fail(file, line);
}

void ft_no_context(void)
{
    while (gpu_fake_context_depth() > 0)
        assert_int_equal(cuCtxSetCurrent(NULL), CUABI_SUCCESS);
}

void *ft_current(void)
{
    cuabi_context c = NULL;

    assert_int_equal(cuCtxGetCurrent(&c), CUABI_SUCCESS);
    return (void *)c;
}

static gpu_launch_config config_for(uint32_t n)
{
    return gpu_launch_config_1d((n + 255) / 256 ? (n + 255) / 256 : 1, 256);
}

gpu_status ft_add_one(gpu_stream *s, gpu_module *m, const gpu_buffer *b, uint32_t n)
{
    uint64_t ptr = gpu_buffer_get_device_ptr(b);
    gpu_launch_config c = config_for(n);
    void *args[] = {&ptr, &n};

    return gpu_stream_launch_kernel(s, m, "add_one", &c, args);
}

gpu_status ft_scale_add(gpu_stream *s, gpu_module *m, const gpu_buffer *b, uint32_t mul, uint32_t add, uint32_t n)
{
    uint64_t ptr = gpu_buffer_get_device_ptr(b);
    gpu_launch_config c = config_for(n);
    void *args[] = {&ptr, &mul, &add, &n};

    return gpu_stream_launch_kernel(s, m, "scale_add", &c, args);
}

gpu_status ft_hold(gpu_stream *s, gpu_module *m)
{
    gpu_launch_config c = gpu_launch_config_1d(1, 1);

    return gpu_stream_launch_kernel(s, m, "hold", &c, NULL);
}

gpu_status ft_sleep_us(gpu_stream *s, gpu_module *m, uint32_t us)
{
    gpu_launch_config c = gpu_launch_config_1d(1, 1);
    void *args[] = {&us};

    return gpu_stream_launch_kernel(s, m, "sleep_us", &c, args);
}

gpu_buffer *ft_buffer_seq(gpu_context *ctx, uint32_t n, uint32_t base)
{
    uint32_t *v = malloc(n * sizeof(*v));
    gpu_buffer *b = NULL;

    assert_non_null(v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = base + i;
    FT_OK(gpu_buffer_create(ctx, n * sizeof(*v), &b));
    FT_OK(gpu_buffer_copy_from_host(b, v, n * sizeof(*v)));
    free(v);
    return b;
}

void ft_buffer_eq_(const gpu_buffer *b, const uint32_t *want, uint32_t n, const char *file, int line)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t got = ft_peek(b, i);

        if (got != want[i]) {
            print_error("device buffer[%u] is %u, want %u\n", i, got, want[i]);
            _fail(file, line);
        }
    }
}

uint32_t ft_peek(const gpu_buffer *b, uint32_t i)
{
    uint32_t v = 0;

    assert_int_equal(gpu_fake_peek(gpu_buffer_get_device_ptr(b) + 4u * i, &v, sizeof(v)), 0);
    return v;
}

size_t ft_make_fatbin(unsigned char *out, unsigned kind, uint64_t flags, const char *data)
{
    size_t len = strlen(data) + 1, padded = (len + 7) / 8 * 8, total = 16 + 80 + padded;
    uint32_t magic = 0xba55ed50u, version = 1u | 16u << 16, header = 80, kind16 = kind | 0x0101u << 16;
    uint64_t entries = 80 + padded, payload = padded;

    memset(out, 0, total);
    memcpy(out, &magic, 4);
    memcpy(out + 4, &version, 4);
    memcpy(out + 8, &entries, 8);
    memcpy(out + 16, &kind16, 4);
    memcpy(out + 20, &header, 4);
    memcpy(out + 24, &payload, 8);
    memcpy(out + 16 + 40, &flags, 8);
    memcpy(out + 96, data, len);
    return total;
}

void ft_live_same(const gpu_fake_live_counts *before, const char *failed)
{
    gpu_fake_live_counts after;

    gpu_fake_live_get(&after);
    for (int k = 0; k < GPU_FAKE_LIVE_KIND_COUNT; k++)
        if (after.count[k] != before->count[k])
            fail_msg("%s failed: live kind %d went from %ld to %ld", failed, k, before->count[k], after.count[k]);
}

void ft_driver_sweep(cuabi_result (*sequence)(void), const char *const *calls, size_t ncalls, cuabi_result want)
{
    gpu_fake_live_counts before;

    assert_int_equal(sequence(), CUABI_SUCCESS);
    gpu_fake_live_get(&before);
    for (size_t i = 0; i < ncalls; i++) {
        long made = gpu_fake_calls(calls[i]);
        cuabi_result rc;

        assert_int_equal(gpu_fake_fail(calls[i], 1, CUABI_ERROR_UNKNOWN), 0);
        rc = sequence();
        if (rc != want)
            fail_msg("%s failed: the sequence returned %u, not %u", calls[i], rc, want);
        if (gpu_fake_calls(calls[i]) == made)
            fail_msg("the sequence never called %s", calls[i]);
        gpu_fake_fail_reset();
        ft_live_same(&before, calls[i]);
    }
}

void ft_capture_begin(ft_capture *c, int fd)
{
    fflush(fd == 1 ? stdout : stderr);
    c->fd = fd;
    c->file = tmpfile();
    assert_non_null(c->file);
    c->saved = dup(fd);
    assert_true(c->saved >= 0);
    assert_true(dup2(fileno(c->file), fd) >= 0);
}

const char *ft_capture_end(ft_capture *c)
{
    size_t n;

    fflush(c->fd == 1 ? stdout : stderr);
    assert_true(dup2(c->saved, c->fd) >= 0);
    close(c->saved);
    rewind(c->file);
    n = fread(c->text, 1, sizeof(c->text) - 1, c->file);
    c->text[n] = '\0';
    fclose(c->file);
    return c->text;
}

int ft_run_case(int argc, char **argv, const ft_case *cases, size_t count)
{
    for (size_t i = 0; argc == 2 && i < count; i++)
        if (strcmp(argv[1], cases[i].name) == 0)
            return _cmocka_run_group_tests(cases[i].name, &cases[i].test, 1, NULL, NULL);
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
}

int ft_run(int argc, char **argv, const char *group, const struct CMUnitTest *tests, size_t ntests,
           CMFixtureFunction setup, CMFixtureFunction teardown, const ft_case *cases, size_t ncases)
{
    if (argc < 2)
        return _cmocka_run_group_tests(group, tests, ntests, setup, teardown);
    return ft_run_case(argc, argv, cases, ncases);
}

cuabi_context ft_retain_current(int device)
{
    cuabi_context ctx = NULL;

    assert_int_equal(cuInit(0), CUABI_SUCCESS);
    assert_int_equal(cuDevicePrimaryCtxRetain(&ctx, device), CUABI_SUCCESS);
    assert_int_equal(cuCtxSetCurrent(ctx), CUABI_SUCCESS);
    return ctx;
}

cuabi_result ft_launch_said(cuabi_module m, const char *name, unsigned blocks, unsigned threads, void **params,
                            ft_capture *c)
{
    cuabi_function f = NULL;
    cuabi_result rc;

    assert_int_equal(cuModuleGetFunction(&f, m, name), CUABI_SUCCESS);
    ft_capture_begin(c, 2);
    rc = cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, NULL, params, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuCtxSynchronize();
    ft_capture_end(c);
    return rc;
}

cuabi_array ft_array_of(size_t w, size_t h, size_t d, cuabi_array_format f, unsigned ch, unsigned flags,
                        const void *data, size_t bytes)
{
    cuabi_array3d_descriptor desc = {w, h, d, f, ch, flags};
    cuabi_array a = NULL;

    CU_OK(cuArray3DCreate_v2(&a, &desc));
    if (data)
        CU_OK(cuMemcpyHtoA_v2(a, 0, data, bytes));
    return a;
}

cuabi_tex_object ft_texture_of(cuabi_array a, unsigned mode, unsigned filter, unsigned flags)
{
    cuabi_resource_desc res;
    cuabi_texture_desc td;
    cuabi_tex_object t = 0;

    memset(&res, 0, sizeof(res));
    res.type = CUABI_RESOURCE_TYPE_ARRAY;
    res.res.array.array = a;
    memset(&td, 0, sizeof(td));
    td.address_mode[0] = td.address_mode[1] = td.address_mode[2] = mode;
    td.filter_mode = filter;
    td.flags = flags;
    for (int c = 0; c < 4; c++)
        td.border_color[c] = 100.0f + (float)c;
    CU_OK(cuTexObjectCreate(&t, &res, &td, NULL));
    return t;
}

int ft_attribute(int device, int attribute)
{
    int v = -12345;

    CU_OK(cuDeviceGetAttribute(&v, (cuabi_device_attribute)attribute, device));
    return v;
}

void ft_assert_released(void)
{
    for (int k = 0; k < GPU_FAKE_LIVE_CONTEXT_RETAINS; k++)
        assert_int_equal(gpu_fake_live((gpu_fake_live_kind)k), 0);
    for (int a = 0; a < GPU_FAKE_ANOMALY_COUNT; a++)
        assert_int_equal(gpu_fake_anomalies((gpu_fake_anomaly)a), 0);
}

cuabi_mipmapped_array ft_mipmap_levels(cuabi_resource_desc *res)
{
    cuabi_array3d_descriptor d = {8, 8, 0, CUABI_AD_FORMAT_FLOAT, 1, 0};
    cuabi_mipmapped_array m = NULL;
    float fill[64];

    CU_OK(cuMipmappedArrayCreate(&m, &d, 3));
    for (unsigned i = 0; i < 3; i++) {
        cuabi_array level = NULL;

        for (int k = 0; k < 64; k++)
            fill[k] = (float)(i + 1);
        CU_OK(cuMipmappedArrayGetLevel(&level, m, i));
        CU_OK(cuMemcpyHtoA_v2(level, 0, fill, (size_t)(64 >> (2 * i)) * 4));
    }
    if (res) {
        memset(res, 0, sizeof(*res));
        res->type = CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        res->res.mipmap.mipmap = m;
    }
    return m;
}
