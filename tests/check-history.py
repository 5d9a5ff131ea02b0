#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tree says what the code does, never how it was developed.

Scans every tracked text file (git ls-files; a copy without .git: every file
outside build folders) and every tracked path for words that tell the order
the work was done in: sessions, issue numbers, references to another
tracker's issues, the starting tree called by its origin's name, run logs
tagged by session. Prints each
offending line as PATH:LINE: TEXT and exits 1 when there is any.

usage: check-history.py SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

PATTERNS = [
    (re.compile(r'\bsessions?\b', re.I), 'a session'),
    (re.compile(r'\bissues? #?[0-9]+', re.I), 'an issue number'),
    (re.compile(r'\b[A-Za-z][\w.-]*#[0-9]{2,}\b'), "another tracker's issue"),
    (re.compile(r'\bthe\s+seed\b', re.I), 'the starting tree by its origin\'s name'),
    (re.compile(r'\b20[0-9]{2}-[0-9]{2}-[0-9]{2}-s[0-9]+\b', re.I), 'a session-tagged name'),
    (re.compile(r'\b(filed by|as submitted)\b', re.I), 'how the work was done'),
]

# This file names the patterns it looks for.
SELF = 'tests/check-history.py'
SKIP_DIRS = {'.git', 'subprojects/packagecache'}


def tracked(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], check=True, capture_output=True).stdout
        return [p for p in out.decode('utf-8', 'surrogateescape').split('\0') if p]
    except (OSError, subprocess.CalledProcessError):
        pass
    paths = []
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if not x.startswith('build') and os.path.normpath(os.path.join(rel, x)) not in SKIP_DIRS
                   and x != '.git']
        paths += [os.path.normpath(os.path.join(rel, f)) for f in files]
    return paths


def scan(root):
    problems = []
    for path in sorted(tracked(root)):
        if path == SELF:
            continue
        for rx, what in PATTERNS:
            if rx.search(path):
                problems.append(f'{path}: its name: {what}')
        full = os.path.join(root, path)
        if os.path.islink(full) or not os.path.isfile(full):
            continue
        with open(full, 'rb') as f:
            data = f.read()
        if b'\0' in data:
            continue
        for n, line in enumerate(data.decode('utf-8', 'replace').splitlines(), 1):
            for rx, what in PATTERNS:
                if rx.search(line):
                    problems.append(f'{path}:{n}: {what}: {line.strip()[:160]}')
                    break
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 64
    problems = scan(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} line(s) speak of how the tree was developed: say what the code does and why instead')
        return 1
    print('no line speaks of how the tree was developed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
