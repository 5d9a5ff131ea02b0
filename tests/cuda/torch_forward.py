#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libgpushim-cuda loaded into a PyTorch process, globally, before torch starts CUDA:
torch's own CUDA work still runs and gives the right answer, and the cu* functions
called through libgpushim-cuda reach the same driver, in torch's context.
Exits 77 (skipped) without torch, CUDA or a GPU.

Usage: torch_forward.py LIBGPUSHIM-CUDA     Prints a line starting "TORCH_FORWARD ".
"""
import ctypes
import sys

SKIP = 77


def main():
    try:
        import torch  # importing it starts no CUDA work
    except Exception as e:
        print(f"SKIP torch_forward: no torch ({e})")
        return SKIP
    lib = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)  # its cu* symbols now precede any later library's
    version = ctypes.c_int(0)
    rc = lib.cuDriverGetVersion(ctypes.byref(version))
    if rc != 0:
        print(f"SKIP torch_forward: no driver through libgpushim-cuda (cuDriverGetVersion: {rc})")
        return SKIP
    if not torch.cuda.is_available():
        print("SKIP torch_forward: torch sees no CUDA device")
        return SKIP
    a = torch.arange(1 << 20, dtype=torch.float32, device="cuda")
    b = (a * 2 + 1).sum().item()
    want = float(sum(range(1 << 20)) * 2 + (1 << 20))
    m = torch.randn(256, 256, device="cuda")
    mm_ok = torch.allclose(m @ torch.eye(256, device="cuda"), m)
    torch.cuda.synchronize()
    ctx = ctypes.c_void_p()
    rc_ctx = lib.cuCtxGetCurrent(ctypes.byref(ctx))
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    rc_mem = lib.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total))
    ok = abs(b - want) / want < 1e-3 and mm_ok and rc_ctx == 0 and ctx.value and rc_mem == 0 and total.value > 0
    print(f"TORCH_FORWARD driver={version.value} sum_ok={abs(b - want) / want < 1e-3} matmul_ok={mm_ok} "
          f"cuCtxGetCurrent={rc_ctx} ctx={ctx.value:#x} cuMemGetInfo_v2={rc_mem} total_gib={total.value / 2**30:.1f} "
          f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
