#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Calls through pointers that cuGetProcAddress_v2 handed out are traced, each one
exactly once: the trace's count of every function equals the calls the program
made and the fake driver's own counter (tests/cuda/proc_address.c); without
tracing the pointers are the driver's own.

usage: check-proc-address.py PROC_ADDRESS  (GPUSHIM_LIBCUDA set to the fake driver)
"""
import json
import os
import subprocess
import sys
import tempfile

K = 7


def run(app, mode, env):
    out = subprocess.run([app, mode, str(K)], env=env, capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        sys.exit(f"{app} {mode} failed ({out.returncode}): {out.stdout}{out.stderr}")
    return json.loads(out.stdout)


def main():
    app = sys.argv[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSHIM_TRACE")}
    run(app, "untraced", env)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        counts = run(app, "traced", dict(env, GPUSHIM_TRACE=path))["calls"]
        with open(path) as f:
            trace = json.load(f)
    events = [e for e in trace["traceEvents"] if e.get("cat") == "cuda"]
    # Each call once: a _ptsz variant of the fake calls its base inside the driver, never back through
    # the program's libgpushim-cuda.
    traced = {}
    for e in events:
        traced[e["name"]] = traced.get(e["name"], 0) + 1
    # The program's first call, which loaded the driver, came before the phase counted.
    if traced.pop("cuDriverGetVersion", 0) - 1 != counts["cuDriverGetVersion"][0]:
        sys.exit(f"cuDriverGetVersion: {counts['cuDriverGetVersion']} made, the trace has {traced}")
    del counts["cuDriverGetVersion"]
    for name, (made, fake) in counts.items():
        if not made == fake == traced.get(name, 0):
            sys.exit(f"{name}: {made} calls made, {fake} counted by the fake, {traced.get(name, 0)} traced")
    extra = set(traced) - set(counts)
    if extra:
        sys.exit(f"calls traced that the program did not make: {sorted(extra)}")
    print(f"{sum(traced.values())} calls through pointers and cuGetProcAddress_v2, all traced: {traced}")


if __name__ == "__main__":
    main()
