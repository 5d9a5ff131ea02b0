/* SPDX-License-Identifier: MIT */
/** @file
 * Events: markers in a stream that the host can poll or wait for.
 */
#ifndef GPUSHIM_EVENT_H
#define GPUSHIM_EVENT_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Creates an event in `ctx` (NULL: device 0) with timing disabled, the
 * cheapest kind to record and query. GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER,
 * GPU_ERR_NO_DEVICE, GPU_ERR_CONTEXT, GPU_ERR_EVENT, GPU_ERR_OUT_OF_MEMORY.
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] out the new event, the caller's to free with gpu_event_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_event_create(gpu_context *ctx, gpu_event **out);

/**
 * Creates an event that records time, for gpu_event_get_elapsed_ms(). Same returns.
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] out the new event, the caller's to free with gpu_event_destroy(); set only on success
 * @return as gpu_event_create()
 */
GPU_API GPU_NODISCARD gpu_status gpu_event_create_timed(gpu_context *ctx, gpu_event **out);

/**
 * Destroys the event; NULL does nothing.
 * @param event the event, or NULL
 */
GPU_API void gpu_event_destroy(gpu_event *event);

/**
 * The CUevent.
 * @param event the event, or NULL
 * @return the CUevent, or NULL for NULL
 */
GPU_API void *gpu_event_get_raw(const gpu_event *event);

/**
 * Whether the work before the event's last record is done, without blocking.
 * CUDA_ERROR_NOT_READY is "not yet": *done = false and GPU_OK. An event never
 * recorded is complete. GPU_ERR_INVALID_ARG, GPU_ERR_CONTEXT, GPU_ERR_EVENT.
 * @param event the event
 * @param[out] done whether it is complete; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_event_is_complete(gpu_event *event, bool *done);

/**
 * Blocks until the event completes. GPU_ERR_INVALID_ARG, GPU_ERR_CONTEXT, GPU_ERR_EVENT.
 * @param event the event
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_event_synchronize(gpu_event *event);

/**
 * Milliseconds between two completed timed events (cuEventElapsedTime),
 * about half a microsecond resolution. GPU_ERR_INVALID_ARG (a NULL argument,
 * an event without timing), GPU_ERR_EVENT (not recorded or not complete).
 * @param start the earlier event, created timed
 * @param end the later event, created timed
 * @param[out] ms the milliseconds from start to end; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_event_get_elapsed_ms(gpu_event *start, gpu_event *end, float *ms);

/* ---- Interprocess events ---- */

/**
 * An event's interprocess handle (CUipcEventHandle), as plain bytes: send
 * them to another process any way you like.
 */
typedef struct gpu_ipc_event_handle {
    unsigned char cuda[64]; /**< the driver's CUipcEventHandle, as it gave it */
} gpu_ipc_event_handle;

/**
 * Creates an event another process can open (CU_EVENT_INTERPROCESS, timing
 * disabled). Same returns as gpu_event_create().
 * @param ctx the context; NULL: device 0's primary context
 * @param[out] out the new event, the caller's to free with gpu_event_destroy(); set only on success
 * @return as gpu_event_create()
 */
GPU_API GPU_NODISCARD gpu_status gpu_event_create_interprocess(gpu_context *ctx, gpu_event **out);

/**
 * The handle another process opens `event` with (cuIpcGetEventHandle); the
 * event must come from gpu_event_create_interprocess(). GPU_ERR_INVALID_ARG,
 * GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_EVENT.
 * @param event an event from gpu_event_create_interprocess()
 * @param[out] out the handle; set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_event_get_ipc_handle(const gpu_event *event, gpu_ipc_event_handle *out);

/**
 * Opens another process's event in `ctx` (NULL: device 0) (cuIpcOpenEventHandle):
 * streams may wait on it and the host may query or synchronise it; it cannot
 * be recorded here. Destroy it with gpu_event_destroy(). A handle the driver
 * refuses (of this process, of a process that exited): GPU_ERR_EVENT or
 * GPU_ERR_INVALID_ARG with the driver's reason. GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_OUT_OF_MEMORY.
 * GPU_ERR_INVALID_ARG also for a NULL handle or out.
 * @param ctx the context to open it in; NULL: device 0's primary context
 * @param handle the handle from gpu_event_get_ipc_handle() in the other process
 * @param[out] out the opened event, the caller's to free with gpu_event_destroy(); set only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API GPU_NODISCARD gpu_status gpu_event_open_ipc(gpu_context *ctx, const gpu_ipc_event_handle *handle,
                                                    gpu_event **out);
/* ---- end of interprocess events ---- */

#ifdef __cplusplus
}
#endif

#endif
