/* SPDX-License-Identifier: MIT */
/** @file
 * Deprecated names, each an alias of the name that replaced it, kept for one
 * minor release before the major release that removes them (CONTRIBUTING.md).
 * gpushim.h includes this header; define GPUSHIM_NO_DEPRECATED before
 * including it to leave them out.
 */
#ifndef GPUSHIM_DEPRECATED_H
#define GPUSHIM_DEPRECATED_H

#include "stream.h"

#ifndef GPUSHIM_NO_DEPRECATED

/* ---- Compatibility with aprender-gpu ---- */

/**
 * aprender-gpu's name for GPU_STREAM_NONBLOCKING_ENV. aprender-gpu (0.68) is the
 * Rust crate whose stream module gpushim's comes from; its programs set
 * APR_STREAM_NONBLOCKING=1 for the racy non-blocking streams, so
 * gpu_stream_create() still reads that variable where GPUSHIM_STREAM_NONBLOCKING
 * is unset. Deprecated: set GPUSHIM_STREAM_NONBLOCKING.
 */
#define GPU_STREAM_NONBLOCKING_ENV_APRENDER "APR_STREAM_NONBLOCKING"

#endif /* GPUSHIM_NO_DEPRECATED */

#endif
