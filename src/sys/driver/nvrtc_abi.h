/* SPDX-License-Identifier: MIT */
/*
 * The part of NVIDIA's NVRTC ABI (libnvrtc) that gpushim uses, declared by
 * the project itself so that the build needs no CUDA toolkit. Names carry the
 * prefix nvrtcabi_ / NVRTCABI_ so that this header can sit beside the real
 * <nvrtc.h> (the abi suite checks each value and prototype against it).
 * In src/, only the layers below the gpu_* modules include this file.
 */
#ifndef GPUSHIM_SYS_NVRTC_ABI_H
#define GPUSHIM_SYS_NVRTC_ABI_H

#include <stddef.h>

/* nvrtcResult: an enum of non-negative values, so unsigned int under gcc and clang. */
typedef unsigned int nvrtcabi_result;
typedef struct nvrtcabi_program_st *nvrtcabi_program;

/* nvrtcResult: every code of the 13.0 header, as (name without "NVRTC_", value). */
#define NVRTCABI_RESULT_LIST(X) \
    X(SUCCESS, 0) \
    X(ERROR_OUT_OF_MEMORY, 1) \
    X(ERROR_PROGRAM_CREATION_FAILURE, 2) \
    X(ERROR_INVALID_INPUT, 3) \
    X(ERROR_INVALID_PROGRAM, 4) \
    X(ERROR_INVALID_OPTION, 5) \
    X(ERROR_COMPILATION, 6) \
    X(ERROR_BUILTIN_OPERATION_FAILURE, 7) \
    X(ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION, 8) \
    X(ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION, 9) \
    X(ERROR_NAME_EXPRESSION_NOT_VALID, 10) \
    X(ERROR_INTERNAL_ERROR, 11) \
    X(ERROR_TIME_FILE_WRITE_FAILED, 12) \
    X(ERROR_NO_PCH_CREATE_ATTEMPTED, 13) \
    X(ERROR_PCH_CREATE_HEAP_EXHAUSTED, 14) \
    X(ERROR_PCH_CREATE, 15) \
    X(ERROR_CANCELLED, 16) \
    X(ERROR_TIME_TRACE_FILE_WRITE_FAILED, 17)

enum {
#define NVRTCABI_RESULT_ENUM(name, value) NVRTCABI_##name = value,
    NVRTCABI_RESULT_LIST(NVRTCABI_RESULT_ENUM)
#undef NVRTCABI_RESULT_ENUM
};

#endif
