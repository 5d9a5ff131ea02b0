/* SPDX-License-Identifier: MIT */
/*
 * Every symbol of the CUDA driver, so that a program linked against libcuda
 * finds each one here: a weak definition that says the fake does not
 * implement it (fake_unimplemented()). The fake's own definitions, in its
 * other files, are strong and take their place when the library is linked.
 * The weak ones take no parameters: the caller's arguments are not read, and
 * on x86-64 and AArch64 the caller cleans up after them.
 */
#include "fake_entries.h"

/*
 * In a section of their own, so that an address tells a weak definition from
 * the fake's own (fake_symbol_implemented()): the linker names its bounds.
 */
#define GPU__CUDA_SYMBOL(name, kinds, params) \
    FAKE_API __attribute__((weak, section("fake_stub_symbols"))) cuabi_result name(void); \
    cuabi_result name(void) \
    { \
        return fake_unimplemented(FAKE_E_##name); \
    }
#include "cuda_symbols.h"
#undef GPU__CUDA_SYMBOL

extern const char __start_fake_stub_symbols[], __stop_fake_stub_symbols[];

bool fake_symbol_unimplemented(const void *fn)
{
    const char *p = fn;

    return p >= __start_fake_stub_symbols && p < __stop_fake_stub_symbols;
}
