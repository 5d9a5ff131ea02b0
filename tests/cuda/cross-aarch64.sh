#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libgpushim-cuda on AArch64, from this x86-64 machine: a cross build (gcc-aarch64-linux-gnu) and
# tests/cuda/app.c, plain and with per-thread default streams, run under qemu-aarch64 with no
# driver, on the cross-built fake driver, and traced (each call by name, with its arguments).
# Exit 77 where the cross compiler, qemu-aarch64 or cuda.h is missing.
# usage: tests/cuda/cross-aarch64.sh [CUDA_INCLUDE]   (run from the source root)
set -euo pipefail
inc=${1:-/usr/local/cuda/include}
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
    command -v "$tool" >/dev/null || { echo "skipped: no $tool"; exit 77; }
done
[ -f "$inc/cuda.h" ] || { echo "skipped: no $inc/cuda.h"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/cross.ini" <<INI
[binaries]
c = 'aarch64-linux-gnu-gcc'
ar = 'aarch64-linux-gnu-ar'
strip = 'aarch64-linux-gnu-strip'
[host_machine]
system = 'linux'
cpu_family = 'aarch64'
cpu = 'aarch64'
endian = 'little'
INI
meson setup "$work/build" --cross-file "$work/cross.ini" -Dwerror=true -Dtests=disabled -Dbench=false \
    -Ddocs=disabled -Dcmake_package=disabled >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }
ninja -C "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
lib=$work/build/src
fake=$work/build/fake/libgpushim-fakecuda.so
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
failures=0
for variant in plain ptds; do
    defines=""
    [ "$variant" = ptds ] && defines=-DCUDA_API_PER_THREAD_DEFAULT_STREAM
    app=$work/app-$variant
    # shellcheck disable=SC2086 # an empty $defines is no argument
    aarch64-linux-gnu-gcc -std=c11 -Wall -Wextra -Werror -isystem "$inc" $defines tests/cuda/app.c -o "$app" \
        -L"$lib" -lgpushim-cuda -Wl,-rpath,"$lib"
    GPUSHIM_LIBCUDA=/nonexistent/libcuda.so.1 qemu-aarch64 "$app" no-driver || { echo "FAIL: $variant, no driver"; failures=$((failures + 1)); }
    # The fake answers what the plain program calls; the per-thread names only where it exports them.
    if [ "$variant" = plain ]; then
        GPUSHIM_LIBCUDA=$fake GPUSHIM_TRACE=$work/trace.json qemu-aarch64 "$app" run ||
            { echo "FAIL: $variant, on the fake"; failures=$((failures + 1)); }
        python3 - "$work/trace.json" <<'PY' || failures=$((failures + 1))
import json, sys
calls = {e["name"]: e["args"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "cuda"}
a = calls.get("cuMemAlloc_v2", {})
c = calls.get("cuMemcpyHtoDAsync_v2", {})
ok = a.get("bytesize") == 4096 and c.get("ByteCount") == 4096 and str(c.get("dstDevice", "")).startswith("0x")
print(f"traced on aarch64: {len(calls)} symbols; cuMemAlloc_v2 {a}; cuMemcpyHtoDAsync_v2 {c}")
sys.exit(0 if ok else print("FAIL: the aarch64 trace's arguments") or 1)
PY
    fi
done
[ "$failures" -eq 0 ] || { echo "aarch64: $failures failures"; exit 1; }
echo "aarch64: libgpushim-cuda cross-built and run under qemu: no driver, the fake, the trace"
