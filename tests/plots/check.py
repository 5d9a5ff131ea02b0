#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The plot-bench test: tools/plot-bench.py on a real run's summary and on
fixtures, checking that each SVG parses and shows what its input had.

  1. run-2026-12-02.log alone (the lines of a real run's summary): three real
     plots, the compile plot a placeholder; no bound line (that run predates
     ORDERING_BOUND).
  2. the same plus fixture-*.log (made-up lines in the benchmarks' formats):
     the bound, overhead and compile series appear.
  3. an input with nothing usable: four placeholders, exit 0.
  4. a missing input: exit 2.
Skipped (77) where matplotlib is not installed.

usage: check.py SOURCE_ROOT
"""
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PLOTS = ['plot-ordering.svg', 'plot-dispatch.svg', 'plot-graphs.svg', 'plot-compile.svg']


def texts(svg):
    tree = ET.parse(svg)  # raises on malformed XML
    return ' '.join(''.join(t.itertext()) for t in tree.iter() if t.tag.endswith('text'))


def with_matplotlib():
    """This interpreter, else the system's (python3-matplotlib is for /usr/bin/python3), if it has matplotlib."""
    for exe in (sys.executable, '/usr/bin/python3'):
        if pathlib.Path(exe).exists() and subprocess.run([exe, '-c', 'import matplotlib'],
                                                         capture_output=True).returncode == 0:
            return exe
    return None


PYTHON = with_matplotlib()


def run(root, out, *inputs):
    r = subprocess.run([PYTHON, str(root / 'tools' / 'plot-bench.py'), '--out', str(out), *map(str, inputs)],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    if not PYTHON:
        print('skipped: matplotlib is not installed (python3-matplotlib)')
        return 77
    root = pathlib.Path(sys.argv[1])
    summary = root / 'tests' / 'plots' / 'run-2026-12-02.log'
    fixtures = sorted((root / 'tests' / 'plots').glob('fixture-*.log'))
    problems = []

    def expect(cond, what):
        print(('ok   ' if cond else 'FAIL ') + what)
        if not cond:
            problems.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        rc, log = run(root, tmp / 'a', summary)
        expect(rc == 0, f'real run alone: exit 0 ({rc})')
        t = {p: texts(tmp / 'a' / p) for p in PLOTS}
        expect('throughput against concurrency' in t['plot-ordering.svg'], 'ordering plot drawn')
        expect('9603 of 12000 wrong' in t['plot-ordering.svg'], 'ordering plot marks the racy mode\'s wrong outputs')
        expect('never idle' not in t['plot-ordering.svg'], 'no bound line without ORDERING_BOUND')
        expect('paired ratio 0.984' in t['plot-dispatch.svg'], 'dispatch plot shows the launch\'s paired ratio')
        expect('4.50x' in t['plot-graphs.svg'], 'graphs plot shows the 4.50x ratio')
        expect('no COMPILE lines' in t['plot-compile.svg'], 'compile plot is a placeholder')

        rc, log = run(root, tmp / 'b', summary, *fixtures)
        expect(rc == 0, f'real run and fixtures: exit 0 ({rc})')
        t = {p: texts(tmp / 'b' / p) for p in PLOTS}
        expect('never idle' in t['plot-ordering.svg'] and 'c at 0.82 of it' in t['plot-ordering.svg'],
               'bound line and fraction drawn from ORDERING_BOUND')
        expect('libnullcuda.so' in t['plot-dispatch.svg'] and 'libcuda.so.1' in t['plot-dispatch.svg'],
               'one overhead panel per driver')
        expect('212 ms' in t['plot-compile.svg'] and '0.84 ms' in t['plot-compile.svg'], 'compile bars drawn')

        empty = tmp / 'empty.log'
        empty.write_text('nothing here\nGRAPHS kernels=3 eager_us=oops\n')
        rc, log = run(root, tmp / 'c', empty)
        expect(rc == 0 and all('placeholder' in log and (tmp / 'c' / p).exists() for p in PLOTS),
               'unusable input: four placeholders, exit 0')
        rc, log = run(root, tmp / 'd', tmp / 'does-not-exist')
        expect(rc == 2, f'missing input: exit 2 ({rc})')
    print(f'plot-bench check: {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
