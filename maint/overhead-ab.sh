#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/overhead of several revisions side by side, against the null driver:
# builds each (release, no tests) and runs them in alternation, round after
# round, so that drift on the machine moves all alike; then prints, per call
# and revision, the median over rounds of each run's median delta_ns.
#
# usage: maint/overhead-ab.sh ROUNDS NAME=SOURCE...
#   SOURCE is a folder holding a gpushim tree, or a tar of one
#   (git archive REV -o x.tar), or "." for the working tree.
# environment: GPUSHIM_BENCH_REPS (default 51) and the other knobs of
#   bench/overhead.c; AB_WORK, where the trees are built (default a temporary folder).
# Output: every OVERHEAD line, prefixed with its revision's name, then the
# medians as "AB <call> <name> delta_ns=.. gpushim_ns=.. direct_ns=.. [floor_delta_ns=..
# floor_tls_delta_ns=.. beyond_floor_tls_ns=.. beyond_floor_ns=..] rounds=.." (the floor arms' where the
# revision has them).
# Paired in one process: where the last revision's bench-overhead takes
# GPUSHIM_OVERHEAD_OTHER, each round also runs it with the first revision's
# libgpushim loaded beside its own (lines prefixed "paired"), and the medians
# over rounds print as "AB_PAIRED <call> <last>-<first> diff_ns=.. <last>_ns=..
# <first>_ns=.. rounds=..": both builds timed rep by rep in the same process,
# which separate processes are not (the ns a process measures can move by half
# from one process to the next on a shared machine, for every arm alike).
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
first=${names[0]}
last=${names[${#names[@]} - 1]}
paired=
if [ "$first" != "$last" ] && grep -q GPUSHIM_OVERHEAD_OTHER "$work/$last/bench/overhead.c"; then
    for f in "$work/$first/build/src"/libgpushim.so.[0-9]*; do
        case ${f##*.so.} in *.*) ;; *) paired=$f ;; esac   # the soname's link, libgpushim.so.N
    done
fi

lines=$work/lines.txt
: >"$lines"
for ((r = 1; r <= rounds; r++)); do
    for name in "${names[@]}"; do
        b=$work/$name/build/bench
        GPUSHIM_LIBCUDA=$b/libnullcuda.so "$b/bench-overhead" | grep '^OVERHEAD' | sed "s/^/$name /" | tee -a "$lines"
    done
    if [ -n "$paired" ]; then
        b=$work/$last/build/bench
        GPUSHIM_LIBCUDA=$b/libnullcuda.so GPUSHIM_OVERHEAD_OTHER=$paired "$b/bench-overhead" | grep '^OVERHEAD' |
            sed "s/^/paired /" | tee -a "$lines"
    fi
done

python3 - "$lines" "$first" "$last" <<'EOF'
import statistics
import sys
from collections import defaultdict

keys = ["delta_ns", "gpushim_ns", "direct_ns", "floor_delta_ns", "floor_tls_delta_ns", "beyond_floor_tls_ns",
        "beyond_floor_ns"]
runs = defaultdict(list)
order = []
paired = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    name, call = f[0], f[2]
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    if name == "paired":
        paired[call].append([float(kv[k]) for k in ("ab_diff_ns", "ab_self_ns", "ab_other_ns")])
        continue
    if (call, name) not in runs:
        order.append((call, name))
    # The floor arms' figures where the revision's bench-overhead has them (floor.h).
    runs[(call, name)].append([float(kv[k]) if k in kv else None for k in keys])
for call, name in sorted(order, key=lambda k: (k[0], order.index(k))):
    v = runs[(call, name)]
    med = {k: statistics.median(x[i] for x in v) for i, k in enumerate(keys) if v[0][i] is not None}
    print(f"AB {call} {name} " + " ".join(f"{k}={m:.2f}" for k, m in med.items()) + f" rounds={len(v)}")
first, last = sys.argv[2], sys.argv[3]
for call, v in paired.items():
    d, s, o = (statistics.median(x[i] for x in v) for i in range(3))
    print(f"AB_PAIRED {call} {last}-{first} diff_ns={d:.2f} {last}_ns={s:.2f} {first}_ns={o:.2f} rounds={len(v)}")
EOF
