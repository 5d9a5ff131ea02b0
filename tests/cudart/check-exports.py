#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libgpushim-cudart exports every function cudart_symbols.h lists, the registration calls nvcc generates,
and nothing else, all in the runtime's version node libcudart.so.13.

    check-exports.py LIBRARY CUDART_SYMBOLS_H
"""
import re
import subprocess
import sys

# What nvcc's generated code calls (crt/host_runtime.h, crt/device_functions.h), beside the header's functions.
REGISTRATION = {
    "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary", "__cudaRegisterFunction",
    "__cudaRegisterVar", "__cudaRegisterManagedVar", "__cudaRegisterTexture", "__cudaRegisterSurface",
    "__cudaInitModule", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaGetKernel",
    "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
}


def main():
    library, listing = sys.argv[1], sys.argv[2]
    with open(listing) as f:
        want = set(re.findall(r"^GPU__CUDART_(?:SYMBOL|OTHER)\((\w+)\)", f.read(), re.M)) | REGISTRATION
    out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions", library],
                         capture_output=True, text=True, check=True).stdout
    have, wrong_node = set(), []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3 or parts[1] == "A":
            continue
        name, _, node = parts[2].partition("@")
        have.add(name)
        if node.lstrip("@") != "libcudart.so.13":
            wrong_node.append(parts[2])
    missing, extra = sorted(want - have), sorted(have - want)
    for name in missing:
        print(f"not exported: {name}")
    for name in extra:
        print(f"exported, not the runtime's: {name}")
    for name in wrong_node:
        print(f"not in the version node libcudart.so.13: {name}")
    print(f"{len(have)} exports, {len(want)} expected")
    return 1 if missing or extra or wrong_node else 0


if __name__ == "__main__":
    sys.exit(main())
