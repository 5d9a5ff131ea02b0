/* SPDX-License-Identifier: MIT */
/*
 * Where the driver is looked for when GPUSHIM_LIBCUDA is unset, and which
 * files found are no driver to bind to: gpushim's own forwarder
 * (libgpushim-cuda, which a folder on LD_LIBRARY_PATH may hold under the
 * name libcuda.so.1), another copy of it, or a library without cuInit.
 */
#ifndef GPUSHIM_SYS_DRIVER_SEARCH_H
#define GPUSHIM_SYS_DRIVER_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

struct gpu__attempts;

/*
 * Whether `p` lies inside gpushim: libgpushim itself, or libgpushim-cuda (a
 * library that defines gpu_cuda_forwarder). A driver's export never does;
 * taking one would make a forwarder call itself. A library that only links
 * libgpushim-cuda (a wrapper) is not gpushim, but what it finds through it is.
 */
bool gpu__inside_gpushim(void *p);

/* Colon-separated absolute folders searched in place of the system's places (the loader cache, the usual folders). */
#define GPU__LIBCUDA_DIRS_ENV "GPUSHIM_LIBCUDA_DIRS"

/* What the search found. */
struct gpu__driver_found {
    void *handle;      /* the library chosen, never closed; NULL when none */
    const char *label; /* its attempt's path: the name or file it was opened as */
    const char *choice; /* why it was chosen: where it was found, and that the candidates before it were skipped */
    bool only_gpushim; /* no library chosen, and every one that opened was gpushim's own forwarder */
};

/*
 * Looks for libcuda.so.1 in order: one already loaded in the process, the
 * dynamic loader's (by name), then by full path every libcuda.so.1 that
 * /etc/ld.so.cache lists for this machine and each of the usual driver
 * folders (or, where GPUSHIM_LIBCUDA_DIRS is set, its folders instead of
 * both). A file is known by its device and inode: one found again through
 * another name is not tried again. Each candidate goes into `tried` with why
 * it was skipped; the first that is a driver and not gpushim is kept.
 * `choice` (choice_size bytes) holds the text out->choice points to.
 */
void gpu__driver_search(struct gpu__attempts *tried, char *choice, size_t choice_size, struct gpu__driver_found *out);

#endif
