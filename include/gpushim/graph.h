/* SPDX-License-Identifier: MIT */
/** @file
 * Graphs: work captured from a stream, replayed with one launch.
 */
#ifndef GPUSHIM_GRAPH_H
#define GPUSHIM_GRAPH_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which other threads' unsafe calls a capture forbids (CUstreamCaptureMode). */
typedef enum gpu_capture_mode {
    GPU_CAPTURE_MODE_GLOBAL = 0,       /**< any thread's */
    GPU_CAPTURE_MODE_THREAD_LOCAL = 1, /**< this thread's */
    GPU_CAPTURE_MODE_RELAXED = 2,      /**< none */
} gpu_capture_mode;

/**
 * Starts capturing the stream's work into a graph instead of running it.
 * Capture on GPU_DEVICE0_LEGACY_STREAM is impossible (GPU_ERR_INVALID_ARG). Capture on
 * an ordered stream (gpu_stream_create) makes legacy-stream calls from any
 * thread fail with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT while it is open: capture
 * on a gpu_stream_create_non_blocking() stream. While a GPU_CAPTURE_MODE_GLOBAL
 * capture of an ordered stream made here is open, gpushim itself gives every
 * legacy-stream operation asked of it (the synchronous copies and memsets,
 * gpu_buffer_copy_device_ptr(), a global's copies, work on
 * GPU_DEVICE0_LEGACY_STREAM) that answer, GPU_ERR_GRAPH_CAPTURE with CUresult 906,
 * without calling the driver: the capture is not invalidated behind its
 * user's back, and the driver's failing path (which has crashed under
 * concurrent copies) is not reached. The capture begins once the synchronous
 * legacy-stream operations already in the driver have returned.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT,
 * GPU_ERR_GRAPH_CAPTURE.
 * @param stream the stream to capture; not GPU_DEVICE0_LEGACY_STREAM
 * @param mode which other threads' unsafe calls the capture forbids
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_begin_capture(gpu_stream *stream, gpu_capture_mode mode);

/**
 * Ends the capture and returns the graph in *out (owned by the caller). If the
 * capture was invalidated (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901), the
 * capture is over and no graph is returned: GPU_ERR_GRAPH_CAPTURE.
 * @param stream the capturing stream
 * @param[out] out the new graph, the caller's to free with gpu_graph_destroy(); set only on success
 * @return GPU_OK, GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT,
 *         GPU_ERR_GRAPH_CAPTURE or GPU_ERR_OUT_OF_MEMORY
 */
GPU_API GPU_NODISCARD gpu_status gpu_stream_end_capture(gpu_stream *stream, gpu_graph **out);

/**
 * Whether the stream is capturing now. GPU_ERR_INVALID_ARG, GPU_ERR_NOT_SUPPORTED,
 * GPU_ERR_GRAPH_CAPTURE (a capture that was invalidated and not yet ended).
 * @param stream the stream
 * @param[out] capturing the answer; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_is_capturing(gpu_stream *stream, bool *capturing);

/**
 * Makes an executable graph of `graph` (cuGraphInstantiateWithFlags). GPU_ERR_GRAPH_LAUNCH.
 * @param graph the graph, from gpu_stream_end_capture()
 * @param[out] out the new executable graph, the caller's to free with gpu_graph_exec_destroy(); set only on success
 * @return GPU_OK, GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT,
 *         GPU_ERR_GRAPH_LAUNCH or GPU_ERR_OUT_OF_MEMORY
 */
GPU_API GPU_NODISCARD gpu_status gpu_graph_instantiate(gpu_graph *graph, gpu_graph_exec **out);

/**
 * Replays the executable graph on the stream. GPU_ERR_INVALID_ARG, GPU_ERR_GRAPH_LAUNCH.
 * @param stream the stream to replay it on
 * @param exec the executable graph
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_launch_graph(gpu_stream *stream, gpu_graph_exec *exec);

/**
 * Destroys the graph; its executable graphs live on. NULL does nothing.
 * @param graph the graph, or NULL
 */
GPU_API void gpu_graph_destroy(gpu_graph *graph);

/**
 * Destroys the executable graph; NULL does nothing.
 * @param exec the executable graph, or NULL
 */
GPU_API void gpu_graph_exec_destroy(gpu_graph_exec *exec);

/* ---- Graphs, further ---- */

/**
 * Updates `exec` in place to run `graph` instead (cuGraphExecUpdate, the 12.0
 * ABI): a graph of the same shape (a new capture of the same work) with other
 * kernel arguments or copy addresses. The next launch runs the new values. An
 * update the driver refuses (another topology, another node type, ...) leaves
 * `exec` as it was and returns GPU_ERR_GRAPH_LAUNCH with gpu_last_error_get_message()
 * saying why (e.g. "... : CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED: the
 * topology changed"). GPU_ERR_INVALID_ARG (NULL, graphs of two contexts),
 * GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT.
 * @param exec the executable graph to update
 * @param graph the graph whose values it takes; it stays the caller's
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_graph_exec_update(gpu_graph_exec *exec, gpu_graph *graph);

/**
 * Uploads the executable graph to the device on `stream` ahead of its first
 * launch (cuGraphUpload), so that launch does not pay for it.
 * GPU_ERR_INVALID_ARG (exec NULL, a stream of another device), GPU_ERR_NO_DRIVER,
 * GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_GRAPH_LAUNCH.
 * @param exec the executable graph
 * @param stream the stream to upload on, of the graph's device; GPU_DEVICE0_LEGACY_STREAM: device 0's legacy stream
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_graph_exec_upload(gpu_graph_exec *exec, gpu_stream *stream);

/** A stream's capture status (CUstreamCaptureStatus). */
typedef enum gpu_capture_status {
    GPU_CAPTURE_STATUS_NONE = 0,        /**< not capturing */
    GPU_CAPTURE_STATUS_ACTIVE = 1,      /**< capturing */
    GPU_CAPTURE_STATUS_INVALIDATED = 2, /**< broken: end it with gpu_stream_end_capture() */
} gpu_capture_status;

/**
 * The stream's capture status and, while capturing, the capture's id, unique
 * in the process (cuStreamGetCaptureInfo, the 12.0 ABI); *id is 0 when not
 * capturing. `id` may be NULL. GPU_DEVICE0_LEGACY_STREAM is never captured: asking
 * about it is GPU_ERR_INVALID_ARG.
 * GPU_ERR_INVALID_ARG, GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED, GPU_ERR_CONTEXT, GPU_ERR_GRAPH_CAPTURE.
 * @param stream the stream; not GPU_DEVICE0_LEGACY_STREAM
 * @param[out] status its capture status; written only on success
 * @param[out] id the capture's id, 0 when not capturing, or NULL to skip it; written only on success
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_stream_get_capture_info(gpu_stream *stream, gpu_capture_status *status, uint64_t *id);

/**
 * Writes the graph as Graphviz DOT to the file `path` (cuGraphDebugDotPrint),
 * `verbose` with every node's parameters: `dot -Tsvg path` draws what was
 * captured. GPU_ERR_INVALID_ARG (NULL), GPU_ERR_NO_DRIVER, GPU_ERR_NOT_SUPPORTED,
 * GPU_ERR_CONTEXT, GPU_ERR_DRIVER (the file could not be written).
 * @param graph the graph
 * @param path the file to write
 * @param verbose true to write every node's parameters too
 * @return GPU_OK, or one of the codes above
 */
GPU_API gpu_status gpu_graph_write_dot(gpu_graph *graph, const char *path, bool verbose);
/* ---- end of graphs, further ---- */

#ifdef __cplusplus
}
#endif

#endif
