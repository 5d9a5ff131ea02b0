/* SPDX-License-Identifier: MIT */
/*
 * fork(): a child of a process that loaded the driver gets GPU_ERR_FORKED
 * from every call, promptly and without touching the driver; a child forked
 * before any load loads its own. Children check by hand and exit with the
 * number of the first check that failed (cmocka's state is the parent's).
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_test.h"

/* The first failed check's number, or 0; what the child exits with. */
static int child_failed;

#define CHILD_CHECK(n, cond) \
    do { \
        if (!child_failed && !(cond)) \
            child_failed = (n); \
    } while (0)

static int run_child(int (*body)(void))
{
    pid_t pid = fork();
    int status = 0;

    assert_true(pid >= 0);
    if (pid == 0) {
        /* A hang is a failure too: the alarm ends the child. */
        alarm(60);
        _exit(body());
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("the child died of signal %d", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* ---- Before any load ---- */

static int child_loads_its_own(void)
{
    gpu_buffer *b = NULL;
    uint32_t v = 42, r = 0;

    /* Before cuInit the driver answers nothing else, as a real one. */
    CHILD_CHECK(6, cuDeviceGetCount(&(int){0}) == CUABI_ERROR_NOT_INITIALIZED);
    CHILD_CHECK(1, gpu_driver_load() == GPU_OK);
    CHILD_CHECK(2, gpu_fake_calls("cuInit") == 1);
    CHILD_CHECK(3, gpu_buffer_create(NULL, 4, &b) == GPU_OK);
    CHILD_CHECK(4, gpu_buffer_copy_from_host(b, &v, 4) == GPU_OK);
    CHILD_CHECK(5, gpu_buffer_copy_to_host(b, &r, 4) == GPU_OK && r == 42);
    gpu_buffer_destroy(b);
    return child_failed;
}

static void fork_before_load(void **state)
{
    (void)state;
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
    assert_int_equal(run_child(child_loads_its_own), 0);
    /* The child's load was its own: the parent has loaded nothing. */
    assert_int_equal(gpu_driver_get_report()->stage, GPU_LOAD_NOT_STARTED);
    assert_int_equal(gpu_fake_calls("cuInit"), 0);
}

/* ---- After the parent loaded ---- */

static gpu_buffer *parent_buffer;
static gpu_stream *parent_stream;
static gpu_event *parent_event;

static bool forked_error(gpu_status st)
{
    return st == GPU_ERR_FORKED && gpu_last_error_get_cuda_result() == 0 && strstr(gpu_last_error_get_message(), "fork()") != NULL;
}

static int child_is_refused(void)
{
    unsigned long calls = gpu_fake_calls_total();
    gpu_context *ctx = (gpu_context *)&calls;
    gpu_buffer *b = (gpu_buffer *)&calls;
    uint32_t v = 1;
    int n = -1;
    bool flag = false;

    CHILD_CHECK(1, forked_error(gpu_driver_load()));
    CHILD_CHECK(2, forked_error(gpu_device_get_count(&n)) && n == -1);
    CHILD_CHECK(3, forked_error(gpu_driver_get_version(&n)) && n == -1);
    CHILD_CHECK(4, forked_error(gpu_context_retain_primary(0, &ctx)) && ctx == (gpu_context *)&calls);
    CHILD_CHECK(5, forked_error(gpu_buffer_create(NULL, 4, &b)) && b == (gpu_buffer *)&calls);
    CHILD_CHECK(6, forked_error(gpu_buffer_copy_from_host(parent_buffer, &v, 4)));
    CHILD_CHECK(7, forked_error(gpu_stream_synchronize(parent_stream)));
    CHILD_CHECK(8, forked_error(gpu_stream_is_complete(parent_stream, &flag)));
    CHILD_CHECK(9, forked_error(gpu_event_synchronize(parent_event)));
    CHILD_CHECK(10, forked_error(gpu_context_synchronize(NULL)));
    /*
     * The hot calls on a stream: the parent's thread made one just before it
     * forked, and the child must not take the hot path to the driver.
     */
    CHILD_CHECK(14, forked_error(gpu_stream_record_event(parent_stream, parent_event)));
    CHILD_CHECK(15, forked_error(gpu_stream_wait_event(parent_stream, parent_event)));
    CHILD_CHECK(16, forked_error(gpu_buffer_copy_from_host_async(parent_buffer, &v, 4, parent_stream)));
    CHILD_CHECK(17, forked_error(gpu_buffer_copy_to_host_async(parent_buffer, &v, 4, parent_stream)));
    /* What the parent's load found stays readable. */
    CHILD_CHECK(11, gpu_driver_get_report()->stage == GPU_LOAD_READY);
    /* Names come from gpushim's own table: the driver is not asked. */
    CHILD_CHECK(12, strcmp(gpu_cuda_result_get_name(600), "CUDA_ERROR_NOT_READY") == 0);
    /* Destroying the parent's objects frees gpushim's part and leaves the driver alone. */
    gpu_event_destroy(parent_event);
    gpu_stream_destroy(parent_stream);
    gpu_buffer_destroy(parent_buffer);
    CHILD_CHECK(13, gpu_fake_calls_total() == calls);
    return child_failed;
}

static void fork_after_load(void **state)
{
    uint32_t v = 7, r = 0;

    (void)state;
    FT_OK(gpu_buffer_create(NULL, 4, &parent_buffer));
    FT_OK(gpu_stream_create(NULL, &parent_stream));
    FT_OK(gpu_event_create(NULL, &parent_event));
    FT_OK(gpu_buffer_copy_from_host(parent_buffer, &v, 4));
    /* A hot call last: the thread forks right after the hot path went to the driver. */
    FT_OK(gpu_stream_record_event(parent_stream, parent_event));
    assert_int_equal(run_child(child_is_refused), 0);
    /* The parent is not affected. */
    FT_OK(gpu_stream_record_event(parent_stream, parent_event));
    FT_OK(gpu_event_synchronize(parent_event));
    FT_OK(gpu_buffer_copy_to_host(parent_buffer, &r, 4));
    assert_int_equal(r, 7);
    gpu_event_destroy(parent_event);
    gpu_stream_destroy(parent_stream);
    gpu_buffer_destroy(parent_buffer);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_STREAMS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_EVENTS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fork_before_load),
        cmocka_unit_test(fork_after_load),
    };

    return cmocka_run_group_tests_name("fork", tests, NULL, NULL);
}
