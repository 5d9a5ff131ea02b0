/* SPDX-License-Identifier: MIT */
/*
 * Memory that another process can map: memfds, sealed at their size, and
 * the checks a descriptor from another process passes before this one maps
 * it. A memfd's seals make sure that the process that made it cannot shrink
 * it under a mapping (which would be a SIGBUS here), and its name, which the
 * kernel reports for the descriptor, that it is one the fake made.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_core.h"
#include "fake_shm.h"

enum { SEALS = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL };

int fake_shm_create(const char *name, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

    if (fd < 0)
        return -1;
    if (size > (size_t)INT64_MAX || ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, SEALS) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

unsigned char *fake_shm_map(int fd, size_t size, size_t offset, void *at)
{
    void *p = mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd, (off_t)offset);

    return p == MAP_FAILED ? NULL : p;
}

/* The memfd name of a descriptor of this process ("memfd:NAME (deleted)" in /proc), or false. */
static bool shm_name(int fd, char *name, size_t size)
{
    static const char head[] = "/memfd:", tail[] = " (deleted)";
    char path[64], link[256];
    ssize_t n;
    size_t len;

    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    n = readlink(path, link, sizeof(link) - 1);
    if (n <= 0)
        return false;
    link[n] = '\0';
    len = (size_t)n;
    if (strncmp(link, head, sizeof(head) - 1) != 0 || len < sizeof(head) - 1 + sizeof(tail) - 1 ||
        strcmp(link + len - (sizeof(tail) - 1), tail) != 0)
        return false;
    len -= sizeof(head) - 1 + sizeof(tail) - 1;
    if (len >= size)
        return false;
    memcpy(name, link + sizeof(head) - 1, len);
    name[len] = '\0';
    return true;
}

const char *fake_shm_check(int fd, const char *prefix, size_t align, size_t max, size_t *size, char *rest,
                           size_t rest_size)
{
    struct stat st;
    char name[256];
    size_t plen = strlen(prefix);
    int seals;

    if (fd < 0 || fstat(fd, &st) != 0)
        return "not an open descriptor";
    if (!S_ISREG(st.st_mode))
        return "not a file";
    if (st.st_uid != geteuid())
        return "owned by another user";
    seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & SEALS) != SEALS)
        return "not sealed at its size (its maker could shrink it under a mapping)";
    if (st.st_size <= 0 || (uint64_t)st.st_size > max || (size_t)st.st_size % align != 0)
        return "of a size no allocation has";
    if (!shm_name(fd, name, sizeof(name)) || strncmp(name, prefix, plen) != 0 || strlen(name + plen) >= rest_size)
        return "not a memfd the fake made";
    strcpy(rest, name + plen);
    *size = (size_t)st.st_size;
    return NULL;
}
