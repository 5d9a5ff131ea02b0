#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpushim-run (tools/) on each kind of program, in an environment with no gpushim setting of its own:

    check-run-tool.py driver GPUSHIM_RUN LCUDA_APP CTYPES_SCRIPT   (CTYPES_SCRIPT '' in a sanitized build)
        a program linked with -lcuda (tests/cuda/app.c, `run` checks the data it copies) and a Python
        script that opens libcuda.so.1 through ctypes, on the fake (a profile chosen); the settings of
        --print-env, evaluated by a shell or read as dotenv lines, run them the same way; without --fake,
        a machine without a driver gives the program a CUDA error that says so, never a loader error;
        the exit status is the program's; usage errors exit 2, a program that cannot run 126 or 127.
    check-run-tool.py gpu GPUSHIM_RUN GPUSHIM_INFO LCUDA_APP CTYPES_SCRIPT
    check-run-tool.py gpu-cudart GPUSHIM_RUN GPUSHIM_INFO SHARED_PROGRAM
        the same programs without --fake on a GPU: each runs on the machine's driver, which gpushim-run
        names; a skip (77) without one.
    check-run-tool.py cudart GPUSHIM_RUN SHARED_PROGRAM STATIC_PROGRAM [RPATH_PROGRAM CUDART_DIR]
        a program built with nvcc -cudart=shared runs on the fake through libgpushim-cudart; one built
        with nvcc's default static runtime is named, with the fix, before it runs, stripped or not; one
        whose DT_RPATH names NVIDIA's runtime, which LD_LIBRARY_PATH=CUDART_DIR does not override, gets
        libgpushim-cudart all the same.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

CTYPES_NAMES = ["NVIDIA A100-SXM4-80GB", "NVIDIA L4"]


def fail(msg):
    sys.exit(msg)


def clean_env():
    """The caller's environment less anything that would find gpushim or a driver for the program."""
    return {k: v for k, v in os.environ.items()
            if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD") and not k.startswith("GPUSHIM_")}


def run(cmd, env=None, **kw):
    return subprocess.run(cmd, env=env if env is not None else clean_env(), capture_output=True, text=True,
                          timeout=120, **kw)


def fake_of(tool):
    """The fake driver gpushim-run names in its settings."""
    r = run([tool, "--fake", "--print-env=dotenv"])
    return dict(line.split("=", 1) for line in r.stdout.splitlines())["GPUSHIM_LIBCUDA"]


def own_lines(r):
    return [line for line in r.stderr.splitlines() if line.startswith("gpushim-run:")]


def check_one_line(what, r, driver, runtime):
    lines = own_lines(r)
    if len(lines) != 1 or "driver: " + driver not in lines[0] or "; runtime: " not in lines[0] or \
            runtime not in lines[0].split("; runtime: ", 1)[1]:
        fail(f"{what}: expected one gpushim-run line naming driver {driver!r} and runtime {runtime!r}\n{r.stderr}")


def check_ctypes(what, r):
    if r.returncode != 0:
        fail(f"{what}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    got = json.loads(r.stdout.strip().splitlines()[-1])
    if got != {"version": 13000, "count": 2, "names": CTYPES_NAMES}:
        fail(f"{what}: the fake's a100 and l4 were expected, the script saw {got}")


def check_app(what, r):
    """tests/cuda/app.c's `run` on the fake's a100 and l4: it names the first device and counts them."""
    if r.returncode != 0 or f"{CTYPES_NAMES[0]}, driver 13000, 2 device(s)" not in r.stdout:
        fail(f"{what}: exit {r.returncode}, expected the fake's a100 and l4\n{r.stdout}{r.stderr}")


def driver(tool, app, script):
    python = sys.executable
    # (a) -lcuda, on the fake.
    r = run([tool, "--fake", "--", app, "run"])
    if r.returncode != 0:
        fail(f"-lcuda program on the fake: exit {r.returncode}\n{r.stdout}{r.stderr}")
    check_one_line("-lcuda program", r, "gpushim's fake driver", "none in the program")
    # -q: nothing of gpushim-run's own.
    r = run([tool, "-q", "--fake", app, "run"])
    if r.returncode != 0 or own_lines(r):
        fail(f"-q: exit {r.returncode}, lines {own_lines(r)}")
    # (c) ctypes, on the fake with two profiles: the names are the profiles' boards.
    # (An empty SCRIPT: a sanitized build, whose libraries an unsanitized Python cannot load.)
    if script:
        r = run([tool, "--fake=a100,l4", python, script])
        check_ctypes("ctypes script", r)
        check_one_line("ctypes script", r, "gpushim's fake driver", "libgpushim-cudart")
    # (d) --print-env: a shell evaluates the lines, then the programs run on the fake without gpushim-run.
    for program in [[app, "run"]] + ([[python, script]] if script else []):
        r = run(["sh", "-c", 'eval "$("$0" --fake=a100,l4 --print-env)" && exec "$@"', tool] + program)
        if program[0] == python:
            check_ctypes("--print-env, evaluated", r)
        else:
            check_app("--print-env, evaluated", r)
    # The dotenv lines, NAME=value as $GITHUB_ENV takes them, with a value that needs quoting in a shell.
    env = clean_env()
    env["LD_LIBRARY_PATH"] = "/nonexistent/it's here"
    r = run([tool, "--fake=a100,l4", "--print-env=dotenv"], env)
    lines = r.stdout.splitlines()
    settings = dict(line.split("=", 1) for line in lines)
    if r.returncode != 0 or sorted(settings) != ["GPUSHIM_FAKE_DEVICE", "GPUSHIM_LIBCUDA", "LD_LIBRARY_PATH"] or \
            not settings["LD_LIBRARY_PATH"].endswith(":/nonexistent/it's here"):
        fail(f"--print-env=dotenv: exit {r.returncode}\n{r.stdout}{r.stderr}")
    check_app("--print-env=dotenv, read", run([app, "run"], dict(clean_env(), **settings)))
    if script:
        check_ctypes("--print-env=dotenv, read", run([python, script], dict(clean_env(), **settings)))
    r = run(["sh", "-c", 'eval "$("$0" --fake --print-env)" && printf %s "$LD_LIBRARY_PATH"', tool], env)
    if r.returncode != 0 or r.stdout != settings["LD_LIBRARY_PATH"]:
        fail(f"--print-env's quoting: {r.stdout!r}, expected {settings['LD_LIBRARY_PATH']!r}\n{r.stderr}")
    # Without --fake: the machine's driver. Where there is none, the program's cuInit says so: no loader error.
    r = run([tool, "--", app, "run"])
    lines = own_lines(r)
    if len(lines) == 1 and "driver: none" in lines[0]:
        if r.returncode == 0 or "cannot open shared object file" in r.stderr or \
                "CUDA_ERROR_STUB_LIBRARY" not in r.stderr or "no CUDA driver could be loaded" not in r.stderr:
            fail(f"no driver: expected the program's cuInit to fail, saying why\n{r.stdout}{r.stderr}")
    elif len(lines) != 1 or r.returncode != 0:
        fail(f"on the machine's driver: exit {r.returncode}\n{r.stdout}{r.stderr}")
    # The exit status is the program's, a signal's too; a program that cannot run is said to be so.
    for code in (0, 3, 86):
        r = run([tool, "-q", "sh", "-c", f"exit {code}"])
        if r.returncode != code:
            fail(f"exit {code}: gpushim-run exited {r.returncode}\n{r.stderr}")
    r = run([tool, "-q", "sh", "-c", "kill -TERM $$"])
    if r.returncode != -15:
        fail(f"a program killed by SIGTERM: gpushim-run ended with {r.returncode}")
    with tempfile.TemporaryDirectory() as d:
        not_runnable = os.path.join(d, "data")
        with open(not_runnable, "w") as f:
            f.write("not a program\n")
        for program, code, text in ((os.path.join(d, "missing"), 127, "No such file"),
                                    (not_runnable, 126, "Permission denied"),
                                    ("gpushim-test-no-such-program", 127, "No such file")):
            r = run([tool, "--fake", program])
            if r.returncode != code or f"gpushim-run: {program}: {text}" not in r.stderr:
                fail(f"{program}: expected exit {code} and a message\n{r.returncode} {r.stderr}")
    # Usage errors: 2, and the usage; --help: 0.
    for args in ([], ["--fake"], ["--bogus", app], ["--fake="], ["--fake=h200;x", app], ["--fake=a100,", app], ["--fake=h300", app], ["--fake=a100,h300", app],
                 ["--print-env", app], ["--print-env=json"], ["-x"]):
        r = run([tool] + args)
        if r.returncode != 2 or "usage: gpushim-run" not in r.stderr or r.stdout:
            fail(f"gpushim-run {args}: expected a usage error (2), got {r.returncode}\n{r.stdout}{r.stderr}")
    r = run([tool, "--help"])
    if r.returncode != 0 or "usage: gpushim-run" not in r.stdout:
        fail(f"--help: {r.returncode}\n{r.stdout}{r.stderr}")
    return 0


def corrupted(program):
    """Copies of an ELF program whose section headers lie (offsets, sizes, links and counts past the file's end,
    a table cut short): the loader does not read them, gpushim-run does, as untrusted input."""
    data = open(program, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, = struct.unpack_from("<H", data, 0x3C)
    huge = 0xFFFFFFFFFFFFFFF0
    copies = {"cut": data[:shoff + 64 * shnum // 2]}
    copies["shoff"] = data[:0x28] + struct.pack("<Q", huge) + data[0x30:]
    copies["shnum"] = data[:0x3C] + struct.pack("<H", 0xFFFF) + data[0x3E:]
    for field, offset, size in (("offset", 24, 8), ("size", 32, 8), ("link", 40, 4), ("entsize", 56, 8)):
        b = bytearray(data)
        for i in range(shnum):
            at = shoff + 64 * i + offset
            b[at:at + size] = (huge if size == 8 else 0xFFFFFFFF).to_bytes(size, "little")
        copies[field] = bytes(b)
    # Every string table's size 1: each name an offset past its end.
    b = bytearray(data)
    for i in range(shnum):
        at = shoff + 64 * i
        if struct.unpack_from("<I", b, at + 4)[0] == 3:  # SHT_STRTAB
            b[at + 32:at + 40] = (1).to_bytes(8, "little")
    copies["strtab"] = bytes(b)
    return copies


def cudart(tool, shared, static, rpath=None, cudart_dir=None):
    if rpath:
        # LD_LIBRARY_PATH alone loses to the program's DT_RPATH: NVIDIA's runtime loads, and fails on the fake.
        env = dict(clean_env(), LD_LIBRARY_PATH=cudart_dir, GPUSHIM_LIBCUDA=fake_of(tool))
        r = run([rpath], env)
        if r.returncode == 0:
            fail(f"{rpath} ran on the fake with LD_LIBRARY_PATH={cudart_dir}: expected its DT_RPATH's runtime")
        r = run([tool, "--fake", rpath])
        if r.returncode != 0:
            fail(f"a program with a DT_RPATH to NVIDIA's runtime: exit {r.returncode}\n{r.stdout}{r.stderr}")
        check_one_line("DT_RPATH program", r, "gpushim's fake driver", "libgpushim-cudart (")
    r = run([tool, "--fake", shared])
    if r.returncode != 0:
        fail(f"shared-runtime program on the fake: exit {r.returncode}\n{r.stdout}{r.stderr}")
    check_one_line("shared-runtime program", r, "gpushim's fake driver", "libgpushim-cudart (")
    if "warning" in r.stderr and "static" in r.stderr:
        fail(f"a shared-runtime program was said to hold the static runtime\n{r.stderr}")
    programs = [static]
    with tempfile.TemporaryDirectory() as d:
        objcopy = shutil.which("objcopy")
        if objcopy:
            stripped = os.path.join(d, "static-stripped")
            subprocess.run([objcopy, "--strip-all", static, stripped], check=True)
            programs.append(stripped)
        for program in programs:
            for quiet in ([], ["-q"]):
                r = run([tool] + quiet + ["--fake", program])
                lines = r.stderr.splitlines()
                warning = lines[0] if lines else ""
                if not warning.startswith(f"gpushim-run: warning: {program} has NVIDIA's static CUDA runtime") or \
                        "-cudart=shared" not in warning or "libgpushim-cudart" not in warning:
                    fail(f"{program} {quiet}: expected the static runtime named first, with the fix\n{r.stderr}")
                if r.returncode == 0:
                    fail(f"{program}: NVIDIA's static runtime succeeded on the fake: expected it to fail")
                if len(own_lines(r)) != (1 if quiet else 2):
                    fail(f"{program} {quiet}: gpushim-run's lines: {own_lines(r)}")
        # Lying section headers: the shared-runtime program still runs, on libgpushim-cudart through
        # LD_LIBRARY_PATH; gpushim-run reads no byte outside the file (the ASan build's run says so).
        for name, data in corrupted(shared).items():
            path = os.path.join(d, "shared-" + name)
            with open(path, "wb") as f:
                f.write(data)
            os.chmod(path, 0o755)
            r = run([tool, "--fake", path])
            if r.returncode != 0 or len(own_lines(r)) != 1 or "Sanitizer" in r.stderr:
                fail(f"{name}: a program with lying section headers: exit {r.returncode}\n{r.stderr}")
    return 0


def gpu(tool, info, commands):
    """Without --fake, on a machine with a GPU: each program runs on its driver through gpushim's libraries,
    and gpushim-run names that driver; 77 (a skip) where gpushim-info finds none usable."""
    if run([info, "--no-self-test"]).returncode != 0:
        print("no usable CUDA driver here: skipped")
        return 77
    for command in commands:
        r = run([tool, "--"] + command)
        if r.returncode != 0:
            fail(f"{command} on the GPU: exit {r.returncode}\n{r.stdout}{r.stderr}")
        check_one_line(f"{command} on the GPU", r, "", "")
        if "driver: none" in own_lines(r)[0] or "through libgpushim-cuda" not in own_lines(r)[0]:
            fail(f"{command}: gpushim-run did not name the machine's driver: {own_lines(r)}")
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "driver":
        return driver(*sys.argv[2:])
    if len(sys.argv) in (5, 7) and sys.argv[1] == "cudart":
        return cudart(*sys.argv[2:])
    if len(sys.argv) == 6 and sys.argv[1] == "gpu":
        return gpu(sys.argv[2], sys.argv[3], [[sys.argv[4], "run"]] + ([[sys.executable, sys.argv[5]]] if sys.argv[5] else []))
    if len(sys.argv) == 5 and sys.argv[1] == "gpu-cudart":
        return gpu(sys.argv[2], sys.argv[3], [[sys.argv[4]]])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
