/* SPDX-License-Identifier: MIT */
/*
 * Driver entry points that the fake driver (fake/) implements beyond those
 * gpushim uses (entry_points.h), each with the prototype of its exported,
 * versioned symbol:
 *
 *   GPU__FAKE_ENTRY(symbol, params)
 *
 * tests/abi/test_abi_fake.c checks each against cuda.h's declaration of that
 * very symbol. No include guard, on purpose: define, include, undefine.
 */

/* Devices. */
GPU__FAKE_ENTRY(cuDeviceGetUuid, (cuabi_uuid *uuid, cuabi_device dev))
GPU__FAKE_ENTRY(cuDeviceComputeCapability, (int *major, int *minor, cuabi_device dev))

/* Contexts besides the primary one. */
GPU__FAKE_ENTRY(cuCtxCreate_v2, (cuabi_context *ctx, unsigned int flags, cuabi_device dev))
GPU__FAKE_ENTRY(cuCtxCreate_v3, (cuabi_context *ctx, cuabi_exec_affinity_param *params, int count,
                                 unsigned int flags, cuabi_device dev))
GPU__FAKE_ENTRY(cuCtxCreate_v4, (cuabi_context *ctx, cuabi_ctx_create_params *params, unsigned int flags,
                                 cuabi_device dev))
GPU__FAKE_ENTRY(cuCtxDestroy_v2, (cuabi_context ctx))
GPU__FAKE_ENTRY(cuCtxGetDevice, (cuabi_device *device))
GPU__FAKE_ENTRY(cuCtxGetFlags, (unsigned int *flags))
GPU__FAKE_ENTRY(cuCtxSetFlags, (unsigned int flags))
GPU__FAKE_ENTRY(cuCtxGetApiVersion, (cuabi_context ctx, unsigned int *version))

/* Modules in every form. */
GPU__FAKE_ENTRY(cuModuleLoad, (cuabi_module *module, const char *path))
GPU__FAKE_ENTRY(cuModuleLoadData, (cuabi_module *module, const void *image))
GPU__FAKE_ENTRY(cuModuleLoadFatBinary, (cuabi_module *module, const void *image))

/* Memory. */
GPU__FAKE_ENTRY(cuMemAllocHost_v2, (void **ptr, size_t bytes))
GPU__FAKE_ENTRY(cuMemAllocPitch_v2, (cuabi_deviceptr *ptr, size_t *pitch, size_t width, size_t height,
                                     unsigned int element_size))
GPU__FAKE_ENTRY(cuPointerGetAttribute, (void *data, cuabi_pointer_attribute attribute, cuabi_deviceptr ptr))
GPU__FAKE_ENTRY(cuMemsetD2D8_v2, (cuabi_deviceptr dst, size_t pitch, unsigned char value, size_t width,
                                  size_t height))
GPU__FAKE_ENTRY(cuMemsetD2D16_v2, (cuabi_deviceptr dst, size_t pitch, unsigned short value, size_t width,
                                   size_t height))
GPU__FAKE_ENTRY(cuMemsetD2D32_v2, (cuabi_deviceptr dst, size_t pitch, unsigned int value, size_t width,
                                   size_t height))
GPU__FAKE_ENTRY(cuMemsetD2D8Async, (cuabi_deviceptr dst, size_t pitch, unsigned char value, size_t width,
                                    size_t height, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemsetD2D16Async, (cuabi_deviceptr dst, size_t pitch, unsigned short value, size_t width,
                                     size_t height, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemsetD2D32Async, (cuabi_deviceptr dst, size_t pitch, unsigned int value, size_t width,
                                     size_t height, cuabi_stream stream))

/* Occupancy: the variants without flags, and the shared memory a block may still have. */
GPU__FAKE_ENTRY(cuOccupancyMaxActiveBlocksPerMultiprocessor, (int *blocks, cuabi_function f, int block_size,
                                                              size_t dynamic_shared))
GPU__FAKE_ENTRY(cuOccupancyMaxPotentialBlockSize, (int *min_grid_size, int *block_size, cuabi_function f,
                                                   cuabi_occupancy_b2d_size shared_of_block, size_t dynamic_shared,
                                                   int block_size_limit))
GPU__FAKE_ENTRY(cuOccupancyAvailableDynamicSMemPerBlock, (size_t *bytes, cuabi_function f, int blocks,
                                                          int block_size))

/* Virtual memory management and its shareable handles (fake_vmm.c). */
GPU__FAKE_ENTRY(cuMemGetAllocationGranularity, (size_t *granularity, const cuabi_mem_allocation_prop *prop,
                                                unsigned int option))
GPU__FAKE_ENTRY(cuMemAddressReserve, (cuabi_deviceptr *ptr, size_t size, size_t alignment, cuabi_deviceptr addr,
                                      unsigned long long flags))
GPU__FAKE_ENTRY(cuMemAddressFree, (cuabi_deviceptr ptr, size_t size))
GPU__FAKE_ENTRY(cuMemCreate, (cuabi_mem_handle *handle, size_t size, const cuabi_mem_allocation_prop *prop,
                              unsigned long long flags))
GPU__FAKE_ENTRY(cuMemRelease, (cuabi_mem_handle handle))
GPU__FAKE_ENTRY(cuMemMap, (cuabi_deviceptr ptr, size_t size, size_t offset, cuabi_mem_handle handle,
                           unsigned long long flags))
GPU__FAKE_ENTRY(cuMemUnmap, (cuabi_deviceptr ptr, size_t size))
GPU__FAKE_ENTRY(cuMemSetAccess, (cuabi_deviceptr ptr, size_t size, const cuabi_mem_access_desc *desc, size_t count))
GPU__FAKE_ENTRY(cuMemGetAccess, (unsigned long long *flags, const cuabi_mem_location *location, cuabi_deviceptr ptr))
GPU__FAKE_ENTRY(cuMemRetainAllocationHandle, (cuabi_mem_handle *handle, void *addr))
GPU__FAKE_ENTRY(cuMemGetAllocationPropertiesFromHandle, (cuabi_mem_allocation_prop *prop, cuabi_mem_handle handle))
GPU__FAKE_ENTRY(cuMemExportToShareableHandle, (void *shareable, cuabi_mem_handle handle,
                                               cuabi_mem_handle_type type, unsigned long long flags))
GPU__FAKE_ENTRY(cuMemImportFromShareableHandle, (cuabi_mem_handle *handle, void *os_handle,
                                                 cuabi_mem_handle_type type))

/* The JIT linker over PTX. */
GPU__FAKE_ENTRY(cuLinkCreate_v2, (unsigned int num_options, cuabi_jit_option *options, void **option_values,
                                  cuabi_link_state *state))
GPU__FAKE_ENTRY(cuLinkAddData_v2, (cuabi_link_state state, cuabi_jit_input_type type, void *data, size_t size,
                                   const char *name, unsigned int num_options, cuabi_jit_option *options,
                                   void **option_values))
GPU__FAKE_ENTRY(cuLinkAddFile_v2, (cuabi_link_state state, cuabi_jit_input_type type, const char *path,
                                   unsigned int num_options, cuabi_jit_option *options, void **option_values))
GPU__FAKE_ENTRY(cuLinkComplete, (cuabi_link_state state, void **image, size_t *size))
GPU__FAKE_ENTRY(cuLinkDestroy, (cuabi_link_state state))

/* Context-independent loading: libraries and their kernels. */
GPU__FAKE_ENTRY(cuLibraryLoadData, (cuabi_library *library, const void *code, cuabi_jit_option *jit_options,
                                    void **jit_option_values, unsigned int num_jit_options,
                                    cuabi_library_option *library_options, void **library_option_values,
                                    unsigned int num_library_options))
GPU__FAKE_ENTRY(cuLibraryLoadFromFile, (cuabi_library *library, const char *path, cuabi_jit_option *jit_options,
                                        void **jit_option_values, unsigned int num_jit_options,
                                        cuabi_library_option *library_options, void **library_option_values,
                                        unsigned int num_library_options))
GPU__FAKE_ENTRY(cuLibraryUnload, (cuabi_library library))
GPU__FAKE_ENTRY(cuLibraryGetKernel, (cuabi_kernel *kernel, cuabi_library library, const char *name))
GPU__FAKE_ENTRY(cuLibraryGetKernelCount, (unsigned int *count, cuabi_library library))
GPU__FAKE_ENTRY(cuLibraryEnumerateKernels, (cuabi_kernel *kernels, unsigned int count, cuabi_library library))
GPU__FAKE_ENTRY(cuLibraryGetModule, (cuabi_module *module, cuabi_library library))
GPU__FAKE_ENTRY(cuLibraryGetGlobal, (cuabi_deviceptr *ptr, size_t *bytes, cuabi_library library, const char *name))
GPU__FAKE_ENTRY(cuLibraryGetManaged, (cuabi_deviceptr *ptr, size_t *bytes, cuabi_library library, const char *name))
GPU__FAKE_ENTRY(cuKernelGetFunction, (cuabi_function *function, cuabi_kernel kernel))
GPU__FAKE_ENTRY(cuKernelGetLibrary, (cuabi_library *library, cuabi_kernel kernel))
GPU__FAKE_ENTRY(cuKernelGetName, (const char **name, cuabi_kernel kernel))
GPU__FAKE_ENTRY(cuKernelGetAttribute, (int *value, cuabi_function_attribute attrib, cuabi_kernel kernel,
                                       cuabi_device dev))
GPU__FAKE_ENTRY(cuKernelGetParamInfo, (cuabi_kernel kernel, size_t index, size_t *offset, size_t *size))

/* 2D and 3D copies between host memory, device memory and CUDA arrays. */
GPU__FAKE_ENTRY(cuMemcpy2D_v2, (const cuabi_memcpy2d *copy))
GPU__FAKE_ENTRY(cuMemcpy2DUnaligned_v2, (const cuabi_memcpy2d *copy))
GPU__FAKE_ENTRY(cuMemcpy2DAsync_v2, (const cuabi_memcpy2d *copy, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemcpy3D_v2, (const cuabi_memcpy3d *copy))
GPU__FAKE_ENTRY(cuMemcpy3DAsync_v2, (const cuabi_memcpy3d *copy, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemcpyHtoA_v2, (cuabi_array dst, size_t dst_offset, const void *src, size_t bytes))
GPU__FAKE_ENTRY(cuMemcpyAtoH_v2, (void *dst, cuabi_array src, size_t src_offset, size_t bytes))
GPU__FAKE_ENTRY(cuMemcpyDtoA_v2, (cuabi_array dst, size_t dst_offset, cuabi_deviceptr src, size_t bytes))
GPU__FAKE_ENTRY(cuMemcpyAtoD_v2, (cuabi_deviceptr dst, cuabi_array src, size_t src_offset, size_t bytes))
GPU__FAKE_ENTRY(cuMemcpyAtoA_v2, (cuabi_array dst, size_t dst_offset, cuabi_array src, size_t src_offset,
                                  size_t bytes))
GPU__FAKE_ENTRY(cuMemcpyHtoAAsync_v2, (cuabi_array dst, size_t dst_offset, const void *src, size_t bytes,
                                       cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemcpyAtoHAsync_v2, (void *dst, cuabi_array src, size_t src_offset, size_t bytes,
                                       cuabi_stream stream))

/* CUDA arrays and mipmapped arrays. */
GPU__FAKE_ENTRY(cuArrayCreate_v2, (cuabi_array *array, const cuabi_array_descriptor *desc))
GPU__FAKE_ENTRY(cuArray3DCreate_v2, (cuabi_array *array, const cuabi_array3d_descriptor *desc))
GPU__FAKE_ENTRY(cuArrayDestroy, (cuabi_array array))
GPU__FAKE_ENTRY(cuArrayGetDescriptor_v2, (cuabi_array_descriptor *desc, cuabi_array array))
GPU__FAKE_ENTRY(cuArray3DGetDescriptor_v2, (cuabi_array3d_descriptor *desc, cuabi_array array))
GPU__FAKE_ENTRY(cuMipmappedArrayCreate, (cuabi_mipmapped_array *mipmap, const cuabi_array3d_descriptor *desc,
                                         unsigned int levels))
GPU__FAKE_ENTRY(cuMipmappedArrayGetLevel, (cuabi_array *array, cuabi_mipmapped_array mipmap, unsigned int level))
GPU__FAKE_ENTRY(cuMipmappedArrayDestroy, (cuabi_mipmapped_array mipmap))

/* Texture and surface objects. */
GPU__FAKE_ENTRY(cuTexObjectCreate, (cuabi_tex_object *tex, const cuabi_resource_desc *res,
                                    const cuabi_texture_desc *desc, const cuabi_resource_view_desc *view))
GPU__FAKE_ENTRY(cuTexObjectDestroy, (cuabi_tex_object tex))
GPU__FAKE_ENTRY(cuTexObjectGetResourceDesc, (cuabi_resource_desc *res, cuabi_tex_object tex))
GPU__FAKE_ENTRY(cuTexObjectGetTextureDesc, (cuabi_texture_desc *desc, cuabi_tex_object tex))
GPU__FAKE_ENTRY(cuTexObjectGetResourceViewDesc, (cuabi_resource_view_desc *view, cuabi_tex_object tex))
GPU__FAKE_ENTRY(cuSurfObjectCreate, (cuabi_surf_object *surf, const cuabi_resource_desc *res))
GPU__FAKE_ENTRY(cuSurfObjectDestroy, (cuabi_surf_object surf))
GPU__FAKE_ENTRY(cuSurfObjectGetResourceDesc, (cuabi_resource_desc *res, cuabi_surf_object surf))

/* Page-locked host memory: its device address and flags. */
GPU__FAKE_ENTRY(cuMemHostGetDevicePointer_v2, (cuabi_deviceptr *ptr, void *host, unsigned int flags))
GPU__FAKE_ENTRY(cuMemHostGetFlags, (unsigned int *flags, void *host))

/* Copies between unified addresses, and the synchronous peer copy. */
GPU__FAKE_ENTRY(cuMemcpy, (cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes))
GPU__FAKE_ENTRY(cuMemcpyAsync, (cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemcpyPeer, (cuabi_deviceptr dst, cuabi_context dst_ctx, cuabi_deviceptr src,
                               cuabi_context src_ctx, size_t bytes))

/* What a stream, a context and a primary context say of themselves. */
GPU__FAKE_ENTRY(cuStreamGetCtx, (cuabi_stream stream, cuabi_context *ctx))
GPU__FAKE_ENTRY(cuStreamGetCtx_v2, (cuabi_stream stream, cuabi_context *ctx, cuabi_green_ctx *green))
GPU__FAKE_ENTRY(cuStreamGetFlags, (cuabi_stream stream, unsigned int *flags))
GPU__FAKE_ENTRY(cuStreamGetId, (cuabi_stream stream, unsigned long long *id))
GPU__FAKE_ENTRY(cuCtxGetId, (cuabi_context ctx, unsigned long long *id))
GPU__FAKE_ENTRY(cuDevicePrimaryCtxGetState, (cuabi_device dev, unsigned int *flags, int *active))
GPU__FAKE_ENTRY(cuCtxSetCacheConfig, (cuabi_func_cache config))
GPU__FAKE_ENTRY(cuCtxGetCacheConfig, (cuabi_func_cache *config))

/* Stream callbacks and records with flags. */
GPU__FAKE_ENTRY(cuStreamAddCallback, (cuabi_stream stream, cuabi_stream_callback callback, void *user_data,
                                      unsigned int flags))
GPU__FAKE_ENTRY(cuEventRecordWithFlags, (cuabi_event event, cuabi_stream stream, unsigned int flags))

/* What a module and its functions say of themselves. */
GPU__FAKE_ENTRY(cuFuncGetName, (const char **name, cuabi_function hfunc))
GPU__FAKE_ENTRY(cuFuncGetModule, (cuabi_module *hmod, cuabi_function hfunc))
GPU__FAKE_ENTRY(cuModuleGetFunctionCount, (unsigned int *count, cuabi_module mod))
GPU__FAKE_ENTRY(cuModuleEnumerateFunctions, (cuabi_function *functions, unsigned int num_functions, cuabi_module mod))
GPU__FAKE_ENTRY(cuModuleGetLoadingMode, (cuabi_module_loading_mode *mode))

/* Devices by PCI bus ID, their links, limits and current pool; the L2 persisting lines; a thread's capture mode. */
GPU__FAKE_ENTRY(cuDeviceGetByPCIBusId, (cuabi_device *dev, const char *pci_bus_id))
GPU__FAKE_ENTRY(cuDeviceGetP2PAttribute, (int *value, cuabi_p2p_attribute attrib, cuabi_device src, cuabi_device dst))
GPU__FAKE_ENTRY(cuDeviceGetTexture1DLinearMaxWidth, (size_t *max_width, cuabi_array_format format,
                                                     unsigned num_channels, cuabi_device dev))
GPU__FAKE_ENTRY(cuDeviceGetMemPool, (cuabi_mem_pool *pool, cuabi_device dev))
GPU__FAKE_ENTRY(cuDeviceSetMemPool, (cuabi_device dev, cuabi_mem_pool pool))
GPU__FAKE_ENTRY(cuCtxResetPersistingL2Cache, (void))
GPU__FAKE_ENTRY(cuThreadExchangeStreamCaptureMode, (cuabi_stream_capture_mode *mode))

/* 3D copies whose ends each name their context. */
GPU__FAKE_ENTRY(cuMemcpy3DPeer, (const cuabi_memcpy3d_peer *copy))
GPU__FAKE_ENTRY(cuMemcpy3DPeerAsync, (const cuabi_memcpy3d_peer *copy, cuabi_stream stream))

/* A stream's attributes: its access policy window, synchronization policy and priority. */
GPU__FAKE_ENTRY(cuStreamGetAttribute, (cuabi_stream stream, cuabi_launch_attribute_id attr,
                                       cuabi_launch_attribute_value *value))
GPU__FAKE_ENTRY(cuStreamSetAttribute, (cuabi_stream stream, cuabi_launch_attribute_id attr,
                                       const cuabi_launch_attribute_value *value))
GPU__FAKE_ENTRY(cuStreamCopyAttributes, (cuabi_stream dst, cuabi_stream src))

/* What advice and prefetches left on a range of managed memory. */
GPU__FAKE_ENTRY(cuMemRangeGetAttribute, (void *data, size_t data_size, cuabi_mem_range_attribute attribute,
                                         cuabi_deviceptr ptr, size_t bytes))
GPU__FAKE_ENTRY(cuMemRangeGetAttributes, (void **data, size_t *data_sizes, cuabi_mem_range_attribute *attributes,
                                          size_t count, cuabi_deviceptr ptr, size_t bytes))

/* The legacy launch API: a function's block shape, shared size and parameter buffer, then a launch. */
GPU__FAKE_ENTRY(cuFuncSetBlockShape, (cuabi_function f, int x, int y, int z))
GPU__FAKE_ENTRY(cuFuncSetSharedSize, (cuabi_function f, unsigned int bytes))
GPU__FAKE_ENTRY(cuParamSetSize, (cuabi_function f, unsigned int bytes))
GPU__FAKE_ENTRY(cuParamSeti, (cuabi_function f, int offset, unsigned int value))
GPU__FAKE_ENTRY(cuParamSetf, (cuabi_function f, int offset, float value))
GPU__FAKE_ENTRY(cuParamSetv, (cuabi_function f, int offset, void *ptr, unsigned int bytes))
GPU__FAKE_ENTRY(cuLaunch, (cuabi_function f))
GPU__FAKE_ENTRY(cuLaunchGrid, (cuabi_function f, int grid_width, int grid_height))
GPU__FAKE_ENTRY(cuLaunchGridAsync, (cuabi_function f, int grid_width, int grid_height, cuabi_stream stream))

/* cuGetProcAddress as CUDA 11.3 made it, without the status (fake_core.c). */
GPU__FAKE_ENTRY(cuGetProcAddress, (const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags))

/* CUDA 13's forms that name their context, and CUDA 12.8's elapsed time. */
GPU__FAKE_ENTRY(cuCtxGetDevice_v2, (cuabi_device *device, cuabi_context ctx))
GPU__FAKE_ENTRY(cuCtxSynchronize_v2, (cuabi_context ctx))
GPU__FAKE_ENTRY(cuEventElapsedTime_v2, (float *ms, cuabi_event start, cuabi_event end))

/* CUDA 12's forms: managed memory's location as a CUmemLocation, a capture's edges with their data. */
GPU__FAKE_ENTRY(cuMemPrefetchAsync_v2, (cuabi_deviceptr ptr, size_t bytes, cuabi_mem_location location,
                                        unsigned int flags, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemAdvise_v2, (cuabi_deviceptr ptr, size_t bytes, cuabi_mem_advise advice,
                                 cuabi_mem_location location))
GPU__FAKE_ENTRY(cuStreamGetCaptureInfo_v3, (cuabi_stream stream, cuabi_stream_capture_status *status, cuabi_uint64 *id,
                                            cuabi_graph *graph, const cuabi_graph_node **deps,
                                            const cuabi_graph_edge_data **edges, size_t *ndeps))

/* The primary context's reset and flags, in CUDA 7.0's form and 11.0's. */
GPU__FAKE_ENTRY(cuDevicePrimaryCtxReset, (cuabi_device dev))
GPU__FAKE_ENTRY(cuDevicePrimaryCtxReset_v2, (cuabi_device dev))
GPU__FAKE_ENTRY(cuDevicePrimaryCtxSetFlags, (cuabi_device dev, unsigned int flags))
GPU__FAKE_ENTRY(cuDevicePrimaryCtxSetFlags_v2, (cuabi_device dev, unsigned int flags))

/*
 * The legacy ABI (fake_legacy.c): the pre-_v2 forms, each served by its
 * successor. `unsigned int` for a device address or a size is cuda.h's
 * CUdeviceptr_v1 and its 32-bit sizes.
 */
GPU__FAKE_ENTRY(cuCtxCreate, (cuabi_context *ctx, unsigned int flags, cuabi_device dev))
GPU__FAKE_ENTRY(cuCtxDestroy, (cuabi_context ctx))
GPU__FAKE_ENTRY(cuCtxPushCurrent, (cuabi_context ctx))
GPU__FAKE_ENTRY(cuCtxPopCurrent, (cuabi_context *ctx))
GPU__FAKE_ENTRY(cuDevicePrimaryCtxRelease, (cuabi_device dev))
GPU__FAKE_ENTRY(cuStreamDestroy, (cuabi_stream stream))
GPU__FAKE_ENTRY(cuEventDestroy, (cuabi_event event))
GPU__FAKE_ENTRY(cuStreamBeginCapture, (cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemHostRegister, (void *ptr, size_t bytes, unsigned int flags))
GPU__FAKE_ENTRY(cuDeviceTotalMem, (unsigned int *bytes, cuabi_device dev))
GPU__FAKE_ENTRY(cuMemGetInfo, (unsigned int *free_bytes, unsigned int *total_bytes))
GPU__FAKE_ENTRY(cuMemAlloc, (unsigned int *ptr, unsigned int bytes))
GPU__FAKE_ENTRY(cuMemFree, (unsigned int ptr))
GPU__FAKE_ENTRY(cuMemcpyHtoD, (unsigned int dst, const void *src, unsigned int bytes))
GPU__FAKE_ENTRY(cuMemcpyDtoH, (void *dst, unsigned int src, unsigned int bytes))
GPU__FAKE_ENTRY(cuMemcpyDtoD, (unsigned int dst, unsigned int src, unsigned int bytes))
GPU__FAKE_ENTRY(cuMemcpyHtoDAsync, (unsigned int dst, const void *src, unsigned int bytes, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemcpyDtoHAsync, (void *dst, unsigned int src, unsigned int bytes, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemcpyDtoDAsync, (unsigned int dst, unsigned int src, unsigned int bytes, cuabi_stream stream))
GPU__FAKE_ENTRY(cuMemsetD8, (unsigned int dst, unsigned char value, unsigned int count))
GPU__FAKE_ENTRY(cuMemsetD16, (unsigned int dst, unsigned short value, unsigned int count))
GPU__FAKE_ENTRY(cuMemsetD32, (unsigned int dst, unsigned int value, unsigned int count))
GPU__FAKE_ENTRY(cuMemAllocHost, (void **ptr, unsigned int bytes))
GPU__FAKE_ENTRY(cuMemGetAddressRange, (unsigned int *base, unsigned int *size, unsigned int ptr))
GPU__FAKE_ENTRY(cuModuleGetGlobal, (unsigned int *ptr, unsigned int *bytes, cuabi_module module, const char *name))
GPU__FAKE_ENTRY(cuMemHostGetDevicePointer, (unsigned int *ptr, void *host, unsigned int flags))
GPU__FAKE_ENTRY(cuLinkCreate, (unsigned int num_options, cuabi_jit_option *options, void **option_values,
                               cuabi_link_state *state))
GPU__FAKE_ENTRY(cuLinkAddData, (cuabi_link_state state, cuabi_jit_input_type type, void *data, size_t size,
                                const char *name, unsigned int num_options, cuabi_jit_option *options,
                                void **option_values))
GPU__FAKE_ENTRY(cuLinkAddFile, (cuabi_link_state state, cuabi_jit_input_type type, const char *path,
                                unsigned int num_options, cuabi_jit_option *options, void **option_values))
GPU__FAKE_ENTRY(cuIpcOpenMemHandle, (cuabi_deviceptr *ptr, cuabi_ipc_mem_handle handle, unsigned int flags))
GPU__FAKE_ENTRY(cuStreamWriteValue32, (cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint32 value,
                                       unsigned int flags))
GPU__FAKE_ENTRY(cuStreamWaitValue32, (cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint32 value,
                                      unsigned int flags))
GPU__FAKE_ENTRY(cuStreamWriteValue64, (cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint64 value,
                                       unsigned int flags))
GPU__FAKE_ENTRY(cuStreamWaitValue64, (cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint64 value,
                                      unsigned int flags))
GPU__FAKE_ENTRY(cuStreamGetCaptureInfo, (cuabi_stream stream, cuabi_stream_capture_status *status, cuabi_uint64 *id))
GPU__FAKE_ENTRY(cuGraphInstantiate, (cuabi_graph_exec *exec, cuabi_graph graph, cuabi_graph_node *error_node,
                                     char *log, size_t log_size))
GPU__FAKE_ENTRY(cuGraphInstantiate_v2, (cuabi_graph_exec *exec, cuabi_graph graph, cuabi_graph_node *error_node,
                                        char *log, size_t log_size))
GPU__FAKE_ENTRY(cuGraphExecUpdate, (cuabi_graph_exec exec, cuabi_graph graph, cuabi_graph_node *error_node,
                                    cuabi_graph_exec_update_result *result))

/* The explicit graph API: nodes, edges, clones, executable graphs' nodes, user objects. */
GPU__FAKE_ENTRY(cuGraphCreate, (cuabi_graph *graph, unsigned int flags))
GPU__FAKE_ENTRY(cuGraphClone, (cuabi_graph *clone, cuabi_graph original))
GPU__FAKE_ENTRY(cuGraphNodeFindInClone, (cuabi_graph_node *node, cuabi_graph_node original, cuabi_graph clone))
GPU__FAKE_ENTRY(cuGraphAddEmptyNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps))
GPU__FAKE_ENTRY(cuGraphAddKernelNode_v2, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, const cuabi_kernel_node_params *params))
GPU__FAKE_ENTRY(cuGraphAddKernelNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, const cuabi_kernel_node_params_v1 *params))
GPU__FAKE_ENTRY(cuGraphAddMemcpyNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, const cuabi_memcpy3d *copy, cuabi_context ctx))
GPU__FAKE_ENTRY(cuGraphAddMemsetNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, const cuabi_memset_node_params *params, cuabi_context ctx))
GPU__FAKE_ENTRY(cuGraphAddHostNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, const cuabi_host_node_params *params))
GPU__FAKE_ENTRY(cuGraphAddEventRecordNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, cuabi_event event))
GPU__FAKE_ENTRY(cuGraphAddEventWaitNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, cuabi_event event))
GPU__FAKE_ENTRY(cuGraphAddChildGraphNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, cuabi_graph child))
GPU__FAKE_ENTRY(cuGraphAddNode, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps, size_t ndeps, cuabi_graph_node_params *params))
GPU__FAKE_ENTRY(cuGraphAddNode_v2, (cuabi_graph_node *node, cuabi_graph graph, const cuabi_graph_node *deps,
                                    const cuabi_graph_edge_data *edges, size_t ndeps, cuabi_graph_node_params *params))
GPU__FAKE_ENTRY(cuGraphNodeSetParams, (cuabi_graph_node node, cuabi_graph_node_params *params))
GPU__FAKE_ENTRY(cuGraphAddDependencies, (cuabi_graph graph, const cuabi_graph_node *from, const cuabi_graph_node *to,
                                         size_t count))
GPU__FAKE_ENTRY(cuGraphAddDependencies_v2, (cuabi_graph graph, const cuabi_graph_node *from,
                                            const cuabi_graph_node *to, const cuabi_graph_edge_data *data,
                                            size_t count))
GPU__FAKE_ENTRY(cuGraphRemoveDependencies, (cuabi_graph graph, const cuabi_graph_node *from,
                                            const cuabi_graph_node *to, size_t count))
GPU__FAKE_ENTRY(cuGraphRemoveDependencies_v2, (cuabi_graph graph, const cuabi_graph_node *from,
                                               const cuabi_graph_node *to, const cuabi_graph_edge_data *data,
                                               size_t count))
GPU__FAKE_ENTRY(cuGraphGetNodes, (cuabi_graph graph, cuabi_graph_node *nodes, size_t *count))
GPU__FAKE_ENTRY(cuGraphGetRootNodes, (cuabi_graph graph, cuabi_graph_node *nodes, size_t *count))
GPU__FAKE_ENTRY(cuGraphGetEdges, (cuabi_graph graph, cuabi_graph_node *from, cuabi_graph_node *to, size_t *count))
GPU__FAKE_ENTRY(cuGraphGetEdges_v2, (cuabi_graph graph, cuabi_graph_node *from, cuabi_graph_node *to,
                                     cuabi_graph_edge_data *data, size_t *count))
GPU__FAKE_ENTRY(cuGraphNodeGetType, (cuabi_graph_node node, cuabi_graph_node_type *type))
GPU__FAKE_ENTRY(cuGraphNodeGetDependencies, (cuabi_graph_node node, cuabi_graph_node *deps, size_t *count))
GPU__FAKE_ENTRY(cuGraphNodeGetDependencies_v2, (cuabi_graph_node node, cuabi_graph_node *deps,
                                                cuabi_graph_edge_data *data, size_t *count))
GPU__FAKE_ENTRY(cuGraphNodeGetDependentNodes, (cuabi_graph_node node, cuabi_graph_node *nodes, size_t *count))
GPU__FAKE_ENTRY(cuGraphNodeGetDependentNodes_v2, (cuabi_graph_node node, cuabi_graph_node *nodes,
                                                  cuabi_graph_edge_data *data, size_t *count))
GPU__FAKE_ENTRY(cuGraphDestroyNode, (cuabi_graph_node node))
GPU__FAKE_ENTRY(cuGraphKernelNodeGetParams_v2, (cuabi_graph_node node, cuabi_kernel_node_params *params))
GPU__FAKE_ENTRY(cuGraphKernelNodeSetParams_v2, (cuabi_graph_node node, const cuabi_kernel_node_params *params))
GPU__FAKE_ENTRY(cuGraphKernelNodeGetParams, (cuabi_graph_node node, cuabi_kernel_node_params_v1 *params))
GPU__FAKE_ENTRY(cuGraphKernelNodeSetParams, (cuabi_graph_node node, const cuabi_kernel_node_params_v1 *params))
GPU__FAKE_ENTRY(cuGraphMemcpyNodeGetParams, (cuabi_graph_node node, cuabi_memcpy3d *params))
GPU__FAKE_ENTRY(cuGraphMemcpyNodeSetParams, (cuabi_graph_node node, const cuabi_memcpy3d *params))
GPU__FAKE_ENTRY(cuGraphMemsetNodeGetParams, (cuabi_graph_node node, cuabi_memset_node_params *params))
GPU__FAKE_ENTRY(cuGraphMemsetNodeSetParams, (cuabi_graph_node node, const cuabi_memset_node_params *params))
GPU__FAKE_ENTRY(cuGraphHostNodeGetParams, (cuabi_graph_node node, cuabi_host_node_params *params))
GPU__FAKE_ENTRY(cuGraphHostNodeSetParams, (cuabi_graph_node node, const cuabi_host_node_params *params))
GPU__FAKE_ENTRY(cuGraphEventRecordNodeGetEvent, (cuabi_graph_node node, cuabi_event *event))
GPU__FAKE_ENTRY(cuGraphEventRecordNodeSetEvent, (cuabi_graph_node node, cuabi_event event))
GPU__FAKE_ENTRY(cuGraphEventWaitNodeGetEvent, (cuabi_graph_node node, cuabi_event *event))
GPU__FAKE_ENTRY(cuGraphEventWaitNodeSetEvent, (cuabi_graph_node node, cuabi_event event))
GPU__FAKE_ENTRY(cuGraphChildGraphNodeGetGraph, (cuabi_graph_node node, cuabi_graph *graph))
GPU__FAKE_ENTRY(cuGraphInstantiateWithParams, (cuabi_graph_exec *exec, cuabi_graph graph,
                                               cuabi_graph_instantiate_params *params))
GPU__FAKE_ENTRY(cuGraphExecGetFlags, (cuabi_graph_exec exec, cuabi_uint64 *flags))
GPU__FAKE_ENTRY(cuGraphExecKernelNodeSetParams_v2, (cuabi_graph_exec exec, cuabi_graph_node node,
                                                    const cuabi_kernel_node_params *params))
GPU__FAKE_ENTRY(cuGraphExecKernelNodeSetParams, (cuabi_graph_exec exec, cuabi_graph_node node,
                                                 const cuabi_kernel_node_params_v1 *params))
GPU__FAKE_ENTRY(cuGraphExecMemcpyNodeSetParams, (cuabi_graph_exec exec, cuabi_graph_node node,
                                                 const cuabi_memcpy3d *copy, cuabi_context ctx))
GPU__FAKE_ENTRY(cuGraphExecMemsetNodeSetParams, (cuabi_graph_exec exec, cuabi_graph_node node,
                                                 const cuabi_memset_node_params *params, cuabi_context ctx))
GPU__FAKE_ENTRY(cuGraphExecHostNodeSetParams, (cuabi_graph_exec exec, cuabi_graph_node node,
                                               const cuabi_host_node_params *params))
GPU__FAKE_ENTRY(cuGraphExecChildGraphNodeSetParams, (cuabi_graph_exec exec, cuabi_graph_node node, cuabi_graph child))
GPU__FAKE_ENTRY(cuGraphExecEventRecordNodeSetEvent, (cuabi_graph_exec exec, cuabi_graph_node node, cuabi_event event))
GPU__FAKE_ENTRY(cuGraphExecEventWaitNodeSetEvent, (cuabi_graph_exec exec, cuabi_graph_node node, cuabi_event event))
GPU__FAKE_ENTRY(cuGraphExecNodeSetParams, (cuabi_graph_exec exec, cuabi_graph_node node,
                                           cuabi_graph_node_params *params))
GPU__FAKE_ENTRY(cuGraphNodeSetEnabled, (cuabi_graph_exec exec, cuabi_graph_node node, unsigned int enabled))
GPU__FAKE_ENTRY(cuGraphNodeGetEnabled, (cuabi_graph_exec exec, cuabi_graph_node node, unsigned int *enabled))
GPU__FAKE_ENTRY(cuUserObjectCreate, (cuabi_user_object *object, void *ptr, cuabi_host_fn destroy,
                                     unsigned int initial, unsigned int flags))
GPU__FAKE_ENTRY(cuUserObjectRetain, (cuabi_user_object object, unsigned int count))
GPU__FAKE_ENTRY(cuUserObjectRelease, (cuabi_user_object object, unsigned int count))
GPU__FAKE_ENTRY(cuGraphRetainUserObject, (cuabi_graph graph, cuabi_user_object object, unsigned int count,
                                          unsigned int flags))
GPU__FAKE_ENTRY(cuGraphReleaseUserObject, (cuabi_graph graph, cuabi_user_object object, unsigned int count))

/* The legacy context API: a created context's usage count. */
GPU__FAKE_ENTRY(cuCtxAttach, (cuabi_context *ctx, unsigned int flags))
GPU__FAKE_ENTRY(cuCtxDetach, (cuabi_context ctx))

/* Profiler control (cudaProfiler.h). */
GPU__FAKE_ENTRY(cuProfilerStart, (void))
GPU__FAKE_ENTRY(cuProfilerStop, (void))

/* Created stream-ordered pools, their access, allocation from them; managed memory's attachment to a stream. */
GPU__FAKE_ENTRY(cuMemPoolCreate, (cuabi_mem_pool *pool, const cuabi_mem_pool_props *props))
GPU__FAKE_ENTRY(cuMemPoolDestroy, (cuabi_mem_pool pool))
GPU__FAKE_ENTRY(cuMemPoolSetAccess, (cuabi_mem_pool pool, const cuabi_mem_access_desc *map, size_t count))
GPU__FAKE_ENTRY(cuMemPoolGetAccess, (unsigned int *flags, cuabi_mem_pool pool, cuabi_mem_location *location))
GPU__FAKE_ENTRY(cuMemAllocFromPoolAsync, (cuabi_deviceptr *ptr, size_t bytes, cuabi_mem_pool pool, cuabi_stream stream))
GPU__FAKE_ENTRY(cuStreamAttachMemAsync, (cuabi_stream stream, cuabi_deviceptr ptr, size_t length, unsigned flags))
