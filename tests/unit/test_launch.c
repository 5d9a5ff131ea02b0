/* SPDX-License-Identifier: MIT */
/*
 * The launch configuration's checks against CUDA's limits, written plainly:
 * gpu_launch_config_check() (the public one, with its messages), and the
 * forms the launch's hot path takes (launch_ex.h), every one of which must
 * agree with the limits on every configuration tried. No driver.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "launch_ex.h"

/* The limits as CUDA states them, written plainly. */
static bool dims_allowed(const unsigned grid[3], const unsigned block[3])
{
    static const unsigned grid_max[3] = {2147483647u, 65535, 65535}, block_max[3] = {1024, 1024, 64};
    unsigned long long threads = 1;

    for (int i = 0; i < 3; i++) {
        if (grid[i] < 1 || grid[i] > grid_max[i] || block[i] < 1 || block[i] > block_max[i])
            return false;
        threads *= block[i];
    }
    return threads <= 1024;
}

/* What the hot path may launch: dimensions within the limits, 48 KiB of shared memory at most, nothing extended. */
static bool plain_allowed(const gpu_launch_config *c)
{
    return dims_allowed(c->grid, c->block) && c->shared_mem_bytes <= 48u * 1024u && c->cluster[0] == 0 &&
           c->cluster[1] == 0 && c->cluster[2] == 0 && !c->cooperative && !c->programmatic_serialization &&
           c->priority == 0;
}

/* A configuration with every byte, padding included, set to `fill` first: the checks must not read padding. */
static gpu_launch_config config_over(unsigned char fill)
{
    gpu_launch_config c;

    memset(&c, fill, sizeof(c));
    c.grid[0] = c.grid[1] = c.grid[2] = 1;
    c.block[0] = c.block[1] = c.block[2] = 1;
    c.shared_mem_bytes = 0;
    c.cluster[0] = c.cluster[1] = c.cluster[2] = 0;
    c.cooperative = false;
    c.programmatic_serialization = false;
    c.priority = 0;
    return c;
}

/* Each check on `c` against the plain rules; fails naming the configuration and the check that disagrees. */
static void expect(const gpu_launch_config *c)
{
    bool dims = dims_allowed(c->grid, c->block), plain = plain_allowed(c);
    bool extended = c->cluster[0] || c->cluster[1] || c->cluster[2] || c->cooperative ||
                    c->programmatic_serialization || c->priority;

    if (!extended && (gpu_launch_config_check(c) == GPU_OK) != dims)
        fail_msg("grid %u %u %u block %u %u %u: gpu_launch_config_check says %s", c->grid[0], c->grid[1], c->grid[2],
                 c->block[0], c->block[1], c->block[2], dims ? "no" : "yes");
    if (gpu__launch_config_plain_scalar(c) != plain)
        fail_msg("grid %u %u %u block %u %u %u shared %u: the plain form says %s", c->grid[0], c->grid[1], c->grid[2],
                 c->block[0], c->block[1], c->block[2], c->shared_mem_bytes, plain ? "no" : "yes");
    if (gpu__launch_config_plain(c) != plain)
        fail_msg("grid %u %u %u block %u %u %u shared %u cluster %u %u %u flags %d %d priority %d: the hot path's "
                 "check says %s",
                 c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2], c->shared_mem_bytes,
                 c->cluster[0], c->cluster[1], c->cluster[2], c->cooperative, c->programmatic_serialization,
                 c->priority, plain ? "no" : "yes");
}

static const unsigned edge[] = {0,    1,     2,     63,    64,          65,          1023,       1024, 1025,
                                2047, 2048,  65535, 65536, 2147483647u, 2147483648u, 4294967295u};
#define EDGES (sizeof(edge) / sizeof(edge[0]))

/* Every pair of the six dimensions over values at and around each limit and bit boundary. */
static void dimensions_agree_with_cuda(void **state)
{
    unsigned long checked = 0;

    (void)state;
    for (int a = 0; a < 6; a++)
        for (int b = a; b < 6; b++)
            for (size_t i = 0; i < EDGES; i++)
                for (size_t j = 0; j < EDGES; j++) {
                    gpu_launch_config c = config_over(i % 2 ? 0xff : 0);
                    unsigned *dim[6] = {&c.grid[0], &c.grid[1], &c.grid[2], &c.block[0], &c.block[1], &c.block[2]};

                    *dim[a] = edge[i];
                    *dim[b] = edge[j];
                    expect(&c);
                    checked++;
                }
    assert_int_equal(checked, 21 * EDGES * EDGES);
}

/* Every block of three factors whose products fall at and around 1024 threads (1025 = 25 * 41, 1056 = 32 * 33). */
static void block_products_agree_with_cuda(void **state)
{
    static const unsigned factor[] = {1, 2, 3, 5, 8, 25, 31, 32, 33, 41, 64, 65, 128, 341, 342, 512, 1024, 1025};
    const size_t n = sizeof(factor) / sizeof(factor[0]);

    (void)state;
    for (size_t x = 0; x < n; x++)
        for (size_t y = 0; y < n; y++)
            for (size_t z = 0; z < n; z++) {
                gpu_launch_config c = config_over(z % 2 ? 0xff : 0);

                c.block[0] = factor[x];
                c.block[1] = factor[y];
                c.block[2] = factor[z];
                expect(&c);
            }
}

/* The shared bytes, and each extended field, beside dimensions at and past their limits. */
static void shared_bytes_and_extended_fields(void **state)
{
    static const unsigned shared[] = {0, 1, 48 * 1024 - 1, 48 * 1024, 48 * 1024 + 1, 65536, 0x80000000u, UINT_MAX};
    static const unsigned block_x[] = {1, 1024, 1025};
    static const int priority[] = {0, 1, -1, INT_MIN, INT_MAX};
    unsigned long checked = 0;

    (void)state;
    for (size_t s = 0; s < sizeof(shared) / sizeof(shared[0]); s++)
        for (size_t x = 0; x < sizeof(block_x) / sizeof(block_x[0]); x++)
            for (int field = 0; field < 6; field++)
                for (size_t v = 0; v < EDGES; v++) {
                    gpu_launch_config c = config_over(v % 2 ? 0xa5 : 0);

                    c.shared_mem_bytes = shared[s];
                    c.block[0] = block_x[x];
                    switch (field) {
                    case 0:
                    case 1:
                    case 2:
                        c.cluster[field] = edge[v];
                        break;
                    case 3:
                        c.cooperative = edge[v] != 0;
                        break;
                    case 4:
                        c.programmatic_serialization = edge[v] != 0;
                        break;
                    default:
                        c.priority = priority[v % (sizeof(priority) / sizeof(priority[0]))];
                        break;
                    }
                    expect(&c);
                    checked++;
                }
    assert_int_equal(checked, 8 * 3 * 6 * EDGES);
}

/* NULL is no configuration to launch; a good one is taken whatever its padding holds. */
static void null_and_padding(void **state)
{
    gpu_launch_config c;

    (void)state;
    assert_false(gpu__launch_config_plain(NULL));
    assert_false(gpu__launch_config_plain_scalar(NULL));
    for (unsigned fill = 0; fill < 256; fill++) {
        c = config_over((unsigned char)fill);
        c.grid[0] = 4096;
        c.block[0] = 256;
        assert_true(gpu__launch_config_plain(&c));
        assert_true(gpu__launch_config_plain_scalar(&c));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dimensions_agree_with_cuda),
        cmocka_unit_test(block_products_agree_with_cuda),
        cmocka_unit_test(shared_bytes_and_extended_fields),
        cmocka_unit_test(null_and_padding),
    };

    return cmocka_run_group_tests_name("launch", tests, NULL, NULL);
}
