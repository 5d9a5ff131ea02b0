/* SPDX-License-Identifier: MIT */
/*
 * Kernels as host functions: the registry of host implementations
 * by entry name, the launch's copy of its arguments (shared with a PTX
 * entry's launch, fake_ptx_kernel.c), and the bridge that runs
 * an implementation when its stream reaches the launch, with device memory
 * reached only through gpu_fake_memory(), textures and surfaces through
 * gpu_fake_texture_read() and gpu_fake_surface_read/write().
 *
 * The registry has its own lock, taken after the fake's (at a launch) or
 * alone (at a registration), so that a library's constructor may register
 * while the fake configures itself.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_host_kernel.h"
#include "fake_host_memory.h"
#include "fake_image.h"
#include "fake_memory.h"
#include "fake_sample.h"
#include "fake_stream.h"
#include "ptx/ptx.h"

struct registration {
    struct registration *next;
    gpu_fake_kernel_fn fn;
    void *user_data;
    char name[]; /* the entry's name, as the PTX declares it */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct registration *registry;

struct gpu_fake_exec {
    const struct fake_ctx *ctx;
    bool faulted;
};

/* What a failed launch on this thread said, for cuGetErrorString(note_result) until its next launch. */
static _Thread_local char note[512];
static _Thread_local cuabi_result note_result;

/* Set while this thread runs a host kernel, which may hold the fake's lock (fake_kernel_unlock()). */
static _Thread_local bool in_host_kernel;

/* ---- Registry ---- */

/* The preset host implementation of the entry gpushim-info's self-test launches: data[i] += 1 for i < n. */
static int gpushim_add_one(const gpu_fake_launch *l)
{
    uint64_t data, threads = (uint64_t)l->grid.x * l->grid.y * l->grid.z * l->block.x * l->block.y * l->block.z;
    uint32_t n, *p;

    if (gpu_fake_param(l, 0, &data, sizeof(data)) != 0 || gpu_fake_param(l, 1, &n, sizeof(n)) != 0)
        return 0; /* the fault is reported */
    if (n > threads)
        n = (uint32_t)threads;
    if (!(p = gpu_fake_memory(l, data, (size_t)n * sizeof(*p))))
        return 0;
    for (uint32_t i = 0; i < n; i++)
        p[i] += 1;
    return 0;
}

static const struct {
    const char *name;
    gpu_fake_kernel_fn fn;
} preset_host_kernels[] = {
    {"gpushim_add_one", gpushim_add_one},
};

FAKE_API int gpu_fake_kernel_register(const char *name, gpu_fake_kernel_fn fn, void *user_data)
{
    struct registration **p, *r = NULL;
    size_t len = name ? strlen(name) : 0;

    if (len == 0)
        return -1;
    if (fn && !(r = malloc(sizeof(*r) + len + 1)))
        return -1;
    if (r) {
        r->fn = fn;
        r->user_data = user_data;
        memcpy(r->name, name, len + 1);
    }
    pthread_mutex_lock(&registry_lock);
    for (p = &registry; *p && strcmp((*p)->name, name) != 0; p = &(*p)->next)
        ;
    if (*p) {
        struct registration *old = *p;

        *p = old->next;
        free(old);
    }
    if (r) {
        r->next = registry;
        registry = r;
    }
    pthread_mutex_unlock(&registry_lock);
    return 0;
}

/* The host implementation of `name`: a registration, else a preset one; false if none. */
static bool registry_find(const char *name, gpu_fake_kernel_fn *fn, void **user_data)
{
    bool found = false;

    pthread_mutex_lock(&registry_lock);
    for (const struct registration *r = registry; r && !found; r = r->next)
        if (strcmp(r->name, name) == 0) {
            *fn = r->fn;
            *user_data = r->user_data;
            found = true;
        }
    pthread_mutex_unlock(&registry_lock);
    for (size_t i = 0; !found && i < sizeof(preset_host_kernels) / sizeof(preset_host_kernels[0]); i++)
        if (strcmp(preset_host_kernels[i].name, name) == 0) {
            *fn = preset_host_kernels[i].fn;
            *user_data = NULL;
            found = true;
        }
    return found;
}

/* ---- GPUSHIM_FAKE_KERNELS ---- */

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool loaded;
static _Thread_local bool loading;

static void load_libraries(const char *list)
{
    while (*list) {
        size_t len = strcspn(list, ":");
        char path[4096];

        if (len >= sizeof(path)) {
            fake_config_error("GPUSHIM_FAKE_KERNELS", NULL, NULL, "has a path longer than 4095 bytes");
            return;
        }
        memcpy(path, list, len);
        path[len] = '\0';
        /* Code is loaded from where the value says, never from a folder that depends on the working one. */
        if (len && path[0] != '/') {
            fake_config_error("GPUSHIM_FAKE_KERNELS", "path", path,
                              "is not an absolute path: it wants absolute paths, colon-separated");
            return;
        }
        /* Never closed: the registrations point at the library's functions. */
        if (len && !dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
            char why[512];

            snprintf(why, sizeof(why), "does not load: %s", dlerror());
            fake_config_error("GPUSHIM_FAKE_KERNELS", "library", path, why);
            return;
        }
        list += len + (list[len] == ':');
    }
}

void fake_host_kernels_load(void)
{
    if (in_host_kernel) {
        /* The fake's lock may be this thread's already: say so rather than deadlock. */
        fake_die("a host kernel called the fake's control API", "only gpu_fake_memory, gpu_fake_param, "
                 "gpu_fake_texture_read and gpu_fake_surface_read/write are allowed there");
    }
    /* A constructor of a library being loaded that calls into the fake finds the load under way, and goes on. */
    if (atomic_load_explicit(&loaded, memory_order_acquire) || loading)
        return;
    pthread_mutex_lock(&load_lock);
    if (!atomic_load_explicit(&loaded, memory_order_relaxed)) {
        const char *list = gpu__env("GPUSHIM_FAKE_KERNELS");

        loading = true;
        if (list)
            load_libraries(list);
        loading = false;
        atomic_store_explicit(&loaded, true, memory_order_release);
    }
    pthread_mutex_unlock(&load_lock);
}

/* ---- Launches ---- */

const char *fake_host_kernel_note(cuabi_result result)
{
    return note[0] && note_result == result ? note : NULL;
}

/* The parameters from `extra`: {BUFFER_POINTER, p, BUFFER_SIZE, &size, END}, in either order. */
static cuabi_result extra_buffer(const struct fake_layout *l, void **extra, const unsigned char **buffer)
{
    const size_t *size = NULL;

    *buffer = NULL;
    for (size_t i = 0; extra[i] != (void *)(uintptr_t)CUABI_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == (void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_POINTER)
            *buffer = extra[i + 1];
        else if (extra[i] == (void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_SIZE)
            size = extra[i + 1];
        else
            return CUABI_ERROR_INVALID_VALUE;
    }
    if ((!*buffer && l->bytes) || !size || *size != l->bytes) {
        fprintf(stderr, "gpushim-fakecuda: kernel \"%s\": the launch's `extra` gives %zu bytes of parameters, the entry "
                        "declares %zu\n", l->name, size ? *size : 0, l->bytes);
        return CUABI_ERROR_INVALID_VALUE;
    }
    return CUABI_SUCCESS;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

cuabi_result fake_host_args_new(const struct fake_layout *l, void **params, void **extra,
                                struct fake_host_args **out)
{
    const unsigned char *buffer = NULL;
    struct fake_host_args *a;
    size_t name_len = strlen(l->name), at_sizes, at_params, at_bytes, at_name, total;
    gpu_fake_kernel_fn fn = NULL;
    void *user_data = NULL;
    cuabi_result rc = CUABI_SUCCESS;
    char why[256];

    note[0] = '\0';
    /* No host implementation: the PTX interpreter runs the entry, or says why it cannot. */
    if (!registry_find(l->name, &fn, &user_data) &&
        (rc = ptx_entry_check(l->ptx, l->name, why, sizeof(why))) != CUABI_SUCCESS) {
        /* What the interpreter refused comes first: a long kernel name cuts only the end of the note. */
        if (rc == CUABI_ERROR_NOT_FOUND)
            snprintf(note, sizeof(note), "operation not supported: the fake driver has no host implementation of "
                                         "kernel \"%s\" (gpu_fake_kernel_register)", l->name);
        else
            snprintf(note, sizeof(note), "operation not supported: %s; the fake driver's PTX interpreter cannot run "
                                         "it, and there is no host implementation of kernel \"%s\" "
                                         "(gpu_fake_kernel_register)", why, l->name);
        note_result = CUABI_ERROR_NOT_SUPPORTED;
        fprintf(stderr, "gpushim-fakecuda: %s\n", note);
        return CUABI_ERROR_NOT_SUPPORTED;
    }
    if (params && extra)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (extra)
        rc = extra_buffer(l, extra, &buffer);
    else if (l->count && !params)
        rc = CUABI_ERROR_INVALID_VALUE;
    for (unsigned i = 0; rc == CUABI_SUCCESS && params && i < l->count; i++)
        if (!params[i])
            rc = CUABI_ERROR_INVALID_VALUE;
    if (rc != CUABI_SUCCESS)
        return rc;
    /* One block: the record, the sizes, the pointers, the values, the name. */
    at_sizes = round_up(sizeof(*a), _Alignof(max_align_t));
    at_params = round_up(at_sizes + l->count * sizeof(size_t), _Alignof(max_align_t));
    at_bytes = round_up(at_params + l->count * sizeof(void *), _Alignof(max_align_t));
    at_name = at_bytes + l->bytes;
    total = at_name + name_len + 1;
    if (!(a = calloc(1, total)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    a->refs = 1;
    a->fn = fn;
    if (!fn)
        ptx_module_retain(a->ptx = l->ptx);
    a->nbytes = l->bytes;
    a->user_data = user_data;
    a->count = l->count;
    a->sizes = (size_t *)(void *)((unsigned char *)a + at_sizes);
    a->params = (void **)(void *)((unsigned char *)a + at_params);
    a->bytes = (unsigned char *)a + at_bytes;
    a->name = (char *)a + at_name;
    memcpy(a->name, l->name, name_len + 1);
    /* The values are copied now, as the driver does: the caller's may be gone when the kernel runs. */
    for (unsigned i = 0; i < l->count; i++) {
        a->sizes[i] = l->size[i];
        a->params[i] = a->bytes + l->offset[i];
        memcpy(a->params[i], buffer ? buffer + l->offset[i] : params[i], l->size[i]);
    }
    *out = a;
    return CUABI_SUCCESS;
}

void fake_host_args_release(struct fake_host_args *a)
{
    if (a && --a->refs == 0) {
        ptx_module_release(a->ptx);
        free(a);
    }
}

/*
 * Runs a host kernel's operation on its stream: false when it touched memory
 * it may not (it printed why); a CUresult its implementation returned becomes the stream's fault.
 */
static bool host_kernel_run(struct fake_stream *s, const struct fake_op *op)
{
    const struct fake_host_args *a = op->u.k.host;
    struct gpu_fake_exec x = {s->ctx, false};
    gpu_fake_launch l = {
        .name = a->name,
        .grid = {op->u.k.grid[0], op->u.k.grid[1], op->u.k.grid[2]},
        .block = {op->u.k.block[0], op->u.k.block[1], op->u.k.block[2]},
        .shared_bytes = op->u.k.shared,
        .device = s->ctx->device,
        .param_count = a->count,
        .param_sizes = a->sizes,
        .params = a->params,
        .user_data = a->user_data,
        .exec = &x,
    };
    int result;
    bool unlocked;

    if (l.shared_bytes && !(l.shared = calloc(1, l.shared_bytes))) {
        if (!s->fault)
            s->fault = CUABI_ERROR_LAUNCH_OUT_OF_RESOURCES;
        return true;
    }
    /* CUDA calls from the implementation are refused (fake_begin), as from a host function. */
    fake_in_callback = true;
    in_host_kernel = true;
    unlocked = fake_kernel_unlock(s, op);
    result = a->fn(&l);
    fake_kernel_relock(s, unlocked);
    in_host_kernel = false;
    fake_in_callback = false;
    free(l.shared);
    if (result != 0 && !x.faulted && !s->fault)
        s->fault = (cuabi_result)result;
    return !x.faulted;
}

void fake_host_args_retain(const struct fake_op *op)
{
    op->u.k.host->refs++;
}

void fake_host_args_drop(const struct fake_op *op)
{
    fake_host_args_release(op->u.k.host);
}

const struct fake_work fake_host_kernel_work = {
    .run = host_kernel_run, .retain = fake_host_args_retain, .release = fake_host_args_drop};

/* The context a host kernel's launch runs in, or NULL for no launch being run. */
static const struct fake_ctx *launch_ctx(const gpu_fake_launch *launch)
{
    return launch && launch->exec ? launch->exec->ctx : NULL;
}

/* Says why a host kernel's access faulted, and makes its stream report it. */
static int launch_fault(const gpu_fake_launch *launch, const char *why)
{
    fprintf(stderr, "gpushim-fakecuda: kernel \"%s\" %s: an illegal address\n", launch->name, why);
    launch->exec->faulted = true; /* host_kernel_run() makes it the stream's fault */
    return -1;
}

FAKE_API int gpu_fake_texture_read(const gpu_fake_launch *launch, uint64_t texture, const float coords[3], float lod,
                                   gpu_fake_texel *out)
{
    const struct fake_ctx *ctx = launch_ctx(launch);
    char why[256];

    if (!ctx || !coords || !out)
        return -1;
    return fake_texture_sample(ctx, texture, coords, lod, out, why, sizeof(why)) ? 0 : launch_fault(launch, why);
}

FAKE_API int gpu_fake_surface_read(const gpu_fake_launch *launch, uint64_t surface, long long x, long long y,
                                   long long z, void *out, size_t size, gpu_fake_boundary boundary)
{
    const struct fake_ctx *ctx = launch_ctx(launch);
    const long long at[3] = {x, y, z};
    char why[256];

    if (!ctx || !out)
        return -1;
    return fake_surface_access(ctx, surface, at, out, size, boundary, false, why, sizeof(why))
               ? 0
               : launch_fault(launch, why);
}

FAKE_API int gpu_fake_surface_write(const gpu_fake_launch *launch, uint64_t surface, long long x, long long y,
                                    long long z, const void *in, size_t size, gpu_fake_boundary boundary)
{
    const struct fake_ctx *ctx = launch_ctx(launch);
    const long long at[3] = {x, y, z};
    char why[256];

    if (!ctx || !in)
        return -1;
    return fake_surface_access(ctx, surface, at, (void *)(uintptr_t)in, size, boundary, true, why, sizeof(why))
               ? 0
               : launch_fault(launch, why);
}

FAKE_API void *gpu_fake_memory(const gpu_fake_launch *launch, uint64_t address, size_t bytes)
{
    static unsigned char nothing;
    struct fake_alloc *a;

    if (!launch || !launch->exec)
        return NULL;
    if (bytes == 0)
        return &nothing;
    a = address <= UINT64_MAX - bytes ? fake_alloc_find(address, bytes) : NULL;
    if (a && fake_ctx_reaches(launch->exec->ctx, a->device)) {
        /* A host implementation may write what it asks for. */
        fake_alloc_written(address, bytes);
        return a->data + (address - a->addr);
    }
    /* Page-locked host memory is mapped at its host address (cuMemHostGetDevicePointer). */
    if (!a && address <= UINT64_MAX - bytes) {
        const struct fake_host *h = fake_host_find(address);

        if (h && bytes <= h->size - (address - (uintptr_t)h->ptr))
            return (void *)(uintptr_t)address;
    }
    fprintf(stderr,
            "gpushim-fakecuda: kernel \"%s\" touched %zu bytes at device address 0x%" PRIx64
            ", outside the live allocations its context (device %d) may reach: an illegal address\n",
            launch->name, bytes, address, launch->device);
    launch->exec->faulted = true; /* host_kernel_run() makes it the stream's fault */
    return NULL;
}

FAKE_API int gpu_fake_param(const gpu_fake_launch *launch, unsigned index, void *out, size_t size)
{
    if (!launch || !launch->exec || !out)
        return -1;
    if (index >= launch->param_count || launch->param_sizes[index] != size) {
        if (index >= launch->param_count)
            fprintf(stderr, "gpushim-fakecuda: kernel \"%s\" read parameter %u; the entry declares %u\n", launch->name,
                    index, launch->param_count);
        else
            fprintf(stderr, "gpushim-fakecuda: kernel \"%s\" read parameter %u as %zu bytes; the entry declares %zu\n",
                    launch->name, index, size, launch->param_sizes[index]);
        launch->exec->faulted = true; /* host_kernel_run() makes it the stream's fault */
        return -1;
    }
    memcpy(out, launch->params[index], size);
    return 0;
}
