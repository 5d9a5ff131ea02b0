#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds gpushim on a CUDA machine and runs, in one call: the gpu test suite,
# the suite under compute-sanitizer (memcheck, racecheck, synccheck), the
# benchmarks and gpushim-info, then prints a summary table.
#
# Run from the repository root: OUT=/some/folder maint/run-gpu.sh
# It keeps going after a failure (each step's exit status is recorded) and
# stays inside a time budget, leaving out the steps that no longer fit.
# It writes exactly these files to $OUT:
#   summary.txt       machine, driver, every step's status and time, key figures
#   build.log         meson setup and ninja
#   gpu-tests.log     meson test --suite gpu, every test's full output, gpushim-info
#   sanitizer.log     each gpu test under each compute-sanitizer tool
#   bench-ordering.log bench-dispatch.log bench-graphs.log
#   bench-other.log   first-use, (on a machine of 2 or more GPUs) peer, and compile (NVRTC)
#   bench-overhead.log gpushim's cost per hot call, against the real driver and the null one
#                     (and with call tracing on: trace=on, trace=gpu)
#   trace-h200.json   the trace gpu-trace recorded (GPUSHIM_TRACE with GPU spans), for ui.perfetto.dev
#   bench-pool.log    stream-ordered allocation against cuMemAlloc/cuMemFree
#   examples.log      examples/ built from a temporary meson install and run on the real driver
# With GPUSHIM_RUN_PACK=1 all of them but summary.txt end up in one gpu-logs.tar.gz instead.
#
# Environment:
#   OUT                    output folder (default ./gpu-out)
#   GPUSHIM_RUN_BUDGET_S   total seconds the script may take (default 480)
#   GPUSHIM_RUN_SCALE      "quick" shrinks every test and benchmark (a smoke run)
#   GPUSHIM_BUILD_DIR      build folder (default build-gpu; wiped first)
#   GPUSHIM_RUN_PACK       1: pack every output but summary.txt into gpu-logs.tar.gz
#   GPUSHIM_RUN_ONLY       names of gpu-suite tests: build, run only those, and stop
#   plus every knob the tests and benchmarks read (GPUSHIM_ORDERING_ROUNDS,
#   GPUSHIM_BENCH_REPS, ...); values set by the caller win over the defaults here.
# cmocka comes from .device/cmocka and pkg-config from .device/pkgconf (carried:
# git-ignored), meson and
# ninja from /opt/torch/.venv/bin.
set -u

ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-out}
BUILD=${GPUSHIM_BUILD_DIR:-build-gpu}
BUDGET=${GPUSHIM_RUN_BUDGET_S:-480}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
STEPS=()
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH

log() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
left() { echo $((BUDGET - SECONDS)); }

# step NAME LOGFILE TIMEOUT CMD...: runs CMD with its output appended to LOGFILE
# (and shown), under a timeout cut to what is left of the budget.
step() {
    local name=$1 logfile=$2 limit=$3 t0=$SECONDS rc
    shift 3
    local remaining
    remaining=$(left)
    if ((remaining < 20)); then
        STEPS+=("$(printf '%-36s %6s %6s  %s' "$name" "-" "0" "not run: out of time budget")")
        return 0
    fi
    ((limit > remaining - 10)) && limit=$((remaining - 10))
    printf '\n===== %s (timeout %ss): %s\n' "$name" "$limit" "$*" >>"$logfile"
    timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$logfile"
    rc=${PIPESTATUS[0]}
    local note=""
    case $rc in
        0) note=ok ;;
        77) note=skipped ;;
        124 | 137) note="TIMED OUT" ;;
        *) note=FAILED ;;
    esac
    STEPS+=("$(printf '%-36s %6s %6s  %s' "$name" "$rc" "$((SECONDS - t0))" "$note")")
    return "$rc"
}

# ---- Scale: defaults sized for an H200 within the budget; the caller's values win. ----
setdefault() { [ -z "${!1:-}" ] && export "$1=$2"; return 0; }
if [ "${GPUSHIM_RUN_SCALE:-}" = quick ]; then
    setdefault GPUSHIM_ORDERING_ROUNDS 10
    setdefault GPUSHIM_CAPTURE_REPLAYS 20
    setdefault GPUSHIM_BENCH_REPS 3
    setdefault GPUSHIM_BENCH_REQUESTS 40
    setdefault GPUSHIM_BENCH_LAUNCHES 5000
    setdefault GPUSHIM_BENCH_QUERIES 50000
    setdefault GPUSHIM_BENCH_ITERATIONS 50
    setdefault GPUSHIM_BENCH_PROCS 3
    setdefault GPUSHIM_BENCH_EXECS 50
    setdefault GPUSHIM_BENCH_CALLS 1000000
    setdefault GPUSHIM_OVERHEAD_CALLS 1024
    setdefault GPUSHIM_BENCH_POOL_REQUESTS 50
fi

# ---- The machine. ----
log "gpushim GPU run: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git status --porcelain 2>/dev/null | grep -q . && echo ' (with local changes)'), $(bash maint/source-digest.sh) (maint/source-digest.sh in a checkout names the tree)"
log "$(nvidia-smi -L 2>&1 || echo 'nvidia-smi -L failed')"
log "$(nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm,clocks.max.sm,temperature.gpu --format=csv 2>&1 || true)"
log "$(uname -sr); $(${CC:-cc} --version 2>&1 | head -n1); meson $(meson --version 2>&1); ninja $(ninja --version 2>&1)"

# ---- pkg-config from .device/pkgconf (carried: the machine has none; the pkgconf, pkgconf-bin,
# libpkgconf3 and pkg-config .debs unpacked there with dpkg-deb -x), for meson and the examples. ----
PKGCONF=$ROOT/.device/pkgconf/usr
if ! command -v pkg-config >/dev/null 2>&1 && [ -x "$PKGCONF/bin/pkgconf" ]; then
    export PATH=$PKGCONF/bin:$PATH
    export LD_LIBRARY_PATH=$PKGCONF/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
if command -v pkg-config >/dev/null 2>&1; then
    log "pkg-config: $(command -v pkg-config) $(pkg-config --version 2>&1)"
else
    log "pkg-config: none here and .device/pkgconf is missing (carry it): meson cannot find cmocka"
fi

# ---- cmocka from .device/cmocka: its .pc says /usr, so write one that points here. ----
CMOCKA=$ROOT/.device/cmocka/usr
CMOCKA_LIB=$CMOCKA/lib/x86_64-linux-gnu
if [ -f "$CMOCKA/include/cmocka.h" ]; then
    mkdir -p "$TMP/pkgconfig" "$TMP/bin"
    cat >"$TMP/pkgconfig/cmocka.pc" <<EOF
prefix=$CMOCKA
libdir=$CMOCKA_LIB
includedir=$CMOCKA/include

Name: cmocka
Description: The cmocka unit testing library
Version: 1.1.5
Libs: -L\${libdir} -lcmocka
Cflags: -I\${includedir}
EOF
    export PKG_CONFIG_PATH=$TMP/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    export LD_LIBRARY_PATH=$CMOCKA_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    log "cmocka: $CMOCKA_LIB"
else
    log "cmocka: .device/cmocka is missing (carry it): the gpu suite will not be built"
fi

# ---- Build: one release build serves the tests and the benchmarks. ----
BUILD_LOG=$OUT/build.log
: >"$BUILD_LOG"
rm -rf "$BUILD"
if ! step "meson setup" "$BUILD_LOG" 120 meson setup "$BUILD" --buildtype=release --wrap-mode=nodownload -Dbench=true; then
    rm -rf "$BUILD"
    step "meson setup (tests disabled)" "$BUILD_LOG" 120 meson setup "$BUILD" --buildtype=release --wrap-mode=nodownload -Dtests=disabled -Dbench=true
fi
grep -E 'cmocka|Library cuda|libcuda.so.1 loads|dispatch direct arm' "$BUILD_LOG" | sed 's/^/  /' | tee -a "$SUMMARY"
# -k 0: another folder's compile error must not keep the gpu suite from building.
step "ninja" "$BUILD_LOG" 240 ninja -C "$BUILD" -k 0

# ---- The gpu suite. ----
TESTS_LOG=$OUT/gpu-tests.log
: >"$TESTS_LOG"
if [ -n "${GPUSHIM_RUN_ONLY:-}" ]; then
    # shellcheck disable=SC2086 # test names, split on purpose
    step "meson test $GPUSHIM_RUN_ONLY" "$TESTS_LOG" 420 meson test -C "$BUILD" --print-errorlogs --no-rebuild \
        --num-processes 1 -v $GPUSHIM_RUN_ONLY
    printf '%s\n' "${STEPS[@]}" | tee -a "$SUMMARY"
    exit 0
fi
step "meson test --suite gpu" "$TESTS_LOG" 420 env GPUSHIM_TRACE_OUT="$OUT/trace-h200.json" \
    meson test -C "$BUILD" --suite gpu --print-errorlogs --no-rebuild --num-processes 1
if [ -f "$BUILD/meson-logs/testlog.txt" ]; then
    printf '\n===== every test'"'"'s full output (meson-logs/testlog.txt)\n' >>"$TESTS_LOG"
    cat "$BUILD/meson-logs/testlog.txt" >>"$TESTS_LOG"
fi
# ---- Call tracing: gpu-trace's file, read again by a strict JSON parser. ----
step "trace-check trace-h200.json" "$TESTS_LOG" 60 python3 "$ROOT/tools/check-trace.py" "$OUT/trace-h200.json" --want-gpu
step "gpushim-info" "$TESTS_LOG" 30 "$BUILD/tools/gpushim-info"
step "gpushim-info --json" "$TESTS_LOG" 30 "$BUILD/tools/gpushim-info" --json
# libgpushim.so dlopen'ed by ctypes into a PyTorch process shares its driver and context.
step "dlopen into PyTorch (ctypes)" "$TESTS_LOG" 120 /opt/torch/.venv/bin/python tests/dlopen/torch_ctypes.py \
    "$BUILD/src/libgpushim.so"

# ---- examples/: built from an installed gpushim, run on the real driver. ----
EXAMPLES_LOG=$OUT/examples.log
: >"$EXAMPLES_LOG"
if step "examples: meson install" "$EXAMPLES_LOG" 180 sh -c 'rm -rf "$1" && meson setup "$1" --prefix="$2" --buildtype=release \
        --wrap-mode=nodownload -Dtests=disabled -Dbench=false && meson install -C "$1" --quiet' sh \
        "$BUILD-install" "$TMP/prefix"; then
    step "examples (real driver)" "$EXAMPLES_LOG" 120 tools/run-examples.sh "$TMP/prefix" gpu
fi

# ---- Benchmarks, run directly so their tables land in the logs. ----
for b in ordering dispatch graphs first-use peer compile pool; do
    case $b in
        first-use | peer | compile) blog=$OUT/bench-other.log ;;
        *) blog=$OUT/bench-$b.log ;;
    esac
    [ "$b" = peer ] || [ "$b" = compile ] || : >"$blog"
    step "bench $b" "$blog" 150 "$BUILD/bench/bench-$b"
done
# overhead: each hot call through gpushim and directly, on the real driver, then on
# bench/null_driver.c (calls that cost nothing: what is left is gpushim's own cost).
OVERHEAD_LOG=$OUT/bench-overhead.log
: >"$OVERHEAD_LOG"
step "bench overhead (real driver)" "$OVERHEAD_LOG" 120 env -u GPUSHIM_LIBCUDA "$BUILD/bench/bench-overhead"
step "bench overhead (null driver)" "$OVERHEAD_LOG" 60 env GPUSHIM_LIBCUDA="$(realpath -m "$BUILD/bench/libnullcuda.so")" \
    "$BUILD/bench/bench-overhead"
# The same hot calls with call tracing on, then with GPU spans too: the cost when on (trace=on, trace=gpu).
step "bench overhead (real, traced)" "$OVERHEAD_LOG" 120 env -u GPUSHIM_LIBCUDA GPUSHIM_TRACE="$TMP/overhead-trace.json" \
    GPUSHIM_TRACE_MAX_EVENTS=4000000 GPUSHIM_BENCH_REPS="${GPUSHIM_TRACED_REPS:-11}" "$BUILD/bench/bench-overhead"
step "bench overhead (real, traced, GPU spans)" "$OVERHEAD_LOG" 120 env -u GPUSHIM_LIBCUDA \
    GPUSHIM_TRACE="$TMP/overhead-trace-gpu.json" GPUSHIM_TRACE_GPU=1 GPUSHIM_TRACE_MAX_EVENTS=4000000 \
    GPUSHIM_BENCH_REPS="${GPUSHIM_TRACED_REPS:-11}" "$BUILD/bench/bench-overhead"
# forward: a call through libgpushim-cuda against the same call through -lcuda's PLT, in one process.
step "bench forward (real driver)" "$OVERHEAD_LOG" 120 env -u GPUSHIM_LIBCUDA "$BUILD/bench/bench-forward" \
    "$BUILD/bench/libforward-arm-cuda.so" "$BUILD/bench/libforward-arm-gpushim.so"
step "bench forward (null driver)" "$OVERHEAD_LOG" 60 env GPUSHIM_LIBCUDA="$(realpath -m "$BUILD/bench/libnullcuda.so")" \
    "$BUILD/bench/bench-forward" "$BUILD/bench/libforward-arm-null.so" "$BUILD/bench/libforward-arm-gpushim.so"
step "trace-check overhead traces" "$OVERHEAD_LOG" 60 sh -c 'python3 "$0" "$1" && python3 "$0" "$2" --want-gpu' \
    "$ROOT/tools/check-trace.py" "$TMP/overhead-trace.json" "$TMP/overhead-trace-gpu.json"

# ---- compute-sanitizer: every gpu test under each tool, at a small scale. ----
SAN_LOG=$OUT/sanitizer.log
: >"$SAN_LOG"
SANITIZER=$(command -v compute-sanitizer 2>/dev/null || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -z "$SANITIZER" ] && [ -x "$c" ] && SANITIZER=$c
done
if [ -z "$SANITIZER" ]; then
    SANITIZER=$(timeout 20 find /usr/local /opt -maxdepth 7 -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -n1)
fi
if [ -z "$SANITIZER" ]; then
    echo "compute-sanitizer: not found; sanitizer runs skipped" | tee -a "$SAN_LOG"
    STEPS+=("$(printf '%-36s %6s %6s  %s' "compute-sanitizer" "-" "0" "not found")")
else
    log "compute-sanitizer: $SANITIZER ($("$SANITIZER" --version 2>&1 | tail -n1))"
    for tool in memcheck racecheck synccheck; do
        for t in "$BUILD"/tests/gpu/gpu-*; do
            if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
            # gpu-fake-profile compares the fake's attributes with the driver's: no kernel, and it takes the fake's path.
            case $t in */gpu-fake-profile) continue ;; esac
            # The API errors the tests provoke on purpose (906, bad PTX, ...) are not
            # findings; exit status 86 means the sanitizer found something.
            step "$tool $(basename "$t")" "$SAN_LOG" 60 env \
                GPUSHIM_ORDERING_ROUNDS=2 GPUSHIM_ORDERING_N=4096 GPUSHIM_WORK_ITERS=16 \
                GPUSHIM_CAPTURE_REPLAYS=5 GPUSHIM_CAPTURE_N=16384 GPUSHIM_SPIN_MS=100 GPUSHIM_KERNELS_NO_WAIT=1 \
                "$SANITIZER" --tool "$tool" --report-api-errors no --error-exitcode 86 "$t"
        done
    done
fi

# ---- Summary. ----
{
    echo
    echo "== gpu suite"
    grep -hE '^ *[0-9]+/[0-9]+ .*gpushim:(gpu[^ ]* \/ )?(gpu|cuda|driver-api)-' "$TESTS_LOG" | sort -u
    echo
    echo "== figures"
    grep -hE '^(DEVICE|ORDERING|CAPTURE|EVENTS|RESOLVED summary|THREADS own|THREADS hot|PEER |KERNELS |TORCH_DLOPEN|[0-9]+ cycles of dlopen|NVRTC_GPU|TRACE_GPU|TRACE_JSON)' "$TESTS_LOG" | sort -u
    # Memory and interop.
    grep -hE '^(MEMORY|GRAPH_UPDATE|IPC|TORCH|TORCH_FORWARD) ' "$TESTS_LOG" | sort -u
    grep -hE 'symbols forwarded to its exports' "$TESTS_LOG" | sort -u
    grep -hE '^(ORDERING_BENCH|ORDERING_BOUND|OVERHEAD|target|DISPATCH|GRAPHS|FIRST_USE|NO_DRIVER|STARTUP|PEER_BENCH|COMPILE|POOL_BENCH|FORWARD)|skipped:' "$OUT"/bench-*.log
    grep -hE '^TRACE_JSON' "$OUT"/bench-overhead.log
    grep -hE 'ERROR SUMMARY' "$SAN_LOG" | sort | uniq -c
    echo "EXAMPLES $(grep -c '^ok:' "$EXAMPLES_LOG") ok, $(grep -c '^FAIL:' "$EXAMPLES_LOG") failed:" \
        "$(grep -hE '^examples \(' "$EXAMPLES_LOG" | tail -n 1)"
    grep -hE '^FAIL:' "$EXAMPLES_LOG"
    echo
    echo "== steps ($SECONDS s of a $BUDGET s budget)"
    printf '%-36s %6s %6s  %s\n' step rc secs result
    printf '%s\n' "${STEPS[@]}"
} | tee -a "$SUMMARY"
# Where only a few files may come back (the device tool takes 8), every file but the summary in one archive.
if [ "${GPUSHIM_RUN_PACK:-0}" = 1 ]; then
    (cd "$OUT" && find . -maxdepth 1 -type f ! -name summary.txt ! -name gpu-logs.tar.gz -printf '%P\n' | sort |
        tar czf gpu-logs.tar.gz -T - --remove-files) && echo "packed: $OUT/gpu-logs.tar.gz"
fi
exit 0
