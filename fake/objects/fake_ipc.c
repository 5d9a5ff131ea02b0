/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's IPC handles of memory and events. A handle names its
 * exporting process and what it exported. Opened in that process, it is the
 * very allocation or event. Memory opened in another process is the
 * allocation's memfd (fake_shm.c), which cuIpcGetMemHandle made its
 * backing: the handle names the exporter's descriptor of it, which another
 * process of the same user opens through /proc/PID/fd and checks (a sealed
 * memfd of this user's, with the random name and the size the handle says)
 * before it maps it shared. An exported event shares a page the same way:
 * how many records were queued and how many have run. The exporter runs its
 * stream up to each record as it queues it (fake_ipc_event_recorded() in
 * fake_event.c), so
 * another process waiting for the event waits only for that work, never for
 * the exporter to synchronise.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fake_core.h"
#include "fake_context.h"
#include "fake_device.h"
#include "fake_event.h"
#include "fake_memory.h"
#include "fake_shm.h"
#include "fake_stream.h"

/* What a fake handle holds: the exporting process and what it exported. */
struct ipc_payload {
    char magic[8];
    uint64_t pid;
    uint64_t what; /* an address, or an event handle */
    uint64_t size; /* memory: the allocation's bytes */
    uint64_t tag;  /* memory: its memfd's name */
    int32_t fd;    /* memory: the exporter's descriptor of that memfd */
    int32_t device;
};
_Static_assert(sizeof(struct ipc_payload) <= CUABI_IPC_HANDLE_SIZE, "a handle holds the payload");

static const char mem_magic[8] = "fakeipm";
static const char event_magic[8] = "fakeipe";
static const char shm_prefix[] = "gpushim-fake-ipc:";
static const char event_prefix[] = "gpushim-fake-ipe:";

static void ipc_pack(char *handle, const struct ipc_payload *p)
{
    memset(handle, 0, CUABI_IPC_HANDLE_SIZE);
    memcpy(handle, p, sizeof(*p));
}

/*
 * The payload of a handle with that magic: CUDA_SUCCESS for one of this
 * process; CUDA_ERROR_NOT_SUPPORTED for one of another process (a memory
 * handle opens there: ipc_open_remote()); CUDA_ERROR_INVALID_HANDLE when
 * its process is gone, as the real driver says of it.
 */
static cuabi_result ipc_unpack(const char *handle, const char magic[8], struct ipc_payload *p)
{
    memcpy(p, handle, sizeof(*p));
    if (memcmp(p->magic, magic, sizeof(p->magic)) != 0 || p->pid == 0 || p->pid > INT32_MAX)
        return CUABI_ERROR_INVALID_VALUE;
    if (p->pid != (uint64_t)getpid())
        return kill((pid_t)p->pid, 0) != 0 && errno == ESRCH ? CUABI_ERROR_INVALID_HANDLE : CUABI_ERROR_NOT_SUPPORTED;
    return CUABI_SUCCESS;
}

/*
 * The exporter's memfd of the handle, checked: named `prefix` and the
 * handle's tag, of the handle's size; -1 (why on stderr) when it is not.
 */
static int ipc_shm_open(const struct ipc_payload *p, const char *prefix, size_t max)
{
    char path[64], rest[32], want[32];
    const char *why = NULL;
    size_t size = 0;
    int fd;

    /* A magic link of /proc: the kernel lets only a process that may trace the exporter (same user) open it. */
    snprintf(path, sizeof(path), "/proc/%" PRIu64 "/fd/%" PRId32, p->pid, p->fd);
    fd = p->fd >= 0 ? open(path, O_RDWR | O_CLOEXEC) : -1;
    snprintf(want, sizeof(want), "%016" PRIx64, p->tag);
    if (fd < 0)
        why = "its process's descriptor cannot be opened";
    else
        why = fake_shm_check(fd, prefix, 1, max, &size, rest, sizeof(rest));
    if (!why && (strcmp(rest, want) != 0 || size != p->size))
        why = "its process's descriptor is no longer that allocation";
    if (why) {
        fprintf(stderr, "gpushim-fakecuda: an IPC handle of process %" PRIu64 " does not open: %s\n", p->pid, why);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Maps another process's exported allocation at a new address of this one. */
static cuabi_result ipc_open_remote(const struct ipc_payload *p, cuabi_deviceptr *ptr)
{
    struct fake_alloc *a = NULL;
    unsigned char *data;
    cuabi_result rc;
    int fd;

    if (p->device < 0 || !fake_device_valid(p->device) || p->size == 0 ||
        p->size > fake.devices[p->device].desc.total_memory)
        return CUABI_ERROR_INVALID_VALUE;
    if ((fd = ipc_shm_open(p, shm_prefix, fake.devices[p->device].desc.total_memory)) < 0)
        return CUABI_ERROR_INVALID_HANDLE;
    if (!(data = fake_shm_map(fd, p->size, 0, NULL))) {
        close(fd);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    rc = fake_alloc_adopt(p->device, p->size, data, fd, &a);
    if (rc == CUABI_SUCCESS)
        *ptr = a->addr;
    return rc;
}

cuabi_result cuIpcGetMemHandle(cuabi_ipc_mem_handle *handle, cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuIpcGetMemHandle, true);
    struct fake_ctx *c = NULL;
    struct fake_alloc *a = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    /* The base of a cuMemAlloc allocation, as the real driver wants. */
    if (rc == CUABI_SUCCESS && (!handle || !(a = fake_alloc_at(ptr, FAKE_ALLOC_PLAIN))))
        rc = CUABI_ERROR_INVALID_VALUE;
    /* From now on in memory another process can map. */
    if (rc == CUABI_SUCCESS && !a->shared && !fake_alloc_share(a))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        struct ipc_payload p = {.pid = (uint64_t)getpid(), .what = ptr, .size = a->size, .tag = a->shm_tag,
                                .fd = a->shm_fd, .device = a->device};

        memcpy(p.magic, mem_magic, sizeof(p.magic));
        ipc_pack(handle->reserved, &p);
    }
    return fake_end(rc);
}

cuabi_result cuIpcOpenMemHandle_v2(cuabi_deviceptr *ptr, cuabi_ipc_mem_handle handle, unsigned int flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuIpcOpenMemHandle_v2, true);
    struct fake_ctx *c = NULL;
    struct ipc_payload p;

    if (rc == CUABI_SUCCESS && (!ptr || (flags & ~(unsigned)CUABI_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = ipc_unpack(handle.reserved, mem_magic, &p);
    if (rc == CUABI_ERROR_NOT_SUPPORTED)
        rc = ipc_open_remote(&p, ptr);
    else if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = fake_alloc_at(p.what, FAKE_ALLOC_PLAIN);

        if (!a) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            a->ipc_opens++;
            fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS]++;
            *ptr = p.what;
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
    if (rc == CUABI_SUCCESS && fake_alloc_at(ptr, FAKE_ALLOC_IPC)) {
        fake_alloc_release(fake_alloc_at(ptr, FAKE_ALLOC_IPC));
    } else if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = fake_alloc_at(ptr, FAKE_ALLOC_PLAIN);

        if (!a || a->ipc_opens == 0) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            a->ipc_opens--;
            fake.live[GPU_FAKE_LIVE_DEVICE_ALLOCS]--;
        }
    }
    return fake_end(rc);
}

/* ---- Events another process sees ---- */

/* A new page for an exported event, or NULL. */
static struct fake_ipc_event *event_share(void)
{
    struct fake_ipc_event *s = calloc(1, sizeof(*s));
    char name[64];

    if (!s || getentropy(&s->tag, sizeof(s->tag)) != 0) {
        free(s);
        return NULL;
    }
    snprintf(name, sizeof(name), "%s%016" PRIx64, event_prefix, s->tag);
    s->fd = fake_shm_create(name, FAKE_IPC_EVENT_PAGE);
    s->page = s->fd >= 0 ? (struct fake_ipc_event_page *)(void *)fake_shm_map(s->fd, FAKE_IPC_EVENT_PAGE, 0, NULL) : NULL;
    if (!s->page) {
        if (s->fd >= 0)
            close(s->fd);
        free(s);
        return NULL;
    }
    return s;
}

/* An event of `ctx` that is another process's exported event. */
static cuabi_result event_open_remote(const struct ipc_payload *p, struct fake_ctx *ctx, cuabi_event *event)
{
    struct fake_ipc_event *s = calloc(1, sizeof(*s));
    struct fake_event *e = NULL;

    if (!s)
        return CUABI_ERROR_OUT_OF_MEMORY;
    if (p->size != FAKE_IPC_EVENT_PAGE || (s->fd = ipc_shm_open(p, event_prefix, FAKE_IPC_EVENT_PAGE)) < 0) {
        free(s);
        return CUABI_ERROR_INVALID_HANDLE;
    }
    s->page = (struct fake_ipc_event_page *)(void *)fake_shm_map(s->fd, FAKE_IPC_EVENT_PAGE, 0, NULL);
    s->remote = (pid_t)p->pid;
    if (!s->page || !(e = fake_event_new(ctx, CUABI_EVENT_INTERPROCESS | CUABI_EVENT_DISABLE_TIMING))) {
        if (s->page)
            munmap(s->page, FAKE_IPC_EVENT_PAGE);
        close(s->fd);
        free(s);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    e->shared = s;
    *event = (cuabi_event)(void *)e;
    return CUABI_SUCCESS;
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
    /* From now on its records are seen by other processes. */
    if (rc == CUABI_SUCCESS && !e->shared && !(e->shared = event_share()))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        struct ipc_payload p = {.pid = (uint64_t)getpid(), .what = (uintptr_t)e, .size = FAKE_IPC_EVENT_PAGE,
                                .tag = e->shared->tag, .fd = e->shared->fd};

        memcpy(p.magic, event_magic, sizeof(p.magic));
        ipc_pack(handle->reserved, &p);
    }
    return fake_end(rc);
}

cuabi_result cuIpcOpenEventHandle(cuabi_event *event, cuabi_ipc_event_handle handle)
{
    cuabi_result rc = fake_begin(FAKE_E_cuIpcOpenEventHandle, true);
    struct fake_ctx *c = NULL;
    struct ipc_payload p;

    if (rc == CUABI_SUCCESS && !event)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS)
        rc = ipc_unpack(handle.reserved, event_magic, &p);
    if (rc == CUABI_ERROR_NOT_SUPPORTED)
        rc = event_open_remote(&p, c, event);
    else if (rc == CUABI_SUCCESS) {
        struct fake_event *e = fake_event_find((const void *)(uintptr_t)p.what);

        if (!e) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            /* The very event again: destroying either handle leaves the other (fake_event.c). */
            e->ipc_opens++;
            fake.live[GPU_FAKE_LIVE_EVENTS]++;
            *event = (cuabi_event)(void *)e;
        }
    }
    return fake_end(rc);
}
