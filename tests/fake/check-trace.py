#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Call tracing on the fake driver: runs test-trace and test-trace-table with
GPUSHIM_TRACE* set and checks what they leave: the JSON file parses (strictly),
holds every call the fake saw, in order, with its result and arguments, from
16 threads, survives exit() in the middle of work, stays within its cap and
says how much it dropped; the GPU spans and the summary.

usage: check-trace.py TEST_TRACE TEST_TRACE_TABLE MINIMAL_LIBCUDA
(GPUSHIM_LIBCUDA names the fake, as for the other fake tests.)
GPUSHIM_TRACE_CHECK_WRAP, when set, is put before each program (e.g. "valgrind
--error-exitcode=1 ..."): meson's --wrap reaches only this script.
"""
import importlib.util
import json
import os
import re
import shlex
import stat
import subprocess
import sys
import tempfile

TRACE, TABLE, MINIMAL = (os.path.abspath(a) for a in sys.argv[1:4])
TMP = tempfile.mkdtemp(prefix="gpushim-trace-")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def run(exe, args, env, expect_rc=0):
    full = dict(os.environ)
    for k in list(full):
        if k.startswith("GPUSHIM_TRACE"):
            del full[k]
    full.update(env)
    wrap = shlex.split(os.environ.get("GPUSHIM_TRACE_CHECK_WRAP", ""))
    p = subprocess.run(wrap + [exe] + args, env=full, capture_output=True, text=True, timeout=600)
    if p.returncode != expect_rc:
        print(p.stdout, p.stderr)
    check(p.returncode == expect_rc, f"{os.path.basename(exe)} {args} {env}: exit status {p.returncode}")
    return p


# The checker of a trace file that maintainers run on a GPU's traces: its reader and its verdict.
_spec = importlib.util.spec_from_file_location(
    "check_trace_file", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "check-trace.py"))
trace_file = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(trace_file)
load = trace_file.load


def calls_of(doc):
    return [e for e in doc["traceEvents"] if e.get("cat") == "driver"]


def leftovers():
    return [f for f in os.listdir(TMP) if ".tmp." in f]


def traced(mode, extra_env=None, expect_rc=0):
    path = os.path.join(TMP, mode + ".json")
    env = {"GPUSHIM_TRACE": path}
    env.update(extra_env or {})
    p = run(TRACE, [mode], env, expect_rc)
    check(os.path.exists(path), f"{mode}: no trace file")
    doc = load(path)
    check(not leftovers(), f"{mode}: temporary files left: {leftovers()}")
    out = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    return doc, (out[-1] if out else {}), p


def common(doc, info, mode, own_calls=()):
    """Every event well formed; the calls per entry point are the fake's counts exactly."""
    events = doc["traceEvents"]
    meta = doc["otherData"]
    for e in events:
        if e["ph"] == "X":
            check(all(k in e for k in ("name", "pid", "tid", "ts", "dur")), f"{mode}: malformed {e}")
            check(e["dur"] >= 0 and e["ts"] >= 0, f"{mode}: negative time in {e}")
    stages = [e["name"] for e in events if e.get("cat") == "load"]
    check(stages == ["gpushim load", "open", "init (cuInit)", "resolve"], f"{mode}: load stages {stages}")
    check(trace_file.valid(doc), f"{mode}: tools/check-trace.py finds the trace not valid")
    calls = calls_of(doc)
    check(meta["calls"] == len(calls), f"{mode}: otherData.calls {meta['calls']} != {len(calls)} events")
    for e in calls:
        check(e["args"]["rc"] == 0 or e["args"]["result"].startswith("CUDA_ERROR"), f"{mode}: result of {e}")
    if "counts" in info:
        seen = {}
        for e in calls:
            seen[e["name"]] = seen.get(e["name"], 0) + 1
        for name, n in info["counts"].items():
            if name in own_calls:
                continue
            # The tracer asks the driver for a failed call's message itself, once per code, and counts it.
            n -= meta.get("message_lookups", 0) if name == "cuGetErrorString" else 0
            check(seen.get(name, 0) == n, f"{mode}: {name}: {seen.get(name, 0)} traced, the fake saw {n}")
        check(set(seen) <= set(info["counts"]), f"{mode}: unknown names {set(seen) - set(info['counts'])}")
    return calls


def per_thread(calls):
    by = {}
    for e in calls:
        by.setdefault(e["tid"], []).append(e)
    return by


def no_overlap(evs, what):
    """Events of one thread (or one GPU track), by start: each ends before the next begins."""
    evs = sorted(evs, key=lambda e: e["ts"])
    for a, b in zip(evs, evs[1:]):
        if not check(a["ts"] + a["dur"] <= b["ts"] + 0.0015, f"{what}: {a['name']} overlaps {b['name']}"):
            return


# ---- A known series, in order, with results and arguments ----
doc, info, p = traced("sequence", {"GPUSHIM_TRACE_SUMMARY": "1"})
calls = common(doc, info, "sequence")
main = per_thread(calls)
check(len(main) == 1, f"sequence: {len(main)} threads")
no_overlap(calls, "sequence")
check([e["ts"] for e in calls] == sorted(e["ts"] for e in calls), "sequence: events not in call order")
S, B, BYTES = info["stream"], info["buffer"], 4096
want = [  # (name, rc, args that must match)
    ("cuModuleLoadDataEx", 0, {}),
    ("cuStreamCreate", 0, {"flags": 1}),
    ("cuMemAlloc", 2, {"bytes": BYTES}),
    ("cuMemAlloc", 0, {"bytes": BYTES}),
    ("cuMemcpyHtoD", 0, {"dst": B, "bytes": BYTES}),
    ("cuLaunchKernel", 0, {"grid_x": 4, "grid_y": 1, "grid_z": 1, "block_x": 256, "stream": S}),
    ("cuStreamSynchronize", 0, {"stream": S}),
    ("cuMemcpyDtoH", 0, {"src": B, "bytes": BYTES}),
    ("cuLaunchKernel", 0, {"grid_x": 1, "block_x": 1, "stream": S}),
    ("cuStreamQuery", 600, {"stream": S}),
    ("cuStreamSynchronize", 0, {"stream": S}),
    ("cuMemFree", 0, {"ptr": B}),
    ("cuStreamDestroy", 0, {"stream": S}),
    ("cuStreamCreateWithPriority", 0, {"flags": 0, "priority": -1}),
    ("cuModuleUnload", 0, {}),
]
i = 0
for e in calls:
    if i < len(want) and e["name"] == want[i][0] and e["args"]["rc"] == want[i][1] and all(
            e["args"].get(k) == v for k, v in want[i][2].items()):
        i += 1
check(i == len(want), f"sequence: the calls in order stop matching at {want[i] if i < len(want) else None}")
failed = [e for e in calls if e["args"]["rc"] != 0]
check([(e["name"], e["args"]["result"]) for e in failed if e["name"] == "cuMemAlloc"]
      == [("cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY")], "sequence: the failed cuMemAlloc")
check(any(e["name"] == "cuStreamQuery" and e["args"]["result"] == "CUDA_ERROR_NOT_READY" for e in calls),
      "sequence: cuStreamQuery NOT_READY")
check(doc["otherData"]["dropped_events"] == 0, "sequence: dropped events")

# The summary: one row per entry point called, its calls and failures those of the trace.
rows = {}
for line in p.stderr.splitlines():
    m = re.match(r"^\s*([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(cu\w+)$", line)
    if m:
        rows[m.group(8)] = (int(m.group(3)), int(m.group(4)), int(m.group(2)))
check(re.search(r"gpushim trace summary \(pid \d+\): %d driver calls, %d failed" % (len(calls), len(failed)),
                p.stderr), "summary: the totals line")
for name, n in info["counts"].items():
    n -= doc["otherData"].get("message_lookups", 0) if name == "cuGetErrorString" else 0
    if n:
        nfail = sum(1 for e in calls if e["name"] == name and e["args"]["rc"] != 0)
        check(name in rows and rows[name][:2] == (n, nfail),
              f"summary: {name} row {rows.get(name)}, want {n} calls, {nfail} failed")
check(set(rows) == {k for k, v in info["counts"].items()
                    if v - (doc["otherData"].get("message_lookups", 0) if k == "cuGetErrorString" else 0)}, "summary: rows for uncalled entry points")

# ---- 16 threads: each one's calls in order, none lost ----
doc, info, p = traced("threads")
calls = common(doc, info, "threads")
workers = {t: evs for t, evs in per_thread(calls).items() if any(e["name"] == "cuStreamCreate" for e in evs)}
check(len(workers) == 16, f"threads: {len(workers)} threads created streams, want 16")
pattern = ["cuMemcpyHtoD", "cuLaunchKernel", "cuStreamSynchronize", "cuMemcpyDtoH"]
for t, evs in workers.items():
    names = [e["name"] for e in evs if e["name"] in pattern]
    check(names == pattern * 20, f"threads: tid {t}: {len(names)} calls out of order")
    syncs = {e["args"]["stream"] for e in evs if e["name"] == "cuStreamSynchronize"}
    check(len(syncs) == 1, f"threads: tid {t} synchronised {len(syncs)} streams, want its own one")
    no_overlap(evs, f"threads: tid {t}")

# ---- exit() while 16 threads are in the middle of work ----
doc, info, p = traced("exit")
calls = common(doc, info, "exit")
check(info.get("exit") is True, "exit: the program did not reach exit()")
check(len(calls) > 16 * 4, f"exit: only {len(calls)} calls traced")
check(len(per_thread(calls)) >= 16, "exit: not every thread's calls")
# The same with GPU spans: 16 threads launching and copying, the spans written under their lock.
doc, info, p = traced("exit", {"GPUSHIM_TRACE_GPU": "1"})
calls = common(doc, info, "exit, gpu")
check(doc["otherData"]["gpu"] is True and len(calls) > 16 * 4, f"exit, gpu: {doc['otherData']}")
spans = [e for e in doc["traceEvents"] if e.get("cat") == "gpu"]
check(doc["otherData"]["gpu_spans_written"] is False or doc["otherData"]["gpu_spans"] == len(spans),
      f"exit, gpu: {len(spans)} spans, otherData {doc['otherData']}")

# ---- exec(): no exit handler runs, and the calls made before it are in the file, which lacks its closing record ----
path = os.path.join(TMP, "exec.json")
p = run(TRACE, ["exec"], {"GPUSHIM_TRACE": path})
check(os.path.isfile(path), "exec: no trace file: " + p.stderr)
text = open(path).read().rstrip("\n") if os.path.isfile(path) else ""
check(text.endswith("},") and "otherData" not in text, f"exec: the file's end {text[-80:]!r}")
try:
    doc = json.loads(text[:-1] + "]}")
except ValueError as e:
    doc = {"traceEvents": []}
    check(False, f"exec: the records before the exec do not parse: {e}")
info = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
check(len(info) == 1, "exec: no counts printed before the exec: " + p.stdout)
seen = {}
for e in calls_of(doc):
    seen[e["name"]] = seen.get(e["name"], 0) + 1
for name, n in (info[0]["counts"].items() if info else []):
    # The tracer's own message lookups are counted in otherData, which an exec leaves unwritten.
    ok = seen.get(name, 0) <= n if name == "cuGetErrorString" else seen.get(name, 0) == n
    check(ok, f"exec: {name}: {seen.get(name, 0)} traced before the exec, the fake saw {n}")
check(sum(seen.values()) > 10, f"exec: {sum(seen.values())} calls in the file")
check(not leftovers(), f"exec: temporary files left: {leftovers()}")

# An exec of a program that traces to the same path (with %p too: exec keeps the process id): one trace goes on.
path = os.path.join(TMP, "exec-self.%p.json")
p = run(TRACE, ["exec-self"], {"GPUSHIM_TRACE": path})
files = [f for f in os.listdir(TMP) if f.startswith("exec-self.")]
check(len(files) == 1, f"exec-self: files {files}")
doc = {"traceEvents": [], "otherData": {}}
try:
    doc = load(os.path.join(TMP, files[0])) if len(files) == 1 else doc
except ValueError as e:
    check(False, f"exec-self: the trace does not parse: {e}")
info = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
check(len(info) == 2, "exec-self: not both images' counts: " + p.stdout)
stages = [e["name"] for e in doc["traceEvents"] if e.get("cat") == "load"]
check(stages == ["gpushim load", "open", "init (cuInit)", "resolve"] * 2, f"exec-self: load stages {stages}")
seen = {}
for e in calls_of(doc):
    seen[e["name"]] = seen.get(e["name"], 0) + 1
for name in (info[0]["counts"] if len(info) == 2 else {}):
    n = info[0]["counts"][name] + info[1]["counts"][name]
    ok = seen.get(name, 0) <= n if name == "cuGetErrorString" else seen.get(name, 0) == n
    check(ok, f"exec-self: {name}: {seen.get(name, 0)} traced, the fake saw {n} in the two images")
check(doc.get("otherData", {}).get("calls") == len(calls_of(doc)), f"exec-self: otherData {doc.get('otherData')}")
check(len(files) == 1 and doc["otherData"] and trace_file.valid(doc), "exec-self: tools/check-trace.py finds the trace not valid")
ts = [e["ts"] for e in calls_of(doc)]
check(ts == sorted(ts), "exec-self: the second image's calls are not on the first's clock, after its own")
check(not leftovers(), f"exec-self: temporary files left: {leftovers()}")

# ---- A cap: the first calls kept, the rest counted ----
doc, info, p = traced("sequence", {"GPUSHIM_TRACE_MAX_EVENTS": "10"})
calls = calls_of(doc)
total = sum(info["counts"].values()) - doc["otherData"].get("message_lookups", 0)
check(len(calls) == 10, f"cap: {len(calls)} events kept, want 10")
check(doc["otherData"]["max_events"] == 10 and doc["otherData"]["dropped_events"] == total - 10,
      f"cap: otherData {doc['otherData']}, want {total - 10} dropped")
doc, info, p = traced("sequence", {"GPUSHIM_TRACE_MAX_EVENTS": "ten"})
check("GPUSHIM_TRACE_MAX_EVENTS=ten is not a number" in p.stderr, "cap: a bad value is not reported")
check(doc["otherData"]["max_events"] == 262144, "cap: a bad value does not leave the default")

# ---- GPU spans from timing events, one track per stream ----
doc, info, p = traced("gpu", {"GPUSHIM_TRACE_GPU": "1"})
# The calls tracing itself makes for the spans go to the driver untraced: the fake counts them, the trace does not.
calls = common(doc, info, "gpu", {"cuCtxGetCurrent", "cuStreamIsCapturing", "cuEventCreate", "cuEventRecord",
                                  "cuEventQuery", "cuEventSynchronize", "cuEventElapsedTime", "cuEventDestroy"})
meta = doc["otherData"]
spans = [e for e in doc["traceEvents"] if e.get("cat") == "gpu"]
launched = [e for e in calls if e["name"] in ("cuLaunchKernel", "cuMemcpyDtoDAsync", "cuMemcpyHtoD")
            and e["args"]["rc"] == 0]
check(meta["gpu"] is True and meta["gpu_spans"] == len(spans), f"gpu: otherData {meta}")
check(len(spans) == len(launched) == 21, f"gpu: {len(spans)} spans for {len(launched)} launches and copies, want 21")
check(meta["gpu_spans_failed"] == 0 and meta["gpu_spans_unfinished"] == 0 and meta["gpu_spans_dropped"] == 0,
      f"gpu: spans lost: {meta}")
tracks = {}
for e in spans:
    tracks.setdefault(e["tid"], []).append(e)
names = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "thread_name"}
check(len(tracks) == 3, f"gpu: {len(tracks)} tracks, want 2 streams and the legacy one")
for s in info["streams"]:
    tid = [t for t, n in names.items() if ("stream " + s + " ") in n]
    check(len(tid) == 1 and sorted(e["name"] for e in tracks.get(tid[0], []))
          == ["cuLaunchKernel"] * 5 + ["cuMemcpyDtoDAsync"] * 5, f"gpu: the track of stream {s}")
for t, evs in tracks.items():
    no_overlap(evs, f"gpu track {names.get(t)}")
# The fake's clock: an operation takes 1 us, sleep_us(100) 100 us more.
sleeps = [e["dur"] for e in spans if e["name"] == "cuLaunchKernel"]
check(all(100.0 <= d <= 102.0 for d in sleeps), f"gpu: sleep_us(100) spans {sleeps}")
copies = [e["dur"] for e in spans if e["name"] == "cuMemcpyDtoDAsync"]
check(all(0.5 <= d <= 1.5 for d in copies), f"gpu: copy spans {copies}")

# ---- Off: no file, and the table holds the driver's own pointers; on: wrappers ----
off = os.path.join(TMP, "off.json")
run(TRACE, ["sequence"], {})
check(not os.path.exists(off) and not leftovers(), "off: a file was written")
p = run(TABLE, ["off"], {})
check("TRACE_TABLE off:" in p.stdout and ", 0 wrong" in p.stdout, "table off: " + p.stdout + p.stderr)
p = run(TABLE, ["on"], {"GPUSHIM_TRACE": os.path.join(TMP, "table.json")})
check("TRACE_TABLE on:" in p.stdout and ", 0 wrong" in p.stdout, "table on: " + p.stdout + p.stderr)
p = run(TABLE, ["on"], {"GPUSHIM_TRACE_SUMMARY": "1", "GPUSHIM_LIBCUDA": MINIMAL})
check(", 0 wrong" in p.stdout, "table on, minimal driver: " + p.stdout + p.stderr)
check("gpushim trace summary" in p.stderr, "summary alone: no summary")

# ---- A file that cannot be written: said so, the program unharmed ----
p = run(TRACE, ["sequence"], {"GPUSHIM_TRACE": os.path.join(TMP, "no-such-dir", "t.json")})
check("GPUSHIM_TRACE: could not write" in p.stderr, "unwritable: not reported: " + p.stderr)

# ---- What the trace writes to: never through a planted link, 0600, one file per process with %p ----
def folder(mode, owner=None):
    d = tempfile.mkdtemp(prefix="folder-", dir=TMP)
    os.chmod(d, mode)
    if owner is not None:
        os.chown(d, owner, owner)
    return d


def plant(path, target, owner):
    os.symlink(target, path)
    if owner is not None:
        os.lchown(path, owner, owner)


ROOT = os.geteuid() == 0
os.chmod(TMP, 0o755)  # the folders below are reached by uid 65534 too
OTHER = 65534 if ROOT else None
print("fs.protected_symlinks =", open("/proc/sys/fs/protected_symlinks").read().strip()
      if os.path.exists("/proc/sys/fs/protected_symlinks") else "(unknown)")
folders = {"own 0700": folder(0o700), "shared group 2770": folder(0o2770), "sticky 1777": folder(0o1777)}
if ROOT:
    folders["another user's 0777"] = folder(0o777, 65534)
else:
    print("  (not root: a folder of another user's is not tried)")
victim = os.path.join(TMP, "bashrc")
for name, d in folders.items():
    with open(victim, "w") as f:
        f.write("# the victim's own file\n")
    path = os.path.join(d, "t.json")
    # Links at the final path and at the temporary name the process id would give: planted by another user.
    plant(path, victim, OTHER)
    ran = subprocess.run(["sh", "-c", 'ln -s "$1" "$2.tmp.$$" && exec "$3" sequence', "sh", victim, path, TRACE],
                         env={**{k: v for k, v in os.environ.items() if not k.startswith("GPUSHIM_TRACE")},
                              "GPUSHIM_TRACE": path}, capture_output=True, text=True, timeout=600)
    check(ran.returncode == 0, f"{name}: the traced program failed: {ran.stderr}")
    check(open(victim).read() == "# the victim's own file\n", f"{name}: a planted link was followed: the victim's file changed")
    check(os.path.islink(path), f"{name}: the link planted at {path} was replaced")
    check(f"{path} is a symbolic link: no trace is written" in ran.stderr, f"{name}: the link not said: {ran.stderr}")
    os.unlink(path)
    ran = subprocess.run([TRACE, "sequence"], env={**{k: v for k, v in os.environ.items() if not k.startswith("GPUSHIM_TRACE")},
                         "GPUSHIM_TRACE": path}, capture_output=True, text=True, timeout=600)
    check(not os.path.islink(path) and os.path.isfile(path), f"{name}: the trace is not a file of its own at {path}")
    if os.path.isfile(path) and not os.path.islink(path):
        check(os.stat(path).st_mode & 0o777 == 0o600, f"{name}: the trace's mode is {oct(os.stat(path).st_mode & 0o777)}")
        load(path)

# ---- A FIFO or a device at the path: left as it is, said so, the trace written nowhere ----
fifo = os.path.join(TMP, "fifo.json")
os.mkfifo(fifo)
p = run(TRACE, ["sequence"], {"GPUSHIM_TRACE": fifo})
check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "a FIFO at the path was replaced")
check(f"{fifo} is a FIFO: no trace is written" in p.stderr, "a FIFO at the path: not said: " + p.stderr)
check(not [f for f in os.listdir(TMP) if f.startswith("fifo.json.tmp.")], "a FIFO at the path: a temporary left")
if ROOT:
    dev = os.path.join(TMP, "null.json")
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    p = run(TRACE, ["sequence"], {"GPUSHIM_TRACE": dev})
    check(stat.S_ISCHR(os.lstat(dev).st_mode), "a device at the path was replaced")
    check(f"{dev} is a character device: no trace is written" in p.stderr, "a device at the path: not said: " + p.stderr)
    os.unlink(dev)
else:
    print("  (not root: a device node at the path is not tried)")


def reachable_by_others(path):
    """Whether another user may walk to path: every folder above it searchable by others."""
    parent = os.path.dirname(os.path.realpath(path))
    while True:
        if not os.stat(parent).st_mode & 0o001:
            return False
        if parent == "/":
            return True
        parent = os.path.dirname(parent)


if ROOT and not reachable_by_others(TRACE):
    # A build under root's 0700 home: the user could not start the program at all.
    print(f"  (root, but {TRACE} is in a folder other users cannot enter: the run as another user is not tried)")
elif ROOT:
    # As a user: root's link at the temporary name in a sticky folder, the user's own file as the victim.
    d = folders["sticky 1777"]
    path = os.path.join(d, "user.json")
    with open(victim, "w") as f:
        f.write("# the victim's own file\n")
    os.chown(victim, 65534, 65534)

    def as_user():
        os.symlink(victim, f"{path}.tmp.{os.getpid()}")
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSHIM_TRACE")}
    ran = subprocess.run([TRACE, "sequence"], env={**env, "GPUSHIM_TRACE": path}, preexec_fn=as_user,
                         capture_output=True, text=True, timeout=600)
    check(ran.returncode == 0, f"as a user: the traced program failed: {ran.returncode} {ran.stderr}")
    check(open(victim).read() == "# the victim's own file\n", "as a user: root's planted link was followed")
    check(os.path.isfile(path) and os.stat(path).st_uid == 65534, "as a user: no trace of the user's own: " + ran.stderr)
else:
    print("  (not root: the run as another user is not tried)")

# %p: one file per process; the same path for two at once: the second to finish says it replaced the first's.
pattern = os.path.join(TMP, "many.%p.json")
pids = []
for i in range(2):
    p = run(TRACE, ["sequence"], {"GPUSHIM_TRACE": pattern})
    pids += [f for f in os.listdir(TMP) if f.startswith("many.") and f.endswith(".json")]
files = sorted(set(pids))
check(len(files) == 2 and all(re.fullmatch(r"many\.\d+\.json", f) for f in files), f"%p: files {files}")
p = run(TRACE, ["sequence"], {"GPUSHIM_TRACE": os.path.join(TMP, "pct.%%.%x.json")})
check(os.path.exists(os.path.join(TMP, "pct.%.%x.json")), "%%: not one %")
check("only %p (the process id) and %% are patterns" in p.stderr, "%x: no warning: " + p.stderr)
shared = os.path.join(TMP, "shared.json")
go = os.path.join(TMP, "go")
env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSHIM_TRACE")}
first = subprocess.Popen([TRACE, "wait", go], env={**env, "GPUSHIM_TRACE": shared}, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
# The first has begun its trace once it made go.ready (its driver, and so the trace, loaded).
for _ in range(1200):
    if first.poll() is not None or os.path.exists(go + ".ready"):
        break
    subprocess.run(["sleep", "0.05"])
second = run(TRACE, ["sequence"], {"GPUSHIM_TRACE": shared})
check("replaces it" not in second.stderr, "one trace over a file from before: a warning " + second.stderr)
open(go, "w").close()
out, err = first.communicate(timeout=600)
check(first.returncode == 0, f"wait: exit status {first.returncode}: {err}")
check(f"{shared} was written by another process while this one ran" in err, "two at once: no warning: " + err)
load(shared)

print(f"TRACE_CHECK {'FAILED' if failures else 'ok'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
