/* SPDX-License-Identifier: MIT */
/*
 * The OpenGL types cudaGL.h's functions take, as an OpenGL header defines
 * them, so that tools/gen-cuda-symbols.py reads cudaGL.h on a machine with
 * no OpenGL headers. Only for the generator; nothing is built with it.
 */
typedef unsigned int GLenum;
typedef unsigned int GLuint;
