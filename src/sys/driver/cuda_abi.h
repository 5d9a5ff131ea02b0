/* SPDX-License-Identifier: MIT */
/*
 * The part of NVIDIA's CUDA driver ABI that gpushim uses, declared by the
 * project itself so that the build needs no CUDA toolkit.
 *
 * Every name here carries the prefix cuabi_ / CUABI_ so that this header
 * can sit beside the real <cuda.h> in one translation unit (the abi test
 * suite does exactly that and checks each value against it).
 *
 * The prototypes in entry_points.h are the ones of CUDA 12.0: the loader
 * asks cuGetProcAddress for that ABI and nothing newer, so a driver that
 * knows later revisions of a function still hands back the 12.0 one.
 * In src/, only the layers below the gpu_* modules include this file.
 */
#ifndef GPUSHIM_SYS_CUDA_ABI_H
#define GPUSHIM_SYS_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The one CUDA ABI version gpushim is written against (1000*major + 10*minor). */
#define CUABI_VERSION 12000

typedef unsigned int cuabi_result; /* CUresult: an enum of non-negative values */
typedef int cuabi_device;
typedef unsigned long long cuabi_deviceptr;
typedef uint64_t cuabi_uint64;
typedef struct cuabi_ctx_st *cuabi_context;

/* Context creation's parameters (cuCtxCreate_v3, _v4): the fake driver takes none. */
typedef struct cuabi_exec_affinity_param_st cuabi_exec_affinity_param;
typedef struct cuabi_ctx_cig_param_st cuabi_ctx_cig_param;
typedef struct cuabi_ctx_create_params_st {
    cuabi_exec_affinity_param *exec_affinity;
    int exec_affinity_count;
    cuabi_ctx_cig_param *cig;
} cuabi_ctx_create_params;

/* CUctx_flags. */
enum {
    CUABI_CTX_SCHED_MASK = 0x07,
    CUABI_CTX_FLAGS_MASK = 0xff,
};
typedef struct cuabi_mod_st *cuabi_module;
typedef struct cuabi_func_st *cuabi_function;
typedef struct cuabi_stream_st *cuabi_stream;
typedef struct cuabi_event_st *cuabi_event;
typedef struct cuabi_graph_st *cuabi_graph;
typedef struct cuabi_graph_exec_st *cuabi_graph_exec;
typedef struct cuabi_graph_node_st *cuabi_graph_node;
/* CUgraphEdgeData: the ports and kind of a graph's edge (CUDA 12.3). */
typedef struct cuabi_graph_edge_data {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
} cuabi_graph_edge_data;
typedef void (*cuabi_host_fn)(void *user_data);
/* CUstreamCallback: cuStreamAddCallback's, told the stream and its status. */
typedef void (*cuabi_stream_callback)(cuabi_stream stream, cuabi_result status, void *user_data);
typedef struct cuabi_green_ctx_st *cuabi_green_ctx;
typedef unsigned int cuabi_module_loading_mode; /* CUmoduleLoadingMode */
enum {
    CUABI_MODULE_EAGER_LOADING = 0x1,
    CUABI_MODULE_LAZY_LOADING = 0x2,
};
typedef unsigned int cuabi_p2p_attribute; /* CUdevice_P2PAttribute */
enum {
    CUABI_P2P_ATTRIBUTE_PERFORMANCE_RANK = 0x01,
    CUABI_P2P_ATTRIBUTE_ACCESS_SUPPORTED = 0x02,
    CUABI_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 0x03,
    CUABI_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED = 0x04,
    CUABI_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED = 0x05,
};
enum {
    CUABI_EVENT_RECORD_DEFAULT = 0x0,
    CUABI_EVENT_RECORD_EXTERNAL = 0x1,
};

/* CUDA's enums hold only non-negative values, so gcc and clang give them the
 * type unsigned int; declaring them so keeps the prototypes compatible. */
typedef unsigned int cuabi_jit_option;
typedef unsigned int cuabi_device_attribute;
typedef unsigned int cuabi_stream_capture_mode;
typedef unsigned int cuabi_stream_capture_status;
typedef unsigned int cuabi_proc_address_query_result;

/* CUresult: every code of the 13.0 header, as (name without "CUDA_", value). */
#define CUABI_RESULT_LIST(X) \
    X(SUCCESS, 0) \
    X(ERROR_INVALID_VALUE, 1) \
    X(ERROR_OUT_OF_MEMORY, 2) \
    X(ERROR_NOT_INITIALIZED, 3) \
    X(ERROR_DEINITIALIZED, 4) \
    X(ERROR_PROFILER_DISABLED, 5) \
    X(ERROR_PROFILER_NOT_INITIALIZED, 6) \
    X(ERROR_PROFILER_ALREADY_STARTED, 7) \
    X(ERROR_PROFILER_ALREADY_STOPPED, 8) \
    X(ERROR_STUB_LIBRARY, 34) \
    X(ERROR_CALL_REQUIRES_NEWER_DRIVER, 36) \
    X(ERROR_DEVICE_UNAVAILABLE, 46) \
    X(ERROR_NO_DEVICE, 100) \
    X(ERROR_INVALID_DEVICE, 101) \
    X(ERROR_DEVICE_NOT_LICENSED, 102) \
    X(ERROR_INVALID_IMAGE, 200) \
    X(ERROR_INVALID_CONTEXT, 201) \
    X(ERROR_CONTEXT_ALREADY_CURRENT, 202) \
    X(ERROR_MAP_FAILED, 205) \
    X(ERROR_UNMAP_FAILED, 206) \
    X(ERROR_ARRAY_IS_MAPPED, 207) \
    X(ERROR_ALREADY_MAPPED, 208) \
    X(ERROR_NO_BINARY_FOR_GPU, 209) \
    X(ERROR_ALREADY_ACQUIRED, 210) \
    X(ERROR_NOT_MAPPED, 211) \
    X(ERROR_NOT_MAPPED_AS_ARRAY, 212) \
    X(ERROR_NOT_MAPPED_AS_POINTER, 213) \
    X(ERROR_ECC_UNCORRECTABLE, 214) \
    X(ERROR_UNSUPPORTED_LIMIT, 215) \
    X(ERROR_CONTEXT_ALREADY_IN_USE, 216) \
    X(ERROR_PEER_ACCESS_UNSUPPORTED, 217) \
    X(ERROR_INVALID_PTX, 218) \
    X(ERROR_INVALID_GRAPHICS_CONTEXT, 219) \
    X(ERROR_NVLINK_UNCORRECTABLE, 220) \
    X(ERROR_JIT_COMPILER_NOT_FOUND, 221) \
    X(ERROR_UNSUPPORTED_PTX_VERSION, 222) \
    X(ERROR_JIT_COMPILATION_DISABLED, 223) \
    X(ERROR_UNSUPPORTED_EXEC_AFFINITY, 224) \
    X(ERROR_UNSUPPORTED_DEVSIDE_SYNC, 225) \
    X(ERROR_CONTAINED, 226) \
    X(ERROR_INVALID_SOURCE, 300) \
    X(ERROR_FILE_NOT_FOUND, 301) \
    X(ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302) \
    X(ERROR_SHARED_OBJECT_INIT_FAILED, 303) \
    X(ERROR_OPERATING_SYSTEM, 304) \
    X(ERROR_INVALID_HANDLE, 400) \
    X(ERROR_ILLEGAL_STATE, 401) \
    X(ERROR_LOSSY_QUERY, 402) \
    X(ERROR_NOT_FOUND, 500) \
    X(ERROR_NOT_READY, 600) \
    X(ERROR_ILLEGAL_ADDRESS, 700) \
    X(ERROR_LAUNCH_OUT_OF_RESOURCES, 701) \
    X(ERROR_LAUNCH_TIMEOUT, 702) \
    X(ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, 703) \
    X(ERROR_PEER_ACCESS_ALREADY_ENABLED, 704) \
    X(ERROR_PEER_ACCESS_NOT_ENABLED, 705) \
    X(ERROR_PRIMARY_CONTEXT_ACTIVE, 708) \
    X(ERROR_CONTEXT_IS_DESTROYED, 709) \
    X(ERROR_ASSERT, 710) \
    X(ERROR_TOO_MANY_PEERS, 711) \
    X(ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712) \
    X(ERROR_HOST_MEMORY_NOT_REGISTERED, 713) \
    X(ERROR_HARDWARE_STACK_ERROR, 714) \
    X(ERROR_ILLEGAL_INSTRUCTION, 715) \
    X(ERROR_MISALIGNED_ADDRESS, 716) \
    X(ERROR_INVALID_ADDRESS_SPACE, 717) \
    X(ERROR_INVALID_PC, 718) \
    X(ERROR_LAUNCH_FAILED, 719) \
    X(ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720) \
    X(ERROR_TENSOR_MEMORY_LEAK, 721) \
    X(ERROR_NOT_PERMITTED, 800) \
    X(ERROR_NOT_SUPPORTED, 801) \
    X(ERROR_SYSTEM_NOT_READY, 802) \
    X(ERROR_SYSTEM_DRIVER_MISMATCH, 803) \
    X(ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804) \
    X(ERROR_MPS_CONNECTION_FAILED, 805) \
    X(ERROR_MPS_RPC_FAILURE, 806) \
    X(ERROR_MPS_SERVER_NOT_READY, 807) \
    X(ERROR_MPS_MAX_CLIENTS_REACHED, 808) \
    X(ERROR_MPS_MAX_CONNECTIONS_REACHED, 809) \
    X(ERROR_MPS_CLIENT_TERMINATED, 810) \
    X(ERROR_CDP_NOT_SUPPORTED, 811) \
    X(ERROR_CDP_VERSION_MISMATCH, 812) \
    X(ERROR_STREAM_CAPTURE_UNSUPPORTED, 900) \
    X(ERROR_STREAM_CAPTURE_INVALIDATED, 901) \
    X(ERROR_STREAM_CAPTURE_MERGE, 902) \
    X(ERROR_STREAM_CAPTURE_UNMATCHED, 903) \
    X(ERROR_STREAM_CAPTURE_UNJOINED, 904) \
    X(ERROR_STREAM_CAPTURE_ISOLATION, 905) \
    X(ERROR_STREAM_CAPTURE_IMPLICIT, 906) \
    X(ERROR_CAPTURED_EVENT, 907) \
    X(ERROR_STREAM_CAPTURE_WRONG_THREAD, 908) \
    X(ERROR_TIMEOUT, 909) \
    X(ERROR_GRAPH_EXEC_UPDATE_FAILURE, 910) \
    X(ERROR_EXTERNAL_DEVICE, 911) \
    X(ERROR_INVALID_CLUSTER_SIZE, 912) \
    X(ERROR_FUNCTION_NOT_LOADED, 913) \
    X(ERROR_INVALID_RESOURCE_TYPE, 914) \
    X(ERROR_INVALID_RESOURCE_CONFIGURATION, 915) \
    X(ERROR_KEY_ROTATION, 916) \
    X(ERROR_UNKNOWN, 999)

enum {
#define CUABI_RESULT_ENUM(name, value) CUABI_##name = value,
    CUABI_RESULT_LIST(CUABI_RESULT_ENUM)
#undef CUABI_RESULT_ENUM
};

enum {
    CUABI_STREAM_DEFAULT = 0x0,
    CUABI_STREAM_NON_BLOCKING = 0x1,
};

enum {
    CUABI_EVENT_DEFAULT = 0x0,
    CUABI_EVENT_DISABLE_TIMING = 0x2,
};

enum {
    CUABI_STREAM_CAPTURE_MODE_GLOBAL = 0,
    CUABI_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CUABI_STREAM_CAPTURE_MODE_RELAXED = 2,
};

enum {
    CUABI_STREAM_CAPTURE_STATUS_NONE = 0,
    CUABI_STREAM_CAPTURE_STATUS_ACTIVE = 1,
    CUABI_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
};

enum {
    CUABI_JIT_INFO_LOG_BUFFER = 3,
    CUABI_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CUABI_JIT_ERROR_LOG_BUFFER = 5,
    CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* cuLaunchKernel's `extra` array: these keys as pointer values, each followed by its value, then END. */
enum {
    CUABI_LAUNCH_PARAM_END = 0,
    CUABI_LAUNCH_PARAM_BUFFER_POINTER = 1,
    CUABI_LAUNCH_PARAM_BUFFER_SIZE = 2,
};

enum {
    CUABI_GET_PROC_ADDRESS_DEFAULT = 0,
    CUABI_GET_PROC_ADDRESS_LEGACY_STREAM = 1 << 0,
    CUABI_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 1 << 1,
};

enum {
    CUABI_GET_PROC_ADDRESS_SUCCESS = 0,
    CUABI_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    CUABI_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
};

enum {
    CUABI_MEMHOSTALLOC_PORTABLE = 0x01,
    CUABI_MEMHOSTREGISTER_PORTABLE = 0x01,
};

/* The three functions the loader looks up with dlsym before anything else. */
typedef cuabi_result (*cuabi_pfn_cuInit)(unsigned int flags);
typedef cuabi_result (*cuabi_pfn_cuDriverGetVersion)(int *version);
typedef cuabi_result (*cuabi_pfn_cuGetProcAddress)(const char *symbol, void **pfn, int cuda_version,
                                                   cuabi_uint64 flags,
                                                   cuabi_proc_address_query_result *status);
#define CUABI_SYMBOL_cuInit "cuInit"
#define CUABI_SYMBOL_cuDriverGetVersion "cuDriverGetVersion"
#define CUABI_SYMBOL_cuGetProcAddress "cuGetProcAddress_v2"

/* ---- Kernels: attributes, occupancy, extended launches, memset, globals, limits. ---- */

typedef unsigned int cuabi_function_attribute; /* CUfunction_attribute */
typedef unsigned int cuabi_func_cache;         /* CUfunc_cache */
typedef unsigned int cuabi_limit;              /* CUlimit */
typedef unsigned int cuabi_launch_attribute_id; /* CUlaunchAttributeID */
typedef size_t (*cuabi_occupancy_b2d_size)(int block_size);

struct cuabi_uuid {
    char bytes[16];
};
typedef struct cuabi_uuid cuabi_uuid;

typedef struct cuabi_access_policy_window { /* CUaccessPolicyWindow */
    void *base_ptr;
    size_t num_bytes;
    float hit_ratio;
    unsigned int hit_prop, miss_prop; /* CUaccessProperty */
} cuabi_access_policy_window;
enum { CUABI_ACCESS_PROPERTY_PERSISTING = 2 };                             /* the last CUaccessProperty */
enum { CUABI_SYNC_POLICY_AUTO = 1, CUABI_SYNC_POLICY_BLOCKING_SYNC = 4 }; /* CUsynchronizationPolicy's range */

/* CUlaunchAttributeValue (CUstreamAttrValue): a 64-byte union; gpushim and its fake use only these members. */
typedef union cuabi_launch_attribute_value {
    char pad[64];
    cuabi_access_policy_window access_policy_window;
    int cooperative;
    unsigned int sync_policy; /* CUsynchronizationPolicy */
    struct {
        unsigned int x, y, z;
    } cluster_dim;
    int programmatic_stream_serialization_allowed;
    int priority;
} cuabi_launch_attribute_value;

typedef struct cuabi_launch_attribute {
    cuabi_launch_attribute_id id;
    char pad[8 - sizeof(cuabi_launch_attribute_id)];
    cuabi_launch_attribute_value value;
} cuabi_launch_attribute;

/* Tagged, so that the abi suite can compare the layout and then read the typedef's name as cuda.h's. */
struct cuabi_launch_config {
    unsigned int grid_x, grid_y, grid_z;
    unsigned int block_x, block_y, block_z;
    unsigned int shared_mem_bytes;
    cuabi_stream stream;
    cuabi_launch_attribute *attrs;
    unsigned int num_attrs;
};
typedef struct cuabi_launch_config cuabi_launch_config;

enum {
    CUABI_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CUABI_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CUABI_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
    CUABI_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CUABI_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CUABI_FUNC_ATTRIBUTE_PTX_VERSION = 5,
    CUABI_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
    CUABI_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
    CUABI_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CUABI_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
};

enum {
    CUABI_FUNC_CACHE_PREFER_NONE = 0,
    CUABI_FUNC_CACHE_PREFER_SHARED = 1,
    CUABI_FUNC_CACHE_PREFER_L1 = 2,
    CUABI_FUNC_CACHE_PREFER_EQUAL = 3,
};

enum {
    CUABI_LIMIT_STACK_SIZE = 0,
    CUABI_LIMIT_PRINTF_FIFO_SIZE = 1,
    CUABI_LIMIT_MALLOC_HEAP_SIZE = 2,
    CUABI_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
    CUABI_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
    CUABI_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
    CUABI_LIMIT_PERSISTING_L2_CACHE_SIZE = 6,
    CUABI_LIMIT_SHMEM_SIZE = 7,
    CUABI_LIMIT_CIG_ENABLED = 8,
};

enum {
    CUABI_OCCUPANCY_DEFAULT = 0,
    CUABI_OCCUPANCY_DISABLE_CACHING_OVERRIDE = 1,
};

enum {
    CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1,
    CUABI_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
    CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY = 3,
    CUABI_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
    CUABI_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
    CUABI_LAUNCH_ATTRIBUTE_PRIORITY = 8,
};

/* CUdevice_attribute values of the public gpu_device_attribute enum, and those gpushim asks for itself. */
#define CUABI_DEVICE_ATTRIBUTE_LIST(X) \
    X(MAX_THREADS_PER_BLOCK, 1) \
    X(MAX_BLOCK_DIM_X, 2) \
    X(MAX_BLOCK_DIM_Y, 3) \
    X(MAX_BLOCK_DIM_Z, 4) \
    X(MAX_GRID_DIM_X, 5) \
    X(MAX_GRID_DIM_Y, 6) \
    X(MAX_GRID_DIM_Z, 7) \
    X(MAX_SHARED_MEMORY_PER_BLOCK, 8) \
    X(TOTAL_CONSTANT_MEMORY, 9) \
    X(WARP_SIZE, 10) \
    X(MAX_REGISTERS_PER_BLOCK, 12) \
    X(CLOCK_RATE, 13) \
    X(INTEGRATED, 18) \
    X(CONCURRENT_KERNELS, 31) \
    X(ECC_ENABLED, 32) \
    X(MEMORY_CLOCK_RATE, 36) \
    X(GLOBAL_MEMORY_BUS_WIDTH, 37) \
    X(L2_CACHE_SIZE, 38) \
    X(MAX_THREADS_PER_MULTIPROCESSOR, 39) \
    X(ASYNC_ENGINE_COUNT, 40) \
    X(UNIFIED_ADDRESSING, 41) \
    X(STREAM_PRIORITIES_SUPPORTED, 78) \
    X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81) \
    X(MAX_REGISTERS_PER_MULTIPROCESSOR, 82) \
    X(MANAGED_MEMORY, 83) \
    X(COOPERATIVE_LAUNCH, 95) \
    X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97) \
    X(MAX_BLOCKS_PER_MULTIPROCESSOR, 106) \
    X(RESERVED_SHARED_MEMORY_PER_BLOCK, 111) \
    X(CLUSTER_LAUNCH, 120)

/*
 * Every CUdevice_attribute of CUDA 13.0, 1 to CUABI_DEVICE_ATTRIBUTE_COUNT - 1,
 * each under its current name (cuda.h's deprecated aliases left out): the
 * fake driver answers them all.
 */
#define CUABI_DEVICE_ATTRIBUTES_ALL(X) \
    X(MAX_THREADS_PER_BLOCK, 1) \
    X(MAX_BLOCK_DIM_X, 2) \
    X(MAX_BLOCK_DIM_Y, 3) \
    X(MAX_BLOCK_DIM_Z, 4) \
    X(MAX_GRID_DIM_X, 5) \
    X(MAX_GRID_DIM_Y, 6) \
    X(MAX_GRID_DIM_Z, 7) \
    X(MAX_SHARED_MEMORY_PER_BLOCK, 8) \
    X(TOTAL_CONSTANT_MEMORY, 9) \
    X(WARP_SIZE, 10) \
    X(MAX_PITCH, 11) \
    X(MAX_REGISTERS_PER_BLOCK, 12) \
    X(CLOCK_RATE, 13) \
    X(TEXTURE_ALIGNMENT, 14) \
    X(GPU_OVERLAP, 15) \
    X(MULTIPROCESSOR_COUNT, 16) \
    X(KERNEL_EXEC_TIMEOUT, 17) \
    X(INTEGRATED, 18) \
    X(CAN_MAP_HOST_MEMORY, 19) \
    X(COMPUTE_MODE, 20) \
    X(MAXIMUM_TEXTURE1D_WIDTH, 21) \
    X(MAXIMUM_TEXTURE2D_WIDTH, 22) \
    X(MAXIMUM_TEXTURE2D_HEIGHT, 23) \
    X(MAXIMUM_TEXTURE3D_WIDTH, 24) \
    X(MAXIMUM_TEXTURE3D_HEIGHT, 25) \
    X(MAXIMUM_TEXTURE3D_DEPTH, 26) \
    X(MAXIMUM_TEXTURE2D_LAYERED_WIDTH, 27) \
    X(MAXIMUM_TEXTURE2D_LAYERED_HEIGHT, 28) \
    X(MAXIMUM_TEXTURE2D_LAYERED_LAYERS, 29) \
    X(SURFACE_ALIGNMENT, 30) \
    X(CONCURRENT_KERNELS, 31) \
    X(ECC_ENABLED, 32) \
    X(PCI_BUS_ID, 33) \
    X(PCI_DEVICE_ID, 34) \
    X(TCC_DRIVER, 35) \
    X(MEMORY_CLOCK_RATE, 36) \
    X(GLOBAL_MEMORY_BUS_WIDTH, 37) \
    X(L2_CACHE_SIZE, 38) \
    X(MAX_THREADS_PER_MULTIPROCESSOR, 39) \
    X(ASYNC_ENGINE_COUNT, 40) \
    X(UNIFIED_ADDRESSING, 41) \
    X(MAXIMUM_TEXTURE1D_LAYERED_WIDTH, 42) \
    X(MAXIMUM_TEXTURE1D_LAYERED_LAYERS, 43) \
    X(CAN_TEX2D_GATHER, 44) \
    X(MAXIMUM_TEXTURE2D_GATHER_WIDTH, 45) \
    X(MAXIMUM_TEXTURE2D_GATHER_HEIGHT, 46) \
    X(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE, 47) \
    X(MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE, 48) \
    X(MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE, 49) \
    X(PCI_DOMAIN_ID, 50) \
    X(TEXTURE_PITCH_ALIGNMENT, 51) \
    X(MAXIMUM_TEXTURECUBEMAP_WIDTH, 52) \
    X(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH, 53) \
    X(MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS, 54) \
    X(MAXIMUM_SURFACE1D_WIDTH, 55) \
    X(MAXIMUM_SURFACE2D_WIDTH, 56) \
    X(MAXIMUM_SURFACE2D_HEIGHT, 57) \
    X(MAXIMUM_SURFACE3D_WIDTH, 58) \
    X(MAXIMUM_SURFACE3D_HEIGHT, 59) \
    X(MAXIMUM_SURFACE3D_DEPTH, 60) \
    X(MAXIMUM_SURFACE1D_LAYERED_WIDTH, 61) \
    X(MAXIMUM_SURFACE1D_LAYERED_LAYERS, 62) \
    X(MAXIMUM_SURFACE2D_LAYERED_WIDTH, 63) \
    X(MAXIMUM_SURFACE2D_LAYERED_HEIGHT, 64) \
    X(MAXIMUM_SURFACE2D_LAYERED_LAYERS, 65) \
    X(MAXIMUM_SURFACECUBEMAP_WIDTH, 66) \
    X(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH, 67) \
    X(MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS, 68) \
    X(MAXIMUM_TEXTURE1D_LINEAR_WIDTH, 69) \
    X(MAXIMUM_TEXTURE2D_LINEAR_WIDTH, 70) \
    X(MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, 71) \
    X(MAXIMUM_TEXTURE2D_LINEAR_PITCH, 72) \
    X(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH, 73) \
    X(MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT, 74) \
    X(COMPUTE_CAPABILITY_MAJOR, 75) \
    X(COMPUTE_CAPABILITY_MINOR, 76) \
    X(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH, 77) \
    X(STREAM_PRIORITIES_SUPPORTED, 78) \
    X(GLOBAL_L1_CACHE_SUPPORTED, 79) \
    X(LOCAL_L1_CACHE_SUPPORTED, 80) \
    X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81) \
    X(MAX_REGISTERS_PER_MULTIPROCESSOR, 82) \
    X(MANAGED_MEMORY, 83) \
    X(MULTI_GPU_BOARD, 84) \
    X(MULTI_GPU_BOARD_GROUP_ID, 85) \
    X(HOST_NATIVE_ATOMIC_SUPPORTED, 86) \
    X(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO, 87) \
    X(PAGEABLE_MEMORY_ACCESS, 88) \
    X(CONCURRENT_MANAGED_ACCESS, 89) \
    X(COMPUTE_PREEMPTION_SUPPORTED, 90) \
    X(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 91) \
    X(CAN_USE_STREAM_MEM_OPS_V1, 92) \
    X(CAN_USE_64_BIT_STREAM_MEM_OPS_V1, 93) \
    X(CAN_USE_STREAM_WAIT_VALUE_NOR_V1, 94) \
    X(COOPERATIVE_LAUNCH, 95) \
    X(COOPERATIVE_MULTI_DEVICE_LAUNCH, 96) \
    X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97) \
    X(CAN_FLUSH_REMOTE_WRITES, 98) \
    X(HOST_REGISTER_SUPPORTED, 99) \
    X(PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, 100) \
    X(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, 101) \
    X(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 102) \
    X(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 103) \
    X(HANDLE_TYPE_WIN32_HANDLE_SUPPORTED, 104) \
    X(HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED, 105) \
    X(MAX_BLOCKS_PER_MULTIPROCESSOR, 106) \
    X(GENERIC_COMPRESSION_SUPPORTED, 107) \
    X(MAX_PERSISTING_L2_CACHE_SIZE, 108) \
    X(MAX_ACCESS_POLICY_WINDOW_SIZE, 109) \
    X(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 110) \
    X(RESERVED_SHARED_MEMORY_PER_BLOCK, 111) \
    X(SPARSE_CUDA_ARRAY_SUPPORTED, 112) \
    X(READ_ONLY_HOST_REGISTER_SUPPORTED, 113) \
    X(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, 114) \
    X(MEMORY_POOLS_SUPPORTED, 115) \
    X(GPU_DIRECT_RDMA_SUPPORTED, 116) \
    X(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 117) \
    X(GPU_DIRECT_RDMA_WRITES_ORDERING, 118) \
    X(MEMPOOL_SUPPORTED_HANDLE_TYPES, 119) \
    X(CLUSTER_LAUNCH, 120) \
    X(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, 121) \
    X(CAN_USE_64_BIT_STREAM_MEM_OPS, 122) \
    X(CAN_USE_STREAM_WAIT_VALUE_NOR, 123) \
    X(DMA_BUF_SUPPORTED, 124) \
    X(IPC_EVENT_SUPPORTED, 125) \
    X(MEM_SYNC_DOMAIN_COUNT, 126) \
    X(TENSOR_MAP_ACCESS_SUPPORTED, 127) \
    X(HANDLE_TYPE_FABRIC_SUPPORTED, 128) \
    X(UNIFIED_FUNCTION_POINTERS, 129) \
    X(NUMA_CONFIG, 130) \
    X(NUMA_ID, 131) \
    X(MULTICAST_SUPPORTED, 132) \
    X(MPS_ENABLED, 133) \
    X(HOST_NUMA_ID, 134) \
    X(D3D12_CIG_SUPPORTED, 135) \
    X(MEM_DECOMPRESS_ALGORITHM_MASK, 136) \
    X(MEM_DECOMPRESS_MAXIMUM_LENGTH, 137) \
    X(VULKAN_CIG_SUPPORTED, 138) \
    X(GPU_PCI_DEVICE_ID, 139) \
    X(GPU_PCI_SUBSYSTEM_ID, 140) \
    X(HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 141) \
    X(HOST_NUMA_MEMORY_POOLS_SUPPORTED, 142) \
    X(HOST_NUMA_MULTINODE_IPC_SUPPORTED, 143) \
    X(HOST_MEMORY_POOLS_SUPPORTED, 144) \
    X(HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 145) \
    X(HOST_ALLOC_DMA_BUF_SUPPORTED, 146) \
    X(ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED, 147)

enum {
#define CUABI_DEVICE_ATTRIBUTE_ENUM(name, value) CUABI_DEVICE_ATTRIBUTE_##name = value,
    CUABI_DEVICE_ATTRIBUTES_ALL(CUABI_DEVICE_ATTRIBUTE_ENUM)
#undef CUABI_DEVICE_ATTRIBUTE_ENUM
    CUABI_DEVICE_ATTRIBUTE_COUNT = 148
};

/* Tensor maps (Hopper's bulk tensor copies): CUtensorMap and its enums. */
typedef uint32_t cuabi_uint32;
typedef unsigned int cuabi_tensor_map_data_type;
typedef unsigned int cuabi_tensor_map_interleave;
typedef unsigned int cuabi_tensor_map_swizzle;
typedef unsigned int cuabi_tensor_map_l2_promotion;
typedef unsigned int cuabi_tensor_map_oob_fill;

/* 64-byte aligned in the 12.0 ABI, 128 in later headers: 128 satisfies both. */
struct cuabi_tensor_map {
    _Alignas(128) cuabi_uint64 opaque[16];
};
typedef struct cuabi_tensor_map cuabi_tensor_map;

enum {
    CUABI_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
    CUABI_TENSOR_MAP_DATA_TYPE_UINT16 = 1,
    CUABI_TENSOR_MAP_DATA_TYPE_UINT32 = 2,
    CUABI_TENSOR_MAP_DATA_TYPE_INT32 = 3,
    CUABI_TENSOR_MAP_DATA_TYPE_UINT64 = 4,
    CUABI_TENSOR_MAP_DATA_TYPE_INT64 = 5,
    CUABI_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6,
    CUABI_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7,
    CUABI_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8,
    CUABI_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9,
    CUABI_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ = 10,
    CUABI_TENSOR_MAP_DATA_TYPE_TFLOAT32 = 11,
    CUABI_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ = 12,
    CUABI_TENSOR_MAP_INTERLEAVE_NONE = 0,
    CUABI_TENSOR_MAP_SWIZZLE_NONE = 0,
    CUABI_TENSOR_MAP_SWIZZLE_32B = 1,
    CUABI_TENSOR_MAP_SWIZZLE_64B = 2,
    CUABI_TENSOR_MAP_SWIZZLE_128B = 3,
    CUABI_TENSOR_MAP_L2_PROMOTION_NONE = 0,
    CUABI_TENSOR_MAP_L2_PROMOTION_L2_64B = 1,
    CUABI_TENSOR_MAP_L2_PROMOTION_L2_128B = 2,
    CUABI_TENSOR_MAP_L2_PROMOTION_L2_256B = 3,
    CUABI_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
    CUABI_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1,
};

/* ---- End of kernels. ---- */
/*
 * Memory and interop: pools, pointers, managed memory, priorities,
 * graph update, IPC, stream memory operations. The structs are declared under
 * tags a includer may define to cuda.h's own (the abi suite does), so that
 * prototypes taking them compare equal there.
 */
typedef struct cuabi_mem_pool_st *cuabi_mem_pool;
typedef unsigned int cuabi_mem_pool_attribute;
typedef unsigned int cuabi_pointer_attribute;
typedef unsigned int cuabi_mem_advise;
typedef unsigned int cuabi_graph_exec_update_result;
typedef uint32_t cuabi_uint32;

#define CUABI_IPC_HANDLE_SIZE 64
#ifndef cuabi_ipc_mem_handle_st
struct cuabi_ipc_mem_handle_st {
    char reserved[CUABI_IPC_HANDLE_SIZE];
};
#endif
#ifndef cuabi_ipc_event_handle_st
struct cuabi_ipc_event_handle_st {
    char reserved[CUABI_IPC_HANDLE_SIZE];
};
#endif
#ifndef cuabi_graph_exec_update_result_info_st
struct cuabi_graph_exec_update_result_info_st {
    cuabi_graph_exec_update_result result;
    cuabi_graph_node error_node;
    cuabi_graph_node error_from_node;
};
#endif
typedef struct cuabi_ipc_mem_handle_st cuabi_ipc_mem_handle;
typedef struct cuabi_ipc_event_handle_st cuabi_ipc_event_handle;
typedef struct cuabi_graph_exec_update_result_info_st cuabi_graph_exec_update_result_info;

enum {
    CUABI_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
    CUABI_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,
    CUABI_MEMPOOL_ATTR_USED_MEM_CURRENT = 7,
};

enum {
    CUABI_POINTER_ATTRIBUTE_CONTEXT = 1,
    CUABI_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CUABI_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
    CUABI_POINTER_ATTRIBUTE_HOST_POINTER = 4,
    CUABI_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CUABI_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    CUABI_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
};

enum {
    CUABI_MEMORYTYPE_HOST = 1,
    CUABI_MEMORYTYPE_DEVICE = 2,
    CUABI_MEMORYTYPE_ARRAY = 3,
    CUABI_MEMORYTYPE_UNIFIED = 4,
};

enum {
    CUABI_MEM_ATTACH_GLOBAL = 0x1,
    CUABI_MEM_ATTACH_HOST = 0x2,
    CUABI_MEM_ATTACH_SINGLE = 0x4,
    CUABI_MEM_ADVISE_SET_READ_MOSTLY = 1,
    CUABI_MEM_ADVISE_UNSET_READ_MOSTLY = 2,
    CUABI_MEM_ADVISE_SET_PREFERRED_LOCATION = 3,
    CUABI_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 4,
    CUABI_MEM_ADVISE_SET_ACCESSED_BY = 5,
    CUABI_MEM_ADVISE_UNSET_ACCESSED_BY = 6,
};

/* CU_DEVICE_CPU: the host, where a CUdevice names a location. */
#define CUABI_DEVICE_CPU ((cuabi_device)-1)
/* CU_DEVICE_INVALID: no location, or no one location. */
#define CUABI_DEVICE_INVALID ((cuabi_device)-2)

typedef unsigned int cuabi_mem_range_attribute; /* CUmem_range_attribute */
enum {
    CUABI_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
    CUABI_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2,
    CUABI_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3,
    CUABI_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 4,
};

enum {
    CUABI_EVENT_INTERPROCESS = 0x4,
    CUABI_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1,
};

enum {
    CUABI_STREAM_WAIT_VALUE_GEQ = 0x0,
    CUABI_STREAM_WAIT_VALUE_EQ = 0x1,
    CUABI_STREAM_WAIT_VALUE_AND = 0x2,
    CUABI_STREAM_WAIT_VALUE_NOR = 0x3,
    CUABI_STREAM_WRITE_VALUE_DEFAULT = 0x0,
};

enum {
    CUABI_GRAPH_EXEC_UPDATE_SUCCESS = 0,
    CUABI_GRAPH_EXEC_UPDATE_ERROR = 1,
    CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED = 2,
    CUABI_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED = 3,
    CUABI_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED = 4,
    CUABI_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED = 5,
    CUABI_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED = 6,
    CUABI_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE = 7,
    CUABI_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED = 8,
};

enum {
    CUABI_GRAPH_DEBUG_DOT_FLAGS_VERBOSE = 1,
};
/* End of memory and interop. */

/*
 * Virtual memory management: physical allocations (CUmemGenericAllocationHandle),
 * their properties, locations and access, and the shareable handle types.
 */
typedef unsigned long long cuabi_mem_handle;
typedef unsigned int cuabi_mem_handle_type;

typedef struct cuabi_mem_location {
    unsigned int type; /* CUABI_MEM_LOCATION_TYPE_* */
    int id;
} cuabi_mem_location;

typedef struct cuabi_mem_allocation_prop {
    unsigned int type;                   /* CUABI_MEM_ALLOCATION_TYPE_* */
    cuabi_mem_handle_type handle_types;  /* requested, CUABI_MEM_HANDLE_TYPE_* bits */
    cuabi_mem_location location;
    void *win32_metadata;
    struct {
        unsigned char compression;
        unsigned char rdma_capable;
        unsigned short usage;
        unsigned char reserved[4];
    } alloc_flags;
} cuabi_mem_allocation_prop;

/* A stream-ordered memory pool's properties (CUmemPoolProps). */
typedef struct cuabi_mem_pool_props {
    unsigned int type;                  /* CUABI_MEM_ALLOCATION_TYPE_PINNED */
    cuabi_mem_handle_type handle_types; /* CUABI_MEM_HANDLE_TYPE_* bits its allocations may be exported as */
    cuabi_mem_location location;
    void *win32_security_attributes;
    size_t max_size; /* 0: no limit but the device's */
    unsigned short usage;
    unsigned char reserved[54];
} cuabi_mem_pool_props;

typedef struct cuabi_mem_access_desc {
    cuabi_mem_location location;
    unsigned int flags; /* CUABI_MEM_ACCESS_FLAGS_PROT_* */
} cuabi_mem_access_desc;

enum {
    CUABI_MEM_HANDLE_TYPE_NONE = 0x0,
    CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
    CUABI_MEM_HANDLE_TYPE_WIN32 = 0x2,
    CUABI_MEM_HANDLE_TYPE_WIN32_KMT = 0x4,
    CUABI_MEM_HANDLE_TYPE_FABRIC = 0x8,
    CUABI_MEM_ACCESS_FLAGS_PROT_NONE = 0x0,
    CUABI_MEM_ACCESS_FLAGS_PROT_READ = 0x1,
    CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
    CUABI_MEM_LOCATION_TYPE_DEVICE = 0x1,
    CUABI_MEM_LOCATION_TYPE_HOST = 0x2,
    CUABI_MEM_ALLOCATION_TYPE_PINNED = 0x1,
    CUABI_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
    CUABI_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1,
};

/* ---- The JIT linker, CUDA 12's context-independent loading, the default streams' handles ---- */

typedef struct cuabi_link_state_st *cuabi_link_state; /* CUlinkState */
typedef struct cuabi_lib_st *cuabi_library;           /* CUlibrary */
typedef struct cuabi_kern_st *cuabi_kernel;           /* CUkernel */
typedef unsigned int cuabi_jit_input_type;            /* CUjitInputType */
typedef unsigned int cuabi_library_option;            /* CUlibraryOption */

enum {
    CUABI_JIT_MAX_REGISTERS = 0,
    CUABI_JIT_THREADS_PER_BLOCK = 1,
    CUABI_JIT_WALL_TIME = 2,
    CUABI_JIT_LOG_VERBOSE = 12,
};

enum {
    CUABI_JIT_INPUT_CUBIN = 0,
    CUABI_JIT_INPUT_PTX = 1,
    CUABI_JIT_INPUT_FATBINARY = 2,
    CUABI_JIT_INPUT_OBJECT = 3,
    CUABI_JIT_INPUT_LIBRARY = 4,
    CUABI_JIT_INPUT_NVVM = 5,
};

enum {
    CUABI_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE = 0,
    CUABI_LIBRARY_BINARY_IS_PRESERVED = 1,
    CUABI_LIBRARY_NUM_OPTIONS = 2,
};

/* CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: handles that name a default stream wherever a stream is taken. */
#define CUABI_STREAM_LEGACY ((cuabi_stream)0x1)
#define CUABI_STREAM_PER_THREAD ((cuabi_stream)0x2)

/*
 * 2D and 3D copies, CUDA arrays, texture and surface objects (the fake
 * driver's): cuda.h's structs, field for field (the abi suite compares them).
 */
typedef struct cuabi_array_st *cuabi_array;
typedef struct cuabi_mipmapped_array_st *cuabi_mipmapped_array;
typedef unsigned long long cuabi_tex_object;
typedef unsigned long long cuabi_surf_object;
typedef unsigned int cuabi_array_format; /* CUarray_format */

typedef struct cuabi_memcpy2d {
    size_t src_x, src_y;
    unsigned int src_type; /* CU_MEMORYTYPE_* */
    const void *src_host;
    cuabi_deviceptr src_device;
    cuabi_array src_array;
    size_t src_pitch;
    size_t dst_x, dst_y;
    unsigned int dst_type;
    void *dst_host;
    cuabi_deviceptr dst_device;
    cuabi_array dst_array;
    size_t dst_pitch;
    size_t width, height; /* bytes, rows */
} cuabi_memcpy2d;

typedef struct cuabi_memcpy3d {
    size_t src_x, src_y, src_z, src_lod;
    unsigned int src_type;
    const void *src_host;
    cuabi_deviceptr src_device;
    cuabi_array src_array;
    void *reserved0;
    size_t src_pitch, src_height;
    size_t dst_x, dst_y, dst_z, dst_lod;
    unsigned int dst_type;
    void *dst_host;
    cuabi_deviceptr dst_device;
    cuabi_array dst_array;
    void *reserved1;
    size_t dst_pitch, dst_height;
    size_t width, height, depth; /* bytes, rows, slices */
} cuabi_memcpy3d;

/*
 * Graphs' nodes: their kinds and each kind's parameters (CUDA_*_NODE_PARAMS,
 * CUgraphNodeParams), instantiation's parameters, user objects.
 */
typedef unsigned int cuabi_graph_node_type; /* CUgraphNodeType */
enum {
    CUABI_GRAPH_NODE_TYPE_KERNEL = 0,
    CUABI_GRAPH_NODE_TYPE_MEMCPY = 1,
    CUABI_GRAPH_NODE_TYPE_MEMSET = 2,
    CUABI_GRAPH_NODE_TYPE_HOST = 3,
    CUABI_GRAPH_NODE_TYPE_GRAPH = 4,
    CUABI_GRAPH_NODE_TYPE_EMPTY = 5,
    CUABI_GRAPH_NODE_TYPE_WAIT_EVENT = 6,
    CUABI_GRAPH_NODE_TYPE_EVENT_RECORD = 7,
    CUABI_GRAPH_NODE_TYPE_MEM_ALLOC = 10,
    CUABI_GRAPH_NODE_TYPE_MEM_FREE = 11,
    CUABI_GRAPH_NODE_TYPE_CONDITIONAL = 13,
};
typedef struct cuabi_user_object_st *cuabi_user_object; /* CUuserObject */
enum {
    CUABI_USER_OBJECT_NO_DESTRUCTOR_SYNC = 1,
    CUABI_GRAPH_USER_OBJECT_MOVE = 1,
    CUABI_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH = 1,
    CUABI_GRAPH_INSTANTIATE_FLAG_UPLOAD = 2,
    CUABI_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH = 4,
    CUABI_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY = 8,
    CUABI_GRAPH_INSTANTIATE_SUCCESS = 0,
    CUABI_GRAPH_INSTANTIATE_ERROR = 1,
    CUABI_GRAPH_INSTANTIATE_INVALID_STRUCTURE = 2,
    CUABI_GRAPH_DEPENDENCY_TYPE_DEFAULT = 0,
};

/* CUDA_KERNEL_NODE_PARAMS_v1: the fields before the kernel and context handles. */
typedef struct cuabi_kernel_node_params_v1 {
    cuabi_function func;
    unsigned int grid_x, grid_y, grid_z;
    unsigned int block_x, block_y, block_z;
    unsigned int shared_mem_bytes;
    void **params;
    void **extra;
} cuabi_kernel_node_params_v1;

/* CUDA_KERNEL_NODE_PARAMS_v2 (and _v3, the same layout): `kern` is used where `func` is NULL. */
typedef struct cuabi_kernel_node_params {
    cuabi_function func;
    unsigned int grid_x, grid_y, grid_z;
    unsigned int block_x, block_y, block_z;
    unsigned int shared_mem_bytes;
    void **params;
    void **extra;
    cuabi_kernel kern;
    cuabi_context ctx;
} cuabi_kernel_node_params;

/* CUDA_MEMSET_NODE_PARAMS (and _v2, with `ctx`). */
typedef struct cuabi_memset_node_params {
    cuabi_deviceptr dst;
    size_t pitch;
    unsigned int value;
    unsigned int element_size; /* 1, 2 or 4 */
    size_t width, height;      /* elements a row, rows */
} cuabi_memset_node_params;
typedef struct cuabi_memset_node_params_v2 {
    cuabi_deviceptr dst;
    size_t pitch;
    unsigned int value;
    unsigned int element_size;
    size_t width, height;
    cuabi_context ctx;
} cuabi_memset_node_params_v2;

/* CUDA_HOST_NODE_PARAMS (and _v2). */
typedef struct cuabi_host_node_params {
    cuabi_host_fn fn;
    void *user_data;
} cuabi_host_node_params;

/* CUDA_MEMCPY_NODE_PARAMS. */
typedef struct cuabi_memcpy_node_params {
    int flags, reserved;
    cuabi_context copy_ctx;
    cuabi_memcpy3d copy;
} cuabi_memcpy_node_params;

/* CUDA_CHILD_GRAPH_NODE_PARAMS; ownership 0 clones the graph. */
typedef struct cuabi_child_graph_node_params {
    cuabi_graph graph;
    unsigned int ownership;
} cuabi_child_graph_node_params;

/* CUgraphNodeParams: a node's kind and its parameters (cuGraphAddNode). */
typedef struct cuabi_graph_node_params {
    cuabi_graph_node_type type;
    int reserved0[3];
    union {
        long long reserved1[29];
        cuabi_kernel_node_params kernel;
        cuabi_memcpy_node_params memcpy;
        cuabi_memset_node_params_v2 memset;
        cuabi_host_node_params host;
        cuabi_child_graph_node_params graph;
        cuabi_event event_wait;
        cuabi_event event_record;
    } u;
    long long reserved2;
} cuabi_graph_node_params;

/* CUDA_GRAPH_INSTANTIATE_PARAMS. */
typedef struct cuabi_graph_instantiate_params {
    cuabi_uint64 flags;
    cuabi_stream upload_stream;
    cuabi_graph_node err_node;
    unsigned int result; /* CUABI_GRAPH_INSTANTIATE_* */
} cuabi_graph_instantiate_params;

/* CUDA_MEMCPY3D_PEER: cuabi_memcpy3d with each end's context where it has reserved fields. */
typedef struct cuabi_memcpy3d_peer {
    size_t src_x, src_y, src_z, src_lod;
    unsigned int src_type;
    const void *src_host;
    cuabi_deviceptr src_device;
    cuabi_array src_array;
    cuabi_context src_context;
    size_t src_pitch, src_height;
    size_t dst_x, dst_y, dst_z, dst_lod;
    unsigned int dst_type;
    void *dst_host;
    cuabi_deviceptr dst_device;
    cuabi_array dst_array;
    cuabi_context dst_context;
    size_t dst_pitch, dst_height;
    size_t width, height, depth; /* bytes, rows, slices */
} cuabi_memcpy3d_peer;

typedef struct cuabi_array_descriptor {
    size_t width, height;
    cuabi_array_format format;
    unsigned int channels;
} cuabi_array_descriptor;

typedef struct cuabi_array3d_descriptor {
    size_t width, height, depth;
    cuabi_array_format format;
    unsigned int channels;
    unsigned int flags; /* CUDA_ARRAY3D_* */
} cuabi_array3d_descriptor;

typedef struct cuabi_resource_desc {
    unsigned int type; /* CU_RESOURCE_TYPE_* */
    union {
        struct {
            cuabi_array array;
        } array;
        struct {
            cuabi_mipmapped_array mipmap;
        } mipmap;
        struct {
            cuabi_deviceptr ptr;
            cuabi_array_format format;
            unsigned int channels;
            size_t bytes;
        } linear;
        struct {
            cuabi_deviceptr ptr;
            cuabi_array_format format;
            unsigned int channels;
            size_t width, height, pitch;
        } pitch2d;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
} cuabi_resource_desc;

typedef struct cuabi_texture_desc {
    unsigned int address_mode[3]; /* CU_TR_ADDRESS_MODE_* */
    unsigned int filter_mode;     /* CU_TR_FILTER_MODE_* */
    unsigned int flags;           /* CU_TRSF_* */
    unsigned int max_anisotropy;
    unsigned int mipmap_filter_mode;
    float mipmap_level_bias, min_mipmap_level_clamp, max_mipmap_level_clamp;
    float border_color[4];
    int reserved[12];
} cuabi_texture_desc;

typedef struct cuabi_resource_view_desc {
    unsigned int format; /* CUresourceViewFormat */
    size_t width, height, depth;
    unsigned int first_mipmap_level, last_mipmap_level, first_layer, last_layer;
    unsigned int reserved[16];
} cuabi_resource_view_desc;

enum {
    CUABI_AD_FORMAT_UNSIGNED_INT8 = 0x01,
    CUABI_AD_FORMAT_UNSIGNED_INT16 = 0x02,
    CUABI_AD_FORMAT_UNSIGNED_INT32 = 0x03,
    CUABI_AD_FORMAT_SIGNED_INT8 = 0x08,
    CUABI_AD_FORMAT_SIGNED_INT16 = 0x09,
    CUABI_AD_FORMAT_SIGNED_INT32 = 0x0a,
    CUABI_AD_FORMAT_HALF = 0x10,
    CUABI_AD_FORMAT_FLOAT = 0x20,
    CUABI_ARRAY3D_LAYERED = 0x01,
    CUABI_ARRAY3D_SURFACE_LDST = 0x02,
    CUABI_ARRAY3D_CUBEMAP = 0x04,
    CUABI_ARRAY3D_TEXTURE_GATHER = 0x08,
    CUABI_ARRAY3D_DEPTH_TEXTURE = 0x10,
    CUABI_ARRAY3D_COLOR_ATTACHMENT = 0x20,
    CUABI_ARRAY3D_SPARSE = 0x40,
    CUABI_ARRAY3D_DEFERRED_MAPPING = 0x80,
    CUABI_ARRAY3D_VIDEO_ENCODE_DECODE = 0x100,
    CUABI_RESOURCE_TYPE_ARRAY = 0,
    CUABI_RESOURCE_TYPE_MIPMAPPED_ARRAY = 1,
    CUABI_RESOURCE_TYPE_LINEAR = 2,
    CUABI_RESOURCE_TYPE_PITCH2D = 3,
    CUABI_TR_ADDRESS_MODE_WRAP = 0,
    CUABI_TR_ADDRESS_MODE_CLAMP = 1,
    CUABI_TR_ADDRESS_MODE_MIRROR = 2,
    CUABI_TR_ADDRESS_MODE_BORDER = 3,
    CUABI_TR_FILTER_MODE_POINT = 0,
    CUABI_TR_FILTER_MODE_LINEAR = 1,
    CUABI_TRSF_READ_AS_INTEGER = 0x01,
    CUABI_TRSF_NORMALIZED_COORDINATES = 0x02,
    CUABI_TRSF_SRGB = 0x10,
    CUABI_TRSF_DISABLE_TRILINEAR_OPTIMIZATION = 0x20,
    CUABI_TRSF_SEAMLESS_CUBEMAP = 0x40,
    CUABI_MEMHOSTALLOC_DEVICEMAP = 0x02,
    CUABI_MEMHOSTALLOC_WRITECOMBINED = 0x04,
    CUABI_MEMHOSTREGISTER_DEVICEMAP = 0x02,
    CUABI_MEMHOSTREGISTER_IOMEMORY = 0x04,
    CUABI_MEMHOSTREGISTER_READ_ONLY = 0x08,
};
/* End of 2D and 3D copies, arrays, textures and surfaces. */

#endif
