/*
 * Launches that ask for more than cuLaunchKernel can do (launch.c), and the
 * occupancy queries that take the same cuLaunchKernelEx configuration
 * (function.c).
 */
#ifndef GPUSHIM_LAUNCH_EX_H
#define GPUSHIM_LAUNCH_EX_H

#include "call.h"

/* Whether `c` asks for a cluster, a cooperative or serialized launch, or a priority. */
static inline bool gpu__launch_is_extended(const gpu_launch_config *c)
{
    return (c->cluster[0] | c->cluster[1] | c->cluster[2] | (unsigned)c->cooperative |
            (unsigned)c->programmatic_serialization | (unsigned)c->priority) != 0;
}

/* The most launch attributes gpu__launch_config_ex() writes. */
enum { GPU__LAUNCH_ATTRS_MAX = 4 };

/* `c` as cuLaunchKernelEx takes it, on `stream`, its attributes in `attrs`. */
void gpu__launch_config_ex(const gpu_launch_config *c, cuabi_stream stream,
                           cuabi_launch_attribute attrs[GPU__LAUNCH_ATTRS_MAX], cuabi_launch_config *out);

#endif
