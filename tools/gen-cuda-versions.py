#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes src/sys/driver/cuda_proc_versions.h: for every driver function, the symbol
that cuGetProcAddress hands out at each CUDA version, one X-macro line each.

    tools/gen-cuda-versions.py [--include DIR] [--symbols CUDA_SYMBOLS_H] [--out FILE | --check FILE]

The versions come from the toolkit's function pointer typedefs
(cudaTypedefs.h, cudaProfilerTypedefs.h, cudaGLTypedefs.h, cudaEGLTypedefs.h,
cudaVDPAUTypedefs.h), the older ones of their __CUDA_API_VERSION_INTERNAL
sections included and the Windows-only ones (_WIN32) left out. Each typedef
PFN_<base>_v<V> is a version of <base>: the CUDA version V at which that
signature appeared; PFN_<base>_v<V>_ptds or _ptsz is its per-thread default
stream form from V on.

The rule that names the symbol of a version:
  - the default versions of a base, in ascending order, are the symbols
    <base>, <base>_v2, <base>_v3, ...: the k-th is <base> for k = 1 and
    <base>_v<k> after it (cuCtxCreate: 2000 cuCtxCreate, 3020 cuCtxCreate_v2,
    11040 cuCtxCreate_v3, 12050 cuCtxCreate_v4);
  - a per-thread version V is the symbol of the default version in force at
    V with the typedef's suffix (cuMemcpyHtoD_v7000_ptds: at 7000 the default
    is cuMemcpyHtoD_v2, so cuMemcpyHtoD_v2_ptds).
The generator checks the rule: every symbol it names must be a symbol of the
driver (src/sys/driver/cuda_symbols.h, or a declaration of the graphics headers),
and where cuda.h or a graphics header #defines a base to a versioned symbol
of its own, the newest version must name that symbol. cuda.h's one rename
to another base (cuGraphInstantiate to cuGraphInstantiateWithFlags) is a
source-level alias: the table keeps cuGraphInstantiate's own versions.

--check FILE exits 1 when FILE differs from what would be written, 77 where
the toolkit's headers are missing (the test suite runs it). The build never
runs this script: the table is committed.
"""
import argparse
import importlib.util
import os
import re
import sys

# tools/gen-cuda-symbols.py, for its check of a generated file against the toolkit.
_spec = importlib.util.spec_from_file_location(
    "gen_cuda_symbols", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen-cuda-symbols.py"))
symbols_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(symbols_tool)

DEFAULT_INCLUDE = "/usr/local/cuda/include"
TYPEDEF_HEADERS = ["cudaTypedefs.h", "cudaProfilerTypedefs.h", "cudaGLTypedefs.h", "cudaEGLTypedefs.h",
                   "cudaVDPAUTypedefs.h"]
API_HEADERS = ["cuda.h", "cudaProfiler.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h"]
# cuda.h's #define of a base to another base: an alias for programs, not a version.
ALIASES = {"cuGraphInstantiate": "cuGraphInstantiateWithFlags"}
PFN = re.compile(r"\bPFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\)")
DEFINE = re.compile(r"^\s*#\s*define\s+(cu\w+)\s+(?:__CUDA_API_PT(DS|SZ)\(\s*)?(cu\w+)", re.M)


def outside_windows(text):
    """The text without what `#ifdef _WIN32` (or `#if defined(_WIN32)`) keeps for Windows only."""
    out, stack = [], []
    for line in text.splitlines():
        d = re.match(r"\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b(.*)", line)
        if d:
            kind, rest = d.group(1), d.group(2)
            if kind in ("ifdef", "ifndef", "if"):
                windows = "_WIN32" in rest and kind != "ifndef" and "!" not in rest
                stack.append(windows)
            elif kind in ("else", "elif") and stack:
                stack[-1] = False
            elif kind == "endif" and stack:
                stack.pop()
            continue
        if not any(stack):
            out.append(line)
    return "\n".join(out)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def versions(include):
    """base -> {"": set of default versions, "_ptds"/"_ptsz": set of per-thread ones}."""
    found = {}
    for header in TYPEDEF_HEADERS:
        for m in PFN.finditer(outside_windows(read(os.path.join(include, header)))):
            found.setdefault(m.group(1), {}).setdefault(m.group(3) or "", set()).add(int(m.group(2)))
    return found


def driver_symbols(include, symbols_h):
    """The symbols the rule may name, and the headers' #defines of a base to a symbol."""
    names = set(re.findall(r"^GPU__CUDA_SYMBOL\((\w+),", read(symbols_h), re.M))
    defines = {}
    for header in API_HEADERS:
        text = outside_windows(read(os.path.join(include, header)))
        for m in DEFINE.finditer(text):
            defines[m.group(1)] = m.group(3)
            if header != "cuda.h":
                names.add(m.group(3))
                if m.group(2):
                    names.add(f"{m.group(3)}_pt{m.group(2).lower()}")
        if header not in ("cuda.h", "cudaProfiler.h"):
            names |= set(re.findall(r"CUresult\s+CUDAAPI\s+(cu\w+)\s*\(", text))
    return names, defines


def table(include, symbols_h):
    """Rows (base, version, per_thread, symbol), and the rule's failures."""
    found = versions(include)
    names, defines = driver_symbols(include, symbols_h)
    rows, problems = [], []
    for base in sorted(found):
        forms = found[base]
        default = sorted(forms.get("", ()))
        symbols = [base if k == 0 else f"{base}_v{k + 1}" for k in range(len(default))]
        for v, s in zip(default, symbols):
            rows.append((base, v, 0, s))
        target = defines.get(base)
        if target and target != base and ALIASES.get(base) != target and (not symbols or symbols[-1] != target):
            problems.append(f"{base}: the header names {target}, the rule {symbols[-1] if symbols else 'nothing'}")
        for suffix in ("_ptds", "_ptsz"):
            for v in sorted(forms.get(suffix, ())):
                current = [s for dv, s in zip(default, symbols) if dv <= v]
                if not current:
                    problems.append(f"{base}: per-thread version {v} before its first default one")
                    continue
                rows.append((base, v, 1, current[-1] + suffix))
    for base, v, pt, s in rows:
        if s not in names:
            problems.append(f"{base} at {v}: the rule names {s}, which the driver does not declare")
    return rows, problems


def render(include, rows):
    bases = len({r[0] for r in rows})
    cuda_h = read(os.path.join(include, "cuda.h"))
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", cuda_h)
    v = int(m.group(1)) if m else 0
    lines = [
        "/* SPDX-License-Identifier: MIT */",
        "/*",
        " * What cuGetProcAddress hands out: for every driver function (its base",
        " * name) and every CUDA version at which its signature changed, the symbol",
        " * of the driver that has that signature. Generated by",
        " * tools/gen-cuda-versions.py from the typedef headers of CUDA",
        f" * {v // 1000}.{v % 1000 // 10}; edit by running it, never by hand. Its docstring gives the",
        " * rule that names each symbol.",
        " *",
        " *   GPU__CUDA_PROC(base, version, per_thread, symbol)",
        " *",
        " * Asked for base at version V, the driver answers with the row of the",
        " * newest version <= V (VERSION_NOT_SUFFICIENT below the first); asked for",
        " * the per-thread default stream, with the newest per_thread row <= V where",
        " * there is one, else as without. Rows are sorted by base (strcmp order),",
        " * then per_thread, then version.",
        " *",
        f" * {bases} base names, {len(rows)} rows.",
        " *",
        " * No include guard, on purpose: define GPU__CUDA_PROC, include, undefine.",
        " */",
    ]
    for base, ver, pt, sym in rows:
        lines.append(f"GPU__CUDA_PROC({base}, {ver}, {pt}, {sym})")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--include", default=DEFAULT_INCLUDE)
    ap.add_argument("--symbols", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src",
                                                      "sys", "driver", "cuda_symbols.h"))
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--out")
    group.add_argument("--check")
    a = ap.parse_args()
    for header in TYPEDEF_HEADERS + API_HEADERS:
        path = os.path.join(a.include, header)
        if not os.path.exists(path):
            print(f"{path}: not found", file=sys.stderr)
            sys.exit(77 if a.check else 2)
    rows, problems = table(a.include, a.symbols)
    if problems:
        print("the version rule does not hold:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        sys.exit(1)
    rows.sort(key=lambda r: (r[0].encode(), r[2], r[1]))
    text = render(a.include, rows)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
        return
    symbols_tool.check(a.check, text, r"^GPU__CUDA_PROC\((.*)\)$", f"tools/gen-cuda-versions.py from {a.include}")
    print(f"{a.check}: {len(rows)} rows, the same as the toolkit's")


if __name__ == "__main__":
    main()
