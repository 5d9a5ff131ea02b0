#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The library's files by subject: every public function (gpu_*) that src/X.c
(or src/base/X.c) defines is declared in include/gpushim/X.h, so a function's
header names its source file; and only the sys layer, src/sys/, reaches the
driver by itself: no other file of src/ includes <dlfcn.h> or a toolkit header
(<cuda.h>, <nvrtc.h>, ...) or calls dlopen, dlsym or dlvsym. Prints each file
that breaks a rule; exit 1 if any.

usage: check-layout.py SOURCE_ROOT
"""
import pathlib
import re
import sys

DEFINITION = re.compile(r'^[a-z][a-z0-9_ *]*?\b(gpu_[a-z0-9][a-z0-9_]*)\(', re.M)
DECLARATION = re.compile(r'\b(gpu_[a-z0-9][a-z0-9_]*)\s*\(')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
SYS_ONLY = re.compile(r'^[ \t]*#[ \t]*include[ \t]*<(dlfcn\.h|cuda[A-Za-z_]*\.h|nvrtc\.h)>|\b(dlopen|dlsym|dlvsym)\s*\(',
                      re.M)


def sys_only(root):
    """Each use of what only src/sys/ may use, in a file of src/ outside it."""
    found = []
    for source in sorted((root / 'src').rglob('*')):
        rel = source.relative_to(root / 'src').as_posix()
        if rel.startswith('sys/') or source.suffix not in ('.c', '.h', '.S'):
            continue
        for m in SYS_ONLY.finditer(COMMENT.sub('', source.read_text())):
            found.append(f'src/{rel} uses {m.group(1) or m.group(2)}: only src/sys/ reaches the driver itself '
                         '(the modules call through the driver table, sys/driver/driver.h)')
    return found


def main(root):
    root = pathlib.Path(root)
    declared = {}
    for header in sorted((root / 'include' / 'gpushim').glob('*.h')):
        for name in DECLARATION.findall(COMMENT.sub('', header.read_text())):
            declared.setdefault(name, set()).add(header.stem)
    bad = 0
    count = 0
    for source in sorted((root / 'src').glob('*.c')) + sorted((root / 'src' / 'base').glob('*.c')):
        for name in DEFINITION.findall(source.read_text()):
            count += 1
            headers = declared.get(name, set())
            if source.stem not in headers:
                where = ', '.join(f'include/gpushim/{h}.h' for h in sorted(headers)) or 'no public header'
                print(f'{source.relative_to(root)} defines {name}, declared in {where}: '
                      f'move it to src/<header>.c or declare it in include/gpushim/{source.stem}.h')
                bad += 1
    if count == 0:
        print('no public function found in src/: the pattern no longer matches the code')
        return 1
    for problem in sys_only(root):
        print(problem)
        bad += 1
    if bad:
        return 1
    print(f'{count} public functions, each in the src/ file named for its header; '
          'dlfcn.h and the toolkit\'s headers only in src/sys/')
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
