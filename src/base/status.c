/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"

/* Large enough for a JIT log of a few dozen lines behind the driver's message. */
#define GPU__ERROR_MAX 4096

struct thread_error {
    const char *message;
    int cuda_result;
};

/*
 * The no-driver answer sets only this small part, so it is all the TLS there
 * is (see GPU__TLS_FAST). The buffer for formatted messages is allocated at a
 * thread's first formatted failure and kept under a pthread key, whose
 * destructor (libc's free) releases it when the thread exits.
 */
static _Thread_local struct thread_error thread_error GPU__TLS_FAST;

static pthread_once_t buffer_once = PTHREAD_ONCE_INIT;
static pthread_key_t buffer_key;
static bool buffer_key_made;

/* When the buffer cannot be had: the failure is still reported, less precisely. */
static const char no_buffer_message[] = "gpushim: the call failed; no memory was left to describe how";

static void buffer_key_create(void)
{
    buffer_key_made = pthread_key_create(&buffer_key, free) == 0;
}

/*
 * libgpushim.so is never unloaded (-z nodelete), but a plugin that embeds
 * libgpushim.a may be: give the key back then, with this thread's buffer.
 * Buffers of other threads still alive at that moment are not reachable.
 */
__attribute__((destructor)) static void buffer_key_delete(void)
{
    char *buf;

    if (!buffer_key_made)
        return;
    buf = pthread_getspecific(buffer_key);
    /* A later gpu_last_error_get_message() on this thread (an atexit handler's) must not read what is freed. */
    if (buf && thread_error.message == buf)
        thread_error.message = NULL;
    free(buf);
    pthread_key_delete(buffer_key);
    buffer_key_made = false;
}

static char *thread_buffer(void)
{
    char *buf;

    pthread_once(&buffer_once, buffer_key_create);
    if (!buffer_key_made)
        return NULL;
    buf = pthread_getspecific(buffer_key);
    if (!buf && (buf = malloc(GPU__ERROR_MAX)) && pthread_setspecific(buffer_key, buf) != 0) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

gpu_status gpu__fail(gpu_status status, int cuda_result, const char *fmt, ...)
{
    char *buf = thread_buffer();
    va_list ap;

    if (buf) {
        va_start(ap, fmt);
        vsnprintf(buf, GPU__ERROR_MAX, fmt, ap);
        va_end(ap);
    }
    thread_error.message = buf ? buf : no_buffer_message;
    thread_error.cuda_result = cuda_result;
    return status;
}

gpu_status gpu__fail_static(gpu_status status, int cuda_result, const char *message)
{
    thread_error.message = message;
    thread_error.cuda_result = cuda_result;
    return status;
}

const char *gpu_last_error_get_message(void)
{
    return thread_error.message ? thread_error.message : "";
}

int gpu_last_error_get_cuda_result(void)
{
    return thread_error.cuda_result;
}

const char *gpu_status_get_name(gpu_status status)
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

const char *gpu_status_get_description(gpu_status status)
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
