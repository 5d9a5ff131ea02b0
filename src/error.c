#include <stdarg.h>
#include <stdio.h>

#include "error.h"

/* Large enough for a JIT log of a few dozen lines behind the driver's message. */
#define GPU__ERROR_MAX 4096

struct thread_error {
    const char *message;
    int cuda_result;
};

/*
 * The no-driver answer sets only the small part, so it lives in fast TLS. The
 * buffer for formatted messages is large and touched only on slower failures.
 */
static _Thread_local struct thread_error thread_error GPU__TLS_FAST;
static _Thread_local char thread_buffer[GPU__ERROR_MAX];

gpu_status gpu__fail(gpu_status status, int cuda_result, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(thread_buffer, sizeof(thread_buffer), fmt, ap);
    va_end(ap);
    thread_error.message = thread_buffer;
    thread_error.cuda_result = cuda_result;
    return status;
}

gpu_status gpu__fail_static(gpu_status status, int cuda_result, const char *message)
{
    thread_error.message = message;
    thread_error.cuda_result = cuda_result;
    return status;
}

const char *gpu_last_error(void)
{
    return thread_error.message ? thread_error.message : "";
}

int gpu_last_cuda_result(void)
{
    return thread_error.cuda_result;
}

const char *gpu_status_name(gpu_status status)
{
    switch (status) {
#define GPU_STATUS_NAME(name, text) \
    case name: \
        return #name;
        GPU_STATUS_LIST(GPU_STATUS_NAME)
#undef GPU_STATUS_NAME
    case GPU_STATUS_COUNT_:
        break;
    }
    return "GPU_STATUS_UNKNOWN";
}

const char *gpu_status_str(gpu_status status)
{
    switch (status) {
#define GPU_STATUS_STR(name, text) \
    case name: \
        return text;
        GPU_STATUS_LIST(GPU_STATUS_STR)
#undef GPU_STATUS_STR
    case GPU_STATUS_COUNT_:
        break;
    }
    return "unknown status";
}
