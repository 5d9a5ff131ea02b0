#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stand-in for pkg-config where none is installed (the GPU machine).

It reads NAME.pc from the folders in PKG_CONFIG_PATH and answers what
examples/ asks of pkg-config: --exists, --modversion, --cflags, --libs and
--variable=NAME, for packages without Requires. Anything else is an error,
never a guess.

usage: pkg-config-lite.py OPTION... PACKAGE...
"""
import os
import re
import sys


def load(name):
    for folder in os.environ.get('PKG_CONFIG_PATH', '').split(':'):
        path = os.path.join(folder, name + '.pc')
        if folder and os.path.isfile(path):
            return parse(path)
    return None


def parse(path):
    variables = {'pcfiledir': os.path.dirname(path)}
    fields = {}
    for line in open(path, encoding='utf-8'):
        m = re.match(r'^([A-Za-z0-9_.]+)\s*([=:])\s*(.*?)\s*$', line)
        if not m:
            continue
        key, sep, value = m.groups()
        value = re.sub(r'\$\{(\w+)\}', lambda v: variables.get(v.group(1), ''), value)
        if sep == '=':
            variables[key] = value
        else:
            fields[key.lower()] = value
    return variables, fields


def main(argv):
    options = [a for a in argv if a.startswith('--')]
    names = [a for a in argv if not a.startswith('--')]
    if '--version' in options:
        print('0.29.2 (pkg-config-lite)')
        return 0
    if not names:
        print('pkg-config-lite: no package named', file=sys.stderr)
        return 1
    words = []
    for name in names:
        pc = load(name)
        if pc is None:
            print(f'Package {name} was not found in the pkg-config search path (pkg-config-lite)', file=sys.stderr)
            return 1
        if 'requires' in pc[1]:
            print(f'pkg-config-lite: {name}: Requires is not supported', file=sys.stderr)
            return 1
        variables, fields = pc
        for option in options:
            if option == '--modversion':
                words.append(fields.get('version', ''))
            elif option in ('--cflags', '--libs'):
                words.append(fields.get(option[2:], ''))
            elif option.startswith('--variable='):
                words.append(variables.get(option.split('=', 1)[1], ''))
            elif option not in ('--exists', '--print-errors', '--short-errors'):
                print(f'pkg-config-lite: {option} is not supported', file=sys.stderr)
                return 1
    if any(o != '--exists' and o not in ('--print-errors', '--short-errors') for o in options):
        print(' '.join(w for w in words if w))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
