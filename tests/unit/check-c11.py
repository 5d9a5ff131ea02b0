#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""src/ is plain C11 (meson.build's c_std): no GNU C that -pedantic lets through.
-pedantic-errors on the library (src/meson.build) fails the build on most GNU C;
these forms it lets pass, so this check finds them in the text of every .c and .h
under the folder named, comments and string literals left out:
statement expressions, __extension__, typeof and __typeof__, __auto_type,
__label__, the elvis operator (a ?: b), case ranges, `, ## __VA_ARGS__`,
__VA_OPT__, and any __builtin_* outside hints.h, the one header that names a
compiler's hints behind macros with a C11 fallback.
Prints each finding as FILE:LINE: what; exit 1 if any.

usage: check-c11.py SRC_DIR
"""
import pathlib
import re
import sys

HINTS = 'hints.h'
FORMS = [
    (re.compile(r'\(\s*\{'), 'a statement expression'),
    (re.compile(r'\b__extension__\b'), '__extension__'),
    (re.compile(r'\b(__typeof__|__typeof|typeof|typeof_unqual)\b'), 'typeof'),
    (re.compile(r'\b__auto_type\b'), '__auto_type'),
    (re.compile(r'\b__label__\b'), '__label__'),
    (re.compile(r'\?\s*:'), 'the elvis operator (a ?: b)'),
    (re.compile(r'\bcase\b[^:;]*\.\.\.'), 'a case range'),
    (re.compile(r'##\s*__VA_ARGS__'), ', ## __VA_ARGS__'),
    (re.compile(r'\b__VA_OPT__\b'), '__VA_OPT__'),
]
BUILTIN = re.compile(r'\b__builtin_\w+')


def code_only(text):
    """The text with comments and string and character literals blanked, line breaks kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + (c if j < n else ''))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def main():
    root = pathlib.Path(sys.argv[1])
    found = 0
    files = sorted(p for p in root.rglob('*') if p.suffix in ('.c', '.h'))
    for path in files:
        code = code_only(path.read_text(encoding='utf-8'))
        for number, line in enumerate(code.splitlines(), 1):
            what = [w for pattern, w in FORMS if pattern.search(line)]
            if path.name != HINTS:
                what += [m.group(0) for m in BUILTIN.finditer(line)]
            for w in what:
                print(f'{path.relative_to(root)}:{number}: {w}')
                found += 1
    if found:
        print(f'{found} GNU C forms in {root}; c_std is c11 (hints.h holds the compiler hints)')
        return 1
    print(f'{len(files)} files of {root}: plain C11')
    return 0


if __name__ == '__main__':
    sys.exit(main())
