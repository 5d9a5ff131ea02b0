/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's error details, set by failing calls.
 */
#ifndef GPUSHIM_ERROR_H
#define GPUSHIM_ERROR_H

#include "gpushim/status.h"

#if defined(__GNUC__)
#define GPU__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define GPU__PRINTF(fmt, args)
#endif

/*
 * For small per-thread state on hot paths. libgpushim must load with dlopen
 * (Python's ctypes, JNI, plugin hosts, a plugin that embeds libgpushim.a), so
 * not initial-exec, which marks the library STATIC_TLS and fails to load once
 * the static TLS block is spent. Global-dynamic instead, built with TLS
 * descriptors (-mtls-dialect=gnu2, src/meson.build, where the compiler has
 * it): while the library's whole TLS block fits the surplus glibc keeps for
 * dlopen'ed libraries, an access is one indirect call that returns an offset,
 * without __tls_get_addr. So all of gpushim's TLS together stays a few dozen
 * bytes; the error buffer is not in it (status.c). In an executable the linker
 * relaxes this to the static model.
 */
#if defined(__GNUC__) && defined(__PIC__)
#define GPU__TLS_FAST __attribute__((tls_model("global-dynamic")))
#else
#define GPU__TLS_FAST
#endif

/* Sets the thread's error to a formatted message and returns `status`. */
gpu_status gpu__fail(gpu_status status, int cuda_result, const char *fmt, ...) GPU__PRINTF(3, 4);

/*
 * Sets the thread's error to `message`, which must outlive the process's use
 * of it (a string literal, or a load report that never changes). No copy: this
 * is what keeps the no-driver answer cheap.
 */
gpu_status gpu__fail_static(gpu_status status, int cuda_result, const char *message);

/* An argument error: GPU_ERR_INVALID_ARG naming the calling function and what is wrong. */
#define GPU__INVALID(what) gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s", __func__, (what))

/*
 * Returns GPU_ERR_INVALID_ARG from the calling function where one of its
 * pointer arguments (one to three) is NULL, naming the first that is, as the
 * code spells it: GPU__NOT_NULL(event, out) fails with "<function>: out is
 * NULL" where only out is. The return is the macro's, as with systemd's
 * assert_return().
 */
#define GPU__NOT_NULL(...) GPU__NOT_NULL_PICK(__VA_ARGS__, 3, 2, 1, ~)(__VA_ARGS__)
#define GPU__NOT_NULL_PICK(a, b, c, n, ...) GPU__NOT_NULL_##n
#define GPU__NOT_NULL_1(a) \
    do { \
        if (!(a)) \
            return GPU__INVALID(#a " is NULL"); \
    } while (0)
#define GPU__NOT_NULL_2(a, b) \
    do { \
        if (!(a) || !(b)) \
            return GPU__INVALID(!(a) ? #a " is NULL" : #b " is NULL"); \
    } while (0)
#define GPU__NOT_NULL_3(a, b, c) \
    do { \
        if (!(a) || !(b) || !(c)) \
            return GPU__INVALID(!(a) ? #a " is NULL" : !(b) ? #b " is NULL" : #c " is NULL"); \
    } while (0)

/* gpu__fail() with a message that begins with the calling function's name. */
#define GPU__FAIL(status, fmt, ...) gpu__fail((status), 0, "%s: " fmt, __func__, __VA_ARGS__)

#endif
