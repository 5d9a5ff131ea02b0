/* SPDX-License-Identifier: MIT */
/*
 * Memory another process can map (fake_shm.c).
 */
#ifndef FAKE_SHM_H
#define FAKE_SHM_H

#include <stddef.h>

/*
 * A new memfd of `size` bytes, zero, named NAME, sealed at its size; -1 when
 * out of memory or descriptors.
 */
int fake_shm_create(const char *name, size_t size);

/* A shared read-write mapping of [offset, offset + size) of memfd `fd` (at `at` exactly when not NULL), or NULL. */
unsigned char *fake_shm_map(int fd, size_t size, size_t offset, void *at);

/*
 * Checks a descriptor another process handed over before it is mapped: a
 * memfd the fake made (named starting with `prefix`), sealed at its size,
 * owned by this user, of a size from `align` to `max` that `align` divides.
 * Its size and name (after the prefix) come back and NULL; else why not.
 */
const char *fake_shm_check(int fd, const char *prefix, size_t align, size_t max, size_t *size, char *rest,
                           size_t rest_size);

#endif
