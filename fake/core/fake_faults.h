/* SPDX-License-Identifier: MIT */
/*
 * Faults on demand (fake_faults.c): device loss, stalls, memory limits.
 */
#ifndef FAKE_FAULTS_H
#define FAKE_FAULTS_H

#include "fake_core.h"

/* Reads GPUSHIM_FAKE_MEMORY_LIMIT, _LOSE, _STALL. */
void fake_faults_configure(void);

/* Counts a call into the fake (fake_begin()): GPUSHIM_FAKE_LOSE's device is lost at its nth. */
void fake_faults_on_call(void);

/* What calls that use the device return since it was lost; success while it is there. */
cuabi_result fake_device_lost(int device);

/* Whether queued work is stalled (gpu_fake_stall()): none runs. */
bool fake_stalled(void);

/* Whether `bytes` more would take the device's `used` past its limit (gpu_fake_memory_limit()). */
bool fake_over_limit(int device, size_t used, size_t bytes);

#endif
