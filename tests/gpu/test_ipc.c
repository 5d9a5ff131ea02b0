/* SPDX-License-Identifier: MIT */
/*
 * IPC across processes on the GPU. Two processes: this test is
 * the producer, and runs itself again (fork and exec, so the child starts
 * CUDA afresh) as the consumer: the producer queues a long kernel and then a
 * fill on its buffer, records an interprocess event, and sends both handles
 * down a pipe at once; the consumer opens them, makes its stream wait on the
 * event, reads the buffer and checks every word. Then a producer that exits
 * before its handle is opened: the open must fail with a clear error.
 * Figures on lines starting "IPC ".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

enum { N = 1 << 20, VALUE = 0x5eed1e55 };

struct handles {
    gpu_ipc_handle mem;
    gpu_ipc_event_handle event;
};

/* This program, to run again: argv[0] (under a tool that wraps it, /proc/self/exe would be the tool). */
static const char *self_path = "/proc/self/exe";

/* Runs this program with `role` and the pipe's write end (producer) or read end (consumer). */
static pid_t spawn(const char *role, int fd, int other)
{
    pid_t pid = fork();

    if (pid == 0) {
        char arg[16];

        close(other);
        snprintf(arg, sizeof(arg), "%d", fd);
        execl(self_path, self_path, role, arg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int wait_exit(pid_t pid)
{
    int status = 0;

    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- The child roles ---- */

static int consume(int fd)
{
    static uint32_t host[N];
    struct handles h;
    gpu_buffer *b;
    gpu_event *e;
    gpu_stream *s;
    uint64_t t0;
    uint32_t bad = 0;

    if (read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
        return 2;
    /* A claim beyond the allocation (1 GiB for N words) is refused: the size is the driver's. */
    {
        gpu_ipc_handle big = h.mem;
        gpu_buffer *wrong = NULL;
        gpu_status st;

        big.size = 1ull << 30;
        st = gpu_buffer_open_ipc(NULL, &big, &wrong);
        if (st != GPU_ERR_INVALID_ARG || wrong) {
            printf("IPC consumer: a 1 GiB claim on a %zu-byte buffer: %s: %s\n", (size_t)h.mem.size,
                   gpu_status_get_name(st), gpu_last_error_get_message());
            return 6;
        }
    }
    if (gpu_buffer_open_ipc(NULL, &h.mem, &b) != GPU_OK || gpu_event_open_ipc(NULL, &h.event, &e) != GPU_OK ||
        gpu_stream_create_non_blocking(NULL, &s) != GPU_OK) {
        printf("IPC consumer: %s\n", gpu_last_error_get_message());
        return 3;
    }
    t0 = gpu_test_now_ns();
    if (gpu_stream_wait_event(s, e) != GPU_OK ||
        gpu_buffer_copy_to_host_async(b, host, (size_t)N * sizeof(uint32_t), s) != GPU_OK ||
        gpu_stream_synchronize(s) != GPU_OK) {
        printf("IPC consumer: %s\n", gpu_last_error_get_message());
        return 4;
    }
    for (uint32_t i = 0; i < N; i++)
        bad += host[i] != VALUE;
    printf("IPC consumer: opened a %zu-byte buffer and an event of process %d, waited %.1f ms for the event, "
           "read %u wrong words of %u\n", gpu_buffer_get_size(b), (int)getppid(), (double)(gpu_test_now_ns() - t0) / 1e6,
           bad, N);
    gpu_stream_destroy(s);
    gpu_event_destroy(e);
    gpu_buffer_destroy(b);
    return bad ? 5 : 0;
}

static int produce_and_exit(int fd)
{
    struct handles h;
    gpu_buffer *b;
    gpu_event *e;

    if (gpu_buffer_create(NULL, 4096, &b) != GPU_OK || gpu_buffer_get_ipc_handle(b, &h.mem) != GPU_OK ||
        gpu_event_create_interprocess(NULL, &e) != GPU_OK || gpu_event_get_ipc_handle(e, &h.event) != GPU_OK)
        return 2;
    if (write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
        return 3;
    return 0;
}

/* ---- The tests ---- */

static void producer_and_consumer(void **state)
{
    struct handles h;
    gpu_buffer *b;
    gpu_event *e;
    gpu_stream *s;
    int fds[2];
    pid_t pid;

    (void)state;
    assert_gpu_ok(gpu_stream_create_non_blocking(NULL, &s));
    assert_gpu_ok(gpu_buffer_create(NULL, (size_t)N * sizeof(uint32_t), &b));
    assert_gpu_ok(gpu_event_create_interprocess(NULL, &e));
    assert_gpu_ok(gpu_test_launch_fill(s, b, 0, N));
    assert_gpu_ok(gpu_stream_synchronize(s));
    /* The fill comes after 300 ms of spinning: the consumer must wait for the event to see it. */
    assert_gpu_ok(gpu_test_launch_spin(s, 300u * 1000u * 1000u));
    assert_gpu_ok(gpu_test_launch_fill(s, b, VALUE, N));
    assert_gpu_ok(gpu_stream_record_event(s, e));
    assert_gpu_ok(gpu_buffer_get_ipc_handle(b, &h.mem));
    assert_gpu_ok(gpu_event_get_ipc_handle(e, &h.event));
    assert_int_equal(pipe(fds), 0);
    pid = spawn("--consumer", fds[0], fds[1]);
    assert_true(pid > 0);
    close(fds[0]);
    assert_int_equal(write(fds[1], &h, sizeof(h)), (ssize_t)sizeof(h));
    close(fds[1]);
    assert_int_equal(wait_exit(pid), 0);
    printf("IPC two processes: consumer waited on the producer's event and read the right data\n");
    assert_gpu_ok(gpu_stream_synchronize(s));
    gpu_event_destroy(e);
    gpu_buffer_destroy(b);
    gpu_stream_destroy(s);
}

static void dead_producer(void **state)
{
    struct handles h;
    gpu_buffer *b = NULL;
    gpu_event *e = NULL;
    gpu_status st;
    int fds[2];
    pid_t pid;

    (void)state;
    assert_int_equal(pipe(fds), 0);
    pid = spawn("--produce-and-exit", fds[1], fds[0]);
    assert_true(pid > 0);
    close(fds[1]);
    assert_int_equal(read(fds[0], &h, sizeof(h)), (ssize_t)sizeof(h));
    close(fds[0]);
    assert_int_equal(wait_exit(pid), 0);
    st = gpu_buffer_open_ipc(NULL, &h.mem, &b);
    printf("IPC dead producer: buffer open: %s: %s\n", gpu_status_get_name(st), gpu_last_error_get_message());
    assert_int_not_equal(st, GPU_OK);
    assert_null(b);
    assert_true(strlen(gpu_last_error_get_message()) > 0);
    st = gpu_event_open_ipc(NULL, &h.event, &e);
    printf("IPC dead producer: event open: %s: %s\n", gpu_status_get_name(st), st == GPU_OK ? "" : gpu_last_error_get_message());
    gpu_event_destroy(e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(producer_and_consumer),
        cmocka_unit_test(dead_producer),
    };
    int rc;

    if (argc > 0 && strchr(argv[0], '/'))
        self_path = argv[0];
    if (argc == 3 && strcmp(argv[1], "--consumer") == 0)
        return consume(atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "--produce-and-exit") == 0)
        return produce_and_exit(atoi(argv[2]));
    rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-ipc");
    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
