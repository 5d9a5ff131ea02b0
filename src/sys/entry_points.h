/*
 * The driver entry points gpushim uses: the only place a driver function is
 * named. The table, the resolver, the diagnostics and the ABI checks all
 * expand from this list.
 *
 *   GPU__ENTRY(need, name, symbol, params, args)
 *
 * need    REQUIRED: without it the driver is unusable (GPU_ERR_NO_DRIVER).
 *         OPTIONAL: without it only the calls that need it fail, with
 *         GPU_ERR_NOT_SUPPORTED.
 * name    the base name, as cuGetProcAddress wants it; also the table field.
 * symbol  the exported, versioned symbol of the CUDA 12.0 ABI (CUABI_VERSION):
 *         what dlsym looks up on a driver without cuGetProcAddress_v2, and
 *         what the resolved pointer is compared against.
 * params  the prototype's parameters, of the CUDA 12.0 ABI. Every entry
 *         point returns cuabi_result.
 * args    the parameters' names, in order, for code that forwards a call
 *         (a wrapper of the same prototype).
 *
 * No includer needs to define every parameter; this file has no include guard
 * on purpose.
 */

/* Errors. The library has its own name table for when these are absent. */
GPU__ENTRY(OPTIONAL, cuGetErrorName, cuGetErrorName, (cuabi_result error, const char **str), (error, str))
GPU__ENTRY(OPTIONAL, cuGetErrorString, cuGetErrorString, (cuabi_result error, const char **str), (error, str))

/* Devices. */
GPU__ENTRY(REQUIRED, cuDeviceGetCount, cuDeviceGetCount, (int *count), (count))
GPU__ENTRY(REQUIRED, cuDeviceGet, cuDeviceGet, (cuabi_device *device, int ordinal), (device, ordinal))
GPU__ENTRY(REQUIRED, cuDeviceGetName, cuDeviceGetName, (char *name, int len, cuabi_device dev), (name, len, dev))
GPU__ENTRY(REQUIRED, cuDeviceTotalMem, cuDeviceTotalMem_v2, (size_t *bytes, cuabi_device dev), (bytes, dev))
GPU__ENTRY(REQUIRED, cuDeviceGetAttribute, cuDeviceGetAttribute,
           (int *value, cuabi_device_attribute attrib, cuabi_device dev), (value, attrib, dev))
GPU__ENTRY(OPTIONAL, cuDeviceGetPCIBusId, cuDeviceGetPCIBusId, (char *bus_id, int len, cuabi_device dev),
           (bus_id, len, dev))
GPU__ENTRY(OPTIONAL, cuDeviceCanAccessPeer, cuDeviceCanAccessPeer,
           (int *can_access, cuabi_device dev, cuabi_device peer), (can_access, dev, peer))

/* Contexts. */
GPU__ENTRY(REQUIRED, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, (cuabi_context *ctx, cuabi_device dev),
           (ctx, dev))
GPU__ENTRY(REQUIRED, cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, (cuabi_device dev), (dev))
GPU__ENTRY(REQUIRED, cuCtxGetCurrent, cuCtxGetCurrent, (cuabi_context *ctx), (ctx))
GPU__ENTRY(REQUIRED, cuCtxSetCurrent, cuCtxSetCurrent, (cuabi_context ctx), (ctx))
GPU__ENTRY(REQUIRED, cuCtxPushCurrent, cuCtxPushCurrent_v2, (cuabi_context ctx), (ctx))
GPU__ENTRY(REQUIRED, cuCtxPopCurrent, cuCtxPopCurrent_v2, (cuabi_context *ctx), (ctx))
GPU__ENTRY(REQUIRED, cuCtxSynchronize, cuCtxSynchronize, (void), ())
GPU__ENTRY(OPTIONAL, cuCtxEnablePeerAccess, cuCtxEnablePeerAccess, (cuabi_context peer, unsigned int flags),
           (peer, flags))

/* Streams. */
GPU__ENTRY(REQUIRED, cuStreamCreate, cuStreamCreate, (cuabi_stream *stream, unsigned int flags), (stream, flags))
GPU__ENTRY(REQUIRED, cuStreamDestroy, cuStreamDestroy_v2, (cuabi_stream stream), (stream))
GPU__ENTRY(REQUIRED, cuStreamSynchronize, cuStreamSynchronize, (cuabi_stream stream), (stream))
GPU__ENTRY(REQUIRED, cuStreamQuery, cuStreamQuery, (cuabi_stream stream), (stream))
GPU__ENTRY(REQUIRED, cuStreamWaitEvent, cuStreamWaitEvent,
           (cuabi_stream stream, cuabi_event event, unsigned int flags), (stream, event, flags))
GPU__ENTRY(OPTIONAL, cuLaunchHostFunc, cuLaunchHostFunc,
           (cuabi_stream stream, cuabi_host_fn fn, void *user_data), (stream, fn, user_data))

/* Events. */
GPU__ENTRY(REQUIRED, cuEventCreate, cuEventCreate, (cuabi_event *event, unsigned int flags), (event, flags))
GPU__ENTRY(REQUIRED, cuEventDestroy, cuEventDestroy_v2, (cuabi_event event), (event))
GPU__ENTRY(REQUIRED, cuEventRecord, cuEventRecord, (cuabi_event event, cuabi_stream stream), (event, stream))
GPU__ENTRY(REQUIRED, cuEventQuery, cuEventQuery, (cuabi_event event), (event))
GPU__ENTRY(REQUIRED, cuEventSynchronize, cuEventSynchronize, (cuabi_event event), (event))
GPU__ENTRY(REQUIRED, cuEventElapsedTime, cuEventElapsedTime,
           (float *ms, cuabi_event start, cuabi_event end), (ms, start, end))

/* Memory. */
GPU__ENTRY(REQUIRED, cuMemAlloc, cuMemAlloc_v2, (cuabi_deviceptr *ptr, size_t bytes), (ptr, bytes))
GPU__ENTRY(REQUIRED, cuMemFree, cuMemFree_v2, (cuabi_deviceptr ptr), (ptr))
GPU__ENTRY(REQUIRED, cuMemcpyHtoD, cuMemcpyHtoD_v2, (cuabi_deviceptr dst, const void *src, size_t bytes),
           (dst, src, bytes))
GPU__ENTRY(REQUIRED, cuMemcpyDtoH, cuMemcpyDtoH_v2, (void *dst, cuabi_deviceptr src, size_t bytes), (dst, src, bytes))
GPU__ENTRY(REQUIRED, cuMemcpyDtoD, cuMemcpyDtoD_v2, (cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes),
           (dst, src, bytes))
GPU__ENTRY(REQUIRED, cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2,
           (cuabi_deviceptr dst, const void *src, size_t bytes, cuabi_stream stream), (dst, src, bytes, stream))
GPU__ENTRY(REQUIRED, cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2,
           (void *dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream), (dst, src, bytes, stream))
GPU__ENTRY(REQUIRED, cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2,
           (cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream), (dst, src, bytes, stream))
GPU__ENTRY(OPTIONAL, cuMemcpyPeerAsync, cuMemcpyPeerAsync,
           (cuabi_deviceptr dst, cuabi_context dst_ctx, cuabi_deviceptr src, cuabi_context src_ctx,
            size_t bytes, cuabi_stream stream), (dst, dst_ctx, src, src_ctx, bytes, stream))
GPU__ENTRY(REQUIRED, cuMemHostAlloc, cuMemHostAlloc, (void **ptr, size_t bytes, unsigned int flags),
           (ptr, bytes, flags))
GPU__ENTRY(REQUIRED, cuMemFreeHost, cuMemFreeHost, (void *ptr), (ptr))
GPU__ENTRY(REQUIRED, cuMemHostRegister, cuMemHostRegister_v2, (void *ptr, size_t bytes, unsigned int flags),
           (ptr, bytes, flags))
GPU__ENTRY(REQUIRED, cuMemHostUnregister, cuMemHostUnregister, (void *ptr), (ptr))

/* Modules and launches. */
GPU__ENTRY(REQUIRED, cuModuleLoadDataEx, cuModuleLoadDataEx,
           (cuabi_module *module, const void *image, unsigned int num_options,
            cuabi_jit_option *options, void **option_values), (module, image, num_options, options, option_values))
GPU__ENTRY(REQUIRED, cuModuleUnload, cuModuleUnload, (cuabi_module module), (module))
GPU__ENTRY(REQUIRED, cuModuleGetFunction, cuModuleGetFunction,
           (cuabi_function *function, cuabi_module module, const char *name), (function, module, name))
GPU__ENTRY(REQUIRED, cuLaunchKernel, cuLaunchKernel,
           (cuabi_function f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
            unsigned int block_x, unsigned int block_y, unsigned int block_z,
            unsigned int shared_mem_bytes, cuabi_stream stream, void **params, void **extra),
           (f, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem_bytes, stream, params, extra))

/* Stream capture and graphs. */
GPU__ENTRY(OPTIONAL, cuStreamBeginCapture, cuStreamBeginCapture_v2,
           (cuabi_stream stream, cuabi_stream_capture_mode mode), (stream, mode))
GPU__ENTRY(OPTIONAL, cuStreamEndCapture, cuStreamEndCapture, (cuabi_stream stream, cuabi_graph *graph),
           (stream, graph))
GPU__ENTRY(OPTIONAL, cuStreamIsCapturing, cuStreamIsCapturing,
           (cuabi_stream stream, cuabi_stream_capture_status *status), (stream, status))
GPU__ENTRY(OPTIONAL, cuGraphInstantiateWithFlags, cuGraphInstantiateWithFlags,
           (cuabi_graph_exec *exec, cuabi_graph graph, unsigned long long flags), (exec, graph, flags))
GPU__ENTRY(OPTIONAL, cuGraphLaunch, cuGraphLaunch, (cuabi_graph_exec exec, cuabi_stream stream), (exec, stream))
GPU__ENTRY(OPTIONAL, cuGraphDestroy, cuGraphDestroy, (cuabi_graph graph), (graph))
GPU__ENTRY(OPTIONAL, cuGraphExecDestroy, cuGraphExecDestroy, (cuabi_graph_exec exec), (exec))
