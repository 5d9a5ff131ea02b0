#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes fuzz-ld-cache's seeds: small caches in glibc's format (src/sys/loader/ld_cache.c
describes it), for an x86-64 little-endian host.

    tests/fuzz/gen-ld-cache-seeds.py tests/fuzz/seeds/ld-cache

new: the new format alone, libcuda.so.1 twice (a 64-bit and a 32-bit entry) and
another library; old-and-new: the same after an old table of two entries;
bad-offsets: a name offset past the end and a path without its end.
"""
import os
import struct
import sys

OWN, OTHER = 0x0303, 0x0003
ENTRIES = [(OWN, "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
           (OTHER, "libcuda.so.1", "/usr/lib/i386-linux-gnu/libcuda.so.1"),
           (OWN, "libm.so.6", "/lib/x86_64-linux-gnu/libm.so.6")]


def new_part(entries):
    strings = b""
    table = b""
    base = 48 + 24 * len(entries)
    for flags, key, value in entries:
        k = base + len(strings)
        strings += key.encode() + b"\0"
        v = base + len(strings)
        strings += value.encode() + b"\0"
        table += struct.pack("<IIIIQ", flags, k, v, 0, 0)
    head = b"glibc-ld.so.cache1.1" + struct.pack("<II", len(entries), len(strings)) + bytes([2]) + bytes(19)
    return head + table + strings


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    new = new_part(ENTRIES)
    old = b"ld.so-1.7.0\0" + struct.pack("<I", 2) + bytes(24)
    bad = bytearray(new_part(ENTRIES[:2]))
    struct.pack_into("<I", bad, 48 + 4, len(bad) + 100)
    bad = bytes(bad[:-1])
    seeds = {"new": new, "old-and-new": old + new, "bad-offsets": bad}
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
