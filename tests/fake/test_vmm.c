/* SPDX-License-Identifier: MIT */
/*
 * The fake's virtual memory management and memory shared between processes,
 * as a CUDA program sees it: driver calls made directly. One case per
 * process (argv[1]):
 *
 *   vmm        granularity, reservations, physical allocations, mappings and
 *              access with the driver's errors; a mapped and accessible
 *              address is device memory to copies, fills and kernels, one
 *              reserved but not mapped or not made accessible is not; two
 *              mappings of one allocation see the same bytes; a released
 *              handle lives while it is mapped
 *   vmm-sweep  each driver call of a VMM sequence, and of an IPC one, failed in
 *              turn: nothing is left alive
 *   share      a physical allocation exported as a file descriptor, passed to
 *              a second process (this program again) over a unix socket,
 *              imported, mapped, read and written there; descriptors that are
 *              not the fake's exports refused
 *   ipc        cuIpcGetMemHandle's handle opened in a second process: it reads
 *              and writes the first one's allocation; forged handles refused
 *   ipc-event  cuIpcGetEventHandle's handle opened in a second process: not
 *              ready while the first one's record waits for its stream, then
 *              waited for and done
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_test.h"

#define CU_IS(call, want) assert_int_equal((call), (want))

#define G ((size_t)2 << 20)

static const char *self_exe;

static cuabi_mem_allocation_prop device_prop(int device, unsigned types)
{
    cuabi_mem_allocation_prop prop;

    memset(&prop, 0, sizeof(prop));
    prop.type = CUABI_MEM_ALLOCATION_TYPE_PINNED;
    prop.handle_types = types;
    prop.location.type = CUABI_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    return prop;
}

static void set_access(cuabi_deviceptr ptr, size_t size, unsigned flags)
{
    cuabi_mem_access_desc a;

    memset(&a, 0, sizeof(a));
    a.location.type = CUABI_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = 0;
    a.flags = flags;
    CU_OK(cuMemSetAccess(ptr, size, &a, 1));
}

static size_t free_memory(void)
{
    size_t free_bytes = 0, total = 0;

    CU_OK(cuMemGetInfo_v2(&free_bytes, &total));
    return free_bytes;
}

/* ---- vmm ---- */

static void granularity(void)
{
    cuabi_mem_allocation_prop prop = device_prop(0, 0);
    size_t g = 0;

    CU_OK(cuMemGetAllocationGranularity(&g, &prop, CUABI_MEM_ALLOC_GRANULARITY_MINIMUM));
    assert_int_equal(g, G);
    g = 0;
    CU_OK(cuMemGetAllocationGranularity(&g, &prop, CUABI_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    assert_int_equal(g, G);
    CU_IS(cuMemGetAllocationGranularity(&g, &prop, 2), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemGetAllocationGranularity(&g, NULL, 0), CUABI_ERROR_INVALID_VALUE);
    prop.location.id = 7;
    CU_IS(cuMemGetAllocationGranularity(&g, &prop, 0), CUABI_ERROR_INVALID_DEVICE);
    prop = device_prop(0, 0);
    prop.type = 0;
    CU_IS(cuMemGetAllocationGranularity(&g, &prop, 0), CUABI_ERROR_INVALID_VALUE);
}

static void create_errors(void)
{
    cuabi_mem_allocation_prop prop = device_prop(0, 0);
    cuabi_mem_handle h = 0;

    CU_IS(cuMemCreate(&h, G / 2, &prop, 0), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemCreate(&h, 0, &prop, 0), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemCreate(&h, G, &prop, 1), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemCreate(NULL, G, &prop, 0), CUABI_ERROR_INVALID_VALUE);
    prop.handle_types = CUABI_MEM_HANDLE_TYPE_WIN32;
    CU_IS(cuMemCreate(&h, G, &prop, 0), CUABI_ERROR_INVALID_VALUE);
    prop = device_prop(1, 0);
    CU_IS(cuMemCreate(&h, G, &prop, 0), CUABI_ERROR_INVALID_DEVICE);
    prop = device_prop(0, 0);
    prop.location.type = CUABI_MEM_LOCATION_TYPE_HOST;
    CU_IS(cuMemCreate(&h, G, &prop, 0), CUABI_ERROR_NOT_SUPPORTED);
    /* More than the device has. */
    prop = device_prop(0, 0);
    CU_IS(cuMemCreate(&h, (size_t)1 << 40, &prop, 0), CUABI_ERROR_OUT_OF_MEMORY);
    CU_IS(cuMemRelease(12345), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_VMM_ALLOCS), 0);
}

/* Reserved, not mapped: not device memory. */
static void reserved_only(cuabi_deviceptr r)
{
    uint64_t base = 0;
    unsigned char byte = 1;

    CU_IS(cuMemsetD8_v2(r, 1, 16), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemcpyHtoD_v2(r, &byte, 1), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuPointerGetAttribute(&base, CUABI_POINTER_ATTRIBUTE_RANGE_START_ADDR, r), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_peek(r, &byte, 1), -1);
}

static void map_errors(cuabi_deviceptr r, cuabi_mem_handle h)
{
    CU_IS(cuMemMap(r + 4096, G, 0, h, 0), CUABI_ERROR_INVALID_VALUE);     /* not at a granule */
    CU_IS(cuMemMap(r, G / 2, 0, h, 0), CUABI_ERROR_INVALID_VALUE);        /* not granules */
    CU_IS(cuMemMap(r, G, G, h, 0), CUABI_ERROR_NOT_SUPPORTED);            /* an offset, here past the allocation */
    CU_IS(cuMemMap(r, G, 0, h, 1), CUABI_ERROR_INVALID_VALUE);            /* flags */
    CU_IS(cuMemMap(r, G, 0, 999, 0), CUABI_ERROR_INVALID_VALUE);          /* no such handle */
    CU_IS(cuMemMap(r + 3 * G, G, 0, h, 0), CUABI_ERROR_INVALID_VALUE);    /* past the reservation */
    CU_IS(cuMemMap(0x1000000, G, 0, h, 0), CUABI_ERROR_INVALID_VALUE);    /* not reserved */
}

static void fill_check(cuabi_deviceptr at, unsigned char value, size_t bytes)
{
    unsigned char *host = malloc(bytes);

    assert_non_null(host);
    CU_OK(cuMemcpyDtoH_v2(host, at, bytes));
    for (size_t i = 0; i < bytes; i++)
        if (host[i] != value)
            fail_msg("byte %zu at 0x%llx is %u, not %u", i, (unsigned long long)at, host[i], value);
    free(host);
}

/* add_one over [at, at + n words): the fake's built-in kernel. */
static cuabi_result add_one(cuabi_module m, cuabi_deviceptr at, unsigned n)
{
    cuabi_function f = NULL;
    void *params[] = {&at, &n};
    cuabi_result rc = cuModuleGetFunction(&f, m, "add_one");

    if (rc == CUABI_SUCCESS)
        rc = cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL);
    return rc == CUABI_SUCCESS ? cuCtxSynchronize() : rc;
}

/*
 * Three granules reserved at r: h1 at r, h2 at r + G, h1 again at r + 2G
 * (each one granule). A mapping is a whole allocation: not a part of one,
 * nor from an offset.
 */
static void mappings(cuabi_deviceptr r, cuabi_mem_handle h1, cuabi_mem_handle h2)
{
    unsigned long long flags = 9;
    cuabi_mem_location loc = {CUABI_MEM_LOCATION_TYPE_DEVICE, 0};
    cuabi_mem_allocation_prop prop = device_prop(0, 0);
    cuabi_mem_handle big = 0;

    CU_OK(cuMemMap(r, G, 0, h1, 0));
    CU_IS(cuMemMap(r, G, 0, h2, 0), CUABI_ERROR_INVALID_VALUE); /* mapped already */
    CU_OK(cuMemCreate(&big, 2 * G, &prop, 0));
    CU_IS(cuMemMap(r + G, G, G, big, 0), CUABI_ERROR_NOT_SUPPORTED); /* an offset */
    CU_IS(cuMemMap(r + G, G, 0, big, 0), CUABI_ERROR_NOT_SUPPORTED); /* a part */
    CU_OK(cuMemRelease(big));
    CU_OK(cuMemMap(r + G, G, 0, h2, 0));
    CU_OK(cuMemMap(r + 2 * G, G, 0, h1, 0));
    /* Mapped, not yet accessible: still not device memory. */
    CU_OK(cuMemGetAccess(&flags, &loc, r));
    assert_int_equal(flags, CUABI_MEM_ACCESS_FLAGS_PROT_NONE);
    reserved_only(r);
    CU_IS(cuMemUnmap(r, G / 2), CUABI_ERROR_INVALID_VALUE);      /* a part of a mapping */
    CU_IS(cuMemSetAccess(r, 4 * G, NULL, 1), CUABI_ERROR_INVALID_VALUE);
    /* The first mapping accessible, the second not yet: a fill stops at the first's end. */
    set_access(r, G, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CU_OK(cuMemsetD8_v2(r, 1, G));
    CU_IS(cuMemsetD8_v2(r, 1, G + 1), CUABI_ERROR_INVALID_VALUE);
    reserved_only(r + G);
    set_access(r, 3 * G, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE);
    /* Made inaccessible again, then accessible. */
    set_access(r + G, G, CUABI_MEM_ACCESS_FLAGS_PROT_NONE);
    reserved_only(r + G);
    set_access(r + G, G, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CU_OK(cuMemGetAccess(&flags, &loc, r + 2 * G + 5));
    assert_int_equal(flags, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE);
}

static void aliasing(cuabi_deviceptr r)
{
    uint32_t word = 0x12345678, back = 0;

    /* r and r + 2G map h1: one write, seen at both. */
    CU_OK(cuMemsetD8_v2(r, 0x5a, G));
    fill_check(r + 2 * G, 0x5a, G);
    CU_OK(cuMemcpyHtoD_v2(r + 2 * G + 64, &word, sizeof(word)));
    CU_OK(cuMemcpyDtoH_v2(&back, r + 64, sizeof(back)));
    assert_int_equal(back, word);
    assert_int_equal(gpu_fake_peek(r + 64, &back, sizeof(back)), 0);
    assert_int_equal(back, word);
}

static void across_the_seam(cuabi_deviceptr r, cuabi_module m)
{
    enum { N = 1024 };
    uint32_t in[N], out[N];
    cuabi_deviceptr at = r + G - N * 2; /* half in h1's mapping, half in h2's */

    for (unsigned i = 0; i < N; i++)
        in[i] = i * 3;
    CU_OK(cuMemcpyHtoD_v2(at, in, sizeof(in)));
    CU_OK(add_one(m, at, N));
    CU_OK(cuMemcpyDtoH_v2(out, at, sizeof(out)));
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(out[i], in[i] + 1);
}

static void handles(cuabi_deviceptr r, cuabi_mem_handle h1)
{
    cuabi_mem_handle again = 0;
    cuabi_mem_allocation_prop prop;

    CU_OK(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(r + 2 * G + 100)));
    assert_int_equal(again, h1);
    CU_OK(cuMemGetAllocationPropertiesFromHandle(&prop, again));
    assert_int_equal(prop.type, CUABI_MEM_ALLOCATION_TYPE_PINNED);
    assert_int_equal(prop.location.type, CUABI_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(prop.location.id, 0);
    CU_OK(cuMemRelease(again));
    CU_IS(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(r + 3 * G)), CUABI_ERROR_INVALID_VALUE);
}

static void vmm(void **state)
{
    cuabi_mem_allocation_prop prop = device_prop(0, 0);
    cuabi_mem_handle h1 = 0, h2 = 0;
    cuabi_deviceptr r = 0;
    cuabi_module m = NULL;
    size_t before;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuModuleLoadData(&m, ft_ptx));
    granularity();
    create_errors();
    before = free_memory();
    CU_IS(cuMemAddressReserve(&r, 3 * G, 3, 0, 0), CUABI_ERROR_INVALID_VALUE); /* not a power of two */
    CU_IS(cuMemAddressReserve(&r, 3 * G, 0, 0, 1), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemAddressReserve(&r, 3 * G, 0, 0, 0));
    assert_int_equal(r % G, 0);
    reserved_only(r);
    CU_OK(cuMemCreate(&h1, G, &prop, 0));
    CU_OK(cuMemCreate(&h2, G, &prop, 0));
    assert_int_equal(free_memory(), before - 2 * G);
    map_errors(r, h1);
    mappings(r, h1, h2);
    /* Released while mapped: the mappings keep the memory. */
    CU_OK(cuMemRelease(h1));
    CU_OK(cuMemRelease(h2));
    CU_IS(cuMemRelease(h1), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_VMM_ALLOCS), 2);
    aliasing(r);
    across_the_seam(r, m);
    handles(r, h1);
    CU_IS(cuMemAddressFree(r, 3 * G), CUABI_ERROR_INVALID_VALUE); /* still mapped */
    CU_OK(cuMemUnmap(r, 2 * G));
    /* Unmapped: device memory no more, to copies and kernels alike. */
    reserved_only(r);
    CU_IS(add_one(m, r, 16), CUABI_ERROR_ILLEGAL_ADDRESS);
    fill_check(r + 2 * G, 0x5a, 64);
    CU_OK(cuMemUnmap(r + 2 * G, G));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_VMM_ALLOCS), 0);
    assert_int_equal(free_memory(), before);
    CU_IS(cuMemAddressFree(r, 2 * G), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuMemAddressFree(r, 3 * G));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_VMM_RESERVATIONS), 0);
    CU_OK(cuModuleUnload(m));
}

/* ---- vmm-sweep ---- */

/* One VMM life, stopping at the first failure and undoing what was done, as a careful program would. */
static cuabi_result vmm_sequence(void)
{
    cuabi_mem_allocation_prop prop = device_prop(0, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    cuabi_mem_access_desc access = {{CUABI_MEM_LOCATION_TYPE_DEVICE, 0}, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE};
    cuabi_mem_handle h = 0, imported = 0;
    cuabi_deviceptr r = 0;
    size_t g = 0, maps = 0;
    int fd = -1;
    cuabi_result rc = cuMemGetAllocationGranularity(&g, &prop, CUABI_MEM_ALLOC_GRANULARITY_MINIMUM);

    if (rc == CUABI_SUCCESS)
        rc = cuMemAddressReserve(&r, 2 * g, 0, 0, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuMemCreate(&h, g, &prop, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuMemExportToShareableHandle(&fd, h, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    if (rc == CUABI_SUCCESS && (rc = cuMemMap(r, g, 0, h, 0)) == CUABI_SUCCESS)
        maps++;
    if (rc == CUABI_SUCCESS && (rc = cuMemMap(r + g, g, 0, imported, 0)) == CUABI_SUCCESS)
        maps++;
    if (rc == CUABI_SUCCESS)
        rc = cuMemSetAccess(r, 2 * g, &access, 1);
    if (rc == CUABI_SUCCESS)
        rc = cuMemsetD32_v2(r, 7, 2 * g / 4);
    if (maps && cuMemUnmap(r, maps * g) != CUABI_SUCCESS)
        cuMemUnmap(r, maps * g); /* a failed unmap is tried again */
    if (imported && cuMemRelease(imported) != CUABI_SUCCESS)
        cuMemRelease(imported); /* a failed release is tried again */
    if (h && cuMemRelease(h) != CUABI_SUCCESS)
        cuMemRelease(h);
    if (fd >= 0)
        close(fd);
    if (r && cuMemAddressFree(r, 2 * g) != CUABI_SUCCESS)
        cuMemAddressFree(r, 2 * g);
    return rc;
}

/* IPC handles of memory and of an event, opened and closed in this process, undone as vmm_sequence() does. */
static cuabi_result ipc_sequence(void)
{
    cuabi_ipc_mem_handle mh;
    cuabi_ipc_event_handle eh;
    cuabi_deviceptr d = 0, opened = 0;
    cuabi_event e = NULL, oe = NULL;
    cuabi_result rc = cuMemAlloc_v2(&d, G);

    if (rc == CUABI_SUCCESS)
        rc = cuIpcGetMemHandle(&mh, d);
    if (rc == CUABI_SUCCESS)
        rc = cuIpcOpenMemHandle_v2(&opened, mh, 0);
    if (rc == CUABI_SUCCESS)
        rc = cuEventCreate(&e, CUABI_EVENT_INTERPROCESS | CUABI_EVENT_DISABLE_TIMING);
    if (rc == CUABI_SUCCESS)
        rc = cuIpcGetEventHandle(&eh, e);
    if (rc == CUABI_SUCCESS)
        rc = cuIpcOpenEventHandle(&oe, eh);
    if (rc == CUABI_SUCCESS)
        rc = cuEventRecord(e, NULL);
    if (oe && cuEventDestroy_v2(oe) != CUABI_SUCCESS)
        cuEventDestroy_v2(oe);
    if (e && cuEventDestroy_v2(e) != CUABI_SUCCESS)
        cuEventDestroy_v2(e);
    if (opened && cuIpcCloseMemHandle(opened) != CUABI_SUCCESS)
        cuIpcCloseMemHandle(opened);
    if (d && cuMemFree_v2(d) != CUABI_SUCCESS)
        cuMemFree_v2(d);
    return rc;
}

/* Fails each call of `calls` in turn (its first and its second call) in `sequence`: the live counts stay as they were. */
static void sweep(cuabi_result (*sequence)(void), const char *const *calls, size_t count)
{
    gpu_fake_live_counts before, after;

    CU_OK(sequence());
    gpu_fake_live_get(&before);
    for (size_t i = 0; i < count; i++) {
        for (unsigned nth = 1; nth <= 2; nth++) {
            assert_int_equal(gpu_fake_fail(calls[i], nth, CUABI_ERROR_UNKNOWN), 0);
            sequence();
            gpu_fake_fail_reset();
            gpu_fake_live_get(&after);
            for (int k = 0; k < GPU_FAKE_LIVE_KIND_COUNT; k++)
                if (after.count[k] != before.count[k])
                    fail_msg("call %u of %s failed: live kind %d went from %ld to %ld", nth, calls[i], k,
                             before.count[k], after.count[k]);
        }
    }
}

static void vmm_sweep(void **state)
{
    static const char *const vmm_calls[] = {"cuMemGetAllocationGranularity", "cuMemAddressReserve", "cuMemCreate",
                                            "cuMemExportToShareableHandle", "cuMemImportFromShareableHandle",
                                            "cuMemMap", "cuMemSetAccess", "cuMemsetD32_v2", "cuMemUnmap",
                                            "cuMemRelease", "cuMemAddressFree"};
    static const char *const ipc_calls[] = {"cuMemAlloc_v2", "cuIpcGetMemHandle", "cuIpcOpenMemHandle_v2",
                                            "cuEventCreate", "cuIpcGetEventHandle", "cuIpcOpenEventHandle",
                                            "cuEventRecord", "cuEventDestroy_v2", "cuIpcCloseMemHandle",
                                            "cuMemFree_v2"};

    (void)state;
    ft_retain_current(0);
    sweep(vmm_sequence, vmm_calls, sizeof(vmm_calls) / sizeof(vmm_calls[0]));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_VMM_ALLOCS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_VMM_RESERVATIONS), 0);
    sweep(ipc_sequence, ipc_calls, sizeof(ipc_calls) / sizeof(ipc_calls[0]));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_EVENTS), 0);
}

/* ---- Two processes ---- */

/* Runs this program with `arg`, its fd 3 one end of a unix socket whose other end comes back. */
static pid_t spawn(const char *arg, int *sock)
{
    int pair[2];
    pid_t pid;

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (dup2(pair[1], 3) != 3)
            _exit(126);
        execl(self_exe, self_exe, arg, (char *)NULL);
        _exit(127);
    }
    close(pair[1]);
    *sock = pair[0];
    return pid;
}

static int child_status(pid_t pid)
{
    int status = 0;

    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Sends `bytes` of data and, unless -1, a descriptor with them. */
static void send_with_fd(int sock, const void *data, size_t bytes, int fd)
{
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {(void *)(uintptr_t)data, bytes};
    struct msghdr msg;

    memset(&msg, 0, sizeof(msg));
    memset(control, 0, sizeof(control));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (fd >= 0) {
        struct cmsghdr *c;

        msg.msg_control = control;
        msg.msg_controllen = sizeof(control);
        c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(fd));
    }
    if (sendmsg(sock, &msg, 0) != (ssize_t)bytes)
        fail_msg("sendmsg failed");
}

/* Receives `bytes` of data and the descriptor sent with them (-1 if none); false when the data did not come whole. */
static bool recv_with_fd(int sock, void *data, size_t bytes, int *fd)
{
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {data, bytes};
    struct msghdr msg;
    struct cmsghdr *c;

    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    *fd = -1;
    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)bytes)
        return false;
    c = CMSG_FIRSTHDR(&msg);
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(fd, CMSG_DATA(c), sizeof(*fd));
    return true;
}

/* What the first process wrote in the shared memory, and the second writes back. */
static uint32_t first_value(size_t i)
{
    return (uint32_t)(i * 2654435761u);
}

static uint32_t second_value(size_t i)
{
    return (uint32_t)(i * 40503u + 11);
}

static bool words_are(cuabi_deviceptr at, size_t n, uint32_t (*value)(size_t))
{
    uint32_t *host = malloc(n * sizeof(uint32_t));
    bool same = host && cuMemcpyDtoH_v2(host, at, n * sizeof(uint32_t)) == CUABI_SUCCESS;

    for (size_t i = 0; same && i < n; i++)
        same = host[i] == value(i);
    free(host);
    return same;
}

static cuabi_result words_write(cuabi_deviceptr at, size_t n, uint32_t (*value)(size_t))
{
    uint32_t *host = malloc(n * sizeof(uint32_t));
    cuabi_result rc;

    if (!host)
        return CUABI_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++)
        host[i] = value(i);
    rc = cuMemcpyHtoD_v2(at, host, n * sizeof(uint32_t));
    free(host);
    return rc;
}

/* The second process of "share": the descriptor comes on fd 3. Exit status: 0, or the step that failed. */
static int share_child(void)
{
    cuabi_mem_access_desc access = {{CUABI_MEM_LOCATION_TYPE_DEVICE, 0}, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE};
    cuabi_context ctx = NULL;
    cuabi_mem_handle h = 0;
    cuabi_deviceptr r = 0;
    char go = 0;
    int fd = -1;

    if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx))
        return 10;
    if (!recv_with_fd(3, &go, 1, &fd) || fd < 0)
        return 11;
    if (cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return 12;
    close(fd);
    if (cuMemAddressReserve(&r, G, 0, 0, 0) || cuMemMap(r, G, 0, h, 0) || cuMemSetAccess(r, G, &access, 1))
        return 13;
    if (!words_are(r, G / 4, first_value))
        return 14;
    if (words_write(r, G / 4, second_value) || cuMemUnmap(r, G) || cuMemRelease(h) || cuMemAddressFree(r, G))
        return 15;
    if (gpu_fake_live(GPU_FAKE_LIVE_VMM_ALLOCS) != 0)
        return 16;
    return write(3, "k", 1) == 1 ? 0 : 17;
}

/* A descriptor that is not a physical allocation the fake exported: refused, with a message. */
static void import_refused(int fd)
{
    cuabi_mem_handle h = 0;

    CU_IS(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
          CUABI_ERROR_INVALID_VALUE);
    close(fd);
}

static int memfd_of(const char *name, size_t size, unsigned seals)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    if (seals)
        assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
    return fd;
}

static void hostile_imports(void)
{
    enum { SEALED = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL };
    cuabi_mem_handle h = 0;
    char path[] = "/tmp/gpushim-vmm-XXXXXX";
    int fd, pipes[2];

    import_refused(memfd_of("gpushim-fake-vmm:0", G, 0));                 /* it could shrink under a mapping */
    import_refused(memfd_of("gpushim-fake-vmm:0", G, F_SEAL_GROW));       /* likewise */
    import_refused(memfd_of("someone-else", G, SEALED));                  /* not the fake's */
    import_refused(memfd_of("gpushim-fake-vmm:0", G + 4096, SEALED));     /* not granules */
    import_refused(memfd_of("gpushim-fake-vmm:5", G, SEALED));            /* no such device here */
    import_refused(memfd_of("gpushim-fake-vmm:0x", G, SEALED));
    import_refused(memfd_of("gpushim-fake-vmm:0", (size_t)1 << 40, SEALED)); /* more than the device has */
    fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    assert_int_equal(ftruncate(fd, (off_t)G), 0);
    import_refused(fd); /* a plain file */
    assert_int_equal(pipe(pipes), 0);
    close(pipes[1]);
    import_refused(pipes[0]);
    CU_IS(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)-1, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
          CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)1000000, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
          CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_VMM_ALLOCS), 0);
}

static void export_errors(void)
{
    cuabi_mem_allocation_prop plain = device_prop(0, 0), shareable = device_prop(0, 1);
    cuabi_mem_handle h = 0, s = 0;
    int fd = -1;

    CU_OK(cuMemCreate(&h, G, &plain, 0));
    CU_OK(cuMemCreate(&s, G, &shareable, 0));
    /* Created without the descriptor type: it does not export to one. */
    CU_IS(cuMemExportToShareableHandle(&fd, h, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
          CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemExportToShareableHandle(&fd, s, CUABI_MEM_HANDLE_TYPE_WIN32, 0), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemExportToShareableHandle(&fd, s, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1),
          CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemExportToShareableHandle(NULL, s, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
          CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)0, CUABI_MEM_HANDLE_TYPE_WIN32),
          CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(fd, -1);
    CU_OK(cuMemRelease(h));
    CU_OK(cuMemRelease(s));
}

static void share(void **state)
{
    cuabi_mem_allocation_prop prop = device_prop(0, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    cuabi_mem_handle h = 0;
    cuabi_deviceptr r = 0;
    char done = 0;
    int fd = -1, sock = -1, unused = -1;
    pid_t pid;

    (void)state;
    ft_retain_current(0);
    export_errors();
    hostile_imports();
    CU_OK(cuMemCreate(&h, G, &prop, 0));
    CU_OK(cuMemAddressReserve(&r, G, 0, 0, 0));
    CU_OK(cuMemMap(r, G, 0, h, 0));
    set_access(r, G, CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CU_OK(words_write(r, G / 4, first_value));
    CU_OK(cuMemExportToShareableHandle(&fd, h, CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    assert_true(fd >= 0);
    pid = spawn("share-child", &sock);
    send_with_fd(sock, "g", 1, fd);
    close(fd);
    assert_true(recv_with_fd(sock, &done, 1, &unused));
    assert_int_equal(done, 'k');
    assert_int_equal(child_status(pid), 0);
    close(sock);
    /* The second process's writes are in this one's memory. */
    assert_true(words_are(r, G / 4, second_value));
    CU_OK(cuMemUnmap(r, G));
    CU_OK(cuMemRelease(h));
    CU_OK(cuMemAddressFree(r, G));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_VMM_ALLOCS), 0);
}

/* ---- ipc ---- */

/* A copy of `h` with the payload's field at `offset` (see fake_ipc.c) changed by `delta`. */
static cuabi_ipc_mem_handle forged(const cuabi_ipc_mem_handle *h, size_t offset, size_t width, int64_t delta)
{
    cuabi_ipc_mem_handle f = *h;
    int64_t v = 0;

    memcpy(&v, f.reserved + offset, width);
    v += delta;
    memcpy(f.reserved + offset, &v, width);
    return f;
}

/* Handles that are not what they say: refused, nothing mapped. */
static int forged_handles(const cuabi_ipc_mem_handle *h)
{
    static const struct {
        size_t offset, width;
        int64_t delta;
        cuabi_result want;
    } cases[] = {
        {0, 1, 1, CUABI_ERROR_INVALID_VALUE},          /* magic */
        {8, 8, 1 << 22, CUABI_ERROR_INVALID_HANDLE},   /* a process that is not there (past pid_max) */
        {24, 8, 4096, CUABI_ERROR_INVALID_HANDLE},     /* a size the allocation has not */
        {24, 8, -(int64_t)G, CUABI_ERROR_INVALID_VALUE}, /* none */
        {32, 8, 1, CUABI_ERROR_INVALID_HANDLE},        /* another allocation's name */
        {40, 4, -1, CUABI_ERROR_INVALID_HANDLE},       /* another descriptor of the exporter */
        {44, 4, 7, CUABI_ERROR_INVALID_VALUE},         /* no such device */
    };
    cuabi_deviceptr d = 0;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cuabi_ipc_mem_handle f = forged(h, cases[i].offset, cases[i].width, cases[i].delta);

        if (cuIpcOpenMemHandle_v2(&d, f, 0) != cases[i].want)
            return 30 + (int)i;
    }
    return gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS) == 0 ? 0 : 29;
}

/* The second process of "ipc": the handle comes on fd 3. Exit status: 0, or the step that failed. */
static int ipc_child(void)
{
    cuabi_ipc_mem_handle h;
    cuabi_context ctx = NULL;
    cuabi_deviceptr d = 0;
    int fd = -1, rc;

    if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx))
        return 10;
    if (!recv_with_fd(3, &h, sizeof(h), &fd))
        return 11;
    if ((rc = forged_handles(&h)) != 0)
        return rc;
    if (cuIpcOpenMemHandle_v2(&d, h, CUABI_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
        return 12;
    if (!words_are(d, G / 4, first_value))
        return 13;
    /* Another process's memory: closed, never freed. */
    if (cuMemFree_v2(d) != CUABI_ERROR_INVALID_VALUE)
        return 14;
    if (words_write(d, G / 4, second_value) || cuIpcCloseMemHandle(d))
        return 15;
    if (gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS) != 0 || cuMemsetD8_v2(d, 0, 1) != CUABI_ERROR_INVALID_VALUE)
        return 16;
    return write(3, "k", 1) == 1 ? 0 : 17;
}

static void ipc(void **state)
{
    cuabi_ipc_mem_handle h;
    cuabi_deviceptr d = 0;
    char done = 0;
    int sock = -1, unused = -1;
    pid_t pid;

    (void)state;
    ft_retain_current(0);
    CU_OK(cuMemAlloc_v2(&d, G));
    CU_OK(words_write(d, G / 4, first_value));
    CU_OK(cuIpcGetMemHandle(&h, d));
    pid = spawn("ipc-child", &sock);
    send_with_fd(sock, &h, sizeof(h), -1);
    assert_true(recv_with_fd(sock, &done, 1, &unused));
    assert_int_equal(done, 'k');
    assert_int_equal(child_status(pid), 0);
    close(sock);
    assert_true(words_are(d, G / 4, second_value));
    /* Written before and after the handle was made: the memory is the same allocation throughout. */
    CU_OK(cuMemFree_v2(d));
    assert_int_equal(gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS), 0);
}

/* ---- ipc-event ---- */

/* Reads one byte from fd 3 (or `sock`): false at the end. */
static bool recv_byte(int sock, char *c)
{
    return read(sock, c, 1) == 1;
}

/* The second process of "ipc-event": the handle comes on fd 3. Exit status: 0, or the step that failed. */
static int ipc_event_child(void)
{
    const struct timespec tick = {0, 1000000};
    cuabi_ipc_event_handle h, bad;
    cuabi_context ctx = NULL;
    cuabi_event e = NULL;
    cuabi_result q;
    int fd = -1;

    if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx))
        return 10;
    if (!recv_with_fd(3, &h, sizeof(h), &fd))
        return 11;
    bad = h;
    bad.reserved[32] ^= 1; /* another event's page */
    if (cuIpcOpenEventHandle(&e, bad) != CUABI_ERROR_INVALID_HANDLE || gpu_fake_live(GPU_FAKE_LIVE_EVENTS) != 0)
        return 12;
    if (cuIpcOpenEventHandle(&e, h) || cuEventQuery(e) != CUABI_SUCCESS) /* never recorded: done */
        return 13;
    if (write(3, "o", 1) != 1)
        return 14;
    /* The first process records behind a held kernel: not ready until it runs there. */
    while ((q = cuEventQuery(e)) == CUABI_SUCCESS)
        nanosleep(&tick, NULL);
    if (q != CUABI_ERROR_NOT_READY || write(3, "r", 1) != 1)
        return 15;
    if (cuEventSynchronize(e) || cuEventQuery(e) || cuStreamWaitEvent(NULL, e, 0) || cuCtxSynchronize())
        return 16;
    if (cuEventDestroy_v2(e) || gpu_fake_live(GPU_FAKE_LIVE_EVENTS) != 0)
        return 17;
    return 0;
}

struct recorder {
    cuabi_context ctx;
    cuabi_event event;
    cuabi_stream stream;
    cuabi_result rc;
};

static void *record(void *arg)
{
    struct recorder *r = arg;

    r->rc = cuCtxSetCurrent(r->ctx);
    if (r->rc == CUABI_SUCCESS)
        r->rc = cuEventRecord(r->event, r->stream);
    return NULL;
}

static void ipc_event(void **state)
{
    struct recorder r = {.ctx = ft_retain_current(0)};
    cuabi_ipc_event_handle h;
    cuabi_module m = NULL;
    cuabi_function hold = NULL;
    pthread_t thread;
    char c = 0;
    int sock = -1;
    pid_t pid;

    (void)state;
    CU_OK(cuModuleLoadData(&m, ft_ptx));
    CU_OK(cuModuleGetFunction(&hold, m, "hold"));
    CU_OK(cuStreamCreate(&r.stream, 0));
    CU_OK(cuEventCreate(&r.event, CUABI_EVENT_INTERPROCESS | CUABI_EVENT_DISABLE_TIMING));
    CU_OK(cuIpcGetEventHandle(&h, r.event));
    pid = spawn("ipc-event-child", &sock);
    send_with_fd(sock, &h, sizeof(h), -1);
    assert_true(recv_byte(sock, &c));
    assert_int_equal(c, 'o');
    gpu_fake_gate(false);
    CU_OK(cuLaunchKernel(hold, 1, 1, 1, 1, 1, 1, 0, r.stream, NULL, NULL));
    assert_int_equal(pthread_create(&thread, NULL, record, &r), 0);
    /* The second process saw the record not yet run; the kernel goes on, and the record runs. */
    assert_true(recv_byte(sock, &c));
    assert_int_equal(c, 'r');
    gpu_fake_gate(true);
    assert_int_equal(pthread_join(thread, NULL), 0);
    CU_OK(r.rc);
    assert_int_equal(child_status(pid), 0);
    close(sock);
    CU_OK(cuEventDestroy_v2(r.event));
    CU_OK(cuStreamDestroy_v2(r.stream));
    CU_OK(cuModuleUnload(m));
}

int main(int argc, char **argv)
{
    static const ft_case cases[] = {
        {"vmm", cmocka_unit_test(vmm)},
        {"vmm-sweep", cmocka_unit_test(vmm_sweep)},
        {"share", cmocka_unit_test(share)},
        {"ipc", cmocka_unit_test(ipc)},
        {"ipc-event", cmocka_unit_test(ipc_event)},
    };

    self_exe = argv[0];
    if (argc == 2 && strcmp(argv[1], "share-child") == 0)
        return share_child();
    if (argc == 2 && strcmp(argv[1], "ipc-child") == 0)
        return ipc_child();
    if (argc == 2 && strcmp(argv[1], "ipc-event-child") == 0)
        return ipc_event_child();
    return ft_run_case(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
