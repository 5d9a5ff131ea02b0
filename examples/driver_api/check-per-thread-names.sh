#!/bin/sh
# SPDX-License-Identifier: MIT
# check-per-thread-names.sh PROGRAM: PROGRAM, built with -DCUDA_API_PER_THREAD_DEFAULT_STREAM,
# must call the per-thread names (_ptsz, _ptds) of its stream-ordered calls, never the legacy ones.
program=$1
fail() {
    echo "FAIL: $*"
    exit 1
}
command -v nm >/dev/null || fail "no nm"
undefined=$(nm -u "$program" | awk '{print $NF}' | sed 's/@.*//' | grep '^cu')
printf 'cu* symbols it needs: %s\n' "$(echo "$undefined" | tr '\n' ' ')"
for name in cuLaunchKernel_ptsz cuMemcpyHtoDAsync_v2_ptsz cuMemcpyDtoHAsync_v2_ptsz cuStreamSynchronize_ptsz; do
    echo "$undefined" | grep -qx "$name" || fail "no $name"
done
for name in cuLaunchKernel cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2 cuStreamSynchronize; do
    if echo "$undefined" | grep -qx "$name"; then
        fail "it calls the legacy-stream $name"
    fi
done
echo "ok: the per-thread names"
