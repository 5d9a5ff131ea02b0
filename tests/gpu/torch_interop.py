#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpushim inside a PyTorch process: a torch tensor's device memory
is identified by gpu_pointer_get_info (device memory, device 0, torch's
context, the allocation's base and size), wrapped in a non-owning gpu_buffer,
copied by gpushim on a gpushim stream into another wrapped tensor, and torch
sees the data. Exits 77 (skipped) without torch, CUDA or a GPU.

Usage: torch_interop.py [path of libgpushim.so]  (default: $GPUSHIM_LIB)
Figures on lines starting "TORCH ".
"""
import ctypes
import os
import sys

SKIP = 77


def main():
    lib_path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("GPUSHIM_LIB", "")
    try:
        import torch
    except Exception as e:  # no torch here: not a failure
        print(f"SKIP torch_interop: no torch ({e})")
        return SKIP
    if not torch.cuda.is_available():
        print("SKIP torch_interop: torch sees no CUDA device")
        return SKIP
    if not lib_path:
        print("FAIL torch_interop: name libgpushim.so (argument or GPUSHIM_LIB)")
        return 1
    g = ctypes.CDLL(lib_path)

    class PointerInfo(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("device", ctypes.c_int), ("managed", ctypes.c_bool),
                    ("context", ctypes.c_void_p), ("base", ctypes.c_uint64), ("size", ctypes.c_size_t)]

    vp, u64, sz = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t
    g.gpu_pointer_get_info.argtypes = [u64, ctypes.POINTER(PointerInfo)]
    g.gpu_buffer_wrap.argtypes = [vp, u64, sz, ctypes.POINTER(vp)]
    g.gpu_buffer_copy_async.argtypes = [vp, vp, sz, vp]
    g.gpu_buffer_copy_to_host.argtypes = [vp, vp, sz]
    g.gpu_buffer_copy_from_host_async.argtypes = [vp, vp, sz, vp]
    g.gpu_buffer_destroy.argtypes = [vp]
    g.gpu_buffer_is_owner.argtypes = [vp]
    g.gpu_buffer_is_owner.restype = ctypes.c_bool
    g.gpu_stream_create_non_blocking.argtypes = [vp, ctypes.POINTER(vp)]
    g.gpu_stream_synchronize.argtypes = [vp]
    g.gpu_stream_destroy.argtypes = [vp]
    g.gpu_context_retain_primary.argtypes = [ctypes.c_int, ctypes.POINTER(vp)]
    g.gpu_context_get_raw.argtypes = [vp]
    g.gpu_context_get_raw.restype = vp
    g.gpu_context_destroy.argtypes = [vp]
    g.gpu_last_error_get_message.restype = ctypes.c_char_p
    g.gpu_status_get_name.restype = ctypes.c_char_p

    def ok(st, what):
        if st != 0:
            raise SystemExit(f"FAIL torch_interop: {what}: {g.gpu_status_get_name(st).decode()}: "
                             f"{g.gpu_last_error_get_message().decode()}")

    n = 1 << 20
    x = torch.arange(n, dtype=torch.int32, device="cuda:0") * 3 + 7
    y = torch.zeros(n, dtype=torch.int32, device="cuda:0")
    torch.cuda.synchronize()
    nbytes = x.numel() * x.element_size()

    ctx = vp()
    ok(g.gpu_context_retain_primary(0, ctypes.byref(ctx)), "gpu_context_retain_primary")
    info = PointerInfo()
    ok(g.gpu_pointer_get_info(x.data_ptr(), ctypes.byref(info)), "gpu_pointer_get_info")
    same_ctx = info.context == g.gpu_context_get_raw(ctx)
    print(f"TORCH tensor {x.data_ptr():#x} ({nbytes} bytes): type={info.type} device={info.device} "
          f"managed={info.managed} context={'primary' if same_ctx else 'OTHER'} "
          f"base={info.base:#x} (offset {x.data_ptr() - info.base}) size={info.size}")
    failures = []
    if info.type != 2:
        failures.append(f"memory type {info.type}, not device (2)")
    if info.device != 0:
        failures.append(f"device {info.device}, not 0")
    if not same_ctx:
        failures.append("not device 0's primary context")
    if not (info.base <= x.data_ptr() and x.data_ptr() + nbytes <= info.base + info.size):
        failures.append("the tensor is not inside the allocation reported")

    vx, vy, s = vp(), vp(), vp()
    ok(g.gpu_buffer_wrap(ctx, x.data_ptr(), nbytes, ctypes.byref(vx)), "gpu_buffer_wrap(x)")
    ok(g.gpu_buffer_wrap(ctx, y.data_ptr(), nbytes, ctypes.byref(vy)), "gpu_buffer_wrap(y)")
    if g.gpu_buffer_is_owner(vx):
        failures.append("a view claims to own the tensor's memory")
    ok(g.gpu_stream_create_non_blocking(ctx, ctypes.byref(s)), "gpu_stream_create_non_blocking")
    ok(g.gpu_buffer_copy_async(vy, vx, nbytes, s), "gpu_buffer_copy_async")
    ok(g.gpu_stream_synchronize(s), "gpu_stream_synchronize")
    copied = torch.equal(x, y)
    # Host to a tensor through gpushim, read by torch.
    pattern = (ctypes.c_int32 * 4)(11, 22, 33, 44)
    ok(g.gpu_buffer_copy_from_host_async(vy, pattern, ctypes.sizeof(pattern), s), "gpu_buffer_copy_from_host_async")
    ok(g.gpu_stream_synchronize(s), "gpu_stream_synchronize")
    head = y[:4].tolist()
    g.gpu_buffer_destroy(vx)
    g.gpu_buffer_destroy(vy)
    # The views freed nothing: torch still uses its memory.
    still = int((x[-1]).item()) == (n - 1) * 3 + 7
    g.gpu_stream_destroy(s)
    g.gpu_context_destroy(ctx)
    if not copied:
        failures.append("torch does not see gpushim's copy")
    if head != [11, 22, 33, 44]:
        failures.append(f"torch sees {head} where gpushim wrote [11, 22, 33, 44]")
    if not still:
        failures.append("the tensor changed after the views were destroyed")
    print(f"TORCH copy by gpushim on a gpushim stream, tensor to tensor: {'seen by torch' if copied else 'WRONG'}; "
          f"host to tensor: {head}; torch {torch.__version__}")
    for f in failures:
        print(f"FAIL torch_interop: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
