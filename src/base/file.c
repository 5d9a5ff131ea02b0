/* SPDX-License-Identifier: MIT */
/*
 * Files gpushim writes (see file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "file.h"

int gpu__file_create_unique(int dirfd, const char *prefix, const char *suffix, char *name, size_t name_size)
{
    static atomic_uint serial;

    for (int attempt = 0; attempt < 32; attempt++) {
        uint64_t r = 0;
        struct timespec ts;
        int n, fd;

        /* The kernel's randomness; where it is not there, still unique to this process and call. */
        if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
            clock_gettime(CLOCK_REALTIME, &ts);
            r = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) * 0x9e3779b97f4a7c15ull;
            r ^= (uint64_t)getpid() << 40 ^ (uint64_t)atomic_fetch_add(&serial, 1) << 20;
        }
        n = snprintf(name, name_size, "%s%016llx%s", prefix, (unsigned long long)r, suffix);
        if (n < 0 || (size_t)n >= name_size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

void gpu__xfsz_hold(struct gpu__xfsz_hold *h)
{
    sigset_t xfsz, pending;

    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz, &h->old);
    h->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
}

void gpu__xfsz_release(struct gpu__xfsz_hold *h)
{
    sigset_t xfsz, pending;
    int saved = errno;

    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    /* A write past the limit raised it at this thread, held: taken here, it never reaches the process. */
    if (!h->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ))
        (void)sigtimedwait(&xfsz, NULL, &(struct timespec){0, 0});
    pthread_sigmask(SIG_SETMASK, &h->old, NULL);
    errno = saved;
}

int gpu__file_write_all(int fd, const void *buf, size_t size)
{
    const unsigned char *p = buf;
    struct gpu__xfsz_hold hold;
    int err = 0;

    gpu__xfsz_hold(&hold);
    while (size > 0) {
        ssize_t n = write(fd, p, size);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? errno : EIO;
            break;
        }
        p += n;
        size -= (size_t)n;
    }
    gpu__xfsz_release(&hold);
    return err;
}
