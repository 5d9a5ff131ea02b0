/* SPDX-License-Identifier: MIT */
/*
 * A fake libnvrtc for the tests (tests/nvrtc): NVRTC's entry points (prototypes from
 * src/sys/driver/nvrtc_entry_points.h), with a "compiler" that writes a PTX-like
 * text naming the architecture, the options, the headers and a kernel per
 * name expression. Read at every call, from the environment:
 *
 *   FAKE_NVRTC_VERSION  "major.minor" nvrtcVersion reports (default 12.4)
 *   FAKE_NVRTC_FAIL     an entry point's name: it returns NVRTC_ERROR_INTERNAL_ERROR
 *   FAKE_NVRTC_BUILTINS "0": compiles need no libnvrtc-builtins.so.M.m (default:
 *                       like NVRTC, a compile dlopens it by name and fails without it)
 *   FAKE_NVRTC_DELAY_MS each compile takes this long
 *
 * A source holding "#error" fails to compile, with a log naming the line;
 * one holding "#warning" compiles with a warning in the log.
 * fake_nvrtc_compile_count() says how many compiles ran in this process.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvrtc_abi.h"

#define EXPORT __attribute__((visibility("default")))

/* Every entry point gpushim uses, with the very prototype gpushim declares. */
#define GPU__NVRTC_ENTRY(need, ret, name, params) EXPORT ret name params;
#include "nvrtc_entry_points.h"
#undef GPU__NVRTC_ENTRY

EXPORT int fake_nvrtc_compile_count(void);

enum { MAX_NAMES = 64 };

struct nvrtcabi_program_st {
    char *source;
    char *name;
    int header_count;
    char **header_names;
    char *log;
    char *output;
    size_t output_size;
    bool compiled;
    int name_count;
    char *exprs[MAX_NAMES];
    char *lowered[MAX_NAMES];
};

static atomic_int compiles;

int fake_nvrtc_compile_count(void)
{
    return atomic_load(&compiles);
}

static bool failing(const char *fn)
{
    const char *f = getenv("FAKE_NVRTC_FAIL");

    return f && strcmp(f, fn) == 0;
}

#define FAIL_IF_ASKED() \
    do { \
        if (failing(__func__)) \
            return NVRTCABI_ERROR_INTERNAL_ERROR; \
    } while (0)

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);

    if (c)
        memcpy(c, s, n);
    return c;
}

const char *nvrtcGetErrorString(nvrtcabi_result result)
{
    switch (result) {
    case NVRTCABI_SUCCESS:
        return "NVRTC_SUCCESS";
    case NVRTCABI_ERROR_COMPILATION:
        return "NVRTC_ERROR_COMPILATION";
    case NVRTCABI_ERROR_BUILTIN_OPERATION_FAILURE:
        return "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE";
    case NVRTCABI_ERROR_INTERNAL_ERROR:
        return "NVRTC_ERROR_INTERNAL_ERROR";
    default:
        return "NVRTC_ERROR (fake)";
    }
}

static void version(int *major, int *minor)
{
    const char *v = getenv("FAKE_NVRTC_VERSION");

    *major = 12;
    *minor = 4;
    if (v)
        sscanf(v, "%d.%d", major, minor);
}

nvrtcabi_result nvrtcVersion(int *major, int *minor)
{
    FAIL_IF_ASKED();
    if (!major || !minor)
        return NVRTCABI_ERROR_INVALID_INPUT;
    version(major, minor);
    return NVRTCABI_SUCCESS;
}

static const int archs[] = {75, 80, 86, 89, 90};

nvrtcabi_result nvrtcGetNumSupportedArchs(int *count)
{
    FAIL_IF_ASKED();
    *count = (int)(sizeof(archs) / sizeof(archs[0]));
    return NVRTCABI_SUCCESS;
}

nvrtcabi_result nvrtcGetSupportedArchs(int *out)
{
    FAIL_IF_ASKED();
    memcpy(out, archs, sizeof(archs));
    return NVRTCABI_SUCCESS;
}

nvrtcabi_result nvrtcCreateProgram(nvrtcabi_program *prog, const char *src, const char *name, int num_headers,
                                   const char *const *headers, const char *const *include_names)
{
    struct nvrtcabi_program_st *p;

    FAIL_IF_ASKED();
    if (!prog || !src || num_headers < 0 || (num_headers && (!headers || !include_names)))
        return NVRTCABI_ERROR_INVALID_INPUT;
    p = calloc(1, sizeof(*p));
    if (!p)
        return NVRTCABI_ERROR_OUT_OF_MEMORY;
    p->source = dup_string(src);
    p->name = dup_string(name ? name : "default_program");
    p->header_names = calloc((size_t)num_headers + 1, sizeof(char *));
    p->header_count = num_headers;
    for (int i = 0; i < num_headers; i++)
        p->header_names[i] = dup_string(include_names[i]);
    p->log = dup_string("");
    *prog = p;
    return NVRTCABI_SUCCESS;
}

nvrtcabi_result nvrtcDestroyProgram(nvrtcabi_program *prog)
{
    struct nvrtcabi_program_st *p;

    if (!prog || !*prog)
        return NVRTCABI_ERROR_INVALID_PROGRAM;
    p = *prog;
    free(p->source);
    free(p->name);
    for (int i = 0; i < p->header_count; i++)
        free(p->header_names[i]);
    free(p->header_names);
    free(p->log);
    free(p->output);
    for (int i = 0; i < p->name_count; i++) {
        free(p->exprs[i]);
        free(p->lowered[i]);
    }
    free(p);
    *prog = NULL;
    FAIL_IF_ASKED();
    return NVRTCABI_SUCCESS;
}

nvrtcabi_result nvrtcAddNameExpression(nvrtcabi_program p, const char *const expr)
{
    FAIL_IF_ASKED();
    if (!p || !expr || p->name_count == MAX_NAMES)
        return NVRTCABI_ERROR_INVALID_INPUT;
    if (p->compiled)
        return NVRTCABI_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
    p->exprs[p->name_count++] = dup_string(expr);
    return NVRTCABI_SUCCESS;
}

static void append(char **buf, size_t *len, const char *s)
{
    size_t n = strlen(s);
    char *grown = realloc(*buf, *len + n + 1);

    if (!grown)
        abort();
    memcpy(grown + *len, s, n + 1);
    *buf = grown;
    *len += n;
}

static void set_log(nvrtcabi_program p, const char *what, const char *arg, const char *tail)
{
    char line[512];

    snprintf(line, sizeof(line), "%s%s%s%s", p->name, what, arg, tail);
    free(p->log);
    p->log = dup_string(line);
}

nvrtcabi_result nvrtcCompileProgram(nvrtcabi_program p, int num_options, const char *const *options)
{
    const char *builtins = getenv("FAKE_NVRTC_BUILTINS");
    const char *delay = getenv("FAKE_NVRTC_DELAY_MS");
    const char *arch = "compute_52";
    char line[512];
    size_t len = 0;

    FAIL_IF_ASKED();
    if (!p || num_options < 0)
        return NVRTCABI_ERROR_INVALID_INPUT;
    atomic_fetch_add(&compiles, 1);
    if (delay) {
        long ms = atol(delay);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

        nanosleep(&ts, NULL);
    }
    if (!builtins || strcmp(builtins, "0") != 0) {
        int major, minor;
        char soname[64];

        /* As NVRTC does: by name, so only the system loader's folders, or one already loaded. */
        version(&major, &minor);
        snprintf(soname, sizeof(soname), "libnvrtc-builtins.so.%d.%d", major, minor);
        if (!dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
            set_log(p, ": could not load ", soname, "\n");
            return NVRTCABI_ERROR_BUILTIN_OPERATION_FAILURE;
        }
    }
    for (int i = 0; i < num_options; i++) {
        if (strncmp(options[i], "--gpu-architecture=", 19) == 0)
            arch = options[i] + 19;
        else if (options[i][0] != '-')
            return NVRTCABI_ERROR_INVALID_OPTION;
    }
    if (strstr(p->source, "#error")) {
        set_log(p, "(1): error: ", strstr(p->source, "#error"), "\n1 error detected in the compilation.\n");
        return NVRTCABI_ERROR_COMPILATION;
    }
    if (strstr(p->source, "#warning"))
        set_log(p, "(1): warning: ", strstr(p->source, "#warning"), "");
    p->output = NULL;
    if (strncmp(arch, "sm_", 3) == 0)
        append(&p->output, &len, "\177ELF fake cubin\n");
    snprintf(line, sizeof(line), "// fake PTX of %s\n.version 8.0\n.target %s\n", p->name, arch);
    append(&p->output, &len, line);
    for (int i = 0; i < num_options; i++) {
        snprintf(line, sizeof(line), "// option %s\n", options[i]);
        append(&p->output, &len, line);
    }
    for (int i = 0; i < p->header_count; i++) {
        snprintf(line, sizeof(line), "// header %s\n", p->header_names[i]);
        append(&p->output, &len, line);
    }
    for (int i = 0; i < p->name_count; i++) {
        char lowered[256] = "_Z4fake";
        size_t n = strlen(lowered);

        for (const char *c = p->exprs[i]; *c && n < sizeof(lowered) - 1; c++)
            lowered[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c : '_';
        lowered[n] = '\0';
        p->lowered[i] = dup_string(lowered);
        snprintf(line, sizeof(line), ".visible .entry %s()\n", lowered);
        append(&p->output, &len, line);
    }
    append(&p->output, &len, "// source:\n");
    append(&p->output, &len, p->source);
    p->output_size = len + 1;
    p->compiled = true;
    return NVRTCABI_SUCCESS;
}

static nvrtcabi_result get_size(nvrtcabi_program p, size_t *size, bool cubin)
{
    if (!p || !size)
        return NVRTCABI_ERROR_INVALID_INPUT;
    if (!p->compiled || (cubin && p->output[0] != '\177'))
        return NVRTCABI_ERROR_INVALID_PROGRAM;
    *size = p->output_size;
    return NVRTCABI_SUCCESS;
}

static nvrtcabi_result get_output(nvrtcabi_program p, char *out, bool cubin)
{
    size_t size;
    nvrtcabi_result rc = get_size(p, &size, cubin);

    if (rc == NVRTCABI_SUCCESS)
        memcpy(out, p->output, size);
    return rc;
}

nvrtcabi_result nvrtcGetPTXSize(nvrtcabi_program p, size_t *size)
{
    FAIL_IF_ASKED();
    return get_size(p, size, false);
}

nvrtcabi_result nvrtcGetPTX(nvrtcabi_program p, char *ptx)
{
    FAIL_IF_ASKED();
    return get_output(p, ptx, false);
}

nvrtcabi_result nvrtcGetCUBINSize(nvrtcabi_program p, size_t *size)
{
    FAIL_IF_ASKED();
    return get_size(p, size, true);
}

nvrtcabi_result nvrtcGetCUBIN(nvrtcabi_program p, char *cubin)
{
    FAIL_IF_ASKED();
    return get_output(p, cubin, true);
}

nvrtcabi_result nvrtcGetProgramLogSize(nvrtcabi_program p, size_t *size)
{
    FAIL_IF_ASKED();
    if (!p || !size)
        return NVRTCABI_ERROR_INVALID_INPUT;
    *size = strlen(p->log) + 1;
    return NVRTCABI_SUCCESS;
}

nvrtcabi_result nvrtcGetProgramLog(nvrtcabi_program p, char *log)
{
    FAIL_IF_ASKED();
    if (!p || !log)
        return NVRTCABI_ERROR_INVALID_INPUT;
    memcpy(log, p->log, strlen(p->log) + 1);
    return NVRTCABI_SUCCESS;
}

nvrtcabi_result nvrtcGetLoweredName(nvrtcabi_program p, const char *const expr, const char **lowered)
{
    FAIL_IF_ASKED();
    if (!p || !expr || !lowered)
        return NVRTCABI_ERROR_INVALID_INPUT;
    if (!p->compiled)
        return NVRTCABI_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
    for (int i = 0; i < p->name_count; i++)
        if (strcmp(p->exprs[i], expr) == 0) {
            *lowered = p->lowered[i];
            return NVRTCABI_SUCCESS;
        }
    return NVRTCABI_ERROR_NAME_EXPRESSION_NOT_VALID;
}
