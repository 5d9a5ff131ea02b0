#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Turns a GPU run's benchmark logs into SVG plots for docs/benchmarks.md.

usage: tools/plot-bench.py [--out DIR] LOG_OR_FOLDER...

Reads the machine-greppable lines the benchmarks print, from any mix of
files and folders (a folder: its summary.txt and bench-*.log, as
maint/run-gpu.sh writes them to $OUT; or a saved summary.txt). A line
seen twice (summary.txt repeats the bench logs) counts once, the last one
read winning.

  ORDERING_BENCH c=.. a_rps=.. b_rps=.. c_rps=.. wrong_a=.. ...  bench-ordering
  ORDERING_BOUND c=.. bound_rps=.. gpushim_rps=.. fraction=.. [host_only_rps=..]  bench-ordering (optional)
  the ordering table's "median (min..max)" cells                 bench-ordering.log only (optional)
  DISPATCH op=.. gpushim_per_s=.. direct_per_s=.. paired_*=..    bench-dispatch
  OVERHEAD <call> driver=.. gpushim_ns=.. direct_ns=.. delta_*=..  bench-overhead (optional)
  GRAPHS kernels=.. eager_us=.. graph_us=.. ratio=..             bench-graphs
  COMPILE... <key>_ms|_us|_ns=..                                 bench-compile (optional)

Writes DIR/plot-ordering.svg, plot-dispatch.svg, plot-graphs.svg and
plot-compile.svg (DIR defaults to docs/ beside this script). A plot whose
figures are all missing is written as a placeholder that says so, so the
page that shows it never breaks; a missing optional series is left out of
its plot. The SVGs are deterministic for the same input (no date, fixed
ids). Needs python3 and matplotlib (Debian/Ubuntu: python3-matplotlib).
"""
import argparse
import pathlib
import re
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

plt.rcParams.update({
    'svg.hashsalt': 'gpushim',  # stable element ids
    'svg.fonttype': 'none',     # text stays text
    'font.size': 10,
    'axes.spines.top': False,
    'axes.spines.right': False,
})
SVG_META = {'Date': None, 'Creator': 'tools/plot-bench.py'}

MODES = [  # (key in ORDERING_BENCH, label, colour)
    ('b', 'b: non-blocking stream, legacy copies (racy)', '#d62728'),
    ('a', "a: ordered stream, legacy copies (aprender-gpu's default)", '#7f7f7f'),
    ('c', 'c: non-blocking stream, stream-ordered copies (gpushim)', '#1f77b4'),
    ('d', 'd: as c, two requests in flight a worker (gpushim)', '#9467bd'),
]
KV = re.compile(r'(\w+)=(.*?)(?=\s+\w+=|\s*$)')
CELL = r'\s*([\d.]+)\s*\(([\d.]+)\.\.([\d.]+)\)\s*\|'
TABLE_ROW = re.compile(r'^\s*(\d+)\s*\|' + CELL * 3 + '(?:' + CELL + ')?')


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def fields(rest):
    """key=value pairs; a value runs to the next ' key=' (so 'op=event query' stays whole)."""
    return {k: v.strip() for k, v in KV.findall(rest)}


class Run:
    def __init__(self):
        self.ordering = {}   # c -> fields
        self.ranges = {}     # c -> {mode: (lo, hi)}
        self.bound = {}      # c -> fields
        self.dispatch = {}   # op -> fields
        self.overhead = {}   # (driver, call) -> fields
        self.graphs = None
        self.compile = {}    # line tag + label -> fields
        self.title = []
        self.sources = []

    def read(self, path):
        self.sources.append(str(path))
        for line in path.read_text(errors='replace').splitlines():
            self.line(line.rstrip())

    def line(self, line):
        if line.startswith('gpushim GPU run: '):
            when = re.search(r'(\d{4}-\d\d-\d\d \d\d:\d\d)', line)
            if when and when.group(1) not in self.title:
                self.title.append(when.group(1) + ' UTC')
            return
        gpu = re.match(r'^GPU 0: (.*?) \(UUID', line)
        if gpu:
            if gpu.group(1) not in self.title:
                self.title.insert(0, gpu.group(1))
            return
        row = TABLE_ROW.match(line)
        if row:
            c = int(row.group(1))
            self.ranges[c] = {m: (float(row.group(3 + 3 * i)), float(row.group(4 + 3 * i)))
                              for i, m in enumerate(('a', 'b', 'c', 'd')) if row.group(3 + 3 * i) is not None}
            return
        tag, _, rest = line.partition(' ')
        if tag == 'ORDERING_BENCH':
            f = fields(rest)
            if number(f.get('c', '')) is not None:
                self.ordering[int(float(f['c']))] = f
        elif tag == 'ORDERING_BOUND':
            f = fields(rest)
            if number(f.get('c', '')) is not None:
                self.bound[int(float(f['c']))] = f
        elif tag == 'DISPATCH':
            f = fields(rest)
            if 'op' in f:
                self.dispatch[f['op']] = f
        elif tag == 'OVERHEAD':
            call, _, rest2 = rest.partition(' ')
            f = fields(rest2)
            # Runs with call tracing on measure the tracing, not the call path: they are left out.
            if f.get('trace', 'off') == 'off':
                self.overhead[(f.get('driver', '?'), call)] = f
        elif tag == 'GRAPHS':
            self.graphs = fields(rest)
        elif tag.startswith('COMPILE'):
            f = fields(rest)
            label = ' '.join(f'{k}={v}' for k, v in f.items() if number(v) is None)
            self.compile[(tag + ' ' + label).strip()] = f

    def subtitle(self):
        return ', '.join(self.title) if self.title else ', '.join(self.sources)


def finish(fig, out, name, written):
    path = out / name
    fig.savefig(path, format='svg', metadata=SVG_META, bbox_inches='tight')
    plt.close(fig)
    written.append(path)


def placeholder(out, name, title, why, written):
    fig, ax = plt.subplots(figsize=(7, 1.6))
    ax.axis('off')
    ax.text(0.5, 0.62, title, ha='center', va='center', fontsize=12, weight='bold')
    ax.text(0.5, 0.25, why, ha='center', va='center', color='#555555')
    finish(fig, out, name, written)
    print(f'plot-bench: {name}: placeholder: {why}')


def plot_ordering(run, out, written):
    name = 'plot-ordering.svg'
    cs = sorted(run.ordering)
    if not cs:
        placeholder(out, name, 'Ordering: requests/s against concurrency', 'no ORDERING_BENCH lines in the logs', written)
        return
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for key, label, colour in MODES:
        xs = [c for c in cs if number(run.ordering[c].get(key + '_rps', '')) is not None]
        if not xs:
            continue
        ys = [float(run.ordering[c][key + '_rps']) for c in xs]
        err = None
        if all(c in run.ranges and key in run.ranges[c] for c in xs):
            err = [[y - run.ranges[c][key][0] for c, y in zip(xs, ys)],
                   [run.ranges[c][key][1] - y for c, y in zip(xs, ys)]]
        ax.errorbar(xs, ys, yerr=err, marker='o', capsize=3, color=colour, label=label,
                    linestyle='--' if key == 'b' else '-')
        for c, y in zip(xs, ys):
            wrong = number(run.ordering[c].get('wrong_' + key, ''))
            total = number(run.ordering[c].get('requests', ''))
            if wrong:
                ax.annotate(f'{wrong:.0f}' + (f' of {total:.0f}' if total else '') + ' wrong', (c, y),
                            textcoords='offset points', xytext=(6, -12), fontsize=8, color=colour)
    bxs = [c for c in sorted(run.bound) if number(run.bound[c].get('bound_rps', '')) is not None]
    if bxs:
        ax.plot(bxs, [float(run.bound[c]['bound_rps']) for c in bxs], color='#2ca02c', linestyle=':', marker='_',
                markersize=14, label='bound if the GPU were never idle')
        for c in bxs:
            frac = number(run.bound[c].get('fraction', ''))
            two = number(run.bound[c].get('two_in_flight_fraction', ''))
            if frac is not None:
                # The first label starts at its point and the last ends at it, so that neither leaves the axes.
                ha = 'left' if c == bxs[0] else 'right' if c == bxs[-1] and len(bxs) > 1 else 'center'
                ax.annotate(f'c at {frac:.2f}' + (f', d at {two:.2f}' if two is not None else '') + ' of it',
                            (c, float(run.bound[c]['bound_rps'])), textcoords='offset points', xytext=(0, 6),
                            ha=ha, fontsize=8, color='#2ca02c')
    hxs = [c for c in sorted(run.bound) if number(run.bound[c].get('host_only_rps', '')) is not None]
    if hxs:
        ax.plot(hxs, [float(run.bound[c]['host_only_rps']) for c in hxs], color='#8c564b', linestyle=':',
                marker='x', label="the host's work alone on c threads (no GPU)")
    ax.set_xticks(cs)
    ax.set_xlabel('concurrent workers (c), each with its own stream')
    ax.set_ylabel('requests/s (median' + (', min..max' if run.ranges else '') + ')')
    ax.set_ylim(bottom=0, top=ax.get_ylim()[1] * 1.08)
    ax.set_title('Ordering: throughput against concurrency\n' + run.subtitle(), fontsize=10)
    ax.legend(fontsize=8, loc='upper center', bbox_to_anchor=(0.5, -0.14), frameon=False)
    ax.grid(axis='y', alpha=0.3)
    finish(fig, out, name, written)


def plot_dispatch(run, out, written):
    name = 'plot-dispatch.svg'
    ops = [op for op in run.dispatch
           if number(run.dispatch[op].get('gpushim_per_s', '')) and number(run.dispatch[op].get('direct_per_s', ''))]
    drivers = sorted({d for d, _ in run.overhead})
    panels = (1 if ops else 0) + len(drivers)
    if not panels:
        placeholder(out, name, 'Dispatch overhead per call', 'no DISPATCH or OVERHEAD lines in the logs', written)
        return
    fig, axes = plt.subplots(panels, 1, figsize=(7.5, 3.4 * panels), squeeze=False)
    axes = list(axes[:, 0])
    if ops:
        ax = axes.pop(0)
        x = range(len(ops))
        ours = [1e9 / float(run.dispatch[op]['gpushim_per_s']) for op in ops]
        direct = [1e9 / float(run.dispatch[op]['direct_per_s']) for op in ops]
        w = 0.38
        ax.bar([i - w / 2 for i in x], direct, w, color='#7f7f7f', label='the driver called directly')
        ax.bar([i + w / 2 for i in x], ours, w, color='#1f77b4', label='through gpushim')
        for i, op in enumerate(ops):
            f = run.dispatch[op]
            med = number(f.get('paired_median', ''))
            text = f'paired ratio {med:.3f}' if med is not None else f'ratio {number(f.get("ratio", "")) or 0:.3f}'
            lo, hi = number(f.get('paired_min', '')), number(f.get('paired_max', ''))
            if lo is not None and hi is not None:
                text += f'\n({lo:.3f}..{hi:.3f})'
            ax.annotate(text, (i, max(ours[i], direct[i])), textcoords='offset points', xytext=(0, 4), ha='center',
                        fontsize=8)
        ax.set_xticks(list(x))
        ax.set_xticklabels(ops)
        ax.set_ylabel('ns per call (median rep)')
        ax.set_ylim(top=max(ours + direct) * 1.3)
        ax.set_title('Dispatch: a call through gpushim and the same call made directly (real driver)\n'
                     + run.subtitle() + '; ratio = direct time / gpushim time, 1.0 = no cost', fontsize=10)
        ax.legend(fontsize=8, frameon=False, loc='upper right')
        ax.grid(axis='y', alpha=0.3)
    for driver in drivers:
        ax = axes.pop(0)
        calls = [c for d, c in run.overhead if d == driver]
        deltas = [number(run.overhead[(driver, c)].get('delta_ns', '')) or 0.0 for c in calls]
        lo = [number(run.overhead[(driver, c)].get('delta_min', '')) for c in calls]
        hi = [number(run.overhead[(driver, c)].get('delta_max', '')) for c in calls]
        err = None
        if all(v is not None for v in lo + hi):
            err = [[d - l for d, l in zip(deltas, lo)], [h - d for d, h in zip(deltas, hi)]]
        ax.bar(range(len(calls)), deltas, 0.6, yerr=err, capsize=3, color='#ff7f0e')
        for i, c in enumerate(calls):
            f = run.overhead[(driver, c)]
            g, d = number(f.get('gpushim_ns', '')), number(f.get('direct_ns', ''))
            if g is not None and d is not None:
                # Two lines, right of the error bar: a real driver's figures run to six digits.
                ax.annotate(f'{g:.1f}\nvs {d:.1f} ns', (i, max(deltas[i], 0)), textcoords='offset points',
                            xytext=(4, 3), ha='left', fontsize=7)
        ax.axhline(0, color='black', linewidth=0.6)
        ax.set_xlim(-0.6, max(len(calls), 3) - 0.4)
        ax.set_xticks(range(len(calls)))
        ax.set_xticklabels(calls, rotation=20, ha='right')
        ax.set_ylabel('ns gpushim adds a call\n(median of paired reps, min..max)')
        ax.set_title(f'Overhead against driver {driver} (bench-overhead)', fontsize=10)
        ax.grid(axis='y', alpha=0.3)
    fig.tight_layout()
    finish(fig, out, name, written)


def plot_graphs(run, out, written):
    name = 'plot-graphs.svg'
    g = run.graphs or {}
    eager, replay = number(g.get('eager_us', '')), number(g.get('graph_us', ''))
    if eager is None or replay is None:
        placeholder(out, name, 'Graph replay against eager launches', 'no GRAPHS line in the logs', written)
        return
    kernels = number(g.get('kernels', '')) or 0
    fig, ax = plt.subplots(figsize=(6, 3.4))
    labels = [f'{kernels:.0f} launches, one by one' if kernels else 'launches one by one', 'one graph replay']
    bars = ax.barh(labels, [eager, replay], color=['#7f7f7f', '#1f77b4'])
    for bar, us in zip(bars, [eager, replay]):
        per = f', {us / kernels:.2f} µs a kernel' if kernels else ''
        ax.annotate(f'{us:.1f} µs{per}', (us, bar.get_y() + bar.get_height() / 2), textcoords='offset points',
                    xytext=(4, 0), va='center', fontsize=8)
    ax.set_xlim(right=eager * 1.45)
    ax.invert_yaxis()
    ax.set_xlabel('µs per iteration (median)')
    ratio = number(g.get('ratio', '')) or eager / replay
    wrong = g.get('wrong', '?')
    ax.set_title(f'Graphs: replay is {ratio:.2f}x faster (data wrong: {wrong})\n' + run.subtitle(), fontsize=10)
    ax.grid(axis='x', alpha=0.3)
    finish(fig, out, name, written)


def plot_compile(run, out, written):
    name = 'plot-compile.svg'
    scale = {'ms': 1.0, 'us': 1e-3, 'ns': 1e-6}
    bars = []  # (label, ms)
    for key, f in run.compile.items():
        for k, v in f.items():
            m = re.match(r'^(.*)_(ms|us|ns)$', k)
            if m and number(v) is not None:
                label = re.sub(r'^COMPILE\w*\s*', '', f'{key} {m.group(1)}')
                bars.append((label.strip(), float(v) * scale[m.group(2)]))
    if not bars:
        placeholder(out, name, 'Compile cache: hit against cold compile',
                    'no COMPILE lines in the logs (bench-compile not run yet)', written)
        return
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(bars) + 1.8))
    colours = ['#1f77b4' if re.search(r'hit|warm|cached', lbl) else '#7f7f7f' for lbl, _ in bars]
    ax.barh([lbl for lbl, _ in bars], [ms for _, ms in bars], color=colours)
    for i, (_, ms) in enumerate(bars):
        ax.annotate(f'{ms:.3g} ms', (ms, i), textcoords='offset points', xytext=(4, 0), va='center', fontsize=8)
    ax.set_xscale('log')
    ax.invert_yaxis()
    ax.set_xlabel('ms (log scale)')
    ratios = [f'{k}: {v}' for f in run.compile.values() for k, v in f.items() if 'ratio' in k]
    ax.set_title('Compile: cache hit against cold compile' + (' (' + ', '.join(ratios) + ')' if ratios else '')
                 + '\n' + run.subtitle(), fontsize=10)
    ax.grid(axis='x', alpha=0.3)
    finish(fig, out, name, written)


def inputs(paths):
    for p in paths:
        p = pathlib.Path(p)
        if p.is_dir():
            found = sorted(p.glob('summary.txt')) + sorted(p.glob('bench-*.log'))
            if not found:
                print(f'plot-bench: {p}: no summary.txt or bench-*.log', file=sys.stderr)
            yield from found
        elif p.is_file():
            yield p
        else:
            print(f'plot-bench: {p}: no such file or folder', file=sys.stderr)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent / 'docs',
                    help='folder for the SVGs (default: docs/)')
    ap.add_argument('logs', nargs='+', help="files or run folders ($OUT of maint/run-gpu.sh)")
    args = ap.parse_args(argv)
    run = Run()
    for path in inputs(args.logs):
        run.read(path)
    if not run.sources:
        print('plot-bench: nothing to read', file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    written = []
    for plot in (plot_ordering, plot_dispatch, plot_graphs, plot_compile):
        plot(run, args.out, written)
    print(f'plot-bench: read {len(run.sources)} files: {len(run.ordering)} ordering, {len(run.bound)} bound, '
          f'{len(run.dispatch)} dispatch, {len(run.overhead)} overhead, {1 if run.graphs else 0} graphs, '
          f'{len(run.compile)} compile lines')
    for p in written:
        print(f'plot-bench: wrote {p}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
