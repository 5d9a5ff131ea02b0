/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's copies and fills: synchronous ones on the legacy stream,
 * asynchronous ones queued on a stream, peer copies between devices.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"

bool fake_copy_run(const struct fake_copy *c)
{
    unsigned char *dst = c->dst ? fake_device_bytes(c->dst, c->bytes) : c->host_dst;
    const unsigned char *src = c->src ? fake_device_bytes(c->src, c->bytes) : c->host_src;

    if (!dst || !src)
        return false;
    memmove(dst, src, c->bytes);
    if (c->dst)
        fake_alloc_written(c->dst, c->bytes);
    return true;
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
static cuabi_result copy_sync(enum fake_entry entry, const struct fake_copy *copy)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_ctx *c = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && copy->bytes)
        rc = check_copy(c, copy);
    if (rc == CUABI_SUCCESS)
        rc = fake_legacy_sync(c);
    if (rc == CUABI_SUCCESS && copy->bytes && !fake_copy_run(copy))
        rc = CUABI_ERROR_INVALID_VALUE;
    return fake_end(rc);
}

/*
 * Queues a copy on a stream. The host side is read or written when the
 * stream reaches the copy, as for page-locked memory: the strictest reading
 * of the contract, so a client that reuses the memory too early is caught.
 */
static cuabi_result queue_copy(const struct fake_copy *copy, cuabi_stream stream)
{
    struct fake_stream *s = NULL;
    struct fake_op *op;
    cuabi_result rc = fake_stream_for_work(stream, &s);

    if (rc == CUABI_SUCCESS && !copy->peer)
        rc = check_copy(s->ctx, copy);
    if (rc != CUABI_SUCCESS || copy->bytes == 0)
        return rc;
    op = fake_op_new(FAKE_OP_COPY);
    if (!op)
        return CUABI_ERROR_OUT_OF_MEMORY;
    op->u.copy = *copy;
    return fake_enqueue(s, op);
}

static cuabi_result copy_async(enum fake_entry entry, const struct fake_copy *copy, cuabi_stream stream)
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

bool fake_memset_run(const struct fake_memset *m)
{
    size_t span = memset_span(m);
    struct fake_alloc *a = span != SIZE_MAX ? fake_alloc_find(m->dst, span) : NULL;
    unsigned char *p;

    if (!a)
        return false;
    p = a->data + (m->dst - a->addr);
    for (size_t r = 0; r < (m->rows ? m->rows : 1); r++, p += m->pitch) {
        for (size_t i = 0; i < m->count; i++)
            memcpy(p + i * m->size, &m->value, m->size); /* little-endian, as the GPU is */
        fake_alloc_written(m->dst + r * m->pitch, m->count * m->size);
    }
    return true;
}

/* A fill's memory: allocated, aligned to its elements and reachable from `ctx`. */
static cuabi_result memset_check(const struct fake_ctx *ctx, const struct fake_memset *m)
{
    struct fake_alloc *a;

    if (m->dst % m->size || (m->rows > 1 && m->pitch % m->size))
        return CUABI_ERROR_INVALID_VALUE;
    a = memset_span(m) != SIZE_MAX ? fake_alloc_find(m->dst, memset_span(m)) : NULL;
    if (!a || !fake_ctx_reaches(ctx, a->device))
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
    if (rc == CUABI_SUCCESS && m->count && !fake_memset_run(m))
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
        op = fake_op_new(FAKE_OP_MEMSET);
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
