#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the image targets' seeds (fuzz_image_*.c) from nvcc's own output:
PTX, a cubin, fatbins (uncompressed, zstd-compressed, machine code only, of
several entries), relocatable PTX and a fatbin of it for the linker, a fatbin
cut short, and the forms each target's harness reads (a wrapper followed by
its fatbin; a link input's type byte before its data).

    tests/fuzz/gen-image-seeds.py tests/fuzz/seeds [NVCC]

NVCC defaults to nvcc on PATH, else /usr/local/cuda/bin/nvcc (12.8 or later).
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

KERNEL = r"""
__device__ int launched;
__constant__ float scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};

extern "C" __global__ void scaled_add(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        y[i] += a * x[i] * scale[i & 3];
        atomicAdd(&launched, 1);
    }
}
"""

# Two translation units for the linker: a kernel that calls a function the other defines.
CALLER = r"""
extern __device__ float twice(float v);

extern "C" __global__ void doubled(float *v)
{
    v[threadIdx.x] = twice(v[threadIdx.x]);
}
"""
CALLEE = r"""
__device__ float twice(float v)
{
    return 2.0f * v;
}
"""

OUTPUTS = {
    # name: (source, nvcc's options)
    "kernel.ptx": ("kernel.cu", ["-ptx", "-arch=compute_90"]),
    "kernel.cubin": ("kernel.cu", ["-cubin", "-arch=sm_90"]),
    "kernel.fatbin": ("kernel.cu", ["-fatbin", "--no-compress", "-gencode", "arch=compute_90,code=compute_90"]),
    "kernel-compressed.fatbin": ("kernel.cu", ["-fatbin", "-gencode", "arch=compute_90,code=compute_90"]),
    "kernel-sass.fatbin": ("kernel.cu", ["-fatbin", "-gencode", "arch=compute_90,code=sm_90"]),
    "kernel-multi.fatbin": ("kernel.cu", ["-fatbin", "-gencode", "arch=compute_75,code=compute_75",
                                          "-gencode", "arch=compute_90,code=[compute_90,sm_90]"]),
    "caller.ptx": ("caller.cu", ["-rdc=true", "-ptx", "-arch=compute_90"]),
    "callee.ptx": ("callee.cu", ["-rdc=true", "-ptx", "-arch=compute_90"]),
    "callee.fatbin": ("callee.cu", ["-rdc=true", "-fatbin", "--no-compress", "-gencode",
                                    "arch=compute_90,code=compute_90"]),
}

WRAPPER = struct.pack("<IIQQ", 0x466243B1, 1, 0, 0)  # the harness sets the pointer
PTX, FATBINARY, CUBIN, OBJECT = 1, 2, 0, 3


def nvcc_path():
    if len(sys.argv) > 2:
        return sys.argv[2]
    return shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def build(nvcc):
    made = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (("kernel.cu", KERNEL), ("caller.cu", CALLER), ("callee.cu", CALLEE)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        for out, (src, opts) in OUTPUTS.items():
            subprocess.run([nvcc] + opts + [src, "-o", out], cwd=tmp, check=True)
            with open(os.path.join(tmp, out), "rb") as f:
                made[out] = f.read()
    return made


def nested(inner):
    """A fatbin of one PTX entry for compute_90 whose payload is `inner`."""
    payload = inner + bytes(-len(inner) % 8)
    entry = struct.pack("<HHIQ", 1, 0x0101, 64, len(payload)) + bytes(16) + struct.pack("<I", 90) + bytes(36)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entry) + len(payload)) + entry + payload


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def main():
    seeds = sys.argv[1]
    made = build(nvcc_path())
    fatbins = {k: v for k, v in made.items() if k.startswith("kernel") and k.endswith(".fatbin")}
    cut = made["kernel.fatbin"][:len(made["kernel.fatbin"]) // 2]
    for name, data in fatbins.items():
        write(os.path.join(seeds, "image-wrapper"), name, data)
    write(os.path.join(seeds, "image-wrapper"), "kernel-cut.fatbin", cut)
    for folder in ("image-file", "image-library"):
        for name in ("kernel.ptx", "kernel.cubin", "callee.ptx"):
            write(os.path.join(seeds, folder), name, made[name])
        for name, data in fatbins.items():
            write(os.path.join(seeds, folder), name, data)
        write(os.path.join(seeds, folder), "kernel-cut.fatbin", cut)
        write(os.path.join(seeds, folder), "wrapper", WRAPPER + made["kernel.fatbin"])
        write(os.path.join(seeds, folder), "nested.fatbin", nested(made["kernel.fatbin"]))
    link = os.path.join(seeds, "image-link")
    write(link, "ptx", bytes([PTX]) + made["kernel.ptx"])
    write(link, "callee-ptx", bytes([PTX]) + made["callee.ptx"])
    write(link, "caller-ptx", bytes([PTX]) + made["caller.ptx"])
    write(link, "callee-fatbin", bytes([FATBINARY]) + made["callee.fatbin"])
    write(link, "fatbin-compressed", bytes([FATBINARY]) + made["kernel-compressed.fatbin"])
    write(link, "cubin", bytes([CUBIN]) + made["kernel.cubin"])
    write(link, "object", bytes([OBJECT]) + made["callee.ptx"])
    write(link, "ptx-wrapper", bytes([PTX]) + WRAPPER)


if __name__ == "__main__":
    main()
