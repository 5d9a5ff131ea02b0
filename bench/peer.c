/* SPDX-License-Identifier: MIT */
/*
 * Peer copies: 256 MiB from device 0 to device 1 with gpu_buffer_copy_async
 * (cuMemcpyPeerAsync, direct where peer access is enabled), against the same
 * bytes staged through page-locked host memory: down to the host on device
 * 0's stream, synchronise, up to device 1 on its stream, synchronise. Each
 * copy is timed on the host from its first call to its last synchronise.
 *
 * Peer access is enabled both ways where gpu_device_can_access_peer allows it.
 * The source holds a pattern; each way's destination is cleared, copied once
 * and read back whole before any timing. The two ways alternate rep by rep,
 * and which goes first alternates too. Needs devices 0 and 1.
 *
 * Knobs: GPUSHIM_BENCH_REPS, GPUSHIM_BENCH_PEER_MIB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_REPS 64
#define SEED 2024u

struct copies {
    gpu_stream *s0, *s1;
    gpu_buffer *src;        /* device 0 */
    gpu_buffer *peer_dst;   /* device 1 */
    gpu_buffer *staged_dst; /* device 1 */
    gpu_host_buffer *host;  /* portable: both devices' streams use it */
    size_t bytes;
};

/* Seconds for one peer copy. */
static double peer_copy(const struct copies *c)
{
    uint64_t t0 = gpu_test_now_ns();

    BENCH_CHECK(gpu_buffer_copy_async(c->peer_dst, c->src, c->bytes, c->s1));
    BENCH_CHECK(gpu_stream_synchronize(c->s1));
    return (double)(gpu_test_now_ns() - t0) / 1e9;
}

/* Seconds for one copy staged through the host. */
static double staged_copy(const struct copies *c)
{
    void *host = gpu_host_buffer_get_data(c->host);
    uint64_t t0 = gpu_test_now_ns();

    BENCH_CHECK(gpu_buffer_copy_to_host_async(c->src, host, c->bytes, c->s0));
    BENCH_CHECK(gpu_stream_synchronize(c->s0));
    BENCH_CHECK(gpu_buffer_copy_from_host_async(c->staged_dst, host, c->bytes, c->s1));
    BENCH_CHECK(gpu_stream_synchronize(c->s1));
    return (double)(gpu_test_now_ns() - t0) / 1e9;
}

/* Words of `dst` that differ from the pattern, read back through the host buffer cleared first. */
static size_t wrong_words(const struct copies *c, gpu_buffer *dst)
{
    uint32_t *h = gpu_host_buffer_get_data(c->host);
    size_t n = c->bytes / 4, wrong = 0;

    memset(h, 0, c->bytes);
    BENCH_CHECK(gpu_buffer_copy_to_host_async(dst, h, c->bytes, c->s1));
    BENCH_CHECK(gpu_stream_synchronize(c->s1));
    for (size_t i = 0; i < n; i++)
        wrong += h[i] != work_input(SEED, (uint32_t)i);
    return wrong;
}

/* Whether device `from` may address `to`'s memory, enabling it if so. */
static bool enable_peer(gpu_context *ctx[2], int from)
{
    bool can = false;

    BENCH_CHECK(gpu_device_can_access_peer(from, 1 - from, &can));
    if (can)
        BENCH_CHECK(gpu_context_enable_peer_access(ctx[from], ctx[1 - from]));
    return can;
}

static double gbs(size_t bytes, double seconds)
{
    return (double)bytes / 1e9 / seconds;
}

int main(void)
{
    unsigned reps = gpu_test_env("GPUSHIM_BENCH_REPS", 15);
    unsigned mib = gpu_test_env("GPUSHIM_BENCH_PEER_MIB", 256);
    double peer_s[MAX_REPS], staged_s[MAX_REPS];
    gpu_context *ctx[2];
    struct copies c;
    uint32_t *h;
    bool can01, can10;
    size_t wrong_peer, wrong_staged;
    double peer, staged, peer_lo, peer_hi, staged_lo, staged_hi;
    int count = 0;
    gpu_status st;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    st = gpu_driver_load();
    if (st == GPU_OK)
        st = gpu_device_get_count(&count);
    if (st != GPU_OK) {
        printf("peer: skipped: fewer than 2 devices (none: %s: %s)\n", gpu_status_get_name(st), gpu_last_error_get_message());
        return BENCH_SKIP;
    }
    if (count < 2) {
        printf("peer: skipped: fewer than 2 devices (%d)\n", count);
        return BENCH_SKIP;
    }
    for (int d = 0; d < 2; d++) {
        gpu_device_info info;

        BENCH_CHECK(gpu_device_get_info(d, &info));
        printf("peer: device %d: %s (sm_%d%d), PCI %s\n", d, info.name, info.compute_major, info.compute_minor,
               info.pci_bus_id[0] ? info.pci_bus_id : "-");
        BENCH_CHECK(gpu_context_retain_primary(d, &ctx[d]));
    }
    can01 = enable_peer(ctx, 0);
    can10 = enable_peer(ctx, 1);

    memset(&c, 0, sizeof(c));
    c.bytes = (size_t)mib << 20;
    BENCH_CHECK(gpu_stream_create_non_blocking(ctx[0], &c.s0));
    BENCH_CHECK(gpu_stream_create_non_blocking(ctx[1], &c.s1));
    BENCH_CHECK(gpu_buffer_create(ctx[0], c.bytes, &c.src));
    BENCH_CHECK(gpu_buffer_create(ctx[1], c.bytes, &c.peer_dst));
    BENCH_CHECK(gpu_buffer_create(ctx[1], c.bytes, &c.staged_dst));
    BENCH_CHECK(gpu_host_buffer_create(ctx[0], c.bytes, &c.host));
    h = gpu_host_buffer_get_data(c.host);

    /* Zeroed destinations, so that a copy that did nothing cannot pass the check. */
    memset(h, 0, c.bytes);
    BENCH_CHECK(gpu_buffer_copy_from_host_async(c.peer_dst, h, c.bytes, c.s1));
    BENCH_CHECK(gpu_buffer_copy_from_host_async(c.staged_dst, h, c.bytes, c.s1));
    BENCH_CHECK(gpu_stream_synchronize(c.s1));
    for (size_t i = 0; i < c.bytes / 4; i++)
        h[i] = work_input(SEED, (uint32_t)i);
    BENCH_CHECK(gpu_buffer_copy_from_host_async(c.src, h, c.bytes, c.s0));
    BENCH_CHECK(gpu_stream_synchronize(c.s0));

    /* One of each, checked: also the warm-up. */
    peer_copy(&c);
    wrong_peer = wrong_words(&c, c.peer_dst);
    staged_copy(&c);
    wrong_staged = wrong_words(&c, c.staged_dst);
    printf("peer: data check: peer copy %zu wrong words, staged copy %zu wrong words, of %zu\n", wrong_peer,
           wrong_staged, c.bytes / 4);
    if (wrong_peer || wrong_staged) {
        printf("FAILED: a copy delivered wrong data\n");
        return 1;
    }

    for (unsigned r = 0; r < reps; r++) {
        if (r % 2)
            staged_s[r] = staged_copy(&c);
        peer_s[r] = peer_copy(&c);
        if (r % 2 == 0)
            staged_s[r] = staged_copy(&c);
    }
    peer_lo = gpu_test_min(peer_s, reps);
    peer_hi = gpu_test_max(peer_s, reps);
    staged_lo = gpu_test_min(staged_s, reps);
    staged_hi = gpu_test_max(staged_s, reps);
    peer = gbs(c.bytes, gpu_test_median(peer_s, reps));
    staged = gbs(c.bytes, gpu_test_median(staged_s, reps));

    printf("peer: device 0 -> device 1, %u MiB, %u reps; can_access 0->1 %s, 1->0 %s (enabled where yes)\n", mib, reps,
           can01 ? "yes" : "no", can10 ? "yes" : "no");
    printf("%-8s | %11s | %-19s\n", "copy", "median GB/s", "GB/s (min..max)");
    printf("%-8s | %11.2f | %.2f..%.2f\n", "peer", peer, gbs(c.bytes, peer_hi), gbs(c.bytes, peer_lo));
    printf("%-8s | %11.2f | %.2f..%.2f\n", "staged", staged, gbs(c.bytes, staged_hi), gbs(c.bytes, staged_lo));
    printf("PEER_BENCH peer_gbs=%.2f staged_gbs=%.2f ratio=%.3f mib=%u reps=%u can_access_01=%d can_access_10=%d\n",
           peer, staged, peer / staged, mib, reps, can01, can10);

    gpu_host_buffer_destroy(c.host);
    gpu_buffer_destroy(c.staged_dst);
    gpu_buffer_destroy(c.peer_dst);
    gpu_buffer_destroy(c.src);
    gpu_stream_destroy(c.s1);
    gpu_stream_destroy(c.s0);
    gpu_context_destroy(ctx[1]);
    gpu_context_destroy(ctx[0]);
    return 0;
}
