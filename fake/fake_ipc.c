/*
 * The fake driver's IPC handles of memory and events. A handle names its
 * exporting process: one opened in that process maps the very allocation or
 * event; another process is told the handle cannot be opened here.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "fake_internal.h"

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
    if (rc == CUABI_SUCCESS && (!handle || !fake_alloc_at(ptr, FAKE_ALLOC_PLAIN)))
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
        struct fake_alloc *a = fake_alloc_at(addr, FAKE_ALLOC_PLAIN);

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
            /* The very event again: destroying either handle leaves the other (fake_event.c). */
            e->ipc_opens++;
            fake.live[GPU_FAKE_LIVE_EVENTS]++;
            *event = (cuabi_event)(void *)e;
        }
    }
    return fake_end(rc);
}
