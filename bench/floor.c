/* SPDX-License-Identifier: MIT */
/*
 * libbenchfloor (floor.h): each call of gpushim's hot path written as the
 * least a wrapper library can do, once plain and once with a thread-local
 * compare first. Built as a shared library with gpushim's flags
 * (bench/meson.build).
 */
#include "floor.h"

static struct floor_driver driver;
/* As gpushim's context cache was: global-dynamic, read through a TLS descriptor where built with gnu2. */
static _Thread_local void *cached_ctx __attribute__((tls_model("global-dynamic")));

void floor_init(const struct floor_driver *d, void *ctx)
{
    driver = *d;
    cached_ctx = ctx;
}

/* A failure's status, out of line as gpushim's is: the CUresult itself. */
static __attribute__((noinline, cold)) unsigned fail(unsigned rc)
{
    return rc;
}

#define CHECKED(call) \
    do { \
        unsigned rc_ = (call); \
        return rc_ ? fail(rc_) : 0; \
    } while (0)

/* A query's answer: 0 and *yes set for success or not ready (600), else the CUresult. */
#define QUERY(call, yes) \
    do { \
        unsigned rc_ = (call); \
        if (rc_ != 0 && rc_ != 600) \
            return fail(rc_); \
        *(yes) = rc_ == 0; \
        return 0; \
    } while (0)

#define NO_GUARD(obj)
#define TLS_GUARD(obj) \
    if (cached_ctx != (obj)->ctx) \
        return fail(999);

/* Every call's body once; GUARD comes before the driver call. */
#define FLOOR_BODIES(prefix, GUARD) \
    unsigned prefix##launch(const struct floor_object *stream, const struct floor_object *function, \
                            const gpu_launch_config *c, void **args) \
    { \
        GUARD(stream) \
        CHECKED(driver.launch(function->cu, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], \
                              c->block[2], c->shared_mem_bytes, stream->cu, args, NULL)); \
    } \
    unsigned prefix##record(const struct floor_object *stream, const struct floor_object *event) \
    { \
        GUARD(stream) \
        CHECKED(driver.record(event->cu, stream->cu)); \
    } \
    unsigned prefix##wait(const struct floor_object *stream, const struct floor_object *event) \
    { \
        GUARD(stream) \
        CHECKED(driver.wait(stream->cu, event->cu, 0)); \
    } \
    unsigned prefix##event_query(const struct floor_object *event, bool *done) \
    { \
        GUARD(event) \
        QUERY(driver.event_query(event->cu), done); \
    } \
    unsigned prefix##stream_query(const struct floor_object *stream, bool *idle) \
    { \
        GUARD(stream) \
        QUERY(driver.stream_query(stream->cu), idle); \
    } \
    unsigned prefix##h2d(const struct floor_object *buffer, const void *src, size_t bytes, \
                         const struct floor_object *stream) \
    { \
        GUARD(stream) \
        CHECKED(driver.h2d(buffer->ptr, src, bytes, stream->cu)); \
    } \
    unsigned prefix##d2h(const struct floor_object *buffer, void *dst, size_t bytes, \
                         const struct floor_object *stream) \
    { \
        GUARD(stream) \
        CHECKED(driver.d2h(dst, buffer->ptr, bytes, stream->cu)); \
    }

FLOOR_BODIES(floor_, NO_GUARD)
FLOOR_BODIES(floor_tls_, TLS_GUARD)
