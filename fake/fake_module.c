/*
 * The fake driver's modules and kernels. A "PTX" image is text naming
 * built-in kernels (see gpushim/fake.h); a kernel is a host function here,
 * run when its stream reaches it, that reaches device memory only through
 * the live allocations its context may touch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

enum { MAX_PARAMS = 4, MAX_MODULE_KERNELS = 32 };

/* A running kernel: its launch and whether it has stayed within its memory. */
struct exec {
    const struct fake_ctx *ctx;
    const struct fake_op *op;
    const struct fake_kernel *kernel;
    uint64_t threads;
    bool ok;
};

struct fake_kernel {
    const char *name;
    size_t nparams;
    size_t sizes[MAX_PARAMS];
    bool hold;
    void (*run)(struct exec *x);
};

struct fake_function {
    struct fake_module *module;
    const struct fake_kernel *kernel;
    struct fake_func_attrs attrs;
};

struct fake_module {
    struct fake_module *next_live;
    struct fake_ctx *ctx;
    size_t count;
    struct fake_function functions[MAX_MODULE_KERNELS];
};

/* ---- Kernels ---- */

static uint64_t arg(const struct exec *x, size_t index)
{
    const unsigned char *p = x->op->u.k.args;
    uint64_t v64 = 0;
    uint32_t v32 = 0;

    for (size_t i = 0; i < index; i++)
        p += x->kernel->sizes[i];
    if (x->kernel->sizes[index] == 8) {
        memcpy(&v64, p, 8);
        return v64;
    }
    memcpy(&v32, p, 4);
    return v32;
}

/* `n` u32 elements at device address `addr`, or NULL (and the kernel faulted). */
static uint32_t *words(struct exec *x, uint64_t addr, uint64_t n)
{
    struct fake_alloc *a;

    if (n == 0)
        return NULL;
    a = addr % 4 == 0 && n <= SIZE_MAX / 4 ? fake_alloc_find(addr, (size_t)n * 4) : NULL;
    if (!a || !fake_ctx_reaches(x->ctx, a->device)) {
        x->ok = false;
        return NULL;
    }
    return (uint32_t *)(void *)(a->data + (addr - a->addr));
}

/* Elements a kernel over `n` touches: threads beyond n do nothing, n beyond the grid is not reached. */
static uint64_t reach(const struct exec *x, uint64_t n)
{
    return n < x->threads ? n : x->threads;
}

static void k_add_one(struct exec *x)
{
    uint64_t n = reach(x, arg(x, 1));
    uint32_t *p = words(x, arg(x, 0), n);

    for (uint64_t i = 0; p && i < n; i++)
        p[i] += 1;
}

static void k_scale_add(struct exec *x)
{
    uint64_t n = reach(x, arg(x, 3));
    uint32_t *p = words(x, arg(x, 0), n);
    uint32_t mul = (uint32_t)arg(x, 1), add = (uint32_t)arg(x, 2);

    for (uint64_t i = 0; p && i < n; i++)
        p[i] = p[i] * mul + add;
}

static void k_fill_u32(struct exec *x)
{
    uint64_t n = reach(x, arg(x, 2));
    uint32_t *p = words(x, arg(x, 0), n);

    for (uint64_t i = 0; p && i < n; i++)
        p[i] = (uint32_t)arg(x, 1);
}

static void k_copy_u32(struct exec *x)
{
    uint64_t n = reach(x, arg(x, 2));
    uint32_t *dst = words(x, arg(x, 0), n);
    uint32_t *src = words(x, arg(x, 1), n);

    if (dst && src)
        memmove(dst, src, (size_t)n * 4);
}

static void k_launch_info(struct exec *x)
{
    uint32_t *out = words(x, arg(x, 0), 7);
    const struct fake_op *op = x->op;

    if (!out)
        return;
    for (int i = 0; i < 3; i++) {
        out[i] = op->u.k.grid[i];
        out[3 + i] = op->u.k.block[i];
    }
    out[6] = op->u.k.shared;
}

static void k_sleep_us(struct exec *x)
{
    fake.clock_ns += arg(x, 0) * 1000;
}

static void k_launch_ex_info(struct exec *x)
{
    uint32_t *out = words(x, arg(x, 0), 6);
    const struct fake_launch_ex *ex = &x->op->u.k.ex;

    if (!out)
        return;
    for (int i = 0; i < 3; i++)
        out[i] = ex->cluster[i];
    out[3] = ex->cooperative;
    out[4] = ex->serialized;
    out[5] = (uint32_t)ex->priority;
}

static void k_nothing(struct exec *x)
{
    (void)x;
}

static const struct fake_kernel kernels[] = {
    {"add_one", 2, {8, 4}, false, k_add_one},
    {"scale_add", 4, {8, 4, 4, 4}, false, k_scale_add},
    {"fill_u32", 3, {8, 4, 4}, false, k_fill_u32},
    {"copy_u32", 3, {8, 8, 4}, false, k_copy_u32},
    {"launch_info", 1, {8}, false, k_launch_info},
    {"sleep_us", 1, {4}, false, k_sleep_us},
    {"hold", 0, {0}, true, k_nothing},
    {"launch_ex_info", 1, {8}, false, k_launch_ex_info},
};

bool fake_kernel_run(const struct fake_ctx *ctx, const struct fake_op *op)
{
    struct exec x = {ctx, op, op->u.k.kernel, 1, true};

    for (int i = 0; i < 3; i++)
        x.threads *= (uint64_t)op->u.k.grid[i] * op->u.k.block[i];
    x.kernel->run(&x);
    return x.ok;
}

bool fake_kernel_holds(const struct fake_op *op)
{
    return op->kind == FAKE_OP_KERNEL && op->u.k.kernel->hold;
}

/* ---- PTX ---- */

static const struct fake_kernel *kernel_named(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
        if (strlen(kernels[i].name) == len && memcmp(kernels[i].name, name, len) == 0)
            return &kernels[i];
    return NULL;
}

static bool directive(const char *line, size_t len, const char *name)
{
    size_t n = strlen(name);

    return len >= n && memcmp(line, name, n) == 0 && (len == n || line[n] == ' ' || line[n] == '\t');
}

/* Parses the image into m's functions; on failure writes the reason to `log`. */
static cuabi_result parse_ptx(const char *text, struct fake_module *m, char *log, size_t log_size)
{
    bool versioned = false;
    unsigned line_no = 0;

    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *line = p;
        const struct fake_kernel *k;

        p += len + (end ? 1 : 0);
        line_no++;
        while (len && (*line == ' ' || *line == '\t')) {
            line++;
            len--;
        }
        while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
            len--;
        if (len == 0 || (len >= 2 && line[0] == '/' && line[1] == '/'))
            continue;
        if (directive(line, len, ".version")) {
            versioned = true;
            continue;
        }
        if (directive(line, len, ".target") || directive(line, len, ".address_size"))
            continue;
        if (directive(line, len, ".fake_global")) {
            cuabi_result rc = fake_global_declare(m, line + 12, len - 12, log, log_size);

            if (rc != CUABI_SUCCESS)
                return rc;
            continue;
        }
        if (!directive(line, len, ".fake_kernel")) {
            snprintf(log, log_size, "fake ptxas: line %u: unexpected \"%.*s\"", line_no, (int)len, line);
            return CUABI_ERROR_INVALID_PTX;
        }
        if (!versioned) {
            snprintf(log, log_size, "fake ptxas: line %u: .version must come first", line_no);
            return CUABI_ERROR_INVALID_PTX;
        }
        line += 12;
        len -= 12;
        while (len && (*line == ' ' || *line == '\t')) {
            line++;
            len--;
        }
        k = kernel_named(line, len);
        if (!k) {
            snprintf(log, log_size, "fake ptxas: line %u: no built-in kernel \"%.*s\"", line_no, (int)len, line);
            return CUABI_ERROR_INVALID_PTX;
        }
        for (size_t i = 0; i < m->count; i++)
            if (m->functions[i].kernel == k) {
                snprintf(log, log_size, "fake ptxas: line %u: \"%s\" is defined twice", line_no, k->name);
                return CUABI_ERROR_INVALID_PTX;
            }
        if (m->count == MAX_MODULE_KERNELS) {
            snprintf(log, log_size, "fake ptxas: line %u: too many kernels", line_no);
            return CUABI_ERROR_INVALID_PTX;
        }
        m->functions[m->count].module = m;
        m->functions[m->count].kernel = k;
        fake_func_attrs_init(&m->functions[m->count].attrs);
        m->count++;
    }
    if (!versioned) {
        snprintf(log, log_size, "fake ptxas: no .version directive: this is not PTX");
        return CUABI_ERROR_INVALID_PTX;
    }
    return CUABI_SUCCESS;
}

/* Writes `text` into the JIT log the options name, and the length written back into its size option. */
static void write_log(unsigned n, const cuabi_jit_option *options, void **values, unsigned buffer_opt,
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
        return;
    snprintf(buffer, size, "%s", text);
    values[size_at] = (void *)(uintptr_t)(strlen(buffer) + 1);
}

cuabi_result cuModuleLoadDataEx(cuabi_module *module, const void *image, unsigned int num_options,
                                cuabi_jit_option *options, void **option_values)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleLoadDataEx, true);
    struct fake_ctx *c = NULL;
    struct fake_module *m = NULL;
    char log[FAKE_LOG_MAX] = "";

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        const unsigned char *bytes = image;

        if (!module || !image || (num_options && (!options || !option_values)))
            rc = CUABI_ERROR_INVALID_VALUE;
        for (unsigned i = 0; rc == CUABI_SUCCESS && i < num_options; i++)
            if (options[i] > 40) /* past the last CUjit_option of 12.x */
                rc = CUABI_ERROR_INVALID_VALUE;
        /* Compared byte by byte, so that a short PTX text is not read past its end. */
        if (rc == CUABI_SUCCESS && ((bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') ||
                                    (bytes[0] == 0x50 && bytes[1] == 0xed && bytes[2] == 0x55 && bytes[3] == 0xba))) {
            /* ELF (cubin) or fatbin: real machine code, which a fake cannot run. */
            snprintf(log, sizeof(log), "fake driver: only the fake's PTX text can be loaded, not a cubin or fatbin");
            rc = CUABI_ERROR_INVALID_IMAGE;
        } else if (rc == CUABI_SUCCESS && !(m = calloc(1, sizeof(*m)))) {
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        } else if (rc == CUABI_SUCCESS) {
            rc = parse_ptx(image, m, log, sizeof(log));
        }
        if (rc != CUABI_SUCCESS && log[0])
            write_log(num_options, options, option_values, CUABI_JIT_ERROR_LOG_BUFFER,
                      CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, log);
        if (rc == CUABI_SUCCESS) {
            snprintf(log, sizeof(log), "fake ptxas: %zu kernel(s)", m->count);
            write_log(num_options, options, option_values, CUABI_JIT_INFO_LOG_BUFFER,
                      CUABI_JIT_INFO_LOG_BUFFER_SIZE_BYTES, log);
            m->ctx = c;
            m->next_live = fake.modules;
            fake.modules = m;
            fake.live[GPU_FAKE_LIVE_MODULES]++;
            *module = (cuabi_module)(void *)m;
        } else if (m) {
            fake_globals_drop(m);
            free(m);
        }
    }
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

static void module_free(struct fake_module *m)
{
    struct fake_module **p = &fake.modules;

    while (*p != m)
        p = &(*p)->next_live;
    *p = m->next_live;
    fake_globals_drop(m);
    free(m);
    fake.live[GPU_FAKE_LIVE_MODULES]--;
}

unsigned long fake_modules_reset(struct fake_ctx *ctx)
{
    unsigned long n = 0;

    for (struct fake_module *m = fake.modules, *next; m; m = next) {
        next = m->next_live;
        if (m->ctx == ctx) {
            module_free(m);
            n++;
        }
    }
    return n;
}

cuabi_result cuModuleUnload(cuabi_module module)
{
    cuabi_result rc = fake_begin(FAKE_E_cuModuleUnload, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_module *m = module_lookup(module);

        /* Queued launches keep working: they name the built-in kernel, not the module. */
        if (!m)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else
            module_free(m);
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
            if (strcmp(m->functions[i].kernel->name, name) == 0) {
                *function = (cuabi_function)(void *)&m->functions[i];
                rc = CUABI_SUCCESS;
            }
    }
    return fake_end(rc);
}

static struct fake_function *function_lookup(cuabi_function handle)
{
    for (struct fake_module *m = fake.modules; m; m = m->next_live)
        for (size_t i = 0; i < m->count; i++)
            if ((void *)&m->functions[i] == (void *)handle)
                return &m->functions[i];
    return NULL;
}

struct fake_func_attrs *fake_function_attrs(cuabi_function f, struct fake_ctx **ctx)
{
    struct fake_function *fn = function_lookup(f);

    if (fn && ctx)
        *ctx = fn->module->ctx;
    return fn ? &fn->attrs : NULL;
}

static cuabi_result check_launch(const unsigned grid[3], const unsigned block[3], unsigned shared,
                                 const struct fake_func_attrs *a)
{
    unsigned long long threads = 1;

    for (int i = 0; i < 3; i++) {
        if (grid[i] == 0 || block[i] == 0)
            return CUABI_ERROR_INVALID_VALUE;
        threads *= block[i];
    }
    if (threads > 1024 || block[2] > 64 || grid[1] > 65535 || grid[2] > 65535 || shared > (unsigned)a->max_dynamic_shared)
        return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

cuabi_result fake_launch(cuabi_function f, const unsigned grid[3], const unsigned block[3], unsigned shared,
                         cuabi_stream stream, void **params, void **extra, const struct fake_launch_ex *ex)
{
    struct fake_stream *s = NULL;
    cuabi_result rc = fake_stream_for_work(stream, &s);

    if (rc == CUABI_SUCCESS) {
        struct fake_function *fn = function_lookup(f);
        struct fake_op *op = NULL;

        if (!fn)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (fn->module->ctx != s->ctx)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        else if (extra || (fn->kernel->nparams && !params)) /* the fake takes parameters only as kernelParams */
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            rc = check_launch(grid, block, shared, &fn->attrs);
        if (rc == CUABI_SUCCESS && ex)
            rc = fake_launch_ex_check(s->ctx, &fn->attrs, grid, block, shared, ex);
        if (rc == CUABI_SUCCESS && !(op = fake_op_new(FAKE_OP_KERNEL)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        if (rc == CUABI_SUCCESS) {
            size_t off = 0;

            op->u.k.kernel = fn->kernel;
            memcpy(op->u.k.grid, grid, sizeof(op->u.k.grid));
            memcpy(op->u.k.block, block, sizeof(op->u.k.block));
            op->u.k.shared = shared;
            if (ex)
                op->u.k.ex = *ex;
            /* The values are copied now, as the driver does: the caller's may be gone when the kernel runs. */
            for (size_t i = 0; i < fn->kernel->nparams; i++) {
                memcpy(op->u.k.args + off, params[i], fn->kernel->sizes[i]);
                off += fn->kernel->sizes[i];
            }
            rc = fake_enqueue(s, op);
        }
    }
    return rc;
}

cuabi_result cuLaunchKernel(cuabi_function f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                            unsigned int block_x, unsigned int block_y, unsigned int block_z,
                            unsigned int shared_mem_bytes, cuabi_stream stream, void **params, void **extra)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchKernel, true);
    const unsigned grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};

    if (rc == CUABI_SUCCESS)
        rc = fake_launch(f, grid, block, shared_mem_bytes, stream, params, extra, NULL);
    return fake_end(rc);
}
