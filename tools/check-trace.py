#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads a GPUSHIM_TRACE file with a strict JSON parser and prints what it holds:

  TRACE_JSON file=... valid=yes events=.. driver_calls=.. failed_calls=.. load_stages=..
             gpu_spans=.. gpu_tracks=.. dropped=.. (otherData as written)

usage: check-trace.py TRACE.json [--want-gpu]   (exit 1 when not valid, or no GPU span where wanted)

tests/fake/check-trace.py imports load() and valid() to read the traces of its programs.
"""
import json
import sys


def load(path):
    """json.load, refusing NaN/Infinity: what a strict reader (Perfetto) accepts."""
    def no_constants(c):
        raise ValueError("not JSON: " + c)
    with open(path) as f:
        return json.load(f, parse_constant=no_constants)


def valid(doc, want_gpu=False):
    """Every complete event has a start and no negative duration; four load stages for each image the process
    ran (an exec() goes on in the same trace); otherData's counts hold."""
    events = doc["traceEvents"]
    meta = doc["otherData"]
    calls = [e for e in events if e.get("cat") == "driver"]
    spans = [e for e in events if e.get("cat") == "gpu"]
    stages = [e for e in events if e.get("cat") == "load"]
    ok = all(e["ph"] != "X" or (e["dur"] >= 0 and "ts" in e) for e in events) and stages and len(stages) % 4 == 0
    return bool(ok and meta["calls"] == len(calls) and (not want_gpu or (spans and meta["gpu_spans"] == len(spans))))


def main():
    path = sys.argv[1]
    want_gpu = "--want-gpu" in sys.argv[2:]
    try:
        doc = load(path)
        events = doc["traceEvents"]
        meta = doc["otherData"]
        ok = valid(doc, want_gpu)
    except (OSError, ValueError, KeyError) as e:
        print(f"TRACE_JSON file={path} valid=no: {e}")
        sys.exit(1)
    calls = [e for e in events if e.get("cat") == "driver"]
    spans = [e for e in events if e.get("cat") == "gpu"]
    stages = [e for e in events if e.get("cat") == "load"]
    print(f"TRACE_JSON file={path} valid={'yes' if ok else 'no'} events={len(events)} driver_calls={len(calls)} "
          f"failed_calls={sum(1 for e in calls if e['args']['rc'] != 0)} load_stages={len(stages)} "
          f"gpu_spans={len(spans)} gpu_tracks={len({e['tid'] for e in spans})} dropped={meta['dropped_events']} "
          f"gpu_spans_failed={meta['gpu_spans_failed']} gpu_spans_unfinished={meta['gpu_spans_unfinished']}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
