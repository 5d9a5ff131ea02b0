/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's copies and fills: synchronous ones on the legacy stream,
 * asynchronous ones queued on a stream, peer copies between devices; 2D and
 * 3D copies between host memory, device memory and CUDA arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_array.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_host_memory.h"
#include "fake_memory.h"
#include "fake_stream.h"

/* Bytes a side of a copy in rows and slices spans from its first; checked against overflow when it was made. */
static size_t side_span(const struct fake_copy *c, const struct fake_copy_side *s)
{
    return (c->slices - 1) * s->slice + (c->rows - 1) * s->pitch + c->bytes;
}

/* The memory of a side in rows and slices: its array's, its device memory's or its host pointer's; NULL if gone. */
static unsigned char *side_bytes(uint64_t device, const void *host, const struct fake_copy_side *s, size_t span)
{
    if (s->array)
        return fake_array_bytes(s->array, s->offset, span);
    if (device)
        return fake_device_bytes(device + s->offset, span);
    return (unsigned char *)(uintptr_t)host + s->offset;
}

/* A copy in rows and slices, row by row; false when a side is no longer allocated. */
static bool shaped_run(const struct fake_copy *c)
{
    const struct fake_copy_side *ds = &c->dst_side, *ss = &c->src_side;
    unsigned char *dst = side_bytes(c->dst, c->host_dst, ds, side_span(c, ds));
    const unsigned char *src = side_bytes(c->src, c->host_src, ss, side_span(c, ss));

    if (!dst || !src)
        return false;
    for (size_t z = 0; z < c->slices; z++)
        for (size_t y = 0; y < c->rows; y++) {
            size_t at = ds->offset + z * ds->slice + y * ds->pitch;

            memmove(dst + (at - ds->offset), src + z * ss->slice + y * ss->pitch, c->bytes);
            if (c->dst)
                fake_alloc_written(c->dst + at, c->bytes);
        }
    return true;
}

static bool copy_run(const struct fake_copy *c)
{
    unsigned char *dst;
    const unsigned char *src;

    if (c->rows)
        return shaped_run(c);
    dst = c->dst ? fake_device_bytes(c->dst, c->bytes) : c->host_dst;
    src = c->src ? fake_device_bytes(c->src, c->bytes) : c->host_src;
    if (!dst || !src)
        return false;
    memmove(dst, src, c->bytes);
    if (c->dst)
        fake_alloc_written(c->dst, c->bytes);
    return true;
}

static bool copy_work_run(struct fake_stream *s, const struct fake_op *op)
{
    return copy_run(&op->u.copy);
}

/* A queued copy, as its stream runs it. */
static const struct fake_work copy_work = {.run = copy_work_run};

/*
 * Whether all of [addr, addr + span) is page-locked host memory, which under
 * unified addressing is mapped into every context at its host address: a
 * device address like any other, for every copy and fill.
 */
static bool mapped_host(uint64_t addr, size_t span)
{
    const struct fake_host *h = fake_host_find(addr);

    return h && span <= h->size - (addr - (uintptr_t)h->ptr);
}

/* A device side that no allocation holds but mapped page-locked memory does becomes that host memory. */
static void mapped_sides(struct fake_copy *copy)
{
    if (copy->dst && !fake_alloc_find(copy->dst, copy->bytes) && mapped_host(copy->dst, copy->bytes)) {
        copy->host_dst = (void *)(uintptr_t)copy->dst;
        copy->dst = 0;
    }
    if (copy->src && !fake_alloc_find(copy->src, copy->bytes) && mapped_host(copy->src, copy->bytes)) {
        copy->host_src = (const void *)(uintptr_t)copy->src;
        copy->src = 0;
    }
}

/*
 * Checks a copy's device addresses: allocated, in range, and reachable from
 * the current context (its own device's memory, or a peer's it enabled).
 */
static cuabi_result check_copy(const struct fake_ctx *c, const struct fake_copy *copy)
{
    const uint64_t sides[2] = {copy->dst, copy->src};

    if ((!copy->dst && !copy->host_dst) || (!copy->src && !copy->host_src))
        return CUABI_ERROR_INVALID_VALUE;
    for (int i = 0; i < 2; i++) {
        struct fake_alloc *a;

        if (!sides[i])
            continue;
        a = fake_alloc_find(sides[i], copy->bytes);
        if (!a || !fake_ctx_reaches(c, a->device))
            return CUABI_ERROR_INVALID_VALUE;
    }
    return CUABI_SUCCESS;
}

/* A synchronous copy: a legacy-stream operation, done before it returns. */
static cuabi_result copy_sync(enum fake_entry entry, struct fake_copy *copy)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && copy->bytes) {
        mapped_sides(copy);
        rc = check_copy(c, copy);
    }
    if (rc == CUABI_SUCCESS)
        rc = fake_legacy_sync(c);
    if (rc == CUABI_SUCCESS && copy->bytes && !copy_run(copy))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

/* Bytes a copy's host side spans from its first: a plain copy's bytes, or its rows' and slices'. */
static size_t host_span(const struct fake_copy *c, const struct fake_copy_side *side)
{
    return c->rows ? side_span(c, side) : c->bytes;
}

/* Whether all of [p, p + bytes) is page-locked host memory (cuMemHostAlloc's, cuMemHostRegister's). */
static bool page_locked(const void *p, size_t bytes)
{
    return mapped_host((uintptr_t)p, bytes);
}

/* Copies a pageable host source into the operation, which reads that copy when it runs; false when out of memory. */
static bool stage_source(struct fake_copy *c)
{
    size_t span = host_span(c, &c->src_side);
    const unsigned char *from = (const unsigned char *)c->host_src + (c->rows ? c->src_side.offset : 0);

    if (!(c->staged = malloc(span ? span : 1)))
        return false;
    memcpy(c->staged, from, span);
    c->host_src = c->staged;
    c->src_side.offset = 0;
    return true;
}

/*
 * Queues a copy made and checked on stream s. Host memory is used as CUDA
 * documents for asynchronous copies: page-locked memory when the stream
 * reaches the copy; a pageable source is staged before the call returns,
 * and a copy into pageable memory has completed when it returns (the
 * stream's earlier work run first). A capture records the copy as it is.
 */
static cuabi_result copy_enqueue(struct fake_stream *s, const struct fake_copy *c)
{
    struct fake_op *op = fake_op_new(FAKE_OP_COPY, &copy_work);
    bool direct = s->capture != FAKE_CAPTURE_NONE;
    bool wait = !direct && !c->dst && !c->dst_side.array && !page_locked(c->host_dst, host_span(c, &c->dst_side));
    cuabi_result rc;

    if (!op)
        return CUABI_ERROR_OUT_OF_MEMORY;
    op->u.copy = *c;
    if (!direct && !c->src && !c->src_side.array && !page_locked(c->host_src, host_span(c, &c->src_side)) &&
        !stage_source(&op->u.copy)) {
        fake_op_free(op);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    rc = fake_enqueue(s, op);
    if (rc == CUABI_SUCCESS && wait) {
        fake_stream_drain(s, s->last_seq);
        rc = s->ctx->sticky;
    }
    return rc;
}

/* Queues a copy on a stream, its host memory used as copy_enqueue() says. */
static cuabi_result queue_copy(struct fake_copy *copy, cuabi_stream stream)
{
    struct fake_stream *s = NULL;
    cuabi_result rc = fake_stream_for_work(stream, &s);

    if (rc == CUABI_SUCCESS && !copy->peer && copy->bytes)
        mapped_sides(copy);
    if (rc == CUABI_SUCCESS && !copy->peer)
        rc = check_copy(s->ctx, copy);
    if (rc != CUABI_SUCCESS || copy->bytes == 0)
        return rc;
    return copy_enqueue(s, copy);
}

static cuabi_result copy_async(enum fake_entry entry, struct fake_copy *copy, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(entry, true);

    if (rc == CUABI_SUCCESS)
        rc = queue_copy(copy, stream);
    return fake_end(rc);
}

cuabi_result cuMemcpyHtoD_v2(cuabi_deviceptr dst, const void *src, size_t bytes)
{
    struct fake_copy c = {.dst = dst, .host_src = src, .bytes = bytes};

    return copy_sync(FAKE_E_cuMemcpyHtoD_v2, &c);
}

cuabi_result cuMemcpyDtoH_v2(void *dst, cuabi_deviceptr src, size_t bytes)
{
    struct fake_copy c = {.host_dst = dst, .src = src, .bytes = bytes};

    return copy_sync(FAKE_E_cuMemcpyDtoH_v2, &c);
}

cuabi_result cuMemcpyDtoD_v2(cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes)
{
    struct fake_copy c = {.dst = dst, .src = src, .bytes = bytes};

    return copy_sync(FAKE_E_cuMemcpyDtoD_v2, &c);
}

cuabi_result cuMemcpyHtoDAsync_v2(cuabi_deviceptr dst, const void *src, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = {.dst = dst, .host_src = src, .bytes = bytes};

    return copy_async(FAKE_E_cuMemcpyHtoDAsync_v2, &c, stream);
}

cuabi_result cuMemcpyDtoHAsync_v2(void *dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = {.host_dst = dst, .src = src, .bytes = bytes};

    return copy_async(FAKE_E_cuMemcpyDtoHAsync_v2, &c, stream);
}

cuabi_result cuMemcpyDtoDAsync_v2(cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = {.dst = dst, .src = src, .bytes = bytes};

    return copy_async(FAKE_E_cuMemcpyDtoDAsync_v2, &c, stream);
}

/*
 * Between two contexts: each address must be its own context's device's.
 * Peer access is not needed (the real driver stages the copy without it).
 */
cuabi_result cuMemcpyPeerAsync(cuabi_deviceptr dst, cuabi_context dst_ctx, cuabi_deviceptr src,
                               cuabi_context src_ctx, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = {.dst = dst, .src = src, .bytes = bytes, .peer = true};
    cuabi_result rc = fake_begin(FAKE_E_cuMemcpyPeerAsync, true);

    if (rc == CUABI_SUCCESS) {
        struct fake_ctx *dc = fake_ctx_from(dst_ctx), *sc = fake_ctx_from(src_ctx);
        struct fake_alloc *da = fake_alloc_find(dst, bytes), *sa = fake_alloc_find(src, bytes);

        if (!dc || !sc)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        else if (bytes && (!da || !sa || da->device != dc->device || sa->device != sc->device))
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            rc = queue_copy(&c, stream);
    }
    return fake_end(rc);
}

/*
 * A unified address as cuMemcpy reads it: device memory when an allocation
 * holds it (managed memory at its host address included), or when it lies in
 * the fake's device range, where check_copy() refuses it unless allocated;
 * any other address is host memory, pageable or page-locked, as with unified
 * addressing on the real driver.
 */
static void unified_side(cuabi_deviceptr p, uint64_t *device, const void **host)
{
    if (p && (p >= FAKE_ADDR_BASE || fake_alloc_find(p, 1)))
        *device = p;
    else
        *host = (const void *)(uintptr_t)p;
}

static struct fake_copy unified_copy(cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes)
{
    struct fake_copy c = {.bytes = bytes};
    const void *host_dst = NULL;

    unified_side(dst, &c.dst, &host_dst);
    unified_side(src, &c.src, &c.host_src);
    c.host_dst = (void *)(uintptr_t)host_dst;
    return c;
}

/* Either direction, host or device on each side: a legacy-stream operation like cuMemcpyHtoD_v2. */
cuabi_result cuMemcpy(cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes)
{
    struct fake_copy c = unified_copy(dst, src, bytes);

    return copy_sync(FAKE_E_cuMemcpy, &c);
}

cuabi_result cuMemcpyAsync(cuabi_deviceptr dst, cuabi_deviceptr src, size_t bytes, cuabi_stream stream)
{
    struct fake_copy c = unified_copy(dst, src, bytes);

    return copy_async(FAKE_E_cuMemcpyAsync, &c, stream);
}

/*
 * cuMemcpyPeerAsync's checks, done now: ordered after the legacy stream's
 * work of the current context and of both contexts (the driver serialises it
 * with all three), and finished before it returns.
 */
cuabi_result cuMemcpyPeer(cuabi_deviceptr dst, cuabi_context dst_ctx, cuabi_deviceptr src, cuabi_context src_ctx,
                          size_t bytes)
{
    struct fake_copy c = {.dst = dst, .src = src, .bytes = bytes, .peer = true};
    cuabi_result rc = fake_begin(FAKE_E_cuMemcpyPeer, true);
    struct fake_ctx *cur = NULL, *dc = NULL, *sc = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&cur);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *da = fake_alloc_find(dst, bytes), *sa = fake_alloc_find(src, bytes);

        dc = fake_ctx_from(dst_ctx);
        sc = fake_ctx_from(src_ctx);
        if (!dc || !sc)
            rc = CUABI_ERROR_INVALID_CONTEXT;
        else if (bytes && (!da || !sa || da->device != dc->device || sa->device != sc->device))
            rc = CUABI_ERROR_INVALID_VALUE;
    }
    if (rc == CUABI_SUCCESS)
        rc = fake_legacy_sync(cur);
    if (rc == CUABI_SUCCESS && dc != cur)
        rc = fake_legacy_sync(dc);
    if (rc == CUABI_SUCCESS && sc != cur && sc != dc)
        rc = fake_legacy_sync(sc);
    if (rc == CUABI_SUCCESS && bytes && !copy_run(&c))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

/* ---- Fills ---- */

/* The bytes a fill spans, first row to the end of the last; SIZE_MAX when that overflows. */
static size_t memset_span(const struct fake_memset *m)
{
    size_t rows = m->rows ? m->rows : 1, row;

    if (m->count > SIZE_MAX / m->size)
        return SIZE_MAX;
    row = m->count * m->size;
    if (rows > 1 && (m->pitch < row || rows - 1 > (SIZE_MAX - row) / m->pitch))
        return SIZE_MAX;
    return (rows - 1) * m->pitch + row;
}

/*
 * `count` elements of `size` bytes (1, 2 or 4), each `value`, little-endian as the GPU is: memset() for
 * bytes; otherwise the first element, then the filled part copied after itself, doubling up to a few
 * KiB, then that block (a whole number of elements, in the cache) copied on to the end, so that the
 * fill runs at memcpy's speed.
 */
static void memset_row(unsigned char *p, uint32_t value, size_t size, size_t count)
{
    size_t bytes = count * size, block = size;

    if (size == 1 || !count) {
        memset(p, (int)(value & 0xff), bytes);
        return;
    }
    memcpy(p, &value, size);
    for (; block < 4096 && block < bytes; block *= 2)
        memcpy(p + block, p, block < bytes - block ? block : bytes - block);
    for (size_t done = block; done < bytes; done += block)
        memcpy(p + done, p, block < bytes - done ? block : bytes - done);
}

/*
 * The bytes a fill of `span` bytes at `dst` writes: device memory, or mapped
 * page-locked host memory at its device alias (its host address), whose
 * device is -1 (any context reaches it); NULL when it is neither.
 */
static unsigned char *fill_bytes(uint64_t dst, size_t span, int *device)
{
    struct fake_alloc *a = span != SIZE_MAX ? fake_alloc_find(dst, span) : NULL;
    const struct fake_host *h = a || span == SIZE_MAX ? NULL : fake_host_find(dst);

    *device = a ? a->device : -1;
    if (a)
        return a->data + (dst - a->addr);
    return h && span <= h->size - (dst - (uintptr_t)h->ptr) ? h->ptr + (dst - (uintptr_t)h->ptr) : NULL;
}

static bool memset_run(const struct fake_memset *m)
{
    int device;
    unsigned char *p = fill_bytes(m->dst, memset_span(m), &device);

    if (!p)
        return false;
    for (size_t r = 0; r < (m->rows ? m->rows : 1); r++, p += m->pitch) {
        memset_row(p, m->value, m->size, m->count);
        fake_alloc_written(m->dst + r * m->pitch, m->count * m->size);
    }
    return true;
}

static bool memset_work_run(struct fake_stream *s, const struct fake_op *op)
{
    return memset_run(&op->u.memset);
}

/* A queued memset, as its stream runs it. */
static const struct fake_work memset_work = {.run = memset_work_run};

/* A fill's memory: allocated or mapped, aligned to its elements and reachable from `ctx`. */
static cuabi_result memset_check(const struct fake_ctx *ctx, const struct fake_memset *m)
{
    int device;

    if (m->dst % m->size || (m->rows > 1 && m->pitch % m->size))
        return CUABI_ERROR_INVALID_VALUE;
    if (!fill_bytes(m->dst, memset_span(m), &device) || (device >= 0 && !fake_ctx_reaches(ctx, device)))
        return CUABI_ERROR_INVALID_VALUE;
    return CUABI_SUCCESS;
}

static cuabi_result memset_sync(enum fake_entry entry, const struct fake_memset *m)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && m->count)
        rc = memset_check(c, m);
    if (rc == CUABI_SUCCESS)
        rc = fake_legacy_sync(c);
    if (rc == CUABI_SUCCESS && m->count && !memset_run(m))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

static cuabi_result memset_async(enum fake_entry entry, const struct fake_memset *m, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_stream *s = NULL;
    struct fake_op *op;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS && m->count)
        rc = memset_check(s->ctx, m);
    if (rc == CUABI_SUCCESS && m->count) {
        op = fake_op_new(FAKE_OP_MEMSET, &memset_work);
        if (!op) {
            rc = CUABI_ERROR_OUT_OF_MEMORY;
        } else {
            op->u.memset = *m;
            rc = fake_enqueue(s, op);
        }
    }
    return fake_end(rc);
}

cuabi_result cuMemsetD8_v2(cuabi_deviceptr dst, unsigned char value, size_t count)
{
    return memset_sync(FAKE_E_cuMemsetD8_v2, &(struct fake_memset){dst, value, 1, count, 0, 1});
}

cuabi_result cuMemsetD16_v2(cuabi_deviceptr dst, unsigned short value, size_t count)
{
    return memset_sync(FAKE_E_cuMemsetD16_v2, &(struct fake_memset){dst, value, 2, count, 0, 1});
}

cuabi_result cuMemsetD32_v2(cuabi_deviceptr dst, unsigned int value, size_t count)
{
    return memset_sync(FAKE_E_cuMemsetD32_v2, &(struct fake_memset){dst, value, 4, count, 0, 1});
}

cuabi_result cuMemsetD8Async(cuabi_deviceptr dst, unsigned char value, size_t count, cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD8Async, &(struct fake_memset){dst, value, 1, count, 0, 1}, stream);
}

cuabi_result cuMemsetD16Async(cuabi_deviceptr dst, unsigned short value, size_t count, cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD16Async, &(struct fake_memset){dst, value, 2, count, 0, 1}, stream);
}

cuabi_result cuMemsetD32Async(cuabi_deviceptr dst, unsigned int value, size_t count, cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD32Async, &(struct fake_memset){dst, value, 4, count, 0, 1}, stream);
}

/* 2D fills: `height` rows of `width` elements, `pitch` bytes apart (a pitch under a row's bytes is refused). */

cuabi_result cuMemsetD2D8_v2(cuabi_deviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height)
{
    return memset_sync(FAKE_E_cuMemsetD2D8_v2, &(struct fake_memset){dst, value, 1, height ? width : 0, pitch, height});
}

cuabi_result cuMemsetD2D16_v2(cuabi_deviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height)
{
    return memset_sync(FAKE_E_cuMemsetD2D16_v2, &(struct fake_memset){dst, value, 2, height ? width : 0, pitch, height});
}

cuabi_result cuMemsetD2D32_v2(cuabi_deviceptr dst, size_t pitch, unsigned int value, size_t width, size_t height)
{
    return memset_sync(FAKE_E_cuMemsetD2D32_v2, &(struct fake_memset){dst, value, 4, height ? width : 0, pitch, height});
}

cuabi_result cuMemsetD2D8Async(cuabi_deviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height,
                               cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD2D8Async, &(struct fake_memset){dst, value, 1, height ? width : 0, pitch, height},
                        stream);
}

cuabi_result cuMemsetD2D16Async(cuabi_deviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height,
                                cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD2D16Async,
                        &(struct fake_memset){dst, value, 2, height ? width : 0, pitch, height}, stream);
}

cuabi_result cuMemsetD2D32Async(cuabi_deviceptr dst, size_t pitch, unsigned int value, size_t width, size_t height,
                                cuabi_stream stream)
{
    return memset_async(FAKE_E_cuMemsetD2D32Async,
                        &(struct fake_memset){dst, value, 4, height ? width : 0, pitch, height}, stream);
}

/* ---- Copies in rows and slices: cuMemcpy2D, cuMemcpy3D, and to and from CUDA arrays ---- */

/* One end of such a copy as the caller gave it. */
struct end {
    unsigned type;        /* CU_MEMORYTYPE_* */
    const void *host;
    uint64_t device;
    const void *array;
    size_t x, y, z;       /* bytes, rows and slices before the first byte copied */
    size_t pitch, height; /* host or device memory: bytes a row, rows a slice */
    bool linear;          /* an array as one row of all its bytes (cuMemcpyHtoA and the like) */
};

/* What is copied: bytes a row, rows, slices. */
struct shape {
    size_t width, rows, slices;
};

/* a * b + c, false when it overflows. */
static bool mul_add(size_t a, size_t b, size_t c, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out) && !__builtin_add_overflow(*out, c, out);
}

/* An array end: the region within the array's rows and slices (or its bytes, linear), its context's device reachable. */
static cuabi_result array_side(const struct fake_ctx *ctx, const struct end *e, const struct shape *sh,
                               struct fake_copy_side *side)
{
    const struct fake_array *a = fake_array_find(e->array);

    if (!a || !fake_ctx_reaches(ctx, a->ctx->device))
        return CUABI_ERROR_INVALID_VALUE;
    side->array = e->array;
    if (e->linear) {
        side->offset = e->x;
        return e->x <= a->bytes && sh->width <= a->bytes - e->x ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
    }
    if (e->x > a->pitch || sh->width > a->pitch - e->x || e->y > a->rows || sh->rows > a->rows - e->y ||
        e->z > a->slices || sh->slices > a->slices - e->z)
        return CUABI_ERROR_INVALID_VALUE;
    side->pitch = a->pitch;
    side->slice = a->pitch * a->rows;
    side->offset = e->z * side->slice + e->y * a->pitch + e->x;
    return CUABI_SUCCESS;
}

/* Whether a host pointer is one of the fake's device addresses, which the host cannot touch. */
static bool device_address(const void *host)
{
    uintptr_t p = (uintptr_t)host;

    return p >= FAKE_ADDR_BASE && p - FAKE_ADDR_BASE < FAKE_ADDR_STRIDE * FAKE_MAX_DEVICES;
}

/*
 * A host or device end: where there is more than one row, its pitch holds the
 * row from x (and is no more than the device's maximum); a single row's pitch
 * is not looked at, as the driver does not (an H200 copies one row with a
 * pitch of 0 or past the maximum); its height the rows from y when there are
 * slices; device memory (or mapped page-locked memory) allocated and reachable
 * for all it spans.
 */
static cuabi_result linear_side(const struct fake_ctx *ctx, struct end *e, const struct shape *sh,
                                struct fake_copy_side *side)
{
    size_t span, last;

    if ((sh->rows > 1 || sh->slices > 1) &&
        (e->x > e->pitch || sh->width > e->pitch - e->x ||
         e->pitch > (size_t)fake_attribute(ctx->device, CUABI_DEVICE_ATTRIBUTE_MAX_PITCH)))
        return CUABI_ERROR_INVALID_VALUE;
    if (sh->slices > 1 && (e->y > e->height || sh->rows > e->height - e->y))
        return CUABI_ERROR_INVALID_VALUE;
    side->pitch = e->pitch;
    if (__builtin_mul_overflow(e->pitch, e->height, &side->slice) || !mul_add(e->y, e->pitch, e->x, &side->offset) ||
        !mul_add(e->z, side->slice, side->offset, &side->offset) || !mul_add(sh->rows - 1, e->pitch, sh->width, &last) ||
        !mul_add(sh->slices - 1, side->slice, last, &span) || __builtin_add_overflow(span, side->offset, &last))
        return CUABI_ERROR_INVALID_VALUE;
    if (e->type == CUABI_MEMORYTYPE_HOST) {
        if (!e->host || device_address(e->host) || (uintptr_t)e->host > UINTPTR_MAX - last)
            return CUABI_ERROR_INVALID_VALUE;
        return CUABI_SUCCESS;
    }
    if (e->device > UINT64_MAX - side->offset)
        return CUABI_ERROR_INVALID_VALUE;
    {
        const struct fake_alloc *a = fake_alloc_find(e->device + side->offset, span);

        if (!a && mapped_host(e->device + side->offset, span)) {
            /* Mapped page-locked memory: its device address is its host address. */
            e->type = CUABI_MEMORYTYPE_HOST;
            e->host = (const void *)(uintptr_t)e->device;
            return CUABI_SUCCESS;
        }
        return a && fake_ctx_reaches(ctx, a->device) ? CUABI_SUCCESS : CUABI_ERROR_INVALID_VALUE;
    }
}

/* An end made a side of the copy: a unified address becomes the device memory or host memory it is. */
static cuabi_result end_side(const struct fake_ctx *ctx, struct end *e, const struct shape *sh,
                             struct fake_copy_side *side, uint64_t *device, const void **host)
{
    cuabi_result rc;

    if (e->type == CUABI_MEMORYTYPE_UNIFIED) {
        e->type = fake_alloc_find(e->device, 1) ? CUABI_MEMORYTYPE_DEVICE : CUABI_MEMORYTYPE_HOST;
        e->host = (const void *)(uintptr_t)e->device;
    }
    if (e->type == CUABI_MEMORYTYPE_ARRAY)
        return array_side(ctx, e, sh, side);
    if (e->type != CUABI_MEMORYTYPE_HOST && e->type != CUABI_MEMORYTYPE_DEVICE)
        return CUABI_ERROR_INVALID_VALUE;
    rc = linear_side(ctx, e, sh, side);
    if (rc == CUABI_SUCCESS && e->type == CUABI_MEMORYTYPE_DEVICE)
        *device = e->device;
    else if (rc == CUABI_SUCCESS)
        *host = e->host;
    return rc;
}

/* The copy from src to dst, both checked as the driver checks them. */
static cuabi_result shaped_make(const struct fake_ctx *dst_ctx, const struct fake_ctx *src_ctx, struct end dst,
                                struct end src, const struct shape *sh, struct fake_copy *c)
{
    const void *host_dst = NULL;
    cuabi_result rc;

    *c = (struct fake_copy){.bytes = sh->width, .rows = sh->rows, .slices = sh->slices};
    rc = end_side(dst_ctx, &dst, sh, &c->dst_side, &c->dst, &host_dst);
    if (rc == CUABI_SUCCESS)
        rc = end_side(src_ctx, &src, sh, &c->src_side, &c->src, &c->host_src);
    c->host_dst = (void *)(uintptr_t)host_dst;
    return rc;
}

static bool shape_empty(const struct shape *sh)
{
    return sh->width == 0 || sh->rows == 0 || sh->slices == 0;
}

/* A synchronous copy in rows and slices: a legacy-stream operation, done before it returns. */
static cuabi_result shaped_sync(enum fake_entry entry, const struct end *dst, const struct end *src,
                                const struct shape *sh)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *ctx = NULL;
    struct fake_copy c;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&ctx);
    if (rc == CUABI_SUCCESS && !shape_empty(sh))
        rc = shaped_make(ctx, ctx, *dst, *src, sh, &c);
    if (rc == CUABI_SUCCESS)
        rc = fake_legacy_sync(ctx);
    if (rc == CUABI_SUCCESS && !shape_empty(sh) && !copy_run(&c))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

/* Queues a copy in rows and slices, its host memory used as copy_enqueue() says. */
static cuabi_result shaped_async(enum fake_entry entry, const struct end *dst, const struct end *src,
                                 const struct shape *sh, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_stream *s = NULL;
    struct fake_copy c;

    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS && !shape_empty(sh))
        rc = shaped_make(s->ctx, s->ctx, *dst, *src, sh, &c);
    if (rc == CUABI_SUCCESS && !shape_empty(sh))
        rc = copy_enqueue(s, &c);
    return fake_end(rc);
}

/* ---- cuMemcpy2D and cuMemcpy3D ---- */

static struct shape ends_2d(const cuabi_memcpy2d *p, struct end *dst, struct end *src)
{
    *src = (struct end){p->src_type, p->src_host, p->src_device, p->src_array, p->src_x, p->src_y, 0, p->src_pitch,
                        0, false};
    *dst = (struct end){p->dst_type, p->dst_host, p->dst_device, p->dst_array, p->dst_x, p->dst_y, 0, p->dst_pitch,
                        0, false};
    return (struct shape){p->width, p->height, 1};
}

/*
 * A 3D copy's ends. The levels of detail and the reserved fields are not
 * looked at: an H200 copies with srcLOD 1 or reserved0 set, though cuda.h
 * says they must be 0.
 */
static void ends_3d(const cuabi_memcpy3d *p, struct end *dst, struct end *src, struct shape *sh)
{
    *src = (struct end){p->src_type, p->src_host, p->src_device, p->src_array, p->src_x, p->src_y, p->src_z,
                        p->src_pitch, p->src_height, false};
    *dst = (struct end){p->dst_type, p->dst_host, p->dst_device, p->dst_array, p->dst_x, p->dst_y, p->dst_z,
                        p->dst_pitch, p->dst_height, false};
    *sh = (struct shape){p->width, p->height, p->depth};
}

/* An argument refused before anything else: the call is still counted, and may be failed by a rule. */
static cuabi_result refuse(enum fake_entry entry)
{
    cuabi_result rc = fake_begin(entry, true);

    return fake_end(rc == CUABI_SUCCESS ? CUABI_ERROR_INVALID_VALUE : rc);
}

static cuabi_result copy_2d(enum fake_entry entry, const cuabi_memcpy2d *p, bool async, cuabi_stream stream)
{
    struct end dst, src;
    struct shape sh;

    if (!p)
        return refuse(entry);
    sh = ends_2d(p, &dst, &src);
    return async ? shaped_async(entry, &dst, &src, &sh, stream) : shaped_sync(entry, &dst, &src, &sh);
}

static cuabi_result copy_3d(enum fake_entry entry, const cuabi_memcpy3d *p, bool async, cuabi_stream stream)
{
    struct end dst, src;
    struct shape sh;

    if (!p)
        return refuse(entry);
    ends_3d(p, &dst, &src, &sh);
    return async ? shaped_async(entry, &dst, &src, &sh, stream) : shaped_sync(entry, &dst, &src, &sh);
}

cuabi_result cuMemcpy2D_v2(const cuabi_memcpy2d *copy)
{
    return copy_2d(FAKE_E_cuMemcpy2D_v2, copy, false, NULL);
}

/* The fake has no alignment the aligned form would need: both are the same copy. */
cuabi_result cuMemcpy2DUnaligned_v2(const cuabi_memcpy2d *copy)
{
    return copy_2d(FAKE_E_cuMemcpy2DUnaligned_v2, copy, false, NULL);
}

cuabi_result cuMemcpy2DAsync_v2(const cuabi_memcpy2d *copy, cuabi_stream stream)
{
    return copy_2d(FAKE_E_cuMemcpy2DAsync_v2, copy, true, stream);
}

cuabi_result cuMemcpy3D_v2(const cuabi_memcpy3d *copy)
{
    return copy_3d(FAKE_E_cuMemcpy3D_v2, copy, false, NULL);
}

cuabi_result cuMemcpy3DAsync_v2(const cuabi_memcpy3d *copy, cuabi_stream stream)
{
    return copy_3d(FAKE_E_cuMemcpy3DAsync_v2, copy, true, stream);
}

/* ---- cuMemcpy3DPeer: a 3D copy whose ends each name their context ---- */

/*
 * An end's context: the one it names, or an array's own (the named one is
 * ignored for an array); NULL when neither is known.
 */
static struct fake_ctx *peer_end_ctx(const struct end *e, cuabi_context named)
{
    if (e->type == CUABI_MEMORYTYPE_ARRAY) {
        struct fake_array *a = fake_array_find(e->array);

        return a ? a->ctx : NULL;
    }
    return fake_ctx_from(named);
}

/* Both ends' contexts: INVALID_VALUE for an unknown array, INVALID_CONTEXT for an unknown context. */
static cuabi_result peer_ctxs(const cuabi_memcpy3d_peer *p, const struct end *dst, const struct end *src,
                              struct fake_ctx **dc, struct fake_ctx **sc)
{
    *dc = peer_end_ctx(dst, p->dst_context);
    *sc = peer_end_ctx(src, p->src_context);
    if (*dc && *sc)
        return CUABI_SUCCESS;
    return (!*dc && dst->type == CUABI_MEMORYTYPE_ARRAY) || (!*sc && src->type == CUABI_MEMORYTYPE_ARRAY)
               ? CUABI_ERROR_INVALID_VALUE
               : CUABI_ERROR_INVALID_CONTEXT;
}

static void ends_3d_peer(const cuabi_memcpy3d_peer *p, struct end *dst, struct end *src, struct shape *sh)
{
    *src = (struct end){p->src_type, p->src_host, p->src_device, p->src_array, p->src_x, p->src_y, p->src_z,
                        p->src_pitch, p->src_height, false};
    *dst = (struct end){p->dst_type, p->dst_host, p->dst_device, p->dst_array, p->dst_x, p->dst_y, p->dst_z,
                        p->dst_pitch, p->dst_height, false};
    *sh = (struct shape){p->width, p->height, p->depth};
}

/*
 * Each end checked against its own context; done before it returns, ordered
 * after the legacy stream's work of the current context and of both
 * contexts, as cuMemcpyPeer is.
 */
cuabi_result cuMemcpy3DPeer(const cuabi_memcpy3d_peer *copy)
{
    cuabi_result rc;
    struct fake_ctx *cur = NULL, *dc = NULL, *sc = NULL;
    struct end dst, src;
    struct shape sh;
    struct fake_copy c;

    if (!copy)
        return refuse(FAKE_E_cuMemcpy3DPeer);
    rc = fake_begin(FAKE_E_cuMemcpy3DPeer, true);
    ends_3d_peer(copy, &dst, &src, &sh);
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&cur);
    if (rc == CUABI_SUCCESS)
        rc = peer_ctxs(copy, &dst, &src, &dc, &sc);
    if (rc == CUABI_SUCCESS && !shape_empty(&sh))
        rc = shaped_make(dc, sc, dst, src, &sh, &c);
    if (rc == CUABI_SUCCESS)
        rc = fake_legacy_sync(cur);
    if (rc == CUABI_SUCCESS && dc != cur)
        rc = fake_legacy_sync(dc);
    if (rc == CUABI_SUCCESS && sc != cur && sc != dc)
        rc = fake_legacy_sync(sc);
    if (rc == CUABI_SUCCESS && !shape_empty(&sh) && !copy_run(&c))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

/* Queued on a stream, its host memory used as copy_enqueue() says. */
cuabi_result cuMemcpy3DPeerAsync(const cuabi_memcpy3d_peer *copy, cuabi_stream stream)
{
    cuabi_result rc;
    struct fake_stream *s = NULL;
    struct fake_ctx *dc = NULL, *sc = NULL;
    struct end dst, src;
    struct shape sh;
    struct fake_copy c;

    if (!copy)
        return refuse(FAKE_E_cuMemcpy3DPeerAsync);
    rc = fake_begin(FAKE_E_cuMemcpy3DPeerAsync, true);
    ends_3d_peer(copy, &dst, &src, &sh);
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS)
        rc = peer_ctxs(copy, &dst, &src, &dc, &sc);
    if (rc == CUABI_SUCCESS && !shape_empty(&sh))
        rc = shaped_make(dc, sc, dst, src, &sh, &c);
    if (rc == CUABI_SUCCESS && !shape_empty(&sh))
        rc = copy_enqueue(s, &c);
    return fake_end(rc);
}

/* ---- To and from CUDA arrays: an array's bytes at an offset, as one row ---- */

#define ARRAY_END(a, offset) ((struct end){CUABI_MEMORYTYPE_ARRAY, NULL, 0, (a), (offset), 0, 0, 0, 0, true})
#define HOST_END(p, bytes) ((struct end){CUABI_MEMORYTYPE_HOST, (p), 0, NULL, 0, 0, 0, (bytes), 0, false})
#define DEVICE_END(d, bytes) ((struct end){CUABI_MEMORYTYPE_DEVICE, NULL, (d), NULL, 0, 0, 0, (bytes), 0, false})
#define ROW(bytes) (&(struct shape){(bytes), 1, 1})

cuabi_result cuMemcpyHtoA_v2(cuabi_array dst, size_t dst_offset, const void *src, size_t bytes)
{
    return shaped_sync(FAKE_E_cuMemcpyHtoA_v2, &ARRAY_END(dst, dst_offset), &HOST_END(src, bytes), ROW(bytes));
}

cuabi_result cuMemcpyAtoH_v2(void *dst, cuabi_array src, size_t src_offset, size_t bytes)
{
    return shaped_sync(FAKE_E_cuMemcpyAtoH_v2, &HOST_END(dst, bytes), &ARRAY_END(src, src_offset), ROW(bytes));
}

cuabi_result cuMemcpyDtoA_v2(cuabi_array dst, size_t dst_offset, cuabi_deviceptr src, size_t bytes)
{
    return shaped_sync(FAKE_E_cuMemcpyDtoA_v2, &ARRAY_END(dst, dst_offset), &DEVICE_END(src, bytes), ROW(bytes));
}

cuabi_result cuMemcpyAtoD_v2(cuabi_deviceptr dst, cuabi_array src, size_t src_offset, size_t bytes)
{
    return shaped_sync(FAKE_E_cuMemcpyAtoD_v2, &DEVICE_END(dst, bytes), &ARRAY_END(src, src_offset), ROW(bytes));
}

cuabi_result cuMemcpyAtoA_v2(cuabi_array dst, size_t dst_offset, cuabi_array src, size_t src_offset, size_t bytes)
{
    return shaped_sync(FAKE_E_cuMemcpyAtoA_v2, &ARRAY_END(dst, dst_offset), &ARRAY_END(src, src_offset), ROW(bytes));
}

cuabi_result cuMemcpyHtoAAsync_v2(cuabi_array dst, size_t dst_offset, const void *src, size_t bytes,
                                  cuabi_stream stream)
{
    return shaped_async(FAKE_E_cuMemcpyHtoAAsync_v2, &ARRAY_END(dst, dst_offset), &HOST_END(src, bytes), ROW(bytes),
                        stream);
}

cuabi_result cuMemcpyAtoHAsync_v2(void *dst, cuabi_array src, size_t src_offset, size_t bytes, cuabi_stream stream)
{
    return shaped_async(FAKE_E_cuMemcpyAtoHAsync_v2, &HOST_END(dst, bytes), &ARRAY_END(src, src_offset), ROW(bytes),
                        stream);
}


/* ---- Operations a graph's nodes hold ---- */

cuabi_result fake_copy3d_op(const struct fake_ctx *ctx, const cuabi_memcpy3d *p, struct fake_op **out)
{
    struct end dst, src;
    struct shape sh;
    struct fake_copy c;
    cuabi_result rc;

    *out = NULL;
    if (!p)
        return CUABI_ERROR_INVALID_VALUE;
    ends_3d(p, &dst, &src, &sh);
    if (shape_empty(&sh))
        return CUABI_SUCCESS;
    rc = shaped_make(ctx, ctx, dst, src, &sh, &c);
    if (rc == CUABI_SUCCESS && !(*out = fake_op_new(FAKE_OP_COPY, &copy_work)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS)
        (*out)->u.copy = c; /* host memory is read and written when the node runs, never staged */
    return rc;
}

cuabi_result fake_memset_op(const struct fake_ctx *ctx, const struct fake_memset *m, struct fake_op **out)
{
    cuabi_result rc = CUABI_SUCCESS;

    *out = NULL;
    if (m->size != 1 && m->size != 2 && m->size != 4)
        return CUABI_ERROR_INVALID_VALUE;
    if (!m->count)
        return CUABI_SUCCESS;
    rc = memset_check(ctx, m);
    if (rc == CUABI_SUCCESS && !(*out = fake_op_new(FAKE_OP_MEMSET, &memset_work)))
        rc = CUABI_ERROR_OUT_OF_MEMORY;
    if (rc == CUABI_SUCCESS)
        (*out)->u.memset = *m;
    return rc;
}
