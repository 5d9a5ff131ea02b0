/* SPDX-License-Identifier: MIT */
/*
 * gpu_program_* against the real libnvrtc: CUDA C++ compiled to PTX (and a
 * cubin) on a machine with no driver and no GPU. Exits 77 (skipped) where no
 * NVRTC loads.
 *
 * usage: test-real-nvrtc [explicit]
 *   explicit: GPUSHIM_LIBNVRTC names the file (a folder the system loader
 *   need not search), so gpushim loads libnvrtc-builtins from beside it.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpushim/gpushim.h>

static const char source[] =
    "template <typename T> __global__ void scale(T *x, T a, unsigned n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= a;\n"
    "}\n"
    "extern \"C\" __global__ void add_one(int *x, unsigned n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] += 1;\n"
    "}\n";

static const gpu_compile_options ptx75 = {GPU_COMPILE_PTX, 75, NULL, 0, true};

static const char *ptx_of(const gpu_program *p)
{
    const void *data;
    size_t size;

    assert_int_equal(gpu_program_get_output(p, &data, &size), GPU_OK);
    assert_true(size > 1);
    assert_int_equal(((const char *)data)[size - 1], '\0');
    return data;
}

static void ptx_has_the_template_and_the_extern_c_entries(void **state)
{
    gpu_program *p;
    const char *lowered_f, *lowered_d, *ptx;
    char entry[128];

    (void)state;
    assert_int_equal(gpu_program_create(source, "scale.cu", NULL, 0, &p), GPU_OK);
    assert_int_equal(gpu_program_add_name_expression(p, "scale<float>"), GPU_OK);
    assert_int_equal(gpu_program_add_name_expression(p, "&scale<double>"), GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, &ptx75), GPU_OK);
    assert_int_equal(gpu_program_get_lowered_name(p, "scale<float>", &lowered_f), GPU_OK);
    assert_int_equal(gpu_program_get_lowered_name(p, "&scale<double>", &lowered_d), GPU_OK);
    /* The Itanium C++ ABI's names for them. */
    assert_string_equal(lowered_f, "_Z5scaleIfEvPT_S0_j");
    assert_string_equal(lowered_d, "_Z5scaleIdEvPT_S0_j");
    ptx = ptx_of(p);
    assert_non_null(strstr(ptx, ".target sm_75"));
    assert_non_null(strstr(ptx, ".visible .entry add_one("));
    /* Template instances are weak entries. */
    snprintf(entry, sizeof(entry), ".entry %s(", lowered_f);
    assert_non_null(strstr(ptx, entry));
    snprintf(entry, sizeof(entry), ".entry %s(", lowered_d);
    assert_non_null(strstr(ptx, entry));
    gpu_program_destroy(p);
}

static void headers_and_options_shape_the_ptx(void **state)
{
    static const char *const options[] = {"-std=c++17", "-DFACTOR=3"};
    const gpu_program_header headers[] = {{"names/kernel_name.h", "#define KERNEL_NAME from_a_header\n"}};
    gpu_compile_options o = {GPU_COMPILE_PTX, 80, options, 2, true};
    gpu_program *p;
    const char *ptx;

    (void)state;
    assert_int_equal(gpu_program_create("#include \"names/kernel_name.h\"\n"
                                        "extern \"C\" __global__ void KERNEL_NAME(int *x) { *x *= FACTOR; }\n",
                                        NULL, headers, 1, &p),
                     GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_OK);
    ptx = ptx_of(p);
    assert_non_null(strstr(ptx, ".visible .entry from_a_header("));
    assert_non_null(strstr(ptx, ".target sm_80"));
    /* x * 3 as an integer multiply by the immediate 3 (or x + 2x): FACTOR reached the compiler. */
    assert_true(strstr(ptx, ", 3;") != NULL || strstr(ptx, "shl.b32") != NULL);
    gpu_program_destroy(p);
}

static void a_compile_error_carries_nvrtcs_log(void **state)
{
    gpu_program *p;
    const char *log;
    size_t size;

    (void)state;
    assert_int_equal(gpu_program_create("extern \"C\" __global__ void k(int *x) { *x = undefined_thing; }\n",
                                        "broken.cu", NULL, 0, &p),
                     GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, &ptx75), GPU_ERR_COMPILE);
    assert_non_null(strstr(gpu_last_error_get_message(), "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION (6)"));
    assert_non_null(strstr(gpu_last_error_get_message(), "undefined_thing"));
    assert_int_equal(gpu_program_get_log(p, &log, &size), GPU_OK);
    assert_non_null(strstr(log, "broken.cu(1): error"));
    assert_non_null(strstr(log, "undefined_thing"));
    assert_int_equal(size, strlen(log));
    gpu_program_destroy(p);
}

static void a_cubin_is_an_elf_image(void **state)
{
    gpu_compile_options o = {GPU_COMPILE_CUBIN, 90, NULL, 0, true};
    gpu_program *p;
    const void *data;
    size_t size;

    (void)state;
    assert_int_equal(gpu_program_create(source, NULL, NULL, 0, &p), GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_OK);
    assert_int_equal(gpu_program_get_output(p, &data, &size), GPU_OK);
    assert_true(size > 64);
    assert_memory_equal(data, "\177ELF", 4);
    gpu_program_destroy(p);
}

static void the_second_compile_is_a_cache_hit(void **state)
{
    char dir[] = "/tmp/gpushim-real-cache-XXXXXX";
    gpu_compile_options o = ptx75;
    gpu_program *a, *b;
    const void *da, *db;
    size_t sa, sb;
    const char *la, *lb;

    (void)state;
    assert_non_null(mkdtemp(dir));
    setenv("GPUSHIM_CACHE_DIR", dir, 1);
    o.no_cache = false;
    for (int i = 0; i < 2; i++) {
        gpu_program **p = i ? &b : &a;

        assert_int_equal(gpu_program_create(source, NULL, NULL, 0, p), GPU_OK);
        assert_int_equal(gpu_program_add_name_expression(*p, "scale<float>"), GPU_OK);
        assert_int_equal(gpu_program_compile(*p, NULL, &o), GPU_OK);
        assert_null(gpu_program_get_cache_warning(*p));
    }
    assert_int_equal(gpu_program_get_cache_state(a), GPU_CACHE_MISS);
    assert_int_equal(gpu_program_get_cache_state(b), GPU_CACHE_HIT);
    assert_int_equal(gpu_program_get_output(a, &da, &sa), GPU_OK);
    assert_int_equal(gpu_program_get_output(b, &db, &sb), GPU_OK);
    assert_int_equal(sa, sb);
    assert_memory_equal(da, db, sa);
    assert_int_equal(gpu_program_get_lowered_name(a, "scale<float>", &la), GPU_OK);
    assert_int_equal(gpu_program_get_lowered_name(b, "scale<float>", &lb), GPU_OK);
    assert_string_equal(la, lb);
    assert_int_equal(unlink(gpu_program_get_cache_path(a)), 0);
    assert_int_equal(rmdir(dir), 0);
    gpu_program_destroy(a);
    gpu_program_destroy(b);
    unsetenv("GPUSHIM_CACHE_DIR");
}

/* Writes `text` to `path`. */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Compiles with the cache on, `options` added; the PTX must hold `want`; the cache state is returned (the warning checked). */
static gpu_cache_state compile_expecting(const char *src, const char *const *options, size_t n, const char *want)
{
    gpu_cache_state state;
    gpu_compile_options o = ptx75;
    gpu_program *p;

    o.no_cache = false;
    o.options = options;
    o.option_count = n;
    assert_int_equal(gpu_program_create(src, "reads_disk.cu", NULL, 0, &p), GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, &o), GPU_OK);
    if (!strstr(ptx_of(p), want))
        fail_msg("the PTX does not hold \"%s\" (cache state %d): a stale header", want, gpu_program_get_cache_state(p));
    state = gpu_program_get_cache_state(p);
    if (state == GPU_CACHE_OFF)
        assert_non_null(strstr(gpu_program_get_cache_warning(p), "cache skipped"));
    gpu_program_destroy(p);
    return state;
}

/*
 * A header read from disk changes between two compiles: the second sees the
 * new one. NVRTC reports no dependencies, so such a program is not cached.
 */
static void a_header_on_disk_is_never_stale(void **state)
{
    static const char src[] = "#include \"value.h\"\n"
                              "extern \"C\" __global__ void put(int *x) { *x = VALUE; }\n";
    char cache[] = "/tmp/gpushim-real-cache-XXXXXX", inc[] = "/tmp/gpushim-real-inc-XXXXXX";
    char header[64], option[64];
    const char *options[1] = {option};

    (void)state;
    assert_non_null(mkdtemp(cache));
    assert_non_null(mkdtemp(inc));
    setenv("GPUSHIM_CACHE_DIR", cache, 1);
    snprintf(header, sizeof(header), "%s/value.h", inc);
    snprintf(option, sizeof(option), "-I%s", inc);
    gpu_cache_state states[4];

    write_text(header, "#define VALUE 1234567\n");
    states[0] = compile_expecting(src, options, 1, "1234567");
    write_text(header, "#define VALUE 7654321\n");
    states[1] = compile_expecting(src, options, 1, "7654321");
    /* An absolute #include, no -I at all. */
    {
        char abs_src[256];

        snprintf(abs_src, sizeof(abs_src), "#include \"%s\"\nextern \"C\" __global__ void put(int *x) { *x = VALUE; }\n",
                 header);
        states[2] = compile_expecting(abs_src, NULL, 0, "7654321");
        write_text(header, "#define VALUE 1111111\n");
        states[3] = compile_expecting(abs_src, NULL, 0, "1111111");
    }
    /* Compiled every time, with the reason in the warning. */
    for (int i = 0; i < 4; i++)
        assert_int_equal(states[i], GPU_CACHE_OFF);
    assert_int_equal(unlink(header), 0);
    assert_int_equal(rmdir(inc), 0);
    assert_int_equal(rmdir(cache), 0); /* nothing was stored */
    unsetenv("GPUSHIM_CACHE_DIR");
}

struct job {
    int index;
    gpu_status status;
    bool found_entry;
};

static void *compile_one(void *arg)
{
    struct job *job = arg;
    char src[160], entry[64];
    gpu_program *p = NULL;

    snprintf(src, sizeof(src), "extern \"C\" __global__ void thread_kernel_%d(int *x) { *x += %d; }\n", job->index,
             job->index);
    snprintf(entry, sizeof(entry), ".visible .entry thread_kernel_%d(", job->index);
    job->status = gpu_program_create(src, NULL, NULL, 0, &p);
    if (job->status == GPU_OK)
        job->status = gpu_program_compile(p, NULL, &ptx75);
    if (job->status == GPU_OK) {
        const void *data;
        size_t size;

        job->found_entry = gpu_program_get_output(p, &data, &size) == GPU_OK && strstr(data, entry) != NULL;
    }
    gpu_program_destroy(p);
    return NULL;
}

static void two_threads_compile_at_once(void **state)
{
    enum { THREADS = 4 };
    pthread_t t[THREADS];
    struct job jobs[THREADS];

    (void)state;
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (struct job){i, GPU_ERR_DRIVER, false};
        assert_int_equal(pthread_create(&t[i], NULL, compile_one, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(jobs[i].status, GPU_OK);
        assert_true(jobs[i].found_entry);
    }
}

static void the_device_target_needs_a_driver(void **state)
{
    gpu_program *p;
    gpu_module *m;

    (void)state;
    assert_int_equal(gpu_program_create(source, NULL, NULL, 0, &p), GPU_OK);
    assert_int_equal(gpu_program_compile(p, NULL, NULL), GPU_ERR_NO_DRIVER);
    gpu_program_destroy(p);
    assert_int_equal(gpu_module_load_source(NULL, source, NULL, &m), GPU_ERR_NO_DRIVER);
}

static void the_report_names_nvrtc(void **state)
{
    const gpu_compiler_report *r = gpu_compiler_get_report();
    bool has_90 = false;
    int major, minor;

    (void)state;
    assert_int_equal(gpu_compiler_get_version(&major, &minor), GPU_OK);
    assert_int_equal(r->stage, GPU_LOAD_READY);
    assert_int_equal(r->version_major, major);
    assert_true(major >= 12);
    assert_non_null(r->file);
    assert_non_null(strstr(r->file, "libnvrtc.so.1"));
    assert_int_equal(r->missing_required, 0);
    for (size_t i = 0; i < r->arch_count; i++)
        has_90 |= r->archs[i] == 90;
    assert_true(has_90);
    printf("NVRTC %d.%d from %s; %zu architectures, %d..%d; builtins: %s\n", major, minor, r->file, r->arch_count,
           r->archs[0], r->archs[r->arch_count - 1], r->builtins ? r->builtins : r->builtins_note);
    if (getenv("GPUSHIM_LIBNVRTC")) {
        assert_string_equal(r->file, getenv("GPUSHIM_LIBNVRTC"));
        /* From a named file, the builtins beside it are loaded first. */
        assert_non_null(r->builtins);
        assert_non_null(strstr(r->builtins, "libnvrtc-builtins.so."));
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_report_names_nvrtc),
        cmocka_unit_test(ptx_has_the_template_and_the_extern_c_entries),
        cmocka_unit_test(headers_and_options_shape_the_ptx),
        cmocka_unit_test(a_compile_error_carries_nvrtcs_log),
        cmocka_unit_test(a_cubin_is_an_elf_image),
        cmocka_unit_test(the_second_compile_is_a_cache_hit),
        cmocka_unit_test(a_header_on_disk_is_never_stale),
        cmocka_unit_test(two_threads_compile_at_once),
        cmocka_unit_test(the_device_target_needs_a_driver),
    };

    if (argc > 1 && strcmp(argv[1], "explicit") == 0 && !getenv("GPUSHIM_LIBNVRTC")) {
        puts("skipped: GPUSHIM_LIBNVRTC is not set");
        return 77;
    }
    if (gpu_compiler_load() != GPU_OK) {
        printf("skipped: no NVRTC: %s\n", gpu_last_error_get_message());
        return 77;
    }
    return cmocka_run_group_tests_name("real-nvrtc", tests, NULL, NULL);
}
