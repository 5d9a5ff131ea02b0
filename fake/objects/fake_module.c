/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's modules, their functions and globals. A module's image is
 * read by fake_image.c: its functions are built-in kernels (`.fake_kernel`,
 * fake_builtin.c) and the entries its PTX declares, whose host
 * implementations fake_host_kernel.c runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_builtin.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_image.h"
#include "fake_memory.h"
#include "fake_module.h"
#include "fake_stream.h"
#include "ptx/ptx.h"

enum {
    MAX_MODULE_FUNCTIONS = 4096,
    MODULE_FILE_MAX = 256 << 20, /* bytes of a module file cuModuleLoad reads */
    GLOBAL_MAX = 1 << 20, /* bytes of one global */
};

/* ---- Functions, as fake_image.c reads them ---- */

static const char *function_name(const struct fake_function *f)
{
    return f->kernel ? f->kernel->name : f->layout->name;
}

static bool function_defined(const struct fake_module *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->count; i++)
        if (strlen(function_name(&m->functions[i])) == len && memcmp(function_name(&m->functions[i]), name, len) == 0)
            return true;
    return false;
}

/* A new, zeroed function of the module; NULL (and the log says why) when there is no room. */
static struct fake_function *function_add(struct fake_module *m, const char *name, size_t len, unsigned line,
                                          char *log, size_t log_size, cuabi_result *rc)
{
    struct fake_function *f;

    *rc = CUABI_ERROR_INVALID_PTX;
    if (function_defined(m, name, len)) {
        snprintf(log, log_size, "fake ptxas: line %u: \"%.*s\" is defined twice", line, (int)len, name);
        return NULL;
    }
    if (m->count == MAX_MODULE_FUNCTIONS) {
        snprintf(log, log_size, "fake ptxas: line %u: too many kernels", line);
        return NULL;
    }
    if (m->count == m->capacity) {
        size_t cap = m->capacity ? m->capacity * 2 : 8;

        if (!(f = realloc(m->functions, cap * sizeof(*f)))) {
            *rc = CUABI_ERROR_OUT_OF_MEMORY;
            return NULL;
        }
        m->functions = f;
        m->capacity = cap;
    }
    f = &m->functions[m->count++];
    memset(f, 0, sizeof(*f));
    f->module = m;
    fake_func_attrs_init(&f->attrs);
    *rc = CUABI_SUCCESS;
    return f;
}

/* Adds built-in kernel NAME (a `.fake_kernel` line) to the module; a log line on failure. */
static cuabi_result module_add_builtin(struct fake_module *m, const char *name, size_t len, unsigned line, char *log,
                                       size_t log_size)
{
    const struct fake_kernel *k = fake_builtin_find(name, len);
    struct fake_function *f;
    cuabi_result rc;

    if (!k) {
        snprintf(log, log_size, "fake ptxas: line %u: no built-in kernel \"%.*s\"", line, (int)len, name);
        return CUABI_ERROR_INVALID_PTX;
    }
    if ((f = function_add(m, name, len, line, log, log_size, &rc)))
        f->kernel = k;
    return rc;
}

/* What an entry's PTX fixes of its attributes; OUT_OF_MEMORY. An entry the interpreter could not read keeps the defaults. */
static cuabi_result entry_attrs(const struct fake_layout *l, struct fake_func_attrs *a)
{
    struct ptx_entry_usage u;
    cuabi_result rc = ptx_entry_usage(l->ptx, l->name, &u);

    if (l->max_threads)
        a->max_threads = l->max_threads;
    if (rc == CUABI_ERROR_NOT_FOUND)
        return CUABI_SUCCESS;
    if (rc != CUABI_SUCCESS)
        return rc;
    /* The registers its PTX declares, as many as ptxas could need: within what one thread may have. */
    a->regs = u.regs < 8 ? 8 : u.regs > 255 ? 255 : (int)u.regs;
    a->static_shared = u.shared_static;
    a->local = u.local;
    return CUABI_SUCCESS;
}

/* Adds an entry the module's PTX declares, taking `layout` (freed on failure too); a log line on failure. */
static cuabi_result module_add_entry(struct fake_module *m, struct fake_layout *layout, unsigned line, char *log,
                                     size_t log_size)
{
    cuabi_result rc;
    struct fake_function *f = function_add(m, layout->name, strlen(layout->name), line, log, log_size, &rc);

    if (f) {
        f->layout = layout;
        rc = entry_attrs(layout, &f->attrs);
    } else {
        fake_layout_free(layout);
    }
    return rc;
}

/* Frees a function's legacy launch state (fake_launch_legacy.c); NULL does nothing. */
static void legacy_launch_free(struct fake_legacy_launch *l)
{
    if (l) {
        free(l->params);
        free(l);
    }
}

/* Frees what the module's functions own (its globals are freed apart). */
static void functions_free(struct fake_module *m)
{
    for (size_t i = 0; i < m->count; i++) {
        fake_layout_free(m->functions[i].layout);
        legacy_launch_free(m->functions[i].legacy);
    }
    free(m->functions);
}

bool fake_jit_log(unsigned n, const cuabi_jit_option *options, void **values, unsigned buffer_opt,
                  unsigned size_opt, const char *text)
{
    char *buffer = NULL;
    size_t size = 0;
    int size_at = -1;

    for (unsigned i = 0; i < n; i++) {
        if (options[i] == buffer_opt)
            buffer = values[i];
        if (options[i] == size_opt) {
            size = (size_t)(uintptr_t)values[i];
            size_at = (int)i;
        }
    }
    if (!buffer || size == 0)
        return false;
    snprintf(buffer, size, "%s", text);
    values[size_at] = (void *)(uintptr_t)(strlen(buffer) + 1);
    return true;
}

cuabi_result fake_jit_options_check(unsigned n, const cuabi_jit_option *options, void **values)
{
    if (n && (!options || !values))
        return CUABI_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++)
        if (options[i] > 40) /* past the last CUjit_option of 12.x */
            return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

/*
 * Why this thread's last load failed, for cuGetErrorString(note_result) until
 * its next load: for a caller that passed no error log buffer, which is told there.
 */
static _Thread_local char note[FAKE_LOG_MAX];
static _Thread_local cuabi_result note_result;

const char *fake_module_note(cuabi_result result)
{
    return note[0] && note_result == result ? note : NULL;
}

void fake_module_note_set(cuabi_result result, const char *text)
{
    snprintf(note, sizeof(note), "%s", text ? text : "");
    note_result = result;
}

/* Frees a module that is not (or no longer) in the live list. */
static void module_discard(struct fake_module *m)
{
    fake_globals_drop(m);
    functions_free(m);
    free(m);
}

/* What the image reader (fake_image.c) does with what it reads. */
static const struct fake_image_sink image_sink = {
    .add_builtin = module_add_builtin,
    .add_entry = module_add_entry,
    .declare_global = fake_global_declare,
    .max_registers = fake_module_max_registers,
};

cuabi_result fake_module_new(const char *ptx, struct fake_ctx *ctx, struct fake_library *lib, bool probe, char *log,
                             size_t log_size, struct fake_module **out)
{
    struct fake_module *m = calloc(1, sizeof(*m));
    cuabi_result rc;

    if (!m)
        return CUABI_ERROR_OUT_OF_MEMORY;
    m->ctx = ctx;
    m->library = lib;
    m->probe = probe;
    rc = fake_image_load(ptx, m, &image_sink, log, log_size);
    if (rc != CUABI_SUCCESS) {
        module_discard(m);
        return rc;
    }
    if (!probe) {
        m->next_live = fake.modules;
        fake.modules = m;
        fake.live[GPU_FAKE_LIVE_MODULES] += !lib;
    }
    *out = m;
    return CUABI_SUCCESS;
}

unsigned fake_jit_max_registers(unsigned n, const cuabi_jit_option *options, void **values)
{
    unsigned max = 0;

    for (unsigned i = 0; i < n; i++)
        if (options[i] == CUABI_JIT_MAX_REGISTERS)
            max = (unsigned)(uintptr_t)values[i];
    return max;
}

void fake_module_max_registers(struct fake_module *m, unsigned max)
{
    for (size_t i = 0; max && i < m->count; i++)
        if (m->functions[i].attrs.regs > 0 && (unsigned)m->functions[i].attrs.regs > max)
            m->functions[i].attrs.regs = (int)max;
}

/*
 * A load of an image of `size` bytes (FAKE_IMAGE_UNSIZED: bounded by its own
 * headers) from `from`, for every entry point that loads one (their begin done: `rc`).
 */
static cuabi_result module_load(cuabi_result rc, cuabi_module *module, const void *image, size_t size,
                                enum fake_image_source from, unsigned int num_options, cuabi_jit_option *options,
                                void **option_values)
{
    struct fake_ctx *c = NULL;
    struct fake_module *m = NULL;
    char log[FAKE_LOG_MAX] = "", *ptx = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc != CUABI_SUCCESS)
        return rc;
    if (!module || !image)
        return CUABI_ERROR_INVALID_VALUE;
    if ((rc = fake_jit_options_check(num_options, options, option_values)) != CUABI_SUCCESS)
        return rc;
    rc = fake_image_ptx(image, size, from, &ptx, log, sizeof(log));
    if (rc == CUABI_SUCCESS)
        rc = fake_module_new(ptx, c, NULL, false, log, sizeof(log), &m);
    free(ptx);
    fake_module_note_set(rc, "");
    if (rc != CUABI_SUCCESS && log[0] &&
        !fake_jit_log(num_options, options, option_values, CUABI_JIT_ERROR_LOG_BUFFER,
                      CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, log))
        fake_module_note_set(rc, log);
    if (rc == CUABI_SUCCESS) {
        fake_module_max_registers(m, fake_jit_max_registers(num_options, options, option_values));
        snprintf(log, sizeof(log), "fake ptxas: %zu kernel(s)", m->count);
        fake_jit_log(num_options, options, option_values, CUABI_JIT_INFO_LOG_BUFFER,
                     CUABI_JIT_INFO_LOG_BUFFER_SIZE_BYTES, log);
        *module = (cuabi_module)(void *)m;
    }
    return rc;
}

cuabi_result cuModuleLoadDataEx(cuabi_module *module, const void *image, unsigned int num_options,
                                cuabi_jit_option *options, void **option_values)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleLoadDataEx, true);

    return fake_end(
        module_load(rc, module, image, FAKE_IMAGE_UNSIZED, FAKE_IMAGE_CALLER, num_options, options, option_values));
}

cuabi_result cuModuleLoadData(cuabi_module *module, const void *image)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleLoadData, true);

    return fake_end(module_load(rc, module, image, FAKE_IMAGE_UNSIZED, FAKE_IMAGE_CALLER, 0, NULL, NULL));
}

cuabi_result cuModuleLoadFatBinary(cuabi_module *module, const void *image)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleLoadFatBinary, true);

    return fake_end(module_load(rc, module, image, FAKE_IMAGE_UNSIZED, FAKE_IMAGE_CALLER, 0, NULL, NULL));
}

/* At most MODULE_FILE_MAX bytes; what else a file must be, fake_module.h says. */
cuabi_result fake_module_file_read(const char *caller, const char *path, char **out, size_t *size)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    const char *why = NULL;
    struct stat st;
    char *text = NULL;
    size_t got = 0;

    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return CUABI_ERROR_FILE_NOT_FOUND;
    /* A link could be swapped between a check and the read: the fake reads only the file itself. */
    if (fd < 0)
        why = errno == ELOOP ? "a symbolic link, which the fake does not follow: name the file itself" : "unopenable";
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (st.st_uid != geteuid() && st.st_uid != 0)
        why = "owned by another user";
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        why = "writable by others";
    else if (st.st_size <= 0 || st.st_size > MODULE_FILE_MAX)
        why = "empty, or larger than the fake reads (256 MiB)";
    else if (!(text = malloc((size_t)st.st_size + 1)))
        why = "out of memory";
    while (!why && got < (size_t)st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

        if (n <= 0)
            why = "unreadable";
        else
            got += (size_t)n;
    }
    if (fd >= 0)
        close(fd);
    if (why) {
        char message[FAKE_LOG_MAX];

        snprintf(message, sizeof(message), "%s: %s: %s", caller, path, why);
        fprintf(stderr, "gpushim-fakecuda: %s\n", message);
        fake_module_note_set(CUABI_ERROR_INVALID_VALUE, message);
        free(text);
        return CUABI_ERROR_INVALID_VALUE;
    }
    text[got] = '\0';
    *out = text;
    if (size)
        *size = got;
    return CUABI_SUCCESS;
}

cuabi_result cuModuleLoad(cuabi_module *module, const char *path)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleLoad, true);
    char *image = NULL;
    size_t size = 0;
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && (!module || !path))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_module_file_read("cuModuleLoad", path, &image, &size);
    /* A file's bytes, of the size read: no pointer in them is followed. */
    rc = module_load(rc, module, image, size, FAKE_IMAGE_BYTES, 0, NULL, NULL);
    free(image);
    return fake_end(rc);
}

static struct fake_module *module_lookup(cuabi_module handle)
{
    for (struct fake_module *m = fake.modules; m; m = m->next_live)
        if ((void *)m == (void *)handle)
            return m;
    return NULL;
}

struct fake_module *fake_module_find(cuabi_module handle)
{
    return module_lookup(handle);
}

void fake_module_free(struct fake_module *m)
{
    struct fake_module **p = &fake.modules;

    if (!m->probe) {
        while (*p != m)
            p = &(*p)->next_live;
        *p = m->next_live;
        fake.live[GPU_FAKE_LIVE_MODULES] -= !m->library;
    }
    module_discard(m);
}

unsigned long fake_modules_reset(struct fake_ctx *ctx)
{
    unsigned long n = 0;

    for (struct fake_module *m = fake.modules, *next; m; m = next) {
        next = m->next_live;
        if (m->ctx == ctx) {
            n += !m->library; /* a library's module for the context goes with it, as on the real driver */
            fake_module_free(m);
        }
    }
    return n;
}

cuabi_result cuModuleUnload(cuabi_module module)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleUnload, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_module *m;

        fake_work_drain(); /* a queued launch may still use its globals */
        m = module_lookup(module);
        if (!m || m->library) /* a library's module goes with the library */
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            fake_module_free(m);
    }
    return fake_end(rc);
}

cuabi_result cuModuleGetFunction(cuabi_function *function, cuabi_module module, const char *name)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleGetFunction, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_module *m = module_lookup(module);

        if (!function || !name)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!m)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            rc = CUABI_ERROR_NOT_FOUND;
        for (size_t i = 0; m && rc == CUABI_ERROR_NOT_FOUND && i < m->count; i++)
            if (strcmp(function_name(&m->functions[i]), name) == 0) {
                *function = (cuabi_function)(void *)&m->functions[i];
                rc = CUABI_SUCCESS;
            }
    }
    return fake_end(rc);
}

/* What a CUkernel is in the current context (fake_library.c's, set at its first load); NULL before any. */
static struct fake_function *(*kernel_function)(cuabi_kernel kernel);

void fake_function_kernels(struct fake_function *(*fn)(cuabi_kernel kernel))
{
    kernel_function = fn;
}

struct fake_function *fake_function_find(cuabi_function handle)
{
    for (struct fake_module *m = fake.modules; m; m = m->next_live)
        for (size_t i = 0; i < m->count; i++)
            if ((void *)&m->functions[i] == (void *)handle)
                return &m->functions[i];
    /* A CUkernel where a CUfunction is taken: its function in the current context. */
    return kernel_function ? kernel_function((cuabi_kernel)(void *)handle) : NULL;
}

const char *fake_function_name(const struct fake_function *f)
{
    return function_name(f);
}

struct fake_func_attrs *fake_function_attrs(cuabi_function f, struct fake_ctx **ctx)
{
    struct fake_function *fn = fake_function_find(f);

    if (fn && ctx)
        *ctx = fn->module->ctx;
    return fn ? &fn->attrs : NULL;
}

/* ---- Function attributes ---- */

void fake_func_attrs_init(struct fake_func_attrs *a)
{
    a->max_dynamic_shared = 48 * 1024;
    a->carveout = -1;
    a->cache_config = CUABI_FUNC_CACHE_PREFER_NONE;
    a->regs = FAKE_NUM_REGS;
    a->static_shared = 0;
    a->local = 0;
    a->max_threads = 1024;
}

/* Threads a block of the function may have: its bound, and what the device's registers allow (whole warps). */
static int max_threads(const struct fake_func_attrs *a, int device)
{
    int by_regs = fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK) / a->regs / 32 * 32;

    return by_regs < (int)a->max_threads ? by_regs : (int)a->max_threads;
}

cuabi_result fake_function_attribute(const struct fake_function *f, int device, unsigned attrib, int *value)
{
    const struct fake_func_attrs *a = &f->attrs;

    switch (attrib) {
    case CUABI_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = max_threads(a, device); break;
    case CUABI_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)a->static_shared; break;
    case CUABI_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = f->layout ? (int)f->module->const_bytes : 0; break;
    case CUABI_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = (int)a->local; break;
    case CUABI_FUNC_ATTRIBUTE_NUM_REGS: *value = a->regs; break;
    case CUABI_FUNC_ATTRIBUTE_PTX_VERSION: *value = f->module->ptx_version; break;
    /* What the PTX was compiled for at load: the device's own architecture. */
    case CUABI_FUNC_ATTRIBUTE_BINARY_VERSION:
        *value = fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                 fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
        break;
    case CUABI_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = 0; break;
    case CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = a->max_dynamic_shared; break;
    case CUABI_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = a->carveout; break;
    default: return CUABI_ERROR_INVALID_VALUE;
    }
    return CUABI_SUCCESS;
}

cuabi_result cuFuncGetAttribute(int *value, cuabi_function_attribute attrib, cuabi_function f)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncGetAttribute, true);

    if (rc == CUABI_SUCCESS) {
        const struct fake_function *fn = fake_function_find(f);

        if (!value)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fn)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            rc = fake_function_attribute(fn, fn->module->ctx->device, attrib, value);
    }
    return fake_end(rc);
}

cuabi_result cuFuncSetAttribute(cuabi_function f, cuabi_function_attribute attrib, int value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncSetAttribute, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *ctx = NULL;
        struct fake_func_attrs *a = fake_function_attrs(f, &ctx);

        if (!a)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (attrib == CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES && value >= 0 &&
                 value <= fake_attribute(ctx->device, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
            a->max_dynamic_shared = value;
        else if (attrib == CUABI_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT && value >= -1 && value <= 100)
            a->carveout = value;
        else
            rc = CUABI_ERROR_INVALID_VALUE;
    }
    return fake_end(rc);
}

cuabi_result cuFuncSetCacheConfig(cuabi_function f, cuabi_func_cache config)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncSetCacheConfig, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_func_attrs *a = fake_function_attrs(f, NULL);

        if (!a)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (config > CUABI_FUNC_CACHE_PREFER_EQUAL)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            a->cache_config = config;
    }
    return fake_end(rc);
}

/* ---- Module globals ---- */

struct fake_global {
    struct fake_global *next;
    const struct fake_module *module;
    struct fake_alloc *alloc; /* a FAKE_ALLOC_GLOBAL allocation, not counted as the client's */
    char name[]; /* PTX names: mangled C++ ones run long */
};

static struct fake_global *globals;

/* The slot of NAME in the module's map of globals: the one holding it, else the empty one where it would go. */
static struct fake_global **global_slot(const struct fake_module *m, const char *name, size_t len)
{
    size_t mask = m->global_map_cap - 1, i = ptx_name_hash(name, len) & mask;

    for (; m->global_map[i]; i = (i + 1) & mask)
        if (strlen(m->global_map[i]->name) == len && memcmp(m->global_map[i]->name, name, len) == 0)
            break;
    return &m->global_map[i];
}

static struct fake_global *global_find(const struct fake_module *m, const char *name, size_t len)
{
    return m->global_map_cap ? *global_slot(m, name, len) : NULL;
}

/* Maps a global of the module by its name, the map twice as large at half full; false when out of memory. */
static bool global_map_add(struct fake_module *m, struct fake_global *g)
{
    if ((m->nglobals + 1) * 2 > m->global_map_cap) {
        size_t cap = m->global_map_cap ? m->global_map_cap * 2 : 64, old_cap = m->global_map_cap;
        struct fake_global **old = m->global_map;

        if (!(m->global_map = calloc(cap, sizeof(*m->global_map)))) {
            m->global_map = old;
            return false;
        }
        m->global_map_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                *global_slot(m, old[i]->name, strlen(old[i]->name)) = old[i];
        free(old);
    }
    *global_slot(m, g->name, strlen(g->name)) = g;
    m->nglobals++;
    return true;
}

cuabi_result fake_global_declare(struct fake_module *m, const char *text, size_t len, char *log, size_t log_size,
                                 struct fake_alloc **out)
{
    struct fake_ctx *ctx = m->ctx;
    struct fake_global *g;
    cuabi_result rc;
    size_t name_len = 0, bytes = 0, i = 0;

    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    text += i;
    len -= i;
    while (name_len < len && text[name_len] != ' ' && text[name_len] != '\t')
        name_len++;
    for (i = name_len; i < len && (text[i] == ' ' || text[i] == '\t'); i++)
        ;
    for (; i < len && text[i] >= '0' && text[i] <= '9' && bytes <= GLOBAL_MAX; i++)
        bytes = bytes * 10 + (size_t)(text[i] - '0');
    if (name_len == 0 || name_len > PTX_NAME_MAX || i != len || bytes == 0 || bytes > GLOBAL_MAX) {
        snprintf(log, log_size,
                 "fake ptxas: .fake_global wants a name of 1 to %u characters and 1 to %d bytes: \"%.*s\"",
                 PTX_NAME_MAX, GLOBAL_MAX, (int)len, text);
        return CUABI_ERROR_INVALID_PTX;
    }
    if (global_find(m, text, name_len)) {
        snprintf(log, log_size, "fake ptxas: global \"%.*s\" is defined twice", (int)name_len, text);
        return CUABI_ERROR_INVALID_PTX;
    }
    if (m->probe) { /* read to be checked, never run: no memory */
        if (out)
            *out = NULL;
        return CUABI_SUCCESS;
    }
    if (!(g = calloc(1, sizeof(*g) + name_len + 1)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    /* A global starts zeroed, as every allocation does. */
    if ((rc = fake_alloc_new(ctx->device, bytes, FAKE_ALLOC_GLOBAL, &g->alloc)) != CUABI_SUCCESS) {
        free(g);
        return rc;
    }
    memcpy(g->name, text, name_len);
    g->module = m;
    if (!global_map_add(m, g)) {
        fake_alloc_release(g->alloc);
        free(g);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    g->next = globals;
    globals = g;
    if (out)
        *out = g->alloc;
    return CUABI_SUCCESS;
}

void fake_globals_drop(struct fake_module *m)
{
    free(m->global_map);
    m->global_map = NULL;
    m->global_map_cap = m->nglobals = 0;
    for (struct fake_global **p = &globals; *p;) {
        struct fake_global *g = *p;

        if (g->module != m) {
            p = &g->next;
            continue;
        }
        *p = g->next;
        fake_alloc_release(g->alloc);
        free(g);
    }
}

cuabi_result fake_module_global(const struct fake_module *m, const char *name, cuabi_deviceptr *ptr, size_t *bytes)
{
    const struct fake_global *g = name ? global_find(m, name, strlen(name)) : NULL;

    if (!name)
        return CUABI_ERROR_INVALID_VALUE;
    if (!g)
        return CUABI_ERROR_NOT_FOUND;
    if (ptr)
        *ptr = g->alloc->addr;
    if (bytes)
        *bytes = g->alloc->size;
    return CUABI_SUCCESS;
}

cuabi_result cuModuleGetGlobal_v2(cuabi_deviceptr *ptr, size_t *bytes, cuabi_module module, const char *name)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleGetGlobal_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        const struct fake_module *m = fake_module_find(module);

        if (!name)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!m)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            rc = fake_module_global(m, name, ptr, bytes);
    }
    return fake_end(rc);
}

/* ---- What a module and its functions say of themselves ---- */

/* The kernel's name, kept by its module: valid while the module is loaded. */
cuabi_result cuFuncGetName(const char **name, cuabi_function hfunc)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncGetName, true);
    struct fake_function *f = NULL;

    if (rc == CUABI_SUCCESS && (!name || !hfunc))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !(f = fake_function_find(hfunc)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        *name = function_name(f);
    return fake_end(rc);
}

/*
 * The module the function was got from. A library's function (cuKernelGetFunction)
 * lives in a module the client never loaded and cannot unload: NOT_FOUND.
 */
cuabi_result cuFuncGetModule(cuabi_module *hmod, cuabi_function hfunc)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncGetModule, true);
    struct fake_function *f = NULL;

    if (rc == CUABI_SUCCESS && (!hmod || !hfunc))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !(f = fake_function_find(hfunc)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS && f->module->library)
        rc = CUABI_ERROR_NOT_FOUND;
    if (rc == CUABI_SUCCESS)
        *hmod = (cuabi_module)(void *)f->module;
    return fake_end(rc);
}

cuabi_result cuModuleGetFunctionCount(unsigned int *count, cuabi_module mod)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleGetFunctionCount, true);
    struct fake_module *m = NULL;

    if (rc == CUABI_SUCCESS && !count)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !(m = module_lookup(mod)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        *count = (unsigned)m->count; /* at most MAX_MODULE_FUNCTIONS */
    return fake_end(rc);
}

/* The module's first numFunctions functions (all of them when it has fewer), in the order the image declares them. */
cuabi_result cuModuleEnumerateFunctions(cuabi_function *functions, unsigned int num_functions, cuabi_module mod)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleEnumerateFunctions, true);
    struct fake_module *m = NULL;

    if (rc == CUABI_SUCCESS && !functions)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !(m = module_lookup(mod)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    for (size_t i = 0; rc == CUABI_SUCCESS && i < m->count && i < num_functions; i++)
        functions[i] = (cuabi_function)(void *)&m->functions[i];
    return fake_end(rc);
}

/*
 * Eager: the fake reads a whole image and prepares each of its functions
 * when the module is loaded (a bad entry fails the load), whatever
 * CUDA_MODULE_LOADING says, so no function is loaded later, at its first use.
 */
cuabi_result cuModuleGetLoadingMode(cuabi_module_loading_mode *mode)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleGetLoadingMode, true);

    if (rc == CUABI_SUCCESS && !mode)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *mode = CUABI_MODULE_EAGER_LOADING;
    return fake_end(rc);
}
