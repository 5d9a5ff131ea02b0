#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every instruction of fake/ptx/ptx_ops.def (each row's mnemonic and each alias) is run by a case of
tests/ptx (an instruction of a FAMILY.ptx, whose entry FAMILY.expect runs) and named in
docs/ptx-interpreter.md (in backquotes, alone or with its modifiers). The rows in OTHER_TESTS cannot be a
case of tests/ptx, whose families ptxas checks for sm_80 and whose runner makes no surface and expects no
fault: each says why, and where it is tested instead.

usage: check-rows.py SOURCE_ROOT"""
import glob
import os
import re
import sys


OTHER_TESTS = {
    'barrier.cluster.arrive': 'sm_90',
    'barrier.cluster.wait': 'sm_90',
    'mapa': 'sm_90',
    'griddepcontrol': 'sm_90',
    'suld': 'a surface object made by the host: tests/fake/test_ptx_textures.c',
    'sust': 'a surface object made by the host: tests/fake/test_ptx_textures.c',
    'trap': 'ends the context: tests/fake/test_ptx_hostile.c',
}


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    with open(os.path.join(root, 'fake', 'ptx', 'ptx_ops.def')) as f:
        table = f.read()
    names = re.findall(r'^PTX_OP\([A-Z0-9_]+, "([^"]+)"', table, re.M)
    names += re.findall(r'^PTX_ALIAS\("([^"]+)"', table, re.M)
    with open(os.path.join(root, 'docs', 'ptx-interpreter.md')) as f:
        doc = f.read()
    # Each family's instructions, in the entries its .expect runs.
    run = {}
    for ptx in sorted(glob.glob(os.path.join(root, 'tests', 'ptx', '*.ptx'))):
        expect = ptx[:-4] + '.expect'
        if not os.path.exists(expect):
            continue
        with open(expect) as f:
            entries = {line.split()[0] for line in f if line.strip() and not line.startswith('#')}
        with open(ptx) as f:
            text = f.read()
        for m in re.finditer(r'^\.visible \.entry (\w+)\(.*?^\}', text, re.M | re.S):
            if m.group(1) not in entries:
                continue
            for line in m.group(0).split('\n'):
                op = re.match(r'\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)', line)
                if op and not line.lstrip().startswith(('.', '//')):
                    run.setdefault(op.group(1), os.path.basename(ptx))
    bad = []
    for name in names:
        if name not in OTHER_TESTS and not any(op == name or op.startswith(name + '.') for op in run):
            bad.append('%s: no case of tests/ptx runs it' % name)
        if not re.search(r'`%s[`.{/ ]' % re.escape(name), doc):
            bad.append('%s: docs/ptx-interpreter.md does not name it' % name)
    for line in bad:
        print('check-rows: ptx_ops.def row ' + line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
