/* SPDX-License-Identifier: MIT */
/*
 * The table the semantics programs (array_semantics.c, stream_semantics.c)
 * print: a case a line, its description in a column of EXPECT_COLUMN, then
 * the answer, and what the fake answers where they differ. `wrong` counts
 * the cases that differed; the program exits 1 when it is not 0.
 */
#ifndef GPUSHIM_TESTS_CUDA_EXPECT_H
#define GPUSHIM_TESTS_CUDA_EXPECT_H

#include <stdio.h>

#include <cuda.h>

#define EXPECT_COLUMN 62

static int wrong;

/* A call's result `got`, where the fake answers `want`. */
static inline void expect(const char *what, CUresult got, CUresult want)
{
    const char *g = NULL, *w = NULL;

    cuGetErrorName(got, &g);
    cuGetErrorName(want, &w);
    printf("%-*s %s%s%s\n", EXPECT_COLUMN, what, g ? g : "?", got == want ? "" : ", expected ",
           got == want ? "" : (w ? w : "?"));
    wrong += got != want;
}

/* A property the fake has, which `ok` says the driver has too. */
static inline void expect_true(const char *what, int ok)
{
    printf("%-*s %s\n", EXPECT_COLUMN, what, ok ? "yes" : "no, expected yes");
    wrong += !ok;
}

#endif
