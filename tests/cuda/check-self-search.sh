#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libgpushim-cuda as libcuda.so.1, first on LD_LIBRARY_PATH, finds the driver
# past itself: a folder laid out as the install's <libdir>/gpushim/cuda (its
# libcuda.so.1 -> ../../libgpushim-cuda.so.0) and the fake driver as the
# "system" one, in a folder GPUSHIM_LIBCUDA_DIRS names in place of the
# system's places. Cases:
#   - the fake found after gpushim itself, a link to it (the same file), a
#     copy of it (another gpushim forwarder) and a library without cuInit, each
#     skipped and said why;
#   - no driver but gpushim (and a relative folder, refused): calls answer 34,
#     saying only gpushim was found;
#   - gpushim-info through the same folder names the file and why.
#
# With GPU=1 (the gpu suite) it runs the program once, GPUSHIM_LIBCUDA_DIRS unset:
# it must reach the machine's driver, found through /etc/ld.so.cache or the
# usual folders past gpushim itself; 77 where gpushim-info finds no driver.
#
# usage: [GPU=1] check-self-search.sh LIBGPUSHIM-CUDA LIBGPUSHIM FAKE SELF-SEARCH GPUSHIM-INFO NOT-CUDA
set -euo pipefail

cuda=${1:?usage: check-self-search.sh LIBGPUSHIM-CUDA LIBGPUSHIM FAKE SELF-SEARCH GPUSHIM-INFO NOT-CUDA}
gpushim=$2
fake=$3
program=$4
info=$5
notcuda=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset GPUSHIM_LIBCUDA GPUSHIM_LIBCUDA_DIRS

mkdir -p "$work/lib/gpushim/cuda" "$work/system" "$work/alias" "$work/copy" "$work/notcuda" "$work/empty"
ln -s "$cuda" "$work/lib/libgpushim-cuda.so.0"
ln -s "$gpushim" "$work/lib/libgpushim.so.1"
ln -s ../../libgpushim-cuda.so.0 "$work/lib/gpushim/cuda/libcuda.so.1"
ln -s "$fake" "$work/system/libcuda.so.1"
ln -s "$cuda" "$work/alias/libcuda.so.1"
cp "$cuda" "$work/copy/libcuda.so.1"
ln -s "$notcuda" "$work/notcuda/libcuda.so.1"
front=$work/lib/gpushim/cuda
failures=0

if [ "${GPU:-0}" = 1 ]; then
    "$info" --no-self-test >/dev/null 2>&1 || { echo "skipped: no usable driver"; exit 77; }
    env LD_LIBRARY_PATH="$front" "$program" system "is gpushim's own forwarder (libgpushim-cuda)"
    exit
fi

run() {
    local what=$1
    shift
    echo "---- $what"
    if ! "$@"; then
        echo "FAIL: $what"
        failures=$((failures + 1))
    fi
}

run "the fake, past gpushim, a link to it, a copy of it and a library without cuInit" \
    env LD_LIBRARY_PATH="$front" GPUSHIM_LIBCUDA_DIRS="$work/alias:$work/copy:$work/notcuda:$work/system" \
    "$program" driver "$fake" \
    "$work/alias/libcuda.so.1: skipped: the same file as" \
    "$work/copy/libcuda.so.1: skipped: $work/copy/libcuda.so.1 is gpushim's own forwarder" \
    "$work/notcuda/libcuda.so.1: skipped: $work/notcuda/libcuda.so.1 exports no cuInit"
run "no driver but gpushim" \
    env LD_LIBRARY_PATH="$front" GPUSHIM_LIBCUDA_DIRS="$work/empty:relative/lib:$work/copy" "$program" none \
    "GPUSHIM_LIBCUDA_DIRS: no libcuda.so.1 in $work/empty" \
    "GPUSHIM_LIBCUDA_DIRS: relative/lib: not an absolute folder"

run "a value of colons alone, which names no folder" \
    env LD_LIBRARY_PATH="$front" GPUSHIM_LIBCUDA_DIRS="::" "$program" none \
    "GPUSHIM_LIBCUDA_DIRS: names no folder (it wants absolute folders, colon-separated)"

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
