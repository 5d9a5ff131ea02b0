/* SPDX-License-Identifier: MIT */
/*
 * The EGL types cudaEGL.h's functions take, as EGL's headers define them,
 * so that tools/gen-cuda-symbols.py reads cudaEGL.h on a machine with no EGL
 * headers. Only for the generator; nothing is built with it.
 */
#include <stdint.h>
typedef int32_t EGLint;
typedef void *EGLDisplay;
