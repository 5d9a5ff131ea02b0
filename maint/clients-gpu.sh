#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Python GPU clients on a CUDA machine, each run twice: through the system's libcuda.so.1, and through
# libgpushim-cuda under that name (a folder holding libcuda.so.1 and libcuda.so -> libgpushim-cuda.so
# first on LD_LIBRARY_PATH, no GPUSHIM_LIBCUDA: gpushim-cuda finds the driver past itself). Each client
# prints its results; the two runs must print the same, and the second must have libgpushim-cuda mapped
# in the process (read from /proc/self/maps), or the line says FAILED.
#
#   maint/clients-gpu.sh BUILD_DIR OUT_DIR
#
# Clients (those of /opt/torch/.venv that are found): cuda-bindings (the driver API from Python: a PTX
# module, a launch, copies), CuPy (elementwise and raw kernels, cuBLAS matmul, FFT, reductions), JAX (a
# jitted matmul and reduction), numba-cuda (a @cuda.jit kernel; then its own cudadrv tests where the
# package ships them, counted). Writes OUT_DIR/clients-gpu.log; prints one line per client and mode.
# Environment: CLIENTS_PYTHON (default /opt/torch/.venv/bin/python), CLIENTS_TIMEOUT_S (default 240).
set -u

build=$(realpath "${1:?usage: maint/clients-gpu.sh BUILD_DIR OUT_DIR}")
out=${2:?usage: maint/clients-gpu.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
log=$(realpath "$out")/clients-gpu.log
: >"$log"
python=${CLIENTS_PYTHON:-/opt/torch/.venv/bin/python}
limit=${CLIENTS_TIMEOUT_S:-240}
lib=$build/src/libgpushim-cuda.so
[ -f "$lib" ] || { echo "no $lib: build gpushim first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cuda"
ln -s "$(realpath "$lib")" "$work/cuda/libcuda.so.1"
ln -s "$(realpath "$lib")" "$work/cuda/libcuda.so"
# The folder, then libgpushim-cuda's own library (libgpushim.so.1) where the build put it.
gpath=$work/cuda:$(dirname "$(realpath "$lib")")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

cat >"$work/common.py" <<'EOF'
def via():
    maps = open("/proc/self/maps").read()
    return "gpushim-cuda" if "libgpushim-cuda" in maps else "libcuda" if "libcuda.so" in maps else "none"
EOF

cat >"$work/bindings.py" <<'EOF'
import struct
from cuda.bindings import driver as cu
from common import via

def ok(r):
    err = r[0] if isinstance(r, tuple) else r
    if err != cu.CUresult.CUDA_SUCCESS:
        raise SystemExit(f"cuda-bindings: {err}")
    return r[1] if isinstance(r, tuple) and len(r) == 2 else r[1:] if isinstance(r, tuple) else None

ptx = b""".version 7.8
.target sm_75
.address_size 64
.visible .entry scale(.param .u64 p, .param .u32 n) {
  .reg .b32 %r<5>; .reg .b64 %rd<4>; .reg .f32 %f<3>; .reg .pred %q;
  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.u32 %q, %r2, %r1; @%q bra done;
  mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2; ld.global.f32 %f1, [%rd3];
  fma.rn.f32 %f2, %f1, 0f40000000, 0f3F800000; st.global.f32 [%rd3], %f2;
done:
  ret;
}
"""
ok(cu.cuInit(0))
dev = ok(cu.cuDeviceGet(0))
name = ok(cu.cuDeviceGetName(64, dev)).split(b"\0")[0].decode()
ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
ok(cu.cuCtxSetCurrent(ctx))
mod = ok(cu.cuModuleLoadData(ptx + b"\0"))
fn = ok(cu.cuModuleGetFunction(mod, b"scale"))
n = 1 << 20
host = bytearray(struct.pack(f"{n}f", *[float(i % 1000) for i in range(n)]))
d = ok(cu.cuMemAlloc(4 * n))
ok(cu.cuMemcpyHtoD(d, host, 4 * n))
import ctypes
pd = ctypes.c_uint64(int(d)); pn = ctypes.c_uint32(n)
args = (ctypes.c_void_p * 2)(ctypes.addressof(pd), ctypes.addressof(pn))
ok(cu.cuLaunchKernel(fn, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0, ctypes.addressof(args), 0))
ok(cu.cuCtxSynchronize())
back = bytearray(4 * n)
ok(cu.cuMemcpyDtoH(back, d, 4 * n))
vals = struct.unpack(f"{n}f", back)
right = all(vals[i] == 2.0 * (i % 1000) + 1.0 for i in range(0, n, 997))
free, total = ok(cu.cuMemGetInfo())
ok(cu.cuMemFree(d))
ok(cu.cuModuleUnload(mod))
print(f"RESULT cuda-bindings device={name} sum={sum(vals):.1f} right={right} total={total}")
print(f"VIA {via()}")
EOF

cat >"$work/cupy_client.py" <<'EOF'
import cupy as cp
from common import via
a = cp.arange(1 << 20, dtype=cp.float32)
k = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * 2.0f + 1.0f", "affine")
b = k(a)
raw = cp.RawKernel(r'''extern "C" __global__ void sq(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * x[i]; }''', "sq")
c = cp.empty_like(a)
raw(((1 << 20) // 256,), (256,), (a, c, cp.int32(1 << 20)))
m = cp.arange(256 * 256, dtype=cp.float64).reshape(256, 256) / 65536.0
mm = m @ m.T
f = cp.fft.fft(cp.ones(4096, dtype=cp.complex64))
cp.cuda.Device(0).synchronize()
print(f"RESULT cupy affine={float(b.sum()):.1f} sq={float(c[:4096].sum()):.1f} "
      f"matmul={float(mm.trace()):.6f} fft0={complex(f[0])} max={int(a.max())}")
print(f"VIA {via()}")
EOF

cat >"$work/jax_client.py" <<'EOF'
import jax, jax.numpy as jnp
from common import via
dev = jax.devices()[0]
x = jnp.arange(512 * 512, dtype=jnp.float32).reshape(512, 512) / 262144.0
f = jax.jit(lambda a: (a @ a.T).sum() + jnp.tanh(a).mean())
r = float(f(x).block_until_ready())
print(f"RESULT jax platform={dev.platform} kind={dev.device_kind} value={r:.3f}")
print(f"VIA {via()}")
EOF

cat >"$work/numba_client.py" <<'EOF'
import numpy as np
from numba import cuda
from common import via
@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]
n = 1 << 20
x = np.arange(n, dtype=np.float32); y = np.ones(n, dtype=np.float32)
dx, dy = cuda.to_device(x), cuda.to_device(y)
dout = cuda.device_array_like(x)
saxpy[(n + 255) // 256, 256](np.float32(3.0), dx, dy, dout)
out = dout.copy_to_host()
print(f"RESULT numba-cuda device={cuda.get_current_device().name.decode() if isinstance(cuda.get_current_device().name, bytes) else cuda.get_current_device().name} "
      f"sum={float(out.astype(np.float64).sum()):.1f} right={bool(np.allclose(out, 3 * x + 1))}")
print(f"VIA {via()}")
EOF

failed=0
say() { printf '%s\n' "$*" | tee -a "$log"; }
# run CLIENT SCRIPT: both modes; the results must match, and the gpushim-cuda run must be through it.
run() {
    local client=$1 script=$2 mode res via r_sys=""
    for mode in system gpushim; do
        printf '\n===== %s (%s)\n' "$client" "$mode" >>"$log"
        if [ "$mode" = system ]; then
            (cd "$work" && env -u GPUSHIM_LIBCUDA timeout "$limit" "$python" "$script") >"$work/out" 2>&1
        else
            (cd "$work" && env -u GPUSHIM_LIBCUDA LD_LIBRARY_PATH="$gpath" \
                timeout "$limit" "$python" "$script") >"$work/out" 2>&1
        fi
        local rc=$?
        cat "$work/out" >>"$log"
        res=$(grep '^RESULT ' "$work/out" | tail -n 1)
        via=$(grep '^VIA ' "$work/out" | tail -n 1 | cut -d' ' -f2)
        if [ "$mode" = system ]; then
            r_sys=$res
            if [ $rc -eq 0 ] && [ -n "$res" ]; then say "ok     $client system: $res (via $via)"; else
                # A client that does not run on the real driver here says nothing about gpushim-cuda.
                say "n/a    $client: fails on the system's driver too (exit $rc): $(tail -n 1 "$work/out")"
                return 0
            fi
        elif [ $rc -eq 0 ] && [ -n "$res" ] && [ "$res" = "$r_sys" ] && [ "$via" = gpushim-cuda ]; then
            say "ok     $client gpushim-cuda: the same result (via $via)"
        else
            say "FAILED $client gpushim-cuda (exit $rc, via ${via:-?}): ${res:-$(tail -n 2 "$work/out" | tr '\n' ' ')}"
            failed=1
        fi
    done
}

"$python" -c 'import cuda.bindings' 2>/dev/null && run cuda-bindings bindings.py
"$python" -c 'import cupy' 2>/dev/null && run cupy cupy_client.py
"$python" -c 'import jax' 2>/dev/null && run jax jax_client.py
if "$python" -c 'import numba.cuda' 2>/dev/null; then
    run numba-cuda numba_client.py
    # numba-cuda's own driver-level tests, where the package ships them: pass counts in both modes.
    if "$python" -c 'import numba.cuda.tests.cudadrv' 2>/dev/null; then
        for mode in system gpushim; do
            extra=()
            [ "$mode" = gpushim ] && extra=(LD_LIBRARY_PATH="$gpath")
            printf '\n===== numba-cuda tests cudadrv (%s)\n' "$mode" >>"$log"
            (cd "$work" && env -u GPUSHIM_LIBCUDA "${extra[@]}" timeout "$limit" "$python" -m numba.runtests -m 8 \
                numba.cuda.tests.cudadrv) >"$work/tests.$mode" 2>&1
            tail -n 30 "$work/tests.$mode" >>"$log"
            say "numba-cuda tests cudadrv ($mode): $(grep -E '^(Ran|OK|FAILED)' "$work/tests.$mode" | tr '\n' ' ')"
        done
    else
        say "numba-cuda tests: not shipped in this install"
    fi
fi
say "$([ $failed -eq 0 ] && echo 'all ok' || echo 'some FAILED')"
exit $failed
