#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes src/sys/driver/cuda_symbols.h: every function symbol of the CUDA driver
library, one X-macro line each, for libgpushim-cuda's forwarders.

    tools/gen-cuda-symbols.py [--stub LIBCUDA] [--header CUDA_H ...] [--out FILE | --check FILE]

The list is the union of
  - the function symbols that the toolkit's stub libcuda.so exports, and
  - every driver function a program compiled against each header given
    (cuda.h, cudaProfiler.h and the OpenGL, EGL and VDPAU interop headers by
    default, which the stub leaves out) can reference: its declarations
    preprocessed as a program sees them, with
    CUDA_API_PER_THREAD_DEFAULT_STREAM (the _ptsz/_ptds names) and with the
    header's internal versioning (the older _vN names),
less cuGetProcAddress_v2_ptsz, which cuda.h defines static inline itself.

Each line is GPU__CUDA_SYMBOL(name, kinds, params): `params` the parameter
names as cuda.h spells them, `kinds` one character a parameter saying how
the x86-64 and AArch64 calling conventions pass it and how a trace prints it:
  i  a signed integer of 32 bits or fewer     u  an unsigned one, or an enum
  l  a signed 64-bit integer                  z  an unsigned 64-bit integer
  x  an unsigned long long: CUdeviceptr, an address (a trace prints it in hex)
  p  a pointer, array or handle               f  float       d  double
  s  a struct or union passed by value (a trace stops reading arguments there)
A symbol no header given declares has kinds "?" and params "".

--check FILE exits 1 when FILE differs from what would be written (the
test suite runs it where a toolkit is installed). The build itself never runs
this script: the list is committed, so the build needs no CUDA.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys

DEFAULT_INCLUDE = "/usr/local/cuda/include"
DEFAULT_HEADERS = ("cuda.h", "cudaProfiler.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h")
# The OpenGL, EGL and VDPAU types the interop headers' functions take, for a machine without those headers.
INTEROP_INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "interop-include")
SKIP = {"cuGetProcAddress_v2_ptsz"}  # cuda.h's own static inline function, never exported


def elf_functions(path):
    """The defined global function symbols of an ELF64 shared library's .dynsym."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for sh in sections:
        if sh[1] != 11:  # SHT_DYNSYM
            continue
        strtab = sections[sh[6]]
        count = sh[5] // sh[9]
        for i in range(1, count):
            st_name, st_info, _, st_shndx, _, _ = struct.unpack_from("<IBBHQQ", data, sh[4] + i * sh[9])
            binding, kind = st_info >> 4, st_info & 0xF
            if kind == 2 and binding in (1, 2) and st_shndx != 0:  # STT_FUNC, GLOBAL or WEAK, defined
                start = strtab[4] + st_name
                names.add(data[start:data.index(b"\0", start)].decode())
    return names


def preprocess(header, defines):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        sys.exit("no C compiler to preprocess cuda.h with (set CC)")
    args = [cc, "-E", "-P", "-x", "c", "-I", os.path.dirname(header), "-I", INTEROP_INCLUDE,
            "-include", "cuda.h", "-include", "vdpau/vdpau.h"] + ["-D" + d for d in defines] + [header]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def statements(text):
    """Top-level statements: split at ';' outside braces and parentheses."""
    depth, start = 0, 0
    for i, c in enumerate(text):
        if c in "{(":
            depth += 1
        elif c in "})":
            depth -= 1
        elif c == ";" and depth == 0:
            yield " ".join(text[start:i].split())
            start = i + 1


BUILTIN = {
    "int": "i", "signed": "i", "short": "i", "char": "i", "signed char": "i", "short int": "i",
    "unsigned": "u", "unsigned int": "u", "unsigned short": "u", "unsigned char": "u", "uint32_t": "u",
    "uint16_t": "u", "uint8_t": "u", "int32_t": "i", "int16_t": "i", "int8_t": "i",
    "long": "l", "long long": "l", "long int": "l", "long long int": "l", "int64_t": "l",
    "unsigned long": "z", "unsigned long long": "x", "unsigned long int": "z", "size_t": "z", "uint64_t": "z",
    "unsigned long long int": "x", "float": "f", "double": "d", "_Bool": "u", "bool": "u",
}
QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "register"}


class Types:
    """What each typedef of the preprocessed header is, as far as passing it goes."""

    def __init__(self):
        self.kinds = {}

    def add(self, stmt):
        body = stmt[len("typedef "):]
        m = re.match(r"(struct|union|enum)\s*(\w+)?\s*(\{.*\})?\s*(.*)$", body)
        if m:
            tag_kind = "u" if m.group(1) == "enum" else "s"
            for decl in m.group(4).split(","):
                decl = decl.strip()
                name = re.findall(r"\w+", decl)
                if name:
                    self.kinds[name[-1]] = "p" if ("*" in decl or "[" in decl) else tag_kind
            return
        fm = re.search(r"\(\s*\w*\s*\*\s*(\w+)\s*\)\s*\(", body)  # a function pointer: RET (CB *NAME)(...)
        if fm:
            self.kinds[fm.group(1)] = "p"
            return
        dm = re.match(r"(.*?)(\**)\s*(\w+)\s*(\[.*\])?$", body)
        if dm:
            base, stars, name, array = dm.groups()
            self.kinds[name] = "p" if (stars or array) else self.of_base(base)

    def of_base(self, base):
        words = [w for w in base.replace("*", " ").split() if w not in QUALIFIERS]
        text = " ".join(words)
        if text in BUILTIN:
            return BUILTIN[text]
        if len(words) == 2 and words[0] in ("struct", "union"):
            return "s"
        if len(words) == 2 and words[0] == "enum":
            return "u"
        if len(words) == 1 and words[0] in self.kinds:
            return self.kinds[words[0]]
        return None


def parameter(types, text):
    """(kind, name) of one parameter's declaration."""
    text = text.strip()
    fm = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", text)  # a function pointer parameter
    if fm:
        return "p", fm.group(1)
    m = re.match(r"(.*?)(\w+)\s*(\[[^\]]*\])?$", text)
    base, name, array = (m.group(1), m.group(2), m.group(3)) if m else (text, "", None)
    if not base.strip() or base.strip() in QUALIFIERS:  # a type with no name: "CUdevice"
        base, name = text, ""
    if "*" in base or array:
        return "p", name
    kind = types.of_base(base)
    if kind is None:
        sys.exit(f"cannot classify parameter '{text}'")
    return kind, name


def declarations(text, types):
    """name -> (kinds, params) for every CUresult function the text declares (not defines)."""
    found = {}
    for stmt in statements(text):
        if stmt.startswith("typedef "):
            types.add(stmt)
            continue
        # A deprecated function (the interop headers mark theirs) is still declared and exported.
        m = re.match(r"(?:__attribute__\s*\(\(\s*deprecated\s*\)\)\s*)?(?:extern\s+)?CUresult\s+(cu\w+)\s*\((.*)\)$",
                     stmt)
        if not m:
            continue
        params = [p for p in split_params(m.group(2))]
        if params == ["void"] or params == []:
            found[m.group(1)] = ("", "")
            continue
        parsed = [parameter(types, p) for p in params]
        found[m.group(1)] = ("".join(k for k, _ in parsed), ", ".join(n for _, n in parsed))
    return found


def split_params(text):
    depth, start, out = 0, 0, []
    for i, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    if text.strip():
        out.append(text[start:].strip())
    return out


def cuda_version(header):
    with open(header, encoding="utf-8", errors="replace") as f:
        m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", f.read())
    return int(m.group(1)) if m else 0


def render(stub, headers):
    exported = {n for n in elf_functions(stub) if n.startswith("cu")} if stub else set()
    protos, referenced = {}, set()
    versions = []
    for header in headers:
        versions.append(cuda_version(header))
        # A program's view first, so that its prototypes win over the internal section's older ones,
        # which name the older revisions the driver still exports (cuGLCtxCreate beside cuGLCtxCreate_v2).
        for defines in ([], ["CUDA_API_PER_THREAD_DEFAULT_STREAM"], ["__CUDA_API_VERSION_INTERNAL"]):
            found = declarations(preprocess(header, defines), Types())
            for name, proto in found.items():
                protos.setdefault(name, proto)
                referenced.add(name)
    names = sorted((exported | referenced) - SKIP)
    unexported = sorted(referenced - exported - SKIP) if stub else []
    known = sum(1 for n in names if n in protos)

    def ver(v):
        return f"{v // 1000}.{v % 1000 // 10}"

    lines = [
        "/* SPDX-License-Identifier: MIT */",
        "/*",
        " * Every function symbol of the CUDA driver library (libcuda.so.1), one line",
        " * each. Generated by tools/gen-cuda-symbols.py; edit by running it, never by hand.",
        " *",
        " *   GPU__CUDA_SYMBOL(name, kinds, params)",
        " *",
        " * kinds: one character a parameter, how it is passed (the generator's",
        ' * docstring says which); "?" where no header declared the symbol.',
        " * params: the parameters' names, as cuda.h spells them.",
        " *",
        f" * From: {os.path.basename(stub) if stub else 'no stub library'} ({len(exported)} function symbols)",
    ]
    for header, v in zip(headers, versions):
        what = f" of CUDA {ver(v)}" if v else ""
        lines.append(f" * and {os.path.basename(header)}{what}, with and without per-thread default streams.")
    lines += [
        f" * {len(names)} symbols, {known} with a prototype; not exported by the stub: "
        + (", ".join(unexported) if unexported else "none") + ".",
        " *",
        " * No include guard, on purpose: define GPU__CUDA_SYMBOL, include, undefine.",
        " */",
    ]
    for n in names:
        kinds, params = protos.get(n, ("?", ""))
        lines.append(f'GPU__CUDA_SYMBOL({n}, "{kinds}", "{params}")')
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stub", default="/usr/local/cuda/lib64/stubs/libcuda.so")
    ap.add_argument("--header", action="append")
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--out")
    group.add_argument("--check")
    a = ap.parse_args()
    headers = a.header or [os.path.join(DEFAULT_INCLUDE, h) for h in DEFAULT_HEADERS]
    for path in [a.stub] + headers:
        if not os.path.exists(path):
            print(f"{path}: not found", file=sys.stderr)
            sys.exit(77 if a.check else 2)
    text = render(a.stub, headers)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
        return
    check(a.check, text, r"GPU__CUDA_SYMBOL\((\w+)", f"tools/gen-cuda-symbols.py from {a.stub} and {', '.join(headers)}")
    print(f"{a.check}: {text.count('GPU__CUDA_SYMBOL(cu')} symbols, the same as the toolkit's")


def check(path, text, row, source):
    """Exits 1, naming the rows (the regex `row`'s group) on each side only, when the file at `path` is not `text`."""
    with open(path) as f:
        old = f.read()
    if old == text:
        return
    new_rows = set(re.findall(row, text, re.M))
    old_rows = set(re.findall(row, old, re.M))
    print(f"{path} differs from what {source} writes")
    print("  only in the toolkit:", "; ".join(sorted(new_rows - old_rows)) or "-")
    print("  only in the file:", "; ".join(sorted(old_rows - new_rows)) or "-")
    sys.exit(1)


if __name__ == "__main__":
    main()
