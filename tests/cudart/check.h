/* SPDX-License-Identifier: MIT */
/* The cudart suite's one assertion: a runtime call's result, or a condition, with where it failed. */
#ifndef GPUSHIM_TESTS_CUDART_CHECK_H
#define GPUSHIM_TESTS_CUDART_CHECK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime_api.h>

#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
            std::exit(1); \
        } \
    } while (0)

/* A runtime call that must succeed; the error's name and string when it does not. */
#define CHECK_CUDA(call) \
    do { \
        cudaError_t check_e = (call); \
        if (check_e != cudaSuccess) { \
            std::fprintf(stderr, "%s:%d: %s: %s (%d): %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(check_e), \
                         (int)check_e, cudaGetErrorString(check_e)); \
            std::exit(1); \
        } \
    } while (0)

/* A runtime call that must fail with `want`. */
#define CHECK_ERROR(call, want) \
    do { \
        cudaError_t check_e = (call); \
        if (check_e != (want)) { \
            std::fprintf(stderr, "%s:%d: %s: %s (%d), want %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorName(check_e), (int)check_e, cudaGetErrorName(want)); \
            std::exit(1); \
        } \
    } while (0)

#endif
