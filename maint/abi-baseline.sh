#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ABI baseline of libgpushim.so.<major>: abi/libgpushim.so.<major>.abi, written by
# libabigail's abidw from a debug build (DWARF) and the public headers. Regenerated only
# with a major release (CONTRIBUTING.md, "Versions and the ABI").
#
# usage: maint/abi-baseline.sh [--check] [BUILD_DIR]
#   (default)  configure BUILD_DIR (build-abi, a folder of the source root) with
#              -Dbuildtype=debug, build the library, write the baseline
#   --check    the same build, compared with the baseline by abidiff: exit 0 when the
#              ABIs are equal or the library only adds functions or variables, 1 on any
#              other change (a symbol removed, a signature, public type or value changed).
#              Changes inside structs defined outside include/gpushim/ (the opaque
#              objects' insides, the system's) do not count: abi/private-types.suppr.
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
if [ "${1:-}" = --check ]; then
    check=true
    shift
fi
build=${1:-build-abi}

version=$(sed -n "s/^  version: '\([0-9][0-9.]*\)',$/\1/p" meson.build | head -n 1)
major=${version%%.*}
[ -n "$major" ] || { echo "abi-baseline: no version in meson.build" >&2; exit 1; }
baseline=abi/libgpushim.so.$major.abi

if [ ! -d "$build" ]; then
    meson setup "$build" -Dbuildtype=debug -Dtests=disabled -Dbench=false >/dev/null
fi
ninja -C "$build" "src/libgpushim.so.$version" >/dev/null
lib=$build/src/libgpushim.so.$major
readelf -S "$lib" | grep -q '\.debug_info' || { echo "abi-baseline: $lib has no DWARF: build it with -g" >&2; exit 1; }

if ! $check; then
    mkdir -p abi
    abidw --headers-dir include/gpushim --drop-private-types --no-corpus-path --no-comp-dir-path \
        --out-file "$baseline" "$lib"
    echo "abi-baseline: wrote $baseline ($(grep -c '<elf-symbol ' "$baseline") symbols)"
    exit 0
fi

[ -f "$baseline" ] || { echo "abi-baseline: no $baseline (a major release writes it)" >&2; exit 1; }
# abidiff's exit status is a bit field: 1 error, 2 usage error, 4 the ABIs differ, 8 a change
# known to be incompatible (a symbol removed). --no-added-syms leaves additions out of the report
# and of the status, so any bit left is a change that a minor release may not make.
rc=0
suppr=abi/private-types.suppr
report=$(abidiff --no-added-syms --fail-no-debug-info --suppressions "$suppr" "$baseline" "$lib") || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "$report"
    (( rc & 3 )) && echo "abi-baseline: abidiff failed (exit $rc)" >&2
    (( rc & 3 )) || echo "abi-baseline: $lib changes the ABI of $baseline beyond additions (abidiff exit $rc)" >&2
    exit 1
fi
added=$( (abidiff --fail-no-debug-info --suppressions "$suppr" "$baseline" "$lib" || true) |
    sed -n 's/^Functions changes summary: .*, \([0-9]*\) Added.*/\1/p')
echo "abi-baseline: $lib keeps the ABI of $baseline (${added:-0} functions added)"
