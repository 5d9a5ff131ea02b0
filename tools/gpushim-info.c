/* SPDX-License-Identifier: MIT */
/*
 * gpushim-info: says whether a usable CUDA driver is here and, if not,
 * exactly why; with a device it runs a short self-test.
 *
 * Exit status (info_args.h): 0 a usable driver was found (and the
 * self-test, if run, passed); 1 no usable driver; 2 a usable driver but no
 * device; 3 the self-test failed; 4 cuDeviceGetCount failed; 5 --timeout:
 * the load had not finished; 64 a usage error; 74 the output could not be
 * written.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpushim/gpushim.h>

#include "info_args.h"
#include "info_json.h"

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
    bool timed_out;          /* --timeout ran out: the report is the load in progress */
    double waited_s;
    char count_error[1024];  /* why gpu_device_get_count failed; "" if it did not */
    int device_count;
    gpu_device_info *devices;
    struct check checks[SELF_TEST_COUNT];
    int check_count;
};

/* Why the current self-test step failed when gpushim did not say (set by the step). */
static char step_error[256];

__attribute__((format(printf, 4, 5))) static void record(struct info *in, const char *name, gpu_status st,
                                                     const char *fmt, ...)
{
    struct check *c = &in->checks[in->check_count++];
    va_list ap;

    c->name = name;
    c->status = st;
    if (st != GPU_OK) {
        /* A step can fail without gpushim failing (wrong data, an event not complete): it says why itself. */
        const char *why = step_error[0] ? step_error : gpu_last_error_get_message();

        snprintf(c->detail, sizeof(c->detail), "%s: %s", gpu_status_get_name(st),
                 why[0] ? why : "failed, and gpushim gave no detail");
        step_error[0] = '\0';
        return;
    }
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
    va_end(ap);
}

/*
 * After a launch (a kernel or a graph) whose status is `st`, on a buffer that
 * held word i = i: waits for the stream and checks that every word reads i + 1.
 */
static gpu_status run_and_check(gpu_stream *s, gpu_buffer *buf, uint32_t *host, gpu_status st)
{
    if (st != GPU_OK)
        return st;
    st = gpu_stream_synchronize(s);
    if (st == GPU_OK)
        st = gpu_buffer_copy_to_host(buf, host, SELF_TEST_WORDS * sizeof(uint32_t));
    for (uint32_t i = 0; st == GPU_OK && i < SELF_TEST_WORDS; i++)
        if (host[i] != i + 1) {
            snprintf(step_error, sizeof(step_error), "word %u reads %u after the kernel, not %u", i, host[i], i + 1);
            return GPU_ERR_DRIVER;
        }
    return st;
}

/* ---- NVRTC: the compiler's load report, and the self-test's kernel from CUDA C++. ---- */

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
 * device) when NVRTC loads, else the PTX above, which is also what a driver
 * that refuses the cubin as not supported gets. Says which in `how`.
 */
static gpu_status load_self_test_module(gpu_context *ctx, gpu_module **m, char *how, size_t how_size)
{
    gpu_program *p;
    gpu_status st;
    int major, minor;

    if (gpu_compiler_get_version(&major, &minor) != GPU_OK) {
        snprintf(how, how_size, "JIT-compiled PTX (no NVRTC)");
        return gpu_module_load_data(ctx, add_one_ptx, sizeof(add_one_ptx) - 1, m);
    }
    st = gpu_program_create(add_one_cuda, "gpushim-info.cu", NULL, 0, &p);
    if (st != GPU_OK)
        return st;
    st = gpu_program_compile(p, ctx, NULL);
    if (st == GPU_OK)
        st = gpu_program_load_module(p, ctx, m);
    if (st == GPU_ERR_NOT_SUPPORTED) {
        /* A driver that loads no cubin (gpushim's fake driver runs PTX entries as host functions). */
        gpu_program_destroy(p);
        snprintf(how, how_size, "JIT-compiled PTX (the driver loads no cubin)");
        return gpu_module_load_data(ctx, add_one_ptx, sizeof(add_one_ptx) - 1, m);
    }
    if (st == GPU_OK)
        snprintf(how, how_size, "CUDA C++ compiled by NVRTC %d.%d to a cubin (%s%s%s)", major, minor,
                 cache_state_name(gpu_program_get_cache_state(p)), gpu_program_get_cache_warning(p) ? ": " : "",
                 gpu_program_get_cache_warning(p) ? gpu_program_get_cache_warning(p) : "");
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

/*
 * libgpushim-cuda's forwarders: how many reach the driver's own export of
 * their name; the rest answer CUDA_ERROR_NOT_SUPPORTED. Only once the load
 * got a library (asking would load it, and a stuck load would hang here).
 */
static bool forwarders_known(const struct info *in)
{
    return !in->timed_out && in->report->stage != GPU_LOAD_OPEN && in->report->stage != GPU_LOAD_NOT_STARTED;
}

static void print_forwarders(const struct info *in, bool json)
{
    size_t n = gpu_cuda_get_symbol_count(), forwarded = 0, missing = 0;

    for (size_t i = 0; i < n; i++) {
        const char *name;
        void *target;

        if (gpu_cuda_get_symbol(i, &name, &target) == GPU_OK)
            forwarded++;
    }
    if (json)
        printf("  \"cuda_symbols\": {\"count\": %zu, \"forwarded\": %zu, \"missing\": [", n, forwarded);
    else
        printf("  cu* symbols (libgpushim-cuda): %zu, %zu forwarded to the driver's own exports, %zu missing%s", n,
               forwarded, n - forwarded, n == forwarded ? "\n" : ":");
    for (size_t i = 0; i < n; i++) {
        const char *name;
        void *target;

        if (gpu_cuda_get_symbol(i, &name, &target) == GPU_OK)
            continue;
        if (json) {
            printf("%s", missing ? ", " : "");
            json_string(name);
        } else if (missing < 8) {
            printf(" %s", name);
        } else if (missing == 8) {
            printf(" ... (--json lists them all)");
        }
        missing++;
    }
    printf(json ? "]},\n" : (n == forwarded ? "" : "\n"));
}

static void print_compiler_text(const gpu_compiler_report *r)
{
    if (r->stage != GPU_LOAD_READY) {
        printf("nvrtc: not usable (failed at stage: %s)\n", gpu_load_stage_get_name(r->stage));
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
    json_string(gpu_load_stage_get_name(r->stage));
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
    st = gpu_context_retain_primary(0, &ctx);
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
    if (st == GPU_OK && !done) {
        snprintf(step_error, sizeof(step_error), "the event was not complete after gpu_event_synchronize");
        st = GPU_ERR_EVENT;
    }
    record(in, "event", st, "recorded, waited for and found complete");

    st = load_self_test_module(ctx, &m, how, sizeof(how));
    if (st == GPU_OK)
        st = gpu_module_get_function(m, "gpushim_add_one", &f);
    if (st == GPU_OK)
        st = gpu_buffer_create(ctx, sizeof(host), &buf);
    if (st == GPU_OK) {
        ptr = gpu_buffer_get_device_ptr(buf);
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
    info_json_string(stdout, s);
}

/* ---- What kernels check first: the device's limits, like deviceQuery ---- */

static void uuid_text(const gpu_uuid *u, char out[48])
{
    size_t n = 0;

    for (int i = 0; i < 16; i++)
        n += (size_t)snprintf(out + n, 48 - n, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
                              u->bytes[i]);
}

static void json_kernel_limits(const gpu_device_info *d)
{
    char uuid[48];

    uuid_text(&d->uuid, uuid);
    printf(", \"uuid\": \"GPU-%s\", \"warp_size\": %d, \"max_threads_per_block\": %d, "
           "\"max_threads_per_multiprocessor\": %d, \"shared_memory_per_block\": %d, "
           "\"shared_memory_per_block_optin\": %d, \"shared_memory_per_multiprocessor\": %d, "
           "\"registers_per_block\": %d, \"l2_cache_size\": %d, \"clock_rate_khz\": %d, "
           "\"memory_clock_rate_khz\": %d, \"memory_bus_width\": %d, \"cooperative_launch\": %s, "
           "\"cluster_launch\": %s",
           uuid, d->warp_size, d->max_threads_per_block, d->max_threads_per_multiprocessor,
           d->max_shared_memory_per_block, d->max_shared_memory_per_block_optin,
           d->max_shared_memory_per_multiprocessor, d->max_registers_per_block, d->l2_cache_size, d->clock_rate_khz,
           d->memory_clock_rate_khz, d->memory_bus_width, d->cooperative_launch ? "true" : "false",
           d->cluster_launch ? "true" : "false");
}

static void print_kernel_limits(const gpu_device_info *d)
{
    char uuid[48];

    if (d->warp_size == 0) /* unreadable: nothing more to say */
        return;
    uuid_text(&d->uuid, uuid);
    printf("     UUID GPU-%s\n", uuid);
    printf("     warp %d, threads %d a block, %d a multiprocessor, registers %d a block\n", d->warp_size,
           d->max_threads_per_block, d->max_threads_per_multiprocessor, d->max_registers_per_block);
    printf("     shared memory %d KiB a block (%d KiB with opt-in), %d KiB a multiprocessor\n",
           d->max_shared_memory_per_block / 1024, d->max_shared_memory_per_block_optin / 1024,
           d->max_shared_memory_per_multiprocessor / 1024);
    printf("     L2 %.1f MiB, clock %d MHz, memory %d MHz on a %d-bit bus\n", d->l2_cache_size / (1024.0 * 1024.0),
           d->clock_rate_khz / 1000, d->memory_clock_rate_khz / 1000, d->memory_bus_width);
    printf("     cooperative launch: %s, cluster launch: %s\n", d->cooperative_launch ? "yes" : "no",
           d->cluster_launch ? "yes" : "no");
}

/* ---- End of the device's limits ---- */

static void print_json(const struct info *in)
{
    const gpu_load_report *r = in->report;

    printf("{\n  \"usable\": %s,\n  \"stage\": ", r->stage == GPU_LOAD_READY && !in->timed_out ? "true" : "false");
    json_string(gpu_load_stage_get_name(r->stage));
    printf(",\n  \"timed_out\": %s", in->timed_out ? "true" : "false");
    if (in->timed_out) {
        printf(",\n  \"waited_s\": %.3f,\n  \"step\": ", in->waited_s);
        json_string(r->step);
    }
    printf(",\n  \"device_count_error\": ");
    json_string(in->count_error[0] ? in->count_error : NULL);
    printf(",\n  \"message\": ");
    json_string(r->message);
    printf(",\n  \"file\": ");
    json_string(r->file);
    printf(",\n  \"choice\": "); /* why `file`: where it was found, and whether candidates before it were skipped */
    json_string(r->choice);
    printf(",\n  \"only_gpushim\": %s", r->only_gpushim ? "true" : "false");
    printf(",\n  \"fake_driver\": "); /* gpushim's fake driver (its identity), null for a real one */
    json_string(r->fake);
    printf(",\n  \"driver_version\": %d,\n  \"abi_version\": %d,\n  \"init_called\": %s,\n  \"init_result\": %u,\n",
           r->driver_version, r->abi_version, r->init_called ? "true" : "false", r->init_result);
    printf("  \"resolved\": {\"cuGetProcAddress_v2\": %zu, \"dlsym\": %zu},\n", r->via_get_proc_address, r->via_dlsym);
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
        json_kernel_limits(d);
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
    if (forwarders_known(in))
        print_forwarders(in, true);
    print_compiler_json(gpu_compiler_get_report());
    printf("}\n");
}

static void print_text(const struct info *in)
{
    const gpu_load_report *r = in->report;

    printf("gpushim %d.%d.%d, CUDA ABI %d.%d\n", GPUSHIM_VERSION_MAJOR, GPUSHIM_VERSION_MINOR, GPUSHIM_VERSION_PATCH,
           r->abi_version / 1000, r->abi_version % 1000 / 10);
    if (in->timed_out) {
        printf("driver: the load has not finished after %.1f s; it is stuck in %s%s%s\n", in->waited_s,
               r->step ? r->step : "its first step", r->file ? " of " : "", r->file ? r->file : "");
        printf("  %s\n", r->message);
        printf("  (a driver that hangs in cuInit hangs the first call that needs it; this exits instead)\n");
    } else if (r->stage != GPU_LOAD_READY) {
        printf("driver: not usable (failed at stage: %s)\n", gpu_load_stage_get_name(r->stage));
        if (r->stage != GPU_LOAD_OPEN)
            printf("  %s\n", r->message);
        if (r->only_gpushim)
            printf("  only gpushim's own libcuda.so.1 (libgpushim-cuda, a forwarder, not a driver) was found\n");
        print_attempts_text(r->attempts, r->attempt_count);
        if (r->stage == GPU_LOAD_OPEN)
            printf("  next: install NVIDIA's driver, which provides libcuda.so.1, or set GPUSHIM_LIBCUDA to a driver's "
                   "file (libgpushim-fakecuda.so, installed with gpushim, simulates a GPU for tests)\n");
    } else {
        printf("driver: %s\n  CUDA %d.%d (%d)\n", r->file, r->driver_version / 1000, r->driver_version % 1000 / 10,
               r->driver_version);
    }
    if (!in->timed_out && r->choice) {
        printf("  chosen: %s\n", r->choice);
        /* A driver found first try needs no list; one found after skipping others says what each was. */
        if (r->stage == GPU_LOAD_READY && r->attempt_count > 1)
            print_attempts_text(r->attempts, r->attempt_count);
    }
    if (r->fake)
        printf("  this is gpushim's fake driver (%s): a CUDA driver simulated in host memory, not a GPU\n", r->fake);
    if (r->entry_count) {
        printf("  entry points at %d: %zu resolved with cuGetProcAddress_v2, %zu with dlsym; %zu required and %zu "
               "optional missing\n",
               r->abi_version, r->via_get_proc_address, r->via_dlsym, r->missing_required, r->missing_optional);
        for (size_t i = 0; i < r->entry_count; i++) {
            const gpu_entry_point *e = &r->entries[i];

            if (!e->found)
                printf("    missing %s %s (%s)\n", e->required ? "required" : "optional", e->symbol, e->missing);
            else if (e->exported && !e->matches_export)
                printf("    note: %s resolved to a pointer other than the exported %s\n", e->name, e->symbol);
        }
    }
    if (forwarders_known(in))
        print_forwarders(in, false);
    printf("  load: open %.3f ms, cuInit %.3f ms, resolve %.3f ms\n", r->open_ns / 1e6, r->init_ns / 1e6,
           r->resolve_ns / 1e6);
    if (r->init_called && r->init_result != 0)
        printf("  cuInit returned %u (0x%x)\n", r->init_result, r->init_result);
    if (in->count_error[0])
        printf("devices: unknown: %s\n", in->count_error);
    else if (r->stage == GPU_LOAD_READY)
        printf("devices: %d\n", in->device_count);
    for (int i = 0; i < in->device_count; i++) {
        const gpu_device_info *d = &in->devices[i];

        printf("  %d: %s, %.1f GiB, compute %d.%d, %d multiprocessors%s%s\n", i, d->name,
               d->total_memory / (1024.0 * 1024.0 * 1024.0), d->compute_major, d->compute_minor, d->multiprocessors,
               d->pci_bus_id[0] ? ", PCI " : "", d->pci_bus_id);
        print_kernel_limits(d);
    }
    print_compiler_text(gpu_compiler_get_report());
    if (in->check_count)
        printf("self-test:\n");
    for (int i = 0; i < in->check_count; i++)
        printf("  %-7s %s  %s\n", in->checks[i].name, in->checks[i].status == GPU_OK ? "ok    " : "FAILED",
               in->checks[i].detail);
}

/* --timeout: the load runs on a thread of its own, which is left behind if it hangs. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t load_cond = PTHREAD_COND_INITIALIZER;
static bool load_finished;
static gpu_status load_result;

static void *load_thread(void *arg)
{
    gpu_status st = gpu_driver_load();

    (void)arg;
    pthread_mutex_lock(&load_lock);
    load_result = st;
    load_finished = true;
    pthread_cond_signal(&load_cond);
    pthread_mutex_unlock(&load_lock);
    return NULL;
}

/* gpu_driver_load(), waiting at most timeout_s (0: as long as it takes); false if that ran out. */
static bool load_within(double timeout_s, gpu_status *out, double *waited_s)
{
    struct timespec t0, deadline;
    pthread_t t;
    bool finished;

    if (timeout_s <= 0) {
        *out = gpu_driver_load();
        return true;
    }
    clock_gettime(CLOCK_REALTIME, &t0);
    deadline = t0;
    deadline.tv_sec += (time_t)timeout_s;
    deadline.tv_nsec += (long)((timeout_s - (double)(time_t)timeout_s) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    if (pthread_create(&t, NULL, load_thread, NULL) != 0) {
        *out = gpu_driver_load();
        return true;
    }
    pthread_detach(t);
    pthread_mutex_lock(&load_lock);
    while (!load_finished && pthread_cond_timedwait(&load_cond, &load_lock, &deadline) != ETIMEDOUT)
        ;
    finished = load_finished;
    *out = load_result;
    pthread_mutex_unlock(&load_lock);
    *waited_s = timeout_s;
    return finished;
}

/* Prints and checks that it all reached the output: a full disk or a closed pipe is an error. */
static int print_all(const struct info *in, int rc)
{
    if (in->json)
        print_json(in);
    else
        print_text(in);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "gpushim-info: could not write the output: %s\n", strerror(errno));
        return INFO_EXIT_WRITE;
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct info in = {0};
    struct info_options opt;
    gpu_status st;
    int rc = 0;

    rc = info_args_parse(argc, argv, &opt, stderr);
    if (rc != INFO_EXIT_OK)
        return rc;
    if (opt.help) {
        info_usage(stdout);
        return fflush(stdout) != 0 || ferror(stdout) ? INFO_EXIT_WRITE : INFO_EXIT_OK;
    }
    in.json = opt.json;

    /* NVRTC is optional: its state is reported, never part of the exit status. */
    (void)gpu_compiler_load();
    if (!load_within(opt.timeout_s, &st, &in.waited_s)) {
        /* What is stuck, then out: the loading thread cannot be stopped, and nothing waits for it. */
        in.timed_out = true;
        in.report = gpu_driver_get_report();
        rc = print_all(&in, INFO_EXIT_TIMEOUT);
        _exit(rc);
    }
    if (st != GPU_OK) {
        rc = INFO_EXIT_NO_DRIVER;
    } else if ((st = gpu_device_get_count(&in.device_count)) != GPU_OK) {
        snprintf(in.count_error, sizeof(in.count_error), "%s: %s", gpu_status_get_name(st), gpu_last_error_get_message());
        in.device_count = 0;
        rc = INFO_EXIT_DEVICE_COUNT;
    } else if (in.device_count <= 0) {
        in.device_count = 0;
        rc = INFO_EXIT_NO_DEVICE;
    } else {
        in.devices = calloc((size_t)in.device_count, sizeof(*in.devices));
        if (!in.devices) {
            fprintf(stderr, "gpushim-info: out of memory\n");
            return INFO_EXIT_SELF_TEST;
        }
        for (int i = 0; i < in.device_count; i++)
            if (gpu_device_get_info(i, &in.devices[i]) != GPU_OK)
                snprintf(in.devices[i].name, sizeof(in.devices[i].name), "(unreadable: %s)", gpu_last_error_get_message());
        if (opt.self_test) {
            self_test(&in);
            for (int i = 0; i < in.check_count; i++)
                if (in.checks[i].status != GPU_OK)
                    rc = INFO_EXIT_SELF_TEST;
        }
    }
    in.report = gpu_driver_get_report();
    rc = print_all(&in, rc);
    free(in.devices);
    return rc;
}
