#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No import cycle in src/: in libgpushim.a, which object's undefined symbols
each other object defines (nm), and no two objects that reach each other.
src/sys/ may use nothing above it but status.c (the thread's error), and status.c
nothing of src/sys/. Prints each cycle or layering break found; exit 1 if any. A module's assembly
half (X_<cpu>.S beside X.c) counts as part of X.c: the two call each other.

usage: check-cycles.py libgpushim.a
"""
import collections
import re
import subprocess
import sys


def graph(archive):
    defined, needed = {}, collections.defaultdict(set)
    member = None
    out = subprocess.run(['nm', '-A', archive], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        # "libgpushim.a:stream.c.o:0000000000000000 T gpu_stream_create" or "...:o:                 U memset"
        head, _, rest = line.rpartition(':')
        member = re.sub(r'_(x86_64|aarch64)\.S\.o$', '.c.o', head.split(':')[-1])
        fields = rest.split()
        if len(fields) == 3 and fields[1] in 'TDBRCVW':
            defined[fields[2]] = member
        elif len(fields) == 2 and fields[0] == 'U':
            needed[member].add(fields[1])
    uses = collections.defaultdict(set)
    for m, symbols in needed.items():
        for s in symbols:
            if s in defined and defined[s] != m:
                uses[m].add(defined[s])
    return uses


def reaches(uses, a, b):
    seen, todo = set(), [a]
    while todo:
        v = todo.pop()
        for w in uses.get(v, ()):
            if w == b:
                return True
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return False


def main():
    uses = graph(sys.argv[1])
    objects = sorted(set(uses) | {w for ws in uses.values() for w in ws})
    bad = 0
    for i, a in enumerate(objects):
        for b in objects[i + 1:]:
            if reaches(uses, a, b) and reaches(uses, b, a):
                print(f'cycle: {a} and {b} reach each other')
                bad += 1
    for a in objects:
        if a.startswith('sys_'):
            for b in sorted(uses.get(a, ())):
                if not b.startswith('sys_') and not b.startswith('status.c'):
                    print(f'layering: {a} (src/sys) uses {b}')
                    bad += 1
    if bad:
        return 1
    print(f'{len(objects)} objects, no import cycle, src/sys uses only status.c above it')
    return 0


if __name__ == '__main__':
    sys.exit(main())
