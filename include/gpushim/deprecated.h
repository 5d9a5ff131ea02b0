/* SPDX-License-Identifier: MIT */
/** @file
 * Deprecated names, each an alias of the name that replaced it: the
 * functions gpushim named before 0.3.0 (object, verb, get_ for a value read),
 * still exported, and their enumerators. gpushim.h includes this header;
 * define GPUSHIM_NO_DEPRECATED before including it to leave them out.
 * Each is removed one minor release after its deprecation (CONTRIBUTING.md).
 */
#ifndef GPUSHIM_DEPRECATED_H
#define GPUSHIM_DEPRECATED_H

#include "status.h"
#include "driver.h"
#include "device.h"
#include "context.h"
#include "stream.h"
#include "event.h"
#include "graph.h"
#include "module.h"
#include "launch.h"
#include "buffer.h"
#include "function.h"
#include "program.h"
#include "forward.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GPUSHIM_NO_DEPRECATED

/* ---- Compatibility with aprender-gpu ---- */

/**
 * aprender-gpu's name for GPU_STREAM_NONBLOCKING_ENV. aprender-gpu (0.68) is the
 * Rust crate whose stream module gpushim's comes from; its programs set
 * APR_STREAM_NONBLOCKING=1 for the racy non-blocking streams, so
 * gpu_stream_create() still reads that variable where GPUSHIM_STREAM_NONBLOCKING
 * is unset. Deprecated: set GPUSHIM_STREAM_NONBLOCKING.
 */
#define GPU_STREAM_NONBLOCKING_ENV_APRENDER "APR_STREAM_NONBLOCKING"

/* ---- Names deprecated in 0.2.0 ---- */

/** Deprecated: use GPU_DEVICE0_LEGACY_STREAM. It is not CUDA's default stream, which is the current context's. */
#define GPU_DEFAULT_STREAM GPU_DEVICE0_LEGACY_STREAM

/* ---- Names deprecated in 0.3.0 ---- */

/**
 * Deprecated: use gpu_buffer_get_device_ptr().
 * @param buffer as for gpu_buffer_get_device_ptr()
 * @return as gpu_buffer_get_device_ptr()
 */
GPU_API GPU_DEPRECATED("use gpu_buffer_get_device_ptr()") uint64_t gpu_buffer_device_ptr(const gpu_buffer *buffer);

/**
 * Deprecated: use gpu_buffer_get_size().
 * @param buffer as for gpu_buffer_get_size()
 * @return as gpu_buffer_get_size()
 */
GPU_API GPU_DEPRECATED("use gpu_buffer_get_size()") size_t gpu_buffer_size(const gpu_buffer *buffer);

/**
 * Deprecated: use gpu_buffer_get_context().
 * @param buffer as for gpu_buffer_get_context()
 * @return as gpu_buffer_get_context()
 */
GPU_API GPU_DEPRECATED("use gpu_buffer_get_context()") gpu_context *gpu_buffer_context(const gpu_buffer *buffer);

/**
 * Deprecated: use gpu_buffer_get_managed_data().
 * @param buffer as for gpu_buffer_get_managed_data()
 * @return as gpu_buffer_get_managed_data()
 */
GPU_API GPU_DEPRECATED("use gpu_buffer_get_managed_data()") void *gpu_buffer_managed_data(const gpu_buffer *buffer);

/**
 * Deprecated: use gpu_buffer_get_ipc_handle().
 * @param buffer as for gpu_buffer_get_ipc_handle()
 * @param out as for gpu_buffer_get_ipc_handle()
 * @return as gpu_buffer_get_ipc_handle()
 */
GPU_API GPU_DEPRECATED("use gpu_buffer_get_ipc_handle()") gpu_status gpu_buffer_ipc_handle(const gpu_buffer *buffer, gpu_ipc_handle *out);

/**
 * Deprecated: use gpu_host_buffer_get_data().
 * @param buffer as for gpu_host_buffer_get_data()
 * @return as gpu_host_buffer_get_data()
 */
GPU_API GPU_DEPRECATED("use gpu_host_buffer_get_data()") void *gpu_host_buffer_data(const gpu_host_buffer *buffer);

/**
 * Deprecated: use gpu_host_buffer_get_size().
 * @param buffer as for gpu_host_buffer_get_size()
 * @return as gpu_host_buffer_get_size()
 */
GPU_API GPU_DEPRECATED("use gpu_host_buffer_get_size()") size_t gpu_host_buffer_size(const gpu_host_buffer *buffer);

/**
 * Deprecated: use gpu_context_get_device().
 * @param ctx as for gpu_context_get_device()
 * @return as gpu_context_get_device()
 */
GPU_API GPU_DEPRECATED("use gpu_context_get_device()") int gpu_context_device(const gpu_context *ctx);

/**
 * Deprecated: use gpu_context_get_raw().
 * @param ctx as for gpu_context_get_raw()
 * @return as gpu_context_get_raw()
 */
GPU_API GPU_DEPRECATED("use gpu_context_get_raw()") void *gpu_context_raw(const gpu_context *ctx);

/**
 * Deprecated: use gpu_context_get_memory_info().
 * @param ctx as for gpu_context_get_memory_info()
 * @param free_bytes as for gpu_context_get_memory_info()
 * @param total_bytes as for gpu_context_get_memory_info()
 * @return as gpu_context_get_memory_info()
 */
GPU_API GPU_DEPRECATED("use gpu_context_get_memory_info()") gpu_status gpu_context_memory_info(gpu_context *ctx, size_t *free_bytes, size_t *total_bytes);

/**
 * Deprecated: use gpu_context_pool_get_release_threshold().
 * @param ctx as for gpu_context_pool_get_release_threshold()
 * @param bytes as for gpu_context_pool_get_release_threshold()
 * @return as gpu_context_pool_get_release_threshold()
 */
GPU_API GPU_DEPRECATED("use gpu_context_pool_get_release_threshold()") gpu_status gpu_context_pool_release_threshold(gpu_context *ctx, uint64_t *bytes);

/**
 * Deprecated: use gpu_context_pool_get_usage().
 * @param ctx as for gpu_context_pool_get_usage()
 * @param reserved as for gpu_context_pool_get_usage()
 * @param used as for gpu_context_pool_get_usage()
 * @return as gpu_context_pool_get_usage()
 */
GPU_API GPU_DEPRECATED("use gpu_context_pool_get_usage()") gpu_status gpu_context_pool_usage(gpu_context *ctx, uint64_t *reserved, uint64_t *used);

/**
 * Deprecated: use gpu_context_get_stream_priority_range().
 * @param ctx as for gpu_context_get_stream_priority_range()
 * @param least as for gpu_context_get_stream_priority_range()
 * @param greatest as for gpu_context_get_stream_priority_range()
 * @return as gpu_context_get_stream_priority_range()
 */
GPU_API GPU_DEPRECATED("use gpu_context_get_stream_priority_range()") gpu_status gpu_context_stream_priority_range(gpu_context *ctx, int *least, int *greatest);

/**
 * Deprecated: use gpu_device_get_count().
 * @param out as for gpu_device_get_count()
 * @return as gpu_device_get_count()
 */
GPU_API GPU_DEPRECATED("use gpu_device_get_count()") gpu_status gpu_device_count(int *out);

/**
 * Deprecated: use gpu_driver_get_version().
 * @param out as for gpu_driver_get_version()
 * @return as gpu_driver_get_version()
 */
GPU_API GPU_DEPRECATED("use gpu_driver_get_version()") gpu_status gpu_driver_version(int *out);

/**
 * Deprecated: use gpu_driver_get_symbol().
 * @param symbol as for gpu_driver_get_symbol()
 * @param out as for gpu_driver_get_symbol()
 * @return as gpu_driver_get_symbol()
 */
GPU_API GPU_DEPRECATED("use gpu_driver_get_symbol()") gpu_status gpu_driver_symbol(const char *symbol, void **out);

/**
 * Deprecated: use gpu_cuda_get_symbol().
 * @param index as for gpu_cuda_get_symbol()
 * @param name as for gpu_cuda_get_symbol()
 * @param target as for gpu_cuda_get_symbol()
 * @return as gpu_cuda_get_symbol()
 */
GPU_API GPU_DEPRECATED("use gpu_cuda_get_symbol()") gpu_status gpu_cuda_symbol(size_t index, const char **name, void **target);

/**
 * Deprecated: use gpu_cuda_get_symbol_count().
 * @return as gpu_cuda_get_symbol_count()
 */
GPU_API GPU_DEPRECATED("use gpu_cuda_get_symbol_count()") size_t gpu_cuda_symbol_count(void);

/**
 * Deprecated: use gpu_event_get_raw().
 * @param event as for gpu_event_get_raw()
 * @return as gpu_event_get_raw()
 */
GPU_API GPU_DEPRECATED("use gpu_event_get_raw()") void *gpu_event_raw(const gpu_event *event);

/**
 * Deprecated: use gpu_event_get_elapsed_ms().
 * @param start as for gpu_event_get_elapsed_ms()
 * @param end as for gpu_event_get_elapsed_ms()
 * @param ms as for gpu_event_get_elapsed_ms()
 * @return as gpu_event_get_elapsed_ms()
 */
GPU_API GPU_DEPRECATED("use gpu_event_get_elapsed_ms()") gpu_status gpu_event_elapsed_ms(gpu_event *start, gpu_event *end, float *ms);

/**
 * Deprecated: use gpu_event_get_ipc_handle().
 * @param event as for gpu_event_get_ipc_handle()
 * @param out as for gpu_event_get_ipc_handle()
 * @return as gpu_event_get_ipc_handle()
 */
GPU_API GPU_DEPRECATED("use gpu_event_get_ipc_handle()") gpu_status gpu_event_ipc_handle(const gpu_event *event, gpu_ipc_event_handle *out);

/**
 * Deprecated: use gpu_function_get_raw().
 * @param function as for gpu_function_get_raw()
 * @return as gpu_function_get_raw()
 */
GPU_API GPU_DEPRECATED("use gpu_function_get_raw()") void *gpu_function_raw(const gpu_function *function);

/**
 * Deprecated: use gpu_function_get_max_active_blocks().
 * @param function as for gpu_function_get_max_active_blocks()
 * @param block_size as for gpu_function_get_max_active_blocks()
 * @param dynamic_shared_bytes as for gpu_function_get_max_active_blocks()
 * @param out as for gpu_function_get_max_active_blocks()
 * @return as gpu_function_get_max_active_blocks()
 */
GPU_API GPU_DEPRECATED("use gpu_function_get_max_active_blocks()") gpu_status gpu_function_max_active_blocks(gpu_function *function, unsigned block_size, size_t dynamic_shared_bytes, int *out);

/**
 * Deprecated: use gpu_function_get_max_active_clusters().
 * @param function as for gpu_function_get_max_active_clusters()
 * @param config as for gpu_function_get_max_active_clusters()
 * @param out as for gpu_function_get_max_active_clusters()
 * @return as gpu_function_get_max_active_clusters()
 */
GPU_API GPU_DEPRECATED("use gpu_function_get_max_active_clusters()") gpu_status gpu_function_max_active_clusters(gpu_function *function, const gpu_launch_config *config, int *out);

/**
 * Deprecated: use gpu_function_get_occupancy_block_size().
 * @param function as for gpu_function_get_occupancy_block_size()
 * @param dynamic_shared_bytes as for gpu_function_get_occupancy_block_size()
 * @param block_size_limit as for gpu_function_get_occupancy_block_size()
 * @param min_grid_size as for gpu_function_get_occupancy_block_size()
 * @param block_size as for gpu_function_get_occupancy_block_size()
 * @return as gpu_function_get_occupancy_block_size()
 */
GPU_API GPU_DEPRECATED("use gpu_function_get_occupancy_block_size()") gpu_status gpu_function_occupancy_block_size(gpu_function *function, size_t dynamic_shared_bytes, int block_size_limit, int *min_grid_size, int *block_size);

/**
 * Deprecated: use gpu_program_get_output().
 * @param program as for gpu_program_get_output()
 * @param data as for gpu_program_get_output()
 * @param size as for gpu_program_get_output()
 * @return as gpu_program_get_output()
 */
GPU_API GPU_DEPRECATED("use gpu_program_get_output()") gpu_status gpu_program_output(const gpu_program *program, const void **data, size_t *size);

/**
 * Deprecated: use gpu_program_get_log().
 * @param program as for gpu_program_get_log()
 * @param log as for gpu_program_get_log()
 * @param size as for gpu_program_get_log()
 * @return as gpu_program_get_log()
 */
GPU_API GPU_DEPRECATED("use gpu_program_get_log()") gpu_status gpu_program_log(const gpu_program *program, const char **log, size_t *size);

/**
 * Deprecated: use gpu_program_get_lowered_name().
 * @param program as for gpu_program_get_lowered_name()
 * @param expression as for gpu_program_get_lowered_name()
 * @param out as for gpu_program_get_lowered_name()
 * @return as gpu_program_get_lowered_name()
 */
GPU_API GPU_DEPRECATED("use gpu_program_get_lowered_name()") gpu_status gpu_program_lowered_name(const gpu_program *program, const char *expression, const char **out);

/**
 * Deprecated: use gpu_program_get_cache_state().
 * @param program as for gpu_program_get_cache_state()
 * @return as gpu_program_get_cache_state()
 */
GPU_API GPU_DEPRECATED("use gpu_program_get_cache_state()") gpu_cache_state gpu_program_cache_state(const gpu_program *program);

/**
 * Deprecated: use gpu_program_get_cache_path().
 * @param program as for gpu_program_get_cache_path()
 * @return as gpu_program_get_cache_path()
 */
GPU_API GPU_DEPRECATED("use gpu_program_get_cache_path()") const char *gpu_program_cache_path(const gpu_program *program);

/**
 * Deprecated: use gpu_program_get_cache_warning().
 * @param program as for gpu_program_get_cache_warning()
 * @return as gpu_program_get_cache_warning()
 */
GPU_API GPU_DEPRECATED("use gpu_program_get_cache_warning()") const char *gpu_program_cache_warning(const gpu_program *program);

/**
 * Deprecated: use gpu_compiler_get_version().
 * @param major as for gpu_compiler_get_version()
 * @param minor as for gpu_compiler_get_version()
 * @return as gpu_compiler_get_version()
 */
GPU_API GPU_DEPRECATED("use gpu_compiler_get_version()") gpu_status gpu_compiler_version(int *major, int *minor);

/**
 * Deprecated: use gpu_stream_get_raw().
 * @param stream as for gpu_stream_get_raw()
 * @return as gpu_stream_get_raw()
 */
GPU_API GPU_DEPRECATED("use gpu_stream_get_raw()") void *gpu_stream_raw(const gpu_stream *stream);

/**
 * Deprecated: use gpu_stream_get_flags().
 * @param stream as for gpu_stream_get_flags()
 * @return as gpu_stream_get_flags()
 */
GPU_API GPU_DEPRECATED("use gpu_stream_get_flags()") unsigned gpu_stream_flags(const gpu_stream *stream);

/**
 * Deprecated: use gpu_stream_get_context().
 * @param stream as for gpu_stream_get_context()
 * @return as gpu_stream_get_context()
 */
GPU_API GPU_DEPRECATED("use gpu_stream_get_context()") gpu_context *gpu_stream_context(const gpu_stream *stream);

/**
 * Deprecated: use gpu_stream_get_priority().
 * @param stream as for gpu_stream_get_priority()
 * @param priority as for gpu_stream_get_priority()
 * @return as gpu_stream_get_priority()
 */
GPU_API GPU_DEPRECATED("use gpu_stream_get_priority()") gpu_status gpu_stream_priority(gpu_stream *stream, int *priority);

/**
 * Deprecated: use gpu_stream_get_capture_info().
 * @param stream as for gpu_stream_get_capture_info()
 * @param status as for gpu_stream_get_capture_info()
 * @param id as for gpu_stream_get_capture_info()
 * @return as gpu_stream_get_capture_info()
 */
GPU_API GPU_DEPRECATED("use gpu_stream_get_capture_info()") gpu_status gpu_stream_capture_info(gpu_stream *stream, gpu_capture_status *status, uint64_t *id);

/**
 * Deprecated: use gpu_status_get_name().
 * @param status as for gpu_status_get_name()
 * @return as gpu_status_get_name()
 */
GPU_API GPU_DEPRECATED("use gpu_status_get_name()") const char *gpu_status_name(gpu_status status);

/**
 * Deprecated: use gpu_status_get_description().
 * @param status as for gpu_status_get_description()
 * @return as gpu_status_get_description()
 */
GPU_API GPU_DEPRECATED("use gpu_status_get_description()") const char *gpu_status_str(gpu_status status);

/**
 * Deprecated: use gpu_load_stage_get_name().
 * @param stage as for gpu_load_stage_get_name()
 * @return as gpu_load_stage_get_name()
 */
GPU_API GPU_DEPRECATED("use gpu_load_stage_get_name()") const char *gpu_load_stage_name(gpu_load_stage stage);

/**
 * Deprecated: use gpu_cuda_result_get_name().
 * @param result as for gpu_cuda_result_get_name()
 * @return as gpu_cuda_result_get_name()
 */
GPU_API GPU_DEPRECATED("use gpu_cuda_result_get_name()") const char *gpu_cuda_result_name(int result);

/**
 * Deprecated: use gpu_last_error_get_message().
 * @return as gpu_last_error_get_message()
 */
GPU_API GPU_DEPRECATED("use gpu_last_error_get_message()") const char *gpu_last_error(void);

/**
 * Deprecated: use gpu_last_error_get_cuda_result().
 * @return as gpu_last_error_get_cuda_result()
 */
GPU_API GPU_DEPRECATED("use gpu_last_error_get_cuda_result()") int gpu_last_cuda_result(void);

/**
 * Deprecated: use gpu_driver_get_report().
 * @return as gpu_driver_get_report()
 */
GPU_API GPU_DEPRECATED("use gpu_driver_get_report()") const gpu_load_report *gpu_driver_report(void);

/**
 * Deprecated: use gpu_stream_is_complete().
 * @param stream as for gpu_stream_is_complete()
 * @param idle as for gpu_stream_is_complete()
 * @return as gpu_stream_is_complete()
 */
GPU_API GPU_DEPRECATED("use gpu_stream_is_complete()") gpu_status gpu_stream_query(gpu_stream *stream, bool *idle);

/**
 * Deprecated: use gpu_buffer_copy_device_ptr().
 * @param stream as for gpu_buffer_copy_device_ptr()
 * @param dst as for gpu_buffer_copy_device_ptr()
 * @param src as for gpu_buffer_copy_device_ptr()
 * @param bytes as for gpu_buffer_copy_device_ptr()
 * @return as gpu_buffer_copy_device_ptr()
 */
GPU_API GPU_DEPRECATED("use gpu_buffer_copy_device_ptr()") gpu_status gpu_stream_memcpy_dtod_sync(gpu_stream *stream, uint64_t dst, uint64_t src, size_t bytes);

/**
 * Deprecated: use gpu_buffer_destroy_async().
 * @param buffer as for gpu_buffer_destroy_async()
 * @param stream as for gpu_buffer_destroy_async()
 * @return as gpu_buffer_destroy_async()
 */
GPU_API GPU_DEPRECATED("use gpu_buffer_destroy_async()") gpu_status gpu_buffer_free_async(gpu_buffer *buffer, gpu_stream *stream);

/**
 * Deprecated: use gpu__stream_flags_from_env().
 * @param nonblocking_env as for gpu__stream_flags_from_env()
 * @return as gpu__stream_flags_from_env()
 */
GPU_API GPU_DEPRECATED("use gpu__stream_flags_from_env()") unsigned gpu_stream_create_flags(const char *nonblocking_env);

/** Deprecated: use GPU_FUNCTION_ATTR_MAX_THREADS_PER_BLOCK. */
#define GPU_FUNCTION_MAX_THREADS_PER_BLOCK GPU_FUNCTION_ATTR_MAX_THREADS_PER_BLOCK
/** Deprecated: use GPU_FUNCTION_ATTR_SHARED_BYTES. */
#define GPU_FUNCTION_SHARED_BYTES GPU_FUNCTION_ATTR_SHARED_BYTES
/** Deprecated: use GPU_FUNCTION_ATTR_CONST_BYTES. */
#define GPU_FUNCTION_CONST_BYTES GPU_FUNCTION_ATTR_CONST_BYTES
/** Deprecated: use GPU_FUNCTION_ATTR_LOCAL_BYTES. */
#define GPU_FUNCTION_LOCAL_BYTES GPU_FUNCTION_ATTR_LOCAL_BYTES
/** Deprecated: use GPU_FUNCTION_ATTR_NUM_REGS. */
#define GPU_FUNCTION_NUM_REGS GPU_FUNCTION_ATTR_NUM_REGS
/** Deprecated: use GPU_FUNCTION_ATTR_PTX_VERSION. */
#define GPU_FUNCTION_PTX_VERSION GPU_FUNCTION_ATTR_PTX_VERSION
/** Deprecated: use GPU_FUNCTION_ATTR_BINARY_VERSION. */
#define GPU_FUNCTION_BINARY_VERSION GPU_FUNCTION_ATTR_BINARY_VERSION
/** Deprecated: use GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES. */
#define GPU_FUNCTION_MAX_DYNAMIC_SHARED_BYTES GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES
/** Deprecated: use GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT. */
#define GPU_FUNCTION_PREFERRED_SHARED_CARVEOUT GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT

#if defined(__clang__)
#pragma clang deprecated(GPU_FUNCTION_MAX_THREADS_PER_BLOCK, "use GPU_FUNCTION_ATTR_MAX_THREADS_PER_BLOCK")
#pragma clang deprecated(GPU_FUNCTION_SHARED_BYTES, "use GPU_FUNCTION_ATTR_SHARED_BYTES")
#pragma clang deprecated(GPU_FUNCTION_CONST_BYTES, "use GPU_FUNCTION_ATTR_CONST_BYTES")
#pragma clang deprecated(GPU_FUNCTION_LOCAL_BYTES, "use GPU_FUNCTION_ATTR_LOCAL_BYTES")
#pragma clang deprecated(GPU_FUNCTION_NUM_REGS, "use GPU_FUNCTION_ATTR_NUM_REGS")
#pragma clang deprecated(GPU_FUNCTION_PTX_VERSION, "use GPU_FUNCTION_ATTR_PTX_VERSION")
#pragma clang deprecated(GPU_FUNCTION_BINARY_VERSION, "use GPU_FUNCTION_ATTR_BINARY_VERSION")
#pragma clang deprecated(GPU_FUNCTION_MAX_DYNAMIC_SHARED_BYTES, "use GPU_FUNCTION_ATTR_MAX_DYNAMIC_SHARED_BYTES")
#pragma clang deprecated(GPU_FUNCTION_PREFERRED_SHARED_CARVEOUT, "use GPU_FUNCTION_ATTR_PREFERRED_SHARED_CARVEOUT")
#pragma clang deprecated(GPU_DEFAULT_STREAM, "use GPU_DEVICE0_LEGACY_STREAM")
#endif

#endif /* GPUSHIM_NO_DEPRECATED */

#ifdef __cplusplus
}
#endif

#endif
