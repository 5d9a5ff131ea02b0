/* SPDX-License-Identifier: MIT */
/*
 * The one parser of every GPUSHIM_* value (src/base/env.c): numbers with
 * their range, sign and unit, switches and counts, and what it says a
 * number must be. gpushim's variables and the fake driver's go through it.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/env.h"

static long long number_or(const char *text, long long lo, long long hi, enum gpu__env_unit unit, long long fallback)
{
    long long v = fallback;

    return gpu__env_number(text, lo, hi, unit, &v) ? v : fallback;
}

static void numbers(void **state)
{
    /* What a malformed value looks like: a sign, overflow, junk after the digits, a unit where there is none. */
    static const char *const refused[] = {"", " 1", "1 ", "+1", "-1", "1s", "2s", "0x10", "1e3", "1.0", "1K",
                                          "18446744073709551616", "99999999999999999999", "--1", "-", "1\n"};
    long long v = 77;

    (void)state;
    assert_int_equal(number_or("0", 0, 86400, GPU__ENV_UNIT_NONE, -9), 0);
    assert_int_equal(number_or("86400", 0, 86400, GPU__ENV_UNIT_NONE, -9), 86400);
    assert_int_equal(number_or("86401", 0, 86400, GPU__ENV_UNIT_NONE, -9), -9);
    assert_int_equal(number_or("007", 0, 86400, GPU__ENV_UNIT_NONE, -9), 7);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        if (gpu__env_number(refused[i], 0, 86400, GPU__ENV_UNIT_NONE, &v))
            fail_msg("\"%s\" was taken as %lld", refused[i], v);
        assert_int_equal(v, 77); /* untouched */
    }
    /* A sign only where the range has negative numbers, and within it. */
    assert_int_equal(number_or("-1", -1, 2147483647, GPU__ENV_UNIT_NONE, 5), -1);
    assert_int_equal(number_or("-2", -1, 2147483647, GPU__ENV_UNIT_NONE, 5), 5);
    assert_int_equal(number_or("-2147483648", INT_MIN, INT_MAX, GPU__ENV_UNIT_NONE, 5), INT_MIN);
    assert_int_equal(number_or("-2147483649", INT_MIN, INT_MAX, GPU__ENV_UNIT_NONE, 5), 5);
    assert_int_equal(number_or("2147483648", INT_MIN, INT_MAX, GPU__ENV_UNIT_NONE, 5), 5);
    assert_true(number_or("-9223372036854775808", LLONG_MIN, LLONG_MAX, GPU__ENV_UNIT_NONE, 5) == LLONG_MIN);
    assert_int_equal(number_or("-9223372036854775809", LLONG_MIN, LLONG_MAX, GPU__ENV_UNIT_NONE, 5), 5);
    assert_true(number_or("9223372036854775807", LLONG_MIN, LLONG_MAX, GPU__ENV_UNIT_NONE, 5) == LLONG_MAX);
    assert_int_equal(number_or("-5", -10, -3, GPU__ENV_UNIT_NONE, 0), -5);
    assert_int_equal(number_or("-2", -10, -3, GPU__ENV_UNIT_NONE, 0), 0);
    assert_int_equal(number_or("0", -10, -3, GPU__ENV_UNIT_NONE, 1), 1);
    assert_int_equal(number_or("-0", -10, -3, GPU__ENV_UNIT_NONE, 1), 1);
    assert_int_equal(number_or("5", 7, 3, GPU__ENV_UNIT_NONE, 1), 1); /* an empty range takes nothing */
}

static void byte_counts(void **state)
{
    long long most = (long long)(SIZE_MAX >> 1);

    (void)state;
    assert_int_equal(number_or("4096", 0, most, GPU__ENV_UNIT_BYTES, -1), 4096);
    assert_int_equal(number_or("1K", 0, most, GPU__ENV_UNIT_BYTES, -1), 1024);
    assert_int_equal(number_or("64M", 0, most, GPU__ENV_UNIT_BYTES, -1), 64ll << 20);
    assert_int_equal(number_or("2G", 0, most, GPU__ENV_UNIT_BYTES, -1), 2ll << 30);
    assert_int_equal(number_or("1T", 0, most, GPU__ENV_UNIT_BYTES, -1), -1);
    assert_int_equal(number_or("1k", 0, most, GPU__ENV_UNIT_BYTES, -1), -1);
    assert_int_equal(number_or("K", 0, most, GPU__ENV_UNIT_BYTES, -1), -1);
    assert_int_equal(number_or("1KK", 0, most, GPU__ENV_UNIT_BYTES, -1), -1);
    assert_int_equal(number_or("1 G", 0, most, GPU__ENV_UNIT_BYTES, -1), -1);
    assert_int_equal(number_or("-1G", 0, most, GPU__ENV_UNIT_BYTES, -1), -1);
    /* Past 64 bits after the unit, and past the range. */
    assert_int_equal(number_or("17179869184G", 0, LLONG_MAX, GPU__ENV_UNIT_BYTES, -1), -1);
    assert_int_equal(number_or("8589934592G", 0, most, GPU__ENV_UNIT_BYTES, -1), -1);
    assert_int_equal(number_or("2K", 0, 2047, GPU__ENV_UNIT_BYTES, -1), -1);
}

static void words(void **state)
{
    char buf[160];
    bool on = false;
    unsigned long long n = 9;

    (void)state;
    assert_string_equal(gpu__env_number_accepted(0, 86400, GPU__ENV_UNIT_NONE, buf, sizeof(buf)),
                        "a whole number from 0 to 86400 (decimal digits alone)");
    assert_non_null(strstr(gpu__env_number_accepted(-1, 5, GPU__ENV_UNIT_NONE, buf, sizeof(buf)), "'-' first"));
    assert_non_null(strstr(gpu__env_number_accepted(0, 5, GPU__ENV_UNIT_BYTES, buf, sizeof(buf)), "K, M or G"));
    assert_true(gpu__env_parse_switch("Off", &on) && !on);
    assert_false(gpu__env_parse_switch("2", &on));
    assert_false(gpu__env_parse_count("-1", 0, 10, &n));
    assert_false(gpu__env_parse_count("18446744073709551616", 0, ~0ull, &n));
    assert_true(gpu__env_parse_count("18446744073709551615", 0, ~0ull, &n) && n == ~0ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers),
        cmocka_unit_test(byte_counts),
        cmocka_unit_test(words),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
