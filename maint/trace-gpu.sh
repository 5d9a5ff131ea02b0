#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpushim-trace on a CUDA machine, in one call: a runtime-API program (nvcc, static and
# shared cudart), a driver-API sample (examples/driver_api/vector_add, linked with -lcuda)
# and a PyTorch matmul, each run under gpushim-trace with GPUSHIM_LIBCUDA naming the
# machine's driver and without it (gpushim-cuda finds the driver past itself). Prints one
# line per run: ok or FAILED, the driver calls traced, and the check made:
#   runtime   the program launches its kernel K times and copies C times: the trace holds
#             exactly K cuLaunchKernel* calls and at least C cuMemcpy* ones (cudart may stage
#             a copy in pieces), and its output is right
#   driver    the same program on the fake driver: the trace on the GPU holds the same
#             calls, function by function
#   torch     M matmuls: at least M kernel launches traced, the product right
# Each run's output and summary go to $OUT/trace-gpu.log, the traces to $OUT/*.json.
#
# Run from the repository root: OUT=/some/folder maint/trace-gpu.sh
# Environment: OUT (default ./trace-gpu-out), CUDA_HOME (default /usr/local/cuda),
# TORCH_PYTHON (default /opt/torch/.venv/bin/python), GPUSHIM_BUILD_DIR (default
# build-trace-gpu; wiped first).
set -u

ROOT=$PWD
OUT=${OUT:-$ROOT/trace-gpu-out}
BUILD=${GPUSHIM_BUILD_DIR:-build-trace-gpu}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
TORCH_PYTHON=${TORCH_PYTHON:-/opt/torch/.venv/bin/python}
export PATH=$PATH:/opt/torch/.venv/bin
mkdir -p "$OUT"
LOG=$OUT/trace-gpu.log
: >"$LOG"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

say() { printf '%s\n' "$*" | tee -a "$LOG"; }

rm -rf "$BUILD"
if ! { meson setup "$BUILD" -Dtests=disabled -Dbench=false && ninja -C "$BUILD"; } >>"$LOG" 2>&1; then
    say "FAILED build (see $LOG)"
    exit 1
fi
TOOL=$ROOT/$BUILD/tools/gpushim-trace
DRIVER=$(ldconfig -p | awk '/libcuda\.so\.1 / && /x86-64|AArch64/ {print $NF; exit}')
say "driver: ${DRIVER:-none found by ldconfig}; nvcc: $("$CUDA_HOME/bin/nvcc" --version | tail -n 1)"

# The programs.
cat >"$work/runtime.cu" <<'EOF'
#include <cstdio>
__global__ void add_one(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
int main() {
    const int n = 1 << 20, launches = 100, copies = 2;
    static float h[1 << 20];
    float *d = nullptr;
    for (int i = 0; i < n; i++) h[i] = (float)i;
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) { std::printf("cudaMalloc failed\n"); return 1; }
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    for (int k = 0; k < launches; k++) add_one<<<(n + 255) / 256, 256>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaError_t e = cudaDeviceSynchronize();
    bool ok = e == cudaSuccess && h[0] == 100.0f && h[n - 1] == (float)(n - 1) + 100.0f;
    cudaFree(d);
    std::printf("runtime: %s launches=%d copies=%d\n", ok ? "correct" : "WRONG", launches, copies);
    return ok ? 0 : 1;
}
EOF
"$CUDA_HOME/bin/nvcc" -o "$work/runtime-static" "$work/runtime.cu" >>"$LOG" 2>&1 || say "FAILED nvcc runtime.cu (static cudart)"
"$CUDA_HOME/bin/nvcc" -cudart shared -o "$work/runtime-shared" "$work/runtime.cu" >>"$LOG" 2>&1 ||
    say "FAILED nvcc runtime.cu (shared cudart)"
"$CUDA_HOME/bin/nvcc" --ptx -arch=compute_75 -o "$work/vector_add.ptx" examples/driver_api/vector_add.cu >>"$LOG" 2>&1
cc -o "$work/vector_add" examples/driver_api/vector_add.c -Iexamples/driver_api -isystem "$CUDA_HOME/include" \
    -L"$CUDA_HOME/lib64/stubs" -lcuda -lpthread -ldl >>"$LOG" 2>&1 || say "FAILED cc vector_add.c"
cat >"$work/matmul.py" <<'EOF'
import torch
m = 20
a = torch.randn(1024, 1024, device="cuda")
b = torch.eye(1024, device="cuda")
c = a
for _ in range(m):
    c = c @ b
torch.cuda.synchronize()
ok = torch.allclose(c, a)
print(f"torch: {'correct' if ok else 'WRONG'} matmuls={m}")
raise SystemExit(0 if ok else 1)
EOF

# run NAME MODE CMD...: gpushim-trace --json on CMD; the summary in $work/NAME.summary, the output in the log.
run() {
    local name=$1; shift
    say "== $name: $*"
    "$TOOL" --json -o "$OUT/$name.json" -- "$@" >"$work/$name.out" 2>>"$LOG"
    local rc=$?
    cat "$work/$name.out" >>"$LOG"
    tail -n 1 "$work/$name.out" >"$work/$name.summary"
    return $rc
}

# verdict NAME RC CHECK: one line, from the summary and a Python check that prints the detail.
verdict() {
    local name=$1 rc=$2 check=$3 detail
    detail=$(python3 - "$work/$name.summary" "$work/$name.out" "$check" "$work" <<'EOF' 2>&1
import json, re, sys
summary_path, out_path, check, work = sys.argv[1:5]
s = json.loads(open(summary_path).read())
out = open(out_path).read()
fn = {f["name"]: f["calls"] for f in s["functions"]}
launches = sum(n for k, n in fn.items() if k.startswith("cuLaunchKernel"))
copies = sum(n for k, n in fn.items() if k.startswith("cuMemcpy"))
problems = []
if check == "runtime":
    m = re.search(r"correct launches=(\d+) copies=(\d+)", out)
    if not m:
        problems.append("the output is not right")
    elif launches != int(m[1]) or copies < int(m[2]):
        problems.append(f"{launches} launches and {copies} copies traced, {m[1]} and {m[2]} made")
elif check == "driver":
    fake = {f["name"]: f["calls"] for f in json.loads(open(work + "/fake.summary").read())["functions"]}
    if "vector_add: ok" not in out:
        problems.append("the output is not right")
    if fn != fake:
        diff = {k: (fn.get(k), fake.get(k)) for k in set(fn) | set(fake) if fn.get(k) != fake.get(k)}
        problems.append(f"calls (GPU, fake) that differ: {diff}")
elif check == "torch":
    m = re.search(r"correct matmuls=(\d+)", out)
    if not m:
        problems.append("the output is not right")
    elif launches < int(m[1]):
        problems.append(f"{launches} launches traced for {m[1]} matmuls")
print(f"calls traced {s['calls']} ({s['errors']} failed, {len(fn)} functions, {launches} launches, "
      f"{s['dropped_events']} dropped)" + ("; " + "; ".join(problems) if problems else ""))
sys.exit(1 if problems else 0)
EOF
)
    local ok=$?
    if [ "$rc" -eq 0 ] && [ "$ok" -eq 0 ]; then
        say "ok     $name: $detail"
    else
        say "FAILED $name (exit $rc): $detail"
        failed=1
    fi
}

# The driver sample on the fake first: what the GPU runs are compared with.
"$TOOL" --fake --json -o "$OUT/fake.json" -- "$work/vector_add" "$work/vector_add.ptx" 2>>"$LOG" |
    tail -n 1 >"$work/fake.summary"

for with in driver self; do
    if [ "$with" = driver ] && [ -z "$DRIVER" ]; then
        say "FAILED: no libcuda.so.1 in ldconfig's cache for the runs with GPUSHIM_LIBCUDA"
        failed=1
        continue
    fi
    if [ "$with" = driver ]; then
        export GPUSHIM_LIBCUDA=$DRIVER
    else
        unset GPUSHIM_LIBCUDA
    fi
    run "runtime-static-$with" "$work/runtime-static"; verdict "runtime-static-$with" $? runtime
    run "runtime-shared-$with" "$work/runtime-shared"; verdict "runtime-shared-$with" $? runtime
    run "driver-vector_add-$with" "$work/vector_add" "$work/vector_add.ptx"; verdict "driver-vector_add-$with" $? driver
    run "torch-matmul-$with" "$TORCH_PYTHON" "$work/matmul.py"; verdict "torch-matmul-$with" $? torch
done
say "$( [ $failed -eq 0 ] && echo 'all ok' || echo 'some FAILED' ) (runs with GPUSHIM_LIBCUDA=$DRIVER: *-driver; without: *-self)"
exit $failed
