#!/bin/sh
# SPDX-License-Identifier: MIT
# No object may carry the STATIC_TLS flag (initial-exec TLS), which makes
# dlopen fail once the static TLS block is spent.
# usage: check-tls.sh OBJECT...
set -eu
for lib in "$@"; do
    if readelf -d "$lib" | grep -q STATIC_TLS; then
        echo "$lib is marked STATIC_TLS:"; readelf -d "$lib" | grep FLAGS; exit 1
    fi
    readelf -d "$lib" | grep -q . || { echo "readelf could not read $lib"; exit 1; }
done
echo "no STATIC_TLS in: $*"
