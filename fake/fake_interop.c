/*
 * The fake driver's memory and interop (issue 12): stream-ordered allocation
 * and the pool, pointer attributes and address ranges, memory info, managed
 * memory, stream priorities, graph update, upload, capture info and DOT,
 * IPC, and stream memory operations. How each is played: gpushim/fake.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_internal.h"

enum { PRIORITY_LEAST = 0, PRIORITY_GREATEST = -5 };

/* The one pool of each device: what it holds for reuse beyond its allocations in use. */
static struct fake_pool {
    uint64_t threshold;
    size_t cached;
} pools[FAKE_MAX_DEVICES];

static bool valid_device(cuabi_device dev)
{
    return dev >= 0 && dev < fake.device_count;
}

static struct fake_pool *pool_lookup(cuabi_mem_pool handle)
{
    for (int i = 0; i < fake.device_count; i++)
        if ((void *)handle == (void *)&pools[i])
            return &pools[i];
    return NULL;
}

static size_t pool_used(int device)
{
    size_t n = 0;

    for (struct fake_alloc *a = fake.allocs; a; a = a->next)
        if (a->device == device && a->kind == FAKE_ALLOC_POOL)
            n += a->size;
    return n;
}

/* Releases what the pool holds beyond max(keep, in use). */
static void pool_shrink(int device, uint64_t keep)
{
    size_t used = pool_used(device);
    uint64_t room = keep > used ? keep - used : 0;

    if (pools[device].cached > room)
        pools[device].cached = (size_t)room;
}

/* The live allocation at exactly `addr`, of `kind` (-1: any), or NULL. */
static struct fake_alloc *alloc_at(uint64_t addr, int kind)
{
    for (struct fake_alloc *a = fake.allocs; a; a = a->next)
        if (a->addr == addr && (kind < 0 || a->kind == kind))
            return a;
    return NULL;
}

/* ---- Stream-ordered allocation ---- */

cuabi_result cuMemAllocAsync(cuabi_deviceptr *ptr, size_t bytes, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAllocAsync, true);
    struct fake_stream *s = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS && (!ptr || bytes == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    /* A capture would record an allocation node, which this fake does not play. */
    if (rc == CUABI_SUCCESS && s->capture != FAKE_CAPTURE_NONE)
        rc = CUABI_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (rc == CUABI_SUCCESS)
        rc = fake_alloc_new(s->ctx->device, bytes, FAKE_ALLOC_POOL, &a);
    if (rc == CUABI_SUCCESS) {
        struct fake_pool *p = &pools[s->ctx->device];

        p->cached -= p->cached < bytes ? p->cached : bytes;
        *ptr = a->addr;
    }
    return fake_end(rc);
}

cuabi_result cuMemFreeAsync(cuabi_deviceptr ptr, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemFreeAsync, true);
    struct fake_stream *s = NULL;
    struct fake_op *op = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS && !alloc_at(ptr, FAKE_ALLOC_POOL))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !(op = fake_op_new(FAKE_OP_FREE)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        op->u.value.addr = ptr;
        rc = fake_enqueue(s, op);
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetDefaultMemPool(cuabi_mem_pool *pool, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetDefaultMemPool, true);

    if (rc == CUABI_SUCCESS && !pool)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !valid_device(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    else if (rc == CUABI_SUCCESS)
        *pool = (cuabi_mem_pool)(void *)&pools[dev];
    return fake_end(rc);
}

cuabi_result cuMemPoolSetAttribute(cuabi_mem_pool pool, cuabi_mem_pool_attribute attr, void *value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolSetAttribute, true);
    struct fake_pool *p = pool_lookup(pool);

    /* The release threshold is the one attribute this fake plays. */
    if (rc == CUABI_SUCCESS && (!p || !value || attr != CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        memcpy(&p->threshold, value, sizeof(p->threshold));
    return fake_end(rc);
}

cuabi_result cuMemPoolGetAttribute(cuabi_mem_pool pool, cuabi_mem_pool_attribute attr, void *value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolGetAttribute, true);
    struct fake_pool *p = pool_lookup(pool);

    if (rc == CUABI_SUCCESS && (!p || !value))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        int device = (int)(p - pools);
        uint64_t v = 0;

        if (attr == CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD)
            v = p->threshold;
        else if (attr == CUABI_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
            v = pool_used(device) + p->cached;
        else if (attr == CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT)
            v = pool_used(device);
        else
            rc = CUABI_ERROR_INVALID_VALUE;
        if (rc == CUABI_SUCCESS)
            memcpy(value, &v, sizeof(v));
    }
    return fake_end(rc);
}

cuabi_result cuMemPoolTrimTo(cuabi_mem_pool pool, size_t keep)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPoolTrimTo, true);
    struct fake_pool *p = pool_lookup(pool);

    if (rc == CUABI_SUCCESS && !p)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        pool_shrink((int)(p - pools), keep);
    return fake_end(rc);
}

/* ---- Pointers and memory info ---- */

/* The page-locked host memory holding `addr`, or NULL. */
static struct fake_host *host_at(uint64_t addr)
{
    for (struct fake_host *h = fake.hosts; h; h = h->next)
        if (addr >= (uintptr_t)h->ptr && addr - (uintptr_t)h->ptr < h->size)
            return h;
    return NULL;
}

cuabi_result cuPointerGetAttributes(unsigned int count, cuabi_pointer_attribute *attributes, void **data,
                                    cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuPointerGetAttributes, true);
    struct fake_alloc *a = fake_alloc_find(ptr, 1);
    struct fake_host *h = a ? NULL : host_at(ptr);
    /* Page-locked host memory is portable here: it names device 0's context. */
    int device = a ? a->device : h ? 0 : -2;
    struct fake_ctx *ctx = device >= 0 ? &fake.devices[device].ctx : NULL;

    if (rc == CUABI_SUCCESS && (!attributes || !data || count == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    /* As documented: an address CUDA does not know is not an error; its attributes are zero. */
    for (unsigned i = 0; rc == CUABI_SUCCESS && i < count; i++) {
        void *out = data[i];
        unsigned type = a ? CUABI_MEMORYTYPE_DEVICE : h ? CUABI_MEMORYTYPE_HOST : 0;
        unsigned managed = a && a->kind == FAKE_ALLOC_MANAGED;
        uint64_t base = a ? a->addr : h ? (uintptr_t)h->ptr : 0;
        size_t size = a ? a->size : h ? h->size : 0;

        if (!out) {
            rc = CUABI_ERROR_INVALID_VALUE;
            break;
        }
        switch (attributes[i]) {
        case CUABI_POINTER_ATTRIBUTE_CONTEXT:
            memcpy(out, &ctx, sizeof(ctx));
            break;
        case CUABI_POINTER_ATTRIBUTE_MEMORY_TYPE:
            memcpy(out, &type, sizeof(type));
            break;
        case CUABI_POINTER_ATTRIBUTE_IS_MANAGED:
            memcpy(out, &managed, sizeof(managed));
            break;
        case CUABI_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
            memcpy(out, &device, sizeof(device));
            break;
        case CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR:
            memcpy(out, &base, sizeof(base));
            break;
        case CUABI_POINTER_ATTRIBUTE_RANGE_SIZE:
            memcpy(out, &size, sizeof(size));
            break;
        default:
            rc = CUABI_ERROR_INVALID_VALUE;
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemGetAddressRange_v2(cuabi_deviceptr *base, size_t *size, cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemGetAddressRange_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = fake_alloc_find(ptr, 1);

        if (!a || !fake_ctx_reaches(c, a->device)) {
            rc = CUABI_ERROR_NOT_FOUND;
        } else {
            if (base)
                *base = a->addr;
            if (size)
                *size = a->size;
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemGetInfo_v2, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS && (!free_bytes || !total_bytes))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        const struct fake_device *d = &fake.devices[c->device];

        *total_bytes = d->desc.total_memory;
        *free_bytes = d->desc.total_memory - d->used - pools[c->device].cached;
    }
    return fake_end(rc);
}

/* ---- Managed memory ---- */

cuabi_result cuMemAllocManaged(cuabi_deviceptr *ptr, size_t bytes, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAllocManaged, true);
    struct fake_ctx *c = NULL;
    struct fake_alloc *a = NULL;

    /* CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST. */
    if (rc == CUABI_SUCCESS && (!ptr || bytes == 0 || (flags != 1u && flags != 2u)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = fake_alloc_new(c->device, bytes, FAKE_ALLOC_MANAGED, &a);
    if (rc == CUABI_SUCCESS) {
        /* At its host address: the host reaches it directly, as on a real machine. */
        a->addr = (uintptr_t)a->data;
        *ptr = a->addr;
    }
    return fake_end(rc);
}

/* The managed allocation holding [ptr, ptr + bytes), and whether `dev` is a place for it. */
static cuabi_result managed_range(cuabi_deviceptr ptr, size_t bytes, cuabi_device dev, struct fake_alloc **out)
{
    struct fake_alloc *a = fake_alloc_find(ptr, bytes);

    if (!a || a->kind != FAKE_ALLOC_MANAGED || bytes == 0)
        return CUABI_ERROR_INVALID_VALUE;
    if (dev != CUABI_DEVICE_CPU && !valid_device(dev))
        return CUABI_ERROR_INVALID_DEVICE;
    *out = a;
    return CUABI_SUCCESS;
}

cuabi_result cuMemPrefetchAsync(cuabi_deviceptr ptr, size_t bytes, cuabi_device dst, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemPrefetchAsync, true);
    struct fake_stream *s = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS)
        rc = managed_range(ptr, bytes, dst, &a);
    if (rc == CUABI_SUCCESS)
        a->location = dst == CUABI_DEVICE_CPU ? -1 : dst;
    return fake_end(rc);
}

cuabi_result cuMemAdvise(cuabi_deviceptr ptr, size_t bytes, cuabi_mem_advise advice, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAdvise, true);
    struct fake_ctx *c = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = managed_range(ptr, bytes, dev, &a);
    if (rc == CUABI_SUCCESS && (advice < CUABI_MEM_ADVISE_SET_READ_MOSTLY || advice > CUABI_MEM_ADVISE_UNSET_ACCESSED_BY))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        a->advice = (int)advice;
    return fake_end(rc);
}

/* ---- Stream priorities ---- */

cuabi_result cuStreamCreateWithPriority(cuabi_stream *stream, unsigned int flags, int priority)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamCreateWithPriority, true);
    struct fake_ctx *c = NULL;
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && (!stream || (flags & ~(unsigned)CUABI_STREAM_NON_BLOCKING)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_new(c, flags, &s);
    if (rc == CUABI_SUCCESS) {
        s->priority = priority < PRIORITY_GREATEST ? PRIORITY_GREATEST
                      : priority > PRIORITY_LEAST  ? PRIORITY_LEAST
                                                   : priority;
        *stream = (cuabi_stream)(void *)s;
    }
    return fake_end(rc);
}

cuabi_result cuStreamGetPriority(cuabi_stream stream, int *priority)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamGetPriority, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && !priority)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS)
        *priority = s->priority;
    return fake_end(rc);
}

cuabi_result cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
    cuabi_result rc = fake_begin(FAKE_E_cuCtxGetStreamPriorityRange, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && least)
        *least = PRIORITY_LEAST;
    if (rc == CUABI_SUCCESS && greatest)
        *greatest = PRIORITY_GREATEST;
    return fake_end(rc);
}

/* ---- Graphs ---- */

/* Why `graph` cannot replace what `exec` runs, or SUCCESS: the same nodes, of the same kinds, in the same order. */
static cuabi_graph_exec_update_result update_check(const struct fake_graph *exec, const struct fake_graph *graph)
{
    const struct fake_op *x = exec->head, *g = graph->head;

    for (; x && g; x = x->next, g = g->next)
        if (x->kind != g->kind)
            return CUABI_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
    return x || g ? CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED : CUABI_GRAPH_EXEC_UPDATE_SUCCESS;
}

cuabi_result cuGraphExecUpdate_v2(cuabi_graph_exec exec, cuabi_graph graph, cuabi_graph_exec_update_result_info *info)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphExecUpdate_v2, true);
    struct fake_graph *x = fake_graph_find(exec, true), *g = fake_graph_find(graph, false);

    if (rc == CUABI_SUCCESS && (!x || !g || !info))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && x->ctx != g->ctx)
        rc = CUABI_ERROR_INVALID_CONTEXT;
    if (rc == CUABI_SUCCESS) {
        info->result = update_check(x, g);
        info->error_node = NULL;
        info->error_from_node = NULL;
        if (info->result != CUABI_GRAPH_EXEC_UPDATE_SUCCESS)
            rc = CUABI_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    /* Same shape: each node takes the new one's parameters. */
    for (struct fake_op *n = rc == CUABI_SUCCESS ? x->head : NULL, *m = g ? g->head : NULL; n && m;
         n = n->next, m = m->next) {
        if (n->kind == FAKE_OP_KERNEL) { /* the node gives up its arguments and shares the new one's */
            fake_host_args_retain(m->u.k.host);
            fake_host_args_release(n->u.k.host);
        }
        n->u = m->u;
    }
    return fake_end(rc);
}

cuabi_result cuGraphUpload(cuabi_graph_exec exec, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphUpload, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_graph *x = fake_graph_find(exec, true);

        /* Nothing to upload in host memory: the checks are all there is. */
        if (!x)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (x->ctx != s->ctx)
            rc = CUABI_ERROR_INVALID_CONTEXT;
    }
    return fake_end(rc);
}

cuabi_result cuStreamGetCaptureInfo_v2(cuabi_stream stream, cuabi_stream_capture_status *status, cuabi_uint64 *id,
                                       cuabi_graph *graph, const cuabi_graph_node **deps, size_t *ndeps)
{
    cuabi_result rc = fake_begin(FAKE_E_cuStreamGetCaptureInfo_v2, true);
    struct fake_stream *s = NULL;

    if (rc == CUABI_SUCCESS && (!status || (deps && !ndeps)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        bool active = s->capture == FAKE_CAPTURE_ACTIVE;

        *status = (cuabi_stream_capture_status)s->capture;
        if (id && s->capture != FAKE_CAPTURE_NONE)
            *id = s->capture_id;
        if (graph && active)
            *graph = (cuabi_graph)(void *)s->capture_graph;
        /* The fake's graph nodes have no handles: no dependencies to name. */
        if (deps && active)
            *deps = NULL;
        if (ndeps && active)
            *ndeps = 0;
    }
    return fake_end(rc);
}

static const char *op_name(enum fake_op_kind kind)
{
    switch (kind) {
    case FAKE_OP_KERNEL: return "kernel";
    case FAKE_OP_COPY: return "memcpy";
    case FAKE_OP_HOST_FN: return "host";
    case FAKE_OP_RECORD: return "event_record";
    case FAKE_OP_WAIT: return "event_wait";
    case FAKE_OP_FREE: return "mem_free";
    case FAKE_OP_WRITE_VALUE: return "write_value";
    case FAKE_OP_WAIT_VALUE: return "wait_value";
    case FAKE_OP_MEMSET: return "memset";
    }
    return "unknown";
}

cuabi_result cuGraphDebugDotPrint(cuabi_graph graph, const char *path, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuGraphDebugDotPrint, true);
    struct fake_graph *g = fake_graph_find(graph, false);
    FILE *f = NULL;

    if (rc == CUABI_SUCCESS && (!g || !path))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && !(f = fopen(path, "w")))
        rc = CUABI_ERROR_OPERATING_SYSTEM;
    if (rc == CUABI_SUCCESS) {
        int i = 0;

        fprintf(f, "digraph fake_graph {\n");
        for (const struct fake_op *n = g->head; n; n = n->next, i++) {
            fprintf(f, "  node%d [label=\"%s\"", i, op_name(n->kind));
            if ((flags & CUABI_GRAPH_DEBUG_DOT_FLAGS_VERBOSE) && n->kind == FAKE_OP_KERNEL)
                fprintf(f, " grid=\"%u,%u,%u\" block=\"%u,%u,%u\"", n->u.k.grid[0], n->u.k.grid[1], n->u.k.grid[2],
                        n->u.k.block[0], n->u.k.block[1], n->u.k.block[2]);
            fprintf(f, "];\n");
            if (i > 0)
                fprintf(f, "  node%d -> node%d;\n", i - 1, i);
        }
        fprintf(f, "}\n");
        if (fclose(f) != 0)
            rc = CUABI_ERROR_OPERATING_SYSTEM;
    }
    return fake_end(rc);
}

/* ---- IPC ---- */

/* What a fake handle holds: the exporting process and what it exported. */
struct ipc_payload {
    char magic[8];
    uint64_t pid;
    uint64_t what; /* an address, or an event handle */
};
_Static_assert(sizeof(struct ipc_payload) <= CUABI_IPC_HANDLE_SIZE, "a handle holds the payload");

static const char mem_magic[8] = "fakeipm";
static const char event_magic[8] = "fakeipe";

static void ipc_pack(char *handle, const char magic[8], uint64_t what)
{
    struct ipc_payload p;

    memcpy(p.magic, magic, sizeof(p.magic));
    p.pid = (uint64_t)getpid();
    p.what = what;
    memset(handle, 0, CUABI_IPC_HANDLE_SIZE);
    memcpy(handle, &p, sizeof(p));
}

/* The exported thing of a handle of this process; else why it cannot be opened here. */
static cuabi_result ipc_unpack(const char *handle, const char magic[8], uint64_t *what)
{
    struct ipc_payload p;

    memcpy(&p, handle, sizeof(p));
    if (memcmp(p.magic, magic, sizeof(p.magic)) != 0)
        return CUABI_ERROR_INVALID_VALUE;
    if (p.pid != (uint64_t)getpid())
        return kill((pid_t)p.pid, 0) != 0 && errno == ESRCH ? CUABI_ERROR_INVALID_VALUE : CUABI_ERROR_NOT_SUPPORTED;
    *what = p.what;
    return CUABI_SUCCESS;
}

cuabi_result cuIpcGetMemHandle(cuabi_ipc_mem_handle *handle, cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuIpcGetMemHandle, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    /* The base of a cuMemAlloc allocation, as the real driver wants. */
    if (rc == CUABI_SUCCESS && (!handle || !alloc_at(ptr, FAKE_ALLOC_PLAIN)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        ipc_pack(handle->reserved, mem_magic, ptr);
    return fake_end(rc);
}

cuabi_result cuIpcOpenMemHandle_v2(cuabi_deviceptr *ptr, cuabi_ipc_mem_handle handle, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuIpcOpenMemHandle_v2, true);
    struct fake_ctx *c = NULL;
    uint64_t addr = 0;

    if (rc == CUABI_SUCCESS && (!ptr || (flags & ~(unsigned)CUABI_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = ipc_unpack(handle.reserved, mem_magic, &addr);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = alloc_at(addr, FAKE_ALLOC_PLAIN);

        if (!a) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            a->ipc_opens++;
            fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS]++;
            *ptr = addr;
        }
    }
    return fake_end(rc);
}

cuabi_result cuIpcCloseMemHandle(cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuIpcCloseMemHandle, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = alloc_at(ptr, FAKE_ALLOC_PLAIN);

        if (!a || a->ipc_opens == 0) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            a->ipc_opens--;
            fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS]--;
        }
    }
    return fake_end(rc);
}

cuabi_result cuIpcGetEventHandle(cuabi_ipc_event_handle *handle, cuabi_event event)
{
    cuabi_result rc = fake_begin(FAKE_E_cuIpcGetEventHandle, true);
    struct fake_event *e = fake_event_find(event);

    if (rc == CUABI_SUCCESS && !handle)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !e)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS &&
             (e->flags & (CUABI_EVENT_INTERPROCESS | CUABI_EVENT_DISABLE_TIMING)) !=
                 (CUABI_EVENT_INTERPROCESS | CUABI_EVENT_DISABLE_TIMING))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        ipc_pack(handle->reserved, event_magic, (uintptr_t)e);
    return fake_end(rc);
}

cuabi_result cuIpcOpenEventHandle(cuabi_event *event, cuabi_ipc_event_handle handle)
{
    cuabi_result rc = fake_begin(FAKE_E_cuIpcOpenEventHandle, true);
    struct fake_ctx *c = NULL;
    uint64_t what = 0;

    if (rc == CUABI_SUCCESS && !event)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = ipc_unpack(handle.reserved, event_magic, &what);
    if (rc == CUABI_SUCCESS) {
        struct fake_event *e = fake_event_find((const void *)(uintptr_t)what);

        if (!e) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            /* The very event again: destroying either handle leaves the other (fake_stream.c). */
            e->ipc_opens++;
            fake.live[GPU_FAKE_LIVE_EVENTS]++;
            *event = (cuabi_event)(void *)e;
        }
    }
    return fake_end(rc);
}

/* ---- Stream memory operations ---- */

/* The value at the operation's address, or false when it is not allocated memory. */
static bool value_read(const struct fake_op *op, uint64_t *v)
{
    struct fake_alloc *a = fake_alloc_find(op->u.value.addr, op->u.value.width);
    uint32_t v32;

    if (!a)
        return false;
    if (op->u.value.width == 4) {
        memcpy(&v32, a->data + (op->u.value.addr - a->addr), sizeof(v32));
        *v = v32;
    } else {
        memcpy(v, a->data + (op->u.value.addr - a->addr), sizeof(*v));
    }
    return true;
}

static bool value_met(const struct fake_op *op, uint64_t v)
{
    uint64_t want = op->u.value.value;
    uint64_t mask = op->u.value.width == 4 ? 0xffffffffull : ~0ull;

    switch (op->u.value.cond & 3u) {
    case CUABI_STREAM_WAIT_VALUE_GEQ:
        return op->u.value.width == 4 ? (int32_t)(uint32_t)(v - want) >= 0 : (int64_t)(v - want) >= 0;
    case CUABI_STREAM_WAIT_VALUE_EQ:
        return v == want;
    case CUABI_STREAM_WAIT_VALUE_AND:
        return (v & want) != 0;
    default:
        return (~(v | want) & mask) != 0;
    }
}

bool fake_op_blocked(const struct fake_op *op)
{
    uint64_t v;

    /* Memory gone is not a wait: the operation runs, and faults. */
    return op && op->kind == FAKE_OP_WAIT_VALUE && value_read(op, &v) && !value_met(op, v);
}

bool fake_interop_run(const struct fake_op *op)
{
    struct fake_alloc *a;
    uint64_t v;

    switch (op->kind) {
    case FAKE_OP_FREE:
        a = alloc_at(op->u.value.addr, FAKE_ALLOC_POOL);
        if (!a)
            return false;
        pools[a->device].cached += a->size;
        v = (uint64_t)a->device;
        fake_alloc_free(op->u.value.addr);
        pool_shrink((int)v, pools[v].threshold);
        return true;
    case FAKE_OP_WRITE_VALUE:
        a = fake_alloc_find(op->u.value.addr, op->u.value.width);
        if (!a)
            return false;
        if (op->u.value.width == 4) {
            uint32_t v32 = (uint32_t)op->u.value.value;

            memcpy(a->data + (op->u.value.addr - a->addr), &v32, sizeof(v32));
        } else {
            memcpy(a->data + (op->u.value.addr - a->addr), &op->u.value.value, sizeof(op->u.value.value));
        }
        /* A stream waiting on it in another thread may go on. */
        pthread_cond_broadcast(&fake.cond);
        return true;
    case FAKE_OP_WAIT_VALUE:
        return value_read(op, &v);
    default:
        return false;
    }
}

static cuabi_result value_op(enum fake_entry entry, enum fake_op_kind kind, cuabi_stream stream, cuabi_deviceptr addr,
                             uint64_t value, unsigned width, unsigned flags)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_stream *s = NULL;
    struct fake_op *op = NULL;
    /* Writes: NO_MEMORY_BARRIER; waits: the four conditions and FLUSH. */
    unsigned allowed = kind == FAKE_OP_WRITE_VALUE ? 1u : 3u | (1u << 30);

    if (rc == CUABI_SUCCESS && ((flags & ~allowed) || addr % width))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = fake_alloc_find(addr, width);

        if (!a || !fake_ctx_reaches(s->ctx, a->device))
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!(op = fake_op_new(kind)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
    }
    if (rc == CUABI_SUCCESS) {
        op->u.value.addr = addr;
        op->u.value.value = value;
        op->u.value.width = width;
        op->u.value.cond = flags;
        rc = fake_enqueue(s, op);
    }
    return fake_end(rc);
}

cuabi_result cuStreamWriteValue32_v2(cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint32 value, unsigned int flags)
{
    return value_op(FAKE_E_cuStreamWriteValue32_v2, FAKE_OP_WRITE_VALUE, stream, addr, value, 4, flags);
}

cuabi_result cuStreamWriteValue64_v2(cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint64 value, unsigned int flags)
{
    return value_op(FAKE_E_cuStreamWriteValue64_v2, FAKE_OP_WRITE_VALUE, stream, addr, value, 8, flags);
}

cuabi_result cuStreamWaitValue32_v2(cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint32 value, unsigned int flags)
{
    return value_op(FAKE_E_cuStreamWaitValue32_v2, FAKE_OP_WAIT_VALUE, stream, addr, value, 4, flags);
}

cuabi_result cuStreamWaitValue64_v2(cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint64 value, unsigned int flags)
{
    return value_op(FAKE_E_cuStreamWaitValue64_v2, FAKE_OP_WAIT_VALUE, stream, addr, value, 8, flags);
}

/* ---- Control API ---- */

FAKE_API long long gpu_fake_pool_cached(int device)
{
    long long n = -1;

    fake_lock();
    if (valid_device(device))
        n = (long long)pools[device].cached;
    fake_unlock();
    return n;
}

static int managed_field(uint64_t addr, bool location)
{
    int v;

    fake_lock();
    {
        struct fake_alloc *a = fake_alloc_find(addr, 1);

        v = !a || a->kind != FAKE_ALLOC_MANAGED ? (location ? -2 : -1) : location ? a->location : a->advice;
    }
    fake_unlock();
    return v;
}

FAKE_API int gpu_fake_managed_location(uint64_t addr)
{
    return managed_field(addr, true);
}

FAKE_API int gpu_fake_managed_advice(uint64_t addr)
{
    return managed_field(addr, false);
}
