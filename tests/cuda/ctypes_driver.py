#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Python program that opens libcuda.so.1 itself through ctypes, as cuda-python and numba do: cuInit,
cuDriverGetVersion, cuDeviceGetCount and each device's name, printed as one line of JSON. Exits 1 when a
call fails, naming it and the CUresult."""
import ctypes
import json
import sys


def main():
    cuda = ctypes.CDLL("libcuda.so.1")
    version, count = ctypes.c_int(), ctypes.c_int()

    def check(name, rc):
        if rc != 0:
            text = ctypes.c_char_p()
            cuda.cuGetErrorString(rc, ctypes.byref(text))
            sys.exit(f"{name}: CUresult {rc}: {(text.value or b'?').decode(errors='replace')}")

    check("cuInit", cuda.cuInit(0))
    check("cuDriverGetVersion", cuda.cuDriverGetVersion(ctypes.byref(version)))
    check("cuDeviceGetCount", cuda.cuDeviceGetCount(ctypes.byref(count)))
    names = []
    for ordinal in range(count.value):
        device, name = ctypes.c_int(), ctypes.create_string_buffer(256)
        check("cuDeviceGet", cuda.cuDeviceGet(ctypes.byref(device), ordinal))
        check("cuDeviceGetName", cuda.cuDeviceGetName(name, len(name), device))
        names.append(name.value.decode())
    print(json.dumps({"version": version.value, "count": count.value, "names": names}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
