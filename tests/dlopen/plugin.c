/* SPDX-License-Identifier: MIT */
/*
 * A plugin as a host program sees one: a shared object that embeds
 * libgpushim.a whole (--whole-archive) and is itself dlopen'ed.
 */
#include <gpushim/gpushim.h>

int gpushim_plugin_load(void);

__attribute__((visibility("default"))) int gpushim_plugin_load(void)
{
    return (int)gpu_driver_load();
}
