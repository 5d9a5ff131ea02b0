#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs a program built with NVIDIA's static cudart (nvcc's default) on the fake driver, found as
libcuda.so.1 in the folder given: the runtime fails, as it must without its private driver tables, and the
fake says once, on stderr, the way that works (-cudart=shared and libgpushim-cudart).

    check-static.py PROGRAM LIBCUDA_FOLDER
"""
import os
import subprocess
import sys


def main():
    program, folder = sys.argv[1], sys.argv[2]
    env = dict(os.environ, LD_LIBRARY_PATH=folder)
    run = subprocess.run([program], env=env, capture_output=True, text=True, timeout=120)
    lines = [line for line in run.stderr.splitlines()
             if "-cudart=shared" in line and "libgpushim-cudart" in line and line.startswith("gpushim-fakecuda:")]
    print(run.stderr, end="")
    if run.returncode == 0:
        print("the program succeeded on NVIDIA's runtime over the fake: expected its runtime to fail")
        return 1
    if len(lines) != 1:
        print(f"expected one line from the fake naming -cudart=shared and libgpushim-cudart, found {len(lines)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
