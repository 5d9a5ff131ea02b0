#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-cycles.py against two small trees (cycles/): bad/ has an include loop
(a.h, b.h), a loop through a header's inline call (ring.h, step.c) and a
lower layer (low/) that includes and calls the top one; clean/ has none of
them. Each must be found, with and without the archive, and clean/ must pass.
dirs/ has its layers as folders (low/, up/) and an include of a bare name
found on the include path (--include-dir): the layers from --layer-dirs, the
include's arrow only with --include-dir, a file outside the folders an error
with --no-top.

usage: test-check-cycles.py CHECK_CYCLES FIXTURES BAD.a CLEAN.a
"""
import subprocess
import sys


def run(check, *args):
    p = subprocess.run([sys.executable, check, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main(check, fixtures, bad_lib, clean_lib):
    failures = []

    def expect(name, args, rc, lines):
        got_rc, out = run(check, *args)
        missing = [line for line in lines if line not in out.splitlines()]
        if got_rc != rc or missing:
            failures.append(f'{name}: exit {got_rc} (want {rc}), missing {missing}\n{out}')

    bad, clean = f'{fixtures}/bad', f'{fixtures}/clean'
    include_loop = 'loop: a.h -> b.h -> a.h  (a.h includes; b.h includes)'
    upward_include = 'upward: low/util.c [low] -> top.h [top]: includes'
    expect('bad, includes', ['--root', bad, '--layer', 'low=low/*'], 1, [include_loop, upward_include])
    expect('bad, archive', ['--archive', bad_lib, '--root', bad, '--layer', 'low=low/*'], 1,
           [include_loop, upward_include,
            'loop: ring.h -> step.c -> ring.h  (ring.h uses bad_step; step.c includes)',
            'upward: low/util.c [low] -> top.c [top]: calls bad_top'])
    expect('bad, all of it ignored', ['--archive', bad_lib, '--root', bad, '--layer', 'low=low/*',
                                      '--ignore', 'low/*', '--ignore', 'b.h', '--ignore', 'ring.h'], 0, [])
    expect('bad, no layer', ['--root', bad, '--ignore', 'b.h'], 0, [])
    expect('clean', ['--archive', clean_lib, '--root', clean, '--layer', 'low=low/*'], 0,
           ['4 files, 3 include arrows, 2 call arrows, 2 layers (low 2, top 2): no loop, no upward arrow'])
    dirs = f'{fixtures}/dirs'
    expect('dirs, layers from the folders', ['--root', dirs, '--layer-dirs', 'low,up', '--include-dir', 'low',
                                             '--no-top'], 0,
           ['3 files, 2 include arrows, 0 call arrows, 3 layers (low 2, up 1, top 0): no loop, no upward arrow'])
    expect('dirs, no include path', ['--root', dirs, '--layer-dirs', 'low,up'], 0,
           ['3 files, 1 include arrows, 0 call arrows, 3 layers (low 2, up 1, top 0): no loop, no upward arrow'])
    expect('dirs, layers upside down', ['--root', dirs, '--layer-dirs', 'up,low', '--include-dir', 'low'], 1,
           ['upward: up/top.c [up] -> low/util.h [low]: includes'])
    expect('dirs, a file outside the folders', ['--root', dirs, '--layer-dirs', 'low', '--no-top'], 1,
           ['outside the layers: up/top.c: move it into the folder of its layer'])
    expect('dirs, not a folder', ['--root', dirs, '--layer-dirs', 'low,nope'], 2, [])
    for f in failures:
        print(f)
    if failures:
        return 1
    print('check-cycles.py finds both loops and both upward arrows of bad/ and passes clean/')
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
