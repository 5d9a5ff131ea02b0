#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs each libFuzzer target of a -Dfuzz=true build for SECONDS (default 30),
# from the corpus in seeds/, and fails on any crash, leak, hang (10 s for one
# input) or oversized memory use. Prints how many inputs each ran.
# usage: tests/fuzz/run-fuzz.sh BUILD_DIR [SECONDS]
set -euo pipefail
build=$1
seconds=${2:-30}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
# One target a line, for merging; a target not built (cudart-register needs libgpushim-cudart) is skipped, said so.
targets=(
    env module launch info-args json ld-cache
    fake-env
    cudart-register
    image-wrapper image-file image-library image-link
)
for name in "${targets[@]}"; do
    exe="$build/tests/fuzz/fuzz-$name"
    if [ ! -x "$exe" ] && [ "$name" = cudart-register ]; then
        echo "fuzz-$name: not built (no libgpushim-cudart in $build)"; continue
    fi
    mkdir -p "$work/$name"
    # New inputs go to a scratch corpus; the seeds in the tree stay as they are.
    if "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/$name-" "$work/$name" "$here/seeds/$name" </dev/null >"$work/$name.log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name.log" | grep -o '[0-9]*$' || echo '?')
        cov=$(grep -o 'cov: [0-9]*' "$work/$name.log" | tail -n 1 || true)
        echo "fuzz-$name: ${seconds} s, $runs inputs, $cov, no failure"
    else
        echo "fuzz-$name: FAILED"; tail -n 40 "$work/$name.log"
        for a in "$work/$name-"*; do [ -e "$a" ] && { echo "input: $a"; od -c "$a" | head -n 20; }; done
        failed=1
    fi
done
exit $failed
