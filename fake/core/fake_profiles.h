/* SPDX-License-Identifier: MIT */
/*
 * The boards the fake can be (fake_profiles.c).
 */
#ifndef FAKE_PROFILES_H
#define FAKE_PROFILES_H

#include <stdbool.h>
#include <stddef.h>

struct fake_profile {
    const char *key;     /* GPUSHIM_FAKE_DEVICE's name for it */
    const char *name;    /* cuDeviceGetName's */
    size_t total_memory; /* cuDeviceTotalMem's */
    int column;          /* its place among the profiles */
};

/* The profile of that key ("h200"), or NULL. */
const struct fake_profile *fake_profile_find(const char *key, size_t len);

/* The profile a device has unless told otherwise: the H200. */
const struct fake_profile *fake_profile_default(void);

/* The attribute's value on the profile's board; false for no attribute of CUDA 13. */
bool fake_profile_attribute(const struct fake_profile *p, unsigned attribute, int *value);

/* The CUdevice_attribute of a name as cuda.h spells it (with or without CU_DEVICE_ATTRIBUTE_), or -1. */
int fake_attribute_by_name(const char *name, size_t len);

#endif
