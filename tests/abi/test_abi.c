/* SPDX-License-Identifier: MIT */
/*
 * gpushim's own CUDA declarations (src/sys/driver/cuda_abi.h, entry_points.h)
 * checked against the toolkit's cuda.h: every constant's value, every type's
 * size, every entry point's prototype (at compile time), and that each
 * versioned symbol is the one cuda.h itself maps the name to (at run time).
 *
 * Built only where cuda.h is found; the library never needs it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <cuda.h>

#include "abi_handles.h"

#define SAME_VALUE(a, b) _Static_assert((long long)(a) == (long long)(b), #a " == " #b)
#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " is " #b)

/* Every CUresult gpushim names has cuda.h's value. */
#define CHECK_RESULT(name, value) SAME_VALUE(CUABI_##name, CUDA_##name); SAME_VALUE(value, CUDA_##name);
CUABI_RESULT_LIST(CHECK_RESULT)

SAME_VALUE(CUABI_STREAM_DEFAULT, CU_STREAM_DEFAULT);
SAME_VALUE(CUABI_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
SAME_VALUE(CUABI_EVENT_DEFAULT, CU_EVENT_DEFAULT);
SAME_VALUE(CUABI_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING);
SAME_VALUE(CUABI_STREAM_CAPTURE_MODE_GLOBAL, CU_STREAM_CAPTURE_MODE_GLOBAL);
SAME_VALUE(CUABI_STREAM_CAPTURE_MODE_THREAD_LOCAL, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
SAME_VALUE(CUABI_STREAM_CAPTURE_MODE_RELAXED, CU_STREAM_CAPTURE_MODE_RELAXED);
SAME_VALUE(CUABI_STREAM_CAPTURE_STATUS_NONE, CU_STREAM_CAPTURE_STATUS_NONE);
SAME_VALUE(CUABI_STREAM_CAPTURE_STATUS_ACTIVE, CU_STREAM_CAPTURE_STATUS_ACTIVE);
SAME_VALUE(CUABI_STREAM_CAPTURE_STATUS_INVALIDATED, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
SAME_VALUE(CUABI_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER);
SAME_VALUE(CUABI_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(CUABI_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER);
SAME_VALUE(CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME_VALUE(CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME_VALUE(CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_DEFAULT, CU_GET_PROC_ADDRESS_DEFAULT);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_LEGACY_STREAM, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
SAME_VALUE(CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
SAME_VALUE(CUABI_MEMHOSTALLOC_PORTABLE, CU_MEMHOSTALLOC_PORTABLE);
SAME_VALUE(CUABI_MEMHOSTREGISTER_PORTABLE, CU_MEMHOSTREGISTER_PORTABLE);

SAME_TYPE(cuabi_result, CUresult);
SAME_TYPE(cuabi_device, CUdevice);
SAME_TYPE(cuabi_deviceptr, CUdeviceptr);
SAME_TYPE(cuabi_uint64, cuuint64_t);
SAME_TYPE(cuabi_context, CUcontext);
SAME_TYPE(cuabi_module, CUmodule);
SAME_TYPE(cuabi_function, CUfunction);
SAME_TYPE(cuabi_stream, CUstream);
SAME_TYPE(cuabi_event, CUevent);
SAME_TYPE(cuabi_graph, CUgraph);
SAME_TYPE(cuabi_graph_exec, CUgraphExec);
SAME_TYPE(cuabi_graph_node, CUgraphNode);
SAME_TYPE(cuabi_host_fn, CUhostFn);
SAME_TYPE(cuabi_stream_callback, CUstreamCallback);
SAME_TYPE(cuabi_green_ctx, CUgreenCtx);
SAME_VALUE(CUABI_EVENT_RECORD_DEFAULT, CU_EVENT_RECORD_DEFAULT);
SAME_VALUE(CUABI_EVENT_RECORD_EXTERNAL, CU_EVENT_RECORD_EXTERNAL);
SAME_TYPE(cuabi_module_loading_mode, CUmoduleLoadingMode);
SAME_VALUE(CUABI_MODULE_EAGER_LOADING, CU_MODULE_EAGER_LOADING);
SAME_VALUE(CUABI_MODULE_LAZY_LOADING, CU_MODULE_LAZY_LOADING);
SAME_TYPE(cuabi_p2p_attribute, CUdevice_P2PAttribute);
SAME_VALUE(CUABI_P2P_ATTRIBUTE_PERFORMANCE_RANK, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK);
SAME_VALUE(CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED);
SAME_VALUE(CUABI_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED);
SAME_VALUE(CUABI_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED);
SAME_VALUE(CUABI_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED,
           CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED);
SAME_TYPE(cuabi_jit_option, CUjit_option);
SAME_TYPE(cuabi_device_attribute, CUdevice_attribute);
SAME_TYPE(cuabi_stream_capture_mode, CUstreamCaptureMode);
SAME_TYPE(cuabi_stream_capture_status, CUstreamCaptureStatus);
SAME_TYPE(cuabi_proc_address_query_result, CUdriverProcAddressQueryResult);
_Static_assert(sizeof(cuabi_result) == sizeof(CUresult), "CUresult's size");
_Static_assert(sizeof(cuabi_deviceptr) == sizeof(CUdeviceptr), "CUdeviceptr's size");

/* The bootstrap functions, looked up with dlsym. */
SAME_TYPE(cuabi_pfn_cuInit, __typeof__(&cuInit));
SAME_TYPE(cuabi_pfn_cuDriverGetVersion, __typeof__(&cuDriverGetVersion));
SAME_TYPE(cuabi_pfn_cuGetProcAddress, __typeof__(&cuGetProcAddress_v2));

/* ---- Kernels: attributes, occupancy, extended launches, memset, globals, limits ---- */

SAME_VALUE(CUABI_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_NUM_REGS);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_PTX_VERSION, CU_FUNC_ATTRIBUTE_PTX_VERSION);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_BINARY_VERSION, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_CACHE_MODE_CA, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
SAME_VALUE(CUABI_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
SAME_VALUE(CUABI_FUNC_CACHE_PREFER_NONE, CU_FUNC_CACHE_PREFER_NONE);
SAME_VALUE(CUABI_FUNC_CACHE_PREFER_SHARED, CU_FUNC_CACHE_PREFER_SHARED);
SAME_VALUE(CUABI_FUNC_CACHE_PREFER_L1, CU_FUNC_CACHE_PREFER_L1);
SAME_VALUE(CUABI_FUNC_CACHE_PREFER_EQUAL, CU_FUNC_CACHE_PREFER_EQUAL);
SAME_VALUE(CUABI_LIMIT_STACK_SIZE, CU_LIMIT_STACK_SIZE);
SAME_VALUE(CUABI_LIMIT_PRINTF_FIFO_SIZE, CU_LIMIT_PRINTF_FIFO_SIZE);
SAME_VALUE(CUABI_LIMIT_MALLOC_HEAP_SIZE, CU_LIMIT_MALLOC_HEAP_SIZE);
SAME_VALUE(CUABI_OCCUPANCY_DEFAULT, CU_OCCUPANCY_DEFAULT);
SAME_VALUE(CUABI_OCCUPANCY_DISABLE_CACHING_OVERRIDE, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE);
SAME_VALUE(CUABI_LAUNCH_ATTRIBUTE_COOPERATIVE, CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
SAME_VALUE(CUABI_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
SAME_VALUE(CUABI_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
           CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
SAME_VALUE(CUABI_LAUNCH_ATTRIBUTE_PRIORITY, CU_LAUNCH_ATTRIBUTE_PRIORITY);
#define CHECK_DEVICE_ATTRIBUTE(name, value) \
    SAME_VALUE(CUABI_DEVICE_ATTRIBUTE_##name, CU_DEVICE_ATTRIBUTE_##name); SAME_VALUE(value, CU_DEVICE_ATTRIBUTE_##name);
CUABI_DEVICE_ATTRIBUTE_LIST(CHECK_DEVICE_ATTRIBUTE)
CUABI_DEVICE_ATTRIBUTES_ALL(CHECK_DEVICE_ATTRIBUTE)
SAME_VALUE(CUABI_DEVICE_ATTRIBUTE_COUNT, CU_DEVICE_ATTRIBUTE_MAX);

SAME_TYPE(cuabi_function_attribute, CUfunction_attribute);
SAME_TYPE(cuabi_func_cache, CUfunc_cache);
SAME_TYPE(cuabi_limit, CUlimit);
SAME_TYPE(cuabi_launch_attribute_id, CUlaunchAttributeID);
SAME_TYPE(cuabi_occupancy_b2d_size, CUoccupancyB2DSize);

/* The structs, field by field: same size, same offsets, same member types. */
#define SAME_FIELD(ours, theirs, a, b) \
    _Static_assert(offsetof(ours, a) == offsetof(theirs, b), #ours "." #a " is at " #theirs "." #b); \
    SAME_TYPE(__typeof__(((ours *)0)->a), __typeof__(((theirs *)0)->b))
_Static_assert(sizeof(struct cuabi_uuid) == sizeof(CUuuid), "CUuuid's size");
SAME_FIELD(struct cuabi_uuid, CUuuid, bytes, bytes);
_Static_assert(sizeof(cuabi_launch_attribute_value) == sizeof(CUlaunchAttributeValue), "CUlaunchAttributeValue");
SAME_FIELD(cuabi_launch_attribute_value, CUlaunchAttributeValue, cooperative, cooperative);
SAME_FIELD(cuabi_launch_attribute_value, CUlaunchAttributeValue, cluster_dim.x, clusterDim.x);
SAME_FIELD(cuabi_launch_attribute_value, CUlaunchAttributeValue, cluster_dim.y, clusterDim.y);
SAME_FIELD(cuabi_launch_attribute_value, CUlaunchAttributeValue, cluster_dim.z, clusterDim.z);
SAME_FIELD(cuabi_launch_attribute_value, CUlaunchAttributeValue, programmatic_stream_serialization_allowed,
           programmaticStreamSerializationAllowed);
SAME_FIELD(cuabi_launch_attribute_value, CUlaunchAttributeValue, priority, priority);
_Static_assert(sizeof(cuabi_launch_attribute) == sizeof(CUlaunchAttribute), "CUlaunchAttribute's size");
_Static_assert(offsetof(cuabi_launch_attribute, id) == offsetof(CUlaunchAttribute, id), "CUlaunchAttribute.id");
_Static_assert(offsetof(cuabi_launch_attribute, value) == offsetof(CUlaunchAttribute, value),
               "CUlaunchAttribute.value");
_Static_assert(sizeof(struct cuabi_launch_config) == sizeof(CUlaunchConfig), "CUlaunchConfig's size");
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, grid_x, gridDimX);
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, grid_y, gridDimY);
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, grid_z, gridDimZ);
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, block_x, blockDimX);
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, block_y, blockDimY);
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, block_z, blockDimZ);
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, shared_mem_bytes, sharedMemBytes);
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, stream, hStream);
SAME_FIELD(struct cuabi_launch_config, CUlaunchConfig, num_attrs, numAttrs);
_Static_assert(offsetof(struct cuabi_launch_config, attrs) == offsetof(CUlaunchConfig, attrs), "CUlaunchConfig.attrs");

SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_UINT8, CU_TENSOR_MAP_DATA_TYPE_UINT8);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_UINT16, CU_TENSOR_MAP_DATA_TYPE_UINT16);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_UINT32, CU_TENSOR_MAP_DATA_TYPE_UINT32);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_INT32, CU_TENSOR_MAP_DATA_TYPE_INT32);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_UINT64, CU_TENSOR_MAP_DATA_TYPE_UINT64);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_INT64, CU_TENSOR_MAP_DATA_TYPE_INT64);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_FLOAT32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_FLOAT64, CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_TFLOAT32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32);
SAME_VALUE(CUABI_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ);
SAME_VALUE(CUABI_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_INTERLEAVE_NONE);
SAME_VALUE(CUABI_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE);
SAME_VALUE(CUABI_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_32B);
SAME_VALUE(CUABI_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_64B);
SAME_VALUE(CUABI_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B);
SAME_VALUE(CUABI_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE);
SAME_VALUE(CUABI_TENSOR_MAP_L2_PROMOTION_L2_64B, CU_TENSOR_MAP_L2_PROMOTION_L2_64B);
SAME_VALUE(CUABI_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
SAME_VALUE(CUABI_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
SAME_VALUE(CUABI_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
SAME_VALUE(CUABI_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
SAME_TYPE(cuabi_uint32, cuuint32_t);
SAME_TYPE(cuabi_tensor_map_data_type, CUtensorMapDataType);
SAME_TYPE(cuabi_tensor_map_interleave, CUtensorMapInterleave);
SAME_TYPE(cuabi_tensor_map_swizzle, CUtensorMapSwizzle);
SAME_TYPE(cuabi_tensor_map_l2_promotion, CUtensorMapL2promotion);
SAME_TYPE(cuabi_tensor_map_oob_fill, CUtensorMapFloatOOBfill);
_Static_assert(sizeof(struct cuabi_tensor_map) == sizeof(CUtensorMap), "CUtensorMap's size");
_Static_assert(_Alignof(struct cuabi_tensor_map) >= _Alignof(CUtensorMap), "CUtensorMap's alignment");
SAME_FIELD(struct cuabi_tensor_map, CUtensorMap, opaque, opaque);

/*
 * The layouts being the same, the prototypes below read gpushim's struct
 * names as cuda.h's: the entry points are then compared like the others.
 */
#define cuabi_launch_config CUlaunchConfig
#define cuabi_uuid CUuuid
#define cuabi_tensor_map CUtensorMap

/* ---- End of kernels ---- */
/* ---- Memory and interop ---- */
#include <cudaTypedefs.h>

SAME_TYPE(cuabi_mem_pool, CUmemoryPool);
SAME_TYPE(cuabi_mem_pool_attribute, CUmemPool_attribute);
SAME_TYPE(cuabi_pointer_attribute, CUpointer_attribute);
SAME_TYPE(cuabi_mem_advise, CUmem_advise);
SAME_TYPE(cuabi_graph_exec_update_result, CUgraphExecUpdateResult);
SAME_TYPE(cuabi_uint32, cuuint32_t);
SAME_TYPE(cuabi_ipc_mem_handle, CUipcMemHandle);
SAME_TYPE(cuabi_ipc_event_handle, CUipcEventHandle);
SAME_TYPE(cuabi_graph_exec_update_result_info, CUgraphExecUpdateResultInfo);
SAME_VALUE(CUABI_IPC_HANDLE_SIZE, CU_IPC_HANDLE_SIZE);
SAME_VALUE(CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
SAME_VALUE(CUABI_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
SAME_VALUE(CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
SAME_VALUE(CUABI_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_CONTEXT);
SAME_VALUE(CUABI_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
SAME_VALUE(CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_DEVICE_POINTER);
SAME_VALUE(CUABI_POINTER_ATTRIBUTE_HOST_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER);
SAME_VALUE(CUABI_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_IS_MANAGED);
SAME_VALUE(CUABI_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
SAME_VALUE(CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
SAME_VALUE(CUABI_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_RANGE_SIZE);
SAME_VALUE(CUABI_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST);
SAME_VALUE(CUABI_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE);
SAME_VALUE(CUABI_MEMORYTYPE_ARRAY, CU_MEMORYTYPE_ARRAY);
SAME_VALUE(CUABI_MEMORYTYPE_UNIFIED, CU_MEMORYTYPE_UNIFIED);
SAME_VALUE(CUABI_MEM_ATTACH_GLOBAL, CU_MEM_ATTACH_GLOBAL);
SAME_VALUE(CUABI_MEM_ADVISE_SET_READ_MOSTLY, CU_MEM_ADVISE_SET_READ_MOSTLY);
SAME_VALUE(CUABI_MEM_ADVISE_UNSET_READ_MOSTLY, CU_MEM_ADVISE_UNSET_READ_MOSTLY);
SAME_VALUE(CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_MEM_ADVISE_SET_PREFERRED_LOCATION);
SAME_VALUE(CUABI_MEM_ADVISE_UNSET_PREFERRED_LOCATION, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION);
SAME_VALUE(CUABI_MEM_ADVISE_SET_ACCESSED_BY, CU_MEM_ADVISE_SET_ACCESSED_BY);
SAME_VALUE(CUABI_MEM_ADVISE_UNSET_ACCESSED_BY, CU_MEM_ADVISE_UNSET_ACCESSED_BY);
SAME_VALUE(CUABI_DEVICE_CPU, CU_DEVICE_CPU);
SAME_VALUE(CUABI_DEVICE_INVALID, CU_DEVICE_INVALID);
SAME_TYPE(cuabi_mem_range_attribute, CUmem_range_attribute);
SAME_VALUE(CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY);
SAME_VALUE(CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION);
SAME_VALUE(CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY);
SAME_VALUE(CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION);
SAME_VALUE(CUABI_EVENT_INTERPROCESS, CU_EVENT_INTERPROCESS);
SAME_VALUE(CUABI_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
SAME_VALUE(CUABI_STREAM_WAIT_VALUE_GEQ, CU_STREAM_WAIT_VALUE_GEQ);
SAME_VALUE(CUABI_STREAM_WAIT_VALUE_EQ, CU_STREAM_WAIT_VALUE_EQ);
SAME_VALUE(CUABI_STREAM_WAIT_VALUE_AND, CU_STREAM_WAIT_VALUE_AND);
SAME_VALUE(CUABI_STREAM_WAIT_VALUE_NOR, CU_STREAM_WAIT_VALUE_NOR);
SAME_VALUE(CUABI_STREAM_WRITE_VALUE_DEFAULT, CU_STREAM_WRITE_VALUE_DEFAULT);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_SUCCESS, CU_GRAPH_EXEC_UPDATE_SUCCESS);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_ERROR, CU_GRAPH_EXEC_UPDATE_ERROR);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED, CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED, CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED, CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE,
           CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE);
SAME_VALUE(CUABI_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED, CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED);
SAME_VALUE(CUABI_GRAPH_DEBUG_DOT_FLAGS_VERBOSE, CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE);

/*
 * Three entry points whose CUDA 12.0 prototype this cuda.h no longer declares
 * under the name (it maps them to later revisions with other parameters):
 * compared, below, with cudaTypedefs.h's PFN of the revision that version
 * 12000 gives, then mapped back for the symbol check.
 */
#undef cuMemPrefetchAsync
#undef cuMemAdvise
#undef cuStreamGetCaptureInfo
#define cuMemPrefetchAsync (*(PFN_cuMemPrefetchAsync_v8000)0)
#define cuMemAdvise (*(PFN_cuMemAdvise_v8000)0)
#define cuStreamGetCaptureInfo (*(PFN_cuStreamGetCaptureInfo_v11030)0)
/* ---- end of memory and interop ---- */

/*
 * Every entry point's prototype is the one cuda.h declares for the name.
 * `name` is expanded here, so cuda.h's own version macros pick the symbol.
 */
#define GPU__ENTRY(need, name, symbol, params, args) SAME_TYPE(cuabi_result(*) params, __typeof__(&name));
#include "entry_points.h"
#undef GPU__ENTRY

/* Memory and interop: the three above, mapped back to what this cuda.h names them. */
#undef cuMemPrefetchAsync
#undef cuMemAdvise
#undef cuStreamGetCaptureInfo
#define cuMemPrefetchAsync cuMemPrefetchAsync_v2
#define cuMemAdvise cuMemAdvise_v2
#define cuStreamGetCaptureInfo cuStreamGetCaptureInfo_v3

/*
 * Entry points whose CUDA 12.0 symbol, the one gpushim pins, is older than
 * the one this cuda.h maps the name to. Their prototypes are the same (checked
 * above); cuGetProcAddress at version 12000 returns the older one.
 */
static const char *const newer_in_header[][2] = {
    {"cuEventElapsedTime", "cuEventElapsedTime_v2"}, /* _v2 since CUDA 12.8 */
    /* Memory and interop: a new prototype since 12.2 / 12.3, compared with the 12.0 one above. */
    {"cuMemPrefetchAsync", "cuMemPrefetchAsync_v2"},
    {"cuMemAdvise", "cuMemAdvise_v2"},
    {"cuStreamGetCaptureInfo", "cuStreamGetCaptureInfo_v3"},
};

#define STR_(x) #x
#define STR(x) STR_(x)

struct mapping {
    const char *name;
    const char *ours;
    const char *header; /* what cuda.h maps the name to */
};

static const struct mapping mappings[] = {
#define GPU__ENTRY(need, name, symbol, params, args) {#name, #symbol, STR(name)},
#include "entry_points.h"
#undef GPU__ENTRY
};

static void symbols_are_the_ones_cuda_h_names(void **state)
{
    int mismatches = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(mappings) / sizeof(mappings[0]); i++) {
        const struct mapping *m = &mappings[i];
        bool expected = false;

        if (strcmp(m->ours, m->header) == 0)
            continue;
        for (size_t j = 0; j < sizeof(newer_in_header) / sizeof(newer_in_header[0]); j++)
            if (strcmp(m->name, newer_in_header[j][0]) == 0 && strcmp(m->header, newer_in_header[j][1]) == 0)
                expected = true;
        if (!expected) {
            print_error("%s: gpushim uses %s, cuda.h %s\n", m->name, m->ours, m->header);
            mismatches++;
        }
    }
    assert_int_equal(mismatches, 0);
}

static void pinned_version_is_cuda_12_0(void **state)
{
    (void)state;
    assert_int_equal(CUABI_VERSION, 12000);
    /* The header checked against must be at least as new as the ABI pinned. */
    assert_true(CUDA_VERSION >= CUABI_VERSION);
    printf("checked %zu entry points against cuda.h %d\n", sizeof(mappings) / sizeof(mappings[0]), CUDA_VERSION);
}

/* cuda.h defines these as pointer constants, which a static assertion cannot compare. */
static void launch_param_keys(void **state)
{
    (void)state;
    assert_ptr_equal((void *)(uintptr_t)CUABI_LAUNCH_PARAM_END, CU_LAUNCH_PARAM_END);
    assert_ptr_equal((void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_POINTER);
    assert_ptr_equal((void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_SIZE, CU_LAUNCH_PARAM_BUFFER_SIZE);
}

/* ---- The JIT linker, libraries, the default streams' handles ---- */

SAME_VALUE(CUABI_JIT_MAX_REGISTERS, CU_JIT_MAX_REGISTERS);
SAME_VALUE(CUABI_JIT_THREADS_PER_BLOCK, CU_JIT_THREADS_PER_BLOCK);
SAME_VALUE(CUABI_JIT_WALL_TIME, CU_JIT_WALL_TIME);
SAME_VALUE(CUABI_JIT_LOG_VERBOSE, CU_JIT_LOG_VERBOSE);
SAME_VALUE(CUABI_JIT_INPUT_CUBIN, CU_JIT_INPUT_CUBIN);
SAME_VALUE(CUABI_JIT_INPUT_PTX, CU_JIT_INPUT_PTX);
SAME_VALUE(CUABI_JIT_INPUT_FATBINARY, CU_JIT_INPUT_FATBINARY);
SAME_VALUE(CUABI_JIT_INPUT_OBJECT, CU_JIT_INPUT_OBJECT);
SAME_VALUE(CUABI_JIT_INPUT_LIBRARY, CU_JIT_INPUT_LIBRARY);
SAME_VALUE(CUABI_JIT_INPUT_NVVM, CU_JIT_INPUT_NVVM);
SAME_VALUE(CUABI_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE, CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE);
SAME_VALUE(CUABI_LIBRARY_BINARY_IS_PRESERVED, CU_LIBRARY_BINARY_IS_PRESERVED);
SAME_VALUE(CUABI_LIBRARY_NUM_OPTIONS, CU_LIBRARY_NUM_OPTIONS);
SAME_TYPE(cuabi_jit_input_type, CUjitInputType);
SAME_TYPE(cuabi_library_option, CUlibraryOption);
SAME_TYPE(cuabi_link_state, CUlinkState);
SAME_TYPE(cuabi_library, CUlibrary);
SAME_TYPE(cuabi_kernel, CUkernel);

/* The default streams' handles: constants that are pointers, compared when the program runs. */
static void default_stream_handles(void **state)
{
    (void)state;
    assert_ptr_equal((void *)CUABI_STREAM_LEGACY, (void *)CU_STREAM_LEGACY);
    assert_ptr_equal((void *)CUABI_STREAM_PER_THREAD, (void *)CU_STREAM_PER_THREAD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launch_param_keys),
        cmocka_unit_test(symbols_are_the_ones_cuda_h_names),
        cmocka_unit_test(pinned_version_is_cuda_12_0),
        cmocka_unit_test(default_stream_handles),
    };

    return cmocka_run_group_tests_name("abi", tests, NULL, NULL);
}
