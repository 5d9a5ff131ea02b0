#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs examples/ against an INSTALLED gpushim, the way a user's
# project does: a copy of examples/ outside the tree, pkg-config pointed at
# PREFIX, the programs run with PREFIX's libgpushim.
#   fake   on PREFIX's fake driver (gpushim-fakecuda), kernels as host functions
#   gpu    on the machine's real driver: the same binaries and checks
# Exit status as examples/run.sh: 0 passed, 1 failed, 77 the fake run had no
# nvcc, so only faults ran.
#
# usage: tools/run-examples.sh PREFIX fake|gpu   (PREFIX: where `meson install` put gpushim)
set -euo pipefail

prefix=${1:?usage: run-examples.sh PREFIX fake|gpu}
mode=${2:?usage: run-examples.sh PREFIX fake|gpu}
prefix=$(cd "$prefix" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)

pc_file=$(find "$prefix" -name gpushim.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc_file" ] || { echo "run-examples.sh: no gpushim.pc under $prefix"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc_file")
command -v "${PKG_CONFIG:-pkg-config}" >/dev/null 2>&1 || { echo "run-examples.sh: no pkg-config (install pkg-config or pkgconf)"; exit 1; }
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
# No LD_LIBRARY_PATH: the examples find the prefix's libgpushim by their run path, as a user's would.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples" "$work/"
echo "examples: gpushim $($PKG_CONFIG --modversion gpushim) from $prefix, built in $work/examples, mode $mode"
bash "$work/examples/run.sh" "$mode"
