/* SPDX-License-Identifier: MIT */
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

/* Kernels: attributes, occupancy, extended launches, memset, globals, limits. */
GPU__ENTRY(OPTIONAL, cuFuncGetAttribute, cuFuncGetAttribute,
           (int *value, cuabi_function_attribute attrib, cuabi_function f), (value, attrib, f))
GPU__ENTRY(OPTIONAL, cuFuncSetAttribute, cuFuncSetAttribute,
           (cuabi_function f, cuabi_function_attribute attrib, int value), (f, attrib, value))
GPU__ENTRY(OPTIONAL, cuFuncSetCacheConfig, cuFuncSetCacheConfig, (cuabi_function f, cuabi_func_cache config),
           (f, config))
GPU__ENTRY(OPTIONAL, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
           cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
           (int *blocks, cuabi_function f, int block_size, size_t dynamic_shared, unsigned int flags),
           (blocks, f, block_size, dynamic_shared, flags))
GPU__ENTRY(OPTIONAL, cuOccupancyMaxPotentialBlockSizeWithFlags, cuOccupancyMaxPotentialBlockSizeWithFlags,
           (int *min_grid_size, int *block_size, cuabi_function f, cuabi_occupancy_b2d_size shared_of_block,
            size_t dynamic_shared, int block_size_limit, unsigned int flags),
           (min_grid_size, block_size, f, shared_of_block, dynamic_shared, block_size_limit, flags))
GPU__ENTRY(OPTIONAL, cuOccupancyMaxActiveClusters, cuOccupancyMaxActiveClusters,
           (int *clusters, cuabi_function f, const cuabi_launch_config *config), (clusters, f, config))
GPU__ENTRY(OPTIONAL, cuLaunchKernelEx, cuLaunchKernelEx,
           (const cuabi_launch_config *config, cuabi_function f, void **params, void **extra),
           (config, f, params, extra))
GPU__ENTRY(OPTIONAL, cuLaunchCooperativeKernel, cuLaunchCooperativeKernel,
           (cuabi_function f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
            unsigned int block_x, unsigned int block_y, unsigned int block_z,
            unsigned int shared_mem_bytes, cuabi_stream stream, void **params),
           (f, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem_bytes, stream, params))
GPU__ENTRY(OPTIONAL, cuMemsetD8, cuMemsetD8_v2, (cuabi_deviceptr dst, unsigned char value, size_t count),
           (dst, value, count))
GPU__ENTRY(OPTIONAL, cuMemsetD16, cuMemsetD16_v2, (cuabi_deviceptr dst, unsigned short value, size_t count),
           (dst, value, count))
GPU__ENTRY(OPTIONAL, cuMemsetD32, cuMemsetD32_v2, (cuabi_deviceptr dst, unsigned int value, size_t count),
           (dst, value, count))
GPU__ENTRY(OPTIONAL, cuMemsetD8Async, cuMemsetD8Async,
           (cuabi_deviceptr dst, unsigned char value, size_t count, cuabi_stream stream), (dst, value, count, stream))
GPU__ENTRY(OPTIONAL, cuMemsetD16Async, cuMemsetD16Async,
           (cuabi_deviceptr dst, unsigned short value, size_t count, cuabi_stream stream),
           (dst, value, count, stream))
GPU__ENTRY(OPTIONAL, cuMemsetD32Async, cuMemsetD32Async,
           (cuabi_deviceptr dst, unsigned int value, size_t count, cuabi_stream stream), (dst, value, count, stream))
GPU__ENTRY(OPTIONAL, cuModuleGetGlobal, cuModuleGetGlobal_v2,
           (cuabi_deviceptr *ptr, size_t *bytes, cuabi_module module, const char *name), (ptr, bytes, module, name))
GPU__ENTRY(OPTIONAL, cuCtxGetLimit, cuCtxGetLimit, (size_t *value, cuabi_limit limit), (value, limit))
GPU__ENTRY(OPTIONAL, cuCtxSetLimit, cuCtxSetLimit, (cuabi_limit limit, size_t value), (limit, value))
GPU__ENTRY(OPTIONAL, cuDeviceGetUuid, cuDeviceGetUuid_v2, (cuabi_uuid *uuid, cuabi_device dev), (uuid, dev))
GPU__ENTRY(OPTIONAL, cuTensorMapEncodeTiled, cuTensorMapEncodeTiled,
           (cuabi_tensor_map *map, cuabi_tensor_map_data_type type, cuabi_uint32 rank, void *address,
            const cuabi_uint64 *dims, const cuabi_uint64 *strides, const cuabi_uint32 *box,
            const cuabi_uint32 *element_strides, cuabi_tensor_map_interleave interleave,
            cuabi_tensor_map_swizzle swizzle, cuabi_tensor_map_l2_promotion l2_promotion,
            cuabi_tensor_map_oob_fill oob_fill),
           (map, type, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2_promotion,
            oob_fill))
/* Memory and interop: pools, pointers, managed memory, priorities, graph update, IPC, stream
   memory operations. */
GPU__ENTRY(OPTIONAL, cuMemAllocAsync, cuMemAllocAsync, (cuabi_deviceptr *ptr, size_t bytes, cuabi_stream stream),
           (ptr, bytes, stream))
GPU__ENTRY(OPTIONAL, cuMemFreeAsync, cuMemFreeAsync, (cuabi_deviceptr ptr, cuabi_stream stream), (ptr, stream))
GPU__ENTRY(OPTIONAL, cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, (cuabi_mem_pool *pool, cuabi_device dev),
           (pool, dev))
GPU__ENTRY(OPTIONAL, cuMemPoolSetAttribute, cuMemPoolSetAttribute,
           (cuabi_mem_pool pool, cuabi_mem_pool_attribute attr, void *value), (pool, attr, value))
GPU__ENTRY(OPTIONAL, cuMemPoolGetAttribute, cuMemPoolGetAttribute,
           (cuabi_mem_pool pool, cuabi_mem_pool_attribute attr, void *value), (pool, attr, value))
GPU__ENTRY(OPTIONAL, cuMemPoolTrimTo, cuMemPoolTrimTo, (cuabi_mem_pool pool, size_t keep), (pool, keep))
GPU__ENTRY(OPTIONAL, cuPointerGetAttributes, cuPointerGetAttributes,
           (unsigned int count, cuabi_pointer_attribute *attributes, void **data, cuabi_deviceptr ptr),
           (count, attributes, data, ptr))
GPU__ENTRY(OPTIONAL, cuMemGetAddressRange, cuMemGetAddressRange_v2,
           (cuabi_deviceptr *base, size_t *size, cuabi_deviceptr ptr), (base, size, ptr))
GPU__ENTRY(OPTIONAL, cuMemGetInfo, cuMemGetInfo_v2, (size_t *free_bytes, size_t *total_bytes),
           (free_bytes, total_bytes))
GPU__ENTRY(OPTIONAL, cuMemAllocManaged, cuMemAllocManaged, (cuabi_deviceptr *ptr, size_t bytes, unsigned int flags),
           (ptr, bytes, flags))
GPU__ENTRY(OPTIONAL, cuMemPrefetchAsync, cuMemPrefetchAsync,
           (cuabi_deviceptr ptr, size_t bytes, cuabi_device dst, cuabi_stream stream), (ptr, bytes, dst, stream))
GPU__ENTRY(OPTIONAL, cuMemAdvise, cuMemAdvise,
           (cuabi_deviceptr ptr, size_t bytes, cuabi_mem_advise advice, cuabi_device dev), (ptr, bytes, advice, dev))
GPU__ENTRY(OPTIONAL, cuStreamCreateWithPriority, cuStreamCreateWithPriority,
           (cuabi_stream *stream, unsigned int flags, int priority), (stream, flags, priority))
GPU__ENTRY(OPTIONAL, cuStreamGetPriority, cuStreamGetPriority, (cuabi_stream stream, int *priority),
           (stream, priority))
GPU__ENTRY(OPTIONAL, cuCtxGetStreamPriorityRange, cuCtxGetStreamPriorityRange, (int *least, int *greatest),
           (least, greatest))
GPU__ENTRY(OPTIONAL, cuGraphExecUpdate, cuGraphExecUpdate_v2,
           (cuabi_graph_exec exec, cuabi_graph graph, cuabi_graph_exec_update_result_info *info), (exec, graph, info))
GPU__ENTRY(OPTIONAL, cuGraphUpload, cuGraphUpload, (cuabi_graph_exec exec, cuabi_stream stream), (exec, stream))
GPU__ENTRY(OPTIONAL, cuStreamGetCaptureInfo, cuStreamGetCaptureInfo_v2,
           (cuabi_stream stream, cuabi_stream_capture_status *status, cuabi_uint64 *id, cuabi_graph *graph,
            const cuabi_graph_node **deps, size_t *ndeps), (stream, status, id, graph, deps, ndeps))
GPU__ENTRY(OPTIONAL, cuGraphDebugDotPrint, cuGraphDebugDotPrint,
           (cuabi_graph graph, const char *path, unsigned int flags), (graph, path, flags))
GPU__ENTRY(OPTIONAL, cuIpcGetMemHandle, cuIpcGetMemHandle, (cuabi_ipc_mem_handle *handle, cuabi_deviceptr ptr),
           (handle, ptr))
GPU__ENTRY(OPTIONAL, cuIpcOpenMemHandle, cuIpcOpenMemHandle_v2,
           (cuabi_deviceptr *ptr, cuabi_ipc_mem_handle handle, unsigned int flags), (ptr, handle, flags))
GPU__ENTRY(OPTIONAL, cuIpcCloseMemHandle, cuIpcCloseMemHandle, (cuabi_deviceptr ptr), (ptr))
GPU__ENTRY(OPTIONAL, cuIpcGetEventHandle, cuIpcGetEventHandle, (cuabi_ipc_event_handle *handle, cuabi_event event),
           (handle, event))
GPU__ENTRY(OPTIONAL, cuIpcOpenEventHandle, cuIpcOpenEventHandle,
           (cuabi_event *event, cuabi_ipc_event_handle handle), (event, handle))
GPU__ENTRY(OPTIONAL, cuStreamWriteValue32, cuStreamWriteValue32_v2,
           (cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint32 value, unsigned flags), (stream, addr, value, flags))
GPU__ENTRY(OPTIONAL, cuStreamWriteValue64, cuStreamWriteValue64_v2,
           (cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint64 value, unsigned flags), (stream, addr, value, flags))
GPU__ENTRY(OPTIONAL, cuStreamWaitValue32, cuStreamWaitValue32_v2,
           (cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint32 value, unsigned flags), (stream, addr, value, flags))
GPU__ENTRY(OPTIONAL, cuStreamWaitValue64, cuStreamWaitValue64_v2,
           (cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint64 value, unsigned flags), (stream, addr, value, flags))
