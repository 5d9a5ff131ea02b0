#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The include graph of src/ and fake/, in Graphviz's DOT, for docs/design.md.

One node a file (.c, .h, .S) of src/ or fake/, in one cluster per folder; one
arrow a quoted #include from the includer to the file it names. A name is
looked for beside the includer first, then as the end of a path under src/ or
fake/ (the build's include folders), the closest to the includer winning.
Public headers (gpushim/...) and system headers are left out: the picture is
of the layers inside. The DOT is deterministic, and its graph comment is a
digest of its nodes and arrows, which `dot -Tsvg` copies into the SVG, so a
test can tell that the committed picture is of the committed DOT.

usage: tools/gen-include-graph.py [--write | --check] [SOURCE_ROOT]
  (none)    print the DOT
  --write   write docs/include-graph.dot and, with Graphviz's dot, docs/include-graph.svg
  --check   exit 1 unless both committed files are what --write would make
"""
import hashlib
import pathlib
import re
import shutil
import subprocess
import sys

FOLDERS = ('src', 'fake')
DOT = pathlib.Path('docs') / 'include-graph.dot'
SVG = pathlib.Path('docs') / 'include-graph.svg'
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def files(root):
    return sorted(p.relative_to(root).as_posix() for folder in FOLDERS for p in (root / folder).rglob('*')
                  if p.is_file() and p.suffix in ('.c', '.h', '.S'))


def resolve(name, includer, known):
    """The file of the tree that `#include "name"` in `includer` means, or None."""
    beside = (pathlib.PurePosixPath(includer).parent / name).as_posix()
    parts = []
    for part in beside.split('/'):
        if part == '..' and parts:
            parts.pop()
        elif part != '.':
            parts.append(part)
    beside = '/'.join(parts)
    if beside in known:
        return beside
    matches = [f for f in known if f == name or f.endswith('/' + name)]
    if not matches:
        return None

    def shared(f):
        a, b = f.split('/'), includer.split('/')
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return (-n, f)
    return min(matches, key=shared)


def edges(root):
    known = set(files(root))
    out = set()
    for f in sorted(known):
        for name in INCLUDE.findall((root / f).read_text(errors='replace')):
            target = resolve(name, f, known)
            if target and target != f:
                out.add((f, target))
    return sorted(known), sorted(out)


def node_id(path):
    return '"' + path + '"'


def dot(root):
    nodes, arrows = edges(root)
    body = []
    folders = sorted({str(pathlib.PurePosixPath(n).parent) for n in nodes})
    for i, folder in enumerate(folders):
        body.append(f'  subgraph cluster_{i} {{')
        body.append(f'    label="{folder}/";')
        for n in nodes:
            if str(pathlib.PurePosixPath(n).parent) == folder:
                body.append(f'    {node_id(n)} [label="{pathlib.PurePosixPath(n).name}"];')
        body.append('  }')
    for a, b in arrows:
        body.append(f'  {node_id(a)} -> {node_id(b)};')
    digest = hashlib.sha256('\n'.join(body).encode()).hexdigest()[:16]
    head = [
        '// SPDX-License-Identifier: MIT',
        '// The include graph of src/ and fake/: made by tools/gen-include-graph.py --write; do not edit.',
        'digraph includes {',
        f'  comment="includegraph {digest}";',
        '  rankdir=LR; newrank=true; compound=true;',
        '  graph [fontname="Helvetica", fontsize=11, style=rounded, color=gray60];',
        '  node [shape=box, fontname="Helvetica", fontsize=9, height=0.2, margin="0.05,0.02"];',
        '  edge [color=gray40, arrowsize=0.5];',
    ]
    return '\n'.join(head + body + ['}']) + '\n', digest


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    mode = next((a for a in sys.argv[1:] if a.startswith('--')), '')
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    text, digest = dot(root)
    if mode == '':
        sys.stdout.write(text)
        return 0
    if mode == '--write':
        (root / DOT).write_text(text)
        exe = shutil.which('dot')
        if not exe:
            print('gen-include-graph: no Graphviz dot here (Debian/Ubuntu: graphviz); wrote only', DOT)
            return 1
        subprocess.run([exe, '-Tsvg', '-o', str(root / SVG), str(root / DOT)], check=True)
        print(f'gen-include-graph: wrote {DOT} and {SVG} ({digest})')
        return 0
    if mode == '--check':
        problems = []
        if not (root / DOT).is_file() or (root / DOT).read_text() != text:
            problems.append(f'{DOT} is not the graph of the tree')
        if not (root / SVG).is_file() or f"includegraph {digest}" not in (root / SVG).read_text():
            problems.append(f'{SVG} was not drawn from the graph of the tree')
        for p in problems:
            print('gen-include-graph:', p)
        if problems:
            print('gen-include-graph: run tools/gen-include-graph.py --write and commit both files')
            return 1
        print(f'gen-include-graph: {DOT} and {SVG} are the graph of the tree ({digest})')
        return 0
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
