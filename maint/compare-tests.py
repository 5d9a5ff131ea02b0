#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two `meson introspect --tests` outputs: for each test, the program it runs (by file name),
its arguments, environment, timeout and suite (a program's file renamed is shown, not counted). Usage: compare-tests.py BEFORE.json AFTER.json [MAP]
where MAP holds lines "OLD NEW" for renamed tests. Prints every difference; exit status 1 if any."""
import json
import os
import sys


def load(path):
    tests = {}
    for t in json.load(open(path)):
        cmd = [os.path.basename(c) if c.startswith('/') and os.path.isfile(c) or c.startswith('/tmp/') else c
               for c in t['cmd']]
        env = dict(t['env'])
        if 'LD_LIBRARY_PATH' in env:  # meson orders these folders differently from one configuration to the next
            env['LD_LIBRARY_PATH'] = ':'.join(sorted(env['LD_LIBRARY_PATH'].split(':')))
        tests[t['name']] = {'program': cmd[0], 'cmd': cmd[1:], 'env': env, 'timeout': t['timeout'],
                            'suite': t['suite']}
    return tests


def main():
    before = load(sys.argv[1])
    after = load(sys.argv[2])
    renames = {}
    if len(sys.argv) > 3:
        for line in open(sys.argv[3]):
            if line.strip():
                old, new = line.split()
                renames[old] = new
    bad = 0
    for name, spec in sorted(before.items()):
        new = renames.get(name, name)
        if new not in after:
            print(f'missing: {name} (as {new})')
            bad += 1
            continue
        got = after[new]
        if spec['program'] != got['program']:
            print(f'{name} -> {new}: program file renamed: {spec["program"]} -> {got["program"]}')
        for key in ('cmd', 'env', 'timeout', 'suite'):
            if spec[key] != got[key]:
                print(f'{name} -> {new}: {key}: {spec[key]} != {got[key]}')
                bad += 1
    mapped = {renames.get(n, n) for n in before}
    for name in sorted(set(after) - mapped):
        print(f'new: {name}')
        bad += 1
    print(f'{len(before)} tests before, {len(after)} after, {len(renames)} renamed, {bad} differences')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
