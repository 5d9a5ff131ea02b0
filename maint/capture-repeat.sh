#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs gpu-capture's ordered case (a global capture on an ordered stream while
# two threads make legacy copies) N times, each in a process of its own, and
# prints how many runs failed, with the end of each failed run's output. Exit
# 0 when none failed, 1 when one did, 77 without a GPU.
# usage: maint/capture-repeat.sh BUILD_DIR [N]    (N: 300 by default)
set -uo pipefail
build=${1:?usage: maint/capture-repeat.sh BUILD_DIR [N]}
runs=${2:-300}
exe=$build/tests/gpu/gpu-capture
[ -x "$exe" ] || { echo "no $exe: build with tests enabled first" >&2; exit 1; }
failed=0
for ((i = 1; i <= runs; i++)); do
    out=$("$exe" ordered 2>&1)
    rc=$?
    case $rc in
        0) ;;
        77) echo "gpu-capture: skipped (77): no usable GPU"; exit 77 ;;
        *)
            failed=$((failed + 1))
            echo "== run $i: exit status $rc"
            tail -n 8 <<<"$out"
            ;;
    esac
done
echo "CAPTURE_REPEAT ordered: $runs runs, $failed failed"
[ "$failed" -eq 0 ]
