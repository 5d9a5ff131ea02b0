#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs PyCUDA's own test suite, unchanged, on the fake driver: the measure of
# how far the fake is a CUDA driver for a real client. With --gpu, on a CUDA
# machine, the same suite twice instead: through the system's libcuda.so.1
# (column lcuda) and through libgpushim-cuda as libcuda.so.1 (column
# gpushim-cuda; it finds the driver past itself): the baseline the fake is
# judged by.
#
#   maint/pycuda-tests.sh TESTS_DIR [BUILD_DIR] [--gpu]
#
# TESTS_DIR holds PyCUDA's upstream tests at tag v2022.2.2 (test_driver.py,
# test_gpuarray.py, test_cumath.py), taken from PyCUDA's repository: they are
# not in Debian's binary packages, and third-party tests stay out of this tree.
# BUILD_DIR (default build) holds the built fake, fake/libgpushim-fakecuda.so,
# and src/libgpushim-cuda.so.
#
# PyCUDA comes from Debian's python3-pycuda (contrib) and what it needs, each
# package fetched with `apt-get download` and unpacked with `dpkg -x` into a
# folder of its own under $PYCUDA_WORK (default /tmp/gpushim-pycuda), never
# installed: it depends on NVIDIA's driver package, which must not be. It runs
# on Python 3.11 (Debian 12's, which that build is for): the system's, or,
# where the system has another, Debian 12's python3.11 unpacked beside it.
# PYCUDA_DEBS names a folder of those .debs to unpack instead of fetching them
# (a machine with no network: also put python3.11-minimal,
# libpython3.11-minimal, libpython3.11-stdlib, libblas3, liblapack3,
# libgfortran5 and libquadmath0 there; libcurand comes from the CUDA toolkit).
# nvcc (PATH, or /usr/local/cuda/bin) compiles PyCUDA's kernels to PTX, since
# the fake runs PTX: PYCUDA_DEFAULT_NVCC_FLAGS="--ptx -o kernel.cubin", a flag
# PyCUDA itself provides, and a real GPU runs that PTX too (--gpu uses the same
# flags, so the columns compare the drivers, not the compilers).
#
# PYCUDA_SHARDS (default 1) runs each file in that many pytest processes side
# by side; PYCUDA_TIMEOUT_S (default 1800) bounds each.
# Prints one line per test file (and column), "FILE: N passed, N failed, N
# skipped", then each failing test; writes the full pytest output to
# $PYCUDA_WORK/FILE.log (FILE-COLUMN.log with --gpu).
# Exits 0 when it ran (whatever the counts), 2 when it could not.
set -euo pipefail

usage='usage: maint/pycuda-tests.sh TESTS_DIR [BUILD_DIR] [--gpu]'
gpu=0
args=()
for a in "$@"; do
    if [ "$a" = --gpu ]; then gpu=1; else args+=("$a"); fi
done
tests=${args[0]:?$usage}
build=${args[1]:-build}
work=${PYCUDA_WORK:-/tmp/gpushim-pycuda}
if [ $gpu = 1 ]; then
    lib=$(realpath "$build/src/libgpushim-cuda.so")
    [ -f "$lib" ] || { echo "no $build/src/libgpushim-cuda.so: build first" >&2; exit 2; }
else
    fake=$(realpath "$build/fake/libgpushim-fakecuda.so")
    [ -f "$fake" ] || { echo "no fake driver at $build/fake/libgpushim-fakecuda.so: build first" >&2; exit 2; }
fi
for f in test_driver.py test_gpuarray.py test_cumath.py; do
    [ -f "$tests/$f" ] || { echo "$tests/$f: not found (PyCUDA's tests at v2022.2.2)" >&2; exit 2; }
done

packages=(python3-pycuda python3-pytools python3-appdirs python3-decorator python3-mako python3-markupsafe
    python3-numpy python3-platformdirs python3-typing-extensions libboost-python1.74.0 libboost-thread1.74.0
    libcurand10 python3-pytest python3-pluggy python3-iniconfig python3-packaging python3-attr python3-py)
root=$work/root
if [ ! -f "$root/.unpacked" ]; then
    rm -rf "$root"
    mkdir -p "$root"
    if [ -n "${PYCUDA_DEBS:-}" ]; then
        debs=$PYCUDA_DEBS
    else
        # Debian's contrib and non-free, in an apt state of this folder's own: the system's sources stay as they are.
        mkdir -p "$work/lists/partial" "$work/debs"
        . /etc/os-release
        echo "deb http://deb.debian.org/debian ${VERSION_CODENAME:-bookworm} main contrib non-free" >"$work/sources.list"
        apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o "Dir::State::Lists=$work/lists" -o Debug::NoLocking=1)
        apt-get "${apt_opts[@]}" update -qq
        (cd "$work/debs" && apt-get "${apt_opts[@]}" download "${packages[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed')
        debs=$work/debs
    fi
    for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
    touch "$root/.unpacked"
fi
# Python 3.11: the one named, else the system's, else Debian 12's unpacked with the packages.
python=${PYCUDA_PYTHON:-}
if [ -z "$python" ]; then
    python=/usr/bin/python3
    if ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null &&
        [ -x "$root/usr/bin/python3.11" ]; then
        python=$root/usr/bin/python3.11
        export PYTHONHOME=$root/usr
    fi
fi
"$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
    { echo "$python is not Python 3.11, which Debian's python3-pycuda is built for" >&2; exit 2; }

# The fake (or, with --gpu, libgpushim-cuda) as libcuda.so.1, first on the library path.
mkdir -p "$work/cuda"
if [ $gpu = 1 ]; then
    ln -sf "$lib" "$work/cuda/libcuda.so.1"
    # libgpushim-cuda's own library, found beside the link's folder as in an install.
    libdir=$(dirname "$lib")
else
    ln -sf "$fake" "$work/cuda/libcuda.so.1"
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
nvcc_dir=$(dirname "$nvcc")
# libcurand.so.10, which PyCUDA links, from the toolkit beside nvcc.
toolkit_lib=$(dirname "$nvcc_dir")/lib64
export PYTHONPATH=$root/usr/lib/python3/dist-packages
export PATH=$nvcc_dir:$PATH
export PYCUDA_DEFAULT_NVCC_FLAGS="--ptx -o kernel.cubin" PYCUDA_DISABLE_CACHE=1
# test_gpuarray's three 2^32-element tests run on a device of 4.5 GB or more and then hold about
# 17 GB of host arrays beside the device's 4 GB: a device of 4 GB skips them, as a smaller GPU does.
# On a GPU they are left out (-k), so that every column runs the same tests.
export GPUSHIM_FAKE_DEVICE_MEMORY=${GPUSHIM_FAKE_DEVICE_MEMORY:-4G}
select=()
[ $gpu = 1 ] && select=(-k 'not big_array')
# Debian's BLAS and LAPACK sit in folders of their own (the system's alternatives link them): name them.
base_path=$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/blas:$root/usr/lib/x86_64-linux-gnu/lapack
base_path+=:$toolkit_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# run_file FILE LOG LIBRARY_PATH: pytest on FILE, in PYCUDA_SHARDS processes side by side (its tests dealt
# round-robin: each compiles its kernels with nvcc, which is most of the time), the shards' logs joined.
run_file() {
    local f=$1 log=$2 path=$3 shards=${PYCUDA_SHARDS:-1} i pids=()
    if [ "$shards" -le 1 ]; then
        (cd "$tests" && LD_LIBRARY_PATH=$path timeout "${PYCUDA_TIMEOUT_S:-1800}" "$python" -m pytest -q \
            -p no:cacheprovider -rfE "${select[@]}" "$f") >"$log" 2>&1
        return
    fi
    (cd "$tests" && LD_LIBRARY_PATH=$path "$python" -m pytest -q --collect-only -p no:cacheprovider "${select[@]}" "$f") |
        grep '::' >"$log.ids" || true
    for ((i = 0; i < shards; i++)); do
        awk -v n="$shards" -v k="$i" 'NR % n == k' "$log.ids" >"$log.ids.$i"
        [ -s "$log.ids.$i" ] || continue
        # shellcheck disable=SC2046 # one node id a line
        (cd "$tests" && LD_LIBRARY_PATH=$path timeout "${PYCUDA_TIMEOUT_S:-1800}" "$python" -m pytest -q \
            -p no:cacheprovider -rfE $(cat "$log.ids.$i")) >"$log.$i" 2>&1 &
        pids+=($!)
    done
    local rc=0
    for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
    # One summary line for the file: each count summed over the shards.
    {
        cat "$log".[0-9]*
        cat "$log".[0-9]* | grep -E '^(=+ )?[0-9]+ (passed|failed|skipped|error|xfailed|deselected)' |
            tr -d '=' | sed 's/ in [0-9.]*s.*//' | tr ',' '\n' | awk '{ n[$2] += $1 } END {
                split("failed passed skipped xfailed xpassed error errors deselected warning warnings", order, " ")
                for (i = 1; i in order; i++) if (order[i] in n) { printf "%s%d %s", out ? ", " : "", n[order[i]], order[i]; out = 1 }
                print "" }'
    } >"$log"
    return $rc
}

# run_column NAME LIBRARY_PATH: the three files side by side, then one line each.
status=0
run_column() {
    local column=$1 path=$2 f log pids=() suffix=""
    [ $gpu = 1 ] && suffix=-$column
    for f in test_driver.py test_gpuarray.py test_cumath.py; do
        run_file "$f" "$work/${f%.py}$suffix.log" "$path" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || { rc=$?; [ $rc -le $status ] || status=$rc; }; done
    for f in test_driver.py test_gpuarray.py test_cumath.py; do
        log=$work/${f%.py}$suffix.log
        summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed|skipped|error|xfailed|deselected)' "$log" | tail -n 1 | tr -d '=' |
            sed 's/^ *//; s/ in [0-9.]*s.*//' || true)
        echo "$f${suffix:+ ($column)}: ${summary:-no summary (see $log)}"
        grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/  /' || true
    done
}
if [ $gpu = 1 ]; then
    run_column lcuda "$base_path"
    run_column gpushim-cuda "$work/cuda:$libdir:$base_path"
else
    run_column fake "$work/cuda:$base_path"
fi
# pytest's own status (1: some tests failed) is the counts' business, not this script's.
[ "$status" -le 1 ] || echo "(pytest exited $status on a file: see its log)"
exit 0
