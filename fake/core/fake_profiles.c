/* SPDX-License-Identifier: MIT */
/*
 * The devices the fake can be: named profiles (GPUSHIM_FAKE_DEVICE, or
 * gpu_fake_device_profile()), each with the name, memory and every device
 * attribute of CUDA 13.0 that the real board reports.
 *
 * Sources: the boards' published specifications (multiprocessors, clocks,
 * memory and its bus, L2) and the CUDA Programming Guide's limits of their
 * compute capability (threads, blocks, registers and shared memory per
 * multiprocessor, texture and surface sizes); the H200's total memory and
 * clocks, memory bus, L2 and the attributes a datasheet does not give as
 * cuDeviceTotalMem and cuDeviceGetAttribute report them on one (driver 580).
 * The deprecated _V1 stream memory operation attributes read 0 on every
 * board with a CUDA 12 or later driver. tests/fake/test_profiles.c holds the published figures each
 * profile is checked against; tests/gpu/test_profile.c compares the H200
 * profile with a real H200, attribute by attribute.
 */
#include <string.h>

#include "fake_core.h"
#include "fake_profiles.h"

/* The profiles, in the order of the table's columns. */
static const struct fake_profile profiles[] = {
    {"h200", "NVIDIA H200", 150109880320ull, 0},
    {"a100", "NVIDIA A100-SXM4-80GB", 84987740160ull, 1},
    {"l4", "NVIDIA L4", 23580639232ull, 2},
    {"rtx4090", "NVIDIA GeForce RTX 4090", 25393692672ull, 3},
};

enum { PROFILE_COUNT = sizeof(profiles) / sizeof(profiles[0]) };

#define A(name) CUABI_DEVICE_ATTRIBUTE_##name

/*
 * Every attribute's value on each profile: H200, A100-SXM4-80GB, L4, RTX
 * 4090. PCI_BUS_ID and MULTI_GPU_BOARD_GROUP_ID are the device's own, not
 * the profile's (fake_device.c); MULTIPROCESSOR_COUNT and the compute
 * capability start the device's gpu_fake_device_desc. GPU_PCI_SUBSYSTEM_ID
 * depends on the board's maker, not published: 0.
 */
static const struct {
    unsigned attribute;
    int value[PROFILE_COUNT];
} table[] = {
    {A(MAX_THREADS_PER_BLOCK), {1024, 1024, 1024, 1024}},
    {A(MAX_BLOCK_DIM_X), {1024, 1024, 1024, 1024}},
    {A(MAX_BLOCK_DIM_Y), {1024, 1024, 1024, 1024}},
    {A(MAX_BLOCK_DIM_Z), {64, 64, 64, 64}},
    {A(MAX_GRID_DIM_X), {2147483647, 2147483647, 2147483647, 2147483647}},
    {A(MAX_GRID_DIM_Y), {65535, 65535, 65535, 65535}},
    {A(MAX_GRID_DIM_Z), {65535, 65535, 65535, 65535}},
    {A(MAX_SHARED_MEMORY_PER_BLOCK), {49152, 49152, 49152, 49152}},
    {A(TOTAL_CONSTANT_MEMORY), {65536, 65536, 65536, 65536}},
    {A(WARP_SIZE), {32, 32, 32, 32}},
    {A(MAX_PITCH), {2147483647, 2147483647, 2147483647, 2147483647}},
    {A(MAX_REGISTERS_PER_BLOCK), {65536, 65536, 65536, 65536}},
    {A(CLOCK_RATE), {1980000, 1410000, 2040000, 2520000}},
    {A(TEXTURE_ALIGNMENT), {512, 512, 512, 512}},
    {A(GPU_OVERLAP), {1, 1, 1, 1}},
    {A(MULTIPROCESSOR_COUNT), {132, 108, 58, 128}},
    {A(KERNEL_EXEC_TIMEOUT), {0, 0, 0, 0}},
    {A(INTEGRATED), {0, 0, 0, 0}},
    {A(CAN_MAP_HOST_MEMORY), {1, 1, 1, 1}},
    {A(COMPUTE_MODE), {0, 0, 0, 0}},
    {A(MAXIMUM_TEXTURE1D_WIDTH), {131072, 131072, 131072, 131072}},
    {A(MAXIMUM_TEXTURE2D_WIDTH), {131072, 131072, 131072, 131072}},
    {A(MAXIMUM_TEXTURE2D_HEIGHT), {65536, 65536, 65536, 65536}},
    {A(MAXIMUM_TEXTURE3D_WIDTH), {16384, 16384, 16384, 16384}},
    {A(MAXIMUM_TEXTURE3D_HEIGHT), {16384, 16384, 16384, 16384}},
    {A(MAXIMUM_TEXTURE3D_DEPTH), {16384, 16384, 16384, 16384}},
    {A(MAXIMUM_TEXTURE2D_LAYERED_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_TEXTURE2D_LAYERED_HEIGHT), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_TEXTURE2D_LAYERED_LAYERS), {2048, 2048, 2048, 2048}},
    {A(SURFACE_ALIGNMENT), {512, 512, 512, 512}},
    {A(CONCURRENT_KERNELS), {1, 1, 1, 1}},
    {A(ECC_ENABLED), {1, 1, 1, 0}},
    {A(PCI_DEVICE_ID), {0, 0, 0, 0}},
    {A(TCC_DRIVER), {0, 0, 0, 0}},
    {A(MEMORY_CLOCK_RATE), {3201000, 1593000, 6251000, 10501000}},
    {A(GLOBAL_MEMORY_BUS_WIDTH), {6016, 5120, 192, 384}},
    {A(L2_CACHE_SIZE), {62914560, 41943040, 50331648, 75497472}},
    {A(MAX_THREADS_PER_MULTIPROCESSOR), {2048, 2048, 1536, 1536}},
    {A(ASYNC_ENGINE_COUNT), {3, 3, 2, 2}},
    {A(UNIFIED_ADDRESSING), {1, 1, 1, 1}},
    {A(MAXIMUM_TEXTURE1D_LAYERED_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_TEXTURE1D_LAYERED_LAYERS), {2048, 2048, 2048, 2048}},
    {A(CAN_TEX2D_GATHER), {1, 1, 1, 1}},
    {A(MAXIMUM_TEXTURE2D_GATHER_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_TEXTURE2D_GATHER_HEIGHT), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE), {8192, 8192, 8192, 8192}},
    {A(MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE), {8192, 8192, 8192, 8192}},
    {A(MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE), {32768, 32768, 32768, 32768}},
    {A(PCI_DOMAIN_ID), {0, 0, 0, 0}},
    {A(TEXTURE_PITCH_ALIGNMENT), {32, 32, 32, 32}},
    {A(MAXIMUM_TEXTURECUBEMAP_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS), {2046, 2046, 2046, 2046}},
    {A(MAXIMUM_SURFACE1D_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_SURFACE2D_WIDTH), {131072, 131072, 131072, 131072}},
    {A(MAXIMUM_SURFACE2D_HEIGHT), {65536, 65536, 65536, 65536}},
    {A(MAXIMUM_SURFACE3D_WIDTH), {16384, 16384, 16384, 16384}},
    {A(MAXIMUM_SURFACE3D_HEIGHT), {16384, 16384, 16384, 16384}},
    {A(MAXIMUM_SURFACE3D_DEPTH), {16384, 16384, 16384, 16384}},
    {A(MAXIMUM_SURFACE1D_LAYERED_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_SURFACE1D_LAYERED_LAYERS), {2048, 2048, 2048, 2048}},
    {A(MAXIMUM_SURFACE2D_LAYERED_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_SURFACE2D_LAYERED_HEIGHT), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_SURFACE2D_LAYERED_LAYERS), {2048, 2048, 2048, 2048}},
    {A(MAXIMUM_SURFACECUBEMAP_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS), {2046, 2046, 2046, 2046}},
    {A(MAXIMUM_TEXTURE1D_LINEAR_WIDTH), {268435456, 268435456, 268435456, 268435456}},
    {A(MAXIMUM_TEXTURE2D_LINEAR_WIDTH), {131072, 131072, 131072, 131072}},
    {A(MAXIMUM_TEXTURE2D_LINEAR_HEIGHT), {65000, 65000, 65000, 65000}},
    {A(MAXIMUM_TEXTURE2D_LINEAR_PITCH), {2097120, 2097120, 2097120, 2097120}},
    {A(MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH), {32768, 32768, 32768, 32768}},
    {A(MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT), {32768, 32768, 32768, 32768}},
    {A(COMPUTE_CAPABILITY_MAJOR), {9, 8, 8, 8}},
    {A(COMPUTE_CAPABILITY_MINOR), {0, 0, 9, 9}},
    {A(MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH), {32768, 32768, 32768, 32768}},
    {A(STREAM_PRIORITIES_SUPPORTED), {1, 1, 1, 1}},
    {A(GLOBAL_L1_CACHE_SUPPORTED), {1, 1, 1, 1}},
    {A(LOCAL_L1_CACHE_SUPPORTED), {1, 1, 1, 1}},
    {A(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), {233472, 167936, 102400, 102400}},
    {A(MAX_REGISTERS_PER_MULTIPROCESSOR), {65536, 65536, 65536, 65536}},
    {A(MANAGED_MEMORY), {1, 1, 1, 1}},
    {A(MULTI_GPU_BOARD), {0, 0, 0, 0}},
    {A(HOST_NATIVE_ATOMIC_SUPPORTED), {0, 0, 0, 0}},
    {A(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO), {2, 2, 64, 64}},
    {A(PAGEABLE_MEMORY_ACCESS), {0, 0, 0, 0}},
    {A(CONCURRENT_MANAGED_ACCESS), {1, 1, 1, 1}},
    {A(COMPUTE_PREEMPTION_SUPPORTED), {1, 1, 1, 1}},
    {A(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM), {1, 1, 1, 1}},
    {A(CAN_USE_STREAM_MEM_OPS_V1), {0, 0, 0, 0}},
    {A(CAN_USE_64_BIT_STREAM_MEM_OPS_V1), {0, 0, 0, 0}},
    {A(CAN_USE_STREAM_WAIT_VALUE_NOR_V1), {0, 0, 0, 0}},
    {A(COOPERATIVE_LAUNCH), {1, 1, 1, 1}},
    {A(COOPERATIVE_MULTI_DEVICE_LAUNCH), {1, 1, 1, 1}},
    {A(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), {232448, 166912, 101376, 101376}},
    {A(CAN_FLUSH_REMOTE_WRITES), {0, 0, 0, 0}},
    {A(HOST_REGISTER_SUPPORTED), {1, 1, 1, 1}},
    {A(PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES), {0, 0, 0, 0}},
    {A(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST), {0, 0, 0, 0}},
    {A(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), {1, 1, 1, 1}},
    {A(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED), {1, 1, 1, 1}},
    {A(HANDLE_TYPE_WIN32_HANDLE_SUPPORTED), {0, 0, 0, 0}},
    {A(HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED), {0, 0, 0, 0}},
    {A(MAX_BLOCKS_PER_MULTIPROCESSOR), {32, 32, 24, 24}},
    {A(GENERIC_COMPRESSION_SUPPORTED), {1, 1, 1, 0}},
    {A(MAX_PERSISTING_L2_CACHE_SIZE), {39321600, 31457280, 37748736, 56623104}},
    {A(MAX_ACCESS_POLICY_WINDOW_SIZE), {134217728, 134213632, 134213632, 134213632}},
    {A(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED), {1, 1, 1, 0}},
    {A(RESERVED_SHARED_MEMORY_PER_BLOCK), {1024, 1024, 1024, 1024}},
    {A(SPARSE_CUDA_ARRAY_SUPPORTED), {1, 1, 1, 1}},
    {A(READ_ONLY_HOST_REGISTER_SUPPORTED), {1, 1, 1, 1}},
    {A(TIMELINE_SEMAPHORE_INTEROP_SUPPORTED), {1, 1, 1, 1}},
    {A(MEMORY_POOLS_SUPPORTED), {1, 1, 1, 1}},
    {A(GPU_DIRECT_RDMA_SUPPORTED), {1, 1, 1, 0}},
    {A(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS), {1, 1, 1, 0}},
    {A(GPU_DIRECT_RDMA_WRITES_ORDERING), {100, 100, 100, 0}},
    {A(MEMPOOL_SUPPORTED_HANDLE_TYPES), {9, 1, 1, 1}},
    {A(CLUSTER_LAUNCH), {1, 0, 0, 0}},
    {A(DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED), {1, 1, 1, 1}},
    {A(CAN_USE_64_BIT_STREAM_MEM_OPS), {1, 1, 1, 1}},
    {A(CAN_USE_STREAM_WAIT_VALUE_NOR), {1, 1, 1, 1}},
    {A(DMA_BUF_SUPPORTED), {1, 1, 1, 1}},
    {A(IPC_EVENT_SUPPORTED), {1, 1, 1, 1}},
    {A(MEM_SYNC_DOMAIN_COUNT), {4, 1, 1, 1}},
    {A(TENSOR_MAP_ACCESS_SUPPORTED), {1, 0, 0, 0}},
    {A(HANDLE_TYPE_FABRIC_SUPPORTED), {1, 0, 0, 0}},
    {A(UNIFIED_FUNCTION_POINTERS), {1, 1, 1, 1}},
    {A(NUMA_CONFIG), {0, 0, 0, 0}},
    {A(NUMA_ID), {-1, -1, -1, -1}},
    {A(MULTICAST_SUPPORTED), {0, 0, 0, 0}},
    {A(MPS_ENABLED), {0, 0, 0, 0}},
    {A(HOST_NUMA_ID), {0, 0, 0, 0}},
    {A(D3D12_CIG_SUPPORTED), {0, 0, 0, 0}},
    {A(MEM_DECOMPRESS_ALGORITHM_MASK), {0, 0, 0, 0}},
    {A(MEM_DECOMPRESS_MAXIMUM_LENGTH), {0, 0, 0, 0}},
    {A(VULKAN_CIG_SUPPORTED), {0, 0, 0, 0}},
    {A(GPU_PCI_DEVICE_ID), {0x233510de, 0x20b210de, 0x27b810de, 0x268410de}},
    {A(GPU_PCI_SUBSYSTEM_ID), {0, 0, 0, 0}},
    {A(HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), {1, 1, 1, 1}},
    {A(HOST_NUMA_MEMORY_POOLS_SUPPORTED), {1, 1, 1, 1}},
    {A(HOST_NUMA_MULTINODE_IPC_SUPPORTED), {0, 0, 0, 0}},
    {A(HOST_MEMORY_POOLS_SUPPORTED), {1, 1, 1, 1}},
    {A(HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), {1, 1, 1, 1}},
    {A(HOST_ALLOC_DMA_BUF_SUPPORTED), {0, 0, 0, 0}},
    {A(ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED), {0, 0, 0, 0}},
};

#define COUNT_ONE(name, value) +1
_Static_assert(0 CUABI_DEVICE_ATTRIBUTES_ALL(COUNT_ONE) == CUABI_DEVICE_ATTRIBUTE_COUNT - 1,
               "every attribute from 1 to the count is listed once");
#undef COUNT_ONE

static const char *const attribute_names[CUABI_DEVICE_ATTRIBUTE_COUNT] = {
#define NAME_OF(name, value) [value] = #name,
    CUABI_DEVICE_ATTRIBUTES_ALL(NAME_OF)
#undef NAME_OF
};

const struct fake_profile *fake_profile_find(const char *key, size_t len)
{
    for (size_t i = 0; i < PROFILE_COUNT; i++)
        if (strlen(profiles[i].key) == len && memcmp(profiles[i].key, key, len) == 0)
            return &profiles[i];
    return NULL;
}

const struct fake_profile *fake_profile_default(void)
{
    return &profiles[0];
}

bool fake_profile_attribute(const struct fake_profile *p, unsigned attribute, int *value)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i].attribute == attribute) {
            *value = table[i].value[p->column];
            return true;
        }
    return false;
}

int fake_attribute_by_name(const char *name, size_t len)
{
    if (len > 20 && strncmp(name, "CU_DEVICE_ATTRIBUTE_", 20) == 0) {
        name += 20;
        len -= 20;
    }
    for (int i = 1; i < CUABI_DEVICE_ATTRIBUTE_COUNT; i++)
        if (strlen(attribute_names[i]) == len && memcmp(attribute_names[i], name, len) == 0)
            return i;
    return -1;
}
