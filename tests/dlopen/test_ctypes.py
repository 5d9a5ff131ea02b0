# SPDX-License-Identifier: MIT
"""libgpushim.so loaded by Python's ctypes: it opens, loads
the driver GPUSHIM_LIBCUDA names (the fake) and reports an argument error.
usage: GPUSHIM_LIBCUDA=fake python3 test_ctypes.py libgpushim.so"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.gpu_status_get_name.restype = ctypes.c_char_p
lib.gpu_last_error_get_message.restype = ctypes.c_char_p
st = lib.gpu_driver_load()
assert st == 0, (lib.gpu_status_get_name(st), lib.gpu_last_error_get_message())
version = ctypes.c_int(0)
assert lib.gpu_driver_get_version(ctypes.byref(version)) == 0 and version.value > 0
st = lib.gpu_driver_get_version(None)
assert lib.gpu_status_get_name(st) == b"GPU_ERR_INVALID_ARG", lib.gpu_status_get_name(st)
assert b"out is NULL" in lib.gpu_last_error_get_message(), lib.gpu_last_error_get_message()
print("ctypes: loaded, driver version", version.value)
