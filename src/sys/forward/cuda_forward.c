/* SPDX-License-Identifier: MIT */
/*
 * libgpushim-cuda's forwarders (see cuda_forward.h): resolving every slot at
 * the first call, the answers when there is no driver, the traced calls'
 * records, and the public view of it all (gpushim/driver.h).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpushim/driver.h"
#include "gpushim/forward.h"

#include "cuda_forward.h"
#include "sys/driver/driver.h"
#include "sys/loader/driver_search.h"
#include "base/error.h"
#include "base/text.h"
#include "sys/trace/trace.h"

/* Where the assembly (cuda_forward_<cpu>.h) puts each field. */
#if defined(__aarch64__)
enum { FRAME_VEC = 80, FRAME_INDEX = 208, FRAME_TARGET = 224, FRAME_STACK = 232, FRAME_SIZE = 240 };
#else
enum { FRAME_VEC = 48, FRAME_INDEX = 176, FRAME_TARGET = 192, FRAME_STACK = 200, FRAME_SIZE = 208 };
#endif
_Static_assert(offsetof(struct gpu__cuda_frame, vec) == FRAME_VEC, "the vector registers' place");
_Static_assert(offsetof(struct gpu__cuda_frame, index) == FRAME_INDEX, "the index's place");
_Static_assert(offsetof(struct gpu__cuda_frame, target) == FRAME_TARGET, "the target's place");
_Static_assert(offsetof(struct gpu__cuda_frame, stack) == FRAME_STACK, "the stack pointer's place");
_Static_assert(sizeof(struct gpu__cuda_frame) == FRAME_SIZE, "the frame's size");

static const char *const symbol_names[GPU__CUDA_SYMBOL_COUNT] = {
#define GPU__CUDA_SYMBOL(name, kinds, params) #name,
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
};

static const char *const symbol_kinds[GPU__CUDA_SYMBOL_COUNT] = {
#define GPU__CUDA_SYMBOL(name, kinds, params) kinds,
#include "sys/driver/cuda_symbols.h"
#undef GPU__CUDA_SYMBOL
};

/* Each symbol's traced stub (cuda_forward_<cpu>.S), in the list's order. */
extern void *const gpu__cuda_traced_stubs[GPU__CUDA_SYMBOL_COUNT];

/* What resolution found for each symbol. */
enum found { FOUND_NOTHING_YET, FOUND_EXPORT, FOUND_MISSING, FOUND_INSIDE_GPUSHIM, FOUND_NO_DRIVER };

static void *targets[GPU__CUDA_SYMBOL_COUNT]; /* the driver's export of each name, or NULL */
static unsigned char found[GPU__CUDA_SYMBOL_COUNT];
static gpu_status no_driver_status; /* why there is no driver: GPU_ERR_NO_DRIVER or GPU_ERR_FORKED */
static char reason[2048];           /* and in words, for cuGetErrorString */

static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static atomic_bool resolved;
static atomic_bool resolving;
static pthread_t resolver;

/*
 * The answers without a driver. Each slot is called with the arguments of
 * its own prototype; these take none and so read none, which the calling
 * convention allows (the caller owns its arguments).
 */
static cuabi_result return_stub_library(void)
{
    return CUABI_ERROR_STUB_LIBRARY;
}

static cuabi_result return_not_supported(void)
{
    return CUABI_ERROR_NOT_SUPPORTED;
}

/* cuGetErrorName without a driver: gpushim's own names, as the driver answers (NULL and an error for others). */
static cuabi_result own_error_name(cuabi_result error, const char **str)
{
    const char *name = gpu__result_name_own(error);

    if (!str)
        return CUABI_ERROR_INVALID_VALUE;
    *str = name;
    return name ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
}

/* cuGetErrorString without a driver: for CUDA_ERROR_STUB_LIBRARY, why there is none; else the name. */
static cuabi_result own_error_string(cuabi_result error, const char **str)
{
    if (!str)
        return CUABI_ERROR_INVALID_VALUE;
    if (error == CUABI_ERROR_STUB_LIBRARY) {
        *str = reason;
        return CUABI_SUCCESS;
    }
    return own_error_name(error, str);
}

static void *fn_address(cuabi_result (*fn)(void))
{
    void *p;

    memcpy(&p, &fn, sizeof(p));
    return p;
}

/* What each slot is to hold, once found; the slots themselves are libgpushim-cuda's. */
static void *fill[GPU__CUDA_SYMBOL_COUNT];

/*
 * With tracing on, a pointer cuGetProcAddress hands out is exchanged for
 * libgpushim-cuda's own export of the name the driver exports at that
 * address: every later call through it goes through a slot, and so is traced.
 * `by_address` lists the symbols the driver exports, by address (built once,
 * at resolution); `exports` are libgpushim-cuda's, by symbol.
 */
static const void *slots_seen; /* libgpushim-cuda's slots, from its first gpu__cuda_resolve */
static void *exports[GPU__CUDA_SYMBOL_COUNT];
static uint16_t by_address[GPU__CUDA_SYMBOL_COUNT];
static size_t by_address_count;
_Static_assert(GPU__CUDA_SYMBOL_COUNT <= UINT16_MAX, "a symbol's index fits by_address");

static int address_order(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)targets[*(const uint16_t *)a], y = (uintptr_t)targets[*(const uint16_t *)b];

    return x < y ? -1 : x > y ? 1 : (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* libgpushim-cuda's exports, found through the object that holds its slots; false when there is none. */
static bool exports_find(void)
{
    Dl_info info;
    void *self;

    if (!slots_seen || !dladdr(slots_seen, &info) || !info.dli_fname)
        return false;
    self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!self)
        return false;
    for (size_t i = 0; i < GPU__CUDA_SYMBOL_COUNT; i++)
        exports[i] = dlsym(self, symbol_names[i]);
    /* Only the reference this dlopen added goes: the library stays, held by the program. */
    dlclose(self);
    return true;
}

static void by_address_build(void)
{
    if (!exports_find())
        return;
    for (size_t i = 0; i < GPU__CUDA_SYMBOL_COUNT; i++)
        if (targets[i] && exports[i])
            by_address[by_address_count++] = (uint16_t)i;
    qsort(by_address, by_address_count, sizeof(by_address[0]), address_order);
}

/* Whether exported symbol `name` is base name `base` or a version of it ("cuMemAlloc_v2", "cuStreamQuery_ptsz"). */
static bool has_base(const char *name, const char *base)
{
    size_t n = strlen(base);

    return strncmp(name, base, n) == 0 && (name[n] == '\0' || name[n] == '_');
}

/*
 * libgpushim-cuda's export for the driver's pointer `p`, asked for as `base`:
 * of the names the driver exports at `p`, the one of that base name if there
 * is one (aliases share an address). `p` itself where the driver exports
 * nothing there (a function it hands out only through cuGetProcAddress).
 */
static void *own_export(const char *base, void *p)
{
    size_t lo = 0, hi = by_address_count;
    void *chosen = NULL;

    if (!p)
        return p;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if ((uintptr_t)targets[by_address[mid]] < (uintptr_t)p)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < by_address_count && targets[by_address[lo]] == p; lo++) {
        size_t i = by_address[lo];

        if (!chosen || (base && has_base(symbol_names[i], base))) {
            chosen = exports[i];
            if (base && has_base(symbol_names[i], base))
                break;
        }
    }
    return chosen ? chosen : p;
}

typedef cuabi_result get_proc_address_fn(const char *, void **, int, cuabi_uint64);
typedef cuabi_result get_proc_address_v2_fn(const char *, void **, int, cuabi_uint64,
                                            cuabi_proc_address_query_result *);

/* cuGetProcAddress with tracing on: the driver's answer, traced, its pointer exchanged (own_export). */
static cuabi_result traced_get_proc_address(const char *symbol, void **pfn, int version, cuabi_uint64 flags)
{
    get_proc_address_fn *fn;
    cuabi_result rc;

    memcpy(&fn, &gpu__cuda_traced_stubs[GPU__CUDA_SYM_cuGetProcAddress], sizeof(fn));
    rc = fn(symbol, pfn, version, flags);
    if (rc == CUABI_SUCCESS && pfn)
        *pfn = own_export(symbol, *pfn);
    return rc;
}

static cuabi_result traced_get_proc_address_v2(const char *symbol, void **pfn, int version, cuabi_uint64 flags,
                                               cuabi_proc_address_query_result *status)
{
    get_proc_address_v2_fn *fn;
    cuabi_result rc;

    memcpy(&fn, &gpu__cuda_traced_stubs[GPU__CUDA_SYM_cuGetProcAddress_v2], sizeof(fn));
    rc = fn(symbol, pfn, version, flags, status);
    if (rc == CUABI_SUCCESS && pfn)
        *pfn = own_export(symbol, *pfn);
    return rc;
}

/* With tracing on and libgpushim-cuda's exports found, cuGetProcAddress's slots get the exchanging versions. */
static void fill_get_proc_address(void)
{
    get_proc_address_fn *v1 = traced_get_proc_address;
    get_proc_address_v2_fn *v2 = traced_get_proc_address_v2;

    by_address_build();
    if (!by_address_count)
        return;
    if (targets[GPU__CUDA_SYM_cuGetProcAddress])
        memcpy(&fill[GPU__CUDA_SYM_cuGetProcAddress], &v1, sizeof(void *));
    if (targets[GPU__CUDA_SYM_cuGetProcAddress_v2])
        memcpy(&fill[GPU__CUDA_SYM_cuGetProcAddress_v2], &v2, sizeof(void *));
}

static void set_slot(size_t i, void *p)
{
    fill[i] = p;
}

static void resolve_without_driver(gpu_status st)
{
    const char *why = gpu_last_error_get_message();

    no_driver_status = st;
    gpu__text_printf(reason, sizeof(reason), "%s", why && *why ? why : "no CUDA driver could be loaded");
    for (size_t i = 0; i < GPU__CUDA_SYMBOL_COUNT; i++) {
        found[i] = FOUND_NO_DRIVER;
        set_slot(i, fn_address(return_stub_library));
    }
    memcpy(&fill[GPU__CUDA_SYM_cuGetErrorName], &(cuabi_result (*)(cuabi_result, const char **)){own_error_name},
           sizeof(void *));
    memcpy(&fill[GPU__CUDA_SYM_cuGetErrorString], &(cuabi_result (*)(cuabi_result, const char **)){own_error_string},
           sizeof(void *));
}

static void resolve_all(void)
{
    void *handle = NULL;
    gpu_status st = gpu__driver_handle(&handle);
    bool traced;
    const void *last_base = NULL;
    bool last_gpushim = false;

    if (st != GPU_OK) {
        resolve_without_driver(st);
        return;
    }
    traced = gpu__trace_forwarding();
    for (size_t i = 0; i < GPU__CUDA_SYMBOL_COUNT; i++) {
        void *p = dlsym(handle, symbol_names[i]);
        Dl_info info;

        if (p && dladdr(p, &info)) {
            /* The exports of one driver lie in one object: check each object once. */
            if (info.dli_fbase != last_base) {
                last_base = info.dli_fbase;
                last_gpushim = gpu__inside_gpushim(p);
            }
            if (last_gpushim)
                p = NULL, found[i] = FOUND_INSIDE_GPUSHIM;
        }
        if (!p) {
            if (found[i] != FOUND_INSIDE_GPUSHIM)
                found[i] = FOUND_MISSING;
            set_slot(i, fn_address(return_not_supported));
            continue;
        }
        found[i] = FOUND_EXPORT;
        targets[i] = p;
        set_slot(i, traced ? gpu__cuda_traced_stubs[i] : p);
    }
    if (traced)
        fill_get_proc_address();
}

/* A child of fork() does not inherit the thread that may have held the lock. */
static void on_fork_child(void)
{
    pthread_mutex_init(&resolve_lock, NULL);
    atomic_store_explicit(&resolving, false, memory_order_relaxed);
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, on_fork_child);
}

static void resolve_once(void)
{
    if (atomic_load_explicit(&resolved, memory_order_acquire))
        return;
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&resolve_lock);
    if (!atomic_load_explicit(&resolved, memory_order_relaxed)) {
        resolver = pthread_self();
        atomic_store_explicit(&resolving, true, memory_order_release);
        resolve_all();
        atomic_store_explicit(&resolving, false, memory_order_relaxed);
        atomic_store_explicit(&resolved, true, memory_order_release);
    }
    pthread_mutex_unlock(&resolve_lock);
}

/* A call from inside the resolution (the driver's cuInit calling a forwarder) must not wait for itself. */
static bool called_back(void)
{
    return atomic_load_explicit(&resolving, memory_order_acquire) && pthread_equal(resolver, pthread_self());
}

void *gpu__cuda_resolve(void **slots, uint32_t index)
{
    if (index >= GPU__CUDA_SYMBOL_COUNT)
        return fn_address(return_not_supported);
    if (!atomic_load_explicit(&resolved, memory_order_acquire)) {
        if (called_back())
            return fn_address(return_stub_library);
        /* Before resolution: it reads this under the lock, once. */
        pthread_mutex_lock(&resolve_lock);
        if (!slots_seen)
            slots_seen = slots;
        pthread_mutex_unlock(&resolve_lock);
        resolve_once();
    }
    /* Every thread that comes here writes the same values: the slots settle on them. */
    for (size_t i = 0; i < GPU__CUDA_SYMBOL_COUNT; i++)
        __atomic_store_n(&slots[i], fill[i], __ATOMIC_RELEASE);
    return fill[index];
}

void *gpu__cuda_trace_enter(struct gpu__cuda_frame *frame)
{
    frame->target = targets[frame->index];
    frame->t0 = gpu__now_ns();
    return frame->target;
}

/*
 * Reads the arguments as the calling convention passed them (x86-64's or
 * AArch64's: integers and pointers in order in the integer registers, floats
 * in the vector ones, the rest a stack word each), up to the first struct by
 * value.
 */
void gpu__cuda_trace_exit(struct gpu__cuda_frame *frame, cuabi_result rc)
{
    uint64_t t1 = gpu__now_ns();
    size_t i = (size_t)frame->index;
    const char *kinds = symbol_kinds[i];
    uint64_t args[GPU__CUDA_STACK_WORDS];
    unsigned n = 0, gpr = 0, vec = 0, stack = 0;

    for (; kinds[n] && n < GPU__CUDA_STACK_WORDS && stack < GPU__CUDA_STACK_WORDS; n++) {
        char k = kinds[n];
        uint64_t w;

        if (k == 's' || k == '?')
            break;
        if (k == 'f' || k == 'd') {
            w = vec < 8 ? frame->vec[vec++][0] : frame->stack[stack++];
            if (k == 'f') {
                uint32_t bits = (uint32_t)w;
                float f;
                double d;

                memcpy(&f, &bits, sizeof(f));
                d = f;
                memcpy(&w, &d, sizeof(w));
            }
        } else {
            w = gpr < GPU__CUDA_INT_ARGS ? frame->gpr[gpr++] : frame->stack[stack++];
            if (k == 'i')
                w = (uint64_t)(int64_t)(int32_t)w;
            else if (k == 'u')
                w = (uint32_t)w;
        }
        args[n] = w;
    }
    gpu__trace_forwarded((unsigned)i, kinds, args, n, rc, frame->t0, t1);
}

/* ---- The public view (gpushim/driver.h) ---- */

size_t gpu_cuda_get_symbol_count(void)
{
    return GPU__CUDA_SYMBOL_COUNT;
}

gpu_status gpu_cuda_get_symbol(size_t index, const char **name, void **target)
{
    GPU__NOT_NULL(name, target);
    if (index >= GPU__CUDA_SYMBOL_COUNT)
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "index %zu is past the last symbol (%d)", index,
                         GPU__CUDA_SYMBOL_COUNT - 1);
    resolve_once();
    *name = symbol_names[index];
    *target = targets[index];
    switch (found[index]) {
    case FOUND_EXPORT:
        return GPU_OK;
    case FOUND_MISSING:
        return gpu__fail(GPU_ERR_NOT_SUPPORTED, (int)CUABI_ERROR_NOT_SUPPORTED,
                         "%s: the loaded CUDA driver does not export it; calls return CUDA_ERROR_NOT_SUPPORTED",
                         symbol_names[index]);
    case FOUND_INSIDE_GPUSHIM:
        return gpu__fail(GPU_ERR_DRIVER, (int)CUABI_ERROR_NOT_SUPPORTED,
                         "%s: the driver's export lies inside gpushim itself, so it was refused; calls return "
                         "CUDA_ERROR_NOT_SUPPORTED",
                         symbol_names[index]);
    default:
        return gpu__fail(no_driver_status, (int)CUABI_ERROR_STUB_LIBRARY, "%s: %s", symbol_names[index], reason);
    }
}

gpu_status gpu_driver_get_symbol(const char *symbol, void **out)
{
    void *handle = NULL;
    gpu_status st;
    void *p;

    GPU__NOT_NULL(symbol, out);
    st = gpu__driver_handle(&handle);
    if (st != GPU_OK)
        return st;
    p = dlsym(handle, symbol);
    if (!p)
        return gpu__fail(GPU_ERR_NOT_SUPPORTED, 0, "%s: the loaded CUDA driver does not export it", symbol);
    if (gpu__inside_gpushim(p))
        return gpu__fail(GPU_ERR_DRIVER, 0, "%s: the driver's export lies inside gpushim itself; refused", symbol);
    *out = p;
    return GPU_OK;
}
