/* SPDX-License-Identifier: MIT */
/*
 * The devices (fake_device.c): their configuration and attributes.
 */
#ifndef FAKE_DEVICE_H
#define FAKE_DEVICE_H

#include "fake_core.h"

/*
 * Configures the devices from the environment: GPUSHIM_FAKE_DEVICES of them
 * (else as many as GPUSHIM_FAKE_DEVICE names, else 1), GPUSHIM_FAKE_DEVICE,
 * _DEVICE_NAME, _DEVICE_MEMORY, _COMPUTE_CAPABILITY, _ATTRIBUTES, _PEER.
 */
void fake_devices_configure(void);

/* Whether `dev` is a device ordinal of the fake. */
bool fake_device_valid(cuabi_device dev);

/* Device attributes beyond the three gpu_fake_device_desc holds; false for one the fake does not know. */
bool fake_device_attribute(int device, unsigned attribute, int *value);

/* An attribute the fake always knows (one of its defaults' table), or 0. */
int fake_attribute(int device, unsigned attribute);

/* Whether `value` is one device attribute `attribute` can take (cuda.h's meaning of it; any value for one CUDA 13.0 lacks). */
bool fake_attribute_value_valid(int attribute, long value);

/* Bytes a channel of an array format has; 0 for a format the fake does not store. */
size_t fake_format_bytes(cuabi_array_format format);

#endif
