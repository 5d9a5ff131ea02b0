/* SPDX-License-Identifier: MIT */
/*
 * What a program file says about the CUDA runtime it uses, read from its ELF
 * headers as untrusted input (gpushim-run(1)): the shared runtime it names
 * in DT_NEEDED, or NVIDIA's static runtime inside it (nvcc's default,
 * -cudart=static), and whether a DT_RPATH, which the loader searches before
 * LD_LIBRARY_PATH, could choose the runtime.
 */
#ifndef GPUSHIM_PROGRAM_KIND_H
#define GPUSHIM_PROGRAM_KIND_H

#include <stdbool.h>

struct program_kind {
    bool elf;              /* a 64-bit ELF file of this machine's byte order; the rest is read only then */
    bool script;           /* starts with #!: its interpreter runs, unread */
    char cudart[64];       /* the libcudart.so.N it names in DT_NEEDED, or "" */
    bool static_cudart;    /* no libcudart in DT_NEEDED, and NVIDIA's runtime linked in */
    bool rpath_first;      /* a DT_RPATH without DT_RUNPATH: searched before LD_LIBRARY_PATH */
    char sanitizers[256];  /* the sanitizer runtimes it names in DT_NEEDED, space-separated: first of all loaded */
};

/* Reads `path`; false (errno set) when it cannot be opened or mapped. */
bool program_kind_read(const char *path, struct program_kind *k);

/* The file execvp(3) runs for `name` (a path, or the first match on PATH) into `out`; false when none is. */
bool program_kind_find(const char *name, char *out, unsigned long size);

#endif
