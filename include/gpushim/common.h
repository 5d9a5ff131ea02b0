/*
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
#define GPU_API
#endif

#if defined(__GNUC__)
#define GPU_NODISCARD __attribute__((warn_unused_result))
#else
#define GPU_NODISCARD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every object is opaque; each header below says who owns it. */
typedef struct gpu_context gpu_context;
typedef struct gpu_stream gpu_stream;
typedef struct gpu_event gpu_event;
typedef struct gpu_graph gpu_graph;
typedef struct gpu_graph_exec gpu_graph_exec;
typedef struct gpu_module gpu_module;
typedef struct gpu_function gpu_function;
typedef struct gpu_buffer gpu_buffer;
typedef struct gpu_host_buffer gpu_host_buffer;

#ifdef __cplusplus
}
#endif

#endif
