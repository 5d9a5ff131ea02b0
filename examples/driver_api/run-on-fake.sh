#!/bin/sh
# SPDX-License-Identifier: MIT
# run-on-fake.sh PROGRAM [ARGUMENTS...]: PROGRAM on the fake driver (GPUSHIM_LIBCUDA names it)
# must succeed, its own checks included. Where it stopped at a function the fake does not
# implement yet (the fake says so on stderr, and the call fails with CUDA_ERROR_NOT_SUPPORTED),
# the test is skipped (77) naming that function; any other failure fails it.
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] && exit 0
missing=$(printf '%s\n' "$out" | sed -n 's/^gpushim-fakecuda: \([A-Za-z0-9_]*\) is not implemented by the fake driver.*/\1/p')
if [ "$rc" -eq 1 ] && [ -n "$missing" ] && printf '%s\n' "$out" | grep -q 'failed: CUDA_ERROR_NOT_SUPPORTED (801)'; then
    echo "SKIP: the fake driver does not implement $(echo "$missing" | tr '\n' ' ')yet"
    exit 77
fi
echo "FAIL: exit status $rc on the fake driver"
exit 1
