/* SPDX-License-Identifier: MIT */
/* The EGL extension types cudaEGL.h's functions take (see egl.h beside this). */
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
