# SPDX-License-Identifier: MIT
"""libgpushim.so loaded with ctypes into a PyTorch process on a GPU: it
shares PyTorch's driver (one libcuda mapped) and device 0's
primary context, and memory written by gpushim is read and changed by torch.
usage: python torch_ctypes.py libgpushim.so   (maint/run-gpu.sh runs it)
Prints TORCH_DLOPEN ok ... on success; exits 77 without a GPU."""
import ctypes
import sys

import torch

if not torch.cuda.is_available():
    print("skipped: torch sees no GPU")
    sys.exit(77)
x = torch.ones(16, device="cuda")  # torch initialises the driver and its primary context
torch.cuda.synchronize()
libcuda = ctypes.CDLL("libcuda.so.1")
torch_ctx = ctypes.c_void_p()
assert libcuda.cuCtxGetCurrent(ctypes.byref(torch_ctx)) == 0 and torch_ctx.value

g = ctypes.CDLL(sys.argv[1])
g.gpu_last_error_get_message.restype = ctypes.c_char_p
g.gpu_context_get_raw.restype = ctypes.c_void_p
g.gpu_buffer_get_device_ptr.restype = ctypes.c_uint64
assert g.gpu_driver_load() == 0, g.gpu_last_error_get_message()
ctx = ctypes.c_void_p()
assert g.gpu_context_retain_primary(0, ctypes.byref(ctx)) == 0, g.gpu_last_error_get_message()
assert g.gpu_context_get_raw(ctx) == torch_ctx.value, "gpushim's device 0 context is not torch's primary context"

n = 1024
buf = ctypes.c_void_p()
assert g.gpu_buffer_create(ctx, ctypes.c_size_t(4 * n), ctypes.byref(buf)) == 0, g.gpu_last_error_get_message()
host = (ctypes.c_float * n)(*range(n))
assert g.gpu_buffer_copy_from_host(buf, host, ctypes.c_size_t(4 * n)) == 0, g.gpu_last_error_get_message()


class Cuda:
    """gpushim's buffer, as torch sees device memory."""
    __cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (g.gpu_buffer_get_device_ptr(buf), False),
                                "version": 2}


t = torch.as_tensor(Cuda(), device="cuda")
assert t[5].item() == 5.0
t.mul_(2).add_(1)  # torch's kernels on gpushim's memory
torch.cuda.synchronize()
back = (ctypes.c_float * n)()
assert g.gpu_buffer_copy_to_host(buf, back, ctypes.c_size_t(4 * n)) == 0, g.gpu_last_error_get_message()
assert all(back[i] == 2 * i + 1 for i in range(n)), [back[i] for i in range(4)]
maps = [line.split()[-1] for line in open("/proc/self/maps") if "libcuda.so" in line]
assert len(set(maps)) == 1, set(maps)
g.gpu_buffer_destroy(buf)
g.gpu_context_destroy(ctx)
print("TORCH_DLOPEN ok: one driver (%s), torch's primary context shared, %d floats through both" % (maps[0], n))
