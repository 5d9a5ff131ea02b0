#!/bin/sh
# SPDX-License-Identifier: MIT
# check.sh no-driver|gpu PROGRAM: runs the quick start and checks what it prints.
#   no-driver  GPUSHIM_LIBCUDA names no driver: exit 1, and the reason on stderr
#   gpu        the machine's driver: exit 0 and the ok line; 77 (skip) with no driver or no device
# On the fake, meson runs the program itself (its exit status is its own check).
mode=$1
program=$2
fail() {
    echo "FAIL: $*"
    exit 1
}
out=$("$program" 2>&1)
rc=$?
printf '%s\n' "$out"
case $mode in
    no-driver)
        [ "$rc" -eq 1 ] || fail "exit status $rc, want 1"
        case $out in
            *"quick_start: GPU_ERR_NO_DRIVER: no CUDA driver could be loaded: "*) ;;
            *) fail "no GPU_ERR_NO_DRIVER line with the reason" ;;
        esac
        ;;
    gpu)
        case $out in *GPU_ERR_NO_DRIVER* | *GPU_ERR_NO_DEVICE*) exit 77 ;; esac
        [ "$rc" -eq 0 ] || fail "exit status $rc, want 0"
        case $out in *"quick_start: ok: 1000 floats times 3, with "*) ;; *) fail "no ok line" ;; esac
        ;;
    *)
        fail "usage: check.sh no-driver|gpu PROGRAM"
        ;;
esac
echo "ok: quick_start ($mode)"
