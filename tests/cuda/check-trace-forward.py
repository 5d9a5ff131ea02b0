#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A program linked with libgpushim-cuda, traced: its cu* calls are in the trace
as gpushim's own are, by the symbol's name, with arguments by name.

usage: check-trace-forward.py APP [SUFFIX]  (GPUSHIM_LIBCUDA set to the fake driver; SUFFIX "ptds"
when APP was built with CUDA_API_PER_THREAD_DEFAULT_STREAM: its stream calls are the
_ptsz and _ptds names)
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    app = sys.argv[1]
    ptds = len(sys.argv) > 2 and sys.argv[2] == "ptds"
    sz, ds = ("_ptsz", "_ptds") if ptds else ("", "")
    copy_name = "cuMemcpyHtoDAsync_v2" + sz
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        env = dict(os.environ, GPUSHIM_TRACE=path, GPUSHIM_TRACE_SUMMARY="1")
        run = subprocess.run([app, "run"], env=env, capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            sys.exit(f"{app} run failed ({run.returncode}): {run.stdout}{run.stderr}")
        with open(path) as f:
            trace = json.load(f)
    calls = [e for e in trace["traceEvents"] if e.get("cat") == "cuda"]
    by_name = {}
    for e in calls:
        by_name.setdefault(e["name"], []).append(e)
    for name in ("cuInit", "cuDeviceGetCount", "cuMemAlloc_v2", copy_name, "cuStreamSynchronize" + sz,
                 "cuMemcpyDtoH_v2" + ds, "cuMemFree_v2"):
        if name not in by_name:
            sys.exit(f"no {name} in the trace; it has: {sorted(by_name)}")
    alloc = by_name["cuMemAlloc_v2"][0]["args"]
    if alloc.get("bytesize") != 4096 or not str(alloc.get("dptr", "")).startswith("0x") or alloc.get("rc") != 0:
        sys.exit(f"cuMemAlloc_v2's arguments: {alloc}")
    copy = by_name[copy_name][0]["args"]
    if copy.get("ByteCount") != 4096 or "hStream" not in copy or "dstDevice" not in copy:
        sys.exit(f"{copy_name}'s arguments: {copy}")
    if any(e["dur"] < 0 for e in calls):
        sys.exit("a negative duration")
    if copy_name not in run.stderr:
        sys.exit(f"the summary on stderr does not name the forwarded calls:\n{run.stderr}")
    print(f"{len(calls)} forwarded calls traced, {len(by_name)} symbols; cuMemAlloc_v2: {alloc}")


if __name__ == "__main__":
    main()
