#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs PyCUDA's own test suite, unchanged, on the fake driver: the measure of
# how far the fake is a CUDA driver for a real client.
#
#   maint/pycuda-tests.sh TESTS_DIR [BUILD_DIR]
#
# TESTS_DIR holds PyCUDA's upstream tests at tag v2022.2.2 (test_driver.py,
# test_gpuarray.py, test_cumath.py), taken from PyCUDA's repository: they are
# not in Debian's binary packages, and third-party tests stay out of this tree.
# BUILD_DIR (default build) holds the built fake, fake/libgpushim-fakecuda.so.
#
# PyCUDA comes from Debian's python3-pycuda (contrib) and what it needs, each
# package fetched with `apt-get download` and unpacked with `dpkg -x` into a
# folder of its own under $PYCUDA_WORK (default /tmp/gpushim-pycuda), never
# installed: it depends on NVIDIA's driver package, which must not be. It runs
# on the system's Python 3.11 (Debian 12's, which that build is for). nvcc
# (PATH, or /usr/local/cuda/bin) compiles PyCUDA's kernels to PTX, since the
# fake runs PTX: PYCUDA_DEFAULT_NVCC_FLAGS="--ptx -o kernel.cubin", a flag
# PyCUDA itself provides, and a real GPU runs that PTX too.
#
# Prints one line per test file, "FILE: N passed, N failed, N skipped", then
# each failing test; writes the full pytest output to $PYCUDA_WORK/FILE.log.
# Exits 0 when it ran (whatever the counts), 2 when it could not.
set -euo pipefail

tests=${1:?usage: maint/pycuda-tests.sh TESTS_DIR [BUILD_DIR]}
build=${2:-build}
work=${PYCUDA_WORK:-/tmp/gpushim-pycuda}
fake=$(realpath "$build/fake/libgpushim-fakecuda.so")
python=${PYCUDA_PYTHON:-/usr/bin/python3}
[ -f "$fake" ] || { echo "no fake driver at $build/fake/libgpushim-fakecuda.so: build first" >&2; exit 2; }
for f in test_driver.py test_gpuarray.py test_cumath.py; do
    [ -f "$tests/$f" ] || { echo "$tests/$f: not found (PyCUDA's tests at v2022.2.2)" >&2; exit 2; }
done
"$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
    { echo "$python is not Python 3.11, which Debian's python3-pycuda is built for" >&2; exit 2; }

packages=(python3-pycuda python3-pytools python3-appdirs python3-decorator python3-mako python3-markupsafe
    python3-numpy python3-platformdirs python3-typing-extensions libboost-python1.74.0 libboost-thread1.74.0
    libcurand10 python3-pytest python3-pluggy python3-iniconfig python3-packaging python3-attr python3-py)
root=$work/root
if [ ! -f "$root/.unpacked" ]; then
    # Debian's contrib and non-free, in an apt state of this folder's own: the system's sources stay as they are.
    mkdir -p "$work/lists/partial" "$work/debs"
    . /etc/os-release
    echo "deb http://deb.debian.org/debian ${VERSION_CODENAME:-bookworm} main contrib non-free" >"$work/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$work/lists" -o Debug::NoLocking=1)
    apt-get "${apt_opts[@]}" update -qq
    (cd "$work/debs" && apt-get "${apt_opts[@]}" download "${packages[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed')
    rm -rf "$root"
    for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
    touch "$root/.unpacked"
fi

# The fake as libcuda.so.1, first on the library path.
mkdir -p "$work/cuda"
ln -sf "$fake" "$work/cuda/libcuda.so.1"
nvcc_dir=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
export PYTHONPATH=$root/usr/lib/python3/dist-packages
export LD_LIBRARY_PATH=$work/cuda:$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$nvcc_dir:$PATH
export PYCUDA_DEFAULT_NVCC_FLAGS="--ptx -o kernel.cubin" PYCUDA_DISABLE_CACHE=1
# test_gpuarray's three 2^32-element tests run on a device of 4.5 GB or more and then hold about
# 17 GB of host arrays beside the device's 4 GB: a device of 4 GB skips them, as a smaller GPU does.
export GPUSHIM_FAKE_DEVICE_MEMORY=${GPUSHIM_FAKE_DEVICE_MEMORY:-4G}

status=0
for f in test_driver.py test_gpuarray.py test_cumath.py; do
    log=$work/${f%.py}.log
    (cd "$tests" && timeout "${PYCUDA_TIMEOUT_S:-1800}" "$python" -m pytest -q -p no:cacheprovider -rfE "$f") >"$log" 2>&1 ||
        status=$?
    summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed|skipped|error)' "$log" | tail -n 1 | tr -d '=' | sed 's/^ *//; s/ in [0-9.]*s.*//')
    echo "$f: ${summary:-no summary (see $log)}"
    grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/  /' || true
done
# pytest's own status (1: some tests failed) is the counts' business, not this script's.
[ "$status" -le 1 ] || echo "(pytest exited $status on a file: see its log)"
exit 0
