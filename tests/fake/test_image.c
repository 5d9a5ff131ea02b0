/* SPDX-License-Identifier: MIT */
/*
 * The fake's module reader (fake/objects/fake_image.c): entries, their
 * parameter layouts and the module's globals, read from PTX, then used by
 * host implementations through gpushim's API.
 *
 *   test-image               hand-written PTX of every construct the reader
 *                            knows, fatbins built here, malformed text
 *   test-image nvrtc SRC     ptx_kernels.cu compiled to PTX by NVRTC on this
 *                            machine (exit 77 without one)
 *   test-image nvcc DIR      what nvcc made of it at build time: PTX, PTX
 *                            with debug sections, fatbins, a cubin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

/* What a launch of `record` saw. */
struct seen {
    unsigned runs, count;
    size_t sizes[8];
    unsigned char bytes[8][32];
};

static int record(const gpu_fake_launch *l)
{
    struct seen *s = l->user_data;

    s->runs++;
    s->count = l->param_count;
    for (unsigned i = 0; i < l->param_count && i < 8; i++) {
        s->sizes[i] = l->param_sizes[i];
        memcpy(s->bytes[i], l->params[i], l->param_sizes[i] < 32 ? l->param_sizes[i] : 32);
    }
    return 0;
}

static gpu_stream *stream;

static int setup(void **state)
{
    (void)state;
    FT_OK(gpu_stream_create(NULL, &stream));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gpu_stream_destroy(stream);
    for (int k = 0; k < GPU_FAKE_LIVE_CONTEXT_RETAINS; k++)
        assert_int_equal(gpu_fake_live((gpu_fake_live_kind)k), 0);
    return 0;
}

/* Launches `name` of `m` with `record` as its implementation and an `extra` buffer of `bytes`; the driver's answer. */
static int launch_extra(gpu_module *m, const char *name, const void *buffer, size_t bytes, struct seen *s)
{
    gpu_function *f = NULL;
    size_t size = bytes;
    void *extra[] = {(void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_POINTER, (void *)(uintptr_t)buffer,
                     (void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     (void *)(uintptr_t)CUABI_LAUNCH_PARAM_END};
    cuabi_context popped = NULL;
    int rc;

    memset(s, 0, sizeof(*s));
    assert_int_equal(gpu_fake_kernel_register(name, record, s), 0);
    FT_OK(gpu_module_get_function(m, name, &f));
    assert_int_equal(cuCtxPushCurrent_v2(gpu_context_get_raw(gpu_stream_get_context(stream))), CUABI_SUCCESS);
    rc = cuLaunchKernel(gpu_function_get_raw(f), 1, 1, 1, 1, 1, 1, 0, gpu_stream_get_raw(stream), NULL, extra);
    if (rc == CUABI_SUCCESS)
        assert_int_equal(cuStreamSynchronize(gpu_stream_get_raw(stream)), CUABI_SUCCESS);
    assert_int_equal(cuCtxPopCurrent_v2(&popped), CUABI_SUCCESS);
    return rc;
}

/* The entry's parameters have `n` of these sizes, laid out in `total` bytes (its last byte is tried as the end). */
static void assert_layout(gpu_module *m, const char *name, unsigned n, const size_t *sizes, size_t total)
{
    unsigned char buffer[4096] = {0};
    struct seen s;

    assert_int_equal(launch_extra(m, name, buffer, total, &s), CUABI_SUCCESS);
    assert_int_equal(s.runs, 1);
    assert_int_equal(s.count, n);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(s.sizes[i], sizes[i]);
    assert_int_equal(launch_extra(m, name, buffer, total + 1, &s), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(s.runs, 0);
}

static void assert_global(gpu_module *m, const char *name, size_t bytes)
{
    uint64_t addr = 0;
    size_t got = 0;

    FT_OK(gpu_module_get_global(m, name, &addr, &got));
    assert_int_equal(got, bytes);
}

/* ---- Hand-written PTX ---- */

static const char every_construct[] =
    "//\n// Every construct the reader knows\n//\n"
    ".version 8.5\n.target sm_90, debug\n.address_size 64\n"
    "/* a block comment\n   over lines, with { and } and .entry in it */\n"
    ".file 1 \"/src/kernels.cu\", 1700000000, 1234\n"
    ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
    ".weak .func helper(.param .b32 x)\n{\n\t.reg .b32 %r<2>;\n\tret;\n}\n"
    ".visible .func (.param .b32 r) twice(.param .b32 a) { { .reg .b32 t; } ret; }\n"
    ".extern .shared .align 16 .b8 dynamic_smem[];\n"
    ".shared .align 4 .b8 module_shared[128];\n"
    ".local .align 4 .b8 module_local[8];\n"
    ".visible .global .align 4 .u32 counter;\n"
    ".global .align 4 .b8 table[64];\n"
    ".global .u32 a, b[4];\n"
    ".const .align 4 .f32 floats[2] = {0f3F800000, 0fC0000000};\n"
    ".global .align 1 .b8 inferred[] = {1, 2, 3};\n"
    ".global .s32 negative = -5;\n"
    ".global .align 8 .u64 pointers[2] = {generic(counter), 7};\n"
    ".global .attribute(.managed) .align 4 .u32 managed_value = 9;\n"
    ".global .v2 .u32 pair = {3, 4};\n"
    ".global .align 4 .u32 _ZN5outer5inner6deeper6deeper6deeper6deeper6deeper6deeper6deeper6deeper6deeper6deeper4longE;\n"
    ".extern .global .align 4 .u32 defined_elsewhere;\n"
    ".extern .entry declared_only(.param .u64 p);\n"
    "\t// .globl\tall_kinds\n"
    ".visible .entry all_kinds(\n"
    "\t.param .u8 all_kinds_param_0,\n"
    "\t.param .u16 all_kinds_param_1,\n"
    "\t.param .f64 all_kinds_param_2,\n"
    "\t.param .align 16 .b8 all_kinds_param_3[20],\n"
    "\t.param .u64 .ptr .global .align 16 all_kinds_param_4,\n"
    "\t.param .u32 all_kinds_param_5\n"
    ")\n"
    ".maxntid 256, 1, 1\n.minnctapersm 2\n.maxnreg 64\n"
    ".explicitcluster\n.reqnctapercluster 2, 1, 1\n.maxclusterrank 8\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.loc 1 12 0\n"
    "\tld.param.v2.f32 {%f1, %f2}, [all_kinds_param_3+8];\n"
    "\t@%p1 bra $L__BB0_2;\n"
    "$L__BB0_2:\n"
    "\tret;\n"
    "}\n"
    ".entry no_params()\n.reqntid 64\n{\n\tret;\n}\n"
    ".entry no_parens\n{\n\tret;\n}\n"
    ".weak .entry weak_entry(.param .b32 x) { ret; }\n"
    ".section .debug_info\n{\n.b32 1008\n.b8 2\n.b32 .debug_abbrev\n}\n"
    ".section .debug_str\n{\n$L__info_string0:\n.b8 107\n.b8 0\n}\n"
    ".fake_entry listed 1 2 24 8 12:4\n"
    ".fake_kernel add_one\n"
    ".fake_global extra_global 12\n";

static void every_construct_read(void **state)
{
    gpu_module *m = NULL;
    gpu_function *f = NULL;
    uint64_t addr = 0;
    size_t bytes = 0;
    float fl[2];
    unsigned char three[3];
    int32_t neg;
    uint64_t ptrs[2];
    uint32_t u, pair[2];

    (void)state;
    FT_OK(gpu_module_load_data(NULL, every_construct, strlen(every_construct), &m));
    /* u8 at 0, u16 at 2, f64 at 8, 20 bytes aligned to 16 at 16, a pointer at 40, u32 at 48. */
    assert_layout(m, "all_kinds", 6, (const size_t[]){1, 2, 8, 20, 8, 4}, 52);
    assert_layout(m, "no_params", 0, NULL, 0);
    assert_layout(m, "no_parens", 0, NULL, 0);
    assert_layout(m, "weak_entry", 1, (const size_t[]){4}, 4);
    /* 1 at 0, 2 at 2, 24 (aligned 8) at 8, 8 at 32, 12 (aligned 4, as asked) at 40. */
    assert_layout(m, "listed", 5, (const size_t[]){1, 2, 24, 8, 12}, 52);
    FT_OK(gpu_module_get_function(m, "add_one", &f));
    FT_FAIL(gpu_module_get_function(m, "declared_only", &f), GPU_ERR_FUNCTION_NOT_FOUND, CUABI_ERROR_NOT_FOUND, NULL);
    FT_FAIL(gpu_module_get_function(m, "helper", &f), GPU_ERR_FUNCTION_NOT_FOUND, CUABI_ERROR_NOT_FOUND, NULL);
    assert_global(m, "counter", 4);
    assert_global(m, "table", 64);
    assert_global(m, "a", 4);
    assert_global(m, "b", 16);
    assert_global(m, "floats", 8);
    assert_global(m, "inferred", 3);
    assert_global(m, "negative", 4);
    assert_global(m, "pointers", 16);
    assert_global(m, "managed_value", 4);
    assert_global(m, "pair", 8);
    assert_global(m, "extra_global", 12);
    assert_global(m, "_ZN5outer5inner6deeper6deeper6deeper6deeper6deeper6deeper6deeper6deeper6deeper6deeper4longE", 4);
    FT_FAIL(gpu_module_get_global(m, "defined_elsewhere", &addr, &bytes), GPU_ERR_FUNCTION_NOT_FOUND,
            CUABI_ERROR_NOT_FOUND, NULL);
    FT_FAIL(gpu_module_get_global(m, "module_shared", &addr, &bytes), GPU_ERR_FUNCTION_NOT_FOUND,
            CUABI_ERROR_NOT_FOUND, NULL);
    /* Initialisers are the globals' first contents. */
    FT_OK(gpu_module_copy_from_global(m, "floats", fl, sizeof(fl)));
    assert_true(fl[0] == 1.0f && fl[1] == -2.0f);
    FT_OK(gpu_module_copy_from_global(m, "inferred", three, sizeof(three)));
    assert_true(three[0] == 1 && three[1] == 2 && three[2] == 3);
    FT_OK(gpu_module_copy_from_global(m, "negative", &neg, sizeof(neg)));
    assert_int_equal(neg, -5);
    FT_OK(gpu_module_copy_from_global(m, "pointers", ptrs, sizeof(ptrs)));
    assert_int_equal(ptrs[0], 0); /* an address the fake does not compute */
    assert_int_equal(ptrs[1], 7);
    FT_OK(gpu_module_copy_from_global(m, "managed_value", &u, sizeof(u)));
    assert_int_equal(u, 9);
    FT_OK(gpu_module_copy_from_global(m, "pair", pair, sizeof(pair)));
    assert_true(pair[0] == 3 && pair[1] == 4);
    FT_OK(gpu_module_copy_from_global(m, "counter", &u, sizeof(u)));
    assert_int_equal(u, 0);
    gpu_module_destroy(m);
}

static void malformed(void **state)
{
    static const struct {
        const char *text;
        const char *needle;
    } cases[] = {
        {".version 8.0\n.entry k(\n.param .u64 a\n{ ret; }\n", "PTX line 4: expected , or )"},
        {".version 8.0\n.entry k() { ret;\n", "PTX line 3: the text ends inside the body of function \"k\""},
        {".version 8.0\n\n/* open\n", "line 3: /* comment does not end"},
        {".version 8.0\n.entry k(.param .u64) {}\n", "PTX line 2: a declaration without a name"},
        {".version 8.0\n.entry k(.param a) {}\n", "PTX line 2: a declaration without a type"},
        {".version 8.0\n.global .u32 x = {1, 2;\n", "PTX line 2: expected the initialiser's } in \"x\""},
        {".version 8.0\n.global .u32 x\n", "PTX line 3: expected ; or , after \"x\""},
        {".version 8.0\n.global .u32 x y;\n", "PTX line 2: expected ; or , after \"x\""},
        {".version 8.0\n.entry k(.param .b8 p[5000]) {}\n", "PTX line 2: more than 4096 bytes of parameters in kernel \"k\""},
        {".version 8.0\n.entry k(.param .b8 p[2000], .param .b8 q[2000], .param .b8 r[2000]) {}\n",
         "more than 4096 bytes of parameters in kernel \"k\""},
        {".version 8.0\n.entry k() {}\n\n.entry k() {}\n", "line 4: \"k\" is defined twice"},
        {".version 8.0\n.fake_entry e 8 x\n", "line 2: .fake_entry: bad parameter size in \"e 8 x\""},
        {".version 8.0\n.fake_entry e 8:3\n", "bad parameter size"},
        {".version 8.0\n.entry k() .maxntid 1 ret;\n", "PTX line 2: unexpected text after function \"k\""},
        {".target sm_90\n.version 8.0\n", "line 1: .version must come first"},
        {".version\n", "PTX line 1: expected a version number after .version"},
        {".version 8.0\n.section .debug_info\n.b8 1\n", "line 2: expected { after .section .debug_info"},
        {".version 8.0\n.pragma \"nounroll;\n", "line 2: a string does not end on its line"},
        {".version 8.0\n.global .u32 x[2;\n", "PTX line 2: expected ]"},
        {".version 8.0\n.global .align 3 .u32 x;\n", "PTX line 2: bad .align"},
        {".version 8.0\n.func f(.param .b32 x) { ret;\n", "PTX line 3: the text ends inside the body of function \"f\""},
        {".version 8.0\nmov.u32 %r1, 0;\n", "line 2: unexpected \"mov.u32 %r1, 0;\""},
        {".version 8.0\n.visible foo;\n", "line 2: expected a declaration, found \"foo\""},
    };
    gpu_module *m = (gpu_module *)&m;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        print_message("%s\n", cases[i].needle);
        FT_FAIL(gpu_module_load_data(NULL, cases[i].text, strlen(cases[i].text), &m), GPU_ERR_MODULE_LOAD,
                CUABI_ERROR_INVALID_PTX, cases[i].needle);
    }
    assert_ptr_equal(m, (gpu_module *)&m);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

/*
 * The interpreter's decoder lays out every entry's parameters, and the module
 * takes them from it: a header it cannot read refuses the load with its
 * reason, even where the parameters alone would have a size.
 */
static void entries_from_decoder(void **state)
{
    gpu_module *m = NULL;
    static const char over_aligned[] = ".version 8.0\n.entry k(.param .align 8192 .b8 p[8]) {}\n";
    static const char unsized[] = ".version 8.0\n.entry k(.param .b8 p[]) {}\n";
    static const char bounded[] = ".version 8.0\n.entry k(.param .u32 a) .maxntid 64, 2 .reqntid 32, 2 { ret; }\n";
    int threads = 0;

    (void)state;
    FT_FAIL(gpu_module_load_data(NULL, over_aligned, sizeof(over_aligned), &m), GPU_ERR_MODULE_LOAD,
            CUABI_ERROR_INVALID_PTX, "PTX line 2: bad .align");
    FT_FAIL(gpu_module_load_data(NULL, unsized, sizeof(unsized), &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_INVALID_PTX,
            "PTX line 2: parameter \"p\" of kernel \"k\" has no size");
    assert_null(m);
    /* .maxntid and .reqntid as the decoder reads them: the tightest product bounds a block. */
    FT_OK(gpu_module_load_data(NULL, bounded, sizeof(bounded), &m));
    assert_layout(m, "k", 1, (const size_t[]){4}, 4);
    {
        gpu_function *f = NULL;

        FT_OK(gpu_module_get_function(m, "k", &f));
        FT_OK(gpu_function_get_attribute(f, GPU_FUNCTION_ATTR_MAX_THREADS_PER_BLOCK, &threads));
    }
    assert_int_equal(threads, 64);
    gpu_module_destroy(m);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

/*
 * The kernels see the variables the module allocated: each declarator of a
 * statement and a managed one, read by the one decoder.
 */
static void globals_from_decoder(void **state)
{
    static const char text[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                               ".global .u32 a = 1, b = 2;\n"
                               ".global .attribute(.managed) .align 4 .u32 v = 7;\n"
                               ".global .u32 out[2];\n"
                               ".visible .entry copy()\n{\n.reg .b32 %r<3>;\n"
                               "ld.global.u32 %r1, [b];\nld.global.u32 %r2, [v];\n"
                               "st.global.u32 [out], %r1;\nst.global.u32 [out+4], %r2;\nret;\n}\n";
    gpu_module *m = NULL;
    gpu_function *f = NULL;
    cuabi_context popped = NULL;
    uint32_t out[2] = {0, 0}, a = 0;

    (void)state;
    FT_OK(gpu_module_load_data(NULL, text, sizeof(text), &m));
    FT_OK(gpu_module_get_function(m, "copy", &f));
    assert_int_equal(cuCtxPushCurrent_v2(gpu_context_get_raw(gpu_stream_get_context(stream))), CUABI_SUCCESS);
    assert_int_equal(cuLaunchKernel(gpu_function_get_raw(f), 1, 1, 1, 1, 1, 1, 0, gpu_stream_get_raw(stream), NULL,
                                    NULL),
                     CUABI_SUCCESS);
    assert_int_equal(cuStreamSynchronize(gpu_stream_get_raw(stream)), CUABI_SUCCESS);
    assert_int_equal(cuCtxPopCurrent_v2(&popped), CUABI_SUCCESS);
    FT_OK(gpu_module_copy_from_global(m, "out", out, sizeof(out)));
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 7);
    FT_OK(gpu_module_copy_from_global(m, "a", &a, sizeof(a)));
    assert_int_equal(a, 1);
    gpu_module_destroy(m);
}

static void fatbins(void **state)
{
    static const char text[] = ".version 8.0\n.target sm_90\n.entry k(.param .u64 p) { ret; }\n";
    static unsigned char fb[512];
    struct {
        uint32_t magic, version;
        const void *data, *filename;
    } wrapper = {0x466243b1u, 1, fb, NULL};
    gpu_module *m = NULL;
    size_t n;

    (void)state;
    n = ft_make_fatbin(fb, 1, 0x11, text);
    FT_OK(gpu_module_load_data(NULL, fb, n, &m));
    assert_layout(m, "k", 1, (const size_t[]){8}, 8);
    gpu_module_destroy(m);
    /* gpushim passes the driver no size: a binary image must hold what its headers say, and a wrapper is a pointer. */
    FT_INVALID(gpu_module_load_data(NULL, fb, n - 1, &m), "a fatbin shorter than its header says");
    FT_INVALID(gpu_module_load_data(NULL, fb, 15, &m), "a fatbin shorter than its 16-byte header");
    FT_INVALID(gpu_module_load_data(NULL, &wrapper, sizeof(wrapper), &m),
               "a fatbin wrapper (__fatBinC_Wrapper_t) holds a pointer, not an image");
    /* PTX in the fatbin is read: an error in it is a PTX error. */
    n = ft_make_fatbin(fb, 1, 0x11, ".version 8.0\nnonsense\n");
    FT_FAIL(gpu_module_load_data(NULL, fb, n, &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_INVALID_PTX,
            "line 2: unexpected \"nonsense\"");
    /* A compressed entry whose header gives no compressed size. */
    n = ft_make_fatbin(fb, 1, 0x8011, text);
    FT_FAIL(gpu_module_load_data(NULL, fb, n, &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_INVALID_IMAGE,
            "a compressed entry's sizes are out of range");
    n = ft_make_fatbin(fb, 2, 0x11, "\x7f" "ELF");
    FT_FAIL(gpu_module_load_data(NULL, fb, n, &m), GPU_ERR_MODULE_LOAD, CUABI_ERROR_NO_BINARY_FOR_GPU,
            "a fatbin without PTX has only machine code; the fake runs kernels from PTX: "
            "embed it with nvcc -gencode arch=compute_XX,code=compute_XX");
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

/* Appends src's entries to the fatbin dst, the last one's arch set to `arch`; dst's new size. */
static size_t fatbin_append(unsigned char *dst, size_t dst_size, const unsigned char *src, size_t src_size,
                            uint32_t arch)
{
    uint64_t total;

    memcpy(dst + dst_size, src + 16, src_size - 16);
    memcpy(dst + dst_size + 28, &arch, 4);
    total = dst_size + src_size - 32;
    memcpy(dst + 8, &total, 8);
    return dst_size + src_size - 16;
}

/* A fatbin of three PTX entries, each with one kernel named for its arch: compute_10, `arch`, compute_990. */
static size_t fatbin_of_three(unsigned char *fb, uint32_t arch)
{
    unsigned char one[256];
    size_t n = ft_make_fatbin(fb, 1, 0x11, ".version 8.0\n.target sm_50\n.entry low() { ret; }\n");
    uint32_t low = 10;

    memcpy(fb + 16 + 28, &low, 4);
    n = fatbin_append(fb, n, one, ft_make_fatbin(one, 1, 0x11, ".version 8.0\n.target sm_50\n.entry best() { ret; }\n"),
                      arch);
    return fatbin_append(fb, n, one, ft_make_fatbin(one, 1, 0x11, ".version 8.0\n.target sm_50\n.entry high() { ret; }\n"),
                         990);
}

/* The load's error log, for a failure's reason. */
static cuabi_result load_logged(const void *image, char *log, size_t log_size)
{
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)log_size};
    cuabi_module mod = NULL;
    cuabi_result rc = cuModuleLoadDataEx(&mod, image, 2, options, values);

    if (rc == CUABI_SUCCESS)
        assert_int_equal(cuModuleUnload(mod), CUABI_SUCCESS);
    return rc;
}

/* nvcc's __fatBinC_Wrapper_t and fatbins of several entries, through the driver's own entry points. */
static void fatbin_wrappers(void **state)
{
    static unsigned char fb[1024];
    struct {
        uint32_t magic, version;
        const void *data, *filename;
    } wrapper = {0x466243b1u, 1, fb, NULL};
    cuabi_context ctx = NULL;
    cuabi_module mod = NULL;
    cuabi_function f = NULL;
    cuabi_library lib = NULL;
    cuabi_kernel k = NULL;
    cuabi_link_state link = NULL;
    void *image = NULL;
    size_t image_size = 0;
    char log[1024] = "";
    int major = 0, minor = 0;
    uint64_t big;

    (void)state;
    assert_int_equal(cuCtxGetCurrent(&ctx), CUABI_SUCCESS);
    if (!ctx) {
        assert_int_equal(cuDevicePrimaryCtxRetain(&ctx, 0), CUABI_SUCCESS);
        assert_int_equal(cuCtxSetCurrent(ctx), CUABI_SUCCESS);
    }
    assert_int_equal(cuDeviceComputeCapability(&major, &minor, 0), CUABI_SUCCESS);

    /* The PTX of the highest compute_XX at or below the device's, in every entry point. */
    fatbin_of_three(fb, (uint32_t)(major * 10 + minor));
    assert_int_equal(cuModuleLoadData(&mod, &wrapper), CUABI_SUCCESS);
    assert_int_equal(cuModuleGetFunction(&f, mod, "best"), CUABI_SUCCESS);
    assert_int_equal(cuModuleGetFunction(&f, mod, "low"), CUABI_ERROR_NOT_FOUND);
    assert_int_equal(cuModuleGetFunction(&f, mod, "high"), CUABI_ERROR_NOT_FOUND);
    assert_int_equal(cuModuleUnload(mod), CUABI_SUCCESS);
    assert_int_equal(cuModuleLoadFatBinary(&mod, &wrapper), CUABI_SUCCESS);
    assert_int_equal(cuModuleGetFunction(&f, mod, "best"), CUABI_SUCCESS);
    assert_int_equal(cuModuleUnload(mod), CUABI_SUCCESS);
    assert_int_equal(cuModuleLoadData(&mod, fb), CUABI_SUCCESS);
    assert_int_equal(cuModuleGetFunction(&f, mod, "best"), CUABI_SUCCESS);
    assert_int_equal(cuModuleUnload(mod), CUABI_SUCCESS);
    assert_int_equal(cuLibraryLoadData(&lib, &wrapper, NULL, NULL, 0, NULL, NULL, 0), CUABI_SUCCESS);
    assert_int_equal(cuLibraryGetKernel(&k, lib, "best"), CUABI_SUCCESS);
    assert_int_equal(cuLibraryUnload(lib), CUABI_SUCCESS);
    assert_int_equal(cuLinkCreate_v2(0, NULL, NULL, &link), CUABI_SUCCESS);
    /* A link input is bytes of a size: the fatbin, not the wrapper's pointer to it. */
    assert_int_equal(cuLinkAddData_v2(link, CUABI_JIT_INPUT_FATBINARY, &wrapper, sizeof(wrapper), "w", 0, NULL, NULL),
                     CUABI_ERROR_INVALID_IMAGE);
    assert_int_equal(cuLinkAddData_v2(link, CUABI_JIT_INPUT_FATBINARY, fb, sizeof(fb), "fb", 0, NULL, NULL),
                     CUABI_SUCCESS);
    assert_int_equal(cuLinkComplete(link, &image, &image_size), CUABI_SUCCESS);
    assert_int_equal(cuLinkDestroy(link), CUABI_SUCCESS);

    /* PTX only above the device's: none it can run. */
    fatbin_of_three(fb, 999);
    memset(fb + 16 + 28, 0xff, 4);
    assert_int_equal(load_logged(&wrapper, log, sizeof(log)), CUABI_ERROR_NO_BINARY_FOR_GPU);
    assert_non_null(strstr(log, "above the device's compute capability"));
    assert_non_null(strstr(log, "-gencode arch=compute_XX,code=compute_XX"));

    /* Machine code only. */
    ft_make_fatbin(fb, 2, 0x11, "\x7f" "ELF");
    assert_int_equal(load_logged(&wrapper, log, sizeof(log)), CUABI_ERROR_NO_BINARY_FOR_GPU);
    assert_non_null(strstr(log, "only machine code"));
    assert_int_equal(cuLibraryLoadData(&lib, &wrapper, NULL, NULL, 0, NULL, NULL, 0), CUABI_ERROR_NO_BINARY_FOR_GPU);

    /* An entry whose payload runs past the fatbin's declared end, read through the wrapper. */
    ft_make_fatbin(fb, 1, 0x11, ".version 8.0\n.target sm_50\n.entry k() { ret; }\n");
    big = 1u << 20;
    memcpy(fb + 24, &big, 8);
    assert_int_equal(load_logged(&wrapper, log, sizeof(log)), CUABI_ERROR_INVALID_IMAGE);
    assert_non_null(strstr(log, "point past the fatbin's end"));

    /* A compressed entry whose sizes exceed its payload. */
    ft_make_fatbin(fb, 1, 0x8011, ".version 8.0\n.target sm_50\n.entry k() { ret; }\n");
    big = 4096;
    memcpy(fb + 16 + 16, &big, 4);
    assert_int_equal(load_logged(fb, log, sizeof(log)), CUABI_ERROR_INVALID_IMAGE);
    assert_non_null(strstr(log, "out of range"));
    /* ... and one whose bytes are no zstd frame. */
    big = 8;
    memcpy(fb + 16 + 16, &big, 4);
    memcpy(fb + 16 + 56, &big, 8);
    assert_int_equal(load_logged(fb, log, sizeof(log)), CUABI_ERROR_INVALID_IMAGE);
    assert_non_null(strstr(log, "does not decompress"));

    /* Compression in a format that is not published: refused, naming the flags that avoid it. */
    ft_make_fatbin(fb, 1, 0x2011, ".version 8.0\n.target sm_50\n.entry k() { ret; }\n");
    assert_int_equal(load_logged(fb, log, sizeof(log)), CUABI_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(log, "--compress-mode=default or --no-compress"));

    /* A wrapper whose data is no fatbin; one with a bad magic is no wrapper, read as text and refused. */
    wrapper.data = "not a fatbin";
    assert_int_equal(load_logged(&wrapper, log, sizeof(log)), CUABI_ERROR_INVALID_IMAGE);
    assert_non_null(strstr(log, "whose data is not a fatbin"));
    wrapper.data = NULL;
    assert_int_equal(load_logged(&wrapper, log, sizeof(log)), CUABI_ERROR_INVALID_IMAGE);
    wrapper.data = fb;
    wrapper.magic = 0x466243b2u;
    assert_int_not_equal(load_logged(&wrapper, log, sizeof(log)), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

/* ---- ptx_kernels.cu, compiled by NVRTC or nvcc ---- */

struct pod {
    unsigned long long base;
    unsigned add;
    float scale[3];
};

static uint64_t table_addr;

/* add_table: data[i] += table[i % 4] (the __constant__, read as the device would), counter is 0. */
static int add_table(const gpu_fake_launch *l)
{
    uint64_t data;
    uint32_t n, *d;
    const uint32_t *table = gpu_fake_memory(l, table_addr, 16);

    if (!table || gpu_fake_param(l, 0, &data, 8) || gpu_fake_param(l, 1, &n, 4) ||
        !(d = gpu_fake_memory(l, data, n * 4u)))
        return 0;
    for (uint32_t i = 0; i < n; i++)
        d[i] += table[i % 4];
    return 0;
}

static int with_struct(const gpu_fake_launch *l)
{
    struct pod p;
    uint64_t out;
    uint32_t *o;

    if (gpu_fake_param(l, 0, &p, sizeof(p)) || gpu_fake_param(l, 1, &out, 8) || !(o = gpu_fake_memory(l, out, 4)))
        return 0;
    o[0] = (uint32_t)p.base + p.add + (uint32_t)p.scale[1];
    return 0;
}

static int scale_float(const gpu_fake_launch *l)
{
    uint64_t data;
    float k, *d;
    int32_t n;

    if (gpu_fake_param(l, 0, &data, 8) || gpu_fake_param(l, 1, &k, 4) || gpu_fake_param(l, 2, &n, 4) ||
        !(d = gpu_fake_memory(l, data, (size_t)n * 4)))
        return 0;
    for (int32_t i = 0; i < n; i++)
        d[i] *= k;
    return 0;
}

/* The checks every compile of ptx_kernels.cu passes; `scale` is scale<float>'s lowered name. */
static void check_kernels(const void *image, size_t size, const char *scale)
{
    gpu_module *m = NULL;
    gpu_buffer *b = NULL, *out = NULL;
    uint32_t table[4], words[8] = {0, 1, 2, 3, 4, 5, 6, 7}, got[8];
    float floats[4] = {1, 2, 3, 4}, fgot[4];
    struct pod p = {1000, 20, {0, 3.0f, 0}};
    uint64_t pb, po;
    uint32_t n = 8;
    int32_t fn = 4;
    float k = 2.5f;
    gpu_launch_config one = gpu_launch_config_1d(1, 32);
    ft_mark mark;

    ft_mark_take(&mark);
    FT_OK(gpu_module_load_data(NULL, image, size, &m));
    assert_global(m, "table", 16);
    assert_global(m, "counter", 4);
    assert_global(m, "weights", 64);
    FT_OK(gpu_module_copy_from_global(m, "table", table, sizeof(table)));
    assert_true(table[0] == 11 && table[1] == 22 && table[2] == 33 && table[3] == 44);
    FT_OK(gpu_module_get_global(m, "table", &table_addr, NULL));
    assert_layout(m, "add_table", 2, (const size_t[]){8, 4}, 12);
    assert_layout(m, "with_struct", 2, (const size_t[]){24, 8}, 32);
    assert_layout(m, "clustered", 4, (const size_t[]){1, 2, 8, 8}, 24);
    assert_layout(m, scale, 3, (const size_t[]){8, 4, 4}, 16);

    assert_int_equal(gpu_fake_kernel_register("add_table", add_table, NULL), 0);
    assert_int_equal(gpu_fake_kernel_register("with_struct", with_struct, NULL), 0);
    assert_int_equal(gpu_fake_kernel_register(scale, scale_float, NULL), 0);
    FT_OK(gpu_buffer_create(NULL, sizeof(words), &b));
    FT_OK(gpu_buffer_create(NULL, 4, &out));
    FT_OK(gpu_buffer_copy_from_host(b, words, sizeof(words)));
    pb = gpu_buffer_get_device_ptr(b);
    po = gpu_buffer_get_device_ptr(out);
    FT_OK(gpu_stream_launch_kernel(stream, m, "add_table", &one, (void *[]){&pb, &n}));
    FT_OK(gpu_stream_launch_kernel(stream, m, "with_struct", &one, (void *[]){&p, &po}));
    FT_OK(gpu_stream_synchronize(stream));
    FT_OK(gpu_buffer_copy_to_host(b, got, sizeof(got)));
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(got[i], i + table[i % 4]);
    assert_int_equal(ft_peek(out, 0), 1023);
    FT_OK(gpu_buffer_copy_from_host(b, floats, sizeof(floats)));
    FT_OK(gpu_stream_launch_kernel(stream, m, scale, &one, (void *[]){&pb, &k, &fn}));
    FT_OK(gpu_stream_synchronize(stream));
    FT_OK(gpu_buffer_copy_to_host(b, fgot, sizeof(fgot)));
    assert_true(fgot[0] == 2.5f && fgot[3] == 10.0f);
    gpu_buffer_destroy(b);
    gpu_buffer_destroy(out);
    gpu_module_destroy(m);
    FT_MARK_CHECK(&mark);
}

static const char *arg_path;

static char *read_file(const char *dir, const char *name, size_t *size)
{
    char path[4096];
    FILE *f;
    char *data;
    long n;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    data = malloc((size_t)n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    data[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void nvrtc_ptx(void **state)
{
    size_t size;
    char *source = read_file(arg_path, "ptx_kernels.cu", &size);
    const gpu_compile_options ptx = {GPU_COMPILE_PTX, 90, NULL, 0, true};
    gpu_program *p = NULL;
    const void *out = NULL;
    const char *lowered = NULL;

    (void)state;
    FT_OK(gpu_program_create(source, "ptx_kernels.cu", NULL, 0, &p));
    FT_OK(gpu_program_add_name_expression(p, "scale<float>"));
    FT_OK(gpu_program_compile(p, NULL, &ptx));
    FT_OK(gpu_program_get_output(p, &out, &size));
    FT_OK(gpu_program_get_lowered_name(p, "scale<float>", &lowered));
    assert_non_null(strstr(out, ".entry add_table("));
    check_kernels(out, size, lowered);
    gpu_program_destroy(p);
    free(source);
}

static void nvcc_ptx(void **state)
{
    static const char *const files[] = {"ptx_kernels.ptx", "ptx_kernels_debug.ptx", "ptx_kernels.fatbin",
                                        "ptx_kernels_compressed.fatbin", "ptx_kernels_multi.fatbin"};

    (void)state;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        size_t size;
        char *image = read_file(arg_path, files[i], &size);

        print_message("%s\n", files[i]);
        check_kernels(image, size, "_Z5scaleIfEvPT_S0_i");
        free(image);
    }
}

/*
 * A program that calls the driver itself learns why too: from the error log
 * when it passes one, else from cuGetErrorString after the failed load.
 */
static void driver_says(const void *image, const char *needle)
{
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    char log[1024] = "";
    void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
    cuabi_context ctx = NULL;
    cuabi_module mod = NULL;
    const char *text = NULL;

    assert_int_equal(cuCtxGetCurrent(&ctx), CUABI_SUCCESS);
    if (!ctx) {
        assert_int_equal(cuDevicePrimaryCtxRetain(&ctx, 0), CUABI_SUCCESS);
        assert_int_equal(cuCtxSetCurrent(ctx), CUABI_SUCCESS);
    }
    assert_int_equal(cuModuleLoadDataEx(&mod, image, 0, NULL, NULL), CUABI_ERROR_NOT_SUPPORTED);
    assert_int_equal(cuGetErrorString(CUABI_ERROR_NOT_SUPPORTED, &text), CUABI_SUCCESS);
    assert_non_null(strstr(text, needle));
    assert_int_equal(cuModuleLoadDataEx(&mod, image, 2, options, values), CUABI_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(log, needle));
    assert_int_equal(cuGetErrorString(CUABI_ERROR_NOT_SUPPORTED, &text), CUABI_SUCCESS);
    assert_string_equal(text, "operation not supported");
}

static void nvcc_machine_code(void **state)
{
    static const struct {
        const char *file;
        const char *needle;
    } cases[] = {
        {"ptx_kernels.cubin", "a cubin has no PTX, only machine code; the fake runs kernels from PTX: embed it with "
                              "nvcc -gencode arch=compute_XX,code=compute_XX"},
        {"ptx_kernels_speed.fatbin", "nvcc --compress-mode=speed); build it with nvcc --compress-mode=default"},
    };
    gpu_module *m = NULL;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t size;
        char *image = read_file(arg_path, cases[i].file, &size);

        FT_FAIL(gpu_module_load_data(NULL, image, size, &m), GPU_ERR_NOT_SUPPORTED, CUABI_ERROR_NOT_SUPPORTED,
                cases[i].needle);
        driver_says(image, cases[i].needle);
        free(image);
    }
    /* A fatbin of machine code only: no binary for the device, and the flag that embeds PTX. */
    {
        size_t size;
        char *image = read_file(arg_path, "ptx_kernels_sass.fatbin", &size);
        char log[1024] = "";

        assert_int_equal(load_logged(image, log, sizeof(log)), CUABI_ERROR_NO_BINARY_FOR_GPU);
        assert_non_null(strstr(log, "a fatbin without PTX has only machine code; the fake runs kernels from PTX: "
                                    "embed it with nvcc -gencode arch=compute_XX,code=compute_XX"));
        free(image);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest reader[] = {
        cmocka_unit_test(every_construct_read),
        cmocka_unit_test(malformed),
        cmocka_unit_test(entries_from_decoder),
        cmocka_unit_test(globals_from_decoder),
        cmocka_unit_test(fatbins),
        cmocka_unit_test(fatbin_wrappers),
    };
    const struct CMUnitTest nvrtc[] = {
        cmocka_unit_test(nvrtc_ptx),
    };
    const struct CMUnitTest nvcc[] = {
        cmocka_unit_test(nvcc_ptx),
        cmocka_unit_test(nvcc_machine_code),
    };

    arg_path = argc > 2 ? argv[2] : NULL;
    if (argc > 2 && strcmp(argv[1], "nvrtc") == 0) {
        if (gpu_compiler_load() != GPU_OK) {
            printf("skipped: no NVRTC: %s\n", gpu_last_error_get_message());
            return 77;
        }
        return cmocka_run_group_tests_name("ptx-nvrtc", nvrtc, setup, teardown);
    }
    if (argc > 2 && strcmp(argv[1], "nvcc") == 0)
        return cmocka_run_group_tests_name("ptx-nvcc", nvcc, setup, teardown);
    return cmocka_run_group_tests_name("ptx", reader, setup, teardown);
}
