#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library exports exactly the gpu_* functions listed in
# exports.txt, and names no CUDA library among what it needs at load time.
# usage: check-exports.sh libgpushim.so exports.txt
set -eu
lib=$1
list=$2
actual=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | sort)
bad=$(printf '%s\n' "$actual" | grep -v '^gpu_' || true)
if [ -n "$bad" ]; then
    echo "exported symbols without the gpu_ prefix:"; echo "$bad"; exit 1
fi
if ! printf '%s\n' "$actual" | diff -u "$list" - ; then
    echo "the exports differ from $list (update it when the API changes on purpose)"; exit 1
fi
if readelf -d "$lib" | grep NEEDED | grep -i cuda; then
    echo "$lib must not need a CUDA library at load time"; exit 1
fi
echo "$(printf '%s\n' "$actual" | wc -l) exports, all gpu_*, none needs CUDA"
