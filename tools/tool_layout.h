/* SPDX-License-Identifier: MIT */
/*
 * Where gpushim's command-line tools (gpushim-trace, gpushim-run) find the
 * libraries they put in front of a program: the folder that holds
 * libgpushim-cuda under the driver's name, libcuda.so.1; the fake driver;
 * the folder that holds libgpushim-cudart under the runtime's name,
 * libcudart.so.13. Found relative to the tool's own file: an installed
 * prefix (<libdir>/gpushim/cuda, <libdir>/libgpushim-fakecuda.so,
 * <libdir>/gpushim/cudart), else the build tree it was built in
 * (src/gpushim/cuda, fake/, cudart/).
 */
#ifndef GPUSHIM_TOOL_LAYOUT_H
#define GPUSHIM_TOOL_LAYOUT_H

#include <limits.h>
#include <stdbool.h>

struct tool_layout {
    char cuda_dir[PATH_MAX];   /* holds libcuda.so.1, a link to libgpushim-cuda */
    char fake[PATH_MAX];       /* libgpushim-fakecuda.so; "" when it is not there */
    char cudart_dir[PATH_MAX]; /* holds libcudart.so.13, a link to libgpushim-cudart; "" when not built */
    bool installed;            /* an installed prefix, else the build tree */
};

/* Fills `l`; false when no libgpushim-cuda folder is beside the tool. */
bool tool_layout_find(struct tool_layout *l);

/* Sets `var` to `front`, then `:` and its value before when it had one; false when out of memory. */
bool tool_env_prepend(const char *var, const char *front);

#endif
