/* SPDX-License-Identifier: MIT */
/*
 * Programs: CUDA C++ compiled by NVRTC, through the on-disk cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "private.h"
#include "program_disk.h"
#include "sys/driver/compiler.h"

#define DEFAULT_NAME "gpushim.cu"
/* The architectures NVRTC has ever known lie well inside this. */
#define ARCH_MIN 10
#define ARCH_MAX 1000

struct gpu_program {
    char *source;
    char *name;
    size_t header_count;
    char **header_names;
    char **header_sources;
    size_t expr_count;
    size_t expr_cap;
    char **exprs;
    bool attempted;
    /* Set by a successful compile or hit. */
    bool ready;
    unsigned char *output;
    size_t output_size;
    char *log;
    size_t log_size;
    char **lowered;
    gpu_cache_state cache_state;
    bool has_cache_path;
    char cache_path[PATH_MAX];
    char cache_warning[GPU__CACHE_WARNING_MAX];
};

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);

    if (c)
        memcpy(c, s, n);
    return c;
}

static void free_strings(char **list, size_t count)
{
    for (size_t i = 0; list && i < count; i++)
        free(list[i]);
    free(list);
}

void gpu_program_destroy(gpu_program *p)
{
    if (!p)
        return;
    free(p->source);
    free(p->name);
    free_strings(p->header_names, p->header_count);
    free_strings(p->header_sources, p->header_count);
    free_strings(p->exprs, p->expr_count);
    free_strings(p->lowered, p->expr_count);
    free(p->output);
    free(p->log);
    free(p);
}

gpu_status gpu_program_create(const char *source, const char *name, const gpu_program_header *headers,
                              size_t header_count, gpu_program **out)
{
    gpu_program *p;

    GPU__NOT_NULL(out, source);
    if (header_count && !headers)
        return GPU__INVALID("headers is NULL with a header count above 0");
    if (header_count > 65536)
        return GPU__INVALID("more than 65536 headers");
    for (size_t i = 0; i < header_count; i++)
        if (!headers[i].name || !headers[i].name[0] || !headers[i].source)
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_program_create: header %zu has %s", i,
                             !headers[i].source ? "no source" : "no name");
    p = calloc(1, sizeof(*p));
    if (!p)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_create: out of host memory");
    p->source = copy_string(source);
    p->name = copy_string(name && name[0] ? name : DEFAULT_NAME);
    p->header_names = calloc(header_count ? header_count : 1, sizeof(char *));
    p->header_sources = calloc(header_count ? header_count : 1, sizeof(char *));
    p->header_count = header_count;
    p->log = copy_string("");
    if (!p->source || !p->name || !p->header_names || !p->header_sources || !p->log) {
        gpu_program_destroy(p);
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_create: out of host memory");
    }
    for (size_t i = 0; i < header_count; i++) {
        p->header_names[i] = copy_string(headers[i].name);
        p->header_sources[i] = copy_string(headers[i].source);
        if (!p->header_names[i] || !p->header_sources[i]) {
            gpu_program_destroy(p);
            return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_create: out of host memory");
        }
    }
    *out = p;
    return GPU_OK;
}

gpu_status gpu_program_add_name_expression(gpu_program *p, const char *expression)
{
    char *copy;

    if (!p || !expression || !expression[0])
        return GPU__INVALID(!p ? "program is NULL" : !expression ? "expression is NULL" : "expression is empty");
    if (p->attempted)
        return GPU__INVALID("the program has been compiled already");
    if (p->expr_count == p->expr_cap) {
        size_t cap = p->expr_cap ? p->expr_cap * 2 : 4;
        char **grown = realloc(p->exprs, cap * sizeof(*grown));

        if (!grown)
            return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_add_name_expression: out of host memory");
        p->exprs = grown;
        p->expr_cap = cap;
    }
    copy = copy_string(expression);
    if (!copy)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_add_name_expression: out of host memory");
    p->exprs[p->expr_count++] = copy;
    return GPU_OK;
}

static bool names_arch(const char *o)
{
    static const char *const prefixes[] = {"-arch", "--gpu-architecture", "--gpu-name"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        size_t n = strlen(prefixes[i]);

        if (strncmp(o, prefixes[i], n) == 0 && (o[n] == '\0' || o[n] == '='))
            return true;
    }
    return false;
}

static gpu_status check_options(const gpu_compile_options *o)
{
    if (o->target != GPU_COMPILE_CUBIN && o->target != GPU_COMPILE_PTX)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_program_compile: target %d is neither cubin nor PTX",
                         (int)o->target);
    if (o->arch != 0 && (o->arch < ARCH_MIN || o->arch > ARCH_MAX))
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_program_compile: arch %d is not 10 * major + minor", o->arch);
    if (o->option_count && !o->options)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_program_compile: %s", "options is NULL with an option count above 0");
    if (o->option_count > 4096)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_program_compile: %s", "more than 4096 options");
    for (size_t i = 0; i < o->option_count; i++) {
        if (!o->options[i])
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_program_compile: option %zu is NULL", i);
        if (names_arch(o->options[i]))
            return gpu__fail(GPU_ERR_INVALID_ARG, 0,
                             "gpu_program_compile: option \"%s\" names an architecture; set options.arch instead",
                             o->options[i]);
    }
    return GPU_OK;
}

/* The compute capability of ctx's device, as 10 * major + minor. */
static gpu_status device_arch(gpu_context *ctx, int *arch)
{
    const struct gpu__driver *drv;
    gpu_device_info info;
    gpu_status st = gpu__context_resolve(ctx, &drv, &ctx);

    if (st == GPU_OK)
        st = gpu_device_get_info(ctx->ordinal, &info);
    if (st == GPU_OK)
        *arch = info.compute_major * 10 + info.compute_minor;
    return st;
}

static void hash_string(struct gpu__hash *h, const char *s)
{
    gpu__hash_field(h, s, strlen(s));
}

/* Everything that changes what NVRTC makes of the program. */
static void program_key(const gpu_program *p, const struct gpu__nvrtc *nv, const gpu_compile_options *o,
                        const char *arch_option, struct gpu__hash *key)
{
    uint64_t counts[3] = {p->header_count, o->option_count, p->expr_count};
    int numbers[3] = {nv->major, nv->minor, (int)o->target};

    gpu__hash_init(key);
    hash_string(key, "gpushim program cache 1");
    gpu__hash_field(key, numbers, sizeof(numbers));
    gpu__hash_field(key, &nv->file_size, sizeof(nv->file_size));
    hash_string(key, arch_option);
    hash_string(key, p->name);
    hash_string(key, p->source);
    gpu__hash_field(key, counts, sizeof(counts));
    for (size_t i = 0; i < p->header_count; i++) {
        hash_string(key, p->header_names[i]);
        hash_string(key, p->header_sources[i]);
    }
    for (size_t i = 0; i < o->option_count; i++)
        hash_string(key, o->options[i]);
    for (size_t i = 0; i < p->expr_count; i++)
        hash_string(key, p->exprs[i]);
}

static void take_entry(gpu_program *p, struct gpu__cache_entry *e)
{
    p->output = e->output;
    p->output_size = e->output_size;
    free(p->log);
    p->log = e->log;
    p->log_size = e->log_size;
    p->lowered = e->lowered;
    memset(e, 0, sizeof(*e));
    p->ready = true;
}

/* Copies the program's log out of NVRTC; an empty log on failure. */
static gpu_status read_log(const struct gpu__nvrtc *nv, nvrtcabi_program prog, struct gpu__cache_entry *e)
{
    size_t size = 0;
    gpu_status st = GPU__NVRTC_CALL(nv, nvrtcGetProgramLogSize, GPU_ERR_COMPILE, prog, &size);

    if (st != GPU_OK)
        return st;
    e->log = calloc(size + 1, 1);
    if (!e->log)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_compile: out of host memory");
    if (size > 0) {
        st = GPU__NVRTC_CALL(nv, nvrtcGetProgramLog, GPU_ERR_COMPILE, prog, e->log);
        if (st != GPU_OK)
            return st;
    }
    e->log_size = strlen(e->log);
    return GPU_OK;
}

static gpu_status read_output(const struct gpu__nvrtc *nv, nvrtcabi_program prog, gpu_compile_target target,
                              struct gpu__cache_entry *e)
{
    size_t size = 0;
    gpu_status st;

    if (target == GPU_COMPILE_PTX)
        st = GPU__NVRTC_CALL(nv, nvrtcGetPTXSize, GPU_ERR_COMPILE, prog, &size);
    else
        st = GPU__NVRTC_CALL(nv, nvrtcGetCUBINSize, GPU_ERR_COMPILE, prog, &size);
    if (st != GPU_OK)
        return st;
    if (size == 0)
        return gpu__fail(GPU_ERR_COMPILE, 0, "gpu_program_compile: NVRTC returned an empty %s",
                         target == GPU_COMPILE_PTX ? "PTX" : "cubin");
    e->output = malloc(size);
    if (!e->output)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_compile: out of host memory");
    e->output_size = size;
    if (target == GPU_COMPILE_PTX)
        return GPU__NVRTC_CALL(nv, nvrtcGetPTX, GPU_ERR_COMPILE, prog, (char *)e->output);
    return GPU__NVRTC_CALL(nv, nvrtcGetCUBIN, GPU_ERR_COMPILE, prog, (char *)e->output);
}

static gpu_status read_lowered(const struct gpu__nvrtc *nv, nvrtcabi_program prog, const gpu_program *p,
                               struct gpu__cache_entry *e)
{
    e->lowered = calloc(p->expr_count ? p->expr_count : 1, sizeof(char *));
    if (!e->lowered)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_compile: out of host memory");
    e->name_count = p->expr_count;
    for (size_t i = 0; i < p->expr_count; i++) {
        const char *lowered = NULL;
        nvrtcabi_result rc = nv->nvrtcGetLoweredName(prog, p->exprs[i], &lowered);

        if (rc == NVRTCABI_SUCCESS && (!lowered || !lowered[0]))
            return gpu__fail(GPU_ERR_COMPILE, 0, "nvrtcGetLoweredName: no name for \"%s\"", p->exprs[i]);
        if (rc != NVRTCABI_SUCCESS)
            return gpu__nvrtc_check(nv, rc, GPU_ERR_COMPILE, "nvrtcGetLoweredName", p->exprs[i]);
        e->lowered[i] = copy_string(lowered);
        if (!e->lowered[i])
            return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_compile: out of host memory");
    }
    return GPU_OK;
}

/* NVRTC proper: create, name, compile, read back, destroy. */
static gpu_status nvrtc_compile(const struct gpu__nvrtc *nv, gpu_program *p, const gpu_compile_options *o,
                                const char *arch_option, struct gpu__cache_entry *e)
{
    nvrtcabi_program prog = NULL;
    const char **options;
    nvrtcabi_result rc;
    gpu_status st;

    options = malloc((o->option_count + 1) * sizeof(*options));
    if (!options)
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_compile: out of host memory");
    for (size_t i = 0; i < o->option_count; i++)
        options[i] = o->options[i];
    options[o->option_count] = arch_option;
    st = GPU__NVRTC_CALL(nv, nvrtcCreateProgram, GPU_ERR_COMPILE, &prog, p->source, p->name, (int)p->header_count,
                         (const char *const *)p->header_sources, (const char *const *)p->header_names);
    for (size_t i = 0; st == GPU_OK && i < p->expr_count; i++)
        st = gpu__nvrtc_check(nv, nv->nvrtcAddNameExpression(prog, p->exprs[i]), GPU_ERR_COMPILE,
                              "nvrtcAddNameExpression", p->exprs[i]);
    if (st == GPU_OK) {
        rc = nv->nvrtcCompileProgram(prog, (int)o->option_count + 1, options);
        st = read_log(nv, prog, e);
        if (rc != NVRTCABI_SUCCESS) {
            /* The log is the program's even when the compile failed. */
            if (st == GPU_OK) {
                free(p->log);
                p->log = e->log;
                p->log_size = e->log_size;
                e->log = NULL;
            }
            st = gpu__nvrtc_check(nv, rc, GPU_ERR_COMPILE, "nvrtcCompileProgram", p->log);
        }
    }
    if (st == GPU_OK)
        st = read_output(nv, prog, o->target, e);
    if (st == GPU_OK)
        st = read_lowered(nv, prog, p, e);
    if (prog)
        nv->nvrtcDestroyProgram(&prog);
    free(options);
    return st;
}

/* Appends `s` to the warning in `buf`, "; " between them, cut to fit. */
static void append_warning(char *buf, size_t size, const char *s)
{
    size_t used = strlen(buf);

    if (!s[0])
        return;
    if (used && used + 2 < size) {
        memcpy(buf + used, "; ", 3);
        used += 2;
    }
    if (used + 1 < size) {
        size_t n = strlen(s);

        n = n < size - used - 1 ? n : size - used - 1;
        memcpy(buf + used, s, n);
        buf[used + n] = '\0';
    }
}

gpu_status gpu_program_compile(gpu_program *p, gpu_context *ctx, const gpu_compile_options *options)
{
    static const gpu_compile_options defaults;
    const gpu_compile_options *o = options ? options : &defaults;
    const struct gpu__nvrtc *nv;
    struct gpu__cache cache = {.dirfd = -1};
    struct gpu__cache_entry e = {0};
    struct gpu__hash key;
    char arch_option[64];
    char bad[GPU__CACHE_WARNING_MAX] = "";
    gpu__cache_lookup found = GPU__CACHE_ABSENT;
    gpu__disk_use disk = GPU__DISK_NONE;
    int arch = o->arch;
    gpu_status st;

    if (!p)
        return GPU__INVALID("program is NULL");
    if (p->attempted)
        return GPU__INVALID("the program has been compiled already");
    st = check_options(o);
    if (st != GPU_OK)
        return st;
    st = gpu__nvrtc_get(&nv);
    if (st != GPU_OK)
        return st;
    if (o->target == GPU_COMPILE_CUBIN && (!nv->nvrtcGetCUBINSize || !nv->nvrtcGetCUBIN))
        return gpu__fail(GPU_ERR_NOT_SUPPORTED, 0,
                         "gpu_program_compile: NVRTC %d.%d has no nvrtcGetCUBIN (since 11.1): ask for PTX", nv->major,
                         nv->minor);
    if (arch == 0) {
        st = device_arch(ctx, &arch);
        if (st != GPU_OK)
            return st;
    }
    snprintf(arch_option, sizeof(arch_option), "--gpu-architecture=%s_%d",
             o->target == GPU_COMPILE_PTX ? "compute" : "sm", arch);
    p->cache_warning[0] = '\0';
    p->cache_state = GPU_CACHE_OFF;
    if (!o->no_cache) {
        /* Never stale: a compile that reads files the key cannot cover is not cached at all. */
        gpu__program_headers h = {p->header_count, (const char *const *)p->header_names,
                                  (const char *const *)p->header_sources};
        char why[GPU__CACHE_WARNING_MAX / 2];

        disk = gpu__program_reads_disk(p->source, &h, o->options, o->option_count, why, sizeof(why));
        if (disk == GPU__DISK_NO_MEMORY)
            return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_compile: out of host memory");
        if (disk == GPU__DISK_READ)
            snprintf(p->cache_warning, sizeof(p->cache_warning),
                     "cache skipped: %s; the cache key cannot cover it, so this program is compiled every time", why);
    }
    p->attempted = true;

    program_key(p, nv, o, arch_option, &key);
    if (!o->no_cache && disk == GPU__DISK_NONE &&
        gpu__cache_open(&cache, &key, p->cache_warning, sizeof(p->cache_warning))) {
        snprintf(p->cache_path, sizeof(p->cache_path), "%s", cache.path);
        p->has_cache_path = true;
        found = gpu__cache_read(&cache, p->expr_count, &e, bad, sizeof(bad));
        if (found == GPU__CACHE_FOUND) {
            gpu__cache_close(&cache);
            take_entry(p, &e);
            p->cache_state = GPU_CACHE_HIT;
            return GPU_OK;
        }
        if (found == GPU__CACHE_NO_MEMORY) {
            gpu__cache_close(&cache);
            return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_program_compile: out of host memory");
        }
    }
    st = nvrtc_compile(nv, p, o, arch_option, &e);
    if (st != GPU_OK) {
        gpu__cache_close(&cache);
        gpu__cache_entry_free(&e);
        return st;
    }
    if (cache.on) {
        char wrote[GPU__CACHE_WARNING_MAX] = "";
        bool stored = gpu__cache_write(&cache, &e, wrote, sizeof(wrote));

        p->cache_state = stored && found == GPU__CACHE_BAD ? GPU_CACHE_REPLACED : GPU_CACHE_MISS;
        /* Every reason at once: what open said, why the old entry went, why the new one could not be stored. */
        append_warning(p->cache_warning, sizeof(p->cache_warning), bad);
        append_warning(p->cache_warning, sizeof(p->cache_warning), wrote);
    }
    gpu__cache_close(&cache);
    take_entry(p, &e);
    return GPU_OK;
}

gpu_status gpu_program_get_output(const gpu_program *p, const void **data, size_t *size)
{
    if (!p || !data || !size)
        return GPU__INVALID(!p ? "program is NULL" : !data ? "data is NULL" : "size is NULL");
    if (!p->ready)
        return GPU__INVALID("the program has not compiled");
    *data = p->output;
    *size = p->output_size;
    return GPU_OK;
}

gpu_status gpu_program_get_log(const gpu_program *p, const char **log, size_t *size)
{
    if (!p || !log)
        return GPU__INVALID(!p ? "program is NULL" : "log is NULL");
    *log = p->log;
    if (size)
        *size = p->log_size;
    return GPU_OK;
}

gpu_status gpu_program_get_lowered_name(const gpu_program *p, const char *expression, const char **out)
{
    if (!p || !expression || !out)
        return GPU__INVALID(!p ? "program is NULL" : !expression ? "expression is NULL" : "out is NULL");
    if (!p->ready)
        return GPU__INVALID("the program has not compiled");
    for (size_t i = 0; i < p->expr_count; i++)
        if (strcmp(p->exprs[i], expression) == 0) {
            *out = p->lowered[i];
            return GPU_OK;
        }
    return gpu__fail(GPU_ERR_FUNCTION_NOT_FOUND, 0,
                     "gpu_program_get_lowered_name: \"%s\" was not added with gpu_program_add_name_expression",
                     expression);
}

gpu_cache_state gpu_program_get_cache_state(const gpu_program *p)
{
    return p ? p->cache_state : GPU_CACHE_OFF;
}

const char *gpu_program_get_cache_path(const gpu_program *p)
{
    return p && p->has_cache_path ? p->cache_path : NULL;
}

const char *gpu_program_get_cache_warning(const gpu_program *p)
{
    return p && p->cache_warning[0] ? p->cache_warning : NULL;
}

gpu_status gpu_program_load_module(const gpu_program *p, gpu_context *ctx, gpu_module **out)
{
    if (!p || !out)
        return GPU__INVALID(!p ? "program is NULL" : "out is NULL");
    if (!p->ready)
        return GPU__INVALID("the program has not compiled");
    return gpu_module_load_data(ctx, p->output, p->output_size, out);
}

gpu_status gpu_module_load_source(gpu_context *ctx, const char *source, const gpu_compile_options *options,
                                  gpu_module **out)
{
    gpu_program *p;
    gpu_status st;

    GPU__NOT_NULL(out, source);
    st = gpu_program_create(source, NULL, NULL, 0, &p);
    if (st != GPU_OK)
        return st;
    st = gpu_program_compile(p, ctx, options);
    if (st == GPU_OK)
        st = gpu_program_load_module(p, ctx, out);
    gpu_program_destroy(p);
    return st;
}
