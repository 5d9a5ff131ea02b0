/* SPDX-License-Identifier: MIT */
/*
 * The top of the fake driver, which names its other parts: the table of
 * their hooks that the core and the contexts call (configuration, what a
 * context's reset destroys, a context's synchronisation, a device's loss),
 * cuGetProcAddress in its forms (answered by version from
 * src/sys/driver/cuda_proc_versions.h), the error names and strings, and the control
 * API's questions about every part at once.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_proc_rows.h"
#include "cuda_result_text.h"
#include "fake_array.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_event.h"
#include "fake_faults.h"
#include "fake_graph.h"
#include "fake_host_kernel.h"
#include "fake_host_memory.h"
#include "fake_memory.h"
#include "fake_module.h"
#include "fake_per_thread.h"
#include "fake_report.h"
#include "fake_stream.h"
#include "fake_texture.h"
#include "ptx/ptx.h"

/*
 * Every part's hooks, in the order they run: devices are configured before
 * the parts that read them; a context's reset destroys its streams (their
 * work finishing first), events and graphs, then its modules, textures and
 * arrays, and its memory last.
 */
static const struct fake_part parts[] = {
    {.configure = fake_devices_configure},
    {.configure = fake_faults_configure, .on_call = fake_faults_on_call},
    {.configure = fake_report_configure},
    {.configure = ptx_env_configure},
    {.configure = fake_stream_configure, .ctx_reset = fake_streams_reset, .ctx_synchronize = fake_ctx_synchronize,
     .device_lost = fake_streams_drop_work},
    {.ctx_reset = fake_events_reset},
    {.ctx_reset = fake_graphs_reset},
    {.ctx_reset = fake_modules_reset},
    {.ctx_reset = fake_textures_reset},
    {.ctx_reset = fake_arrays_reset},
    {.ctx_reset = fake_memory_ctx_reset},
    {.load = fake_host_kernels_load},
};

/* At the library's load, before any call can reach the core. */
__attribute__((constructor)) static void parts_register(void)
{
    fake_parts_register(parts, sizeof(parts) / sizeof(parts[0]));
}

/*
 * Every entry point of the list, as a table of the list's own types: this
 * fails to compile if a prototype differs from entry_points.h, and to link
 * if one is not defined.
 */
static const struct {
#define GPU__ENTRY(need, name, symbol, params, args) cuabi_result (*name) params;
#include "entry_points.h"
#undef GPU__ENTRY
} all_entries __attribute__((used)) = {
#define GPU__ENTRY(need, name, symbol, params, args) .name = symbol,
#include "entry_points.h"
#undef GPU__ENTRY
};

/* ---- cuGetProcAddress ---- */

/* A second function behind cuStreamQuery, so that cuGetProcAddress can hand out a pointer that is not the export. */
static cuabi_result stream_query_twin(cuabi_stream stream)
{
    return cuStreamQuery(stream);
}

static int proc_version_compare(const void *key, const void *row)
{
    return strcmp(key, ((const struct gpu__cuda_proc *)row)->base);
}

/*
 * The symbol the driver hands out for `base` at `version`: the row of the
 * newest version <= `version`, a per-thread one where asked and there is one.
 * NULL for a name the table lacks (*known false) or a version before its first.
 */
static const char *proc_symbol(const char *base, int version, bool per_thread, bool *known)
{
    const struct gpu__cuda_proc *row =
        bsearch(base, gpu__cuda_procs, GPU__CUDA_PROC_COUNT, sizeof(gpu__cuda_procs[0]), proc_version_compare);
    const struct gpu__cuda_proc *end = gpu__cuda_procs + GPU__CUDA_PROC_COUNT;
    const char *best = NULL, *best_per_thread = NULL;

    *known = row != NULL;
    if (!row)
        return NULL;
    while (row > gpu__cuda_procs && strcmp(row[-1].base, base) == 0)
        row--;
    for (; row < end && strcmp(row->base, base) == 0; row++)
        if (row->version <= version) {
            if (row->per_thread)
                best_per_thread = row->symbol;
            else
                best = row->symbol;
        }
    return per_thread && best_per_thread ? best_per_thread : best;
}

/*
 * The pointer for a base name at a CUDA version. As documented for the real
 * driver, a name it has no answer for is still CUDA_SUCCESS, with *pfn NULL
 * and the reason in the status.
 */
static void gpa_lookup(const char *base, void **pfn, int cuda_version, cuabi_uint64 flags,
                       cuabi_proc_address_query_result *status)
{
    bool per_thread = (flags & CUABI_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    bool known = false;
    const char *symbol = proc_symbol(base, cuda_version, per_thread, &known);
    int asked = known ? fake_entry_find(base) : -1;
    int entry = symbol ? fake_symbol_entry(symbol) : -1;
    void *fn;

    /* Base names only, as the real driver: "cuMemAlloc_v2" is not a name it knows. */
    *status = CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (asked < 0)
        return;
    fake.gpa_asked[asked]++;
    if (fake.omit[asked] || (entry >= 0 && fake.omit[entry]))
        return;
    if (!symbol) {
        *status = CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
        return;
    }
    /* What this build does not export, it does not have: the variants leave symbols out. */
    fn = entry >= 0 && fake_self() ? dlsym(fake_self(), symbol) : NULL;
    if (!fn)
        return;
    if (entry == FAKE_E_cuStreamQuery && fake.twin_stream_query) {
        cuabi_result (*twin)(cuabi_stream) = stream_query_twin;

        memcpy(&fn, &twin, sizeof(fn));
    }
    *pfn = fn;
    *status = CUABI_GET_PROC_ADDRESS_SUCCESS;
}

/* cuGetProcAddress in every form: counted as `entry`, the status only where the form has one. */
static cuabi_result get_proc_address(enum fake_entry entry, const char *symbol, void **pfn, int cuda_version,
                                     cuabi_uint64 flags, cuabi_proc_address_query_result *status)
{
    cuabi_result rc = fake_begin(entry, false);
    cuabi_proc_address_query_result st = CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;

    if (rc == CUABI_SUCCESS) {
        gpu_fake_gpa_stats *g = &fake.gpa;

        g->flags_and = g->calls ? g->flags_and & flags : flags;
        g->flags_or |= flags;
        g->min_version = g->calls && g->min_version < cuda_version ? g->min_version : cuda_version;
        g->max_version = g->calls && g->max_version > cuda_version ? g->max_version : cuda_version;
        g->last_version = cuda_version;
        g->calls++;
        /* A version newer than the driver's is refused outright. */
        if (!symbol || !pfn || (flags & ~(cuabi_uint64)3u) || cuda_version > fake.driver_version) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            *pfn = NULL;
            gpa_lookup(symbol, pfn, cuda_version, flags, &st);
            g->found += st == CUABI_GET_PROC_ADDRESS_SUCCESS;
        }
        if (status)
            *status = st;
        /* The plain form has no status: the driver answers CUDA_ERROR_NOT_FOUND where it hands out no pointer. */
        else if (rc == CUABI_SUCCESS && st != CUABI_GET_PROC_ADDRESS_SUCCESS)
            rc = CUABI_ERROR_NOT_FOUND;
    }
    return fake_end(rc);
}

cuabi_result cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags,
                                 cuabi_proc_address_query_result *status)
{
    return get_proc_address(FAKE_E_cuGetProcAddress_v2, symbol, pfn, cuda_version, flags, status);
}

/* CUDA 11.3's form, without the status: a name it has no answer for is a NULL pointer and CUDA_ERROR_NOT_FOUND. */
cuabi_result cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags)
{
    return get_proc_address(FAKE_E_cuGetProcAddress, symbol, pfn, cuda_version, flags, NULL);
}

/* ---- Error names ---- */

static const char *result_name(cuabi_result result)
{
    switch (result) {
#define FAKE_RESULT_NAME(name, value) \
    case value: \
        return "CUDA_" #name;
        CUABI_RESULT_LIST(FAKE_RESULT_NAME)
#undef FAKE_RESULT_NAME
    }
    return NULL;
}

/* Every result's sentence (cuda_result_text.h): a code of the list without one does not compile. */
static const char *result_text(cuabi_result result)
{
    switch (result) {
#define FAKE_RESULT_TEXT(name, value) \
    case value: \
        return CUABI_RESULT_TEXT_##name;
        CUABI_RESULT_LIST(FAKE_RESULT_TEXT)
#undef FAKE_RESULT_TEXT
    }
    return NULL;
}

cuabi_result cuGetErrorName(cuabi_result error, const char **str)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGetErrorName, false);

    if (rc == CUABI_SUCCESS) {
        if (!str) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            *str = result_name(error);
            rc = *str ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
        }
    }
    return fake_end(rc);
}

cuabi_result cuGetErrorString(cuabi_result error, const char **str)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGetErrorString, false);

    if (rc == CUABI_SUCCESS) {
        if (!str) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            *str = fake_config_note(error)        ? fake_config_note(error)
                   : fake_host_kernel_note(error) ? fake_host_kernel_note(error)
                   : fake_module_note(error)      ? fake_module_note(error)
                                                  : result_text(error);
            rc = *str ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
        }
    }
    return fake_end(rc);
}

/* ---- Control API ---- */

/* The entry of a per-thread variant's base: its name without _ptsz or _ptds; -1 for none. */
static int base_entry(const char *variant)
{
    size_t n = strlen(variant) - 5;

    for (int i = 0; i < FAKE_E_COUNT; i++)
        if (strlen(fake_entry_name((enum fake_entry)i)) == n && strncmp(fake_entry_name((enum fake_entry)i), variant, n) == 0)
            return i;
    return -1;
}

FAKE_API int gpu_fake_symbol_implemented(const char *name)
{
    bool per_thread = false;
    void *fn;
    int i;

    for (i = 0; name && i < FAKE_E_COUNT && strcmp(fake_entry_name((enum fake_entry)i), name) != 0; i++)
        ;
    if (!name || i == FAKE_E_COUNT)
        return -1;
    fn = fake_self() ? dlsym(fake_self(), name) : NULL;
    if (!fn || fake_symbol_unimplemented(fn))
        return 0;
    /* A per-thread variant is the fake's own where its base is. */
    fake_base_length(name, &per_thread);
    return !per_thread || fake_per_thread_base_implemented(base_entry(name));
}

FAKE_API void *gpu_fake_newest(gpu_fake_live_kind kind)
{
    void *h = NULL;

    fake_lock();
    switch (kind) {
    case GPU_FAKE_LIVE_DEVICE_ALLOCS:
        h = fake.allocs ? (void *)(uintptr_t)fake.allocs->addr : NULL;
        break;
    case GPU_FAKE_LIVE_HOST_ALLOCS:
    case GPU_FAKE_LIVE_HOST_REGISTERED:
        for (struct fake_host *x = fake.hosts; x && !h; x = x->next)
            if (x->registered == (kind == GPU_FAKE_LIVE_HOST_REGISTERED))
                h = x->ptr;
        break;
    case GPU_FAKE_LIVE_STREAMS:
        for (struct fake_stream *s = fake.streams; s && !h; s = s->next_live)
            if (!s->per_thread)
                h = s;
        break;
    case GPU_FAKE_LIVE_CONTEXTS:
        for (struct fake_ctx *c = fake.created; c && !h; c = c->next_created)
            if (c->retains)
                h = c;
        break;
    case GPU_FAKE_LIVE_EVENTS:
        h = fake.events;
        break;
    case GPU_FAKE_LIVE_MODULES:
        h = fake.modules;
        break;
    case GPU_FAKE_LIVE_GRAPHS:
    case GPU_FAKE_LIVE_GRAPH_EXECS:
        for (struct fake_graph *g = fake.graphs; g && !h; g = g->next_live)
            if (g->exec == (kind == GPU_FAKE_LIVE_GRAPH_EXECS))
                h = g;
        break;
    case GPU_FAKE_LIVE_ARRAYS:
    case GPU_FAKE_LIVE_MIPMAPPED_ARRAYS:
        h = fake_array_newest(kind);
        break;
    case GPU_FAKE_LIVE_TEXTURES:
    case GPU_FAKE_LIVE_SURFACES:
        h = fake_texture_newest(kind);
        break;
    default:
        break;
    }
    fake_unlock();
    return h;
}
