#!/usr/bin/env python3
"""The docs suite: the man pages and README.md must name what the code has.

  - every status in include/gpushim/status.h's GPU_STATUS_LIST: in gpushim(3)
    and README.md;
  - every environment variable the library reads (a "GPUSHIM_..." or
    "APR_..." string in src/ or include/): in gpushim(3) and README.md;
  - every option of gpushim-info (tools/gpushim-info.c, tools/info_*.[ch]): in
    gpushim-info(1); every exit status it defines (..EXIT_... = N): in
    gpushim-info(1)'s EXIT STATUS and README.md;
  - every public header has a @file block, without which Doxygen documents
    none of its functions and so warns about none of them;
  - the built pages render with no groff warning (where groff is installed).

usage: check-docs.py SOURCE_ROOT BUILT_PAGE...
"""
import pathlib
import re
import shutil
import subprocess
import sys


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

    env = set()
    for folder in ('src', 'include'):
        for f in (root / folder).rglob('*.[ch]'):
            env.update(re.findall(r'"((?:GPUSHIM|APR)_[A-Z0-9_]+)', f.read_text()))
    need(env, man3, 'docs/gpushim.3.in')
    need(env, readme, 'README.md')

    # gpushim-info's sources: gpushim-info.c and any tools/info_*.[ch] it is split into.
    info = '\n'.join(f.read_text() for f in sorted((root / 'tools').glob('*.[ch]'))
                     if f.name.startswith(('gpushim-info', 'info_')))
    options = set(re.findall(r'strn?cmp\(\w+(?:\[\w+\])?, "(-[-A-Za-z0-9]+)=?"', info))
    if not options:
        problems.append('no options found in tools/gpushim-info.c')
    need(options, man1, 'docs/gpushim-info.1.in')
    tool_env = set(re.findall(r'"((?:GPUSHIM|APR)_[A-Z0-9_]+)', info))
    need(tool_env, man1, 'docs/gpushim-info.1.in')
    codes = {'0'} | set(re.findall(r'\b(?:[A-Z]+_)?EXIT_[A-Z_]+ = ([0-9]+)', info))
    exit_section = man1.split('.SH EXIT STATUS', 1)[-1].split('.SH', 1)[0]
    for code in sorted(codes, key=int):
        if not re.search(r'^\.B ' + code + r'$', exit_section, re.M):
            problems.append(f'docs/gpushim-info.1.in: EXIT STATUS has no entry for {code}')
    marker = '`gpushim-info` exits'
    if marker not in readme:
        problems.append(f'README.md has no paragraph beginning {marker}')
    readme_exits = readme.split(marker, 1)[-1].split('\n\n', 1)[0]
    for code in sorted(codes, key=int):
        if not re.search(r'\b' + code + r'\b', readme_exits):
            problems.append(f'README.md: the gpushim-info exit statuses do not include {code}')

    for h in sorted((root / 'include' / 'gpushim').glob('*.h')):
        if not re.search(r'[@\\]file\b', h.read_text()):
            problems.append(f'{h.relative_to(root)} has no @file block: Doxygen would skip it')

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
    print(f'check-docs: {len(statuses)} statuses, {len(env)} environment variables, {len(options)} options, '
          f'{len(codes)} exit statuses checked; {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
