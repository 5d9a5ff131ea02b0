/*
 * gpushim-info: says whether a usable CUDA driver is here and, if not,
 * exactly why; with a device it runs a short self-test.
 *
 * Exit status: 0 a usable driver was found (and the self-test, if run,
 * passed); 1 no usable driver; 2 a usable driver but no device; 3 the
 * self-test failed; 64 a usage error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpushim/gpushim.h>

enum { EXIT_NO_DRIVER = 1, EXIT_NO_DEVICE = 2, EXIT_SELF_TEST = 3, EXIT_USAGE = 64 };

/* A kernel that adds one to each of n 32-bit words: PTX old enough for any driver to JIT. */
static const char add_one_ptx[] =
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry gpushim_add_one(.param .u64 data, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p;\n"
    "    .reg .b32 %r<7>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [data];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p, %r5, %r1;\n"
    "    @%p bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mul.wide.u32 %rd3, %r5, 4;\n"
    "    add.s64 %rd2, %rd2, %rd3;\n"
    "    ld.global.u32 %r6, [%rd2];\n"
    "    add.u32 %r6, %r6, 1;\n"
    "    st.global.u32 [%rd2], %r6;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

enum { SELF_TEST_WORDS = 4096, SELF_TEST_COUNT = 4 };

struct check {
    const char *name;
    gpu_status status;
    char detail[512];
};

struct info {
    bool json;
    const gpu_load_report *report;
    int device_count;
    gpu_device_info *devices;
    struct check checks[SELF_TEST_COUNT];
    int check_count;
};

__attribute__((format(printf, 4, 5))) static void record(struct info *in, const char *name, gpu_status st,
                                                     const char *fmt, ...)
{
    struct check *c = &in->checks[in->check_count++];
    va_list ap;

    c->name = name;
    c->status = st;
    if (st != GPU_OK) {
        snprintf(c->detail, sizeof(c->detail), "%s: %s", gpu_status_name(st), gpu_last_error());
        return;
    }
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
    va_end(ap);
}

/* Fills the buffer with i, runs `launch` (a kernel or a graph), checks i + 1. */
static gpu_status run_and_check(gpu_stream *s, gpu_buffer *buf, uint32_t *host, gpu_status st)
{
    if (st != GPU_OK)
        return st;
    st = gpu_stream_synchronize(s);
    if (st == GPU_OK)
        st = gpu_buffer_copy_to_host(buf, host, SELF_TEST_WORDS * sizeof(uint32_t));
    for (uint32_t i = 0; st == GPU_OK && i < SELF_TEST_WORDS; i++)
        if (host[i] != i + 1)
            return GPU_ERR_DRIVER;
    return st;
}

/* ---- NVRTC (issue 13): the compiler's load report, and the self-test's kernel from CUDA C++. ---- */

/* The self-test's kernel as CUDA C++: the same entry, compiled by NVRTC where there is one. */
static const char add_one_cuda[] =
    "extern \"C\" __global__ void gpushim_add_one(unsigned *data, unsigned n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        data[i] += 1;\n"
    "}\n";

static const char *cache_state_name(gpu_cache_state s)
{
    switch (s) {
    case GPU_CACHE_OFF:
        return "cache off";
    case GPU_CACHE_MISS:
        return "compiled, cached";
    case GPU_CACHE_HIT:
        return "cache hit";
    case GPU_CACHE_REPLACED:
        return "compiled, replaced a bad cache entry";
    }
    return "?";
}

/*
 * The self-test's module: compiled from CUDA C++ by NVRTC (a cubin for the
 * device) when NVRTC loads, else the PTX above. Says which in `how`.
 */
static gpu_status load_self_test_module(gpu_context *ctx, gpu_module **m, char *how, size_t how_size)
{
    gpu_program *p;
    gpu_status st;
    int major, minor;

    if (gpu_compiler_version(&major, &minor) != GPU_OK) {
        snprintf(how, how_size, "JIT-compiled PTX (no NVRTC)");
        return gpu_module_load_data(ctx, add_one_ptx, sizeof(add_one_ptx) - 1, m);
    }
    st = gpu_program_create(add_one_cuda, "gpushim-info.cu", NULL, 0, &p);
    if (st != GPU_OK)
        return st;
    st = gpu_program_compile(p, ctx, NULL);
    if (st == GPU_OK)
        st = gpu_program_load_module(p, ctx, m);
    if (st == GPU_OK)
        snprintf(how, how_size, "CUDA C++ compiled by NVRTC %d.%d to a cubin (%s%s%s)", major, minor,
                 cache_state_name(gpu_program_cache_state(p)), gpu_program_cache_warning(p) ? ": " : "",
                 gpu_program_cache_warning(p) ? gpu_program_cache_warning(p) : "");
    gpu_program_destroy(p);
    return st;
}

/* A load report's attempts, one a line: "tried:" lists of the driver's and NVRTC's. */
static void print_attempts_text(const gpu_load_attempt *a, size_t n)
{
    printf("  tried:\n");
    for (size_t i = 0; i < n; i++)
        printf("    %s%s\n", a[i].error ? a[i].error : a[i].path, a[i].error ? "" : ": opened");
}

static void json_string(const char *s);

/* The attempts as a JSON array's items, each on a line that starts with `indent`. */
static void print_attempts_json(const gpu_load_attempt *a, size_t n, const char *indent)
{
    for (size_t i = 0; i < n; i++) {
        printf("%s\n%s{\"path\": ", i ? "," : "", indent);
        json_string(a[i].path);
        printf(", \"error\": ");
        json_string(a[i].error);
        putchar('}');
    }
}

static void print_compiler_text(const gpu_compiler_report *r)
{
    if (r->stage != GPU_LOAD_READY) {
        printf("nvrtc: not usable (failed at stage: %s)\n", gpu_load_stage_name(r->stage));
        if (r->stage != GPU_LOAD_OPEN)
            printf("  %s\n", r->message);
        print_attempts_text(r->attempts, r->attempt_count);
        return;
    }
    printf("nvrtc: %s\n  NVRTC %d.%d; builtins: %s\n  architectures:", r->file, r->version_major, r->version_minor,
           r->builtins ? r->builtins : r->builtins_note);
    for (size_t i = 0; i < r->arch_count; i++)
        printf(" %d", r->archs[i]);
    printf("%s\n", r->arch_count ? "" : " (not listed by this NVRTC)");
    for (size_t i = 0; i < r->entry_count; i++)
        if (!r->entries[i].found)
            printf("    missing optional %s\n", r->entries[i].symbol);
    printf("  load: open %.3f ms, resolve %.3f ms\n", r->open_ns / 1e6, r->resolve_ns / 1e6);
}

static void print_compiler_json(const gpu_compiler_report *r)
{
    printf("  \"nvrtc\": {\n    \"usable\": %s,\n    \"stage\": ", r->stage == GPU_LOAD_READY ? "true" : "false");
    json_string(gpu_load_stage_name(r->stage));
    printf(",\n    \"message\": ");
    json_string(r->message);
    printf(",\n    \"file\": ");
    json_string(r->file);
    printf(",\n    \"version\": \"%d.%d\",\n    \"builtins\": ", r->version_major, r->version_minor);
    json_string(r->builtins);
    printf(",\n    \"builtins_note\": ");
    json_string(r->builtins_note);
    printf(",\n    \"architectures\": [");
    for (size_t i = 0; i < r->arch_count; i++)
        printf("%s%d", i ? ", " : "", r->archs[i]);
    printf("],\n    \"attempts\": [");
    print_attempts_json(r->attempts, r->attempt_count, "      ");
    printf("\n    ]\n  }\n");
}

static void self_test(struct info *in)
{
    static uint32_t host[SELF_TEST_WORDS];
    gpu_context *ctx = NULL;
    gpu_stream *s = NULL;
    gpu_event *e = NULL;
    gpu_module *m = NULL;
    gpu_function *f = NULL;
    gpu_buffer *buf = NULL;
    gpu_graph *g = NULL;
    gpu_graph_exec *x = NULL;
    gpu_launch_config cfg = gpu_launch_config_1d(SELF_TEST_WORDS / 256, 256);
    uint64_t ptr;
    unsigned n = SELF_TEST_WORDS;
    void *args[2] = {&ptr, &n};
    bool done = false;
    char how[256];
    gpu_status st;

    for (uint32_t i = 0; i < SELF_TEST_WORDS; i++)
        host[i] = i;
    st = gpu_context_create(0, &ctx);
    if (st == GPU_OK)
        st = gpu_stream_create_non_blocking(ctx, &s);
    record(in, "stream", st, "created a non-blocking stream on device 0");
    if (st != GPU_OK)
        goto out;

    st = gpu_event_create(ctx, &e);
    if (st == GPU_OK)
        st = gpu_stream_record_event(s, e);
    if (st == GPU_OK)
        st = gpu_event_synchronize(e);
    if (st == GPU_OK)
        st = gpu_event_is_complete(e, &done);
    if (st == GPU_OK && !done)
        st = GPU_ERR_EVENT;
    record(in, "event", st, "recorded, waited for and found complete");

    st = load_self_test_module(ctx, &m, how, sizeof(how));
    if (st == GPU_OK)
        st = gpu_module_get_function(m, "gpushim_add_one", &f);
    if (st == GPU_OK)
        st = gpu_buffer_create(ctx, sizeof(host), &buf);
    if (st == GPU_OK) {
        ptr = gpu_buffer_device_ptr(buf);
        st = gpu_buffer_copy_from_host(buf, host, sizeof(host));
    }
    if (st == GPU_OK)
        st = run_and_check(s, buf, host, gpu_stream_launch_function(s, f, &cfg, args));
    record(in, "kernel", st, "%s; %u words each incremented once", how, n);
    if (st != GPU_OK)
        goto out;

    for (uint32_t i = 0; i < SELF_TEST_WORDS; i++)
        host[i] = i;
    st = gpu_buffer_copy_from_host(buf, host, sizeof(host));
    if (st == GPU_OK)
        st = gpu_stream_begin_capture(s, GPU_CAPTURE_MODE_THREAD_LOCAL);
    if (st == GPU_OK) {
        gpu_status launched = gpu_stream_launch_function(s, f, &cfg, args);

        st = gpu_stream_end_capture(s, &g);
        if (launched != GPU_OK)
            st = launched;
    }
    if (st == GPU_OK)
        st = gpu_graph_instantiate(g, &x);
    if (st == GPU_OK)
        st = run_and_check(s, buf, host, gpu_stream_launch_graph(s, x));
    record(in, "graph", st, "captured a launch on the stream and replayed it");
out:
    gpu_graph_exec_destroy(x);
    gpu_graph_destroy(g);
    gpu_buffer_destroy(buf);
    gpu_module_destroy(m);
    gpu_event_destroy(e);
    gpu_stream_destroy(s);
    gpu_context_destroy(ctx);
}

static void json_string(const char *s)
{
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c == '\n')
            fputs("\\n", stdout);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void print_json(const struct info *in)
{
    const gpu_load_report *r = in->report;

    printf("{\n  \"usable\": %s,\n  \"stage\": ", r->stage == GPU_LOAD_READY ? "true" : "false");
    json_string(gpu_load_stage_name(r->stage));
    printf(",\n  \"message\": ");
    json_string(r->message);
    printf(",\n  \"file\": ");
    json_string(r->file);
    printf(",\n  \"driver_version\": %d,\n  \"abi_version\": %d,\n  \"init_result\": %d,\n", r->driver_version,
           r->abi_version, r->init_result);
    printf("  \"resolved_with\": \"%s\",\n", r->used_get_proc_address ? "cuGetProcAddress_v2" : "dlsym");
    printf("  \"times_ns\": {\"open\": %llu, \"init\": %llu, \"resolve\": %llu},\n", (unsigned long long)r->open_ns,
           (unsigned long long)r->init_ns, (unsigned long long)r->resolve_ns);
    printf("  \"attempts\": [");
    print_attempts_json(r->attempts, r->attempt_count, "    ");
    printf("\n  ],\n  \"entry_points\": [");
    for (size_t i = 0; i < r->entry_count; i++) {
        const gpu_entry_point *e = &r->entries[i];

        printf("%s\n    {\"name\": \"%s\", \"symbol\": \"%s\", \"required\": %s, \"found\": %s, \"via\": ", i ? "," : "",
               e->name, e->symbol, e->required ? "true" : "false", e->found ? "true" : "false");
        json_string(e->via);
        printf(", \"missing\": ");
        json_string(e->missing);
        printf(", \"exported\": %s, \"matches_export\": %s}", e->exported ? "true" : "false",
               e->matches_export ? "true" : "false");
    }
    printf("\n  ],\n  \"devices\": [");
    for (int i = 0; i < in->device_count; i++) {
        const gpu_device_info *d = &in->devices[i];

        printf("%s\n    {\"index\": %d, \"name\": ", i ? "," : "", i);
        json_string(d->name);
        printf(", \"total_memory\": %zu, \"compute_capability\": \"%d.%d\", \"multiprocessors\": %d, \"pci_bus_id\": ",
               d->total_memory, d->compute_major, d->compute_minor, d->multiprocessors);
        json_string(d->pci_bus_id);
        putchar('}');
    }
    printf("\n  ],\n  \"self_test\": [");
    for (int i = 0; i < in->check_count; i++) {
        printf("%s\n    {\"name\": \"%s\", \"passed\": %s, \"detail\": ", i ? "," : "", in->checks[i].name,
               in->checks[i].status == GPU_OK ? "true" : "false");
        json_string(in->checks[i].detail);
        putchar('}');
    }
    printf("\n  ],\n");
    print_compiler_json(gpu_compiler_get_report());
    printf("}\n");
}

static void print_text(const struct info *in)
{
    const gpu_load_report *r = in->report;

    printf("gpushim %d.%d.%d, CUDA ABI %d.%d\n", GPUSHIM_VERSION_MAJOR, GPUSHIM_VERSION_MINOR, GPUSHIM_VERSION_PATCH,
           r->abi_version / 1000, r->abi_version % 1000 / 10);
    if (r->stage != GPU_LOAD_READY) {
        printf("driver: not usable (failed at stage: %s)\n", gpu_load_stage_name(r->stage));
        if (r->stage != GPU_LOAD_OPEN)
            printf("  %s\n", r->message);
        print_attempts_text(r->attempts, r->attempt_count);
    } else {
        printf("driver: %s\n  CUDA %d.%d (%d)\n", r->file, r->driver_version / 1000, r->driver_version % 1000 / 10,
               r->driver_version);
    }
    if (r->entry_count) {
        printf("  entry points: %zu resolved with %s at %d; %zu required and %zu optional missing\n",
               r->entry_count - r->missing_required - r->missing_optional,
               r->used_get_proc_address ? "cuGetProcAddress_v2" : "dlsym", r->abi_version, r->missing_required,
               r->missing_optional);
        for (size_t i = 0; i < r->entry_count; i++) {
            const gpu_entry_point *e = &r->entries[i];

            if (!e->found)
                printf("    missing %s %s (%s)\n", e->required ? "required" : "optional", e->symbol, e->missing);
            else if (e->exported && !e->matches_export)
                printf("    note: %s resolved to a pointer other than the exported %s\n", e->name, e->symbol);
        }
    }
    printf("  load: open %.3f ms, cuInit %.3f ms, resolve %.3f ms\n", r->open_ns / 1e6, r->init_ns / 1e6,
           r->resolve_ns / 1e6);
    if (r->stage == GPU_LOAD_READY)
        printf("devices: %d\n", in->device_count);
    for (int i = 0; i < in->device_count; i++) {
        const gpu_device_info *d = &in->devices[i];

        printf("  %d: %s, %.1f GiB, compute %d.%d, %d multiprocessors%s%s\n", i, d->name,
               d->total_memory / (1024.0 * 1024.0 * 1024.0), d->compute_major, d->compute_minor, d->multiprocessors,
               d->pci_bus_id[0] ? ", PCI " : "", d->pci_bus_id);
    }
    print_compiler_text(gpu_compiler_get_report());
    if (in->check_count)
        printf("self-test:\n");
    for (int i = 0; i < in->check_count; i++)
        printf("  %-7s %s  %s\n", in->checks[i].name, in->checks[i].status == GPU_OK ? "ok    " : "FAILED",
               in->checks[i].detail);
}

static void usage(FILE *f)
{
    fputs("usage: gpushim-info [--json] [--no-self-test]\n"
          "Says whether a usable CUDA driver was found and why not; with a GPU, runs a self-test.\n"
          "Exit status: 0 usable driver, 1 no usable driver, 2 no device, 3 self-test failed, 64 usage.\n",
          f);
}

int main(int argc, char **argv)
{
    struct info in = {0};
    bool run_self_test = true;
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            in.json = true;
        } else if (strcmp(argv[i], "--no-self-test") == 0) {
            run_self_test = false;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "gpushim-info: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }

    /* NVRTC is optional: its state is reported, never part of the exit status. */
    (void)gpu_compiler_load();
    if (gpu_driver_load() != GPU_OK) {
        rc = EXIT_NO_DRIVER;
    } else if (gpu_device_count(&in.device_count) != GPU_OK || in.device_count <= 0) {
        in.device_count = 0;
        rc = EXIT_NO_DEVICE;
    } else {
        in.devices = calloc((size_t)in.device_count, sizeof(*in.devices));
        if (!in.devices) {
            fprintf(stderr, "gpushim-info: out of memory\n");
            return EXIT_SELF_TEST;
        }
        for (int i = 0; i < in.device_count; i++)
            if (gpu_device_get_info(i, &in.devices[i]) != GPU_OK)
                snprintf(in.devices[i].name, sizeof(in.devices[i].name), "(unreadable: %s)", gpu_last_error());
        if (run_self_test) {
            self_test(&in);
            for (int i = 0; i < in.check_count; i++)
                if (in.checks[i].status != GPU_OK)
                    rc = EXIT_SELF_TEST;
        }
    }
    in.report = gpu_driver_report();
    if (in.json)
        print_json(&in);
    else
        print_text(&in);
    free(in.devices);
    return rc;
}
