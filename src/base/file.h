/* SPDX-License-Identifier: MIT */
/*
 * Files gpushim writes (the compile cache's entries, the trace): made under a
 * name no other user can guess or plant ahead, and written without letting a
 * file size limit kill the host process.
 */
#ifndef GPUSHIM_SYS_FILE_H
#define GPUSHIM_SYS_FILE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Creates "<prefix><16 random hex digits><suffix>" in the folder `dirfd`
 * (AT_FDCWD: prefix is a path), 0600, with O_CREAT | O_EXCL | O_NOFOLLOW:
 * never an existing file, never through a symbolic link. The name goes to
 * `name`; returns the descriptor, or -1 with errno.
 */
int gpu__file_create_unique(int dirfd, const char *prefix, const char *suffix, char *name, size_t name_size);

/* SIGXFSZ held off while a file is written: past RLIMIT_FSIZE a write fails with EFBIG instead. */
struct gpu__xfsz_hold {
    sigset_t old;
    bool was_pending;
};

void gpu__xfsz_hold(struct gpu__xfsz_hold *h);
/* Takes back the SIGXFSZ the writes raised (unless one was pending before the hold), restores the mask. */
void gpu__xfsz_release(struct gpu__xfsz_hold *h);

/* Writes all of `buf` (short writes and EINTR retried) under a SIGXFSZ hold; 0 or the error. */
int gpu__file_write_all(int fd, const void *buf, size_t size);

#endif
