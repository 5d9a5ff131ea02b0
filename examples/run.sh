#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds every example against the installed gpushim that pkg-config finds,
# then runs each with its checks, on the fake driver or on a GPU:
#   run.sh fake   GPUSHIM_LIBCUDA names gpushim-fakecuda; kernels run as their
#                 host implementations (GPUSHIM_FAKE_KERNELS), and again without
#                 them, their PTX on the fake's interpreter
#   run.sh gpu    the real driver, the same binaries and the same checks
# Each program's NEEDED libraries are checked too: libgpushim, never CUDA's or the fake.
# Exits 0 when every check passed, 1 when one failed, 77 when the fake run left
# out the examples with kernels in .cu files because there is no nvcc (quick_start
# and faults still run).
# Environment: NVCC (default: nvcc in PATH, else /usr/local/cuda/bin/nvcc), CC, PKG_CONFIG_PATH.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh" "${1:-}"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export NVCC

# built NAME: builds examples/NAME for the mode (make gpu or make fake).
built() {
    if ! make -s -C "$here/$1" "$mode"; then
        echo "FAIL: $1 did not build"
        failures=$((failures + 1))
        return 1
    fi
    local needed
    needed=$(readelf -d "$here/$1/$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case $needed in
        *libgpushim.so*) ;;
        *) echo "FAIL: $1 does not need libgpushim: $needed"; failures=$((failures + 1)); return 1 ;;
    esac
    case $needed in
        *libcuda* | *fakecuda*) echo "FAIL: $1 needs $needed"; failures=$((failures + 1)); return 1 ;;
    esac
    echo "built: $1 (NEEDED $needed)"
}

skipped=""
if [ ! -x "$NVCC" ] && ! command -v "$NVCC" >/dev/null; then
    if [ "$mode" = gpu ]; then
        echo "FAIL: no nvcc ($NVCC): the examples with kernels cannot be built"
        exit 1
    fi
    skipped="vector_add capture_replay"
    echo "SKIP: vector_add and capture_replay: no nvcc ($NVCC) to make their PTX; set NVCC"
fi

cd "$here"
# quick_start carries its kernel's PTX in main.c, so it needs no nvcc.
if built quick_start; then
    expect "quick_start (README.md's example)" 0 "^quick_start: ok: 1000 floats times 3, $driver_seen" \
        on "" quick_start/quick_start
fi
if [ -z "$skipped" ]; then
    if built vector_add; then
        expect "vector_add" 0 "^vector_add: ok: 1048579 elements, .*$driver_seen" \
            on vector_add/libvector_add_host.so vector_add/vector_add vector_add/vector_add.ptx
        [ "$mode" = gpu ] || expect "vector_add's PTX on the fake's interpreter (no host implementation)" 0 \
            "^vector_add: ok: 1048579 elements, .*$driver_seen" on "" vector_add/vector_add vector_add/vector_add.ptx
    fi
    if built capture_replay; then
        expect "capture_replay" 0 "^capture_replay: ok: 10 replays of one graph .*$driver_seen" \
            on capture_replay/libpipeline_host.so capture_replay/capture_replay capture_replay/pipeline.ptx 10
        [ "$mode" = gpu ] || expect "capture_replay's PTX on the fake's interpreter (no host implementation)" 0 \
            "^capture_replay: ok: 10 replays of one graph .*$driver_seen" \
            on "" capture_replay/capture_replay capture_replay/pipeline.ptx 10
    fi
fi
if built faults; then
    bash faults/test.sh "$mode" || failures=$((failures + 1))
fi

if [ "$failures" -ne 0 ]; then
    echo "examples ($mode): $failures failed"
    exit 1
fi
if [ -n "$skipped" ]; then
    echo "examples ($mode): quick_start and faults passed; skipped for want of nvcc: $skipped"
    exit 77
fi
echo "examples ($mode): all passed"
