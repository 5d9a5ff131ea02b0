/* SPDX-License-Identifier: MIT */
/** @file
 * gpushim: the CUDA driver API with no link-time dependency on it.
 * Shared declarations: export macro, opaque object types.
 */
#ifndef GPUSHIM_COMMON_H
#define GPUSHIM_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(GPUSHIM_BUILDING) && defined(__GNUC__)
#define GPU_API __attribute__((visibility("default")))
#else
/** Exports a public function from the shared library (empty outside its build). */
#define GPU_API
#endif

#if defined(__GNUC__)
#define GPU_NODISCARD __attribute__((warn_unused_result))
#else
/** A result the caller must not ignore (warn_unused_result under GCC and Clang). */
#define GPU_NODISCARD
#endif

#if defined(__GNUC__) && !defined(GPUSHIM_BUILDING)
#define GPU_DEPRECATED(message) __attribute__((deprecated(message)))
#else
/** Marks a name kept for existing code: a call warns, saying `message` (GCC and Clang, not the library's own build). */
#define GPU_DEPRECATED(message)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every object is opaque; each header below says who owns it. */
typedef struct gpu_context gpu_context;          /**< a device's primary context (context.h) */
typedef struct gpu_stream gpu_stream;            /**< a queue of device work (stream.h) */
typedef struct gpu_event gpu_event;              /**< a marker in a stream (event.h) */
typedef struct gpu_graph gpu_graph;              /**< work captured from a stream (graph.h) */
typedef struct gpu_graph_exec gpu_graph_exec;    /**< a graph made ready to launch (graph.h) */
typedef struct gpu_module gpu_module;            /**< a loaded PTX, cubin or fatbin image (module.h) */
typedef struct gpu_function gpu_function;        /**< a kernel of a module (module.h) */
typedef struct gpu_buffer gpu_buffer;            /**< device memory (buffer.h) */
typedef struct gpu_host_buffer gpu_host_buffer;  /**< page-locked host memory (buffer.h) */

#ifdef __cplusplus
}
#endif

#endif
