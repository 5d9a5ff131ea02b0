/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's JIT linker over PTX: cuLinkCreate_v2, cuLinkAddData_v2,
 * cuLinkAddFile_v2, cuLinkComplete, cuLinkDestroy.
 *
 * Each input is checked when it is added, as ptxas compiles it then: read as
 * a module would be (fake_image.c) and decoded alone for the functions it
 * declares. cuLinkComplete resolves every function an input declares but
 * does not define against the others' definitions (the ones the driver gives
 * every program, vprintf and the like, need none), then writes the image:
 * the inputs' PTX one after another, one text that cuModuleLoadData reads
 * and the PTX interpreter runs as one module, where a declaration and a later
 * definition are one function. Where two inputs define the same function,
 * the first one's is run, unless it is .weak and a later one is not. Globals
 * several inputs define are resolved as the PTX ISA says (ptx_parse.c's
 * merge_globals): a .weak one gives way to one that is not, .common ones
 * become one of the largest size; a conflict between them refuses the link.
 *
 * The logs and the wall time go where cuLinkCreate's options say, whose
 * arrays the caller keeps valid until cuLinkDestroy, as the driver asks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_image.h"
#include "fake_module.h"
#include "ptx/ptx.h"

enum {
    LINK_INPUTS_MAX = 1024,
    LINK_TEXT_MAX = 256 << 20, /* bytes of PTX, all inputs together */
    LINK_NAME_MAX = 256,       /* of an input's name, as messages show it */
};

/* Where cuLinkCreate's options ask for a log: the buffer, its size, the slot that gets the bytes written. */
struct link_log {
    char *buffer;
    size_t size;
    int size_at; /* index in the option values; -1: none */
    char text[FAKE_LOG_MAX];
};

struct link_input {
    char name[LINK_NAME_MAX];
    struct ptx_module *ptx; /* decoded alone: what it declares */
};

struct fake_link {
    struct fake_link *next_live;
    struct fake_ctx *ctx;
    void **values;       /* cuLinkCreate's option values: the sizes and the wall time are written back there */
    int wall_at;         /* CU_JIT_WALL_TIME's index, or -1 */
    unsigned max_regs;   /* CU_JIT_MAX_REGISTERS's, or 0 */
    struct link_log info, error;
    double wall_ms;
    char *text; /* the inputs' PTX, one after another */
    size_t len;
    struct link_input *inputs;
    size_t ninputs;
    char *image; /* cuLinkComplete's, valid until cuLinkDestroy */
};

static struct fake_link *links;

static struct fake_link *link_find(cuabi_link_state handle)
{
    for (struct fake_link *l = links; l; l = l->next_live)
        if ((void *)l == (void *)handle)
            return l;
    return NULL;
}

/* ---- Logs and the wall time ---- */

static void log_setup(struct link_log *log, unsigned n, const cuabi_jit_option *options, void **values,
                      unsigned buffer_opt, unsigned size_opt)
{
    log->size_at = -1;
    for (unsigned i = 0; i < n; i++) {
        if (options[i] == buffer_opt)
            log->buffer = values[i];
        if (options[i] == size_opt) {
            log->size = (size_t)(uintptr_t)values[i];
            log->size_at = (int)i;
        }
    }
}

/* Appends a line to the log, and writes the whole log where the caller asked for it. */
static void log_line(struct fake_link *l, struct link_log *log, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void log_line(struct fake_link *l, struct link_log *log, const char *fmt, ...)
{
    size_t used = strlen(log->text);
    va_list ap;

    if (used && used + 1 < sizeof(log->text))
        log->text[used++] = '\n';
    va_start(ap, fmt);
    vsnprintf(log->text + used, sizeof(log->text) - used, fmt, ap);
    va_end(ap);
    if (!log->buffer || log->size == 0)
        return;
    snprintf(log->buffer, log->size, "%s", log->text);
    if (log->size_at >= 0)
        l->values[log->size_at] = (void *)(uintptr_t)(strlen(log->buffer) + 1);
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Adds the time since `start` to the link's and writes it into CU_JIT_WALL_TIME's slot, a float as the driver does. */
static void wall_add(struct fake_link *l, double start)
{
    float ms;

    l->wall_ms += now_ms() - start;
    ms = (float)l->wall_ms;
    if (l->wall_at >= 0)
        memcpy(&l->values[l->wall_at], &ms, sizeof(ms));
}

/* ---- Create and destroy ---- */

cuabi_result cuLinkCreate_v2(unsigned int num_options, cuabi_jit_option *options, void **option_values,
                             cuabi_link_state *state)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLinkCreate_v2, true);
    struct fake_ctx *c = NULL;
    struct fake_link *l = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && !state)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_jit_options_check(num_options, options, option_values);
    if (rc == CUABI_SUCCESS && !(l = calloc(1, sizeof(*l))))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        l->ctx = c;
        l->values = option_values;
        l->wall_at = -1;
        l->max_regs = fake_jit_max_registers(num_options, options, option_values);
        for (unsigned i = 0; i < num_options; i++)
            if (options[i] == CUABI_JIT_WALL_TIME)
                l->wall_at = (int)i;
        log_setup(&l->info, num_options, options, option_values, CUABI_JIT_INFO_LOG_BUFFER,
                  CUABI_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
        log_setup(&l->error, num_options, options, option_values, CUABI_JIT_ERROR_LOG_BUFFER,
                  CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
        l->next_live = links;
        links = l;
        fake.live[GPU_FAKE_LIVE_LINKS]++;
        *state = (cuabi_link_state)(void *)l;
    }
    return fake_end(rc);
}

static void link_free(struct fake_link *l)
{
    struct fake_link **p = &links;

    while (*p != l)
        p = &(*p)->next_live;
    *p = l->next_live;
    for (size_t i = 0; i < l->ninputs; i++)
        ptx_module_release(l->inputs[i].ptx);
    free(l->inputs);
    free(l->text);
    free(l->image);
    free(l);
    fake.live[GPU_FAKE_LIVE_LINKS]--;
}

cuabi_result cuLinkDestroy(cuabi_link_state state)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLinkDestroy, true);
    struct fake_link *l = rc == CUABI_SUCCESS ? link_find(state) : NULL;

    if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        link_free(l);
    return fake_end(rc);
}

/* ---- Inputs ---- */

/*
 * The PTX of an input of that type and `size` bytes into *text; else the
 * reason in `why`. Its bytes are only bytes: PTX is read as PTX, and a
 * fatbin wrapper's pointer is not followed.
 */
static cuabi_result input_ptx(cuabi_jit_input_type type, const void *data, size_t size, char **text, char *why,
                              size_t why_size)
{
    cuabi_result rc;

    switch (type) {
    case CUABI_JIT_INPUT_PTX:
        *text = strndup(data, size);
        return *text ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;
    case CUABI_JIT_INPUT_FATBINARY:
        return fake_image_ptx(data, size, FAKE_IMAGE_BYTES, text, why, why_size);
    case CUABI_JIT_INPUT_CUBIN:
        rc = fake_image_ptx(data, size, FAKE_IMAGE_BYTES, text, why, why_size);
        if (rc != CUABI_SUCCESS)
            return rc;
        free(*text);
        *text = NULL;
        snprintf(why, why_size, "an input of type CU_JIT_INPUT_CUBIN that is no ELF file");
        return CUABI_ERROR_INVALID_IMAGE;
    case CUABI_JIT_INPUT_OBJECT:
    case CUABI_JIT_INPUT_LIBRARY:
        snprintf(why, why_size,
                 "not supported by the fake: a host object or library holds device machine code; link PTX "
                 "(nvcc -rdc=true --ptx) or fatbins with PTX (nvcc -rdc=true -fatbin --no-compress "
                 "-gencode arch=compute_XX,code=compute_XX)");
        return CUABI_ERROR_NOT_SUPPORTED;
    case CUABI_JIT_INPUT_NVVM:
        snprintf(why, why_size, "not supported by the fake: NVVM IR needs libNVVM; link PTX (nvcc -rdc=true --ptx)");
        return CUABI_ERROR_NOT_SUPPORTED;
    default:
        snprintf(why, why_size, "no CUjitInputType %u", type);
        return CUABI_ERROR_INVALID_VALUE;
    }
}

/* Checks one input's PTX as ptxas would, and decodes it for what it declares. */
static cuabi_result input_check(struct fake_link *l, const char *text, struct ptx_module **ptx, char *why,
                                size_t why_size)
{
    struct fake_module *probe = NULL;
    cuabi_result rc = fake_module_new(text, l->ctx, NULL, true, why, why_size, &probe);

    if (rc != CUABI_SUCCESS)
        return rc;
    fake_module_free(probe);
    *ptx = ptx_module_decode(text);
    return *ptx ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;
}

/* Appends a checked input's text to the link's, behind a comment naming it. */
static cuabi_result input_append(struct fake_link *l, const char *name, const char *text, struct ptx_module *ptx)
{
    size_t len = strlen(text), head = strlen(name) + 32;
    struct link_input *in;
    char *t;

    if (l->ninputs == LINK_INPUTS_MAX || len > LINK_TEXT_MAX - l->len - head)
        return CUABI_ERROR_INVALID_VALUE;
    if (!(t = realloc(l->text, l->len + head + len + 2)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    l->text = t;
    if (!(in = realloc(l->inputs, (l->ninputs + 1) * sizeof(*in))))
        return CUABI_ERROR_OUT_OF_MEMORY;
    l->inputs = in;
    in = &l->inputs[l->ninputs++];
    snprintf(in->name, sizeof(in->name), "%s", name);
    in->ptx = ptx;
    l->len += (size_t)snprintf(l->text + l->len, head, "\n// input: %.200s\n", in->name);
    memcpy(l->text + l->len, text, len + 1);
    l->len += len;
    return CUABI_SUCCESS;
}

/* What cuLinkAddData_v2 and cuLinkAddFile_v2 share, their begin done (`rc`). */
static cuabi_result link_add(cuabi_result rc, cuabi_link_state state, cuabi_jit_input_type type, const void *data,
                             size_t size, const char *name, unsigned n, cuabi_jit_option *options, void **values)
{
    struct fake_link *l = rc == CUABI_SUCCESS ? link_find(state) : NULL;
    struct ptx_module *ptx = NULL;
    char *text = NULL, why[FAKE_LOG_MAX] = "";
    double start = now_ms();

    if (rc != CUABI_SUCCESS)
        return rc;
    if (!l)
        return CUABI_ERROR_INVALID_HANDLE;
    if (!data || size == 0 || (rc = fake_jit_options_check(n, options, values)) != CUABI_SUCCESS)
        return rc != CUABI_SUCCESS ? rc : CUABI_ERROR_INVALID_VALUE;
    name = name && name[0] ? name : "(unnamed)";
    rc = input_ptx(type, data, size, &text, why, sizeof(why));
    if (rc == CUABI_SUCCESS)
        rc = input_check(l, text, &ptx, why, sizeof(why));
    if (rc == CUABI_SUCCESS && (rc = input_append(l, name, text, ptx)) != CUABI_SUCCESS)
        ptx_module_release(ptx);
    free(text);
    if (rc == CUABI_SUCCESS)
        log_line(l, &l->info, "fake ptxas info: %s: read", name);
    else if (why[0])
        log_line(l, &l->error, "fake ptxas error: %s: %s", name, why);
    if (rc != CUABI_SUCCESS && why[0])
        fake_module_note_set(rc, l->error.text);
    wall_add(l, start);
    return rc;
}

cuabi_result cuLinkAddData_v2(cuabi_link_state state, cuabi_jit_input_type type, void *data, size_t size,
                              const char *name, unsigned int num_options, cuabi_jit_option *options,
                              void **option_values)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLinkAddData_v2, true);

    return fake_end(link_add(rc, state, type, data, size, name, num_options, options, option_values));
}

cuabi_result cuLinkAddFile_v2(cuabi_link_state state, cuabi_jit_input_type type, const char *path,
                              unsigned int num_options, cuabi_jit_option *options, void **option_values)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLinkAddFile_v2, true);
    char *bytes = NULL;
    size_t size = 0;

    if (rc == CUABI_SUCCESS && !link_find(state))
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS && !path)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_module_file_read("cuLinkAddFile", path, &bytes, &size);
    /* A file refused (a link among others) is told in the error log too. */
    if (rc == CUABI_ERROR_INVALID_VALUE && fake_module_note(rc))
        log_line(link_find(state), &link_find(state)->error, "fake ptxas error: %s", fake_module_note(rc));
    if (rc == CUABI_SUCCESS)
        rc = link_add(rc, state, type, bytes, size, path, num_options, options, option_values);
    free(bytes);
    return fake_end(rc);
}

/* ---- Completion ---- */

/* Whether the linked module defines function NAME. */
static bool linked_defines(const struct ptx_module *all, const char *name)
{
    struct ptx_function_info f;

    for (size_t i = 0; ptx_module_function(all, i, &f); i++)
        if (f.defined && f.name && strcmp(f.name, name) == 0)
            return true;
    return false;
}

/* Logs every function an input declares that no input defines; false if there is one. */
static bool resolve(struct fake_link *l, const struct ptx_module *all)
{
    bool ok = true;

    for (size_t k = 0; k < l->ninputs; k++) {
        struct ptx_function_info f;

        for (size_t i = 0; ptx_module_function(l->inputs[k].ptx, i, &f); i++)
            if (f.name && !f.defined && !f.provided && !linked_defines(all, f.name)) {
                log_line(l, &l->error, "fake nvlink error: Undefined reference to '%s' in '%s'", f.name,
                         l->inputs[k].name);
                ok = false;
            }
    }
    return ok;
}

/*
 * The linked image, its size (with the NUL) in *bytes: the inputs' text, and
 * with CU_JIT_MAX_REGISTERS a `.fake_max_registers` line at its end, which
 * the module reader holds every function's registers to.
 */
static char *link_image(const struct fake_link *l, size_t *bytes)
{
    char line[48];
    int n;
    char *image;

    if (!l->max_regs || l->max_regs >= 255) {
        *bytes = l->len + 1;
        return strdup(l->text);
    }
    n = snprintf(line, sizeof(line), "\n.fake_max_registers %u\n", l->max_regs);
    *bytes = l->len + (size_t)n + 1;
    if (!(image = malloc(*bytes)))
        return NULL;
    memcpy(image, l->text, l->len);
    memcpy(image + l->len, line, (size_t)n + 1);
    return image;
}

static cuabi_result link_complete(struct fake_link *l, void **image, size_t *size)
{
    struct ptx_module *all;
    size_t bytes;
    bool ok;

    if (l->ninputs == 0) {
        log_line(l, &l->error, "fake nvlink error: no input to link");
        return CUABI_ERROR_INVALID_VALUE;
    }
    if (!(all = ptx_module_decode(l->text)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    /* Each input was read alone: what the text refuses now is how they go together (their globals). */
    if (ptx_module_error(all)) {
        log_line(l, &l->error, "fake nvlink error: %s", ptx_module_error(all));
        ptx_module_release(all);
        fake_module_note_set(CUABI_ERROR_INVALID_PTX, l->error.text);
        return CUABI_ERROR_INVALID_PTX;
    }
    ok = resolve(l, all);
    ptx_module_release(all);
    if (!ok) {
        fake_module_note_set(CUABI_ERROR_INVALID_PTX, l->error.text);
        return CUABI_ERROR_INVALID_PTX;
    }
    free(l->image);
    if (!(l->image = link_image(l, &bytes)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    log_line(l, &l->info, "fake nvlink info: %zu input(s) linked into one image of %zu bytes", l->ninputs, bytes);
    *image = l->image;
    *size = bytes;
    return CUABI_SUCCESS;
}

cuabi_result cuLinkComplete(cuabi_link_state state, void **image, size_t *size)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLinkComplete, true);
    struct fake_link *l = rc == CUABI_SUCCESS ? link_find(state) : NULL;
    double start = now_ms();

    if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS && (!image || !size))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        rc = link_complete(l, image, size);
        wall_add(l, start);
    }
    return fake_end(rc);
}
