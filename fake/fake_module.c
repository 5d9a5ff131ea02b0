/*
 * The fake driver's modules and kernels. A module's image is read by
 * fake_ptx.c: its functions are built-in kernels (`.fake_kernel`, see
 * gpushim/fake.h) and the entries its PTX declares, whose host
 * implementations fake_host_kernel.c runs. A kernel is a host function here,
 * run when its stream reaches it, that reaches device memory only through
 * the live allocations its context may touch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

enum { MAX_PARAMS = 4, MAX_MODULE_FUNCTIONS = 4096 };

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
    const struct fake_kernel *kernel; /* a built-in kernel, or NULL */
    struct fake_layout *layout;       /* else an entry of the PTX, run by its host implementation */
    struct fake_func_attrs attrs;
};

struct fake_module {
    struct fake_module *next_live;
    struct fake_ctx *ctx;
    size_t count, capacity;
    struct fake_function *functions; /* handed out only once the load succeeded: they do not move after */
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
    return op->kind == FAKE_OP_KERNEL && op->u.k.kernel && op->u.k.kernel->hold;
}

/* ---- Functions, as fake_ptx.c reads them ---- */

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

cuabi_result fake_module_add_builtin(struct fake_module *m, const char *name, size_t len, unsigned line, char *log,
                                     size_t log_size)
{
    const struct fake_kernel *k = NULL;
    struct fake_function *f;
    cuabi_result rc;

    for (size_t i = 0; !k && i < sizeof(kernels) / sizeof(kernels[0]); i++)
        if (strlen(kernels[i].name) == len && memcmp(kernels[i].name, name, len) == 0)
            k = &kernels[i];
    if (!k) {
        snprintf(log, log_size, "fake ptxas: line %u: no built-in kernel \"%.*s\"", line, (int)len, name);
        return CUABI_ERROR_INVALID_PTX;
    }
    if ((f = function_add(m, name, len, line, log, log_size, &rc)))
        f->kernel = k;
    return rc;
}

cuabi_result fake_module_add_entry(struct fake_module *m, struct fake_layout *layout, unsigned line, char *log,
                                   size_t log_size)
{
    cuabi_result rc;
    struct fake_function *f = function_add(m, layout->name, strlen(layout->name), line, log, log_size, &rc);

    if (f)
        f->layout = layout;
    else
        fake_layout_free(layout);
    return rc;
}

/* Frees what the module's functions own (its globals are fake_kernel.c's). */
static void functions_free(struct fake_module *m)
{
    for (size_t i = 0; i < m->count; i++)
        fake_layout_free(m->functions[i].layout);
    free(m->functions);
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
        if (!module || !image || (num_options && (!options || !option_values)))
            rc = CUABI_ERROR_INVALID_VALUE;
        for (unsigned i = 0; rc == CUABI_SUCCESS && i < num_options; i++)
            if (options[i] > 40) /* past the last CUjit_option of 12.x */
                rc = CUABI_ERROR_INVALID_VALUE;
        if (rc == CUABI_SUCCESS && !(m = calloc(1, sizeof(*m))))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        else if (rc == CUABI_SUCCESS)
            rc = fake_ptx_load(image, m, log, sizeof(log));
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
            functions_free(m);
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
    functions_free(m);
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

        /* Queued launches keep working: they name the built-in kernel, or hold their own copy of the entry's layout. */
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
            if (strcmp(function_name(&m->functions[i]), name) == 0) {
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
        struct fake_host_args *host = NULL;
        struct fake_op *op = NULL;

        if (!fn)
            rc = CUABI_ERROR_INVALID_HANDLE;
        else if (fn->module->ctx != s->ctx)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        else if (fn->kernel && (extra || (fn->kernel->nparams && !params))) /* built-ins take only kernelParams */
            rc = CUABI_ERROR_INVALID_VALUE;
        else if ((rc = check_launch(grid, block, shared, &fn->attrs)) != CUABI_SUCCESS &&
                 s->capture == FAKE_CAPTURE_ACTIVE)
            /* As the driver does (580.159.04, gpu-capture's bad_shape case): a shape it refuses breaks the capture. */
            s->capture = FAKE_CAPTURE_INVALIDATED;
        if (rc == CUABI_SUCCESS && ex)
            rc = fake_launch_ex_check(s->ctx, &fn->attrs, grid, block, shared, ex);
        if (rc == CUABI_SUCCESS && fn->layout)
            rc = fake_host_args_new(fn->layout, params, extra, &host);
        if (rc == CUABI_SUCCESS && !(op = fake_op_new(FAKE_OP_KERNEL))) {
            fake_host_args_release(host);
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        }
        if (rc == CUABI_SUCCESS) {
            size_t off = 0;

            op->u.k.kernel = fn->kernel;
            op->u.k.host = host;
            memcpy(op->u.k.grid, grid, sizeof(op->u.k.grid));
            memcpy(op->u.k.block, block, sizeof(op->u.k.block));
            op->u.k.shared = shared;
            if (ex)
                op->u.k.ex = *ex;
            /* The values are copied now, as the driver does: the caller's may be gone when the kernel runs. */
            for (size_t i = 0; fn->kernel && i < fn->kernel->nparams; i++) {
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
