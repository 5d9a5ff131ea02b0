/*
 * The fake driver's devices and contexts: one primary context per device,
 * retained and released by count, and a per-thread stack of current contexts.
 */
#include <stdio.h>
#include <string.h>

#include "fake_internal.h"

/* Device addresses: far above any user-space pointer on x86-64, one region per device. */
#define FAKE_ADDR_BASE 0x0000a00000000000ull
#define FAKE_ADDR_STRIDE (1ull << 40)

static _Thread_local struct {
    struct fake_ctx *stack[FAKE_STACK_MAX];
    int depth;
} tls;

void fake_devices_configure(int count, bool peer)
{
    fake.device_count = count;
    for (int i = 0; i < count; i++) {
        struct fake_device *d = &fake.devices[i];

        snprintf(d->desc.name, sizeof(d->desc.name), "Fake CUDA Device %d", i);
        /* Each device differs, so that a test can tell which one it was told about. */
        d->desc.total_memory = ((size_t)256 + 64 * (size_t)i) << 20;
        d->desc.compute_major = 9 - i % 2;
        d->desc.compute_minor = i % 2 ? 6 : 0;
        d->desc.multiprocessors = 132 - 4 * i;
        snprintf(d->desc.pci_bus_id, sizeof(d->desc.pci_bus_id), "0000:%02x:00.0", (unsigned)(0x19 + 0x10 * i) & 0xffu);
        d->next_addr = FAKE_ADDR_BASE + FAKE_ADDR_STRIDE * (uint64_t)i;
        for (int j = 0; j < count; j++)
            d->peer_allowed[j] = peer && j != i;
        d->ctx.device = i;
        d->ctx.legacy.ctx = &d->ctx;
        d->ctx.legacy.legacy = true;
    }
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
    if (fake_device_lost(c->device))
        return fake_device_lost(c->device);
    *out = c;
    return CUABI_SUCCESS;
}

/* The context a handle is, active or not; NULL for anything else (compared, never dereferenced). */
static struct fake_ctx *ctx_lookup(cuabi_context handle)
{
    for (int i = 0; i < fake.device_count; i++)
        if ((void *)handle == (void *)&fake.devices[i].ctx)
            return &fake.devices[i].ctx;
    return NULL;
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

static bool valid_device(cuabi_device dev)
{
    return dev >= 0 && dev < fake.device_count;
}

/* ---- Devices ---- */

cuabi_result cuDeviceGetCount(int *count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetCount, true);

    if (rc == CUABI_SUCCESS) {
        if (!count)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            *count = fake.device_count;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGet(cuabi_device *device, int ordinal)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGet, true);

    if (rc == CUABI_SUCCESS) {
        if (!device)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!valid_device(ordinal))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *device = ordinal;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetName(char *name, int len, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetName, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!name || len <= 0)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!valid_device(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            snprintf(name, (size_t)len, "%s", fake.devices[dev].desc.name);
    }
    return fake_end(rc);
}

cuabi_result cuDeviceTotalMem_v2(size_t *bytes, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceTotalMem_v2, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!bytes)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!valid_device(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *bytes = fake.devices[dev].desc.total_memory;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetAttribute(int *value, cuabi_device_attribute attrib, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetAttribute, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        const gpu_fake_device_desc *d = valid_device(dev) ? &fake.devices[dev].desc : NULL;

        if (!value)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!d)
            rc = CUABI_ERROR_INVALID_DEVICE;
        else if (attrib == CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            *value = d->multiprocessors;
        else if (attrib == CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            *value = d->compute_major;
        else if (attrib == CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            *value = d->compute_minor;
        else if (!fake_device_attribute(dev, attrib, value))
            rc = CUABI_ERROR_INVALID_VALUE; /* the fake knows only the attributes gpushim asks for */
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetPCIBusId(char *bus_id, int len, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetPCIBusId, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!bus_id || len < 13)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!valid_device(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            snprintf(bus_id, (size_t)len, "%s", fake.devices[dev].desc.pci_bus_id);
    }
    return fake_end(rc);
}

cuabi_result cuDeviceCanAccessPeer(int *can_access, cuabi_device dev, cuabi_device peer)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceCanAccessPeer, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev) ? fake_device_lost(dev) : fake_device_lost(peer);

    if (rc == CUABI_SUCCESS) {
        if (!can_access)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!valid_device(dev) || !valid_device(peer))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *can_access = fake.devices[dev].peer_allowed[peer];
    }
    return fake_end(rc);
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
        } else if (!valid_device(dev)) {
            rc = CUABI_ERROR_INVALID_DEVICE;
        } else {
            fake.devices[dev].ctx.retains++;
            fake.live[GPU_FAKE_LIVE_CONTEXT_RETAINS]++;
            *ctx = (cuabi_context)(void *)&fake.devices[dev].ctx;
        }
    }
    return fake_end(rc);
}

/* The last release destroys the context's resources, as the real driver does; each was a leak. */
static void ctx_reset(struct fake_ctx *c)
{
    unsigned long freed = fake_streams_reset(c) + fake_modules_reset(c) + fake_memory_reset(c->device);

    fake.anomalies[GPU_FAKE_ANOMALY_RELEASE_FREED] += freed;
    for (int i = 0; i < fake.device_count; i++) {
        c->peer_enabled[i] = false;
        fake.devices[i].ctx.peer_enabled[c->device] = false;
    }
}

cuabi_result cuDevicePrimaryCtxRelease_v2(cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDevicePrimaryCtxRelease_v2, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *c = valid_device(dev) ? &fake.devices[dev].ctx : NULL;

        if (!c) {
            rc = CUABI_ERROR_INVALID_DEVICE;
        } else if (c->retains == 0) {
            fake.anomalies[GPU_FAKE_ANOMALY_BAD_RELEASE]++;
            rc = CUABI_ERROR_INVALID_CONTEXT;
        } else {
            fake.live[GPU_FAKE_LIVE_CONTEXT_RETAINS]--;
            if (--c->retains == 0)
                ctx_reset(c);
        }
    }
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

cuabi_result cuCtxSynchronize(void)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxSynchronize, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        /* Waiting for a capturing stream is impossible, so it is refused and breaks the capture. */
        if (fake_ctx_capturing(c, true))
            rc = CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        else
            rc = fake_ctx_drain(c);
    }
    return fake_end(rc);
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

/* ---- Control API ---- */

FAKE_API int gpu_fake_device_count(void)
{
    int n;

    fake_lock();
    n = fake.device_count;
    fake_unlock();
    return n;
}

FAKE_API int gpu_fake_device_get(int ordinal, gpu_fake_device_desc *out)
{
    int rc = -1;

    fake_lock();
    if (valid_device(ordinal)) {
        *out = fake.devices[ordinal].desc;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API int gpu_fake_device_set(int ordinal, const gpu_fake_device_desc *desc)
{
    int rc = -1;

    fake_lock();
    if (valid_device(ordinal)) {
        fake.devices[ordinal].desc = *desc;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API void gpu_fake_peer_set(int device, int peer, bool allowed)
{
    fake_lock();
    if (valid_device(device) && valid_device(peer) && device != peer)
        fake.devices[device].peer_allowed[peer] = allowed;
    fake_unlock();
}

FAKE_API bool gpu_fake_peer_enabled(int device, int peer)
{
    bool on = false;

    fake_lock();
    if (valid_device(device) && valid_device(peer))
        on = fake.devices[device].ctx.peer_enabled[peer];
    fake_unlock();
    return on;
}

FAKE_API long gpu_fake_primary_retains(int device)
{
    long n = -1;

    fake_lock();
    if (valid_device(device))
        n = (long)fake.devices[device].ctx.retains;
    fake_unlock();
    return n;
}

FAKE_API size_t gpu_fake_device_used(int ordinal)
{
    size_t n = 0;

    fake_lock();
    if (valid_device(ordinal))
        n = fake.devices[ordinal].used;
    fake_unlock();
    return n;
}

FAKE_API int gpu_fake_context_depth(void)
{
    return tls.depth;
}
