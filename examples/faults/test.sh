#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# faults' test: the program's exit status and output when memory runs out and
# when the device is lost. On the fake, the faults are injected (GPUSHIM_FAKE_FAIL,
# GPUSHIM_FAKE_MEMORY_LIMIT, GPUSHIM_FAKE_LOSE); on a GPU, the normal path and a
# genuine out-of-memory (buffers larger than the device's total memory).
#
# usage: faults/test.sh fake|gpu   (after `make`; pkg-config must find gpushim)
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh" "${1:-}"
faults=$here/faults

expect "faults: normal path" 0 "^faults: ok: 16777216 bytes through 2 x 4194304-byte .*$driver_seen" \
    on "" "$faults"
expect "faults: buffers larger than the device: halved until they fit" 0 \
    "^faults: out of memory for 2 x [0-9]+ bytes; retrying" on "" "$faults" --want=over
expect "faults: even the smallest buffers larger than the device: exit 3" 3 \
    "^faults: out of memory: not even 2 x [0-9]+ bytes fit" on "" "$faults" --want=over --min=over
expect "faults: a usage error: exit 64" 64 "usage: faults" on "" "$faults" --want=0

if [ "$mode" = fake ]; then
    expect "faults: the second allocation fails: the first is freed, then smaller ones fit" 0 \
        "^faults: ok: .* 2 x 2097152-byte device buffers in 8 chunks" \
        on "" env GPUSHIM_FAKE_FAIL=cuMemAlloc:2:2 "$faults"
    expect "faults: every allocation fails: exit 3" 3 "^faults: out of memory: not even 2 x 65536 bytes fit" \
        on "" env GPUSHIM_FAKE_FAIL=cuMemAlloc:1+:2 "$faults"
    expect "faults: 6M of device memory: 2 x 4M do not fit, 2 x 2M do" 0 \
        "^faults: ok: .* 2 x 2097152-byte device buffers" on "" env GPUSHIM_FAKE_MEMORY_LIMIT=6M "$faults"
    expect "faults: 64K of device memory: exit 3" 3 "^faults: out of memory: not even 2 x 65536 bytes fit" \
        on "" env GPUSHIM_FAKE_MEMORY_LIMIT=64K "$faults"
    expect "faults: a copy says the device is unavailable: exit 4" 4 "^faults: device lost while copying" \
        on "" env GPUSHIM_FAKE_FAIL=cuMemcpyDtoHAsync:2:46 "$faults"
    expect "faults: the device is lost at the first call (CUDA_ERROR_UNKNOWN): exit 4" 4 \
        "^faults: device lost while setting up" \
        on "" env GPUSHIM_FAKE_LOSE=0:1:0 "$faults"
    # Setting up takes about 150 calls into the fake (gpushim resolves its entry points); 256
    # chunks of 64K take about 1000 more, so the 600th call is well inside the copying.
    expect "faults: the device is lost mid-copy: exit 4" 4 "^faults: device lost while copying" \
        on "" env GPUSHIM_FAKE_LOSE=0:600:46 "$faults" --want=64K
fi

[ "$failures" -eq 0 ] || { echo "faults: $failures checks failed"; exit 1; }
