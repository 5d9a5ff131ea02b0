/* SPDX-License-Identifier: MIT */
/*
 * NVRTC on the GPU: a templated kernel compiled from CUDA C++ (a cubin for
 * the device, and PTX), found through its name expression, launched, its data
 * checked; the same out of the on-disk cache; the one-call
 * gpu_module_load_source(). Exits 77 without a driver, a device or NVRTC.
 *
 * usage: gpu-nvrtc [FOLDER]
 *   FOLDER: NVRTC is expected from there (GPUSHIM_LIBNVRTC naming a file in
 *   it, or GPUSHIM_LIBRARY_PATH holding it): the test says which file loaded,
 *   and with GPUSHIM_LIBNVRTC requires that file and its builtins beside it.
 *   77 when FOLDER does not exist.
 *
 * Prints NVRTC_GPU lines: the file, the version, cold compile and hit times.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static const char scale_source[] =
    "#include \"gpushim_test/offset.h\"\n"
    "template <typename T> __global__ void scale(T *x, T a, unsigned n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        x[i] = x[i] * a + (T)(OFFSET + EXTRA);\n"
    "}\n";
static const gpu_program_header scale_headers[] = {{"gpushim_test/offset.h", "#define OFFSET 7\n"}};
static const char *const scale_options[] = {"-DEXTRA=3", "-std=c++17"};

enum { N = 100000 };

static char cache_dir[] = "/tmp/gpushim-gpu-nvrtc-XXXXXX";

static gpu_program *compile_scale(gpu_compile_target target, int arch, uint64_t *ns)
{
    gpu_compile_options o = {target, arch, scale_options, 2, false};
    gpu_program *p;
    uint64_t t0;

    assert_gpu_ok(gpu_program_create(scale_source, "scale.cu", scale_headers, 1, &p));
    assert_gpu_ok(gpu_program_add_name_expression(p, "scale<float>"));
    assert_gpu_ok(gpu_program_add_name_expression(p, "scale<int>"));
    t0 = gpu_test_now_ns();
    assert_gpu_ok(gpu_program_compile(p, NULL, &o));
    if (ns)
        *ns = gpu_test_now_ns() - t0;
    return p;
}

/* Runs scale<float> (x = i / 2, a = 3) and scale<int> (x = i, a = -2) from the module; checks every element. */
static void run_and_check(const gpu_program *p, gpu_module *m)
{
    static float xf[N];
    static int xi[N];
    const char *name_f, *name_i;
    gpu_launch_config cfg = gpu_launch_config_1d((N + 255) / 256, 256);
    gpu_stream *s;
    gpu_buffer *bf, *bi;
    uint64_t pf, pi;
    float af = 3.0f;
    int ai = -2;
    unsigned n = N;
    void *args_f[] = {&pf, &af, &n};
    void *args_i[] = {&pi, &ai, &n};
    size_t wrong_f = 0, wrong_i = 0;

    assert_gpu_ok(gpu_program_get_lowered_name(p, "scale<float>", &name_f));
    assert_gpu_ok(gpu_program_get_lowered_name(p, "scale<int>", &name_i));
    assert_string_equal(name_f, "_Z5scaleIfEvPT_S0_j");
    assert_string_equal(name_i, "_Z5scaleIiEvPT_S0_j");
    for (int i = 0; i < N; i++) {
        xf[i] = (float)i / 2.0f;
        xi[i] = i;
    }
    assert_gpu_ok(gpu_stream_create_with_flags(NULL, GPU_STREAM_DEFAULT, &s));
    assert_gpu_ok(gpu_buffer_create(NULL, sizeof(xf), &bf));
    assert_gpu_ok(gpu_buffer_create(NULL, sizeof(xi), &bi));
    pf = gpu_buffer_get_device_ptr(bf);
    pi = gpu_buffer_get_device_ptr(bi);
    assert_gpu_ok(gpu_buffer_copy_from_host(bf, xf, sizeof(xf)));
    assert_gpu_ok(gpu_buffer_copy_from_host(bi, xi, sizeof(xi)));
    assert_gpu_ok(gpu_stream_launch_kernel(s, m, name_f, &cfg, args_f));
    assert_gpu_ok(gpu_stream_launch_kernel(s, m, name_i, &cfg, args_i));
    assert_gpu_ok(gpu_stream_synchronize(s));
    assert_gpu_ok(gpu_buffer_copy_to_host(bf, xf, sizeof(xf)));
    assert_gpu_ok(gpu_buffer_copy_to_host(bi, xi, sizeof(xi)));
    for (int i = 0; i < N; i++) {
        /* i / 2 * 3 + 10 is exact in float for these i. */
        wrong_f += xf[i] != (float)i * 1.5f + 10.0f;
        wrong_i += xi[i] != -2 * i + 10;
    }
    if (wrong_f || wrong_i)
        fail_msg("scale<float>: %zu of %d wrong (x[1] = %g); scale<int>: %zu wrong (x[1] = %d)", wrong_f, N,
                 (double)xf[1], wrong_i, xi[1]);
    gpu_buffer_destroy(bf);
    gpu_buffer_destroy(bi);
    gpu_stream_destroy(s);
}

static void a_cubin_for_the_device_runs_and_then_hits_the_cache(void **state)
{
    gpu_program *cold, *hit;
    gpu_module *m;
    const void *a, *b;
    size_t sa, sb;
    uint64_t cold_ns, hit_ns;

    (void)state;
    cold = compile_scale(GPU_COMPILE_CUBIN, 0, &cold_ns);
    assert_int_equal(gpu_program_get_cache_state(cold), GPU_CACHE_MISS);
    assert_null(gpu_program_get_cache_warning(cold));
    assert_gpu_ok(gpu_program_get_output(cold, &a, &sa));
    assert_memory_equal(a, "\177ELF", 4);
    assert_gpu_ok(gpu_program_load_module(cold, NULL, &m));
    run_and_check(cold, m);
    gpu_module_destroy(m);

    hit = compile_scale(GPU_COMPILE_CUBIN, 0, &hit_ns);
    assert_int_equal(gpu_program_get_cache_state(hit), GPU_CACHE_HIT);
    assert_gpu_ok(gpu_program_get_output(hit, &b, &sb));
    assert_int_equal(sa, sb);
    assert_memory_equal(a, b, sa);
    assert_gpu_ok(gpu_program_load_module(hit, NULL, &m));
    run_and_check(hit, m);
    gpu_module_destroy(m);
    printf("NVRTC_GPU cubin: cold compile %.3f ms, cache hit %.3f ms, ratio %.0fx; %zu bytes\n", cold_ns / 1e6,
           hit_ns / 1e6, hit_ns ? (double)cold_ns / (double)hit_ns : 0.0, sa);
    gpu_program_destroy(cold);
    gpu_program_destroy(hit);
}

static void ptx_for_the_device_is_jit_compiled_and_runs(void **state)
{
    gpu_device_info info;
    gpu_program *p;
    gpu_module *m;
    const void *ptx;
    size_t size;
    int driver, major, minor;

    (void)state;
    assert_gpu_ok(gpu_device_get_info(0, &info));
    p = compile_scale(GPU_COMPILE_PTX, info.compute_major * 10 + info.compute_minor, NULL);
    assert_gpu_ok(gpu_program_get_output(p, &ptx, &size));
    assert_non_null(strstr(ptx, ".entry _Z5scaleIfEvPT_S0_j("));
    assert_gpu_ok(gpu_driver_get_version(&driver));
    assert_gpu_ok(gpu_compiler_get_version(&major, &minor));
    if (major * 1000 + minor * 10 > driver) {
        /* A newer NVRTC's PTX is a newer ISA than this driver can JIT: only its cubins load here. */
        assert_gpu_status(gpu_program_load_module(p, NULL, &m), GPU_ERR_MODULE_LOAD);
        printf("NVRTC_GPU note: NVRTC %d.%d is newer than the driver (%d): its PTX is refused, as it must be\n",
               major, minor, driver);
    } else {
        assert_gpu_ok(gpu_program_load_module(p, NULL, &m));
        run_and_check(p, m);
        gpu_module_destroy(m);
    }
    gpu_program_destroy(p);
}

static void one_call_compiles_and_loads(void **state)
{
    static const char source[] = "extern \"C\" __global__ void fill(unsigned *x, unsigned v, unsigned n)\n"
                                 "{ unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = v + i; }\n";
    static unsigned host[N];
    gpu_launch_config cfg = gpu_launch_config_1d((N + 255) / 256, 256);
    gpu_module *m;
    gpu_stream *s;
    gpu_buffer *b;
    uint64_t ptr;
    unsigned v = 0xabc, n = N;
    void *args[] = {&ptr, &v, &n};
    size_t wrong = 0;

    (void)state;
    assert_gpu_ok(gpu_module_load_source(NULL, source, NULL, &m));
    assert_gpu_ok(gpu_stream_create_with_flags(NULL, GPU_STREAM_DEFAULT, &s));
    assert_gpu_ok(gpu_buffer_create(NULL, sizeof(host), &b));
    ptr = gpu_buffer_get_device_ptr(b);
    assert_gpu_ok(gpu_stream_launch_kernel(s, m, "fill", &cfg, args));
    assert_gpu_ok(gpu_stream_synchronize(s));
    assert_gpu_ok(gpu_buffer_copy_to_host(b, host, sizeof(host)));
    for (unsigned i = 0; i < N; i++)
        wrong += host[i] != 0xabc + i;
    assert_int_equal(wrong, 0);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
    gpu_module_destroy(m);
    /* A compile error is GPU_ERR_COMPILE with NVRTC's log, not a module. */
    assert_gpu_status(gpu_module_load_source(NULL, "__global__ void broken() { nope; }", NULL, &m), GPU_ERR_COMPILE);
    assert_non_null(strstr(gpu_last_error_get_message(), "nope"));
}

static void remove_cache(void)
{
    DIR *d = opendir(cache_dir);
    struct dirent *de;
    char path[512];

    if (!d)
        return;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.') {
            snprintf(path, sizeof(path), "%s/%s", cache_dir, de->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(cache_dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_cubin_for_the_device_runs_and_then_hits_the_cache),
        cmocka_unit_test(ptx_for_the_device_is_jit_compiled_and_runs),
        cmocka_unit_test(one_call_compiles_and_loads),
    };
    const char *folder = argc > 1 ? argv[1] : NULL;
    const gpu_compiler_report *r;
    struct stat st;
    int rc = gpu_test_start("gpu-nvrtc");

    if (rc != 0)
        return rc;
    if (folder && stat(folder, &st) != 0) {
        printf("skipped: %s does not exist\n", folder);
        return GPU_TEST_SKIP;
    }
    if (gpu_compiler_load() != GPU_OK) {
        printf("skipped: no NVRTC: %s\n", gpu_last_error_get_message());
        return GPU_TEST_SKIP;
    }
    r = gpu_compiler_get_report();
    printf("NVRTC_GPU %s: NVRTC %d.%d from %s; builtins: %s\n", folder ? folder : "default", r->version_major,
           r->version_minor, r->file, r->builtins ? r->builtins : r->builtins_note);
    if (folder && getenv("GPUSHIM_LIBNVRTC")) {
        /* Named: exactly that file, and the builtins beside it, loaded by gpushim. */
        if (strncmp(r->file, folder, strlen(folder)) != 0 || !r->builtins ||
            strncmp(r->builtins, folder, strlen(folder)) != 0) {
            printf("FAILED: expected NVRTC and its builtins from %s\n", folder);
            return 1;
        }
    } else if (folder && strncmp(r->file, folder, strlen(folder)) != 0) {
        /* GPUSHIM_LIBRARY_PATH comes last: a system NVRTC, where there is one, is found first. */
        printf("NVRTC_GPU note: a system NVRTC came before GPUSHIM_LIBRARY_PATH (%s)\n", r->file);
    }
    if (!mkdtemp(cache_dir))
        return 1;
    setenv("GPUSHIM_CACHE_DIR", cache_dir, 1);
    rc = cmocka_run_group_tests_name("gpu-nvrtc", tests, NULL, NULL);
    remove_cache();
    return rc;
}
