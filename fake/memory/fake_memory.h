/* SPDX-License-Identifier: MIT */
/*
 * Device allocations (fake_memory.c): the index kernels and copies look memory up in.
 */
#ifndef FAKE_MEMORY_H
#define FAKE_MEMORY_H

#include "fake_core.h"

struct fake_alloc {
    struct fake_alloc *next, *prev; /* fake.allocs, newest first (FAKE_ALLOC_VMM: its reservation's) */
    uint64_t addr;
    size_t size;
    int device;
    unsigned char *data;
    bool mapped;        /* data is a mapping of its own (munmap), else malloc's */
    int kind;           /* FAKE_ALLOC_* */
    struct fake_pool *pool; /* FAKE_ALLOC_POOL: the pool it came from (fake_pool.c) */
    unsigned ipc_opens; /* cuIpcOpenMemHandle mappings of it not yet closed */
    int location;       /* managed memory: where the last prefetch moved it (a device, or -1 the host) */
    int advice;         /* managed memory: the last cuMemAdvise advice, 0 for none */
    bool prefetched;    /* managed memory: `location` is a prefetch's, not the start's */
    bool read_mostly;   /* managed memory: CU_MEM_ADVISE_SET_READ_MOSTLY, not unset since */
    int preferred;      /* managed memory: the preferred location, a device or -1 the host; -2 for none */
    unsigned accessed_by; /* managed memory: a bit a device CU_MEM_ADVISE_SET_ACCESSED_BY named, the host's last */
    struct fake_ctx *owner; /* the created context it was allocated in, freed with it; NULL: the primary one */
    unsigned char *written; /* GPUSHIM_FAKE_CHECK=init: a bit a byte, set once a copy, memset or kernel wrote it;
                               NULL: not tracked (the check off at allocation, managed memory, a module's global) */
    bool shared;        /* data is a mapping of memfd `shm_fd` (fake_shm.c), which another process may map */
    int shm_fd;
    uint64_t shm_tag;   /* the memfd's name's random part, which an IPC handle names */
};

enum {
    FAKE_ALLOC_PLAIN,
    FAKE_ALLOC_POOL,
    FAKE_ALLOC_MANAGED, /* at its host address */
    FAKE_ALLOC_GLOBAL,  /* a module's global: neither the client's to free nor counted as its memory */
    FAKE_ALLOC_VMM,     /* an accessible stretch of a VA reservation (fake_vmm.c): in the index only */
    FAKE_ALLOC_IPC,     /* another process's allocation opened here (fake_ipc.c): not this one's memory */
};

/*
 * The live allocation holding all of [addr, addr + bytes), or NULL: O(log n)
 * in the live allocations. Device memory as a kernel reaches it: what the
 * built-in kernels, host kernels and the PTX interpreter bounds-check each
 * access with. Managed allocations are found at their host address.
 */
struct fake_alloc *fake_alloc_find(uint64_t addr, size_t bytes);

/* The live allocation at exactly `addr`, of `kind` (-1: any), or NULL. */
struct fake_alloc *fake_alloc_at(uint64_t addr, int kind);

/* Host memory for [addr, addr + bytes) of device memory, or NULL. */
unsigned char *fake_device_bytes(uint64_t addr, size_t bytes);

/*
 * Records that [addr, addr + bytes) of device memory was written, for the
 * interpreter's init check: every host-side path that writes device memory
 * (copies, memsets, stream writes, built-in and host kernels) calls it.
 */
void fake_alloc_written(uint64_t addr, size_t bytes);

/*
 * Frees what the context's allocations are (a hook): a created context's own,
 * a primary one's every device allocation of its device not made in a created
 * context; returns how many there were.
 */
unsigned long fake_memory_ctx_reset(struct fake_ctx *ctx);

/*
 * A new allocation of `bytes` (1 or more) on `device`, of a FAKE_ALLOC_ kind,
 * zeroed; OUT_OF_MEMORY past the device's memory or its limit. Its pages cost
 * nothing until touched.
 */
cuabi_result fake_alloc_new(int device, size_t bytes, int kind, struct fake_alloc **out);

/* Frees the client's live allocation at exactly `addr`; false if there is none. */
bool fake_alloc_free(uint64_t addr);

/* Frees a live allocation of any kind. */
void fake_alloc_release(struct fake_alloc *a);

/*
 * Adds an allocation made elsewhere (FAKE_ALLOC_VMM) to the index by which
 * fake_alloc_find() finds it, or takes it out; nothing else is done to it.
 * Adding is false when out of memory.
 */
bool fake_alloc_index(struct fake_alloc *a);
void fake_alloc_unindex(const struct fake_alloc *a);

/*
 * A FAKE_ALLOC_IPC allocation on `device` of `bytes` at a new address, whose
 * memory is `data`, a shared mapping of memfd `fd`; both are the allocation's
 * from then on (unmapped and closed when it is freed), on failure too.
 */
cuabi_result fake_alloc_adopt(int device, size_t bytes, unsigned char *data, int fd, struct fake_alloc **out);

/* Backs a live allocation by a memfd (fake_shm.c) with its contents; false when out of memory. */
bool fake_alloc_share(struct fake_alloc *a);

struct fake_op;
struct fake_memset;

/*
 * The operation a 3D copy or a fill in `ctx` runs, checked as the stream
 * calls check them (fake_copy.c): a graph's memcpy and memset nodes hold one.
 * NULL and success for nothing to copy or fill.
 */
cuabi_result fake_copy3d_op(const struct fake_ctx *ctx, const cuabi_memcpy3d *p, struct fake_op **out);
cuabi_result fake_memset_op(const struct fake_ctx *ctx, const struct fake_memset *m, struct fake_op **out);

#endif
