/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's stream memory operations: cuStreamWriteValue32/64 and
 * cuStreamWaitValue32/64, whose waits hold their stream until the value is met.
 */
#include <string.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_memory.h"
#include "fake_stream.h"

/* The value at the operation's address, or false when it is not allocated memory. */
static bool value_read(const struct fake_op *op, uint64_t *v)
{
    struct fake_alloc *a = fake_alloc_find(op->u.value.addr, op->u.value.width);
    uint32_t v32;

    if (!a)
        return false;
    if (op->u.value.width == 4) {
        memcpy(&v32, a->data + (op->u.value.addr - a->addr), sizeof(v32));
        *v = v32;
    } else {
        memcpy(v, a->data + (op->u.value.addr - a->addr), sizeof(*v));
    }
    return true;
}

static bool value_met(const struct fake_op *op, uint64_t v)
{
    uint64_t want = op->u.value.value;
    uint64_t mask = op->u.value.width == 4 ? 0xffffffffull : ~0ull;

    switch (op->u.value.cond & 3u) {
    case CUABI_STREAM_WAIT_VALUE_GEQ:
        return op->u.value.width == 4 ? (int32_t)(uint32_t)(v - want) >= 0 : (int64_t)(v - want) >= 0;
    case CUABI_STREAM_WAIT_VALUE_EQ:
        return v == want;
    case CUABI_STREAM_WAIT_VALUE_AND:
        return (v & want) != 0;
    default:
        return (~(v | want) & mask) != 0;
    }
}

/* Whether the operation is a wait on a value not yet met: the stream cannot go on. */
static bool value_blocked(const struct fake_op *op)
{
    uint64_t v;

    /* Memory gone is not a wait: the operation runs, and faults. */
    return op && op->kind == FAKE_OP_WAIT_VALUE && value_read(op, &v) && !value_met(op, v);
}

/* Runs a WRITE_VALUE or WAIT_VALUE operation; false when it touched memory it may not. */
static bool value_run(struct fake_stream *s, const struct fake_op *op)
{
    struct fake_alloc *a;
    uint64_t v;

    switch (op->kind) {
    case FAKE_OP_WRITE_VALUE:
        a = fake_alloc_find(op->u.value.addr, op->u.value.width);
        if (!a)
            return false;
        if (op->u.value.width == 4) {
            uint32_t v32 = (uint32_t)op->u.value.value;

            memcpy(a->data + (op->u.value.addr - a->addr), &v32, sizeof(v32));
        } else {
            memcpy(a->data + (op->u.value.addr - a->addr), &op->u.value.value, sizeof(op->u.value.value));
        }
        fake_alloc_written(op->u.value.addr, op->u.value.width);
        /* A stream waiting on it in another thread may go on. */
        pthread_cond_broadcast(&fake.cond);
        return true;
    case FAKE_OP_WAIT_VALUE:
        return value_read(op, &v);
    default:
        return false;
    }
}

static const struct fake_work value_work = {.run = value_run, .blocked = value_blocked};

static cuabi_result value_op(enum fake_entry entry, enum fake_op_kind kind, cuabi_stream stream, cuabi_deviceptr addr,
                             uint64_t value, unsigned width, unsigned flags)
{
    cuabi_result rc = fake_begin(entry, true);
    struct fake_stream *s = NULL;
    struct fake_op *op = NULL;
    /* Writes: NO_MEMORY_BARRIER; waits: the four conditions and FLUSH. */
    unsigned allowed = kind == FAKE_OP_WRITE_VALUE ? 1u : 3u | (1u << 30);

    if (rc == CUABI_SUCCESS && ((flags & ~allowed) || addr % width))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_stream_for_work(stream, &s);
    if (rc == CUABI_SUCCESS) {
        struct fake_alloc *a = fake_alloc_find(addr, width);

        if (!a || !fake_ctx_reaches(s->ctx, a->device))
            rc = CUABI_ERROR_INVALID_VALUE;
        else if (!(op = fake_op_new(kind, &value_work)))
            rc = CUABI_ERROR_OUT_OF_MEMORY;
    }
    if (rc == CUABI_SUCCESS) {
        op->u.value.addr = addr;
        op->u.value.value = value;
        op->u.value.width = width;
        op->u.value.cond = flags;
        rc = fake_enqueue(s, op);
    }
    return fake_end(rc);
}

cuabi_result cuStreamWriteValue32_v2(cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint32 value, unsigned int flags)
{
    return value_op(FAKE_E_cuStreamWriteValue32_v2, FAKE_OP_WRITE_VALUE, stream, addr, value, 4, flags);
}

cuabi_result cuStreamWriteValue64_v2(cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint64 value, unsigned int flags)
{
    return value_op(FAKE_E_cuStreamWriteValue64_v2, FAKE_OP_WRITE_VALUE, stream, addr, value, 8, flags);
}

cuabi_result cuStreamWaitValue32_v2(cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint32 value, unsigned int flags)
{
    return value_op(FAKE_E_cuStreamWaitValue32_v2, FAKE_OP_WAIT_VALUE, stream, addr, value, 4, flags);
}

cuabi_result cuStreamWaitValue64_v2(cuabi_stream stream, cuabi_deviceptr addr, cuabi_uint64 value, unsigned int flags)
{
    return value_op(FAKE_E_cuStreamWaitValue64_v2, FAKE_OP_WAIT_VALUE, stream, addr, value, 8, flags);
}
