/* SPDX-License-Identifier: MIT */
/*
 * What both loaders (the driver's, NVRTC's) make of their X-macro lists of
 * entry points: the load report's rows, one gpu_entry_point an entry, in the
 * list's order.
 */
#ifndef GPUSHIM_SYS_ENTRY_TABLE_H
#define GPUSHIM_SYS_ENTRY_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpushim/driver.h"

/* An entry's row, not yet looked up: `need` is REQUIRED or OPTIONAL, as the lists write it. */
#define GPU__ENTRY_ROW(need, name, symbol) {#name, #symbol, GPU__ENTRY_NEED_##need, false, NULL, NULL, false, false},
#define GPU__ENTRY_NEED_REQUIRED true
#define GPU__ENTRY_NEED_OPTIONAL false

#endif
