#!/usr/bin/env bash
# bench/overhead of several revisions side by side, against the null driver:
# builds each (release, no tests) and runs them in alternation, round after
# round, so that drift on the machine moves all alike; then prints, per call
# and revision, the median over rounds of each run's median delta_ns.
#
# usage: tools/overhead-ab.sh ROUNDS NAME=SOURCE...
#   SOURCE is a folder holding a gpushim tree, or a tar of one
#   (git archive REV -o x.tar), or "." for the working tree.
# environment: GPUSHIM_BENCH_REPS (default 51) and the other knobs of
#   bench/overhead.c; AB_WORK, where the trees are built (default a temporary folder).
# Output: every OVERHEAD line, prefixed with its revision's name, then the
# medians as "AB <call> <name> delta_ns=.. gpushim_ns=.. direct_ns=.. [floor_delta_ns=..
# floor_tls_delta_ns=.. beyond_floor_tls_ns=.. beyond_floor_ns=..] rounds=.." (the floor arms' where the
# revision has them).
set -euo pipefail

rounds=${1:?usage: overhead-ab.sh ROUNDS NAME=SOURCE...}
shift
[ $# -ge 1 ] || { echo "overhead-ab.sh: name at least one NAME=SOURCE"; exit 64; }
work=${AB_WORK:-$(mktemp -d)}
export GPUSHIM_BENCH_REPS=${GPUSHIM_BENCH_REPS:-51}
names=()
for spec in "$@"; do
    name=${spec%%=*}
    src=${spec#*=}
    [ "$name" != "$spec" ] && [ -n "$name" ] || { echo "overhead-ab.sh: '$spec' is not NAME=SOURCE"; exit 64; }
    tree=$work/$name
    rm -rf "$tree"
    mkdir -p "$tree"
    if [ -d "$src" ]; then
        (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - --no-recursion) |
            tar xf - -C "$tree"
    else
        tar xf "$src" -C "$tree"
    fi
    meson setup "$tree/build" "$tree" -Dbuildtype=release -Dtests=disabled >"$work/$name.setup.log" 2>&1 ||
        { cat "$work/$name.setup.log"; exit 1; }
    ninja -C "$tree/build" bench/bench-overhead bench/libnullcuda.so >"$work/$name.build.log" 2>&1 ||
        { tail -n 30 "$work/$name.build.log"; exit 1; }
    names+=("$name")
done

lines=$work/lines.txt
: >"$lines"
for ((r = 1; r <= rounds; r++)); do
    for name in "${names[@]}"; do
        b=$work/$name/build/bench
        GPUSHIM_LIBCUDA=$b/libnullcuda.so "$b/bench-overhead" | grep '^OVERHEAD' | sed "s/^/$name /" | tee -a "$lines"
    done
done

python3 - "$lines" <<'EOF'
import statistics
import sys
from collections import defaultdict

keys = ["delta_ns", "gpushim_ns", "direct_ns", "floor_delta_ns", "floor_tls_delta_ns", "beyond_floor_tls_ns",
        "beyond_floor_ns"]
runs = defaultdict(list)
order = []
for line in open(sys.argv[1]):
    f = line.split()
    name, call = f[0], f[2]
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    if (call, name) not in runs:
        order.append((call, name))
    # The floor arms' figures where the revision's bench-overhead has them (floor.h).
    runs[(call, name)].append([float(kv[k]) if k in kv else None for k in keys])
for call, name in sorted(order, key=lambda k: (k[0], order.index(k))):
    v = runs[(call, name)]
    med = {k: statistics.median(x[i] for x in v) for i, k in enumerate(keys) if v[0][i] is not None}
    print(f"AB {call} {name} " + " ".join(f"{k}={m:.2f}" for k, m in med.items()) + f" rounds={len(v)}")
EOF
