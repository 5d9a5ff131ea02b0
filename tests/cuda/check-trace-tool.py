#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpushim-trace --fake on tests/cuda/proc_address.c's programs: the one linked with
libgpushim-cuda and the one that opens libcuda.so.1 itself (gpushim-trace puts
gpushim-cuda there). The summary's counts are the fake's own counters; the
program's exit status is the command's (0, 3, 128 + SIGTERM), and a program
killed by a signal leaves the calls it made; a truncated or garbled trace file
is summarized as far as it goes.

usage: check-trace-tool.py GPUSHIM_TRACE PROC_ADDRESS PROC_ADDRESS_DLOPEN
"""
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile

K = 5


def fail(msg):
    sys.exit(msg)


def run(cmd, env):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)


def check_counts(tool, app, env, d):
    out = os.path.join(d, os.path.basename(app) + ".json")
    r = run([tool, "--fake", "--json", "-o", out, "--", app, "traced", str(K)], env)
    if r.returncode != 0:
        fail(f"{app}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    lines = r.stdout.strip().splitlines()
    made = json.loads(lines[-2])["calls"]
    summary = json.loads(lines[-1])
    by_name = {f["name"]: f for f in summary["functions"]}
    # The call that loaded the driver came before the counted phase.
    expected = {name: fake for name, (_, fake) in made.items()}
    expected["cuDriverGetVersion"] += 1
    for name, n in expected.items():
        got = by_name.get(name, {}).get("calls", 0)
        if got != n:
            fail(f"{app}: {name}: the fake counted {n}, the summary says {got}\n{r.stdout}")
    if set(by_name) != set(expected):
        fail(f"{app}: the summary names {sorted(set(by_name) - set(expected))}, which the program did not call")
    if summary["calls"] != sum(expected.values()) or summary["errors"] != 0 or summary["processes"] != 1:
        fail(f"{app}: the summary's totals: {summary}")
    if summary["trace"] != out or summary["exit_status"] != 0 or summary["incomplete"] != 0:
        fail(f"{app}: {summary}")
    with open(out) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "cuda"]
    if len(events) != summary["calls"]:
        fail(f"{app}: {len(events)} calls in the trace file, {summary['calls']} in the summary")
    # The table on stderr names every function.
    r = run([tool, "--fake", "-o", out, "--", app, "traced", str(K)], env)
    if r.returncode != 0 or "cuStreamQuery_ptsz" not in r.stderr or f"{summary['calls']} driver calls" not in r.stderr:
        fail(f"{app}: the table:\n{r.stderr}")
    return out, summary


def check_status(tool, app, env, d):
    out = os.path.join(d, "status.json")
    for args, status in ((["exit", "0"], 0), (["exit", "3"], 3), (["signal"], 128 + signal.SIGTERM)):
        r = run([tool, "--fake", "--json", "-o", out, "--", app] + args, env)
        summary = json.loads(r.stdout.strip().splitlines()[-1])
        if r.returncode != status or summary["exit_status"] != status:
            fail(f"{app} {args}: exit {r.returncode}, {status} expected\n{r.stdout}{r.stderr}")
        # A program killed by a signal runs no exit handler: its trace holds the calls it made, and is incomplete.
        if summary["processes"] != 1 or summary["calls"] != 1 or summary["incomplete"] != (args == ["signal"]):
            fail(f"{app} {args}: {summary}")
    r = run([tool, "--fake", "--", "/nonexistent/gpushim-test/program"], env)
    if r.returncode != 127:
        fail(f"a program that does not exist: exit {r.returncode}\n{r.stderr}")
    r = run([tool, "--bogus"], env)
    if r.returncode != 125 or "usage" not in r.stderr:
        fail(f"an unknown option: exit {r.returncode}\n{r.stderr}")


def read(tool, path, env):
    r = run([tool, "--json", "--read", path], env)
    if r.returncode != 0:
        fail(f"--read {path}: exit {r.returncode}\n{r.stderr}")
    return json.loads(r.stdout)


def check_truncated(tool, trace, whole, env, d):
    with open(trace, "rb") as f:
        data = f.read()
    cut = os.path.join(d, "cut.json")
    last = -1
    for at in sorted({0, 1, 20, len(data) // 3, len(data) // 2, len(data) // 2 + 7, len(data) - 300,
                      len(data) - 2, len(data) - 1}):
        with open(cut, "wb") as f:
            f.write(data[:at])
        s = read(tool, cut, env)
        if s["incomplete"] != 1 or s["calls"] > whole["calls"] or s["calls"] < last:
            fail(f"cut at {at} of {len(data)}: {s}")
        last = s["calls"]
    s = read(tool, trace, env)
    if s["incomplete"] != 0 or s["calls"] != whole["calls"]:
        fail(f"the whole trace read back: {s}")
    # Lines that are no events of gpushim's: overlong, binary, numbers out of range, a name with quotes.
    junk = (b'{"traceEvents":[\n' + b'{"name":"' + b"x" * 200000 + b'"}\n' + bytes(range(256)) + b"\n"
            b'{"name":"cuA","cat":"cuda","ph":"X","ts":1e999,"dur":-1,"args":{"rc":1}}\n'
            b'{"name":"cu\\"B","cat":"cuda","ph":"X","ts":1,"dur":1,"args":{"rc":2}}\n'
            b'{"name":"cuC","cat":"cuda","ph":"X","ts":1,"dur":2,"args":{"result":"CUDA_ERROR_X","rc":999,'
            b'"message":"a \\"quoted\\" \\u00e9 text"}}\n'
            b'{"name":"cuD","cat":"cuda","ph":"X","ts":1,"dur":2,"args":{"rc":1')
    with open(cut, "wb") as f:
        f.write(junk)
    s = read(tool, cut, env)
    if s["calls"] != 1 or s["bad_lines"] < 3 or s["functions"][0]["first_error"]["rc"] != 999:
        fail(f"a garbled trace: {s}")
    if s["functions"][0]["first_error"]["message"] != 'a "quoted" ? text':
        fail(f"a garbled trace's message: {s['functions'][0]}")


def check_target(tool, app, env, d):
    """-o names a link, a FIFO, a file of another mode: never written through, never replaced but a regular file,
    and the trace is a new file of mode 0600."""
    victim = os.path.join(d, "victim")
    with open(victim, "w") as f:
        f.write("the victim's own\n")
    link = os.path.join(d, "link.json")
    os.symlink(victim, link)
    r = run([tool, "--fake", "-o", link, "--", app, "traced", "1"], env)
    if r.returncode != 0 or open(victim).read() != "the victim's own\n" or not os.path.islink(link):
        fail(f"-o a symbolic link: written through or replaced (exit {r.returncode})\n{r.stderr}")
    if f"{link} is a symbolic link" not in r.stderr:
        fail(f"-o a symbolic link: not said so\n{r.stderr}")
    fifo = os.path.join(d, "fifo.json")
    os.mkfifo(fifo)
    r = run([tool, "--fake", "-o", fifo, "--", app, "traced", "1"], env)
    if r.returncode != 0 or not stat.S_ISFIFO(os.lstat(fifo).st_mode) or f"{fifo} is a FIFO" not in r.stderr:
        fail(f"-o a FIFO: replaced, or not said so (exit {r.returncode})\n{r.stderr}")
    old = os.path.join(d, "old.json")
    with open(old, "w") as f:
        f.write("an old trace\n")
    os.chmod(old, 0o666)
    r = run([tool, "--fake", "-o", old, "--", app, "traced", "1"], env)
    mode = stat.S_IMODE(os.lstat(old).st_mode)
    if r.returncode != 0 or mode != 0o600 or "traceEvents" not in open(old).read():
        fail(f"-o an existing file: mode {oct(mode)} (exit {r.returncode})\n{r.stderr}")
    left = [f for f in os.listdir(d) if ".tmp." in f]
    if left:
        fail(f"temporary files left: {left}")


def main():
    tool, linked, dlopened = sys.argv[1:4]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSHIM_")}
    with tempfile.TemporaryDirectory() as d:
        trace, whole = check_counts(tool, linked, env, d)
        check_counts(tool, dlopened, env, d)
        check_status(tool, dlopened, env, d)
        check_truncated(tool, trace, whole, env, d)
    with tempfile.TemporaryDirectory() as d:
        check_target(tool, dlopened, env, d)
    print(f"gpushim-trace: {whole['calls']} calls summarized as the fake counted them; statuses and truncation ok")


if __name__ == "__main__":
    main()
