/* SPDX-License-Identifier: MIT */
/*
 * What gpushim adds to each hot call, in nanoseconds: every call made
 * through gpushim's public API and made directly on the same driver (the
 * pointer dlsym gives for the entry's versioned symbol in the very file
 * gpushim loaded), in one run.
 *
 * Calls: launch (an empty kernel), record event, wait event, event query (a
 * completed event), stream query (an idle stream), async copy host to device
 * and device to host (pinned, GPUSHIM_OVERHEAD_BYTES bytes).
 *
 * Two more arms make the same calls through libbenchfloor (floor.h): the
 * least a wrapper library with gpushim's API adds on this machine, a call
 * into the library and the indirect call out of it ("floor"), and the same
 * with a thread-local compare first ("floor_tls", the budget for a
 * hot call: one indirect call and a thread-local read). gpushim's hot path
 * reads no thread-local: its cost beyond floor is its own checks.
 *
 * Each rep times GPUSHIM_OVERHEAD_CALLS calls of each arm back to back, in
 * an order that rotates from rep to rep; only the calls are timed, in
 * batches of GPUSHIM_BENCH_SYNC_EVERY with an untimed stream synchronisation
 * between them (so a real driver's queue never fills). It reports the medians
 * of each arm's ns per call, and the median of the per-rep differences and
 * ratios: arms measured back to back, so drift moves them alike.
 *
 * It needs no GPU: meson's benchmark runs it against bench/null_driver.c
 * (GPUSHIM_LIBCUDA names it), whose calls cost next to nothing, so what is
 * left is gpushim's own cost. Without GPUSHIM_LIBCUDA it measures the real
 * driver. A line per call for grep:
 *
 *   OVERHEAD <call> driver=<file> gpushim_ns=.. direct_ns=.. delta_ns=.. ratio=.. ...
 *            floor_delta_ns=.. floor_tls_delta_ns=.. beyond_floor_tls_ns=.. beyond_floor_ns=..
 *
 * Another build, in this process: GPUSHIM_OVERHEAD_OTHER names another
 * build's libgpushim.so.N, loaded with dlmopen() into a namespace of its own
 * (with its own copy of the null driver; the real driver is never loaded
 * twice, so the arm needs GPUSHIM_LIBCUDA). Two more arms then make the
 * calls through a table of function pointers each: this build's functions
 * ("self") and the other's ("other"), on objects each made. Both arms run
 * in every rep, so a before/after comparison is paired rep by rep in one
 * process, which separate processes are not: on a shared machine the ns a
 * process measures can move by half from one process to the next, for
 * every arm alike. The OVERHEAD line then adds ab_self_ns, ab_other_ns and
 * ab_diff_ns (the median of the per-rep self - other).
 *
 * Knobs: GPUSHIM_BENCH_REPS, GPUSHIM_OVERHEAD_CALLS, GPUSHIM_BENCH_SYNC_EVERY,
 * GPUSHIM_OVERHEAD_BYTES, GPUSHIM_OVERHEAD_OTHER.
 *
 * Call tracing: run it again with GPUSHIM_TRACE set (and GPUSHIM_TRACE_GPU=1)
 * and the gpushim arm goes through the tracing wrappers while the direct arm
 * still calls the driver itself, so delta_ns is gpushim's cost with tracing
 * on. The OVERHEAD lines say which run they are: trace=off, on or gpu.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floor.h"
#include "util.h"

#define MAX_REPS 1001
/* What the issue asks of every hot call: within the cost of one indirect call and a thread-local read. */
#define TARGET_NS 3.0

enum op { OP_LAUNCH, OP_RECORD, OP_WAIT, OP_EVENT_QUERY, OP_STREAM_QUERY, OP_COPY_H2D, OP_COPY_D2H, OPS };

static const struct {
    const char *label;
    const char *entry; /* the driver's base name, as in entry_points.h */
} ops[OPS] = {
    {"launch", "cuLaunchKernel"},
    {"record_event", "cuEventRecord"},
    {"wait_event", "cuStreamWaitEvent"},
    {"event_query", "cuEventQuery"},
    {"stream_query", "cuStreamQuery"},
    {"copy_h2d_async", "cuMemcpyHtoDAsync"},
    {"copy_d2h_async", "cuMemcpyDtoHAsync"},
};

/* The driver's own pointers, for the direct arm (the floor's table too). */
static struct floor_driver direct;

static bool same_pointer[OPS];

/* The gpushim functions an arm calls, and those that make its objects: gpu_<fn> for each X(fn). */
#define API_FUNCTIONS(X) \
    X(stream_launch_function) X(stream_record_event) X(stream_wait_event) X(event_is_complete) X(stream_is_complete) \
    X(buffer_copy_from_host_async) X(buffer_copy_to_host_async) X(stream_synchronize) \
    X(stream_create_non_blocking) X(event_create) X(buffer_create) X(host_buffer_create) X(host_buffer_get_data) \
    X(module_load_file) X(module_get_function) X(last_error_get_message) X(stream_destroy) X(event_destroy) \
    X(buffer_destroy) X(host_buffer_destroy) X(module_destroy)

/* Those functions as pointers: this build's, or another build's (GPUSHIM_OVERHEAD_OTHER). */
struct api {
#define API_FIELD(fn) __typeof__(&gpu_##fn) fn;
    API_FUNCTIONS(API_FIELD)
#undef API_FIELD
};

/* One build's objects: what its calls work on. */
struct built {
    gpu_stream *stream;
    gpu_event *event;
    gpu_function *empty;
    gpu_buffer *device;
    void *host_data;
    gpu_host_buffer *host;  /* the other build's: this one's is the objects' */
    gpu_module *module;     /* likewise */
};

struct objects {
    struct built self, other;
    const struct api *other_api; /* NULL: no other build */
    gpu_host_buffer *host;
    size_t bytes;
    void *raw_stream, *raw_event, *raw_function, *host_data;
    unsigned long long device_ptr;
    /* The same handles, as the floor's objects. */
    struct floor_object f_stream, f_event, f_function, f_buffer;
};

/*
 * Stores in *fn (a function pointer of `size` bytes) what dlsym gives for the
 * versioned symbol of op's entry in the driver gpushim loaded; exits without one.
 */
static void resolve(void *handle, const gpu_load_report *report, enum op op, void *fn, size_t size)
{
    for (size_t i = 0; i < report->entry_count; i++) {
        const gpu_entry_point *e = &report->entries[i];
        void *sym;

        if (strcmp(e->name, ops[op].entry) != 0)
            continue;
        sym = dlsym(handle, e->symbol);
        if (!sym) {
            printf("FAILED: dlsym %s in %s: %s\n", e->symbol, report->file, dlerror());
            exit(1);
        }
        same_pointer[op] = e->matches_export;
        memcpy(fn, &sym, size);
        return;
    }
    printf("FAILED: %s is not in gpushim's entry points\n", ops[op].entry);
    exit(1);
}

static void resolve_direct(void)
{
    const gpu_load_report *report = gpu_driver_get_report();
    void *handle = dlopen(report->file, RTLD_NOW | RTLD_NOLOAD);

    if (!handle) {
        printf("FAILED: dlopen %s (already loaded by gpushim): %s\n", report->file, dlerror());
        exit(1);
    }
    resolve(handle, report, OP_LAUNCH, &direct.launch, sizeof(direct.launch));
    resolve(handle, report, OP_RECORD, &direct.record, sizeof(direct.record));
    resolve(handle, report, OP_WAIT, &direct.wait, sizeof(direct.wait));
    resolve(handle, report, OP_EVENT_QUERY, &direct.event_query, sizeof(direct.event_query));
    resolve(handle, report, OP_STREAM_QUERY, &direct.stream_query, sizeof(direct.stream_query));
    resolve(handle, report, OP_COPY_H2D, &direct.h2d, sizeof(direct.h2d));
    resolve(handle, report, OP_COPY_D2H, &direct.d2h, sizeof(direct.d2h));
}

/*
 * `count` calls of `op` through gpushim on build `b`'s objects; returns how
 * many did not succeed (or said "not done"). GPUSHIM_ARM(name, CALL) defines
 * one: CALL(api, fn) is how gpu_<fn> is called.
 */
#define GPUSHIM_ARM(name, CALL) \
    static unsigned name(const struct api *api, const struct built *b, enum op op, size_t bytes, unsigned count) \
    { \
        gpu_launch_config config = gpu_launch_config_1d(1, 1); \
        unsigned bad = 0; \
        bool yes; \
\
        (void)api; \
        switch (op) { \
        case OP_LAUNCH: \
            for (unsigned i = 0; i < count; i++) \
                bad += CALL(api, stream_launch_function)(b->stream, b->empty, &config, NULL) != GPU_OK; \
            break; \
        case OP_RECORD: \
            for (unsigned i = 0; i < count; i++) \
                bad += CALL(api, stream_record_event)(b->stream, b->event) != GPU_OK; \
            break; \
        case OP_WAIT: \
            for (unsigned i = 0; i < count; i++) \
                bad += CALL(api, stream_wait_event)(b->stream, b->event) != GPU_OK; \
            break; \
        case OP_EVENT_QUERY: \
            for (unsigned i = 0; i < count; i++) \
                bad += CALL(api, event_is_complete)(b->event, &yes) != GPU_OK || !yes; \
            break; \
        case OP_STREAM_QUERY: \
            for (unsigned i = 0; i < count; i++) \
                bad += CALL(api, stream_is_complete)(b->stream, &yes) != GPU_OK || !yes; \
            break; \
        case OP_COPY_H2D: \
            for (unsigned i = 0; i < count; i++) \
                bad += CALL(api, buffer_copy_from_host_async)(b->device, b->host_data, bytes, b->stream) != GPU_OK; \
            break; \
        case OP_COPY_D2H: \
            for (unsigned i = 0; i < count; i++) \
                bad += CALL(api, buffer_copy_to_host_async)(b->device, b->host_data, bytes, b->stream) != GPU_OK; \
            break; \
        case OPS: \
            break; \
        } \
        return bad; \
    }
/* As a program linked to gpushim calls it (through the PLT), and through a table of pointers. */
#define LINKED_CALL(api, fn) gpu_##fn
#define TABLE_CALL(api, fn) (api)->fn
GPUSHIM_ARM(calls_gpushim, LINKED_CALL)
GPUSHIM_ARM(calls_table, TABLE_CALL)

/* The same calls made directly on the driver's pointers, with the same handles. */
static unsigned calls_direct(enum op op, const struct objects *o, unsigned count)
{
    unsigned bad = 0;

    switch (op) {
    case OP_LAUNCH:
        for (unsigned i = 0; i < count; i++)
            bad += direct.launch(o->raw_function, 1, 1, 1, 1, 1, 1, 0, o->raw_stream, NULL, NULL) != 0;
        break;
    case OP_RECORD:
        for (unsigned i = 0; i < count; i++)
            bad += direct.record(o->raw_event, o->raw_stream) != 0;
        break;
    case OP_WAIT:
        for (unsigned i = 0; i < count; i++)
            bad += direct.wait(o->raw_stream, o->raw_event, 0) != 0;
        break;
    case OP_EVENT_QUERY:
        for (unsigned i = 0; i < count; i++)
            bad += direct.event_query(o->raw_event) != 0;
        break;
    case OP_STREAM_QUERY:
        for (unsigned i = 0; i < count; i++)
            bad += direct.stream_query(o->raw_stream) != 0;
        break;
    case OP_COPY_H2D:
        for (unsigned i = 0; i < count; i++)
            bad += direct.h2d(o->device_ptr, o->host_data, o->bytes, o->raw_stream) != 0;
        break;
    case OP_COPY_D2H:
        for (unsigned i = 0; i < count; i++)
            bad += direct.d2h(o->host_data, o->device_ptr, o->bytes, o->raw_stream) != 0;
        break;
    case OPS:
        break;
    }
    return bad;
}

/* The same calls through libbenchfloor: FLOOR_ARM(floor_) or FLOOR_ARM(floor_tls_). */
#define FLOOR_ARM(prefix) \
    static unsigned calls_##prefix(enum op op, const struct objects *o, unsigned count) \
    { \
        gpu_launch_config config = gpu_launch_config_1d(1, 1); \
        unsigned bad = 0; \
        bool yes; \
\
        switch (op) { \
        case OP_LAUNCH: \
            for (unsigned i = 0; i < count; i++) \
                bad += prefix##launch(&o->f_stream, &o->f_function, &config, NULL) != 0; \
            break; \
        case OP_RECORD: \
            for (unsigned i = 0; i < count; i++) \
                bad += prefix##record(&o->f_stream, &o->f_event) != 0; \
            break; \
        case OP_WAIT: \
            for (unsigned i = 0; i < count; i++) \
                bad += prefix##wait(&o->f_stream, &o->f_event) != 0; \
            break; \
        case OP_EVENT_QUERY: \
            for (unsigned i = 0; i < count; i++) \
                bad += prefix##event_query(&o->f_event, &yes) != 0 || !yes; \
            break; \
        case OP_STREAM_QUERY: \
            for (unsigned i = 0; i < count; i++) \
                bad += prefix##stream_query(&o->f_stream, &yes) != 0 || !yes; \
            break; \
        case OP_COPY_H2D: \
            for (unsigned i = 0; i < count; i++) \
                bad += prefix##h2d(&o->f_buffer, o->host_data, o->bytes, &o->f_stream) != 0; \
            break; \
        case OP_COPY_D2H: \
            for (unsigned i = 0; i < count; i++) \
                bad += prefix##d2h(&o->f_buffer, o->host_data, o->bytes, &o->f_stream) != 0; \
            break; \
        case OPS: \
            break; \
        } \
        return bad; \
    }
FLOOR_ARM(floor_)
FLOOR_ARM(floor_tls_)

/* The arms, in the order of rep 0; each later rep starts one further on. */
enum arm { ARM_GPUSHIM, ARM_DIRECT, ARM_FLOOR, ARM_FLOOR_TLS, ARM_SELF, ARM_OTHER, ARMS };
static const char *const arm_label[ARMS] = {"gpushim", "direct", "floor", "floor_tls", "self", "other"};

/* This build's functions as pointers, for the self arm. */
static const struct api self_api = {
#define API_SELF(fn) .fn = gpu_##fn,
    API_FUNCTIONS(API_SELF)
#undef API_SELF
};

static unsigned calls_arm(enum arm arm, enum op op, const struct objects *o, unsigned count)
{
    switch (arm) {
    case ARM_GPUSHIM:
        return calls_gpushim(NULL, &o->self, op, o->bytes, count);
    case ARM_SELF:
        return calls_table(&self_api, &o->self, op, o->bytes, count);
    case ARM_OTHER:
        return calls_table(o->other_api, &o->other, op, o->bytes, count);
    case ARM_DIRECT:
        return calls_direct(op, o, count);
    case ARM_FLOOR:
        return calls_floor_(op, o, count);
    case ARM_FLOOR_TLS:
        return calls_floor_tls_(op, o, count);
    case ARMS:
        break;
    }
    return count;
}

static unsigned calls, sync_every;

/* ns per call of one arm: `calls` calls in timed batches, a synchronisation (untimed) after each. */
static double ns_per_call(enum op op, const struct objects *o, enum arm arm)
{
    uint64_t timed = 0;
    unsigned bad = 0;

    for (unsigned done = 0; done < calls; done += sync_every) {
        unsigned batch = calls - done < sync_every ? calls - done : sync_every;
        uint64_t t0 = gpu_test_now_ns();

        bad += calls_arm(arm, op, o, batch);
        timed += gpu_test_now_ns() - t0;
        if (arm == ARM_OTHER)
            BENCH_CHECK(o->other_api->stream_synchronize(o->other.stream));
        else
            BENCH_CHECK(gpu_stream_synchronize(o->self.stream));
    }
    if (bad) {
        const char *why = arm == ARM_GPUSHIM || arm == ARM_SELF ? gpu_last_error_get_message()
                          : arm == ARM_OTHER                    ? o->other_api->last_error_get_message()
                                                                : "";

        printf("FAILED: %s: %u of %u calls did not succeed (%s arm)%s%s\n", ops[op].label, bad, calls,
               arm_label[arm], why[0] ? ": " : "", why);
        exit(1);
    }
    return (double)timed / calls;
}

/* Whether gpushim was asked to trace (it decides at load): off, on, or gpu (GPU spans too). */
static const char *trace_mode(void)
{
    const char *path = getenv("GPUSHIM_TRACE"), *gpu = getenv("GPUSHIM_TRACE_GPU");

    if (!path || !path[0])
        return "off";
    return gpu && strcmp(gpu, "1") == 0 ? "gpu" : "on";
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

static void measure(enum op op, const struct objects *o, unsigned reps)
{
    static double ns[ARMS][MAX_REPS], delta[MAX_REPS], ratio[MAX_REPS], floor_delta[MAX_REPS],
        floor_tls_delta[MAX_REPS], beyond[MAX_REPS], beyond_floor[MAX_REPS], ab_diff[MAX_REPS];
    double lo, hi, d, r, fd, ftd, b, bf, arm_ns[ARMS];
    unsigned arms = o->other_api ? ARMS : ARM_SELF;

    /* Warm-up: first-call costs (page faults, lazy binding) are not measured. */
    for (unsigned a = 0; a < arms; a++)
        ns_per_call(op, o, (enum arm)a);
    for (unsigned rep = 0; rep < reps; rep++) {
        for (unsigned k = 0; k < arms; k++) {
            enum arm a = (enum arm)((rep + k) % arms);

            ns[a][rep] = ns_per_call(op, o, a);
        }
        ab_diff[rep] = ns[ARM_SELF][rep] - ns[ARM_OTHER][rep];
        delta[rep] = ns[ARM_GPUSHIM][rep] - ns[ARM_DIRECT][rep];
        ratio[rep] = ns[ARM_GPUSHIM][rep] / ns[ARM_DIRECT][rep];
        floor_delta[rep] = ns[ARM_FLOOR][rep] - ns[ARM_DIRECT][rep];
        floor_tls_delta[rep] = ns[ARM_FLOOR_TLS][rep] - ns[ARM_DIRECT][rep];
        beyond[rep] = ns[ARM_GPUSHIM][rep] - ns[ARM_FLOOR_TLS][rep];
        beyond_floor[rep] = ns[ARM_GPUSHIM][rep] - ns[ARM_FLOOR][rep];
    }
    lo = gpu_test_min(delta, reps);
    hi = gpu_test_max(delta, reps);
    d = gpu_test_median(delta, reps);
    for (unsigned a = 0; a < arms; a++)
        arm_ns[a] = gpu_test_median(ns[a], reps);
    r = gpu_test_median(ratio, reps);
    fd = gpu_test_median(floor_delta, reps);
    ftd = gpu_test_median(floor_tls_delta, reps);
    b = gpu_test_median(beyond, reps);
    bf = gpu_test_median(beyond_floor, reps);

    printf("%-15s | %10.2f | %10.2f | %8.2f (%.2f..%.2f) | %7.3f | %8.2f | %8.2f | %8.2f | %s\n", ops[op].label,
           arm_ns[ARM_GPUSHIM], arm_ns[ARM_DIRECT], d, lo, hi, r, fd, ftd, b, d <= TARGET_NS ? "met" : "NOT met");
    printf("OVERHEAD %s driver=%s gpushim_ns=%.2f direct_ns=%.2f delta_ns=%.2f ratio=%.4f delta_min=%.2f "
           "delta_max=%.2f reps=%u calls=%u same_pointer=%s trace=%s target_%.0fns=%s floor_ns=%.2f floor_tls_ns=%.2f "
           "floor_delta_ns=%.2f floor_tls_delta_ns=%.2f beyond_floor_tls_ns=%.2f beyond_floor_ns=%.2f",
           ops[op].label, base_name(gpu_driver_get_report()->file), arm_ns[ARM_GPUSHIM], arm_ns[ARM_DIRECT], d, r, lo,
           hi, reps, calls, same_pointer[op] ? "yes" : "no", trace_mode(), TARGET_NS,
           d <= TARGET_NS ? "met" : "NOT_met", arm_ns[ARM_FLOOR], arm_ns[ARM_FLOOR_TLS], fd, ftd, b, bf);
    if (o->other_api)
        printf(" ab_self_ns=%.2f ab_other_ns=%.2f ab_diff_ns=%.2f ab_diff_min=%.2f ab_diff_max=%.2f",
               arm_ns[ARM_SELF], arm_ns[ARM_OTHER], gpu_test_median(ab_diff, reps), gpu_test_min(ab_diff, reps),
               gpu_test_max(ab_diff, reps));
    printf("\n");
}

/* gpu_<name> of the other build into *fn (a function pointer of `size` bytes); exits without it. */
static void load_symbol(void *handle, const char *path, const char *name, void *fn, size_t size)
{
    void *sym = dlsym(handle, name);

    if (!sym) {
        printf("FAILED: %s in %s: %s\n", name, path, dlerror());
        exit(1);
    }
    memcpy(fn, &sym, size);
}

#define OTHER_CHECK(api, call) \
    do { \
        gpu_status st_ = (call); \
        if (st_ != GPU_OK) { \
            printf("FAILED: %s (the other build): %s\n", #call, (api)->last_error_get_message()); \
            exit(1); \
        } \
    } while (0)

/*
 * The other build (GPUSHIM_OVERHEAD_OTHER) in a namespace of its own, and
 * its objects, made as this build's are, in *b; NULL when none is named.
 */
static const struct api *load_other(struct built *b, size_t bytes)
{
    static struct api api;
    const char *path = getenv("GPUSHIM_OVERHEAD_OTHER");
    void *handle;

    if (!path || !path[0])
        return NULL;
    if (!getenv("GPUSHIM_LIBCUDA")) {
        printf("FAILED: GPUSHIM_OVERHEAD_OTHER needs GPUSHIM_LIBCUDA: the other build would load the real driver "
               "a second time\n");
        exit(1);
    }
    handle = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        printf("FAILED: dlmopen %s: %s\n", path, dlerror());
        exit(1);
    }
#define API_LOAD(fn) load_symbol(handle, path, "gpu_" #fn, &api.fn, sizeof(api.fn));
    API_FUNCTIONS(API_LOAD)
#undef API_LOAD
    OTHER_CHECK(&api, api.stream_create_non_blocking(NULL, &b->stream));
    OTHER_CHECK(&api, api.event_create(NULL, &b->event));
    OTHER_CHECK(&api, api.buffer_create(NULL, bytes, &b->device));
    OTHER_CHECK(&api, api.host_buffer_create(NULL, bytes, &b->host));
    OTHER_CHECK(&api, api.module_load_file(NULL, gpu_test_ptx_path(), &b->module));
    OTHER_CHECK(&api, api.module_get_function(b->module, KERNEL_EMPTY, &b->empty));
    b->host_data = api.host_buffer_get_data(b->host);
    memset(b->host_data, 0x5a, bytes);
    OTHER_CHECK(&api, api.stream_record_event(b->stream, b->event));
    OTHER_CHECK(&api, api.stream_synchronize(b->stream));
    printf("overhead: other build %s, in a namespace of its own\n", path);
    return &api;
}

static void destroy_other(const struct api *api, struct built *b)
{
    api->host_buffer_destroy(b->host);
    api->buffer_destroy(b->device);
    api->event_destroy(b->event);
    api->stream_destroy(b->stream);
    api->module_destroy(b->module);
}

int main(void)
{
    unsigned reps = gpu_test_env("GPUSHIM_BENCH_REPS", 101);
    struct objects o;

    calls = gpu_test_env("GPUSHIM_OVERHEAD_CALLS", 4096);
    sync_every = gpu_test_env("GPUSHIM_BENCH_SYNC_EVERY", 256);
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    if (!bench_gpu_ready("overhead"))
        return BENCH_SKIP;
    resolve_direct();

    memset(&o, 0, sizeof(o));
    o.bytes = gpu_test_env("GPUSHIM_OVERHEAD_BYTES", 64);
    BENCH_CHECK(gpu_stream_create_non_blocking(NULL, &o.self.stream));
    BENCH_CHECK(gpu_event_create(NULL, &o.self.event));
    BENCH_CHECK(gpu_buffer_create(NULL, o.bytes, &o.self.device));
    BENCH_CHECK(gpu_host_buffer_create(NULL, o.bytes, &o.host));
    o.self.empty = bench_function(KERNEL_EMPTY);
    o.raw_stream = gpu_stream_get_raw(o.self.stream);
    o.raw_event = gpu_event_get_raw(o.self.event);
    o.raw_function = gpu_function_get_raw(o.self.empty);
    o.host_data = gpu_host_buffer_get_data(o.host);
    o.self.host_data = o.host_data;
    o.device_ptr = gpu_buffer_get_device_ptr(o.self.device);
    /* Every object is device 0's primary context's, which gpushim left current on this thread. */
    o.f_stream = (struct floor_object){gpu_context_get_raw(gpu_buffer_get_context(o.self.device)), o.raw_stream, 0, 0};
    o.f_event = (struct floor_object){o.f_stream.ctx, o.raw_event, 0, 0};
    o.f_function = (struct floor_object){o.f_stream.ctx, o.raw_function, 0, 0};
    o.f_buffer = (struct floor_object){o.f_stream.ctx, NULL, o.device_ptr, o.bytes};
    floor_init(&direct, o.f_stream.ctx);
    memset(o.host_data, 0x5a, o.bytes);
    /* Complete, so that queries say "done"; gpushim left device 0's context current for the direct arm. */
    BENCH_CHECK(gpu_stream_record_event(o.self.stream, o.self.event));
    BENCH_CHECK(gpu_stream_synchronize(o.self.stream));
    o.other_api = load_other(&o.other, o.bytes);

    printf("overhead: driver %s; %u reps of %u calls an arm (timed in batches of %u), copies of %zu bytes; "
           "tracing %s\n",
           gpu_driver_get_report()->file, reps, calls, sync_every, o.bytes, trace_mode());
    printf("%-15s | %10s | %10s | %-22s | %7s | %8s | %8s | %8s | within %.0f ns\n", "call", "gpushim ns",
           "direct ns", "delta ns (min..max)", "ratio", "floor", "fl+TLS", "beyond", TARGET_NS);
    for (int op = 0; op < OPS; op++)
        measure((enum op)op, &o, reps);

    if (o.other_api)
        destroy_other(o.other_api, &o.other);
    gpu_host_buffer_destroy(o.host);
    gpu_buffer_destroy(o.self.device);
    gpu_event_destroy(o.self.event);
    gpu_stream_destroy(o.self.stream);
    return 0;
}
