/* SPDX-License-Identifier: MIT */
/* The deprecated names of include/gpushim/deprecated.h: each calls the function that replaced it. */
#include "private.h"
#include "gpushim/deprecated.h"

/* The deprecated functions call their replacements; their own declarations warn. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

uint64_t gpu_buffer_device_ptr(const gpu_buffer *buffer)
{
    return gpu_buffer_get_device_ptr(buffer);
}

size_t gpu_buffer_size(const gpu_buffer *buffer)
{
    return gpu_buffer_get_size(buffer);
}

gpu_context *gpu_buffer_context(const gpu_buffer *buffer)
{
    return gpu_buffer_get_context(buffer);
}

void *gpu_buffer_managed_data(const gpu_buffer *buffer)
{
    return gpu_buffer_get_managed_data(buffer);
}

gpu_status gpu_buffer_ipc_handle(const gpu_buffer *buffer, gpu_ipc_handle *out)
{
    return gpu_buffer_get_ipc_handle(buffer, out);
}

void *gpu_host_buffer_data(const gpu_host_buffer *buffer)
{
    return gpu_host_buffer_get_data(buffer);
}

size_t gpu_host_buffer_size(const gpu_host_buffer *buffer)
{
    return gpu_host_buffer_get_size(buffer);
}

int gpu_context_device(const gpu_context *ctx)
{
    return gpu_context_get_device(ctx);
}

void *gpu_context_raw(const gpu_context *ctx)
{
    return gpu_context_get_raw(ctx);
}

gpu_status gpu_context_memory_info(gpu_context *ctx, size_t *free_bytes, size_t *total_bytes)
{
    return gpu_context_get_memory_info(ctx, free_bytes, total_bytes);
}

gpu_status gpu_context_pool_release_threshold(gpu_context *ctx, uint64_t *bytes)
{
    return gpu_context_pool_get_release_threshold(ctx, bytes);
}

gpu_status gpu_context_pool_usage(gpu_context *ctx, uint64_t *reserved, uint64_t *used)
{
    return gpu_context_pool_get_usage(ctx, reserved, used);
}

gpu_status gpu_context_stream_priority_range(gpu_context *ctx, int *least, int *greatest)
{
    return gpu_context_get_stream_priority_range(ctx, least, greatest);
}

gpu_status gpu_device_count(int *out)
{
    return gpu_device_get_count(out);
}

gpu_status gpu_driver_version(int *out)
{
    return gpu_driver_get_version(out);
}

gpu_status gpu_driver_symbol(const char *symbol, void **out)
{
    return gpu_driver_get_symbol(symbol, out);
}

gpu_status gpu_cuda_symbol(size_t index, const char **name, void **target)
{
    return gpu_cuda_get_symbol(index, name, target);
}

size_t gpu_cuda_symbol_count(void)
{
    return gpu_cuda_get_symbol_count();
}

void *gpu_event_raw(const gpu_event *event)
{
    return gpu_event_get_raw(event);
}

gpu_status gpu_event_elapsed_ms(gpu_event *start, gpu_event *end, float *ms)
{
    return gpu_event_get_elapsed_ms(start, end, ms);
}

gpu_status gpu_event_ipc_handle(const gpu_event *event, gpu_ipc_event_handle *out)
{
    return gpu_event_get_ipc_handle(event, out);
}

void *gpu_function_raw(const gpu_function *function)
{
    return gpu_function_get_raw(function);
}

gpu_status gpu_function_max_active_blocks(gpu_function *function, unsigned block_size, size_t dynamic_shared_bytes, int *out)
{
    return gpu_function_get_max_active_blocks(function, block_size, dynamic_shared_bytes, out);
}

gpu_status gpu_function_max_active_clusters(gpu_function *function, const gpu_launch_config *config, int *out)
{
    return gpu_function_get_max_active_clusters(function, config, out);
}

gpu_status gpu_function_occupancy_block_size(gpu_function *function, size_t dynamic_shared_bytes, int block_size_limit, int *min_grid_size, int *block_size)
{
    return gpu_function_get_occupancy_block_size(function, dynamic_shared_bytes, block_size_limit, min_grid_size, block_size);
}

gpu_status gpu_program_output(const gpu_program *program, const void **data, size_t *size)
{
    return gpu_program_get_output(program, data, size);
}

gpu_status gpu_program_log(const gpu_program *program, const char **log, size_t *size)
{
    return gpu_program_get_log(program, log, size);
}

gpu_status gpu_program_lowered_name(const gpu_program *program, const char *expression, const char **out)
{
    return gpu_program_get_lowered_name(program, expression, out);
}

gpu_cache_state gpu_program_cache_state(const gpu_program *program)
{
    return gpu_program_get_cache_state(program);
}

const char *gpu_program_cache_path(const gpu_program *program)
{
    return gpu_program_get_cache_path(program);
}

const char *gpu_program_cache_warning(const gpu_program *program)
{
    return gpu_program_get_cache_warning(program);
}

gpu_status gpu_compiler_version(int *major, int *minor)
{
    return gpu_compiler_get_version(major, minor);
}

void *gpu_stream_raw(const gpu_stream *stream)
{
    return gpu_stream_get_raw(stream);
}

unsigned gpu_stream_flags(const gpu_stream *stream)
{
    return gpu_stream_get_flags(stream);
}

gpu_context *gpu_stream_context(const gpu_stream *stream)
{
    return gpu_stream_get_context(stream);
}

gpu_status gpu_stream_priority(gpu_stream *stream, int *priority)
{
    return gpu_stream_get_priority(stream, priority);
}

gpu_status gpu_stream_capture_info(gpu_stream *stream, gpu_capture_status *status, uint64_t *id)
{
    return gpu_stream_get_capture_info(stream, status, id);
}

const char *gpu_status_name(gpu_status status)
{
    return gpu_status_get_name(status);
}

const char *gpu_status_str(gpu_status status)
{
    return gpu_status_get_description(status);
}

const char *gpu_load_stage_name(gpu_load_stage stage)
{
    return gpu_load_stage_get_name(stage);
}

const char *gpu_cuda_result_name(int result)
{
    return gpu_cuda_result_get_name(result);
}

const char *gpu_last_error(void)
{
    return gpu_last_error_get_message();
}

int gpu_last_cuda_result(void)
{
    return gpu_last_error_get_cuda_result();
}

const gpu_load_report *gpu_driver_report(void)
{
    return gpu_driver_get_report();
}

gpu_status gpu_stream_query(gpu_stream *stream, bool *idle)
{
    return gpu_stream_is_complete(stream, idle);
}

gpu_status gpu_stream_memcpy_dtod_sync(gpu_stream *stream, uint64_t dst, uint64_t src, size_t bytes)
{
    return gpu_buffer_copy_device_ptr(stream, dst, src, bytes);
}

gpu_status gpu_buffer_free_async(gpu_buffer *buffer, gpu_stream *stream)
{
    return gpu_buffer_destroy_async(buffer, stream);
}

unsigned gpu_stream_create_flags(const char *nonblocking_env)
{
    return gpu__stream_flags_from_env(nonblocking_env);
}
