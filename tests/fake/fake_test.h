/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the fake suite's programs: assertions that say what
 * gpushim reported, leak marks over the fake's live counts, and the fake's
 * kernels.
 */
#ifndef FAKE_TEST_H
#define FAKE_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "gpushim/gpushim.h"

#include "cuda_abi.h"
#include <gpushim/fake.h>

/* The driver's entry points, which a test may call directly as a CUDA program would. */
#define GPU__ENTRY(need, name, symbol, params, args) cuabi_result symbol params;
#include "entry_points.h"
#undef GPU__ENTRY
#define GPU__FAKE_ENTRY(symbol, params) cuabi_result symbol params;
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY
cuabi_result cuInit(unsigned int flags);
cuabi_result cuDriverGetVersion(int *version);
cuabi_result cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuabi_uint64 flags,
                                 cuabi_proc_address_query_result *status);

/* PTX for the fake naming every built-in kernel. */
extern const char ft_ptx[];

/* PTX for the fake naming two built-in kernels, add_one and scale_add, in that order. */
extern const char ft_two_kernels[];

/* Asserts GPU_OK, printing gpu_last_error_get_message() when not. */
#define FT_OK(expr) ft_ok_((expr), #expr, __FILE__, __LINE__)
void ft_ok_(gpu_status st, const char *expr, const char *file, int line);

/*
 * Asserts that a call failed with `status`, that gpu_last_error_get_cuda_result() is
 * `cuda`, and that gpu_last_error_get_message() contains `needle` (NULL: is not empty).
 */
#define FT_FAIL(expr, status, cuda, needle) ft_fail_((expr), (status), (cuda), (needle), #expr, __FILE__, __LINE__)
void ft_fail_(gpu_status st, gpu_status want, int cuda, const char *needle, const char *expr, const char *file,
              int line);

/* An argument error: GPU_ERR_INVALID_ARG naming the reason, and no driver call. */
#define FT_INVALID(expr, needle) \
    do { \
        unsigned long calls_ = gpu_fake_calls_total(); \
        FT_FAIL((expr), GPU_ERR_INVALID_ARG, 0, (needle)); \
        if (gpu_fake_calls_total() != calls_) \
            fail_msg("%s called the driver", #expr); \
    } while (0)

/* Asserts that a driver call succeeded. */
#define CU_OK(call) assert_int_equal((call), CUABI_SUCCESS)

/* What the fake holds and the anomalies it saw, to compare after some work. */
typedef struct ft_mark {
    gpu_fake_live_counts live;
    unsigned long anomalies[GPU_FAKE_ANOMALY_COUNT];
} ft_mark;

void ft_mark_take(ft_mark *m);

/* Asserts the fake holds what it held at the mark and saw no new anomaly. */
#define FT_MARK_CHECK(m) ft_mark_check_((m), __FILE__, __LINE__)
void ft_mark_check_(const ft_mark *m, const char *file, int line);

/* Asserts that the fake holds nothing of the kinds before its context retains and saw no anomaly. */
void ft_assert_released(void);

/* Leaves the calling thread with no current context, through the driver itself. */
void ft_no_context(void);

/* The calling thread's current context, asked of the driver. */
void *ft_current(void);

/* Launches of the fake's kernels, 1-D over n elements (one block of up to 256 threads each). */
gpu_status ft_add_one(gpu_stream *s, gpu_module *m, const gpu_buffer *b, uint32_t n);
gpu_status ft_scale_add(gpu_stream *s, gpu_module *m, const gpu_buffer *b, uint32_t mul, uint32_t add, uint32_t n);
gpu_status ft_hold(gpu_stream *s, gpu_module *m);
gpu_status ft_sleep_us(gpu_stream *s, gpu_module *m, uint32_t us);

/* A buffer of n u32 holding base, base+1, ...; and a check that one holds `want`[i]. */
gpu_buffer *ft_buffer_seq(gpu_context *ctx, uint32_t n, uint32_t base);
#define FT_BUFFER_EQ(b, want, n) ft_buffer_eq_((b), (want), (n), __FILE__, __LINE__)
void ft_buffer_eq_(const gpu_buffer *b, const uint32_t *want, uint32_t n, const char *file, int line);

/* What a descriptor (1: stdout, 2: stderr) got while a piece of work ran, read back from a file. */
typedef struct ft_capture {
    FILE *file;
    int fd, saved;
    char text[8192];
} ft_capture;

/* Sends descriptor fd (1 or 2) into a file until ft_capture_end(). */
void ft_capture_begin(ft_capture *c, int fd);

/* Gives the descriptor back; what it got (its first bytes), also in c->text. */
const char *ft_capture_end(ft_capture *c);

/*
 * Launches `name` of module `m` on `threads` threads of `blocks` blocks of the
 * current context and synchronises it: the result of the launch or of the
 * synchronisation; what the fake said on stderr meanwhile in *c.
 */
cuabi_result ft_launch_said(cuabi_module m, const char *name, unsigned blocks, unsigned threads, void **params,
                            ft_capture *c);

/* Fails the test unless what a capture got holds `needle`. */
#define FT_ASSERT_SAID(c, needle) \
    do { \
        if (!strstr((c)->text, (needle))) \
            fail_msg("the fake said \"%s\", not \"%s\"", (c)->text, (needle)); \
    } while (0)

/* The u32 at index i of a device buffer, read through the fake, not through gpushim. */
uint32_t ft_peek(const gpu_buffer *b, uint32_t i);

/*
 * A fatbin of one entry of `kind` (1: PTX) with entry flags `flags` whose
 * payload is `data`, as nvcc lays it out (an 80-byte entry header), into
 * `out` (room for strlen(data) + 104 bytes); returns its size.
 */
size_t ft_make_fatbin(unsigned char *out, unsigned kind, uint64_t flags, const char *data);

/* Fails the test, saying that `failed` failed, unless the fake's live counts are those of `before`. */
void ft_live_same(const gpu_fake_live_counts *before, const char *failed);

/*
 * The fault sweep of a sequence of driver calls (it stops at its first
 * failure and cleans up): it must succeed alone; then each of `calls` (a
 * symbol, whose first call in the sequence fails with CUDA_ERROR_UNKNOWN) in
 * turn: the sequence must return `want` (the injected result, or success
 * where a failed destroy is retried) and leave the fake's live counts as they were.
 */
void ft_driver_sweep(cuabi_result (*sequence)(void), const char *const *calls, size_t ncalls, cuabi_result want);

/* Attribute `attribute` of `device`, asked of the driver. */
int ft_attribute(int device, int attribute);

/* cuInit, the device's primary context retained and made current: what a driver-API program does first. */
cuabi_context ft_retain_current(int device);

/*
 * A CUDA array of w x h x d (h, d 0 for fewer dimensions) elements of `ch`
 * channels of format f, made with `flags`, holding `data` (bytes long) when
 * not NULL; and a texture object that reads array `a` with address mode
 * `mode` in every dimension, filter `filter`, `flags`, and border colour
 * 100, 101, 102, 103.
 */
cuabi_array ft_array_of(size_t w, size_t h, size_t d, cuabi_array_format f, unsigned ch, unsigned flags,
                        const void *data, size_t bytes);
cuabi_tex_object ft_texture_of(cuabi_array a, unsigned mode, unsigned filter, unsigned flags);

/*
 * An 8 x 8 float mipmapped array of three levels, level i holding i + 1
 * everywhere; *res, when res is not NULL, describes it as a texture's resource.
 */
cuabi_mipmapped_array ft_mipmap_levels(cuabi_resource_desc *res);

/* A case of a program that runs one case a process: the name its command line gives, and its test. */
typedef struct ft_case {
    const char *name;
    struct CMUnitTest test;
} ft_case;

/* Runs the one case argv[1] names; 2, with a usage line, when there is no such case. */
int ft_run_case(int argc, char **argv, const ft_case *cases, size_t count);

/*
 * A program of both kinds: with no argument, the group `tests` in one
 * process between `setup` and `teardown`; with one, the case of `cases` it names.
 */
int ft_run(int argc, char **argv, const char *group, const struct CMUnitTest *tests, size_t ntests,
           CMFixtureFunction setup, CMFixtureFunction teardown, const ft_case *cases, size_t ncases);

#endif
