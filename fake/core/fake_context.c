/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's contexts: one primary context per device, retained and
 * released by count, a per-thread stack of current contexts, peer access
 * between contexts, limits and the stream priority range. What a context owns
 * (streams, events, graphs, modules, textures, arrays, memory) goes through
 * the parts' hooks (fake_parts()), in their order: the context names none of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_faults.h"

static _Thread_local struct {
    struct fake_ctx *stack[FAKE_STACK_MAX];
    int depth;
} tls;

cuabi_result fake_ctx_error(const struct fake_ctx *ctx)
{
    cuabi_result rc = fake_device_lost(ctx->device);

    return rc != CUABI_SUCCESS ? rc : ctx->sticky;
}

/* Destroys what every part keeps of the context (its work finishes first); how many there were. */
static unsigned long parts_reset(struct fake_ctx *c)
{
    size_t n;
    const struct fake_part *p = fake_parts(&n);
    unsigned long freed = 0;

    for (size_t i = 0; i < n; i++)
        if (p[i].ctx_reset)
            freed += p[i].ctx_reset(c);
    return freed;
}

struct fake_ctx *fake_current(void)
{
    return tls.depth ? tls.stack[tls.depth - 1] : NULL;
}

cuabi_result fake_need_ctx(struct fake_ctx **out)
{
    struct fake_ctx *c = fake_current();

    if (!c || c->retains == 0)
        return CUABI_ERROR_INVALID_CONTEXT;
    if (fake_ctx_error(c))
        return fake_ctx_error(c);
    *out = c;
    return CUABI_SUCCESS;
}

/* The context a handle is, active or not; NULL for anything else (compared, never dereferenced). */
static struct fake_ctx *ctx_lookup(cuabi_context handle)
{
    for (int i = 0; i < fake.device_count; i++)
        if ((void *)handle == (void *)&fake.devices[i].ctx)
            return &fake.devices[i].ctx;
    for (struct fake_ctx *c = fake.created; c; c = c->next_created)
        if ((void *)handle == (void *)c)
            return c;
    return NULL;
}

void fake_each_legacy(void (*fn)(struct fake_stream *, void *), void *arg)
{
    for (int i = 0; i < fake.device_count; i++)
        fn(&fake.devices[i].ctx.legacy, arg);
    for (struct fake_ctx *c = fake.created; c; c = c->next_created)
        if (c->retains)
            fn(&c->legacy, arg);
}

struct fake_ctx *fake_ctx_from(cuabi_context handle)
{
    struct fake_ctx *c = ctx_lookup(handle);

    return c && c->retains ? c : NULL;
}

bool fake_ctx_reaches(const struct fake_ctx *ctx, int device)
{
    return ctx->device == device || ctx->peer_enabled[device];
}

/* ---- Primary contexts ---- */

cuabi_result cuDevicePrimaryCtxRetain(cuabi_context *ctx, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDevicePrimaryCtxRetain, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!ctx) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else if (!fake_device_valid(dev)) {
            rc = CUABI_ERROR_INVALID_DEVICE;
        } else if (fake.devices[dev].ctx.sticky) {
            /* A corrupted primary context stays so, released or reset: "the process must be terminated". */
            rc = fake.devices[dev].ctx.sticky;
        } else {
            fake.devices[dev].ctx.retains++;
            fake.live[GPU_FAKE_LIVE_CONTEXT_RETAINS]++;
            *ctx = (cuabi_context)(void *)&fake.devices[dev].ctx;
        }
    }
    return fake_end(rc);
}

/* Destroys the primary context's resources (its work finishes first); how many there were. */
static unsigned long ctx_reset(struct fake_ctx *c)
{
    unsigned long freed = parts_reset(c);

    c->id = 0; /* retained again, it is a new context, with an ID of its own */
    c->cache_config = 0;
    /* The sticky error stays: the driver answers a retain after it with the same error (the H200, 580). */
    for (int i = 0; i < fake.device_count; i++) {
        c->peer_enabled[i] = false;
        fake.devices[i].ctx.peer_enabled[c->device] = false;
    }
    return freed;
}

cuabi_result cuDevicePrimaryCtxRelease_v2(cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDevicePrimaryCtxRelease_v2, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *c = fake_device_valid(dev) ? &fake.devices[dev].ctx : NULL;

        if (!c) {
            rc = CUABI_ERROR_INVALID_DEVICE;
        } else if (c->retains == 0) {
            fake.anomalies[GPU_FAKE_ANOMALY_BAD_RELEASE]++;
            rc = CUABI_ERROR_INVALID_CONTEXT;
        } else {
            fake.live[GPU_FAKE_LIVE_CONTEXT_RETAINS]--;
            /* The last release destroys the context's resources, as the real driver does; each was a leak. */
            if (--c->retains == 0)
                fake.anomalies[GPU_FAKE_ANOMALY_RELEASE_FREED] += ctx_reset(c);
        }
    }
    return fake_end(rc);
}

/*
 * cuDevicePrimaryCtxReset in both forms (CUDA 7.0's and 11.0's, alike): the
 * primary context's resources go, its retains stay; an inactive one has none.
 */
static cuabi_result primary_reset(enum fake_entry entry, cuabi_device dev)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    if (rc == CUABI_SUCCESS && fake.devices[dev].ctx.retains > 0)
        ctx_reset(&fake.devices[dev].ctx);
    return fake_end(rc);
}

cuabi_result cuDevicePrimaryCtxReset(cuabi_device dev)
{
    return primary_reset(FAKE_E_cuDevicePrimaryCtxReset, dev);
}

cuabi_result cuDevicePrimaryCtxReset_v2(cuabi_device dev)
{
    return primary_reset(FAKE_E_cuDevicePrimaryCtxReset_v2, dev);
}

/*
 * The flags the primary context is made with, kept while it is inactive.
 * CUDA 7.0's form refuses them while it is active; 11.0's (_v2) sets them
 * on the active context too.
 */
static cuabi_result primary_set_flags(enum fake_entry entry, cuabi_device dev, unsigned flags, bool while_active)
{
    cuabi_result rc = fake_begin(entry, true);
    unsigned sched = flags & CUABI_CTX_SCHED_MASK;

    if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    else if (rc == CUABI_SUCCESS && ((flags & ~(unsigned)CUABI_CTX_FLAGS_MASK) || (sched & (sched - 1))))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !while_active && fake.devices[dev].ctx.retains > 0)
        rc = CUABI_ERROR_PRIMARY_CONTEXT_ACTIVE;
    if (rc == CUABI_SUCCESS)
        fake.devices[dev].ctx.flags = flags;
    return fake_end(rc);
}

cuabi_result cuDevicePrimaryCtxSetFlags(cuabi_device dev, unsigned int flags)
{
    return primary_set_flags(FAKE_E_cuDevicePrimaryCtxSetFlags, dev, flags, false);
}

cuabi_result cuDevicePrimaryCtxSetFlags_v2(cuabi_device dev, unsigned int flags)
{
    return primary_set_flags(FAKE_E_cuDevicePrimaryCtxSetFlags_v2, dev, flags, true);
}

/* ---- Created contexts ---- */

/*
 * A context of its own on the device, pushed on the calling thread's stack,
 * as cuCtxCreate makes one: its streams, modules and memory are its own, and
 * go when it is destroyed. Its memory is kept after that (a handle another
 * thread still holds stays invalid, never reused).
 */
static cuabi_result ctx_create(enum fake_entry entry, cuabi_context *ctx, bool affinity, unsigned flags,
                               cuabi_device dev)
{
    cuabi_result rc = fake_begin(entry, true);
    unsigned sched = flags & CUABI_CTX_SCHED_MASK;
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && (!ctx || (flags & ~(unsigned)CUABI_CTX_FLAGS_MASK) || (sched & (sched - 1))))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);
    /* Execution affinity (green contexts, SM partitions) is not played by the fake. */
    if (rc == CUABI_SUCCESS && affinity)
        rc = CUABI_ERROR_NOT_SUPPORTED;
    if (rc == CUABI_SUCCESS && tls.depth == FAKE_STACK_MAX)
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS && !(c = calloc(1, sizeof(*c))))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        c->device = dev;
        c->retains = 1;
        c->created = true;
        c->flags = flags;
        c->legacy.ctx = c;
        c->legacy.legacy = true;
        c->next_created = fake.created;
        fake.created = c;
        fake.live[GPU_FAKE_LIVE_CONTEXTS]++;
        tls.stack[tls.depth++] = c;
        *ctx = (cuabi_context)(void *)c;
    }
    return fake_end(rc);
}

cuabi_result cuCtxCreate_v2(cuabi_context *ctx, unsigned int flags, cuabi_device dev)
{
    return ctx_create(FAKE_E_cuCtxCreate_v2, ctx, false, flags, dev);
}

cuabi_result cuCtxCreate_v3(cuabi_context *ctx, cuabi_exec_affinity_param *params, int count, unsigned int flags,
                            cuabi_device dev)
{
    if (count < 0 || (count > 0 && !params))
        return ctx_create(FAKE_E_cuCtxCreate_v3, NULL, false, flags, dev);
    return ctx_create(FAKE_E_cuCtxCreate_v3, ctx, count > 0, flags, dev);
}

cuabi_result cuCtxCreate_v4(cuabi_context *ctx, cuabi_ctx_create_params *params, unsigned int flags,
                            cuabi_device dev)
{
    bool affinity = params && (params->exec_affinity_count > 0 || params->cig);

    if (params && (params->exec_affinity_count < 0 || (params->exec_affinity_count > 0 && !params->exec_affinity)))
        return ctx_create(FAKE_E_cuCtxCreate_v4, NULL, false, flags, dev);
    return ctx_create(FAKE_E_cuCtxCreate_v4, ctx, affinity, flags, dev);
}

/* Takes a context off the calling thread's stack, wherever it is on it. */
static void stack_remove(const struct fake_ctx *c)
{
    int kept = 0;

    for (int i = 0; i < tls.depth; i++)
        if (tls.stack[i] != c)
            tls.stack[kept++] = tls.stack[i];
    tls.depth = kept;
}

/* Destroys a created context: its work finishes first, then what it owns goes with it. */
static void ctx_destroy(struct fake_ctx *c)
{
    parts_reset(c);
    c->retains = 0;
    fake.live[GPU_FAKE_LIVE_CONTEXTS]--;
    stack_remove(c);
}

cuabi_result cuCtxDestroy_v2(cuabi_context ctx)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxDestroy_v2, true);
    struct fake_ctx *c = rc == CUABI_SUCCESS ? fake_ctx_from(ctx) : NULL;

    /* A primary context is released, never destroyed: the driver refuses that too. */
    if (rc == CUABI_SUCCESS && (!c || !c->created))
        rc = CUABI_ERROR_INVALID_CONTEXT;
    if (rc == CUABI_SUCCESS)
        ctx_destroy(c);
    return fake_end(rc);
}

/*
 * The legacy usage count (cuCtxAttach, cuCtxDetach): a created context starts
 * at one use. Attaching counts one more use of the current context and hands
 * it out; detaching it, current, counts one less, and at none destroys it
 * and takes it off the calling thread's stack (a primary context's uses are
 * its retains: at none it is released, as cuDevicePrimaryCtxRelease does).
 */
cuabi_result cuCtxAttach(cuabi_context *ctx, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxAttach, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && (!ctx || flags))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        c->retains++;
        fake.live[GPU_FAKE_LIVE_CONTEXT_RETAINS] += !c->created;
        *ctx = (cuabi_context)(void *)c;
    }
    return fake_end(rc);
}

cuabi_result cuCtxDetach(cuabi_context ctx)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxDetach, true);
    struct fake_ctx *c = rc == CUABI_SUCCESS ? fake_ctx_from(ctx) : NULL;

    if (rc == CUABI_SUCCESS && (!c || c != fake_current()))
        rc = CUABI_ERROR_INVALID_CONTEXT;
    if (rc == CUABI_SUCCESS && c->created) {
        if (c->retains == 1)
            ctx_destroy(c);
        else
            c->retains--;
    } else if (rc == CUABI_SUCCESS) {
        fake.live[GPU_FAKE_LIVE_CONTEXT_RETAINS]--;
        if (--c->retains == 0) {
            fake.anomalies[GPU_FAKE_ANOMALY_RELEASE_FREED] += ctx_reset(c);
            stack_remove(c);
        }
    }
    return fake_end(rc);
}

/* The context a handle names, or the current one for NULL (CUDA 13's _v2 forms take one). */
static cuabi_result ctx_named(cuabi_context ctx, struct fake_ctx **out)
{
    if (!ctx)
        return fake_need_ctx(out);
    if (!(*out = fake_ctx_from(ctx)))
        return CUABI_ERROR_INVALID_CONTEXT;
    return fake_device_lost((*out)->device);
}

static cuabi_result ctx_get_device(enum fake_entry entry, cuabi_device *device, cuabi_context ctx)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && !device)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = ctx_named(ctx, &c);
    if (rc == CUABI_SUCCESS)
        *device = c->device;
    return fake_end(rc);
}

cuabi_result cuCtxGetDevice(cuabi_device *device)
{
    return ctx_get_device(FAKE_E_cuCtxGetDevice, device, NULL);
}

cuabi_result cuCtxGetDevice_v2(cuabi_device *device, cuabi_context ctx)
{
    return ctx_get_device(FAKE_E_cuCtxGetDevice_v2, device, ctx);
}

cuabi_result cuCtxGetFlags(unsigned int *flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetFlags, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && !flags)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        *flags = c->flags;
    return fake_end(rc);
}

cuabi_result cuCtxSetFlags(unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxSetFlags, true);
    unsigned sched = flags & CUABI_CTX_SCHED_MASK;
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && ((flags & ~(unsigned)CUABI_CTX_FLAGS_MASK) || (sched & (sched - 1))))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        c->flags = flags;
    return fake_end(rc);
}

cuabi_result cuCtxGetApiVersion(cuabi_context ctx, unsigned int *version)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetApiVersion, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && !version)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !ctx)
        rc = fake_need_ctx(&c);
    else if (rc == CUABI_SUCCESS && !(c = fake_ctx_from(ctx)))
        rc = CUABI_ERROR_INVALID_CONTEXT;
    /* The API version of contexts since CUDA 3.2, as the driver reports it. */
    if (rc == CUABI_SUCCESS)
        *version = 3020;
    return fake_end(rc);
}

/* ---- The current context ---- */

cuabi_result cuCtxGetCurrent(cuabi_context *ctx)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetCurrent, true);

    if (rc == CUABI_SUCCESS) {
        if (!ctx)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            *ctx = (cuabi_context)(void *)fake_current();
    }
    return fake_end(rc);
}

cuabi_result cuCtxSetCurrent(cuabi_context ctx)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxSetCurrent, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *c = fake_ctx_from(ctx);

        /* NULL pops the top, as documented; anything else replaces it. */
        if (!ctx) {
            if (tls.depth)
                tls.depth--;
        } else if (!c) {
            rc = CUABI_ERROR_INVALID_CONTEXT;
        } else if (tls.depth) {
            tls.stack[tls.depth - 1] = c;
        } else {
            tls.stack[tls.depth++] = c;
        }
    }
    return fake_end(rc);
}

cuabi_result cuCtxPushCurrent_v2(cuabi_context ctx)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxPushCurrent_v2, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *c = fake_ctx_from(ctx);

        if (!c)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        else if (tls.depth == FAKE_STACK_MAX)
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        else
            tls.stack[tls.depth++] = c;
    }
    return fake_end(rc);
}

cuabi_result cuCtxPopCurrent_v2(cuabi_context *ctx)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxPopCurrent_v2, true);

    if (rc == CUABI_SUCCESS) {
        if (tls.depth == 0) {
            rc = CUABI_ERROR_INVALID_CONTEXT;
        } else {
            tls.depth--;
            if (ctx)
                *ctx = (cuabi_context)(void *)tls.stack[tls.depth];
        }
    }
    return fake_end(rc);
}

static cuabi_result ctx_synchronize(enum fake_entry entry, cuabi_context ctx)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = ctx_named(ctx, &c);
    if (rc == CUABI_SUCCESS) {
        size_t n;
        const struct fake_part *p = fake_parts(&n);

        for (size_t i = 0; i < n && rc == CUABI_SUCCESS; i++)
            if (p[i].ctx_synchronize)
                rc = p[i].ctx_synchronize(c);
    }
    return fake_end(rc);
}

cuabi_result cuCtxSynchronize(void)
{
    return ctx_synchronize(FAKE_E_cuCtxSynchronize, NULL);
}

cuabi_result cuCtxSynchronize_v2(cuabi_context ctx)
{
    return ctx_synchronize(FAKE_E_cuCtxSynchronize_v2, ctx);
}

cuabi_result cuCtxEnablePeerAccess(cuabi_context peer, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxEnablePeerAccess, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *p = fake_ctx_from(peer);

        if (flags != 0)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!p)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        else if (p->device == c->device)
            rc = CUABI_ERROR_INVALID_DEVICE;
        else if (!fake.devices[c->device].peer_allowed[p->device])
            rc = CUABI_ERROR_PEER_ACCESS_UNSUPPORTED;
        else if (c->peer_enabled[p->device])
            rc = CUABI_ERROR_PEER_ACCESS_ALREADY_ENABLED;
        else
            c->peer_enabled[p->device] = true;
    }
    return fake_end(rc);
}

/* ---- Limits and stream priorities ---- */

enum { LIMIT_COUNT = CUABI_LIMIT_CIG_ENABLED + 1 };

/*
 * The limits as the H200's driver (580) answers them (docs/results.md): the defaults of the stack, the
 * printf FIFO, the malloc heap, the device runtime's pending launches and the L2 fetch granularity;
 * the persisting L2 set aside starts at three tenths of the device's maximum. The shared memory of a
 * CIG context (7) is the device's opt-in maximum and CIG (8) is off; both can only be read.
 */
static const size_t limit_defaults[LIMIT_COUNT] = {1024, 8650752, 8 << 20, 2, 2048, 64, 0, 0, 0};
static size_t limits[FAKE_MAX_DEVICES][LIMIT_COUNT];
static bool limits_set[FAKE_MAX_DEVICES][LIMIT_COUNT];

static size_t persisting_most(int device)
{
    int most = fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);

    return most > 0 ? (size_t)most : 0;
}

/* The device runtime's sync depth is no limit from compute capability 9.0 (get and set alike). */
static bool limit_known(int device, cuabi_limit limit)
{
    return limit < LIMIT_COUNT &&
           !(limit == CUABI_LIMIT_DEV_RUNTIME_SYNC_DEPTH &&
             fake_attribute(device, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) >= 9);
}

cuabi_result cuCtxGetLimit(size_t *value, cuabi_limit limit)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetLimit, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && !value)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !limit_known(c->device, limit))
        rc = CUABI_ERROR_UNSUPPORTED_LIMIT;
    if (rc == CUABI_SUCCESS) {
        if (limits_set[c->device][limit])
            *value = limits[c->device][limit];
        else if (limit == CUABI_LIMIT_PERSISTING_L2_CACHE_SIZE)
            *value = persisting_most(c->device) / 10 * 3;
        else if (limit == CUABI_LIMIT_SHMEM_SIZE)
            *value = (size_t)fake_attribute(c->device, CUABI_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
        else
            *value = limit_defaults[limit];
    }
    return fake_end(rc);
}

/*
 * Whether the driver takes `value` for the limit, and in *kept what the context then keeps: the stack
 * in 16-byte steps, refused past the device's memory (the H200 refuses 1 TiB, takes PyCUDA's 16 KiB);
 * the printf FIFO at least 512 KiB, the heap at least 4 MiB, pending launches at least 32; the fetch
 * granularity refused past 128 bytes; the persisting L2 rounded up to a tenth of the device's
 * maximum, refused past it.
 */
static bool limit_kept(int device, cuabi_limit limit, size_t value, size_t *kept)
{
    size_t most, step;

    switch (limit) {
    case CUABI_LIMIT_STACK_SIZE:
        *kept = (value + 15) / 16 * 16;
        return value <= fake.devices[device].desc.total_memory - 15;
    case CUABI_LIMIT_PRINTF_FIFO_SIZE: *kept = value < 524288 ? 524288 : value; return true;
    case CUABI_LIMIT_MALLOC_HEAP_SIZE: *kept = value < (4 << 20) ? 4 << 20 : value; return true;
    case CUABI_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: *kept = value < 32 ? 32 : value; return true;
    case CUABI_LIMIT_MAX_L2_FETCH_GRANULARITY: *kept = value; return value <= 128;
    case CUABI_LIMIT_PERSISTING_L2_CACHE_SIZE:
        most = persisting_most(device);
        step = most / 10;
        *kept = step ? (value + step - 1) / step * step : value;
        return value <= most;
    default: *kept = value; return true;
    }
}

cuabi_result cuCtxSetLimit(cuabi_limit limit, size_t value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxSetLimit, true);
    struct fake_ctx *c = NULL;
    size_t kept = 0;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && !limit_known(c->device, limit))
        rc = CUABI_ERROR_UNSUPPORTED_LIMIT;
    /* Those two can only be read; a persisting L2 needs a device with one. */
    if (rc == CUABI_SUCCESS && (limit == CUABI_LIMIT_SHMEM_SIZE || limit == CUABI_LIMIT_CIG_ENABLED))
        rc = CUABI_ERROR_NOT_PERMITTED;
    if (rc == CUABI_SUCCESS && limit == CUABI_LIMIT_PERSISTING_L2_CACHE_SIZE && !persisting_most(c->device))
        rc = CUABI_ERROR_UNSUPPORTED_LIMIT;
    if (rc == CUABI_SUCCESS) {
        if (!limit_kept(c->device, limit, value, &kept))
            rc = CUABI_ERROR_INVALID_VALUE;
    }
    if (rc == CUABI_SUCCESS) {
        limits[c->device][limit] = kept;
        limits_set[c->device][limit] = true;
    }
    return fake_end(rc);
}

cuabi_result cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetStreamPriorityRange, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && least)
        *least = FAKE_PRIORITY_LEAST;
    if (rc == CUABI_SUCCESS && greatest)
        *greatest = FAKE_PRIORITY_GREATEST;
    return fake_end(rc);
}

/*
 * A context's unique ID: numbered at the first ask, from the counter that
 * numbers streams too, so that no two contexts ever share one in a process.
 */
cuabi_result cuCtxGetId(cuabi_context ctx, unsigned long long *id)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetId, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && !id)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !ctx)
        rc = fake_need_ctx(&c);
    else if (rc == CUABI_SUCCESS && !(c = fake_ctx_from(ctx)))
        rc = CUABI_ERROR_INVALID_CONTEXT;
    if (rc == CUABI_SUCCESS) {
        if (!c->id)
            c->id = ++fake.last_id;
        *id = c->id;
    }
    return fake_end(rc);
}

/* The current context's preference between L1 and shared memory: kept and told, as the fake has no caches. */
cuabi_result cuCtxSetCacheConfig(cuabi_func_cache config)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxSetCacheConfig, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && (unsigned)config > CUABI_FUNC_CACHE_PREFER_EQUAL)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        c->cache_config = config;
    return fake_end(rc);
}

cuabi_result cuCtxGetCacheConfig(cuabi_func_cache *config)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetCacheConfig, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && !config)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        *config = (cuabi_func_cache)c->cache_config;
    return fake_end(rc);
}

/* The fake keeps no L2 lines, persisting or not: only the current context is checked. */
cuabi_result cuCtxResetPersistingL2Cache(void)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxResetPersistingL2Cache, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    return fake_end(rc);
}

/* The primary context's flags (kept while it is inactive too) and whether it is retained. */
cuabi_result cuDevicePrimaryCtxGetState(cuabi_device dev, unsigned int *flags, int *active)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDevicePrimaryCtxGetState, true);

    if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    else if (rc == CUABI_SUCCESS && (!flags || !active))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        *flags = fake.devices[dev].ctx.flags;
        *active = fake.devices[dev].ctx.retains > 0;
    }
    return fake_end(rc);
}

/* ---- Control API ---- */

FAKE_API long gpu_fake_primary_retains(int device)
{
    long n = -1;

    fake_lock();
    if (fake_device_valid(device))
        n = (long)fake.devices[device].ctx.retains;
    fake_unlock();
    return n;
}

FAKE_API int gpu_fake_context_depth(void)
{
    return tls.depth;
}
