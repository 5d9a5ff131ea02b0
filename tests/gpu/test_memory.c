/* SPDX-License-Identifier: MIT */
/*
 * Memory and interop on the GPU: stream-ordered allocation and the
 * pool's threshold and trim, what a pointer is and a view over it, memory
 * info, managed memory (small, and never more than the device has free),
 * stream priorities, and stream memory operations (a stream held by a
 * wait-value, released by another stream's write). Every check is by data.
 * Figures on lines starting "MEMORY ".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

enum { N = 1 << 16 };
#define BYTES ((size_t)N * sizeof(uint32_t))

static uint32_t host[N];

static void expect_all(const uint32_t *v, uint32_t n, uint32_t want)
{
    uint32_t bad = 0;

    for (uint32_t i = 0; i < n; i++)
        bad += v[i] != want;
    if (bad)
        fail_msg("%u of %u words are not 0x%x (the first is 0x%x)", bad, n, want, v[0]);
}

static void stream_ordered(void **state)
{
    gpu_stream *s;
    gpu_host_buffer *h;
    uint64_t reserved = 0, used = 1;

    (void)state;
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_host_buffer_create(NULL, BYTES, &h));
    for (uint32_t round = 0; round < 8; round++) {
        gpu_buffer *b;

        assert_gpu_ok(gpu_buffer_create_async(s, BYTES, &b));
        assert_gpu_ok(gpu_test_launch_fill(s, b, 0x1000 + round, N));
        assert_gpu_ok(gpu_buffer_copy_to_host_async(b, gpu_host_buffer_get_data(h), BYTES, s));
        assert_gpu_ok(gpu_buffer_destroy_async(b, s));
        assert_gpu_ok(gpu_stream_synchronize(s));
        expect_all(gpu_host_buffer_get_data(h), N, 0x1000 + round);
    }
    assert_gpu_ok(gpu_context_pool_get_usage(NULL, &reserved, &used));
    printf("MEMORY pool after 8 alloc/fill/free rounds (threshold 0): reserved=%llu used=%llu\n",
           (unsigned long long)reserved, (unsigned long long)used);
    assert_int_equal(used, 0);
    /* A threshold keeps what was freed; a trim gives it back. */
    assert_gpu_ok(gpu_context_pool_set_release_threshold(NULL, 64u << 20));
    {
        gpu_buffer *b;
        uint64_t t = 0;

        assert_gpu_ok(gpu_context_pool_get_release_threshold(NULL, &t));
        assert_int_equal(t, 64u << 20);
        assert_gpu_ok(gpu_buffer_create_async(s, BYTES, &b));
        assert_gpu_ok(gpu_buffer_destroy_async(b, s));
        assert_gpu_ok(gpu_stream_synchronize(s));
    }
    assert_gpu_ok(gpu_context_pool_get_usage(NULL, &reserved, &used));
    printf("MEMORY pool with a 64 MiB threshold after a free: reserved=%llu used=%llu\n",
           (unsigned long long)reserved, (unsigned long long)used);
    assert_true(reserved >= BYTES);
    assert_gpu_ok(gpu_context_pool_trim(NULL, 0));
    assert_gpu_ok(gpu_context_pool_get_usage(NULL, &reserved, &used));
    printf("MEMORY pool after trim(0): reserved=%llu used=%llu\n", (unsigned long long)reserved,
           (unsigned long long)used);
    assert_int_equal(reserved, 0);
    assert_gpu_ok(gpu_context_pool_set_release_threshold(NULL, 0));
    gpu_host_buffer_destroy(h);
    gpu_stream_destroy(s);
}

static void pointers_and_views(void **state)
{
    gpu_context *ctx;
    gpu_pointer_info info;
    gpu_buffer *b, *view;
    gpu_host_buffer *h;
    gpu_stream *s;
    int on_stack = 0;

    (void)state;
    assert_gpu_ok(gpu_context_retain_primary(0, &ctx));
    assert_gpu_ok(gpu_buffer_create(ctx, BYTES, &b));
    assert_gpu_ok(gpu_pointer_get_info(gpu_buffer_get_device_ptr(b) + 4096, &info));
    printf("MEMORY pointer info of a gpushim buffer: type=%d device=%d managed=%d context=%s base=+%lld size=%zu\n",
           (int)info.type, info.device, (int)info.managed, info.context == gpu_context_get_raw(ctx) ? "ours" : "OTHER",
           (long long)(info.base - gpu_buffer_get_device_ptr(b)), info.size);
    assert_int_equal(info.type, GPU_MEMORY_DEVICE);
    assert_int_equal(info.device, 0);
    assert_false(info.managed);
    assert_ptr_equal(info.context, gpu_context_get_raw(ctx));
    assert_int_equal(info.base, gpu_buffer_get_device_ptr(b));
    assert_true(info.size >= BYTES);
    assert_gpu_ok(gpu_host_buffer_create(ctx, 4096, &h));
    assert_gpu_ok(gpu_pointer_get_info((uintptr_t)gpu_host_buffer_get_data(h), &info));
    assert_int_equal(info.type, GPU_MEMORY_HOST);
    assert_gpu_ok(gpu_pointer_get_info((uintptr_t)&on_stack, &info));
    assert_int_equal(info.type, GPU_MEMORY_UNKNOWN);

    /* A view of the second half: written through it, read back through the owner. */
    assert_gpu_ok(gpu_buffer_wrap(ctx, gpu_buffer_get_device_ptr(b) + BYTES / 2, BYTES / 2, &view));
    assert_false(gpu_buffer_is_owner(view));
    assert_gpu_ok(gpu_stream_create_non_blocking(ctx, &s));
    assert_gpu_ok(gpu_test_launch_fill(s, b, 1, N));
    assert_gpu_ok(gpu_test_launch_fill(s, view, 2, N / 2));
    assert_gpu_ok(gpu_stream_synchronize(s));
    gpu_buffer_destroy(view);
    assert_gpu_ok(gpu_buffer_copy_to_host(b, host, BYTES));
    expect_all(host, N / 2, 1);
    expect_all(host + N / 2, N / 2, 2);
    assert_gpu_status(gpu_buffer_wrap(ctx, gpu_buffer_get_device_ptr(b) + BYTES - 4, 8, &view), GPU_ERR_INVALID_ARG);
    assert_gpu_status(gpu_buffer_wrap(ctx, (uintptr_t)&on_stack, 4, &view), GPU_ERR_INVALID_ARG);
    printf("MEMORY view over another allocation: written through the view, read through the owner: correct\n");
    gpu_stream_destroy(s);
    gpu_host_buffer_destroy(h);
    gpu_buffer_destroy(b);
    gpu_context_destroy(ctx);
}

static void memory_info(void **state)
{
    size_t free0, total0, free1, total1;
    gpu_buffer *b;

    (void)state;
    assert_gpu_ok(gpu_context_get_memory_info(NULL, &free0, &total0));
    assert_gpu_ok(gpu_buffer_create(NULL, (size_t)256 << 20, &b));
    assert_gpu_ok(gpu_context_get_memory_info(NULL, &free1, &total1));
    gpu_buffer_destroy(b);
    printf("MEMORY info: total=%zu MiB free=%zu MiB, %zu MiB less after a 256 MiB buffer\n", total0 >> 20,
           free0 >> 20, (free0 - free1) >> 20);
    assert_int_equal(total0, total1);
    assert_true(free0 <= total0);
    assert_true(free0 - free1 >= ((size_t)255 << 20));
}

static void managed(void **state)
{
    enum { M = 1 << 18 };
    size_t free_bytes, total;
    gpu_pointer_info info;
    gpu_buffer *m;
    gpu_stream *s;
    uint32_t *data;
    gpu_status st;

    (void)state;
    assert_gpu_ok(gpu_context_get_memory_info(NULL, &free_bytes, &total));
    /* One MiB, far below what any device has free; checked all the same. */
    assert_true((size_t)M * sizeof(uint32_t) < free_bytes / 4);
    st = gpu_buffer_create_managed(NULL, (size_t)M * sizeof(uint32_t), &m);
    if (st == GPU_ERR_NOT_SUPPORTED) {
        printf("MEMORY managed: not supported here: %s\n", gpu_last_error_get_message());
        return;
    }
    assert_gpu_ok(st);
    data = gpu_buffer_get_managed_data(m);
    assert_non_null(data);
    for (uint32_t i = 0; i < M; i++)
        data[i] = i;
    assert_gpu_ok(gpu_pointer_get_info(gpu_buffer_get_device_ptr(m), &info));
    assert_true(info.managed);
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_buffer_advise(m, GPU_ADVISE_SET_PREFERRED_LOCATION, GPU_LOCATION_DEVICE));
    assert_gpu_ok(gpu_buffer_advise(m, GPU_ADVISE_SET_ACCESSED_BY, GPU_LOCATION_HOST));
    assert_gpu_ok(gpu_buffer_prefetch_async(m, GPU_LOCATION_DEVICE, s));
    {
        uint64_t p = gpu_buffer_get_device_ptr(m);
        uint32_t n = M;
        void *args[] = {&p, &n};
        gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(M), KERNEL_BLOCK);

        assert_gpu_ok(gpu_stream_launch_kernel(s, gpu_test_module(), KERNEL_ADD_ONE, &config, args));
    }
    assert_gpu_ok(gpu_buffer_prefetch_async(m, GPU_LOCATION_HOST, s));
    assert_gpu_ok(gpu_stream_synchronize(s));
    for (uint32_t i = 0; i < M; i++)
        if (data[i] != i + 1)
            fail_msg("managed word %u is %u, not %u", i, data[i], i + 1);
    assert_gpu_ok(gpu_buffer_advise(m, GPU_ADVISE_UNSET_PREFERRED_LOCATION, GPU_LOCATION_DEVICE));
    printf("MEMORY managed: %d MiB, host writes, prefetch to device, add_one, prefetch to host, host reads: "
           "correct\n", (int)(((size_t)M * sizeof(uint32_t)) >> 20));
    gpu_stream_destroy(s);
    gpu_buffer_destroy(m);
}

static void priorities(void **state)
{
    int least = 1, greatest = 1, p = 1;
    gpu_stream *hi, *lo;
    gpu_buffer *b;

    (void)state;
    assert_gpu_ok(gpu_context_get_stream_priority_range(NULL, &least, &greatest));
    printf("MEMORY stream priorities: least=%d greatest=%d\n", least, greatest);
    assert_true(greatest <= least);
    assert_gpu_ok(gpu_stream_create_with_priority(NULL, GPU_STREAM_NON_BLOCKING, greatest, &hi));
    assert_gpu_ok(gpu_stream_create_with_priority(NULL, GPU_STREAM_NON_BLOCKING, least, &lo));
    assert_gpu_ok(gpu_stream_get_priority(hi, &p));
    assert_int_equal(p, greatest);
    assert_gpu_ok(gpu_stream_get_priority(lo, &p));
    assert_int_equal(p, least);
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &b));
    assert_gpu_ok(gpu_test_launch_fill(hi, b, 77, N));
    assert_gpu_ok(gpu_stream_synchronize(hi));
    assert_gpu_ok(gpu_buffer_copy_to_host_async(b, host, BYTES, lo));
    assert_gpu_ok(gpu_stream_synchronize(lo));
    expect_all(host, N, 77);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(lo);
    gpu_stream_destroy(hi);
}

/* Polls the stream until idle or `ms` pass; whether it went idle. */
static bool idle_within(gpu_stream *s, unsigned ms)
{
    uint64_t end = gpu_test_now_ns() + (uint64_t)ms * 1000000u;
    bool idle = false;

    while (!idle && gpu_test_now_ns() < end) {
        assert_gpu_ok(gpu_stream_is_complete(s, &idle));
        if (!idle)
            nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    return idle;
}

static void wait_value_released_by_write(void **state)
{
    gpu_stream *waiter, *writer;
    gpu_buffer *flags, *data;
    bool idle = true;
    uint64_t t0, held_ns;
    gpu_status st;

    (void)state;
    assert_gpu_ok(gpu_buffer_create(NULL, 16, &flags));
    assert_gpu_ok(gpu_buffer_create(NULL, BYTES, &data));
    assert_gpu_ok(gpu_buffer_copy_from_host(flags, (uint64_t[2]){0, 0}, 16));
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &waiter));
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &writer));
    assert_gpu_ok(gpu_test_launch_fill(waiter, data, 0, N));
    st = gpu_stream_wait_value32(waiter, flags, 0, 1, GPU_WAIT_GEQ);
    if (st == GPU_ERR_NOT_SUPPORTED) {
        printf("MEMORY memops: not supported here: %s\n", gpu_last_error_get_message());
        return;
    }
    assert_gpu_ok(st);
    assert_gpu_ok(gpu_stream_wait_value64(waiter, flags, 8, 0x100000002ull, GPU_WAIT_EQ));
    assert_gpu_ok(gpu_test_launch_fill(waiter, data, 5, N));
    /* Held: 50 ms later the waiter has still not run its fill. */
    t0 = gpu_test_now_ns();
    assert_false(idle_within(waiter, 50));
    assert_gpu_ok(gpu_stream_is_complete(waiter, &idle));
    assert_false(idle);
    /* One write is not enough (the 64-bit wait is for another value), the second releases it. */
    assert_gpu_ok(gpu_stream_write_value32(writer, flags, 0, 1));
    assert_gpu_ok(gpu_stream_write_value64(writer, flags, 8, 0x100000001ull));
    assert_gpu_ok(gpu_stream_synchronize(writer));
    assert_false(idle_within(waiter, 20));
    assert_gpu_ok(gpu_stream_write_value64(writer, flags, 8, 0x100000002ull));
    assert_true(idle_within(waiter, 5000));
    held_ns = gpu_test_now_ns() - t0;
    assert_gpu_ok(gpu_stream_synchronize(waiter));
    assert_gpu_ok(gpu_buffer_copy_to_host(data, host, BYTES));
    expect_all(host, N, 5);
    printf("MEMORY memops: a stream held by wait-value32 and wait-value64 for %.1f ms, released by another "
           "stream's write-value64: data correct\n", (double)held_ns / 1e6);
    gpu_stream_destroy(writer);
    gpu_stream_destroy(waiter);
    gpu_buffer_destroy(data);
    gpu_buffer_destroy(flags);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stream_ordered),
        cmocka_unit_test(pointers_and_views),
        cmocka_unit_test(memory_info),
        cmocka_unit_test(managed),
        cmocka_unit_test(priorities),
        cmocka_unit_test(wait_value_released_by_write),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-memory");

    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
