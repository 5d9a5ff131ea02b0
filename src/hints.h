/* SPDX-License-Identifier: MIT */
/*
 * Hints to the compiler, the only place gpushim names a compiler's
 * extensions outside its attributes for symbols: with GCC or Clang they lay
 * out the hot calls; any other C11 compiler builds the same code without them.
 */
#ifndef GPUSHIM_HINTS_H
#define GPUSHIM_HINTS_H

#if defined(__GNUC__)
/* `x`, which the branch predictor and the code layout should expect to equal `v` (0 or 1). */
#define GPU__EXPECT(x, v) __builtin_expect((x), (v))
/* A function that only the cold way calls: kept out of line, and out of the hot code's cache lines. */
#define GPU__COLD __attribute__((noinline, cold))
/* A slow path kept out of line, so that its caller's fast path keeps its registers. */
#define GPU__NOINLINE __attribute__((noinline))
/*
 * A hot call's public wrapper: it starts a cache line, so that its hot
 * instructions lie the same way in every build, whatever changes around it
 * (docs/benchmarks.md, "Call overhead").
 */
#define GPU__HOT_ENTRY __attribute__((aligned(64)))
/* A function whose body goes into its caller whatever the compiler's size limits (the PTX interpreter's dispatch). */
#define GPU__ALWAYS_INLINE __attribute__((always_inline))
#else
#define GPU__EXPECT(x, v) (x)
#define GPU__COLD
#define GPU__NOINLINE
#define GPU__HOT_ENTRY
#define GPU__ALWAYS_INLINE
#endif

#endif
