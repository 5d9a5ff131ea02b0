#!/bin/sh
# SPDX-License-Identifier: MIT
# compare-lcuda.sh GPUSHIM_INFO GPUSHIM_BUILD LCUDA_BUILD [ARGUMENTS...]: on a real driver, the
# program linked with gpushim-cuda and the same program linked with -lcuda must both succeed
# and print the same lines. Exits 77 (skipped) where no driver is usable.
info=$1
with_gpushim=$2
with_lcuda=$3
shift 3
"$info" --no-self-test >/dev/null 2>&1 || { echo "no usable CUDA driver: skipped"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$with_gpushim" "$@" >"$dir/gpushim" 2>&1
rc_gpushim=$?
"$with_lcuda" "$@" >"$dir/lcuda" 2>&1
rc_lcuda=$?
echo "---- linked with gpushim-cuda: exit $rc_gpushim"
cat "$dir/gpushim"
echo "---- linked with -lcuda: exit $rc_lcuda"
cat "$dir/lcuda"
[ "$rc_gpushim" -eq 0 ] && [ "$rc_lcuda" -eq 0 ] || { echo "FAIL: not both exited 0"; exit 1; }
diff -u "$dir/lcuda" "$dir/gpushim" || { echo "FAIL: the outputs differ"; exit 1; }
echo "ok: the same $(wc -l <"$dir/gpushim") lines through gpushim-cuda and through -lcuda"
