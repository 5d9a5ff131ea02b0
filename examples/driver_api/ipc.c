/* SPDX-License-Identifier: MIT */
/*
 * ipc: device memory shared between two processes. The parent allocates and
 * fills a buffer, exports it (cuIpcGetMemHandle) and starts a second process
 * (fork, then exec of this same program) that reads the handle from its
 * standard input, opens it (cuIpcOpenMemHandle), checks what the parent
 * wrote, writes new values and closes it. The parent waits for it and checks
 * that the new values are in its buffer.
 *
 * usage: ipc
 */
#include "common.h"

#include <signal.h>
#include <sys/wait.h>

enum { N = 1 << 16 };

static unsigned parent_value(size_t i)
{
    return (unsigned)(i * 3 + 1);
}

static unsigned child_value(size_t i)
{
    return (unsigned)(i * 7 + 2);
}

static CUcontext context_open(CUdevice *dev)
{
    CUcontext ctx;

    CHECK(cuInit(0));
    CHECK(cuDeviceGet(dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, *dev));
    CHECK(cuCtxSetCurrent(ctx));
    return ctx;
}

/* The second process: the handle arrives on standard input. */
static int child(void)
{
    static unsigned host[N];
    CUipcMemHandle handle;
    CUdeviceptr d;
    CUdevice dev;
    size_t done = 0;

    context_open(&dev);
    while (done < sizeof(handle)) {
        ssize_t got = read(STDIN_FILENO, (char *)&handle + done, sizeof(handle) - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            fprintf(stderr, "ipc child: the handle did not arrive whole\n");
            return 1;
        }
        done += (size_t)got;
    }
    CHECK(cuIpcOpenMemHandle(&d, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CHECK(cuMemcpyDtoH(host, d, sizeof(host)));
    for (size_t i = 0; i < N; i++)
        if (host[i] != parent_value(i)) {
            fprintf(stderr, "ipc child: word %zu is %u, the parent wrote %u\n", i, host[i], parent_value(i));
            result_wrong("the child's view of the parent's buffer");
        }
    printf("ipc child: opened the parent's buffer: %d words as the parent wrote them\n", N);
    for (size_t i = 0; i < N; i++)
        host[i] = child_value(i);
    CHECK(cuMemcpyHtoD(d, host, sizeof(host)));
    CHECK(cuCtxSynchronize());
    CHECK(cuIpcCloseMemHandle(d));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("ipc child: wrote new values and closed the handle\n");
    return 0;
}

int main(int argc, char **argv)
{
    static unsigned host[N];
    CUipcMemHandle handle;
    CUdeviceptr d;
    CUdevice dev;
    int to_child[2], status = 0;
    pid_t pid;

    if (argc == 2 && strcmp(argv[1], "--child") == 0)
        return child();
    if (argc != 1)
        usage(argv[0], "");

    context_open(&dev);
    for (size_t i = 0; i < N; i++)
        host[i] = parent_value(i);
    CHECK(cuMemAlloc(&d, sizeof(host)));
    CHECK(cuMemcpyHtoD(d, host, sizeof(host)));
    CHECK(cuIpcGetMemHandle(&handle, d));
    printf("ipc: %d words written and exported; starting the second process\n", N);

    if (pipe(to_child) != 0) {
        perror("pipe");
        return 1;
    }
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        /* Only exec between fork and exec: the driver's state is not the child's. */
        if (dup2(to_child[0], STDIN_FILENO) < 0)
            _exit(127);
        close(to_child[0]);
        close(to_child[1]);
        execl("/proc/self/exe", argv[0], "--child", (char *)NULL);
        _exit(127);
    }
    close(to_child[0]);
    /* A second process that died early must not take this one with it (SIGPIPE). */
    signal(SIGPIPE, SIG_IGN);
    if (write(to_child[1], &handle, sizeof(handle)) != (ssize_t)sizeof(handle))
        perror("ipc: writing the handle");
    close(to_child[1]);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            perror("waitpid");
            return 1;
        }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "ipc: the second process failed (status %#x)\n", (unsigned)status);
        return 1;
    }

    CHECK(cuMemcpyDtoH(host, d, sizeof(host)));
    for (size_t i = 0; i < N; i++)
        if (host[i] != child_value(i)) {
            fprintf(stderr, "ipc: word %zu is %u, the child wrote %u\n", i, host[i], child_value(i));
            result_wrong("the parent's buffer after the child wrote it");
        }
    printf("ipc: the second process's values are in the parent's buffer\n");
    CHECK(cuMemFree(d));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("ipc: ok\n");
    return 0;
}
