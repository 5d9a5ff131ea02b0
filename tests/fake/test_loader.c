/* SPDX-License-Identifier: MIT */
/*
 * The loader against the fake driver, one configuration per process (gpushim
 * loads once): argv[1] names the configuration that meson set up, and the
 * test checks gpu_driver_get_report() and the calls' outcomes against what that
 * configuration must give. The fake's legacy unversioned symbols abort when
 * called, so every configuration that runs work proves the versioned ABI.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

/* What the running configuration is; see tests/fake/meson.build. */
static const char *config;

static bool is(const char *name)
{
    return strcmp(config, name) == 0;
}

/* The entry points, in the list's order, to check the report against. */
static const struct {
    const char *name;
    const char *symbol;
    bool required;
} list[] = {
#define GPU__ENTRY(need, name, symbol, params, args) {#name, #symbol, GPU__IS_##need},
#define GPU__IS_REQUIRED true
#define GPU__IS_OPTIONAL false
#include "entry_points.h"
#undef GPU__IS_REQUIRED
#undef GPU__IS_OPTIONAL
#undef GPU__ENTRY
};
enum { LIST_COUNT = sizeof(list) / sizeof(list[0]) };

/* Whether this build of the fake exports `symbol`. */
static bool exported(const char *symbol)
{
    void *self = dlopen(getenv("GPUSHIM_LIBCUDA"), RTLD_LAZY | RTLD_NOLOAD);
    bool found = self && dlsym(self, symbol);

    if (self)
        dlclose(self);
    return found;
}

static bool omitted(const char *name)
{
    const char *omit = getenv("GPUSHIM_FAKE_OMIT");
    size_t len = strlen(name);

    for (const char *p = omit; p && (p = strstr(p, name)); p += len)
        if ((p == omit || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return true;
    return false;
}

static void same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];

    assert_non_null(a);
    assert_non_null(realpath(a, ra));
    assert_non_null(realpath(b, rb));
    assert_string_equal(ra, rb);
}

/* ---- A driver that loads ---- */

/* Everything gpushim does, with results checked, on device 0; optional parts where the driver has them. */
static void workload(bool optional)
{
    enum { N = 300 };
    uint32_t in[N], out[N], want[N];
    gpu_context *ctx = NULL;
    gpu_stream *s = NULL, *nb = NULL;
    gpu_event *e0 = NULL, *e1 = NULL;
    gpu_module *m = NULL;
    gpu_buffer *b = NULL;
    gpu_host_buffer *h = NULL;
    bool done = false;
    float ms = -1;
    ft_mark mark;

    ft_mark_take(&mark);
    for (uint32_t i = 0; i < N; i++) {
        in[i] = 7 * i;
        want[i] = (7 * i + 1) * 3 + 1;
    }
    FT_OK(gpu_context_retain_primary(0, &ctx));
    FT_OK(gpu_stream_create(ctx, &s));
    FT_OK(gpu_stream_create_non_blocking(ctx, &nb));
    FT_OK(gpu_event_create_timed(ctx, &e0));
    FT_OK(gpu_event_create_timed(ctx, &e1));
    FT_OK(gpu_module_load_data(ctx, ft_ptx, strlen(ft_ptx), &m));
    FT_OK(gpu_buffer_create(ctx, sizeof(in), &b));
    FT_OK(gpu_host_buffer_create(ctx, sizeof(out), &h));
    FT_OK(gpu_buffer_copy_from_host(b, in, sizeof(in)));
    FT_OK(gpu_stream_record_event(s, e0));
    FT_OK(ft_add_one(s, m, b, N));
    FT_OK(ft_sleep_us(s, m, 250));
    FT_OK(gpu_stream_record_event(s, e1));
    FT_OK(gpu_event_is_complete(e1, &done));
    assert_false(done);
    FT_OK(gpu_event_synchronize(e1));
    FT_OK(gpu_event_get_elapsed_ms(e0, e1, &ms));
    /* Two operations of 1 us each, and the 250 us the kernel slept. */
    assert_true(ms > 0.2515f && ms < 0.2525f);
    /* Ordered after the blocking stream's work by the legacy stream; the async copy reads it back. */
    FT_OK(gpu_stream_wait_event(nb, e1));
    FT_OK(ft_scale_add(nb, m, b, 3, 1, N));
    FT_OK(gpu_buffer_copy_to_host_async(b, gpu_host_buffer_get_data(h), sizeof(out), nb));
    FT_OK(gpu_stream_synchronize(nb));
    memcpy(out, gpu_host_buffer_get_data(h), sizeof(out));
    assert_memory_equal(out, want, sizeof(out));
    if (optional) {
        gpu_graph *g = NULL;
        gpu_graph_exec *x = NULL;

        FT_OK(gpu_stream_begin_capture(nb, GPU_CAPTURE_MODE_GLOBAL));
        FT_OK(ft_add_one(nb, m, b, N));
        FT_OK(gpu_stream_end_capture(nb, &g));
        FT_OK(gpu_graph_instantiate(g, &x));
        FT_OK(gpu_stream_launch_graph(nb, x));
        FT_OK(gpu_stream_launch_graph(nb, x));
        FT_OK(gpu_stream_synchronize(nb));
        FT_OK(gpu_buffer_copy_to_host(b, out, sizeof(out)));
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(out[i], want[i] + 2);
        gpu_graph_exec_destroy(x);
        gpu_graph_destroy(g);
    }
    gpu_host_buffer_destroy(h);
    gpu_buffer_destroy(b);
    gpu_module_destroy(m);
    gpu_event_destroy(e1);
    gpu_event_destroy(e0);
    gpu_stream_destroy(nb);
    gpu_stream_destroy(s);
    gpu_context_destroy(ctx);
    FT_MARK_CHECK(&mark);
}

static void check_entries(const gpu_load_report *r)
{
    bool gpa = r->used_get_proc_address;

    assert_int_equal(r->entry_count, LIST_COUNT);
    for (size_t i = 0; i < LIST_COUNT; i++) {
        const gpu_entry_point *e = &r->entries[i];
        bool has = exported(list[i].symbol);
        /* Through cuGetProcAddress unless it said "not found"; the fake says so for omitted names. */
        bool via_gpa = gpa && has && !omitted(list[i].name);
        bool twin = via_gpa && is("twin") && strcmp(list[i].name, "cuStreamQuery") == 0;

        assert_string_equal(e->name, list[i].name);
        assert_string_equal(e->symbol, list[i].symbol);
        assert_int_equal(e->required, list[i].required);
        assert_int_equal(e->found, has);
        assert_int_equal(e->exported, has);
        if (!has) {
            assert_null(e->via);
            assert_non_null(e->missing);
            assert_non_null(strstr(e->missing, gpa ? "cuGetProcAddress: symbol not found" : "not exported"));
        } else {
            assert_string_equal(e->via, via_gpa ? "cuGetProcAddress" : "dlsym");
            assert_null(e->missing);
            assert_int_equal(e->matches_export, !twin);
        }
    }
}

static void report_ready(void **state)
{
    const gpu_load_report *r;
    gpu_fake_gpa_stats gpa;
    size_t missing_required = 0, missing_optional = 0, gpa_expected = 0;
    int version = 0;

    (void)state;
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
    assert_int_equal(gpu_fake_calls("cuInit"), 0);
    FT_OK(gpu_driver_load());
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_READY);
    assert_string_equal(gpu_load_stage_get_name(r->stage), "ready");
    assert_string_equal(r->message, "");
    same_file(r->file, getenv("GPUSHIM_LIBCUDA"));
    /* The report says it is the fake, as the fake says it. */
    assert_non_null(r->fake);
    assert_string_equal(r->fake, gpu_fake_identify());
    assert_non_null(strstr(r->fake, "gpushim-fakecuda "));
    assert_int_equal(r->attempt_count, 1);
    assert_string_equal(r->attempts[0].path, getenv("GPUSHIM_LIBCUDA"));
    assert_null(r->attempts[0].error);
    assert_int_equal(r->abi_version, GPU_CUDA_ABI_VERSION);
    assert_int_equal(r->init_result, 0);
    assert_int_equal(r->driver_version, gpu_fake_driver_version());
    FT_OK(gpu_driver_get_version(&version));
    assert_int_equal(version, gpu_fake_driver_version());
    /* gpushim asks cuGetProcAddress when the driver has it and is at least the pinned ABI. */
    assert_int_equal(r->used_get_proc_address,
                     exported("cuGetProcAddress_v2") && gpu_fake_driver_version() >= GPU_CUDA_ABI_VERSION);
    check_entries(r);
    for (size_t i = 0; i < LIST_COUNT; i++) {
        missing_required += list[i].required && !r->entries[i].found;
        missing_optional += !list[i].required && !r->entries[i].found;
        if (r->used_get_proc_address) {
            /* Each entry asked for once, by its base name. */
            assert_int_equal(gpu_fake_gpa_asked(list[i].name), 1);
            gpa_expected++;
        }
    }
    assert_int_equal(r->missing_required, missing_required);
    assert_int_equal(r->missing_optional, missing_optional);
    assert_int_equal(missing_required, 0);
    gpu_fake_gpa_get(&gpa);
    assert_int_equal(gpa.calls, gpa_expected);
    if (gpa.calls) {
        /* The pinned ABI, and the legacy default stream, every time. */
        assert_int_equal(gpa.min_version, GPU_CUDA_ABI_VERSION);
        assert_int_equal(gpa.max_version, GPU_CUDA_ABI_VERSION);
        assert_int_equal(gpa.flags_or, CUABI_GET_PROC_ADDRESS_LEGACY_STREAM);
        assert_int_equal(gpa.flags_and, CUABI_GET_PROC_ADDRESS_LEGACY_STREAM);
    }
    assert_int_equal(gpu_fake_calls("cuInit"), 1);
    assert_int_equal(gpu_fake_calls("cuDriverGetVersion"), 1);
}

static void runs_work(void **state)
{
    long before = gpu_fake_calls("cuInit");

    (void)state;
    workload(!is("minimal"));
    /* Loaded once: the work did not initialise the driver again. */
    assert_int_equal(gpu_fake_calls("cuInit"), before);
}

static void error_names(void **state)
{
    long calls = gpu_fake_calls("cuGetErrorName");
    gpu_buffer *b = NULL;
    char byte = 0;

    (void)state;
    assert_string_equal(gpu_cuda_result_get_name(600), "CUDA_ERROR_NOT_READY");
    assert_string_equal(gpu_cuda_result_get_name(123456), "CUDA_ERROR_UNRECOGNIZED");
    /* The driver's own names where it has cuGetErrorName, gpushim's table where not. */
    assert_int_equal(gpu_fake_calls("cuGetErrorName") - calls, exported("cuGetErrorName") ? 2 : 0);
    FT_OK(gpu_buffer_create(NULL, 16, &b));
    gpu_fake_fail("cuMemcpyHtoD_v2", 1, CUABI_ERROR_INVALID_VALUE);
    FT_FAIL(gpu_buffer_copy_from_host(b, &byte, 1), GPU_ERR_TRANSFER, 1,
            exported("cuGetErrorString") ? "cuMemcpyHtoD: CUDA_ERROR_INVALID_VALUE (1): invalid argument"
                                         : "cuMemcpyHtoD: CUDA_ERROR_INVALID_VALUE (1)");
    gpu_buffer_destroy(b);
}

/* Only the calls that need a missing optional entry point fail, each naming it. */
static void optional_missing(void **state)
{
    gpu_context *c0 = NULL, *c1 = NULL;
    gpu_stream *s = NULL, *s1 = NULL;
    gpu_buffer *b0 = NULL, *b1 = NULL;
    gpu_device_info info;
    bool flag = true;
    ft_mark mark;

    (void)state;
    ft_mark_take(&mark);
    FT_OK(gpu_context_retain_primary(0, &c0));
    FT_OK(gpu_context_retain_primary(1, &c1));
    FT_OK(gpu_stream_create(c0, &s));
    FT_OK(gpu_stream_create(c1, &s1));
    FT_OK(gpu_buffer_create(c0, 64, &b0));
    FT_OK(gpu_buffer_create(c1, 64, &b1));
    FT_OK(gpu_device_get_info(0, &info));
    assert_string_equal(info.pci_bus_id, "");
    FT_FAIL(gpu_device_can_access_peer(0, 1, &flag), GPU_ERR_NOT_SUPPORTED, 0, "cuDeviceCanAccessPeer");
    assert_true(flag);
    /* A device is never its own peer: no entry point needed to say so. */
    FT_OK(gpu_device_can_access_peer(1, 1, &flag));
    assert_false(flag);
    FT_FAIL(gpu_context_enable_peer_access(c0, c1), GPU_ERR_NOT_SUPPORTED, 0, "cuCtxEnablePeerAccess");
    FT_FAIL(gpu_stream_launch_host_func(s, free, NULL), GPU_ERR_NOT_SUPPORTED, 0, "cuLaunchHostFunc");
    FT_FAIL(gpu_buffer_copy_async(b1, b0, 64, s1), GPU_ERR_NOT_SUPPORTED, 0, "cuMemcpyPeerAsync");
    FT_OK(gpu_buffer_copy_async(b1, b1, 0, s1));
    FT_FAIL(gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_RELAXED), GPU_ERR_NOT_SUPPORTED, 0, "cuStreamBeginCapture");
    {
        gpu_graph *g = (gpu_graph *)&flag;

        FT_FAIL(gpu_stream_end_capture(s, &g), GPU_ERR_NOT_SUPPORTED, 0, "cuStreamEndCapture");
        assert_ptr_equal(g, (gpu_graph *)&flag);
    }
    FT_FAIL(gpu_stream_is_capturing(s, &flag), GPU_ERR_NOT_SUPPORTED, 0, "cuStreamIsCapturing");
    /* Everything else works. */
    FT_OK(gpu_buffer_copy_async(b0, b0, 64, s));
    FT_OK(gpu_stream_synchronize(s));
    FT_OK(gpu_stream_is_capturing(GPU_DEVICE0_LEGACY_STREAM, &flag));
    assert_false(flag);
    gpu_buffer_destroy(b1);
    gpu_buffer_destroy(b0);
    gpu_stream_destroy(s1);
    gpu_stream_destroy(s);
    gpu_context_destroy(c1);
    gpu_context_destroy(c0);
    FT_MARK_CHECK(&mark);
}

/* ---- A driver that does not load ---- */

/*
 * Every kind of call gives GPU_ERR_NO_DRIVER with the load's message and
 * `cuda` as its CUresult (cuInit's, when that is what failed), out pointers
 * untouched, and nothing loads again.
 */
/* Every kind of call gives GPU_ERR_NO_DRIVER with the load's message, and nothing loads again. */
static void every_call_fails(const char *needle, int cuda)
{
    gpu_context *ctx = (gpu_context *)&needle;
    gpu_buffer *b = (gpu_buffer *)&needle;
    gpu_stream *s = (gpu_stream *)&needle;
    gpu_module *m = (gpu_module *)&needle;
    gpu_event *e = (gpu_event *)&needle;
    gpu_host_buffer *h = (gpu_host_buffer *)&needle;
    gpu_device_info info = {.multiprocessors = -5};
    int n = -5;
    long init_calls;
    bool flag = true;

    FT_FAIL(gpu_driver_load(), GPU_ERR_NO_DRIVER, cuda, needle);
    init_calls = gpu_fake_calls("cuInit");
    FT_FAIL(gpu_driver_get_version(&n), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_device_get_count(&n), GPU_ERR_NO_DRIVER, cuda, needle);
    assert_int_equal(n, -5);
    FT_FAIL(gpu_device_get_info(0, &info), GPU_ERR_NO_DRIVER, cuda, needle);
    assert_int_equal(info.multiprocessors, -5);
    FT_FAIL(gpu_device_can_access_peer(0, 1, &flag), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_context_retain_primary(0, &ctx), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_context_synchronize(NULL), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_stream_create(NULL, &s), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_stream_synchronize(GPU_DEVICE0_LEGACY_STREAM), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_stream_is_complete(GPU_DEVICE0_LEGACY_STREAM, &flag), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_stream_is_capturing(GPU_DEVICE0_LEGACY_STREAM, &flag), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_event_create(NULL, &e), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_buffer_create(NULL, 4, &b), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_host_buffer_create(NULL, 4, &h), GPU_ERR_NO_DRIVER, cuda, needle);
    FT_FAIL(gpu_module_load_data(NULL, ft_ptx, strlen(ft_ptx), &m), GPU_ERR_NO_DRIVER, cuda, needle);
    assert_ptr_equal(ctx, (gpu_context *)&needle);
    assert_ptr_equal(s, (gpu_stream *)&needle);
    assert_ptr_equal(e, (gpu_event *)&needle);
    assert_ptr_equal(b, (gpu_buffer *)&needle);
    assert_ptr_equal(h, (gpu_host_buffer *)&needle);
    assert_ptr_equal(m, (gpu_module *)&needle);
    assert_true(flag);
    assert_int_equal(gpu_fake_calls("cuInit"), init_calls);
    /* An argument error still comes first. */
    FT_FAIL(gpu_buffer_create(NULL, 0, &b), GPU_ERR_INVALID_ARG, 0, "bytes is 0");
}

static void init_fails(void **state)
{
    int want = atoi(getenv("GPUSHIM_FAKE_INIT_FAIL"));
    char needle[128];
    const gpu_load_report *r;

    (void)state;
    snprintf(needle, sizeof(needle), "cuInit(0) failed: %s (%d)", gpu_cuda_result_get_name(want), want);
    every_call_fails(needle, want);
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_INIT);
    assert_string_equal(gpu_load_stage_get_name(r->stage), "init");
    assert_int_equal(r->init_result, want);
    assert_int_equal(r->driver_version, 0);
    same_file(r->file, getenv("GPUSHIM_LIBCUDA"));
    assert_string_equal(r->fake, gpu_fake_identify()); /* known before cuInit */
    assert_non_null(strstr(r->message, needle));
    if (want == CUABI_ERROR_STUB_LIBRARY)
        assert_non_null(strstr(r->message, "stub library"));
    assert_int_equal(gpu_fake_calls("cuInit"), 1);
    assert_int_equal(gpu_fake_calls("cuGetProcAddress"), 0);
}

static void version_fails(void **state)
{
    const gpu_load_report *r;

    (void)state;
    every_call_fails("cuDriverGetVersion failed: CUDA_ERROR_UNKNOWN (999)", 0);
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_INIT);
    assert_int_equal(r->init_result, 0);
    assert_int_equal(gpu_fake_calls("cuDriverGetVersion"), 1);
    assert_int_equal(gpu_fake_calls("cuGetProcAddress"), 0);
}

static void required_missing(void **state)
{
    const gpu_load_report *r;

    (void)state;
    every_call_fails("lacks cuMemAlloc_v2 (cuGetProcAddress: symbol not found)", 0);
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_RESOLVE);
    assert_string_equal(gpu_load_stage_get_name(r->stage), "resolve");
    assert_int_equal(r->missing_required, 1);
    assert_int_equal(r->missing_optional, 0);
    assert_int_equal(r->driver_version, gpu_fake_driver_version());
    assert_true(r->used_get_proc_address);
    check_entries(r);
    assert_int_equal(gpu_fake_calls("cuInit"), 1);
}

static void not_a_driver(void **state)
{
    const gpu_load_report *r;

    (void)state;
    every_call_fails("is not a CUDA driver: it exports no cuInit", 0);
    r = gpu_driver_get_report();
    assert_int_equal(r->stage, GPU_LOAD_RESOLVE);
    assert_false(r->init_called);
    assert_null(r->fake); /* libgpushim.so exports no gpu_fake_identify */
    assert_int_equal(gpu_fake_calls("cuInit"), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest loads[] = {
        cmocka_unit_test(report_ready),
        cmocka_unit_test(runs_work),
        cmocka_unit_test(error_names),
    };
    const struct CMUnitTest minimal[] = {
        cmocka_unit_test(report_ready),
        cmocka_unit_test(runs_work),
        cmocka_unit_test(error_names),
        cmocka_unit_test(optional_missing),
    };
    const struct CMUnitTest init[] = {cmocka_unit_test(init_fails)};
    const struct CMUnitTest version[] = {cmocka_unit_test(version_fails)};
    const struct CMUnitTest required[] = {cmocka_unit_test(required_missing)};
    const struct CMUnitTest foreign[] = {cmocka_unit_test(not_a_driver)};

    if (argc != 2) {
        fprintf(stderr, "usage: %s CONFIGURATION\n", argv[0]);
        return 2;
    }
    config = argv[1];
    if (is("gpa") || is("old-version") || is("no-gpa") || is("omit") || is("twin"))
        return cmocka_run_group_tests_name(config, loads, NULL, NULL);
    if (is("minimal"))
        return cmocka_run_group_tests_name(config, minimal, NULL, NULL);
    if (is("init-fail"))
        return cmocka_run_group_tests_name(config, init, NULL, NULL);
    if (is("version-fail"))
        return cmocka_run_group_tests_name(config, version, NULL, NULL);
    if (is("no-required"))
        return cmocka_run_group_tests_name(config, required, NULL, NULL);
    if (is("not-a-driver"))
        return cmocka_run_group_tests_name(config, foreign, NULL, NULL);
    fprintf(stderr, "%s: unknown configuration %s\n", argv[0], config);
    return 2;
}
