/* SPDX-License-Identifier: MIT */
/*
 * The fake's JIT linker and context-independent loading, as a CUDA program
 * calls them (no gpushim). One case per process (argv[1]):
 *
 *   link          two PTX units, one calling a function only the other
 *                 defines, linked (from memory, from a file, from a fatbin),
 *                 loaded and run; the info log and the wall time written
 *                 where the options said
 *   link-errors   an unresolved function named with its unit in the error
 *                 log (and by cuGetErrorString without a log); inputs the fake
 *                 cannot read (cubin, a fatbin without PTX or compressed, a
 *                 host object, NVVM) each with its reason; bad PTX; bad handles
 *   link-sweep    each driver call of a link, load and run failed in turn:
 *                 nothing is left alive
 *   library       a library loaded without a context: its kernels, their
 *                 names, attributes and parameters; in each context its
 *                 module, globals and functions; a kernel launched as a
 *                 function; unloaded; what it refuses
 *   library-sweep each driver call of a library's load, use and unload
 *                 failed in turn: nothing is left alive
 *   attributes    cuFuncGetAttribute of entries of PTX: the static shared,
 *                 local and constant memory, the bound on a block's threads,
 *                 the versions, as the PTX says; the occupancy they allow
 *   link-file  cuLinkAddFile of a symbolic link: refused, and told why in
 *              the error log and by cuGetErrorString
 *   link-common   the same .common global in two inputs of different sizes:
 *                 one variable of the largest size, which kernels of both
 *                 write and read; a .weak global and a .weak function
 *                 give way to .visible ones of their name; refused: what
 *                 the PTX ISA refuses of .common (two initialisers, an
 *                 initialised one not the largest, one on a .const or a
 *                 function), two .weak ones of different sizes (as
 *                 nvlink), two definitions of a name in one input
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_test.h"

enum { N = 200, LOG = 2048 };

/* A kernel that calls twice(), which it only declares. */
static const char main_ptx[] = ".version 8.0\n"
                               ".target sm_75\n"
                               ".address_size 64\n"
                               ".extern .func (.param .b32 r) twice(.param .b32 x);\n"
                               ".visible .entry apply(.param .u64 p, .param .u32 n)\n"
                               "{\n"
                               "  .reg .pred %p<2>;\n"
                               "  .reg .b32 %r<8>;\n"
                               "  .reg .b64 %rd<4>;\n"
                               "  ld.param.u64 %rd1, [p];\n"
                               "  ld.param.u32 %r1, [n];\n"
                               "  mov.u32 %r2, %tid.x;\n"
                               "  setp.ge.u32 %p1, %r2, %r1;\n"
                               "  @%p1 bra DONE;\n"
                               "  cvta.to.global.u64 %rd1, %rd1;\n"
                               "  mul.wide.u32 %rd2, %r2, 4;\n"
                               "  add.s64 %rd3, %rd1, %rd2;\n"
                               "  ld.global.u32 %r3, [%rd3];\n"
                               "  {\n"
                               "  .param .b32 a;\n"
                               "  .param .b32 r;\n"
                               "  st.param.b32 [a], %r3;\n"
                               "  call.uni (r), twice, (a);\n"
                               "  ld.param.b32 %r4, [r];\n"
                               "  }\n"
                               "  st.global.u32 [%rd3], %r4;\n"
                               "DONE:\n"
                               "  ret;\n"
                               "}\n";

/* twice() itself, plus one. */
static const char lib_ptx[] = ".version 8.0\n"
                              ".target sm_75\n"
                              ".address_size 64\n"
                              ".visible .func (.param .b32 r) twice(.param .b32 x)\n"
                              "{\n"
                              "  .reg .b32 %r<4>;\n"
                              "  ld.param.b32 %r1, [x];\n"
                              "  add.s32 %r2, %r1, %r1;\n"
                              "  add.s32 %r3, %r2, 1;\n"
                              "  st.param.b32 [r], %r3;\n"
                              "  ret;\n"
                              "}\n";

/* An entry with static shared, local and constant memory and a bound on its block, and one with none. */
static const char attrs_ptx[] = ".version 8.3\n"
                                ".target sm_75\n"
                                ".address_size 64\n"
                                ".const .align 4 .b8 table[64];\n"
                                ".shared .align 4 .b8 tile[1024];\n"
                                ".shared .align 4 .b8 unused[512];\n"
                                ".visible .entry heavy(.param .u64 p)\n"
                                ".maxntid 128, 1, 1\n"
                                "{\n"
                                "  .local .align 4 .b8 buf[40];\n"
                                "  .reg .b32 %r<4>;\n"
                                "  mov.u32 %r1, %tid.x;\n"
                                "  st.shared.u32 [tile], %r1;\n"
                                "  st.local.u32 [buf], %r1;\n"
                                "  ld.const.u32 %r2, [table];\n"
                                "  ret;\n"
                                "}\n"
                                ".visible .entry light(.param .u64 p)\n"
                                "{\n"
                                "  ret;\n"
                                "}\n";

static char lib_path[64];

/* lib_ptx in a file of this user's, mode 0600. */
static void write_lib_file(void)
{
    FILE *f;

    snprintf(lib_path, sizeof(lib_path), "/tmp/gpushim-link-%d.ptx", (int)getpid());
    f = fopen(lib_path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(lib_ptx, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(lib_path, 0600), 0);
}

/* Runs `apply` (a function, or a CUkernel cast to one) over N values and checks each became 2x + 1. */
static cuabi_result run_apply_function(cuabi_function f)
{
    static uint32_t host[N];
    cuabi_deviceptr d = 0;
    unsigned n = N;
    void *args[] = {&d, &n};
    cuabi_result rc = cuMemAlloc_v2(&d, sizeof(host));

    for (unsigned i = 0; i < N; i++)
        host[i] = i * 7;
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpyHtoD_v2(d, host, sizeof(host));
    if (rc == CUABI_SUCCESS)
        rc = cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuMemcpyDtoH_v2(host, d, sizeof(host));
    for (unsigned i = 0; rc == CUABI_SUCCESS && i < N; i++)
        assert_int_equal(host[i], i * 14 + 1);
    if (d && cuMemFree_v2(d) != CUABI_SUCCESS)
        cuMemFree_v2(d);
    return rc;
}

static cuabi_result run_apply(cuabi_module m)
{
    cuabi_function f = NULL;
    cuabi_result rc = cuModuleGetFunction(&f, m, "apply");

    return rc == CUABI_SUCCESS ? run_apply_function(f) : rc;
}

static void link_units(void **state)
{
    char info[LOG], error[LOG] = "";
    cuabi_jit_option options[] = {CUABI_JIT_INFO_LOG_BUFFER, CUABI_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                                  CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                  CUABI_JIT_WALL_TIME};
    void *values[] = {info, (void *)(uintptr_t)LOG, error, (void *)(uintptr_t)LOG, (void *)(uintptr_t)-1};
    static unsigned char fb[sizeof(lib_ptx) + 128];
    cuabi_link_state l = NULL;
    cuabi_module m = NULL;
    void *image = NULL;
    size_t size = 0, fb_size;
    float wall = -1;

    (void)state;
    ft_retain_current(0);
    write_lib_file();
    memset(info, 'x', sizeof(info));
    CU_OK(cuLinkCreate_v2(5, options, values, &l));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LINKS), 1);
    CU_OK(cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)main_ptx, sizeof(main_ptx), "main.ptx", 0, NULL, NULL));
    CU_OK(cuLinkAddFile_v2(l, CUABI_JIT_INPUT_PTX, lib_path, 0, NULL, NULL));
    CU_OK(cuLinkComplete(l, &image, &size));
    assert_non_null(image);
    assert_true(size > sizeof(main_ptx));
    /* The logs: what was written, and its length with the NUL in the size option's slot. */
    assert_non_null(strstr(info, "main.ptx"));
    assert_non_null(strstr(info, lib_path));
    assert_int_equal((size_t)(uintptr_t)values[1], strlen(info) + 1);
    assert_string_equal(error, "");
    memcpy(&wall, &values[4], sizeof(wall));
    assert_true(isfinite(wall) && wall >= 0 && wall < 60000);
    /* The image outlives nothing: loaded before the state is destroyed. */
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuLinkDestroy(l));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LINKS), 0);
    CU_OK(run_apply(m));
    CU_OK(cuModuleUnload(m));

    /* The device function from a fatbin that carries its PTX. */
    fb_size = ft_make_fatbin(fb, 1, 0x11, lib_ptx);
    CU_OK(cuLinkCreate_v2(0, NULL, NULL, &l));
    CU_OK(cuLinkAddData_v2(l, CUABI_JIT_INPUT_FATBINARY, fb, fb_size, "lib.fatbin", 0, NULL, NULL));
    CU_OK(cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)main_ptx, strlen(main_ptx), NULL, 0, NULL, NULL));
    CU_OK(cuLinkComplete(l, &image, &size));
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuLinkDestroy(l));
    CU_OK(run_apply(m));
    CU_OK(cuModuleUnload(m));
    unlink(lib_path);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
}

/* Adds `data` of `type` to a new link and expects `want`, the error log holding `needle`. */
static void add_fails(cuabi_jit_input_type type, const void *data, size_t size, cuabi_result want, const char *needle)
{
    char error[LOG] = "";
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error, (void *)(uintptr_t)LOG};
    cuabi_link_state l = NULL;

    CU_OK(cuLinkCreate_v2(2, options, values, &l));
    assert_int_equal(cuLinkAddData_v2(l, type, (void *)data, size, "input.bin", 0, NULL, NULL), want);
    if (!strstr(error, needle))
        fail_msg("the error log \"%s\" does not say \"%s\"", error, needle);
    assert_non_null(strstr(error, "input.bin"));
    CU_OK(cuLinkDestroy(l));
}

static void link_errors(void **state)
{
    static const char bad_ptx[] = ".version 8.0\n.entry k(.param .u64 p { ret; }\n";
    static const unsigned char cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    static unsigned char fb[sizeof(lib_ptx) + 128];
    char error[LOG] = "";
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error, (void *)(uintptr_t)LOG};
    cuabi_link_state l = NULL;
    void *image = NULL;
    size_t size = 0;
    const char *text = NULL;

    (void)state;
    ft_retain_current(0);
    /* A function no unit defines: named, with the unit that calls it. */
    CU_OK(cuLinkCreate_v2(2, options, values, &l));
    CU_OK(cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)main_ptx, sizeof(main_ptx), "main.ptx", 0, NULL, NULL));
    assert_int_equal(cuLinkComplete(l, &image, &size), CUABI_ERROR_INVALID_PTX);
    assert_non_null(strstr(error, "Undefined reference to 'twice' in 'main.ptx'"));
    assert_int_equal((size_t)(uintptr_t)values[1], strlen(error) + 1);
    assert_null(image);
    CU_OK(cuLinkDestroy(l));
    /* Without an error log, cuGetErrorString tells it. */
    CU_OK(cuLinkCreate_v2(0, NULL, NULL, &l));
    CU_OK(cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)main_ptx, sizeof(main_ptx), "main.ptx", 0, NULL, NULL));
    assert_int_equal(cuLinkComplete(l, &image, &size), CUABI_ERROR_INVALID_PTX);
    CU_OK(cuGetErrorString(CUABI_ERROR_INVALID_PTX, &text));
    assert_non_null(strstr(text, "Undefined reference to 'twice'"));
    /* Nothing to link; the state stays usable after a failure. */
    CU_OK(cuLinkDestroy(l));
    CU_OK(cuLinkCreate_v2(0, NULL, NULL, &l));
    assert_int_equal(cuLinkComplete(l, &image, &size), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuLinkDestroy(l));

    /* Inputs the fake cannot read, each with its reason and the way out. */
    add_fails(CUABI_JIT_INPUT_PTX, bad_ptx, sizeof(bad_ptx), CUABI_ERROR_INVALID_PTX, "line 2: expected , or )");
    add_fails(CUABI_JIT_INPUT_CUBIN, cubin, sizeof(cubin), CUABI_ERROR_NOT_SUPPORTED, "a cubin has no PTX");
    add_fails(CUABI_JIT_INPUT_FATBINARY, fb, ft_make_fatbin(fb, 1, 0x8011, lib_ptx), CUABI_ERROR_INVALID_IMAGE,
              "a compressed entry's sizes are out of range");
    add_fails(CUABI_JIT_INPUT_FATBINARY, fb, ft_make_fatbin(fb, 2, 0x11, "\x7f" "ELF"), CUABI_ERROR_NO_BINARY_FOR_GPU,
              "a fatbin without PTX has only machine code");
    add_fails(CUABI_JIT_INPUT_FATBINARY, fb, 40, CUABI_ERROR_INVALID_IMAGE, "whose header says");
    add_fails(CUABI_JIT_INPUT_OBJECT, cubin, sizeof(cubin), CUABI_ERROR_NOT_SUPPORTED, "host object or library");
    add_fails(CUABI_JIT_INPUT_LIBRARY, cubin, sizeof(cubin), CUABI_ERROR_NOT_SUPPORTED, "host object or library");
    add_fails(CUABI_JIT_INPUT_NVVM, cubin, sizeof(cubin), CUABI_ERROR_NOT_SUPPORTED, "NVVM IR needs libNVVM");
    add_fails(9, main_ptx, sizeof(main_ptx), CUABI_ERROR_INVALID_VALUE, "no CUjitInputType 9");

    /* Arguments and handles. */
    assert_int_equal(cuLinkCreate_v2(0, NULL, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuLinkCreate_v2(1, NULL, NULL, &l), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuLinkCreate_v2(0, NULL, NULL, &l));
    assert_int_equal(cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, NULL, 10, "x", 0, NULL, NULL),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)main_ptx, 0, "x", 0, NULL, NULL),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuLinkAddFile_v2(l, CUABI_JIT_INPUT_PTX, "/nonexistent/gpushim.ptx", 0, NULL, NULL),
                     CUABI_ERROR_FILE_NOT_FOUND);
    assert_int_equal(cuLinkAddFile_v2(l, CUABI_JIT_INPUT_PTX, "/tmp", 0, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuLinkComplete(l, NULL, &size), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuLinkDestroy(l));
    assert_int_equal(cuLinkDestroy(l), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLinkComplete(l, &image, &size), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)main_ptx, sizeof(main_ptx), "x", 0, NULL, NULL),
                     CUABI_ERROR_INVALID_HANDLE);
    /* No context current: the linker targets the current one. */
    CU_OK(cuCtxSetCurrent(NULL));
    assert_int_equal(cuLinkCreate_v2(0, NULL, NULL, &l), CUABI_ERROR_INVALID_CONTEXT);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LINKS), 0);
}

/* A link, load and run as one sequence of driver calls, stopping at the first failure and cleaning up. */
static cuabi_result link_sequence(void)
{
    cuabi_link_state l = NULL;
    cuabi_module m = NULL;
    void *image = NULL;
    size_t size = 0;
    cuabi_result rc = cuLinkCreate_v2(0, NULL, NULL, &l);

    if (rc == CUABI_SUCCESS)
        rc = cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)main_ptx, sizeof(main_ptx), "main.ptx", 0, NULL, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuLinkAddFile_v2(l, CUABI_JIT_INPUT_PTX, lib_path, 0, NULL, NULL);
    if (rc == CUABI_SUCCESS)
        rc = cuLinkComplete(l, &image, &size);
    if (rc == CUABI_SUCCESS)
        rc = cuModuleLoadData(&m, image);
    if (l && cuLinkDestroy(l) != CUABI_SUCCESS)
        cuLinkDestroy(l); /* a failed destroy is tried again, as a careful program would */
    if (rc == CUABI_SUCCESS)
        rc = run_apply(m);
    if (m && cuModuleUnload(m) != CUABI_SUCCESS)
        cuModuleUnload(m);
    return rc;
}

static void link_sweep(void **state)
{
    static const char *const calls[] = {"cuLinkCreate_v2", "cuLinkAddData_v2", "cuLinkAddFile_v2",
                                        "cuLinkComplete",  "cuModuleLoadData", "cuModuleGetFunction",
                                        "cuMemAlloc_v2",   "cuMemcpyHtoD_v2",  "cuLaunchKernel",
                                        "cuMemcpyDtoH_v2"};
    static const char *const destroys[] = {"cuLinkDestroy", "cuMemFree_v2", "cuModuleUnload"};

    (void)state;
    ft_retain_current(0);
    write_lib_file();
    ft_driver_sweep(link_sequence, calls, sizeof(calls) / sizeof(calls[0]), CUABI_ERROR_UNKNOWN);
    ft_driver_sweep(link_sequence, destroys, sizeof(destroys) / sizeof(destroys[0]), CUABI_SUCCESS);
    unlink(lib_path);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LINKS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

static int func_attribute(cuabi_function f, cuabi_function_attribute attrib)
{
    int v = -12345;

    CU_OK(cuFuncGetAttribute(&v, attrib, f));
    return v;
}

static void attributes(void **state)
{
    cuabi_module m = NULL;
    cuabi_function heavy = NULL, light = NULL;
    int a = -1, b = -1;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuModuleLoadData(&m, attrs_ptx));
    CU_OK(cuModuleGetFunction(&heavy, m, "heavy"));
    CU_OK(cuModuleGetFunction(&light, m, "light"));
    /* Only the shared variable it uses counts; its local array, aligned as a frame is. */
    assert_int_equal(func_attribute(heavy, CUABI_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 1024);
    assert_int_equal(func_attribute(heavy, CUABI_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), 48);
    assert_int_equal(func_attribute(heavy, CUABI_FUNC_ATTRIBUTE_CONST_SIZE_BYTES), 64);
    assert_int_equal(func_attribute(heavy, CUABI_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 128);
    assert_int_equal(func_attribute(heavy, CUABI_FUNC_ATTRIBUTE_PTX_VERSION), 75); /* .target sm_75 */
    assert_int_equal(func_attribute(heavy, CUABI_FUNC_ATTRIBUTE_BINARY_VERSION), 90);
    assert_in_range(func_attribute(heavy, CUABI_FUNC_ATTRIBUTE_NUM_REGS), 8, 255);
    assert_int_equal(func_attribute(light, CUABI_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 0);
    assert_int_equal(func_attribute(light, CUABI_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), 0);
    assert_int_equal(func_attribute(light, CUABI_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    assert_int_equal(func_attribute(light, CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 48 * 1024);
    assert_int_equal(cuFuncGetAttribute(&a, 99, light), CUABI_ERROR_INVALID_VALUE);
    /* Occupancy: no block past its bound; its static shared memory counts with the dynamic. */
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&a, heavy, 256, 0));
    assert_int_equal(a, 0);
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&a, heavy, 128, 100 * 1024 / 8));
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&b, light, 128, 100 * 1024 / 8));
    assert_true(a > 0 && a < b);
    CU_OK(cuModuleUnload(m));
    assert_int_equal(cuFuncGetAttribute(&a, CUABI_FUNC_ATTRIBUTE_NUM_REGS, heavy), CUABI_ERROR_INVALID_HANDLE);
}

/* One library: twice(), apply() calling it, a global. */
static char library_text[sizeof(lib_ptx) + sizeof(main_ptx) + 64];

static void library_text_make(void)
{
    snprintf(library_text, sizeof(library_text), "%s%s.global .align 4 .u32 counter = 5;\n", lib_ptx, main_ptx);
}

static void library(void **state)
{
    static const unsigned char cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    char error[LOG] = "";
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error, (void *)(uintptr_t)LOG};
    cuabi_library_option preserve = CUABI_LIBRARY_BINARY_IS_PRESERVED, bad = CUABI_LIBRARY_NUM_OPTIONS;
    void *preserve_value = (void *)(uintptr_t)1;
    cuabi_library lib = NULL, owner = NULL;
    cuabi_kernel k = NULL, all[4] = {NULL};
    cuabi_function f = NULL, f2 = NULL;
    cuabi_module m = NULL;
    cuabi_context ctx = NULL, other = NULL;
    cuabi_deviceptr counter = 0;
    size_t bytes = 0, offset = 0, psize = 0;
    unsigned count = 0;
    uint32_t value = 0;
    const char *name = NULL;
    int v = 0;

    (void)state;
    library_text_make();
    CU_OK(cuInit(0));
    /* No context current: loading and the kernels need none. */
    CU_OK(cuLibraryLoadData(&lib, library_text, NULL, NULL, 0, &preserve, &preserve_value, 1));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LIBRARIES), 1);
    CU_OK(cuLibraryGetKernelCount(&count, lib));
    assert_int_equal(count, 1);
    CU_OK(cuLibraryGetKernel(&k, lib, "apply"));
    assert_int_equal(cuLibraryGetKernel(&k, lib, "twice"), CUABI_ERROR_NOT_FOUND);
    CU_OK(cuLibraryEnumerateKernels(all, 4, lib));
    assert_ptr_equal(all[0], k);
    CU_OK(cuKernelGetName(&name, k));
    assert_string_equal(name, "apply");
    CU_OK(cuKernelGetLibrary(&owner, k));
    assert_ptr_equal(owner, lib);
    CU_OK(cuKernelGetAttribute(&v, CUABI_FUNC_ATTRIBUTE_PTX_VERSION, k, 0));
    assert_int_equal(v, 75);
    CU_OK(cuKernelGetParamInfo(k, 1, &offset, &psize));
    assert_int_equal(offset, 8);
    assert_int_equal(psize, 4);
    assert_int_equal(cuKernelGetParamInfo(k, 2, &offset, &psize), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuKernelGetFunction(&f, k), CUABI_ERROR_INVALID_CONTEXT);

    /* In a context: its module (the library's, not the client's), its global, its function. */
    ctx = NULL;
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CU_OK(cuCtxSetCurrent(ctx));
    CU_OK(cuLibraryGetGlobal(&counter, &bytes, lib, "counter"));
    assert_int_equal(bytes, 4);
    CU_OK(cuMemcpyDtoH_v2(&value, counter, sizeof(value)));
    assert_int_equal(value, 5);
    assert_int_equal(cuLibraryGetManaged(&counter, &bytes, lib, "counter"), CUABI_ERROR_NOT_FOUND);
    CU_OK(cuLibraryGetModule(&m, lib));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
    assert_int_equal(cuModuleUnload(m), CUABI_ERROR_INVALID_HANDLE);
    CU_OK(cuKernelGetFunction(&f, k));
    CU_OK(run_apply_function(f));
    CU_OK(run_apply_function((cuabi_function)(void *)k));
    CU_OK(cuFuncGetAttribute(&v, CUABI_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, (cuabi_function)(void *)k));
    assert_int_equal(v, 1024);
    /* Another context has its own function of the same kernel, gone with that context. */
    CU_OK(cuCtxCreate_v4(&other, NULL, 0, 0));
    CU_OK(cuKernelGetFunction(&f2, k));
    assert_ptr_not_equal(f2, f);
    CU_OK(run_apply_function((cuabi_function)(void *)k));
    CU_OK(cuCtxDestroy_v2(other));
    CU_OK(cuCtxSetCurrent(ctx));
    CU_OK(run_apply_function(f));
    CU_OK(cuLibraryUnload(lib));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LIBRARIES), 0);
    assert_int_equal(cuLibraryGetKernelCount(&count, lib), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuKernelGetName(&name, k), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUABI_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLibraryUnload(lib), CUABI_ERROR_INVALID_HANDLE);

    /* What it refuses: machine code (the reason in the JIT error log), options it does not know, files. */
    assert_int_equal(cuLibraryLoadData(&lib, cubin, options, values, 2, NULL, NULL, 0), CUABI_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(error, "a cubin has no PTX"));
    assert_int_equal(cuLibraryLoadData(&lib, library_text, NULL, NULL, 0, &bad, &preserve_value, 1),
                     CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuLibraryLoadData(NULL, library_text, NULL, NULL, 0, NULL, NULL, 0), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(cuLibraryLoadFromFile(&lib, "/nonexistent/gpushim.ptx", NULL, NULL, 0, NULL, NULL, 0),
                     CUABI_ERROR_FILE_NOT_FOUND);
    write_lib_file();
    CU_OK(cuLibraryLoadFromFile(&lib, lib_path, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryGetKernelCount(&count, lib));
    assert_int_equal(count, 0);
    CU_OK(cuLibraryUnload(lib));
    unlink(lib_path);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LIBRARIES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/* A library's load, use and unload as one sequence, stopping at the first failure and cleaning up. */
static cuabi_result library_sequence(void)
{
    cuabi_library lib = NULL;
    cuabi_kernel k = NULL;
    cuabi_function f = NULL;
    cuabi_deviceptr counter = 0;
    cuabi_result rc = cuLibraryLoadData(&lib, library_text, NULL, NULL, 0, NULL, NULL, 0);

    if (rc == CUABI_SUCCESS)
        rc = cuLibraryGetKernel(&k, lib, "apply");
    if (rc == CUABI_SUCCESS)
        rc = cuKernelGetFunction(&f, k);
    if (rc == CUABI_SUCCESS)
        rc = cuLibraryGetGlobal(&counter, NULL, lib, "counter");
    if (rc == CUABI_SUCCESS)
        rc = run_apply_function((cuabi_function)(void *)k);
    if (lib && cuLibraryUnload(lib) != CUABI_SUCCESS)
        cuLibraryUnload(lib);
    return rc;
}

static void library_sweep(void **state)
{
    static const char *const calls[] = {"cuLibraryLoadData", "cuLibraryGetKernel", "cuKernelGetFunction",
                                        "cuLibraryGetGlobal", "cuLaunchKernel"};
    static const char *const destroys[] = {"cuLibraryUnload"};

    (void)state;
    library_text_make();
    ft_retain_current(0);
    ft_driver_sweep(library_sequence, calls, sizeof(calls) / sizeof(calls[0]), CUABI_ERROR_UNKNOWN);
    ft_driver_sweep(library_sequence, destroys, sizeof(destroys) / sizeof(destroys[0]), CUABI_SUCCESS);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LIBRARIES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

static void link_file(void **state)
{
    char dir[] = "/tmp/gpushim-gaps-XXXXXX", path[64], link[64], error[512] = "";
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error, (void *)(uintptr_t)sizeof(error)};
    cuabi_link_state l = NULL;
    const char *text = NULL;
    FILE *f;

    (void)state;
    ft_retain_current(0);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/k.ptx", dir);
    snprintf(link, sizeof(link), "%s/link.ptx", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(ft_ptx, f) >= 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(symlink(path, link), 0);

    CU_OK(cuLinkCreate_v2(2, options, values, &l));
    assert_int_equal(cuLinkAddFile_v2(l, CUABI_JIT_INPUT_PTX, link, 0, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    if (!strstr(error, "symbolic link") || !strstr(error, link))
        fail_msg("the error log \"%s\" does not say why", error);
    CU_OK(cuGetErrorString(CUABI_ERROR_INVALID_VALUE, &text));
    if (!strstr(text, "symbolic link"))
        fail_msg("cuGetErrorString says \"%s\"", text);
    /* The file itself is read. */
    CU_OK(cuLinkAddFile_v2(l, CUABI_JIT_INPUT_PTX, path, 0, NULL, NULL));
    CU_OK(cuLinkDestroy(l));
    unlink(link);
    unlink(path);
    rmdir(dir);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

/*
 * Two inputs that share `env`, .common in both (8 and 32 bytes), and `mode`
 * and which(), .weak in one and .visible in the other.
 */
static const char common_a_ptx[] = ".version 8.0\n"
                                   ".target sm_75\n"
                                   ".address_size 64\n"
                                   ".common .global .align 4 .b8 env[8];\n"
                                   ".weak .global .align 4 .u32 mode = 1;\n"
                                   ".weak .func (.param .b32 r) which()\n"
                                   "{\n"
                                   "  st.param.b32 [r], 1;\n"
                                   "  ret;\n"
                                   "}\n"
                                   ".visible .entry put(.param .u32 v)\n"
                                   "{\n"
                                   "  .reg .b32 %r<2>;\n"
                                   "  ld.param.u32 %r1, [v];\n"
                                   "  st.global.u32 [env], %r1;\n"
                                   "  ret;\n"
                                   "}\n"
                                   ".visible .entry mode_a(.param .u64 out)\n"
                                   "{\n"
                                   "  .reg .b32 %r<2>;\n"
                                   "  .reg .b64 %rd<2>;\n"
                                   "  ld.param.u64 %rd1, [out];\n"
                                   "  cvta.to.global.u64 %rd1, %rd1;\n"
                                   "  ld.global.u32 %r1, [mode];\n"
                                   "  st.global.u32 [%rd1], %r1;\n"
                                   "  {\n"
                                   "  .param .b32 w;\n"
                                   "  call.uni (w), which, ();\n"
                                   "  ld.param.b32 %r1, [w];\n"
                                   "  }\n"
                                   "  st.global.u32 [%rd1+4], %r1;\n"
                                   "  ret;\n"
                                   "}\n";

static const char common_b_ptx[] = ".version 8.0\n"
                                   ".target sm_75\n"
                                   ".address_size 64\n"
                                   ".common .global .align 8 .b8 env[32];\n"
                                   ".visible .global .align 4 .u32 mode = 2;\n"
                                   ".visible .func (.param .b32 r) which()\n"
                                   "{\n"
                                   "  st.param.b32 [r], 2;\n"
                                   "  ret;\n"
                                   "}\n"
                                   ".visible .entry get(.param .u64 out)\n"
                                   "{\n"
                                   "  .reg .b32 %r<3>;\n"
                                   "  .reg .b64 %rd<2>;\n"
                                   "  ld.param.u64 %rd1, [out];\n"
                                   "  cvta.to.global.u64 %rd1, %rd1;\n"
                                   "  ld.global.u32 %r1, [env];\n"
                                   "  ld.global.u32 %r2, [env+28];\n"
                                   "  st.global.u32 [%rd1], %r1;\n"
                                   "  st.global.u32 [%rd1+4], %r2;\n"
                                   "  ld.global.u32 %r1, [mode];\n"
                                   "  st.global.u32 [%rd1+8], %r1;\n"
                                   "  ret;\n"
                                   "}\n";

/* A link of the given PTX inputs, completed and loaded into *m; the result of the first call that fails. */
static cuabi_result link_texts(const char *const *texts, size_t n, char *error, cuabi_module *m)
{
    cuabi_jit_option options[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error, (void *)(uintptr_t)LOG};
    cuabi_link_state l = NULL;
    void *image = NULL;
    size_t size = 0;
    cuabi_result rc = cuLinkCreate_v2(2, options, values, &l);

    error[0] = '\0';
    for (size_t i = 0; rc == CUABI_SUCCESS && i < n; i++) {
        char name[32];

        snprintf(name, sizeof(name), "in%zu.ptx", i);
        rc = cuLinkAddData_v2(l, CUABI_JIT_INPUT_PTX, (void *)texts[i], strlen(texts[i]) + 1, name, 0, NULL, NULL);
    }
    if (rc == CUABI_SUCCESS)
        rc = cuLinkComplete(l, &image, &size);
    if (rc == CUABI_SUCCESS)
        rc = cuModuleLoadData(m, image);
    if (l)
        CU_OK(cuLinkDestroy(l));
    return rc;
}

/*
 * A link of `a` and `b` (NULL: `a` alone) that must fail, at cuLinkComplete
 * or before (`at_link`: its error log saying `needle`), else when its image
 * is loaded (cuGetErrorString saying it).
 */
static void link_refused(const char *a, const char *b, bool at_link, const char *needle)
{
    const char *const texts[] = {a, b};
    char error[LOG];
    const char *text = NULL;
    cuabi_module m = NULL;
    cuabi_result rc = link_texts(texts, b ? 2 : 1, error, &m);

    if (rc == CUABI_SUCCESS) {
        CU_OK(cuModuleUnload(m));
        fail_msg("linked, where \"%s\" was to be refused", needle);
    }
    assert_int_equal(rc, CUABI_ERROR_INVALID_PTX);
    CU_OK(cuGetErrorString(rc, &text));
    if (at_link && !strstr(error, needle))
        fail_msg("the error log \"%s\" does not say \"%s\"", error, needle);
    if (!strstr(text, needle))
        fail_msg("cuGetErrorString says \"%s\", not \"%s\"", text, needle);
}

/* The one-variable PTX text `decl` between a header and nothing else, in a buffer of its own. */
static const char *unit(char *buf, size_t size, const char *decl)
{
    snprintf(buf, size, ".version 8.0\n.target sm_75\n.address_size 64\n%s\n", decl);
    return buf;
}

static void link_common(void **state)
{
    const char *const texts[] = {common_a_ptx, common_b_ptx};
    char error[LOG], a[256], b[256];
    cuabi_module m = NULL;
    cuabi_deviceptr env = 0, mode = 0, out = 0;
    size_t bytes = 0;
    uint32_t v = 0x1234, far = 0xabc, got[3] = {0};
    void *put_args[] = {&v}, *out_args[] = {&out};
    cuabi_function f = NULL;
    cuabi_result rc;

    (void)state;
    ft_retain_current(0);
    if ((rc = link_texts(texts, 2, error, &m)) != CUABI_SUCCESS) {
        const char *text = NULL;

        cuGetErrorString(rc, &text);
        fail_msg("the link failed (%d): %s %s", (int)rc, error, text ? text : "");
    }
    /* One env, of the largest size; one mode, the .visible one. */
    CU_OK(cuModuleGetGlobal_v2(&env, &bytes, m, "env"));
    assert_int_equal(bytes, 32);
    CU_OK(cuModuleGetGlobal_v2(&mode, &bytes, m, "mode"));
    assert_int_equal(bytes, 4);
    CU_OK(cuMemcpyDtoH_v2(&v, mode, 4));
    assert_int_equal(v, 2);
    v = 0x1234;
    CU_OK(cuMemcpyHtoD_v2(env + 28, &far, 4));
    CU_OK(cuMemAlloc_v2(&out, sizeof(got)));
    /* put (the 8-byte input's) writes env; get (the 32-byte one's) reads it and its last word. */
    CU_OK(cuModuleGetFunction(&f, m, "put"));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, put_args, NULL));
    CU_OK(cuModuleGetFunction(&f, m, "get"));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, out_args, NULL));
    CU_OK(cuMemcpyDtoH_v2(got, out, sizeof(got)));
    assert_int_equal(got[0], 0x1234);
    assert_int_equal(got[1], 0xabc);
    assert_int_equal(got[2], 2);
    /* The .weak input's kernel reads the .visible mode and calls the .visible which(). */
    CU_OK(cuModuleGetFunction(&f, m, "mode_a"));
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, out_args, NULL));
    CU_OK(cuMemcpyDtoH_v2(got, out, 8));
    assert_int_equal(got[0], 2);
    assert_int_equal(got[1], 2);
    CU_OK(cuMemFree_v2(out));
    CU_OK(cuModuleUnload(m));

    /* The one initialised .common the largest: its value is the variable's. */
    if (link_texts((const char *const[]){unit(a, sizeof(a), ".common .global .u32 c[2];"),
                                         unit(b, sizeof(b), ".common .global .u32 c[4] = {5, 6, 7, 8};")},
                   2, error, &m) != CUABI_SUCCESS)
        fail_msg("the link failed: %s", error);
    CU_OK(cuModuleGetGlobal_v2(&env, &bytes, m, "c"));
    assert_int_equal(bytes, 16);
    CU_OK(cuMemcpyDtoH_v2(got, env + 4, 12));
    assert_int_equal(got[0], 6);
    assert_int_equal(got[2], 8);
    CU_OK(cuModuleUnload(m));
    /* Two .weak ones: one variable. */
    if (link_texts((const char *const[]){unit(a, sizeof(a), ".weak .global .u32 w = 3;"),
                                         unit(b, sizeof(b), ".weak .global .u32 w = 4;")},
                   2, error, &m) != CUABI_SUCCESS)
        fail_msg("the link failed: %s", error);
    CU_OK(cuModuleGetGlobal_v2(&env, &bytes, m, "w"));
    CU_OK(cuModuleUnload(m));

    /* What the PTX ISA refuses. */
    link_refused(unit(a, sizeof(a), ".common .global .u32 c = 1;"), unit(b, sizeof(b), ".common .global .u32 c = 2;"),
                 true, "global \"c\" is initialised by 2 .common definitions");
    link_refused(unit(a, sizeof(a), ".common .global .u32 c = 1;"), unit(b, sizeof(b), ".common .global .u32 c[2];"),
                 true, "the initialised one must be the largest");
    link_refused(unit(a, sizeof(a), ".common .global .u32 c;"), unit(b, sizeof(b), ".visible .global .u32 c;"), true,
                 "global \"c\" is .common in 1 input(s), not .common in 1");
    link_refused(unit(a, sizeof(a), ".common .const .u32 k;"), NULL, true, ".common applies only to .global variables");
    link_refused(unit(a, sizeof(a), ".common .func f()\n{\n  ret;\n}"), NULL, true,
                 ".common applies only to .global variables");
    link_refused(unit(a, sizeof(a), ".visible .global .u32 v;"), unit(b, sizeof(b), ".visible .global .u32 v;"), true,
                 "global \"v\" is defined in 2 inputs");
    link_refused(unit(a, sizeof(a), ".weak .global .u32 w;"), unit(b, sizeof(b), ".weak .global .u32 w[2];"), true,
                 "global \"w\" is .weak in inputs with 4 and 8 bytes");
    /* Two definitions of one name in one input, .common or .weak: the image's load refuses them. */
    link_refused(unit(a, sizeof(a), ".common .global .u32 c;\n.common .global .u32 c;"), NULL, false,
                 "global \"c\" is defined twice");
    link_refused(unit(a, sizeof(a), ".weak .global .u32 w;\n.visible .global .u32 w;"), NULL, false,
                 "global \"w\" is defined twice");
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_MODULES), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_LINKS), 0);
    CU_OK(cuDevicePrimaryCtxRelease_v2(0));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"link", cmocka_unit_test(link_units)},
        {"link-errors", cmocka_unit_test(link_errors)},
        {"link-sweep", cmocka_unit_test(link_sweep)},
        {"attributes", cmocka_unit_test(attributes)},
        {"library", cmocka_unit_test(library)},
        {"library-sweep", cmocka_unit_test(library_sweep)},
        {"link-file", cmocka_unit_test(link_file)},
        {"link-common", cmocka_unit_test(link_common)},
    };

    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
