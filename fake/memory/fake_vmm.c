/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's virtual memory management: physical allocations
 * (cuMemCreate), ranges of device addresses reserved (cuMemAddressReserve),
 * the first mapped into the second (cuMemMap), made accessible per device
 * (cuMemSetAccess), and physical allocations shared with another process
 * through a file descriptor (cuMemExportToShareableHandle).
 *
 * A physical allocation is a memfd (fake_shm.c); a reservation is a range
 * of host addresses of its size, inaccessible, at whose place a mapping maps
 * the memfd shared: two addresses mapping one allocation, here or in another
 * process, see the same bytes, and mappings side by side in a reservation are
 * side by side in host memory. What fake_alloc_find() finds of a reservation
 * are its accessible stretches: a mapped address is device memory once
 * cuMemSetAccess made it so; one not mapped, or not yet made accessible, is
 * not, and a copy, a fill or a kernel touching it fails as on unallocated memory.
 *
 * Where the fake is laxer than a GPU: read-only access (PROT_READ) is
 * recorded and reported but writes through it are not refused; and a stretch
 * belongs to one device (its memory's, when that device may reach it), so a
 * context of another device granted access reaches it only with peer access
 * enabled, as for cuMemAlloc memory.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_core.h"
#include "fake_device.h"
#include "fake_faults.h"
#include "fake_memory.h"
#include "fake_shm.h"

/* Every board the fake plays maps 2 MiB pages: its minimum and recommended granularity. */
#define GRANULARITY ((size_t)2 << 20)

/* Reserved addresses: above every device's region, handed out upwards and never reused. */
#define VMM_BASE (FAKE_ADDR_BASE + FAKE_MAX_DEVICES * FAKE_ADDR_STRIDE)
#define VMM_END (VMM_BASE + 8 * FAKE_ADDR_STRIDE)

/* The memfd name of a physical allocation: the prefix, then its device. */
static const char phys_prefix[] = "gpushim-fake-vmm:";

struct phys {
    struct phys *next;
    cuabi_mem_handle handle;
    int device;
    size_t size;
    int fd;
    unsigned types;  /* the shareable handle types it was created for */
    unsigned refs;   /* its handle: made, imported or retained, not yet released */
    unsigned maps;   /* mappings of it */
    bool imported;   /* from another process: not this process's device memory */
};

struct mapping {
    struct mapping *next; /* its reservation's, by address */
    uint64_t addr;
    size_t size;
    struct phys *phys;
    unsigned char access[FAKE_MAX_DEVICES]; /* CUABI_MEM_ACCESS_FLAGS_PROT_* of each device */
};

struct reservation {
    struct reservation *next;
    uint64_t addr;
    size_t size;
    unsigned char *host;     /* its host addresses */
    struct mapping *maps;    /* by address */
    struct fake_alloc *runs; /* its accessible stretches, in the index */
};

static struct phys *physs;
static struct reservation *reservations;
static uint64_t next_reserve = VMM_BASE;
static cuabi_mem_handle next_handle = 0x1000;

/* ---- Physical allocations ---- */

static struct phys *phys_find(cuabi_mem_handle handle)
{
    for (struct phys *p = physs; p; p = p->next)
        if (p->handle == handle)
            return p;
    return NULL;
}

static cuabi_result phys_new(int device, size_t size, int fd, bool imported, struct phys **out)
{
    struct phys *p = calloc(1, sizeof(*p));

    if (!p)
        return CUABI_ERROR_OUT_OF_MEMORY;
    p->handle = next_handle++;
    p->device = device;
    p->size = size;
    p->fd = fd;
    p->refs = 1;
    p->imported = imported;
    p->next = physs;
    physs = p;
    if (!imported)
        fake.devices[device].used += size;
    fake.live[GPU_FAKE_LIVE_VMM_ALLOCS]++;
    *out = p;
    return CUABI_SUCCESS;
}

/* Frees the allocation once neither a handle nor a mapping holds it. */
static void phys_put(struct phys *p)
{
    if (p->refs || p->maps)
        return;
    for (struct phys **at = &physs; *at; at = &(*at)->next)
        if (*at == p) {
            *at = p->next;
            break;
        }
    if (!p->imported)
        fake.devices[p->device].used -= p->size;
    fake.live[GPU_FAKE_LIVE_VMM_ALLOCS]--;
    close(p->fd);
    free(p);
}

/* The device a location names: CUDA_ERROR_INVALID_DEVICE for a device that is not, NOT_SUPPORTED for the host. */
static cuabi_result location_device(const cuabi_mem_location *l, int *device)
{
    if (l->type == CUABI_MEM_LOCATION_TYPE_DEVICE) {
        if (!fake_device_valid(l->id))
            return CUABI_ERROR_INVALID_DEVICE;
        *device = l->id;
        return CUABI_SUCCESS;
    }
    /* Host allocations and host NUMA nodes: the fake plays device memory only. */
    return l->type >= CUABI_MEM_LOCATION_TYPE_HOST && l->type <= CUABI_MEM_LOCATION_TYPE_HOST + 2
               ? CUABI_ERROR_NOT_SUPPORTED
               : CUABI_ERROR_INVALID_VALUE;
}

/* The properties cuMemCreate and cuMemGetAllocationGranularity take; the device they name. */
static cuabi_result prop_check(const cuabi_mem_allocation_prop *prop, int *device)
{
    unsigned types = prop->handle_types;

    if (prop->type != CUABI_MEM_ALLOCATION_TYPE_PINNED || prop->win32_metadata)
        return CUABI_ERROR_INVALID_VALUE;
    /* On Linux a descriptor is the one shareable handle; a fabric handle wants IMEX channels the fake has not. */
    if (types & CUABI_MEM_HANDLE_TYPE_FABRIC)
        return CUABI_ERROR_NOT_SUPPORTED;
    if (types & ~(unsigned)CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUABI_ERROR_INVALID_VALUE;
    return location_device(&prop->location, device);
}

cuabi_result cuMemGetAllocationGranularity(size_t *granularity, const cuabi_mem_allocation_prop *prop,
                                           unsigned int option)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemGetAllocationGranularity, true);
    int device = 0;

    if (rc == CUABI_SUCCESS && (!granularity || !prop || option > CUABI_MEM_ALLOC_GRANULARITY_RECOMMENDED))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = prop_check(prop, &device);
    if (rc == CUABI_SUCCESS)
        *granularity = GRANULARITY;
    return fake_end(rc);
}

/* A new physical allocation of `size` on `device`: OUT_OF_MEMORY past the device's memory or limit. */
static cuabi_result phys_create(int device, size_t size, struct phys **out)
{
    struct fake_device *d = &fake.devices[device];
    char name[64];
    int fd;

    if (size > d->desc.total_memory - d->used || fake_over_limit(device, d->used, size))
        return CUABI_ERROR_OUT_OF_MEMORY;
    snprintf(name, sizeof(name), "%s%d", phys_prefix, device);
    fd = fake_shm_create(name, size);
    if (fd < 0)
        return CUABI_ERROR_OUT_OF_MEMORY;
    if (phys_new(device, size, fd, false, out) != CUABI_SUCCESS) {
        close(fd);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    return CUABI_SUCCESS;
}

cuabi_result cuMemCreate(cuabi_mem_handle *handle, size_t size, const cuabi_mem_allocation_prop *prop,
                         unsigned long long flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemCreate, true);
    struct phys *p = NULL;
    int device = 0;

    if (rc == CUABI_SUCCESS && (!handle || !prop || flags || size == 0 || size % GRANULARITY))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = prop_check(prop, &device);
    if (rc == CUABI_SUCCESS)
        rc = fake_device_lost(device);
    if (rc == CUABI_SUCCESS)
        rc = phys_create(device, size, &p);
    if (rc == CUABI_SUCCESS) {
        p->types = prop->handle_types;
        *handle = p->handle;
    }
    return fake_end(rc);
}

cuabi_result cuMemRelease(cuabi_mem_handle handle)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemRelease, true);
    struct phys *p = rc == CUABI_SUCCESS ? phys_find(handle) : NULL;

    /* The driver leaves a handle it does not know undefined; the fake refuses it. */
    if (rc == CUABI_SUCCESS && (!p || p->refs == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        p->refs--;
        phys_put(p);
    }
    return fake_end(rc);
}

cuabi_result cuMemGetAllocationPropertiesFromHandle(cuabi_mem_allocation_prop *prop, cuabi_mem_handle handle)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemGetAllocationPropertiesFromHandle, true);
    struct phys *p = rc == CUABI_SUCCESS ? phys_find(handle) : NULL;

    if (rc == CUABI_SUCCESS && (!prop || !p || p->refs == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        memset(prop, 0, sizeof(*prop));
        prop->type = CUABI_MEM_ALLOCATION_TYPE_PINNED;
        prop->handle_types = p->types;
        prop->location.type = CUABI_MEM_LOCATION_TYPE_DEVICE;
        prop->location.id = p->device;
    }
    return fake_end(rc);
}

/* ---- Reservations ---- */

static struct reservation *reservation_holding(uint64_t addr, size_t size)
{
    for (struct reservation *r = reservations; r; r = r->next)
        if (addr >= r->addr && addr - r->addr < r->size && size <= r->size - (addr - r->addr))
            return r;
    return NULL;
}

/* Where a new reservation goes: at the hint if it is free and aligned, else the next free place. */
static uint64_t reserve_place(size_t size, size_t align, uint64_t hint)
{
    uint64_t at = hint >= next_reserve && hint % align == 0 ? hint : (next_reserve + align - 1) / align * align;

    return at < VMM_END && size <= VMM_END - at ? at : 0;
}

cuabi_result cuMemAddressReserve(cuabi_deviceptr *ptr, size_t size, size_t alignment, cuabi_deviceptr addr,
                                 unsigned long long flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAddressReserve, true);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), align = alignment > GRANULARITY ? alignment : GRANULARITY;
    struct reservation *r = NULL;
    uint64_t at = 0;

    if (rc == CUABI_SUCCESS && (!ptr || flags || size == 0 || size % page || addr % page ||
                                (alignment & (alignment - 1)) || alignment > VMM_END - VMM_BASE))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && (!(at = reserve_place(size, align, addr)) || !(r = calloc(1, sizeof(*r)))))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS) {
        void *host = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

        if (host == MAP_FAILED) {
            free(r);
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        } else {
            r->host = host;
        }
    }
    if (rc == CUABI_SUCCESS) {
        r->addr = at;
        r->size = size;
        r->next = reservations;
        reservations = r;
        /* A guard of one granule after each: reservations are never side by side. */
        next_reserve = at + size + GRANULARITY;
        fake.live[GPU_FAKE_LIVE_VMM_RESERVATIONS]++;
        *ptr = at;
    }
    return fake_end(rc);
}

cuabi_result cuMemAddressFree(cuabi_deviceptr ptr, size_t size)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemAddressFree, true);
    struct reservation **at = &reservations;

    while (rc == CUABI_SUCCESS && *at && (*at)->addr != ptr)
        at = &(*at)->next;
    /* The whole reservation, and nothing mapped in it any more. */
    if (rc == CUABI_SUCCESS && (!*at || (*at)->size != size || (*at)->maps))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        struct reservation *r = *at;

        *at = r->next;
        munmap(r->host, r->size);
        free(r);
        fake.live[GPU_FAKE_LIVE_VMM_RESERVATIONS]--;
    }
    return fake_end(rc);
}

/* ---- What fake_alloc_find() finds: accessible stretches ---- */

/* The device a mapping's stretch belongs to: its memory's if that device may reach it, else the first that may; -1: none. */
static int mapping_device(const struct mapping *m)
{
    if (m->access[m->phys->device])
        return m->phys->device;
    for (int i = 0; i < fake.device_count; i++)
        if (m->access[i])
            return i;
    return -1;
}

/* Whether `b` continues `a`'s stretch: right after it, reachable by the same devices alike. */
static bool mapping_continues(const struct mapping *a, const struct mapping *b)
{
    return a->addr + a->size == b->addr && mapping_device(a) == mapping_device(b) &&
           memcmp(a->access, b->access, sizeof(a->access)) == 0;
}

static void runs_drop(struct reservation *r)
{
    while (r->runs) {
        struct fake_alloc *a = r->runs;

        r->runs = a->next;
        fake_alloc_unindex(a);
        free(a);
    }
}

/* The stretch from `first` on, as far as it goes; its last mapping back in *last. */
static cuabi_result run_add(struct reservation *r, struct mapping *first, struct mapping **last)
{
    struct fake_alloc *a = calloc(1, sizeof(*a));
    struct mapping *m = first;

    while (m->next && mapping_continues(m, m->next))
        m = m->next;
    *last = m;
    if (!a)
        return CUABI_ERROR_OUT_OF_MEMORY;
    a->addr = first->addr;
    a->size = m->addr + m->size - first->addr;
    a->device = mapping_device(first);
    a->location = a->device;
    a->data = r->host + (first->addr - r->addr);
    a->kind = FAKE_ALLOC_VMM;
    if (!fake_alloc_index(a)) {
        free(a);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    a->next = r->runs;
    r->runs = a;
    return CUABI_SUCCESS;
}

/* Makes what the index holds of the reservation its accessible stretches as they are now. */
static cuabi_result runs_build(struct reservation *r)
{
    cuabi_result rc = CUABI_SUCCESS;

    runs_drop(r);
    for (struct mapping *m = r->maps; m && rc == CUABI_SUCCESS; m = m->next)
        if (mapping_device(m) >= 0)
            rc = run_add(r, m, &m);
    if (rc != CUABI_SUCCESS)
        runs_drop(r);
    return rc;
}

/* ---- Mappings ---- */

/* The mapping holding `addr`, or NULL; its reservation in *out. */
static struct mapping *mapping_at(uint64_t addr, struct reservation **out)
{
    struct reservation *r = reservation_holding(addr, 1);

    for (struct mapping *m = r ? r->maps : NULL; m; m = m->next)
        if (addr >= m->addr && addr - m->addr < m->size) {
            *out = r;
            return m;
        }
    return NULL;
}

/*
 * Whether [addr, addr + size) starts at a mapping, lies in its reservation
 * and cuts none: whole mappings side by side (what cuMemSetAccess takes), or
 * with unmapped stretches between and after them where `gaps` (what
 * cuMemUnmap takes: an H200 unmaps a mapping and the unmapped granule after
 * it in one call). The first of them in *first.
 */
static bool mapped_whole(uint64_t addr, size_t size, struct reservation **r, struct mapping **first, bool gaps)
{
    struct mapping *m;
    uint64_t end;

    if (size == 0 || !(m = mapping_at(addr, r)) || m->addr != addr || size > (*r)->addr + (*r)->size - addr)
        return false;
    *first = m;
    end = addr + size;
    for (uint64_t at = addr; at < end; m = m->next) {
        if (gaps && (!m || m->addr >= end))
            return true;
        if (!m || (m->addr != at && !gaps) || m->size > end - m->addr)
            return false;
        at = m->addr + m->size;
    }
    return true;
}

static bool mapping_overlaps(const struct reservation *r, uint64_t addr, size_t size)
{
    for (const struct mapping *m = r->maps; m; m = m->next)
        if (m->addr < addr + size && addr < m->addr + m->size)
            return true;
    return false;
}

static void mapping_link(struct reservation *r, struct mapping *n)
{
    struct mapping **at = &r->maps;

    while (*at && (*at)->addr < n->addr)
        at = &(*at)->next;
    n->next = *at;
    *at = n;
}

/*
 * What cuMemMap checks before it maps: CUDA_SUCCESS with the reservation in
 * *out. An offset into the allocation, or a part of it, is
 * CUDA_ERROR_NOT_SUPPORTED, as cuda.h says ("currently must be zero") and an
 * H200 answers, even past its end: a mapping is a whole allocation.
 */
static cuabi_result map_check(uint64_t ptr, size_t size, size_t offset, const struct phys *p,
                              struct reservation **out)
{
    if (offset)
        return CUABI_ERROR_NOT_SUPPORTED;
    if (!p || p->refs == 0 || size == 0 || ptr % GRANULARITY || size % GRANULARITY || size > p->size)
        return CUABI_ERROR_INVALID_VALUE;
    if (size < p->size)
        return CUABI_ERROR_NOT_SUPPORTED;
    *out = reservation_holding(ptr, size);
    if (!*out || mapping_overlaps(*out, ptr, size))
        return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

cuabi_result cuMemMap(cuabi_deviceptr ptr, size_t size, size_t offset, cuabi_mem_handle handle,
                      unsigned long long flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemMap, true);
    struct phys *p = rc == CUABI_SUCCESS ? phys_find(handle) : NULL;
    struct reservation *r = NULL;
    struct mapping *m = NULL;

    if (rc == CUABI_SUCCESS)
        rc = flags ? CUABI_ERROR_INVALID_VALUE : map_check(ptr, size, offset, p, &r);
    if (rc == CUABI_SUCCESS && !(m = calloc(1, sizeof(*m))))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS && !fake_shm_map(p->fd, size, offset, r->host + (ptr - r->addr))) {
        /* A failed fixed mapping may have taken the reserved addresses' place: keep them reserved. */
        mmap(r->host + (ptr - r->addr), size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
             0);
        free(m);
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    }
    if (rc == CUABI_SUCCESS) {
        m->addr = ptr;
        m->size = size;
        m->phys = p;
        p->maps++;
        /* A new mapping is inaccessible until cuMemSetAccess: the stretches need no change. */
        mapping_link(r, m);
    }
    return fake_end(rc);
}

cuabi_result cuMemUnmap(cuabi_deviceptr ptr, size_t size)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemUnmap, true);
    struct reservation *r = NULL;
    struct mapping *m = NULL;

    if (rc == CUABI_SUCCESS && !mapped_whole(ptr, size, &r, &m, true))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        struct mapping **at = &r->maps;

        while (*at != m)
            at = &(*at)->next;
        while (*at && (*at)->addr < ptr + size) {
            struct mapping *gone = *at;

            *at = gone->next;
            gone->phys->maps--;
            phys_put(gone->phys);
            free(gone);
        }
        mmap(r->host + (ptr - r->addr), size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
             0);
        /* Out of memory, a stretch that could not be made again stays inaccessible, as the whole range would be after an error. */
        runs_build(r);
    }
    return fake_end(rc);
}

/* Checks each access descriptor; the devices' new flags in flags[] (0xff: unchanged). */
static cuabi_result access_parse(const cuabi_mem_access_desc *desc, size_t count, unsigned char flags[])
{
    memset(flags, 0xff, FAKE_MAX_DEVICES);
    for (size_t i = 0; i < count; i++) {
        int device = 0;
        cuabi_result rc = location_device(&desc[i].location, &device);
        unsigned f = desc[i].flags;

        if (rc != CUABI_SUCCESS)
            return rc;
        if (f != CUABI_MEM_ACCESS_FLAGS_PROT_NONE && f != CUABI_MEM_ACCESS_FLAGS_PROT_READ &&
            f != CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUABI_ERROR_INVALID_VALUE;
        flags[device] = (unsigned char)f;
    }
    return CUABI_SUCCESS;
}

cuabi_result cuMemSetAccess(cuabi_deviceptr ptr, size_t size, const cuabi_mem_access_desc *desc, size_t count)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemSetAccess, true);
    unsigned char flags[FAKE_MAX_DEVICES];
    struct reservation *r = NULL;
    struct mapping *first = NULL;

    if (rc == CUABI_SUCCESS && (!desc || count == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = access_parse(desc, count, flags);
    if (rc == CUABI_SUCCESS && !mapped_whole(ptr, size, &r, &first, false))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        for (struct mapping *m = first; m && m->addr < ptr + size; m = m->next)
            for (int d = 0; d < FAKE_MAX_DEVICES; d++)
                if (flags[d] != 0xff)
                    m->access[d] = flags[d];
        rc = runs_build(r);
    }
    return fake_end(rc);
}

cuabi_result cuMemGetAccess(unsigned long long *flags, const cuabi_mem_location *location, cuabi_deviceptr ptr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemGetAccess, true);
    struct reservation *r = NULL;
    struct mapping *m = NULL;
    int device = 0;

    if (rc == CUABI_SUCCESS && (!flags || !location))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = location_device(location, &device);
    if (rc == CUABI_SUCCESS && !(m = mapping_at(ptr, &r)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        *flags = m->access[device];
    return fake_end(rc);
}

cuabi_result cuMemRetainAllocationHandle(cuabi_mem_handle *handle, void *addr)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemRetainAllocationHandle, true);
    struct reservation *r = NULL;
    struct mapping *m = NULL;

    if (rc == CUABI_SUCCESS && (!handle || !(m = mapping_at((uintptr_t)addr, &r))))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        m->phys->refs++;
        *handle = m->phys->handle;
    }
    return fake_end(rc);
}

/* ---- Shareable handles: a file descriptor ---- */

cuabi_result cuMemExportToShareableHandle(void *shareable, cuabi_mem_handle handle, cuabi_mem_handle_type type,
                                          unsigned long long flags)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemExportToShareableHandle, true);
    struct phys *p = rc == CUABI_SUCCESS ? phys_find(handle) : NULL;
    int fd = -1;

    /* Only a handle created for that type exports to it (prop.requestedHandleTypes). */
    if (rc == CUABI_SUCCESS && (!shareable || flags || !p || p->refs == 0 || !(p->types & type) ||
                                type != CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        rc = CUABI_ERROR_INVALID_VALUE;
    /* A descriptor of its own, which the caller closes. */
    if (rc == CUABI_SUCCESS && (fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0)) < 0)
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS)
        memcpy(shareable, &fd, sizeof(fd));
    return fake_end(rc);
}

/*
 * Checks a descriptor from elsewhere and takes a copy of it: -1 (and why on
 * stderr) when it is not a physical allocation of the fake's, of a device
 * this process has, no larger than that device's memory.
 */
static int import_fd(int fd, int *device, size_t *size)
{
    char rest[32], *end = NULL;
    const char *why = fake_shm_check(fd, phys_prefix, GRANULARITY, (size_t)1 << 48, size, rest, sizeof(rest));
    long d = why ? -1 : strtol(rest, &end, 10);

    if (!why && (end == rest || *end || d < 0 || d >= FAKE_MAX_DEVICES || !fake_device_valid((int)d)))
        why = "of a device this process does not have";
    else if (!why && *size > fake.devices[d].desc.total_memory)
        why = "larger than its device's memory";
    if (why) {
        fprintf(stderr, "gpushim-fakecuda: cuMemImportFromShareableHandle: descriptor %d is not a physical "
                        "allocation the fake exported: %s\n", fd, why);
        return -1;
    }
    *device = (int)d;
    return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

cuabi_result cuMemImportFromShareableHandle(cuabi_mem_handle *handle, void *os_handle, cuabi_mem_handle_type type)
{
    cuabi_result rc = fake_begin(FAKE_E_cuMemImportFromShareableHandle, true);
    intptr_t given = (intptr_t)os_handle;
    struct phys *p = NULL;
    int device = 0, fd = -1;
    size_t size = 0;

    if (rc == CUABI_SUCCESS && (!handle || type != CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || given < 0 ||
                                given > INT32_MAX))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && (fd = import_fd((int)given, &device, &size)) < 0)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS) {
        rc = phys_new(device, size, fd, true, &p);
        if (rc != CUABI_SUCCESS)
            close(fd);
    }
    if (rc == CUABI_SUCCESS) {
        p->types = CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        *handle = p->handle;
    }
    return fake_end(rc);
}
