/* SPDX-License-Identifier: MIT */
/** @file
 * gpushim: NVIDIA's CUDA driver API with no link-time dependency on it.
 *
 * A program that uses gpushim starts on any machine. The driver
 * (libcuda.so.1) is loaded with dlopen at the first call that needs it; on a
 * machine without one every such call returns GPU_ERR_NO_DRIVER and
 * gpu_last_error_get_message() says why.
 *
 * Conventions: objects are opaque; results come out through the last
 * argument, written only on success; destroy(NULL) does nothing; argument
 * errors that need no driver (GPU_ERR_INVALID_ARG) come before
 * GPU_ERR_NO_DRIVER.
 */
#ifndef GPUSHIM_H
#define GPUSHIM_H

#include "common.h"
#include "status.h"
#include "driver.h"
#include "device.h"
#include "context.h"
#include "stream.h"
#include "event.h"
#include "graph.h"
#include "module.h"
#include "launch.h"
#include "buffer.h"
#include "function.h"
#include "tensor_map.h"
#include "program.h"
#include "forward.h"
#include "deprecated.h"

#define GPUSHIM_VERSION_MAJOR 1 /**< the version of these headers: major */
#define GPUSHIM_VERSION_MINOR 0 /**< minor */
#define GPUSHIM_VERSION_PATCH 0 /**< patch */

#endif
