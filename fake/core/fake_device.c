/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's devices: their count, names, memory, attributes (an
 * H200's values, each of which a test may change), UUIDs, PCI bus ids and
 * peer access, and the control API that configures them.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_faults.h"
#include "fake_profiles.h"

enum { ATTRIBUTE_MAX = 256 }; /* attribute values the overrides cover: CUDA 13's and later ones' */

/* What a test changed: a value, or (known false) an attribute the driver does not know. */
static struct {
    bool set;
    bool known;
    int value;
} overrides[FAKE_MAX_DEVICES][ATTRIBUTE_MAX];

/* GPUSHIM_FAKE_COMPUTE_CAPABILITY=major.minor, e.g. 9.0; a malformed one is a configuration error, and changes nothing. */
static void parse_capability(const char *text, int *major, int *minor)
{
    const char *dot = strchr(text, '.');
    char buf[8];
    long ma, mi;

    if (!dot || (size_t)(dot - text) >= sizeof(buf)) {
        fake_config_error("GPUSHIM_FAKE_COMPUTE_CAPABILITY", NULL, NULL, "wants major.minor, e.g. 9.0");
        return;
    }
    memcpy(buf, text, (size_t)(dot - text));
    buf[dot - text] = '\0';
    if (fake_env_number("GPUSHIM_FAKE_COMPUTE_CAPABILITY major", buf, 1, 99, GPU__ENV_UNIT_NONE, &ma) &&
        fake_env_number("GPUSHIM_FAKE_COMPUTE_CAPABILITY minor", dot + 1, 0, 9, GPU__ENV_UNIT_NONE, &mi)) {
        *major = (int)ma;
        *minor = (int)mi;
    }
}

/*
 * The values device attribute `attribute` can take, as cuda.h describes it:
 * a switch 0 or 1 (what a device supports or has), an enumeration's values,
 * a NUMA node or -1, a count or size that the fake divides by or multiplies
 * with (1 and up), any other count or size (0 and up). An attribute that
 * CUDA 13.0 does not have takes any value: the test says what it means.
 */
static void attribute_domain(int attribute, long *lo, long *hi)
{
    static const unsigned char switches[] = {
        CUABI_DEVICE_ATTRIBUTE_GPU_OVERLAP, CUABI_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT,
        CUABI_DEVICE_ATTRIBUTE_INTEGRATED, CUABI_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY,
        CUABI_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, CUABI_DEVICE_ATTRIBUTE_ECC_ENABLED,
        CUABI_DEVICE_ATTRIBUTE_TCC_DRIVER, CUABI_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
        CUABI_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER, CUABI_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_MANAGED_MEMORY, CUABI_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD,
        CUABI_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS,
        CUABI_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, CUABI_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, CUABI_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1,
        CUABI_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1, CUABI_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1,
        CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, CUABI_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH,
        CUABI_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, CUABI_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES,
        CUABI_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST,
        CUABI_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
        CUABI_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
        CUABI_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, CUABI_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS,
        CUABI_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_MPS_ENABLED,
        CUABI_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, CUABI_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED,
        CUABI_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED,
    };
    /* Divisors, alignments and limits the fake computes with: a device has at least one of each. */
    static const unsigned char positive[] = {
        CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
        CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
        CUABI_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, CUABI_DEVICE_ATTRIBUTE_WARP_SIZE,
        CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, CUABI_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
        CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CUABI_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT,
        CUABI_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, CUABI_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT,
        CUABI_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, CUABI_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
    };

    *lo = 0;
    *hi = 2147483647L;
    if (attribute <= 0 || attribute >= CUABI_DEVICE_ATTRIBUTE_COUNT) {
        *lo = -2147483647L - 1;
        return;
    }
    for (size_t i = 0; i < sizeof(switches); i++)
        if (switches[i] == attribute)
            *hi = 1;
    for (size_t i = 0; i < sizeof(positive); i++)
        if (positive[i] == attribute)
            *lo = 1;
    switch (attribute) {
    case CUABI_DEVICE_ATTRIBUTE_COMPUTE_MODE: *hi = 3; break;           /* CU_COMPUTEMODE_* */
    case CUABI_DEVICE_ATTRIBUTE_NUMA_CONFIG: *hi = 1; break;            /* CU_DEVICE_NUMA_CONFIG_* */
    case CUABI_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: *hi = 3; break; /* two flags */
    case CUABI_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: *hi = 200; break;    /* 0, 100 or 200 */
    case CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *lo = 1; *hi = 99; break;
    case CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *hi = 9; break;
    case CUABI_DEVICE_ATTRIBUTE_NUMA_ID:
    case CUABI_DEVICE_ATTRIBUTE_HOST_NUMA_ID: *lo = -1; break;           /* -1: no NUMA node */
    case CUABI_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID:
    case CUABI_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID: *lo = -2147483647L - 1; break; /* two 16-bit ids, any bits */
    default: break;
    }
}

bool fake_attribute_value_valid(int attribute, long value)
{
    long lo, hi;

    attribute_domain(attribute, &lo, &hi);
    return value >= lo && value <= hi;
}

/* Device `i` becomes the profile's board: its description, and no attribute overridden. */
static void profile_apply(int i, const struct fake_profile *p)
{
    struct fake_device *d = &fake.devices[i];
    int sms = 0, major = 0, minor = 0;

    fake_profile_attribute(p, CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &sms);
    fake_profile_attribute(p, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major);
    fake_profile_attribute(p, CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor);
    d->profile = p;
    snprintf(d->desc.name, sizeof(d->desc.name), "%s", p->name);
    d->desc.total_memory = p->total_memory;
    d->desc.compute_major = major;
    d->desc.compute_minor = minor;
    d->desc.multiprocessors = sms;
    memset(overrides[i], 0, sizeof(overrides[i]));
}

/*
 * The first unsigned number after `key` in the first `size` bytes of file
 * `path` (a /proc or /sys file: read once, at most that much, never
 * followed past its end), times `unit`; 0 when the file or the key is not
 * there, or the value is "max".
 */
static uint64_t file_number(const char *path, const char *key, uint64_t unit)
{
    char buf[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    ssize_t n;
    const char *at;
    uint64_t v = 0;

    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    if (!(at = strstr(buf, key)))
        return 0;
    at += strlen(key);
    while (*at == ' ' || *at == '\t' || *at == ':')
        at++;
    for (; *at >= '0' && *at <= '9'; at++) {
        if (v > (UINT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (uint64_t)(*at - '0');
    }
    return v > UINT64_MAX / unit ? UINT64_MAX : v * unit;
}

/*
 * What the host can back now: its available memory (MemAvailable), less
 * under a cgroup's memory limit (cgroup v2's memory.max less
 * memory.current); 0 when neither can be read.
 */
static uint64_t host_memory_available(void)
{
    uint64_t avail = file_number("/proc/meminfo", "MemAvailable:", 1024);
    uint64_t max = file_number("/sys/fs/cgroup/memory.max", "", 1);
    uint64_t used = file_number("/sys/fs/cgroup/memory.current", "", 1);

    if (max > 0) {
        uint64_t room = max > used ? max - used : 0;

        if (avail == 0 || room < avail)
            avail = room;
    }
    return avail;
}

/*
 * A device's total memory by default: its board's, bounded so that the
 * devices together report no more than half of what the host can back, since
 * programs and test suites size their buffers by what the device says is
 * free, and keep a host copy of what they put there. Memory is lazy, so a
 * larger device costs nothing until touched; one that a program fills past
 * the host's memory would get it killed.
 */
static size_t memory_bounded(size_t board, int devices)
{
    uint64_t host = host_memory_available() / 2;
    uint64_t share = devices > 0 ? host / (uint64_t)devices : host;

    if (host == 0 || share >= board)
        return board;
    /* Whole MiB, as a board's size is a round figure; never 0. */
    share &= ~(uint64_t)((1u << 20) - 1);
    return share ? (size_t)share : (size_t)1 << 20;
}

/* GPUSHIM_FAKE_DEVICE=name,name,...: each device's profile; returns how many were named. */
static int parse_profiles(const char *list, const struct fake_profile **out)
{
    int n = 0;

    for (const char *s = list;; s++) {
        size_t len = strcspn(s, ",");

        if (n == FAKE_MAX_DEVICES) {
            fake_config_error("GPUSHIM_FAKE_DEVICE", NULL, NULL, "names more than 8 devices");
            return 0;
        }
        if (!(out[n++] = fake_profile_find(s, len))) {
            fake_config_error("GPUSHIM_FAKE_DEVICE", NULL, NULL, "wants h200, a100, l4 or rtx4090, comma-separated");
            return 0;
        }
        s += len;
        if (!*s)
            return n;
    }
}

/* GPUSHIM_FAKE_ATTRIBUTES=[d:]NAME=value,...: NAME as cuda.h spells it, with or without CU_DEVICE_ATTRIBUTE_. */
static void parse_attributes(const char *list)
{
    for (const char *s = list; *s;) {
        size_t len = strcspn(s, ","), name_len;
        char item[128], *eq, *name = item;
        int attribute;
        long device = -1, value, lo, hi;
        char part[160];

        if (len == 0 || len >= sizeof(item)) {
            fake_config_error("GPUSHIM_FAKE_ATTRIBUTES", NULL, NULL,
                              "wants [device:]NAME=value, comma-separated, each item under 128 bytes");
            return;
        }
        memcpy(item, s, len);
        item[len] = '\0';
        s += len + (s[len] == ',');
        if (!(eq = strchr(item, '='))) {
            fake_config_error("GPUSHIM_FAKE_ATTRIBUTES", "item", item, "is not [device:]NAME=value");
            return;
        }
        *eq = '\0';
        if (strchr(item, ':')) {
            name = strchr(item, ':') + 1;
            name[-1] = '\0';
            if (fake.device_count == 0) {
                fake_config_error("GPUSHIM_FAKE_ATTRIBUTES", "device", item, "is not a device: there are none");
                return;
            }
            if (!fake_env_number("GPUSHIM_FAKE_ATTRIBUTES device", item, 0, fake.device_count - 1, GPU__ENV_UNIT_NONE,
                                 &device))
                return;
        }
        name_len = strlen(name);
        attribute = fake_attribute_by_name(name, name_len);
        if (attribute < 0) {
            fake_config_error("GPUSHIM_FAKE_ATTRIBUTES", "name", name,
                              "is no device attribute (cuda.h's CUdevice_attribute, with or without CU_DEVICE_ATTRIBUTE_)");
            return;
        }
        attribute_domain(attribute, &lo, &hi);
        snprintf(part, sizeof(part), "GPUSHIM_FAKE_ATTRIBUTES %s value", name);
        if (!fake_env_number(part, eq + 1, lo, hi, GPU__ENV_UNIT_NONE, &value))
            return;
        for (int i = 0; i < fake.device_count; i++)
            if (device < 0 || device == i) {
                overrides[i][attribute].set = overrides[i][attribute].known = true;
                overrides[i][attribute].value = (int)value;
            }
    }
}

size_t fake_format_bytes(cuabi_array_format format)
{
    switch (format) {
    case CUABI_AD_FORMAT_UNSIGNED_INT8:
    case CUABI_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CUABI_AD_FORMAT_UNSIGNED_INT16:
    case CUABI_AD_FORMAT_SIGNED_INT16:
    case CUABI_AD_FORMAT_HALF:
        return 2;
    case CUABI_AD_FORMAT_UNSIGNED_INT32:
    case CUABI_AD_FORMAT_SIGNED_INT32:
    case CUABI_AD_FORMAT_FLOAT:
        return 4;
    default:
        return 0;
    }
}

void fake_devices_configure(void)
{
    const struct fake_profile *named[FAKE_MAX_DEVICES];
    const char *v = gpu__env_raw("GPUSHIM_FAKE_DEVICES");
    int count = v ? (int)fake_parse_number("GPUSHIM_FAKE_DEVICES", v, 0, FAKE_MAX_DEVICES) : -1;
    bool peer = fake_env_switch("GPUSHIM_FAKE_PEER", true);
    int n = (v = gpu__env_raw("GPUSHIM_FAKE_DEVICE")) ? parse_profiles(v, named) : 0;

    if (count < 0)
        count = n ? n : 1;
    if (n > count) {
        fake_config_error("GPUSHIM_FAKE_DEVICE", NULL, NULL, "names more devices than GPUSHIM_FAKE_DEVICES");
        n = count;
    }
    fake.device_count = count;
    for (int i = 0; i < count; i++) {
        struct fake_device *d = &fake.devices[i];

        /* Fewer names than devices: the last one named goes on. */
        profile_apply(i, n ? named[i < n ? i : n - 1] : fake_profile_default());
        snprintf(d->desc.pci_bus_id, sizeof(d->desc.pci_bus_id), "0000:%02x:00.0", (unsigned)(0x19 + 0x10 * i) & 0xffu);
        d->next_addr = FAKE_ADDR_BASE + FAKE_ADDR_STRIDE * (uint64_t)i;
        for (int j = 0; j < count; j++)
            d->peer_allowed[j] = peer && j != i;
        d->ctx.device = i;
        d->ctx.legacy.ctx = &d->ctx;
        d->ctx.legacy.legacy = true;
    }
    for (int i = 0; i < count; i++) {
        gpu_fake_device_desc *d = &fake.devices[i].desc;
        long bytes;

        if ((v = gpu__env_raw("GPUSHIM_FAKE_DEVICE_NAME"))) {
            if (strlen(v) == 0 || strlen(v) >= sizeof(d->name))
                fake_config_error("GPUSHIM_FAKE_DEVICE_NAME", NULL, NULL, "wants 1 to 63 bytes");
            else
                strcpy(d->name, v);
        }
        v = gpu__env_raw("GPUSHIM_FAKE_DEVICE_MEMORY");
        if (!v)
            d->total_memory = memory_bounded(d->total_memory, count);
        else if (strcmp(v, "board") != 0 && fake_env_number("GPUSHIM_FAKE_DEVICE_MEMORY", v, 1, (long)(SIZE_MAX >> 1),
                                                            GPU__ENV_UNIT_BYTES, &bytes))
            d->total_memory = (size_t)bytes; /* refused, it keeps the board's: cuInit fails anyway */
        if ((v = gpu__env_raw("GPUSHIM_FAKE_COMPUTE_CAPABILITY")))
            parse_capability(v, &d->compute_major, &d->compute_minor);
    }
    if ((v = gpu__env_raw("GPUSHIM_FAKE_ATTRIBUTES")))
        parse_attributes(v);
}

bool fake_device_valid(cuabi_device dev)
{
    return dev >= 0 && dev < fake.device_count;
}

/* ---- Devices ---- */

cuabi_result cuDeviceGetCount(int *count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetCount, true);

    if (rc == CUABI_SUCCESS) {
        if (!count)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            *count = fake.device_count;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGet(cuabi_device *device, int ordinal)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGet, true);

    if (rc == CUABI_SUCCESS) {
        if (!device)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(ordinal))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *device = ordinal;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetName(char *name, int len, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetName, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!name || len <= 0)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            snprintf(name, (size_t)len, "%s", fake.devices[dev].desc.name);
    }
    return fake_end(rc);
}

cuabi_result cuDeviceTotalMem_v2(size_t *bytes, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceTotalMem_v2, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!bytes)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *bytes = fake.devices[dev].desc.total_memory;
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetAttribute(int *value, cuabi_device_attribute attrib, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetAttribute, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        const gpu_fake_device_desc *d = fake_device_valid(dev) ? &fake.devices[dev].desc : NULL;

        if (!value)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!d)
            rc = CUABI_ERROR_INVALID_DEVICE;
        else if (!fake_device_attribute(dev, attrib, value))
            rc = CUABI_ERROR_INVALID_VALUE; /* not an attribute of CUDA 13, or one a test made it forget */
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetPCIBusId(char *bus_id, int len, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetPCIBusId, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);

    if (rc == CUABI_SUCCESS) {
        if (!bus_id || len < 13)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(dev))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            snprintf(bus_id, (size_t)len, "%s", fake.devices[dev].desc.pci_bus_id);
    }
    return fake_end(rc);
}

cuabi_result cuDeviceCanAccessPeer(int *can_access, cuabi_device dev, cuabi_device peer)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceCanAccessPeer, true);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev) ? fake_device_lost(dev) : fake_device_lost(peer);

    if (rc == CUABI_SUCCESS) {
        if (!can_access)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(dev) || !fake_device_valid(peer))
            rc = CUABI_ERROR_INVALID_DEVICE;
        else
            *can_access = fake.devices[dev].peer_allowed[peer];
    }
    return fake_end(rc);
}

/* Up to 8 hex digits, either case, at *p, moving past them; false when there are none or more. */
static bool hex_field(const char **p, unsigned *value)
{
    int digits = 0;

    *value = 0;
    for (;; (*p)++, digits++) {
        char c = **p;
        unsigned d;

        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            break;
        if (digits == 8)
            return false;
        *value = *value << 4 | d;
    }
    return digits > 0;
}

/*
 * A PCI bus ID in one of the forms the driver takes: domain:bus:device.function,
 * domain:bus:device (function 0), bus:device.function (domain 0). Hexadecimal,
 * either case. Its four numbers into id[]; false when it is none of those.
 */
static bool pci_parse(const char *text, unsigned id[4])
{
    unsigned f[3], n = 0;
    bool function;

    do {
        if (!hex_field(&text, &f[n++]))
            return false;
    } while (n < 3 && *text == ':' && text++);
    function = *text == '.';
    if (function && (text++, !hex_field(&text, &id[3])))
        return false;
    if (*text || n < 2 || (n == 2 && !function))
        return false;
    id[0] = n == 3 ? f[0] : 0;
    id[1] = f[n - 2];
    id[2] = f[n - 1];
    if (!function)
        id[3] = 0;
    return true;
}

/* The inverse of cuDeviceGetPCIBusId: the device whose bus ID names the same domain, bus, device and function. */
cuabi_result cuDeviceGetByPCIBusId(cuabi_device *dev, const char *pci_bus_id)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetByPCIBusId, true);
    unsigned want[4], have[4];

    if (rc == CUABI_SUCCESS && (!dev || !pci_bus_id || !pci_parse(pci_bus_id, want)))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS) {
        rc = CUABI_ERROR_INVALID_DEVICE;
        for (int i = 0; rc != CUABI_SUCCESS && i < fake.device_count; i++)
            if (pci_parse(fake.devices[i].desc.pci_bus_id, have) && memcmp(want, have, sizeof(want)) == 0) {
                *dev = i;
                rc = CUABI_SUCCESS;
            }
    }
    return fake_end(rc);
}

/*
 * The link from src to dst as cuDeviceCanAccessPeer sees it: access, native
 * atomics and arrays over it where src may reach dst's memory (the fake's
 * memory is the host's, where every atomic works), none where it may not.
 * The fake's links are all alike: performance rank 0.
 */
cuabi_result cuDeviceGetP2PAttribute(int *value, cuabi_p2p_attribute attrib, cuabi_device src, cuabi_device dst)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetP2PAttribute, true);

    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(src) ? fake_device_lost(src) : fake_device_lost(dst);
    if (rc == CUABI_SUCCESS) {
        if (!value)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!fake_device_valid(src) || !fake_device_valid(dst) || src == dst)
            rc = CUABI_ERROR_INVALID_DEVICE;
        else if (attrib < CUABI_P2P_ATTRIBUTE_PERFORMANCE_RANK ||
                 attrib > CUABI_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED)
            rc = CUABI_ERROR_INVALID_VALUE;
    }
    if (rc == CUABI_SUCCESS) {
        bool access = fake.devices[src].peer_allowed[dst];

        switch (attrib) {
        case CUABI_P2P_ATTRIBUTE_PERFORMANCE_RANK:
        case CUABI_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
            *value = 0;
            break;
        default:
            *value = access;
            break;
        }
    }
    return fake_end(rc);
}

/*
 * The widest 1D texture over linear memory, in elements, of a format and 1, 2
 * or 4 channels: the profile's CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH,
 * whatever the element's size.
 */
cuabi_result cuDeviceGetTexture1DLinearMaxWidth(size_t *max_width, cuabi_array_format format, unsigned num_channels,
                                                cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceGetTexture1DLinearMaxWidth, true);
    int width = 0;

    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(dev);
    if (rc == CUABI_SUCCESS && (!max_width || !fake_format_bytes(format) ||
                                (num_channels != 1 && num_channels != 2 && num_channels != 4)))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    else if (rc == CUABI_SUCCESS &&
             (!fake_device_attribute(dev, CUABI_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, &width) || width <= 0))
        rc = CUABI_ERROR_INVALID_VALUE; /* a test made the profile forget it */
    if (rc == CUABI_SUCCESS)
        *max_width = (size_t)width;
    return fake_end(rc);
}

/* cuDeviceGetUuid and its _v2 (the same answer: the fake has no MIG instances). */
static cuabi_result device_uuid(enum fake_entry entry, cuabi_uuid *uuid, cuabi_device dev)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS) {
        if (!uuid)
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (dev < 0 || dev >= fake.device_count)
            rc = CUABI_ERROR_INVALID_DEVICE;
        /* Device d's bytes are d*16+1, ..., d*16+16, each XOR 0x40 times its profile's column. */
        for (int i = 0; rc == CUABI_SUCCESS && i < 16; i++)
            uuid->bytes[i] = (char)((dev * 16 + i + 1) ^ (0x40 * fake.devices[dev].profile->column));
    }
    return fake_end(rc);
}

cuabi_result cuDeviceGetUuid_v2(cuabi_uuid *uuid, cuabi_device dev)
{
    return device_uuid(FAKE_E_cuDeviceGetUuid_v2, uuid, dev);
}

cuabi_result cuDeviceGetUuid(cuabi_uuid *uuid, cuabi_device dev)
{
    return device_uuid(FAKE_E_cuDeviceGetUuid, uuid, dev);
}

cuabi_result cuDeviceComputeCapability(int *major, int *minor, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuDeviceComputeCapability, true);

    if (rc == CUABI_SUCCESS && (!major || !minor))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    if (rc == CUABI_SUCCESS) {
        *major = fake.devices[dev].desc.compute_major;
        *minor = fake.devices[dev].desc.compute_minor;
    }
    return fake_end(rc);
}

/* ---- Attributes ---- */

bool fake_device_attribute(int device, unsigned attribute, int *value)
{
    const struct fake_device *d = &fake.devices[device];

    if (attribute < ATTRIBUTE_MAX && overrides[device][attribute].set) {
        *value = overrides[device][attribute].value;
        return overrides[device][attribute].known;
    }
    switch (attribute) {
    case CUABI_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *value = d->desc.multiprocessors;
        return true;
    case CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *value = d->desc.compute_major;
        return true;
    case CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *value = d->desc.compute_minor;
        return true;
    case CUABI_DEVICE_ATTRIBUTE_PCI_BUS_ID:
        *value = (int)strtol(d->desc.pci_bus_id + (strchr(d->desc.pci_bus_id, ':') ? 5 : 0), NULL, 16);
        return true;
    case CUABI_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID:
        *value = device;
        return true;
    default:
        return fake_profile_attribute(d->profile, attribute, value);
    }
}

int fake_attribute(int device, unsigned attribute)
{
    int v = 0;

    fake_device_attribute(device, attribute, &v);
    return v;
}

static int attribute_override(int ordinal, int attribute, bool known, int value)
{
    int rc = -1;

    fake_lock();
    if (ordinal >= 0 && ordinal < fake.device_count && attribute >= 0 && attribute < ATTRIBUTE_MAX &&
        (!known || fake_attribute_value_valid(attribute, value))) {
        overrides[ordinal][attribute].set = true;
        overrides[ordinal][attribute].known = known;
        overrides[ordinal][attribute].value = value;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API int gpu_fake_device_attribute_set(int ordinal, int attribute, int value)
{
    return attribute_override(ordinal, attribute, true, value);
}

FAKE_API int gpu_fake_device_attribute_forget(int ordinal, int attribute)
{
    return attribute_override(ordinal, attribute, false, 0);
}

FAKE_API int gpu_fake_device_profile(int ordinal, const char *profile)
{
    const struct fake_profile *p = profile ? fake_profile_find(profile, strlen(profile)) : NULL;
    int rc = -1;

    fake_lock();
    if (p && fake_device_valid(ordinal)) {
        profile_apply(ordinal, p);
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API const char *gpu_fake_device_profile_name(int ordinal)
{
    const char *key = NULL;

    fake_lock();
    if (fake_device_valid(ordinal))
        key = fake.devices[ordinal].profile->key;
    fake_unlock();
    return key;
}

/* ---- Control API ---- */

FAKE_API int gpu_fake_device_count(void)
{
    int n;

    fake_lock();
    n = fake.device_count;
    fake_unlock();
    return n;
}

FAKE_API int gpu_fake_device_get(int ordinal, gpu_fake_device_desc *out)
{
    int rc = -1;

    fake_lock();
    if (fake_device_valid(ordinal)) {
        *out = fake.devices[ordinal].desc;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API int gpu_fake_device_set(int ordinal, const gpu_fake_device_desc *desc)
{
    int rc = -1;

    fake_lock();
    if (fake_device_valid(ordinal) && desc && desc->multiprocessors >= 1 &&
        fake_attribute_value_valid(CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, desc->compute_major) &&
        fake_attribute_value_valid(CUABI_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, desc->compute_minor) &&
        memchr(desc->name, '\0', sizeof(desc->name)) && memchr(desc->pci_bus_id, '\0', sizeof(desc->pci_bus_id))) {
        fake.devices[ordinal].desc = *desc;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API void gpu_fake_peer_set(int device, int peer, bool allowed)
{
    fake_lock();
    if (fake_device_valid(device) && fake_device_valid(peer) && device != peer)
        fake.devices[device].peer_allowed[peer] = allowed;
    fake_unlock();
}

FAKE_API bool gpu_fake_peer_enabled(int device, int peer)
{
    bool on = false;

    fake_lock();
    if (fake_device_valid(device) && fake_device_valid(peer))
        on = fake.devices[device].ctx.peer_enabled[peer];
    fake_unlock();
    return on;
}

FAKE_API size_t gpu_fake_device_used(int ordinal)
{
    size_t n = 0;

    fake_lock();
    if (fake_device_valid(ordinal))
        n = fake.devices[ordinal].used;
    fake_unlock();
    return n;
}
