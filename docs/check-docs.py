#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The docs suite: the man pages and README.md name what the code defines,
and name nothing it does not.

  - every status in include/gpushim/status.h's GPU_STATUS_LIST: in gpushim(3)
    and README.md;
  - every environment variable the library or gpushim-info reads (a
    "GPUSHIM_..." or "APR_..." string in src/, include/ or tools/): in
    gpushim(3)'s ENVIRONMENT and README.md; every one the fake driver reads
    (fake/): in gpushim(3)'s ENVIRONMENT; and every GPUSHIM_ name the pages or
    README.md mention is one the tree defines;
  - every header in include/gpushim/: in gpushim(3)'s DESCRIPTION (".I
    name.h"), and every header listed there exists;
  - every option of gpushim-info (tools/gpushim-info.c, tools/info_*.[ch]): in
    gpushim-info(1)'s SYNOPSIS and OPTIONS, and no other in its SYNOPSIS;
  - every key gpushim-info --json prints: in gpushim-info(1)'s JSON OUTPUT,
    whose bold words are all keys it prints;
  - every exit status it defines (..EXIT_... = N): in gpushim-info(1)'s EXIT
    STATUS and in README.md's exit status table, and no other;
  - every public header has a @file block, without which Doxygen documents
    none of its functions and so warns about none of them;
  - the built pages render with no groff warning (where groff is installed);
  - each program README.md shows between <!-- example: PATH --> and
    <!-- /example --> is the file PATH, byte for byte, and the quick start
    (examples/quick_start/main.c) is one of them.

usage: check-docs.py SOURCE_ROOT BUILT_PAGE...
"""
import pathlib
import re
import shutil
import subprocess
import sys


def section(page, name):
    """The text of a man page's section NAME (up to the next .SH), or ''."""
    m = re.search(r'^\.SH "?' + re.escape(name) + r'"?\n(.*?)(?=^\.SH |\Z)', page, re.M | re.S)
    return m.group(1) if m else ''


def bold_words(text):
    """The first word of each .B / .BR line: what a page sets in bold."""
    return set(re.findall(r'^\.BR? "?([A-Za-z_][A-Za-z0-9_]*)', text, re.M))


QUICK_START = 'examples/quick_start/main.c'


def shown_programs(root, readme):
    """Problems with the programs README.md shows: each block between
    <!-- example: PATH --> markers must be PATH's bytes, and the quick start must be one."""
    problems = []
    markers = re.findall(r'^<!-- example: (\S+) -->$', readme, re.M)
    blocks = re.findall(r'^<!-- example: (\S+) -->\n```c\n(.*?)^```\n<!-- /example -->$', readme, re.M | re.S)
    if len(blocks) != len(markers):
        problems.append('README.md: an <!-- example: PATH --> marker is not followed by one ```c block '
                        'and <!-- /example -->')
    if QUICK_START not in markers:
        problems.append(f'README.md does not show {QUICK_START} between <!-- example: {QUICK_START} --> markers')
    for path, code in blocks:
        f = root / path
        if not f.is_file():
            problems.append(f'README.md shows {path}, which does not exist')
            continue
        want = f.read_bytes()
        if code.encode() != want:
            lines, shown = want.decode(errors='replace').split('\n'), code.split('\n')
            line = next((i + 1 for i, (a, b) in enumerate(zip(lines, shown)) if a != b), min(len(lines), len(shown)))
            problems.append(f'README.md: the block of {path} differs from the file, from its line {line}')
    return problems


def main():
    root = pathlib.Path(sys.argv[1])
    built = [pathlib.Path(p) for p in sys.argv[2:]]
    problems = []

    def need(names, text, where):
        for name in sorted(set(names)):
            if not re.search(r'(?<![A-Za-z0-9_])' + re.escape(name) + r'(?![A-Za-z0-9_])', text):
                problems.append(f'{where} does not mention {name}')

    readme = (root / 'README.md').read_text()
    man3 = (root / 'docs' / 'gpushim.3.in').read_text().replace('\\-', '-')
    man1 = (root / 'docs' / 'gpushim-info.1.in').read_text().replace('\\-', '-')

    status_h = (root / 'include' / 'gpushim' / 'status.h').read_text()
    statuses = re.findall(r'X\((GPU_[A-Z0-9_]+),', status_h)
    if not statuses:
        problems.append('no statuses found in status.h (did GPU_STATUS_LIST change shape?)')
    need(statuses, man3, 'docs/gpushim.3.in')
    need(statuses, readme, 'README.md')

    def strings(folders, pattern=r'"((?:GPUSHIM|APR)_[A-Z0-9_]+)'):
        found = set()
        for folder in folders:
            for f in (root / folder).rglob('*.[ch]'):
                found.update(re.findall(pattern, f.read_text(errors='replace')))
        return found

    env = strings(('src', 'include', 'tools'))
    man3_env = section(man3, 'ENVIRONMENT')
    need(env, man3_env, 'docs/gpushim.3.in ENVIRONMENT')
    need(env, readme, 'README.md')
    fake_env = strings(('fake',))
    need(fake_env, man3_env, 'docs/gpushim.3.in ENVIRONMENT')
    # Every GPUSHIM_ name the pages mention is one the tree defines (a string, a macro, a knob of bench/ or tests/).
    defined = strings(('src', 'include', 'tools', 'fake', 'bench', 'tests', 'examples'),
                      r'\b(GPUSHIM_[A-Z0-9_]*[A-Z0-9])\b')
    for text, where in ((man3, 'docs/gpushim.3.in'), (man1, 'docs/gpushim-info.1.in'), (readme, 'README.md')):
        for name in sorted(set(re.findall(r'\b(GPUSHIM_[A-Z0-9_]*[A-Z0-9])\b(?!\*)', text)) - defined):
            problems.append(f'{where} mentions {name}, which nothing in the tree defines')

    headers = {h.name for h in (root / 'include' / 'gpushim').glob('*.h')}
    listed = set(re.findall(r'^\.I ([a-z_]+\.h)$', section(man3, 'DESCRIPTION'), re.M))
    for h in sorted(headers - listed):
        problems.append(f'docs/gpushim.3.in DESCRIPTION does not list the header {h}')
    for h in sorted(listed - headers):
        problems.append(f'docs/gpushim.3.in lists {h}, which include/gpushim/ does not have')

    # gpushim-info's sources: gpushim-info.c and any tools/info_*.[ch] it is split into.
    info = '\n'.join(f.read_text() for f in sorted((root / 'tools').glob('*.[ch]'))
                     if f.name.startswith(('gpushim-info', 'info_')))
    options = set(re.findall(r'strn?cmp\(\w+(?:\[\w+\])?, "(-[-A-Za-z0-9]+)=?"', info))
    if not options:
        problems.append('no options found in tools/gpushim-info.c')
    synopsis = section(man1, 'SYNOPSIS')
    need(options, synopsis, 'docs/gpushim-info.1.in SYNOPSIS')
    need(options, section(man1, 'OPTIONS'), 'docs/gpushim-info.1.in OPTIONS')
    for opt in sorted(set(re.findall(r'(?<![A-Za-z0-9-])(--?[a-z][-a-z]*)', synopsis)) - options):
        problems.append(f'docs/gpushim-info.1.in SYNOPSIS names {opt}, which gpushim-info does not take')
    tool_env = set(re.findall(r'"((?:GPUSHIM|APR)_[A-Z0-9_]+)', info))
    need(tool_env, man1, 'docs/gpushim-info.1.in')

    keys = set(re.findall(r'\\"([A-Za-z_][A-Za-z0-9_]*)\\": ', info))
    if not keys:
        problems.append("no JSON keys found in gpushim-info's sources")
    json_doc = section(man1, 'JSON OUTPUT')
    need(keys, json_doc, 'docs/gpushim-info.1.in JSON OUTPUT')
    for key in sorted(bold_words(json_doc) - keys):
        problems.append(f'docs/gpushim-info.1.in JSON OUTPUT names {key}, which gpushim-info --json does not print')

    codes = {'0'} | set(re.findall(r'\b(?:[A-Z]+_)?EXIT_[A-Z_]+ = ([0-9]+)', info))
    man_codes = set(re.findall(r'^\.B ([0-9]+)$', section(man1, 'EXIT STATUS'), re.M))
    for code in sorted(codes - man_codes, key=int):
        problems.append(f'docs/gpushim-info.1.in: EXIT STATUS has no entry for {code}')
    for code in sorted(man_codes - codes, key=int):
        problems.append(f'docs/gpushim-info.1.in: EXIT STATUS has {code}, which gpushim-info never returns')
    table = re.search(r'^\| *exit status *\|.*\n\|[- |]+\|\n((?:\|.*\n)+)', readme, re.M | re.I)
    if not table:
        problems.append('README.md has no table whose first column is "exit status"')
    else:
        readme_codes = set(re.findall(r'^\| *`?([0-9]+)`? *\|', table.group(1), re.M))
        for code in sorted(codes - readme_codes, key=int):
            problems.append(f'README.md: the exit status table has no row for {code}')
        for code in sorted(readme_codes - codes, key=int):
            problems.append(f'README.md: the exit status table has {code}, which gpushim-info never returns')

    for h in sorted((root / 'include' / 'gpushim').glob('*.h')):
        if not re.search(r'[@\\]file\b', h.read_text()):
            problems.append(f'{h.relative_to(root)} has no @file block: Doxygen would skip it')

    problems += shown_programs(root, readme)

    groff = shutil.which('groff')
    for page in built:
        if not groff:
            break
        r = subprocess.run([groff, '-man', '-ww', '-Tutf8', str(page)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0 or r.stderr.strip():
            problems.append(f'{page}: groff: {r.stderr.strip() or r.returncode}')

    for p in problems:
        print('check-docs:', p)
    print(f'check-docs: {len(statuses)} statuses, {len(env) + len(fake_env)} environment variables, '
          f'{len(headers)} headers, {len(options)} options, {len(keys)} JSON keys, {len(codes)} exit statuses checked; '
          f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
