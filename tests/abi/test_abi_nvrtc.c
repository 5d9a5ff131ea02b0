/* SPDX-License-Identifier: MIT */
/*
 * gpushim's own NVRTC declarations (src/sys/driver/nvrtc_abi.h,
 * nvrtc_entry_points.h) checked against the toolkit's nvrtc.h: every
 * nvrtcResult's value, the types, and every entry point's prototype, at
 * compile time; at run time, that the list names every result nvrtc.h has.
 *
 * Built only where nvrtc.h is found; the library never needs it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <nvrtc.h>

/* gpushim's opaque program type is the very struct nvrtc.h declares, so prototypes compare. */
#define nvrtcabi_program_st _nvrtcProgram
#include "nvrtc_abi.h"

#define SAME_VALUE(a, b) _Static_assert((long long)(a) == (long long)(b), #a " == " #b)
#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " is " #b)

#define CHECK_RESULT(name, value) SAME_VALUE(NVRTCABI_##name, NVRTC_##name); SAME_VALUE(value, NVRTC_##name);
NVRTCABI_RESULT_LIST(CHECK_RESULT)

SAME_TYPE(nvrtcabi_result, nvrtcResult);
SAME_TYPE(nvrtcabi_program, nvrtcProgram);
_Static_assert(sizeof(nvrtcabi_result) == sizeof(nvrtcResult), "nvrtcResult's size");

/* Every entry point's prototype is nvrtc.h's, return type included. */
#define GPU__NVRTC_ENTRY(need, ret, name, params) SAME_TYPE(ret(*) params, __typeof__(&name));
#include "nvrtc_entry_points.h"
#undef GPU__NVRTC_ENTRY

static void every_result_of_the_header_is_listed(void **state)
{
    int listed = 0, highest = -1;

    (void)state;
#define COUNT_RESULT(name, value) listed++; highest = value > highest ? value : highest;
    NVRTCABI_RESULT_LIST(COUNT_RESULT)
#undef COUNT_RESULT
    /* nvrtcResult is dense from 0: the list has each code once, the last one of the header included. */
    assert_int_equal(listed, highest + 1);
    assert_int_equal(highest, NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED);
    printf("checked %d nvrtcResult values and the entry points against nvrtc.h\n", listed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_result_of_the_header_is_listed),
    };

    return cmocka_run_group_tests_name("abi-nvrtc", tests, NULL, NULL);
}
