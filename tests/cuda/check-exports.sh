#!/bin/sh
# SPDX-License-Identifier: MIT
# libgpushim-cuda.so exports every symbol of src/sys/driver/cuda_symbols.h as a function, and its
# marker gpu_cuda_forwarder (read-only data), nothing else; it needs libgpushim, never a CUDA
# library, at load time.
# usage: check-exports.sh libgpushim-cuda.so cuda_symbols.h
set -eu
lib=$1
list=$2
want=$(sed -n 's/^GPU__CUDA_SYMBOL(\([A-Za-z0-9_]*\),.*/\1/p' "$list" | sort)
have=$(nm -D --defined-only "$lib" | awk '{ print $2, $3 }' | sed 's/@.*//' | sort -k2)
printf '%s\n' "$have" | grep -qx 'R gpu_cuda_forwarder' || { echo "no marker gpu_cuda_forwarder"; exit 1; }
bad=$(printf '%s\n' "$have" | awk '$1 != "T" && !($1 == "R" && $2 == "gpu_cuda_forwarder") { print }')
if [ -n "$bad" ]; then
    echo "exports that are not functions:"; echo "$bad"; exit 1
fi
if ! printf '%s\n' "$have" | awk '$2 != "gpu_cuda_forwarder" { print $2 }' | diff -u - "$(printf '%s\n' "$want" > "${TMPDIR:-/tmp}/want.$$" && echo "${TMPDIR:-/tmp}/want.$$")"; then
    rm -f "${TMPDIR:-/tmp}/want.$$"
    echo "the exports differ from $list"; exit 1
fi
rm -f "${TMPDIR:-/tmp}/want.$$"
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if printf '%s\n' "$needed" | grep -i cuda | grep -v '^libgpushim'; then
    echo "$lib must not need a CUDA library at load time"; exit 1
fi
printf '%s\n' "$needed" | grep -qx 'libgpushim.so.1' || { echo "$lib does not need libgpushim.so.1"; exit 1; }
echo "$(printf '%s\n' "$want" | wc -l) functions exported, exactly the list's; needs: $(echo $needed)"
