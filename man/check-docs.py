#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The docs suite: the man pages name what the code defines, and the pages
name nothing it does not.

  - every status in include/gpushim/status.h's GPU_STATUS_LIST: in gpushim(3);
  - every environment variable the library or gpushim-info reads (a
    "GPUSHIM_..." or "APR_..." string in src/, include/ or tools/), and every
    one the fake driver reads (fake/): in gpushim(3)'s ENVIRONMENT; and every
    GPUSHIM_ name the man pages or README.md mention is one the tree defines;
  - every header in include/gpushim/: in gpushim(3)'s DESCRIPTION (".I
    name.h"), and every header listed there exists;
  - every option of gpushim-info (tools/gpushim-info.c, tools/info_*.[ch]): in
    gpushim-info(1)'s SYNOPSIS and OPTIONS, and no other in its SYNOPSIS;
  - every key gpushim-info --json prints: in gpushim-info(1)'s JSON OUTPUT,
    whose bold words are all keys it prints;
  - every exit status it defines (..EXIT_... = N): in gpushim-info(1)'s EXIT
    STATUS, and no other;
  - every public header has a @file block, without which Doxygen documents
    none of its functions and so warns about none of them;
  - the built pages render with no groff warning (where groff is installed);
  - README.md links the quick start (examples/quick_start/main.c), and every
    relative link of README.md, CONTRIBUTING.md and docs/*.md names a file or
    folder of the tree.

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


def broken_links(root):
    """Problems with the pages' links: README.md must link the quick start, and
    every relative link (a Markdown [text](target) or an <img src>) must name a
    path of the tree."""
    problems = []
    pages = [root / 'README.md', root / 'CONTRIBUTING.md'] + sorted((root / 'docs').glob('*.md'))
    readme_links = set()
    for page in pages:
        text = page.read_text()
        targets = re.findall(r'\]\(([^)\s]+)\)', text) + re.findall(r'<img src="([^"]+)"', text)
        for target in targets:
            path = target.split('#', 1)[0]
            if not path or re.match(r'[a-z]+:', path):
                continue
            resolved = (page.parent / path).resolve()
            if page.name == 'README.md' and page.parent == root:
                readme_links.add(resolved)
            if not resolved.exists():
                problems.append(f'{page.relative_to(root)} links {target}, which the tree does not have')
    if (root / QUICK_START).resolve() not in readme_links:
        problems.append(f'README.md does not link {QUICK_START}')
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
    man3 = (root / 'man' / 'gpushim.3.in').read_text().replace('\\-', '-')
    man1 = (root / 'man' / 'gpushim-info.1.in').read_text().replace('\\-', '-')

    status_h = (root / 'include' / 'gpushim' / 'status.h').read_text()
    statuses = re.findall(r'X\((GPU_[A-Z0-9_]+),', status_h)
    if not statuses:
        problems.append('no statuses found in status.h (did GPU_STATUS_LIST change shape?)')
    need(statuses, man3, 'man/gpushim.3.in')

    def strings(folders, pattern=r'"((?:GPUSHIM|APR)_[A-Z0-9_]+)'):
        found = set()
        for folder in folders:
            for f in (root / folder).rglob('*.[ch]'):
                found.update(re.findall(pattern, f.read_text(errors='replace')))
        return found

    env = strings(('src', 'include', 'tools'))
    man3_env = section(man3, 'ENVIRONMENT')
    need(env, man3_env, 'man/gpushim.3.in ENVIRONMENT')
    fake_env = strings(('fake',))
    need(fake_env, man3_env, 'man/gpushim.3.in ENVIRONMENT')
    # Every GPUSHIM_ name the pages mention is one the tree defines (a string, a macro, a knob of bench/ or tests/).
    defined = strings(('src', 'include', 'tools', 'fake', 'bench', 'tests', 'examples'),
                      r'\b(GPUSHIM_[A-Z0-9_]*[A-Z0-9])\b')
    for text, where in ((man3, 'man/gpushim.3.in'), (man1, 'man/gpushim-info.1.in'), (readme, 'README.md')):
        for name in sorted(set(re.findall(r'\b(GPUSHIM_[A-Z0-9_]*[A-Z0-9])\b(?!\*)', text)) - defined):
            problems.append(f'{where} mentions {name}, which nothing in the tree defines')

    headers = {h.name for h in (root / 'include' / 'gpushim').glob('*.h')}
    listed = set(re.findall(r'^\.I ([a-z_]+\.h)$', section(man3, 'DESCRIPTION'), re.M))
    for h in sorted(headers - listed):
        problems.append(f'man/gpushim.3.in DESCRIPTION does not list the header {h}')
    for h in sorted(listed - headers):
        problems.append(f'man/gpushim.3.in lists {h}, which include/gpushim/ does not have')

    # gpushim-info's sources: gpushim-info.c and any tools/info_*.[ch] it is split into.
    info = '\n'.join(f.read_text() for f in sorted((root / 'tools').glob('*.[ch]'))
                     if f.name.startswith(('gpushim-info', 'info_')))
    options = set(re.findall(r'strn?cmp\(\w+(?:\[\w+\])?, "(-[-A-Za-z0-9]+)=?"', info))
    if not options:
        problems.append('no options found in tools/gpushim-info.c')
    synopsis = section(man1, 'SYNOPSIS')
    need(options, synopsis, 'man/gpushim-info.1.in SYNOPSIS')
    need(options, section(man1, 'OPTIONS'), 'man/gpushim-info.1.in OPTIONS')
    for opt in sorted(set(re.findall(r'(?<![A-Za-z0-9-])(--?[a-z][-a-z]*)', synopsis)) - options):
        problems.append(f'man/gpushim-info.1.in SYNOPSIS names {opt}, which gpushim-info does not take')
    tool_env = set(re.findall(r'"((?:GPUSHIM|APR)_[A-Z0-9_]+)', info))
    need(tool_env, man1, 'man/gpushim-info.1.in')

    keys = set(re.findall(r'\\"([A-Za-z_][A-Za-z0-9_]*)\\": ', info))
    if not keys:
        problems.append("no JSON keys found in gpushim-info's sources")
    json_doc = section(man1, 'JSON OUTPUT')
    need(keys, json_doc, 'man/gpushim-info.1.in JSON OUTPUT')
    for key in sorted(bold_words(json_doc) - keys):
        problems.append(f'man/gpushim-info.1.in JSON OUTPUT names {key}, which gpushim-info --json does not print')

    codes = {'0'} | set(re.findall(r'\b(?:[A-Z]+_)?EXIT_[A-Z_]+ = ([0-9]+)', info))
    man_codes = set(re.findall(r'^\.B ([0-9]+)$', section(man1, 'EXIT STATUS'), re.M))
    for code in sorted(codes - man_codes, key=int):
        problems.append(f'man/gpushim-info.1.in: EXIT STATUS has no entry for {code}')
    for code in sorted(man_codes - codes, key=int):
        problems.append(f'man/gpushim-info.1.in: EXIT STATUS has {code}, which gpushim-info never returns')

    for h in sorted((root / 'include' / 'gpushim').glob('*.h')):
        if not re.search(r'[@\\]file\b', h.read_text()):
            problems.append(f'{h.relative_to(root)} has no @file block: Doxygen would skip it')

    problems += broken_links(root)

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
