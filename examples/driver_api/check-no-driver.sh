#!/bin/sh
# SPDX-License-Identifier: MIT
# check-no-driver.sh PROGRAM [ARGUMENTS...]: with no driver to load (GPUSHIM_LIBCUDA
# names none), PROGRAM must fail through its own error path at cuInit: exit 1,
# with CUDA_ERROR_STUB_LIBRARY and gpushim's reason from cuGetErrorString. It
# must need libgpushim-cuda.so.0 and no libcuda.
program=$1
fail() {
    echo "FAIL: $*"
    exit 1
}
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 1 ] || fail "exit status $rc, expected 1"
case $out in *"cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY (34): "*) ;; *) fail "no cuInit failure with CUDA_ERROR_STUB_LIBRARY" ;; esac
case $out in *"cannot open shared object file"*) ;; *) fail "cuGetErrorString did not give the load's reason" ;; esac
command -v readelf >/dev/null || fail "no readelf"
needed=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
printf 'NEEDED: %s\n' "$(echo "$needed" | tr '\n' ' ')"
echo "$needed" | grep -qx 'libgpushim-cuda\.so\.0' || fail "$program does not need libgpushim-cuda.so.0"
if echo "$needed" | grep -q '^libcuda\.so'; then
    fail "$program needs libcuda"
fi
if command -v ldd >/dev/null; then
    if ldd "$program" | grep -E '^[[:space:]]*libcuda\.so'; then
        fail "$program loads libcuda at start"
    fi
fi
echo "ok: fails through its own error path with gpushim's reason, needs no libcuda"
