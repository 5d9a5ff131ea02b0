/* SPDX-License-Identifier: MIT */
/*
 * Events shared between processes.
 */
#include <string.h>

#include "object.h"

static const struct gpu__kind interprocess_kind = GPU__KIND(cuEventCreate, cuEventDestroy, gpu__event_release, NULL);
/* An opened event is destroyed like any other. */
static const struct gpu__kind opened_kind = GPU__KIND(cuIpcOpenEventHandle, cuEventDestroy, gpu__event_release, NULL);

_Static_assert(sizeof(((gpu_ipc_event_handle *)0)->cuda) == sizeof(cuabi_ipc_event_handle), "the handle's size");

gpu_status gpu_event_create_interprocess(gpu_context *ctx, gpu_event **out)
{
    struct gpu__call c;
    gpu_event *e;

    GPU__NOT_NULL(out);
    e = gpu__object_new(&c, ctx, &interprocess_kind, sizeof(*e));
    return GPU__OBJECT_MAKE(&c, e, out, cuEventCreate, GPU_ERR_EVENT, &e->cu,
                            CUABI_EVENT_INTERPROCESS | CUABI_EVENT_DISABLE_TIMING);
}

gpu_status gpu_event_ipc_handle(const gpu_event *event, gpu_ipc_event_handle *out)
{
    GPU__NOT_NULL(event, out);
    if (event->obj.kind != &interprocess_kind)
        return GPU__INVALID("the event is not from gpu_event_create_interprocess()");
    return GPU__OBJECT_GET(event->obj.ctx, cuIpcGetEventHandle, GPU_ERR_EVENT,
                           (cuabi_ipc_event_handle *)(void *)out->cuda, event->cu);
}

gpu_status gpu_event_open_ipc(gpu_context *ctx, const gpu_ipc_event_handle *handle, gpu_event **out)
{
    cuabi_ipc_event_handle h;
    struct gpu__call c;
    gpu_event *e;

    GPU__NOT_NULL(handle, out);
    memcpy(&h, handle->cuda, sizeof(h));
    e = gpu__object_new(&c, ctx, &opened_kind, sizeof(*e));
    return GPU__OBJECT_MAKE(&c, e, out, cuIpcOpenEventHandle, GPU_ERR_EVENT, &e->cu, h);
}
