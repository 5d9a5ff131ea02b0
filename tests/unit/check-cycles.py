#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No loop and no upward arrow among a folder's files.

usage: check-cycles.py [--archive LIB.a] --root DIR [--include-dir DIR]... [--layer NAME=GLOB[,GLOB...]]...
                       [--layer-dirs DIR[,DIR...]] [--no-top] [--ignore GLOB]...

The files are the .c, .h and .S files under --root. An arrow goes from a file
to one it uses:
  - includes: `#include "x"`, resolved against the including file's folder,
    then against each --include-dir (a folder relative to --root, as the
    build's -I), then against --root and each folder above it up to the
    repository's top;
    an include found nowhere there (a system or public header) or outside
    --root draws no arrow;
  - with --archive (the library built from those files): calls, an object's
    undefined symbol that another object defines (nm), drawn between their
    source files (a module's assembly half, X_<cpu>.S beside X.c, counts as
    X.c: the two call each other); and a header's inline functions and
    macros that name a symbol another file defines, so that a header is
    charged with the calls it makes in its includers. What a header declares
    itself (a prototype, an extern) is its own interface, whichever file
    defines it: calling that draws no arrow, nor does calling its own source
    (X.h, X.c).

Layers are listed lowest first; their GLOBs are matched against paths
relative to --root (fnmatch: `*` also crosses `/`); a file matching none is in
the top layer. --layer-dirs names folders of --root, lowest first, each a layer
of that name holding the files under it (DIR=DIR/*), after the --layer ones.
With --no-top a file in no layer (one outside the layers' folders) is an error.
A file may use its own layer or a lower one. --ignore leaves
the matching files out of the graph.

Prints every loop (each arrow that lies on a loop, with the shortest loop
through it, as a path a -> b -> a) and every arrow from a lower layer to a
higher one, and exits 1 if there is any; otherwise prints the counts and
exits 0.
"""
import argparse
import collections
import fnmatch
import os
import re
import subprocess
import sys

SOURCES = ('.c', '.h', '.S')
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
CPU_HALF = re.compile(r'_(x86_64|aarch64)\.S$')
IDENTIFIER = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')


def repository_top(root):
    d = os.path.abspath(root)
    while True:
        if os.path.exists(os.path.join(d, '.git')):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return os.path.abspath(root)
        d = parent


def source_files(root, ignore):
    found = []
    for d, subdirs, names in os.walk(root):
        subdirs.sort()
        for name in sorted(names):
            if name.endswith(SOURCES):
                rel = os.path.relpath(os.path.join(d, name), root).replace(os.sep, '/')
                if not any(fnmatch.fnmatch(rel, g) for g in ignore):
                    found.append(rel)
    return found


def resolve(root, top, including, name, include_dirs=()):
    """The included file's path relative to root; '' outside root; None when not found."""
    tries = [os.path.join(os.path.dirname(os.path.join(root, including)), name)]
    tries += [os.path.join(root, d, name) for d in include_dirs]
    d = os.path.abspath(root)
    while True:
        tries.append(os.path.join(d, name))
        if d == top or os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    for t in tries:
        if os.path.isfile(t):
            rel = os.path.relpath(os.path.abspath(t), os.path.abspath(root))
            return '' if rel.startswith('..') else rel.replace(os.sep, '/')
    return None


def strip_comments(text):
    """The text without comments and the insides of string and character literals (lines kept)."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: '""' if m.group(0)[0] == '"' else
                  ("''" if m.group(0)[0] == "'" else '\n' * m.group(0).count('\n')),
                  text, flags=re.S)


def used_names(text):
    """The identifiers a header uses in function bodies and macro definitions, less those it declares."""
    names, declared = set(), set()
    depth = 0
    in_define = False
    for line in strip_comments(text).split('\n'):
        starts_define = re.match(r'\s*#\s*define\b', line) is not None
        directive = re.match(r'\s*#', line) is not None
        if starts_define or in_define:
            names.update(IDENTIFIER.findall(line))
        elif not directive:
            for m in re.finditer(r'[{}]|[A-Za-z_][A-Za-z0-9_]*', line):
                token = m.group(0)
                if token == '{':
                    depth += 1
                elif token == '}':
                    depth = max(depth - 1, 0)
                elif depth > 0:
                    names.add(token)
                else:
                    declared.add(token)
        in_define = (starts_define or in_define) and line.rstrip().endswith('\\')
    return names - declared


def own_source(path):
    """The source whose object a file's symbols end up in: X_<cpu>.S counts as X.c."""
    return CPU_HALF.sub('.c', path)


def archive_members(archive, files):
    """Each archive member's source file: the longest file path whose '_'-joined form ends its name."""
    flat = {f.replace('/', '_'): f for f in files if f.endswith(('.c', '.S'))}
    out = subprocess.run(['nm', '-A', archive], capture_output=True, text=True, check=True).stdout
    members, defined, needed = {}, {}, collections.defaultdict(set)
    for line in out.splitlines():
        # "libx.a:dir_name.c.o:0000000000000000 T symbol" or "libx.a:dir_name.c.o:                 U memset"
        head, _, rest = line.rpartition(':')
        member = head.split(':')[-1].rsplit('/', 1)[-1]  # a thin archive's members are paths
        if member not in members:
            stem = member[:-2] if member.endswith('.o') else member
            best = None
            for key, f in flat.items():
                if (stem == key or stem.endswith('_' + key)) and (best is None or len(key) > len(best[0])):
                    best = (key, f)
            members[member] = best[1] if best else None
        source = members[member]
        if source is None:
            continue
        source = own_source(source) if own_source(source) in files else source
        fields = rest.split()
        if len(fields) == 3 and fields[1] in 'TDBRCVWG':
            defined[fields[2]] = source
        elif len(fields) == 2 and fields[0] == 'U':
            needed[source].add(fields[1])
    return defined, needed


def build(args):
    root = args.root
    files = source_files(root, args.ignore)
    known = set(files)
    top = repository_top(root)
    arrows = {}  # (from, to) -> why
    include_count = 0
    for f in files:
        with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            to = resolve(root, top, f, name, args.include_dir)
            if to and to in known and to != f and (f, to) not in arrows:
                arrows[(f, to)] = 'includes'
                include_count += 1
    use_count = 0
    if args.archive:
        defined, needed = archive_members(args.archive, known)
        for f, symbols in needed.items():
            for s in sorted(symbols):
                to = defined.get(s)
                if to and to != f and (f, to) not in arrows:
                    arrows[(f, to)] = f'calls {s}'
                    use_count += 1
        for f in files:
            if not f.endswith('.h'):
                continue
            mine = f[:-2] + '.c'
            with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
                names = used_names(fh.read())
            for s in sorted(names):
                to = defined.get(s)
                if to and to != mine and (f, to) not in arrows:
                    arrows[(f, to)] = f'uses {s}'
                    use_count += 1
    return files, arrows, include_count, use_count


def components(nodes, succ):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(succ[start]))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ[w])))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def shortest_path(succ, start, goal, inside):
    prev, todo = {start: None}, collections.deque([start])
    while todo:
        v = todo.popleft()
        if v == goal:
            path = []
            while v is not None:
                path.append(v)
                v = prev[v]
            return path[::-1]
        for w in succ[v]:
            if w in inside and w not in prev:
                prev[w] = v
                todo.append(w)
    return None


def layer_of(path, layers):
    for i, (_, globs) in enumerate(layers):
        if any(fnmatch.fnmatch(path, g) for g in globs):
            return i
    return len(layers)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--archive')
    p.add_argument('--root', required=True)
    p.add_argument('--layer', action='append', default=[], metavar='NAME=GLOB[,GLOB...]')
    p.add_argument('--ignore', action='append', default=[], metavar='GLOB')
    p.add_argument('--include-dir', action='append', default=[], metavar='DIR')
    p.add_argument('--layer-dirs', action='append', default=[], metavar='DIR[,DIR...]')
    p.add_argument('--no-top', action='store_true')
    args = p.parse_args()
    layers = []
    for spec in args.layer:
        name, sep, globs = spec.partition('=')
        if not sep or not name or not globs:
            p.error(f'--layer {spec!r}: NAME=GLOB[,GLOB...]')
        layers.append((name, globs.split(',')))
    for spec in args.layer_dirs:
        for d in spec.split(','):
            if not d or not os.path.isdir(os.path.join(args.root, d)):
                p.error(f'--layer-dirs {spec!r}: {d!r} is not a folder of {args.root}')
            layers.append((d, [d + '/*']))
    names = [n for n, _ in layers] + ['top']

    files, arrows, include_count, use_count = build(args)
    succ = collections.defaultdict(list)
    for (a, b) in sorted(arrows):
        succ[a].append(b)

    bad = 0
    loops = set()
    for comp in components(sorted(files), succ):
        if len(comp) < 2:
            continue
        inside = set(comp)
        for a in sorted(comp):
            for b in succ[a]:
                if b not in inside:
                    continue
                back = shortest_path(succ, b, a, inside)
                cycle = [a] + back
                ring = cycle[:-1]
                k = ring.index(min(ring))
                loops.add(tuple(ring[k:] + ring[:k]))
    for ring in sorted(loops, key=lambda r: (len(r), r)):
        path = list(ring) + [ring[0]]
        why = '; '.join(f'{path[i]} {arrows[(path[i], path[i + 1])]}' for i in range(len(ring)))
        print(f'loop: {" -> ".join(path)}  ({why})')
        bad += 1

    for (a, b), why in sorted(arrows.items()):
        la, lb = layer_of(a, layers), layer_of(b, layers)
        if la < lb:
            print(f'upward: {a} [{names[la]}] -> {b} [{names[lb]}]: {why}')
            bad += 1

    if args.no_top:
        for f in sorted(files):
            if layer_of(f, layers) == len(layers):
                print(f'outside the layers: {f}: move it into the folder of its layer')
                bad += 1

    if bad:
        return 1
    per_layer = collections.Counter(layer_of(f, layers) for f in files)
    table = ', '.join(f'{names[i]} {per_layer[i]}' for i in range(len(names)))
    print(f'{len(files)} files, {include_count} include arrows, {use_count} call arrows, '
          f'{len(names)} layers ({table}): no loop, no upward arrow')
    return 0


if __name__ == '__main__':
    sys.exit(main())
