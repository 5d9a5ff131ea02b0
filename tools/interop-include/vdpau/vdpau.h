/* SPDX-License-Identifier: MIT */
/*
 * The VDPAU types cudaVDPAU.h's functions take, as vdpau/vdpau.h defines
 * them, which a program includes before cudaVDPAU.h; tools/gen-cuda-symbols.py
 * includes this one instead. Only for the generator; nothing is built with it.
 */
#include <stdint.h>
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpFuncId;
typedef uint32_t VdpChromaType;
typedef uint32_t VdpRGBAFormat;
typedef int VdpStatus;
typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, void **function_pointer);
