#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs the consumer program (app.c) against an INSTALLED gpushim,
# the way a user's project would:
#   cmake       find_package(gpushim 1.0 CONFIG REQUIRED), gpushim::gpushim
#               and gpushim::gpushim_static
#   pkg-config  cc $(pkg-config --cflags --libs gpushim), and the static
#               library with pkg-config --static
#   meson       dependency('gpushim') found through pkg-config, then the same
#               project with gpushim as a subproject (a copy of this tree)
# Every program runs twice: with GPUSHIM_LIBCUDA naming a missing file (it must
# see GPU_ERR_NO_DRIVER) and with the fake driver (a buffer round trip must
# work): FAKE_LIBCUDA when set, else the installed one (gpushim-fakecuda.pc's
# `driver`).
#
# The fake driver's own consumer (fake_app.c), as a user's test links it:
#   pkg-config  $(pkg-config --cflags --libs gpushim gpushim-fakecuda), run with
#               GPUSHIM_LIBCUDA=$(pkg-config --variable=driver gpushim-fakecuda)
#   meson       dependency('gpushim-fakecuda') and its get_variable('driver'),
#               installed and as a subproject
#
# libgpushim-cuda, where the toolkit's cuda.h is here (CUDA_INCLUDE, default /usr/local/cuda/include):
# tests/cuda/app.c, a -lcuda program, built with pkg-config's gpushim-cuda, CMake's gpushim::cuda and
# Meson's dependency('gpushim-cuda'); each runs with no driver (its own error path, gpushim's reason)
# and on the fake driver.
#
# libgpushim-cudart, where it is installed and nvcc is here (NVCC, default beside CUDA_INCLUDE): cudart_app.cu,
# a runtime program built with nvcc -cudart=shared, linked with pkg-config's gpushim-cudart (run with
# LD_LIBRARY_PATH=its cudartdir) and with CMake's gpushim::cudart (run by its build-tree run path); each must
# load the installed libgpushim-cudart as libcudart.so.13, fail cleanly with no driver and run on the fake.
# Then a CMake CUDA project that links CUDA::cudart and adds its test with gpushim_add_fake_test: ctest runs
# it on the fake through the installed gpushim-run, with no setting of the caller's.
#
# usage: tests/consumers/run.sh PREFIX      (PREFIX: where `meson install` put gpushim)
# environment: FAKE_LIBCUDA (optional), CC (default cc), CUDA_INCLUDE, NVCC
set -euo pipefail

prefix=${1:?usage: run.sh PREFIX}
prefix=$(cd "$prefix" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pc_file=$(find "$prefix" -name gpushim.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc_file" ] || { echo "run.sh: no gpushim.pc under $prefix"; exit 1; }
libdir=$(dirname "$(dirname "$pc_file")")
export PKG_CONFIG_PATH=$(dirname "$pc_file")
missing=/nonexistent/libcuda.so.1
pkg-config --exists gpushim-fakecuda || { echo "run.sh: no gpushim-fakecuda.pc beside $pc_file"; exit 1; }
fake_driver=$(pkg-config --variable=driver gpushim-fakecuda)
[ -f "$fake_driver" ] || { echo "run.sh: gpushim-fakecuda.pc's driver '$fake_driver' is not a file"; exit 1; }
case $fake_driver in "$libdir"/*) ;; *) echo "run.sh: the driver '$fake_driver' is not under $libdir"; exit 1 ;; esac
# gpushim takes only an absolute GPUSHIM_LIBCUDA.
FAKE_LIBCUDA=$(realpath "${FAKE_LIBCUDA:-$fake_driver}")
failures=0

say() { printf '\n---- consumer: %s\n' "$*"; }

# check_binary FILE shared|static: what the program is linked with.
check_binary() {
    local needed
    needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case $needed in *libcuda*) echo "FAIL: $1 needs libcuda: $needed"; return 1 ;; esac
    if [ "$2" = fake ]; then
        case $needed in *libgpushim-fakecuda.so*libgpushim.so.1*|*libgpushim.so.1*libgpushim-fakecuda.so*) ;;
        *) echo "FAIL: $1 does not need both libgpushim.so.1 and libgpushim-fakecuda.so: $needed"; return 1 ;; esac
        echo "linked: $1 ($2): NEEDED $needed"
        return
    fi
    if [ "$2" = shared ]; then
        case $needed in *libgpushim.so.1*) ;; *) echo "FAIL: $1 does not need libgpushim.so.1: $needed"; return 1 ;; esac
        # The library it runs with must be the installed one, not a build tree's.
        local resolved
        resolved=$(LD_LIBRARY_PATH=$libdir ldd "$1" | awk '/libgpushim/ {print $3}')
        case $resolved in "$libdir"/*) ;; *) echo "FAIL: $1 loads libgpushim from '$resolved', not $libdir"; return 1 ;; esac
    else
        case $needed in *libgpushim*) echo "FAIL: $1 is meant to be static but needs: $needed"; return 1 ;; esac
    fi
    echo "linked: $1 ($2): NEEDED $needed"
}

# run_app FILE shared|static: checks the binary, then runs it without a driver and on the fake.
run_app() {
    if ! check_binary "$1" "$2"; then
        failures=$((failures + 1))
        return
    fi
    if ! env LD_LIBRARY_PATH="$libdir" GPUSHIM_LIBCUDA=$missing "$1"; then
        echo "FAIL: $1 without a driver"
        failures=$((failures + 1))
    fi
    if [ -n "${FAKE_LIBCUDA:-}" ]; then
        if ! env LD_LIBRARY_PATH="$libdir" GPUSHIM_LIBCUDA="$FAKE_LIBCUDA" "$1"; then
            echo "FAIL: $1 on the fake driver $FAKE_LIBCUDA"
            failures=$((failures + 1))
        fi
    fi
}

# run_fake_app FILE DRIVER: the fake's consumer, GPUSHIM_LIBCUDA=DRIVER ('' leaves it to the program).
run_fake_app() {
    if ! check_binary "$1" fake; then
        failures=$((failures + 1))
        return
    fi
    if ! env -u GPUSHIM_LIBCUDA LD_LIBRARY_PATH="$libdir" ${2:+GPUSHIM_LIBCUDA="$2"} "$1"; then
        echo "FAIL: $1 on the installed fake driver"
        failures=$((failures + 1))
    fi
}

cp -r "$here" "$work/consumers"
cp -r "$root/tests/cuda" "$work/cuda" # the gpushim-cuda consumers' program

say "cmake (find_package, shared and static targets)"
cmake -S "$work/consumers/cmake" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=Release >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 1; }
grep -E 'gpushim .* from' "$work/cmake.log"
cmake --build "$work/cmake-build" -- -s >/dev/null
run_app "$work/cmake-build/consumer-shared" shared
run_app "$work/cmake-build/consumer-static" static

say "pkg-config ($(pkg-config --modversion gpushim): $(pkg-config --cflags --libs gpushim))"
# shellcheck disable=SC2046 # the flags are meant to split
"$cc" -std=c11 -Wall -Wextra -Werror "$work/consumers/app.c" $(pkg-config --cflags --libs gpushim) -o "$work/pc-shared"
run_app "$work/pc-shared" shared
# The static library with exactly what Libs.private says it needs.
static_libs=$(pkg-config --static --libs gpushim | sed 's/-lgpushim\b/-l:libgpushim.a/')
echo "static: $static_libs"
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Wextra -Werror "$work/consumers/app.c" $(pkg-config --cflags gpushim) $static_libs -o "$work/pc-static"
run_app "$work/pc-static" static

say "pkg-config, the fake driver ($(pkg-config --cflags --libs gpushim-fakecuda); driver $fake_driver)"
# shellcheck disable=SC2046 # the flags are meant to split
"$cc" -std=c11 -Wall -Wextra -Werror "$work/consumers/fake_app.c" $(pkg-config --cflags --libs gpushim gpushim-fakecuda) \
    -o "$work/pc-fake"
run_fake_app "$work/pc-fake" "$fake_driver"

say "meson, dependency('gpushim') from the installed tree"
CC=$cc meson setup "$work/meson-installed" "$work/consumers/meson" --wrap-mode=nofallback >"$work/meson.log" 2>&1 ||
    { cat "$work/meson.log"; exit 1; }
grep -E 'Run-time dependency gpushim' "$work/meson.log"
meson compile -C "$work/meson-installed" >/dev/null
run_app "$work/meson-installed/consumer" shared
# Built with the installed .pc's driver path, run without GPUSHIM_LIBCUDA: the program sets it.
run_fake_app "$work/meson-installed/consumer-fake" ""

say "meson, gpushim as a subproject"
mkdir -p "$work/consumers/meson/subprojects/gpushim"
# The tree as it is (committed or not), without build folders.
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -z -co --exclude-standard | (cd "$root" && tar --null -T - -cf -) |
        tar -xf - -C "$work/consumers/meson/subprojects/gpushim"
else
    tar -C "$root" --exclude='./build*' -cf - . | tar -xf - -C "$work/consumers/meson/subprojects/gpushim"
fi
CC=$cc meson setup "$work/meson-sub" "$work/consumers/meson" --force-fallback-for=gpushim,gpushim-fakecuda \
    >"$work/meson-sub.log" 2>&1 ||
    { cat "$work/meson-sub.log"; exit 1; }
grep -E 'Dependency gpushim .*found' "$work/meson-sub.log" | head -n 1
meson compile -C "$work/meson-sub" >/dev/null
# Built in the subproject: it must NOT be the installed library, so no LD_LIBRARY_PATH check.
sub_bin=$work/meson-sub/consumer
if readelf -d "$sub_bin" | grep -q 'NEEDED.*libgpushim.so.1' && GPUSHIM_LIBCUDA=$missing "$sub_bin"; then
    echo "linked: $sub_bin (subproject's libgpushim.so.1 through its build rpath)"
    [ -z "${FAKE_LIBCUDA:-}" ] || GPUSHIM_LIBCUDA="$FAKE_LIBCUDA" "$sub_bin" || failures=$((failures + 1))
else
    echo "FAIL: the subproject consumer"
    failures=$((failures + 1))
fi
# The subproject's fake, named by the dependency's `driver` variable, not the installed one.
sub_fake=$work/meson-sub/consumer-fake
if env -u GPUSHIM_LIBCUDA "$sub_fake" | tee "$work/sub-fake.out" && grep -q "through $work/meson-sub/" "$work/sub-fake.out"; then
    echo "ran: $sub_fake on the subproject's fake driver"
else
    echo "FAIL: $sub_fake on the subproject's fake driver"
    failures=$((failures + 1))
fi

# run_cuda_app FILE: a -lcuda program linked with libgpushim-cuda only, with no driver and on the fake.
run_cuda_app() {
    local needed
    needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case $needed in *libcuda.so*) echo "FAIL: $1 needs libcuda: $needed"; failures=$((failures + 1)); return ;; esac
    case $needed in *libgpushim-cuda.so.0*) ;; *) echo "FAIL: $1 does not need libgpushim-cuda.so.0: $needed"
        failures=$((failures + 1)); return ;; esac
    echo "linked: $1: NEEDED $needed"
    env LD_LIBRARY_PATH="$libdir" GPUSHIM_LIBCUDA=$missing "$1" no-driver ||
        { echo "FAIL: $1 without a driver"; failures=$((failures + 1)); }
    env LD_LIBRARY_PATH="$libdir" GPUSHIM_LIBCUDA="$FAKE_LIBCUDA" "$1" run ||
        { echo "FAIL: $1 on the fake driver"; failures=$((failures + 1)); }
}

# part_here PACKAGE WHY FILE: whether the installed tree has PACKAGE (WHY says where it is built) and FILE, which
# its consumer needs, is here; if not, says which is missing.
part_here() {
    if ! pkg-config --exists "$1"; then
        say "$1: not installed here ($2)"
        return 1
    fi
    [ -e "$3" ] || { say "$1: skipped, no $3"; return 1; }
}

cuda_include=${CUDA_INCLUDE:-/usr/local/cuda/include}
if part_here gpushim-cuda "its forwarders exist for x86-64 and AArch64 Linux only" "$cuda_include/cuda.h"; then
    say "pkg-config, gpushim-cuda in place of -lcuda ($(pkg-config --libs gpushim-cuda))"
    # shellcheck disable=SC2046 # the flags are meant to split
    "$cc" -std=c11 -Wall -Wextra -Werror -isystem "$cuda_include" "$root/tests/cuda/app.c" \
        $(pkg-config --libs gpushim-cuda) -o "$work/pc-cuda"
    run_cuda_app "$work/pc-cuda"

    say "cmake, gpushim::cuda in place of CUDA::cuda_driver"
    cmake -S "$work/consumers/cmake-cuda" -B "$work/cmake-cuda" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" -DCUDAToolkit_ROOT="$(dirname "$cuda_include")" >"$work/cmake-cuda.log" 2>&1 ||
        { cat "$work/cmake-cuda.log"; exit 1; }
    cmake --build "$work/cmake-cuda" -- -s >/dev/null
    run_cuda_app "$work/cmake-cuda/consumer-cuda"

    say "meson, dependency('gpushim-cuda') from the installed tree"
    [ -x "$work/meson-installed/consumer-cuda" ] || { echo "FAIL: meson built no consumer-cuda"; failures=$((failures + 1)); }
    [ ! -x "$work/meson-installed/consumer-cuda" ] || run_cuda_app "$work/meson-installed/consumer-cuda"
fi

# run_cudart_app FILE DIR: a program built with -cudart=shared, run with LD_LIBRARY_PATH=DIR ('' for none): its
# libcudart.so.13 must be the installed libgpushim-cudart; with no driver it fails with the runtime's error,
# on the fake it runs.
run_cudart_app() {
    local needed resolved ours out
    needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case $needed in *libcudart.so.13*) ;; *) echo "FAIL: $1 does not need libcudart.so.13: $needed"
        failures=$((failures + 1)); return ;; esac
    resolved=$(env -u LD_LIBRARY_PATH ${2:+LD_LIBRARY_PATH="$2"} ldd "$1" | awk '/libcudart.so.13/ {print $3}')
    ours=$(realpath "$libdir/libgpushim-cudart.so")
    if [ -z "$resolved" ] || [ "$(realpath "$resolved")" != "$ours" ]; then
        echo "FAIL: $1 loads libcudart.so.13 from '$resolved', not $ours"
        failures=$((failures + 1))
        return
    fi
    echo "linked: $1: NEEDED $needed; libcudart.so.13 => $resolved"
    if out=$(env -u LD_LIBRARY_PATH ${2:+LD_LIBRARY_PATH="$2"} GPUSHIM_LIBCUDA=$missing "$1" 2>&1) ||
        ! grep -q cudaErrorInsufficientDriver <<<"$out"; then
        echo "FAIL: $1 without a driver: expected cudaErrorInsufficientDriver and exit 1: $out"
        failures=$((failures + 1))
    fi
    env -u LD_LIBRARY_PATH ${2:+LD_LIBRARY_PATH="$2"} GPUSHIM_LIBCUDA="$FAKE_LIBCUDA" "$1" ||
        { echo "FAIL: $1 on the fake driver"; failures=$((failures + 1)); }
}

nvcc=${NVCC:-$(dirname "$cuda_include")/bin/nvcc}
if part_here gpushim-cudart "built where the toolkit's cuda_runtime_api.h is" "$nvcc"; then
    say "pkg-config, gpushim-cudart for nvcc -cudart=shared ($(pkg-config --libs gpushim-cudart))"
    # shellcheck disable=SC2046 # the flags are meant to split
    "$nvcc" -cudart=shared -gencode arch=compute_75,code=compute_75 "$work/consumers/cudart_app.cu" \
        $(pkg-config --libs gpushim-cudart) -o "$work/pc-cudart"
    run_cudart_app "$work/pc-cudart" "$(pkg-config --variable=cudartdir gpushim-cudart)"

    say "cmake, gpushim::cudart with CUDA_RUNTIME_LIBRARY Shared"
    cmake -S "$work/consumers/cmake-cudart" -B "$work/cmake-cudart" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_CUDA_COMPILER="$nvcc" >"$work/cmake-cudart.log" 2>&1 || { cat "$work/cmake-cudart.log"; exit 1; }
    cmake --build "$work/cmake-cudart" -- -s >/dev/null
    run_cudart_app "$work/cmake-cudart/consumer-cudart" ""

    say "cmake, gpushim_add_fake_test: CTest runs a CUDA::cudart program on the fake through gpushim-run"
    cmake -S "$work/consumers/cmake-fake-test" -B "$work/cmake-fake-test" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DCUDAToolkit_ROOT="$(dirname "$cuda_include")" \
        >"$work/cmake-fake-test.log" 2>&1 || { cat "$work/cmake-fake-test.log"; exit 1; }
    cmake --build "$work/cmake-fake-test" -- -s >/dev/null
    (cd "$work/cmake-fake-test" && env -u LD_LIBRARY_PATH -u GPUSHIM_LIBCUDA ctest --output-on-failure) ||
        { echo "FAIL: gpushim_add_fake_test's tests"; failures=$((failures + 1)); }
fi

if [ "$failures" -ne 0 ]; then
    printf '\nconsumers: %d failures\n' "$failures"
    exit 1
fi
printf '\nconsumers: all built from %s and ran\n' "$prefix"
