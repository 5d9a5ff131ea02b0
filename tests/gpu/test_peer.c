/* SPDX-License-Identifier: MIT */
/*
 * Two devices: what each is, peer access between them, peer copies both ways,
 * an event of device 0 ordering work on device 1, and the calls that must
 * refuse an object of the other device. Needs devices 0 and 1; skipped (77)
 * with fewer.
 *
 * Every copy is checked by data: the destination is filled with a sentinel
 * first and read back whole, so a copy that did not happen, or stopped short,
 * is seen. The cross-device wait is checked as in test_events.c: the producer
 * writes after a spin, and a consumer that waits on its event must see the new
 * values; the same consumer without the wait is a control, printed only.
 *
 * A module belongs to a context: device 0 uses the harness's module, device 1
 * loads its own from the same PTX. Lines starting "PEER " are for machines.
 * Knobs: GPUSHIM_PEER_N (words a buffer), GPUSHIM_SPIN_MS.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SENTINEL 0xffffffffu

static gpu_context *contexts[2];
static gpu_module *modules[2];
static bool peer_on; /* peer access enabled both ways by devices_and_peer_access */

static uint32_t words(void)
{
    return gpu_test_env("GPUSHIM_PEER_N", 1u << 20);
}

static uint64_t spin_ns(void)
{
    return (uint64_t)gpu_test_env("GPUSHIM_SPIN_MS", 100) * 1000000u;
}

/* The harness's launch helpers use device 0's module; this one takes the module of the stream's device. */
static gpu_status launch_fill(gpu_module *module, gpu_stream *stream, gpu_buffer *dst, uint32_t value, uint32_t n)
{
    uint64_t p = gpu_buffer_get_device_ptr(dst);
    void *args[] = {&p, &value, &n};
    gpu_launch_config config = gpu_launch_config_1d(kernel_blocks(n), KERNEL_BLOCK);

    return gpu_stream_launch_kernel(stream, module, KERNEL_FILL, &config, args);
}

static uint32_t count_equal(const uint32_t *v, uint32_t n, uint32_t value)
{
    uint32_t equal = 0;

    for (uint32_t i = 0; i < n; i++)
        equal += v[i] == value;
    return equal;
}

static int setup(void **state)
{
    gpu_status st;

    (void)state;
    for (int d = 0; d < 2; d++) {
        st = gpu_context_retain_primary(d, &contexts[d]);
        if (st != GPU_OK) {
            printf("FAIL gpu_context_retain_primary(%d): %s: %s\n", d, gpu_status_get_name(st), gpu_last_error_get_message());
            return -1;
        }
    }
    /* The harness loaded its module into device 0's primary context, which contexts[0] shares. */
    modules[0] = gpu_test_module();
    st = gpu_module_load_file(contexts[1], gpu_test_ptx_path(), &modules[1]);
    if (st != GPU_OK) {
        printf("FAIL cannot load %s on device 1 (%s): %s\n", gpu_test_ptx_path(), gpu_status_get_name(st),
               gpu_last_error_get_message());
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gpu_module_destroy(modules[1]);
    gpu_context_destroy(contexts[1]);
    gpu_context_destroy(contexts[0]);
    return 0;
}

static void devices_and_peer_access(void **state)
{
    bool can[2] = {false, false};

    (void)state;
    for (int d = 0; d < 2; d++) {
        gpu_device_info info;

        assert_gpu_ok(gpu_device_get_info(d, &info));
        printf("PEER device=%d name=\"%s\" pci=%s sm=%d%d memory=%zu\n", d, info.name,
               info.pci_bus_id[0] ? info.pci_bus_id : "-", info.compute_major, info.compute_minor, info.total_memory);
    }
    for (int d = 0; d < 2; d++) {
        assert_gpu_ok(gpu_device_can_access_peer(d, 1 - d, &can[d]));
        printf("PEER can_access from=%d to=%d result=%s\n", d, 1 - d, can[d] ? "yes" : "no");
    }
    for (int d = 0; d < 2; d++) {
        if (!can[d]) {
            printf("PEER enable from=%d to=%d result=skipped (no peer access: copies are staged by the driver)\n", d,
                   1 - d);
            continue;
        }
        /* Twice: the second call finds access enabled, which must be success too. */
        assert_gpu_ok(gpu_context_enable_peer_access(contexts[d], contexts[1 - d]));
        assert_gpu_ok(gpu_context_enable_peer_access(contexts[d], contexts[1 - d]));
        printf("PEER enable from=%d to=%d result=ok\n", d, 1 - d);
    }
    peer_on = can[0] && can[1];
}

/* One device's part: a stream and a buffer of its own, filled with `value` by its own module. */
struct filler {
    pthread_t thread;
    int device;
    uint32_t value;
    uint32_t n;
    gpu_stream *stream;
    gpu_buffer *buffer;
    gpu_test_error error;
};

static void *filler_main(void *arg)
{
    struct filler *f = arg;
    gpu_test_error *e = &f->error;
    gpu_context *ctx = contexts[f->device];

    if (gpu_test_ok(e, gpu_stream_create_non_blocking(ctx, &f->stream), "gpu_stream_create_non_blocking") &&
        gpu_test_ok(e, gpu_buffer_create(ctx, (size_t)f->n * 4, &f->buffer), "gpu_buffer_create") &&
        gpu_test_ok(e, launch_fill(modules[f->device], f->stream, f->buffer, f->value, f->n), "launch fill"))
        gpu_test_ok(e, gpu_stream_synchronize(f->stream), "gpu_stream_synchronize");
    return NULL;
}

static void fill_per_thread_then_copy_both_ways(void **state)
{
    uint32_t n = words();
    size_t bytes = (size_t)n * 4;
    uint32_t seed = (uint32_t)(gpu_test_now_ns() & 0xffffu);
    struct filler f[2];
    gpu_buffer *copy[2];
    gpu_host_buffer *host[2];

    (void)state;
    memset(f, 0, sizeof(f));
    for (int d = 0; d < 2; d++) {
        f[d].device = d;
        f[d].value = (0xa0000000u + ((uint32_t)d << 24)) ^ seed;
        f[d].n = n;
        assert_int_equal(pthread_create(&f[d].thread, NULL, filler_main, &f[d]), 0);
    }
    for (int d = 0; d < 2; d++)
        assert_int_equal(pthread_join(f[d].thread, NULL), 0);
    for (int d = 0; d < 2; d++)
        assert_no_worker_error(&f[d].error);

    /*
     * copy[d] lives on device d and receives the other device's buffer, on
     * device d's stream: the stream must be the destination's. Both copies are
     * queued before either is waited for, so the two directions overlap.
     */
    for (int d = 0; d < 2; d++) {
        assert_gpu_ok(gpu_buffer_create(contexts[d], bytes, &copy[d]));
        assert_gpu_ok(gpu_host_buffer_create(contexts[d], bytes, &host[d]));
        memset(gpu_host_buffer_get_data(host[d]), 0, bytes);
        assert_gpu_ok(launch_fill(modules[d], f[d].stream, copy[d], SENTINEL, n));
        assert_gpu_ok(gpu_buffer_copy_async(copy[d], f[1 - d].buffer, bytes, f[d].stream));
        assert_gpu_ok(gpu_buffer_copy_to_host_async(copy[d], gpu_host_buffer_get_data(host[d]), bytes, f[d].stream));
    }
    for (int d = 0; d < 2; d++)
        assert_gpu_ok(gpu_stream_synchronize(f[d].stream));
    for (int d = 0; d < 2; d++) {
        uint32_t right = count_equal(gpu_host_buffer_get_data(host[d]), n, f[1 - d].value);

        printf("PEER copy from=%d to=%d n=%u wrong=%u peer_access=%s\n", 1 - d, d, n, n - right,
               peer_on ? "on" : "off");
        assert_int_equal(right, n);
    }
    for (int d = 0; d < 2; d++) {
        gpu_host_buffer_destroy(host[d]);
        gpu_buffer_destroy(copy[d]);
        gpu_buffer_destroy(f[d].buffer);
        gpu_stream_destroy(f[d].stream);
    }
}

/*
 * Producer on device 0: spin, fill `shared` with `value`, record `ready`.
 * Consumer on device 1: (wait on `ready`), peer-copy `shared` into its own
 * buffer, copy that to the host. Returns how many of the n words it saw equal
 * to `value`.
 */
static uint32_t produce_consume(bool wait, uint32_t value, uint32_t n)
{
    size_t bytes = (size_t)n * 4;
    gpu_stream *producer, *consumer;
    gpu_event *ready;
    gpu_buffer *shared, *seen;
    gpu_host_buffer *host;
    uint32_t *out;
    uint32_t matches;

    assert_gpu_ok(gpu_stream_create_non_blocking(contexts[0], &producer));
    assert_gpu_ok(gpu_stream_create_non_blocking(contexts[1], &consumer));
    assert_gpu_ok(gpu_event_create(contexts[0], &ready));
    assert_gpu_ok(gpu_buffer_create(contexts[0], bytes, &shared));
    assert_gpu_ok(gpu_buffer_create(contexts[1], bytes, &seen));
    assert_gpu_ok(gpu_host_buffer_create(contexts[1], bytes, &host));
    out = gpu_host_buffer_get_data(host);
    memset(out, 0, bytes);
    /* The old values are in place before the producer starts, so a consumer that does not wait reads them. */
    assert_gpu_ok(gpu_test_launch_fill(producer, shared, SENTINEL, n));
    assert_gpu_ok(gpu_stream_synchronize(producer));

    assert_gpu_ok(gpu_test_launch_spin(producer, spin_ns()));
    assert_gpu_ok(gpu_test_launch_fill(producer, shared, value, n));
    assert_gpu_ok(gpu_stream_record_event(producer, ready));
    if (wait)
        assert_gpu_ok(gpu_stream_wait_event(consumer, ready));
    assert_gpu_ok(gpu_buffer_copy_async(seen, shared, bytes, consumer));
    assert_gpu_ok(gpu_buffer_copy_to_host_async(seen, out, bytes, consumer));
    assert_gpu_ok(gpu_stream_synchronize(consumer));
    matches = count_equal(out, n, value);
    assert_gpu_ok(gpu_stream_synchronize(producer));

    gpu_host_buffer_destroy(host);
    gpu_buffer_destroy(seen);
    gpu_buffer_destroy(shared);
    gpu_event_destroy(ready);
    gpu_stream_destroy(consumer);
    gpu_stream_destroy(producer);
    return matches;
}

static void event_of_device0_orders_device1(void **state)
{
    uint32_t n = words();
    uint32_t value = 0x5eed0000u ^ (uint32_t)(gpu_test_now_ns() & 0xffffu);
    uint32_t control, ordered;

    (void)state;
    control = produce_consume(false, value, n);
    ordered = produce_consume(true, value ^ 0x00ff00ffu, n);
    printf("PEER event_wait n=%u spin_ms=%.0f without_wait_saw_new=%u with_wait_saw_new=%u peer_access=%s\n", n,
           (double)spin_ns() / 1e6, control, ordered, peer_on ? "on" : "off");
    assert_int_equal(ordered, n);
}

/* The call must be refused as an argument error; prints what gpushim said. */
#define WRONG_DEVICE(name, call) \
    do { \
        gpu_status st_ = (call); \
        printf("PEER wrong_device case=%s status=%s error=\"%s\"\n", name, gpu_status_get_name(st_), \
               st_ == GPU_OK ? "" : gpu_last_error_get_message()); \
        if (st_ != GPU_ERR_INVALID_ARG) \
            fail_msg("%s returned %s, expected GPU_ERR_INVALID_ARG", #call, gpu_status_get_name(st_)); \
    } while (0)

static void other_device_objects_are_invalid_arg(void **state)
{
    uint32_t host[64];
    gpu_stream *s1;
    gpu_event *e0;
    gpu_buffer *b0;
    gpu_function *f0;
    gpu_launch_config config = gpu_launch_config_1d(1, 1);

    (void)state;
    memset(host, 0, sizeof(host));
    assert_gpu_ok(gpu_stream_create_non_blocking(contexts[1], &s1));
    assert_gpu_ok(gpu_event_create(contexts[0], &e0));
    assert_gpu_ok(gpu_buffer_create(contexts[0], sizeof(host), &b0));
    /* The empty kernel: should a launch get through by mistake, it writes nothing. */
    assert_gpu_ok(gpu_module_get_function(modules[0], KERNEL_EMPTY, &f0));

    WRONG_DEVICE("copy_from_host_async", gpu_buffer_copy_from_host_async(b0, host, sizeof(host), s1));
    WRONG_DEVICE("record_event", gpu_stream_record_event(s1, e0));
    WRONG_DEVICE("launch_function", gpu_stream_launch_function(s1, f0, &config, NULL));
    WRONG_DEVICE("launch_kernel", gpu_stream_launch_kernel(s1, modules[0], KERNEL_EMPTY, &config, NULL));
    /* Refused calls queue nothing: the stream still works. */
    assert_gpu_ok(gpu_stream_synchronize(s1));

    gpu_buffer_destroy(b0);
    gpu_event_destroy(e0);
    gpu_stream_destroy(s1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(devices_and_peer_access),
        cmocka_unit_test(fill_per_thread_then_copy_both_ways),
        cmocka_unit_test(event_of_device0_orders_device1),
        cmocka_unit_test(other_device_objects_are_invalid_arg),
    };
    const char *program = argc > 0 ? argv[0] : "gpu-peer";
    int count = 0;
    int rc;

    /* Without a driver gpu_test_start() says so and skips; with one, two devices are needed first. */
    if (gpu_driver_load() == GPU_OK && gpu_device_get_count(&count) == GPU_OK && count < 2) {
        printf("SKIP %s: %d CUDA device%s, the peer tests need 2\n", program, count, count == 1 ? "" : "s");
        return GPU_TEST_SKIP;
    }
    rc = gpu_test_start(program);
    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, setup, teardown);
}
