#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every tracked source file (C, headers, assembly, CUDA, Python, shell,
meson.build, CMake) names its licence with an SPDX line: the first line, or
the second after a #! line. Prints each file without one and exits 1.

usage: check-spdx.py SOURCE_ROOT
"""
import pathlib
import re
import subprocess
import sys

SOURCE = re.compile(r'\.(c|h|S|cu|py|sh|cmake)$|\.cmake\.in$|(^|/)meson\.build$|(^|/)CMakeLists\.txt$')
LINE = re.compile(r'^(/\*|//|#) SPDX-License-Identifier: MIT( \*/)?$')


def main():
    root = pathlib.Path(sys.argv[1])
    try:
        out = subprocess.run(['git', '-C', str(root), 'ls-files', '-z'], check=True, capture_output=True).stdout
        paths = [p for p in out.decode('utf-8', 'surrogateescape').split('\0') if p]
    except (OSError, subprocess.CalledProcessError):
        paths = [str(p.relative_to(root)) for p in root.rglob('*') if p.is_file() and '.git' not in p.parts
                 and not p.parts[len(root.parts)].startswith('build')]
    missing = []
    checked = 0
    for path in sorted(paths):
        full = root / path
        if not SOURCE.search(path) or not full.is_file() or full.is_symlink():
            continue
        checked += 1
        lines = full.read_text(errors='replace').splitlines()[:2]
        head = lines[1:2] if lines and lines[0].startswith('#!') else lines[:1]
        if not head or not LINE.match(head[0]):
            missing.append(path)
    for path in missing:
        print(f'{path}: no "SPDX-License-Identifier: MIT" line first (second after #!)')
    print(f'{checked} source files checked; {len(missing)} without an SPDX line')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
