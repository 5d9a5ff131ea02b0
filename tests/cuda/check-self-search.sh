#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libgpushim-cuda as libcuda.so.1, first on LD_LIBRARY_PATH, finds the driver
# past itself: a folder laid out as the install's <libdir>/gpushim/cuda (its
# libcuda.so.1 -> ../../libgpushim-cuda.so.0) and the fake driver as the
# "system" one, in a folder GPUSHIM_LIBCUDA_DIRS names in place of the
# system's places. Cases:
#   - the fake found after gpushim itself, a link to it (the same file) and a
#     copy of it (another gpushim forwarder), each skipped and said why;
#   - no driver but gpushim: calls answer 34, saying only gpushim was found;
#   - gpushim-info through the same folder names the file and why.
#
# usage: check-self-search.sh LIBGPUSHIM-CUDA LIBGPUSHIM FAKE SELF-SEARCH GPUSHIM-INFO
set -euo pipefail

cuda=${1:?usage: check-self-search.sh LIBGPUSHIM-CUDA LIBGPUSHIM FAKE SELF-SEARCH GPUSHIM-INFO}
gpushim=$2
fake=$3
program=$4
info=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset GPUSHIM_LIBCUDA GPUSHIM_LIBCUDA_DIRS

mkdir -p "$work/lib/gpushim/cuda" "$work/system" "$work/alias" "$work/copy" "$work/empty"
ln -s "$cuda" "$work/lib/libgpushim-cuda.so.0"
ln -s "$gpushim" "$work/lib/libgpushim.so.0"
ln -s ../../libgpushim-cuda.so.0 "$work/lib/gpushim/cuda/libcuda.so.1"
ln -s "$fake" "$work/system/libcuda.so.1"
ln -s "$cuda" "$work/alias/libcuda.so.1"
cp "$cuda" "$work/copy/libcuda.so.1"
front=$work/lib/gpushim/cuda
failures=0

run() {
    local what=$1
    shift
    echo "---- $what"
    if ! "$@"; then
        echo "FAIL: $what"
        failures=$((failures + 1))
    fi
}

run "the fake, past gpushim, a link to it and a copy of it" \
    env LD_LIBRARY_PATH="$front" GPUSHIM_LIBCUDA_DIRS="$work/alias:$work/copy:$work/system" "$program" driver "$fake" \
    "$work/alias/libcuda.so.1: skipped: the same file as" \
    "$work/copy/libcuda.so.1: skipped: $work/copy/libcuda.so.1 is gpushim's own forwarder"
run "no driver but gpushim" \
    env LD_LIBRARY_PATH="$front" GPUSHIM_LIBCUDA_DIRS="$work/empty:$work/copy" "$program" none \
    "GPUSHIM_LIBCUDA_DIRS: no libcuda.so.1 in $work/empty"

echo "---- gpushim-info through $front"
out=$(env LD_LIBRARY_PATH="$front" GPUSHIM_LIBCUDA_DIRS="$work/system" "$info" --no-self-test 2>&1) || true
echo "$out"
for want in "driver: $work/system/libcuda.so.1" "chosen: found in a folder of GPUSHIM_LIBCUDA_DIRS" \
    "is gpushim's own forwarder (libgpushim-cuda)" "$work/system/libcuda.so.1: opened"; do
    grep -qF -- "$want" <<<"$out" || { echo "FAIL: gpushim-info does not say: $want"; failures=$((failures + 1)); }
done
out=$(env LD_LIBRARY_PATH="$front" GPUSHIM_LIBCUDA_DIRS="$work/empty" "$info" --no-self-test 2>&1) && rc=0 || rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "FAIL: gpushim-info exited $rc without a driver, not 1"; failures=$((failures + 1)); }
grep -qF "only gpushim's own libcuda.so.1" <<<"$out" || { echo "FAIL: gpushim-info does not say only gpushim was found"; failures=$((failures + 1)); }

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "all passed"
