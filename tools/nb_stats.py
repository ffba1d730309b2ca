"""What a reader of the notebooks meets, counted: outputs, export-cell sizes, stderr, long lines.

    .venv/bin/python tools/nb_stats.py            # a summary and the notebooks that need attention
    .venv/bin/python tools/nb_stats.py --json     # the same numbers as JSON

Counts over nbs/*.ipynb: visible code cells (not `#| hide`) with at least one output, notebooks with no output at
all (a stderr stream alone is not an output), export cells' line counts (median, maximum, how many over 40), stderr
outputs (by notebook), code lines over 120 characters (in notebooks, and in the generated library).
"""
import argparse, glob, json, statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def directives(src: str) -> set:
    "The `#| ...` directives of a cell (first words after the bar)."
    return {l[3:].strip().split()[0] for l in src.splitlines() if l.startswith('#| ') and l[3:].strip()}


def stats(nbs_dir: Path = ROOT/'nbs', lib_dir: Path = ROOT/'vrag_nb') -> dict:
    "The counts, overall and per notebook."
    per, export_lens, long_nb = {}, [], 0
    for p in sorted(nbs_dir.glob('*.ipynb')):
        cells = json.loads(p.read_text())['cells']
        code = [c for c in cells if c['cell_type'] == 'code']
        src = lambda c: ''.join(c['source'])
        visible = [c for c in code if not directives(src(c)) & {'hide', 'export', 'exporti', 'default_exp'}]
        stderr = sum(o.get('output_type') == 'stream' and o.get('name') == 'stderr'
                     for c in code for o in c.get('outputs', []))
        exports = [len(src(c).splitlines()) for c in code if directives(src(c)) & {'export', 'exporti'}]
        export_lens += exports
        longs = sum(len(l) > 120 for c in code for l in src(c).splitlines())
        long_nb += longs
        shown = lambda c: any(not (o.get('output_type') == 'stream' and o.get('name') == 'stderr')
                              for o in c.get('outputs', []))
        per[p.stem] = dict(visible=len(visible), with_output=sum(shown(c) for c in visible),
                           any_output=any(shown(c) for c in code), stderr=stderr, long_lines=longs,
                           export_max=max(exports, default=0))
    # nbdev_export's own `__all__ = [...]` first line is not counted (it wraps the list at 120, then adds the prefix)
    lib_long = sum(len(l) > 120 and not l.startswith('__all__ = ') for f in lib_dir.rglob('*.py')
                   if f.name != '_modidx.py' for l in f.read_text().splitlines())
    vis, out = sum(v['visible'] for v in per.values()), sum(v['with_output'] for v in per.values())
    return dict(notebooks=len(per), visible_code_cells=vis, with_output=out,
                with_output_share=round(out / max(vis, 1), 3),
                notebooks_without_output=[k for k, v in per.items() if not v['any_output']],
                export_cells=len(export_lens), export_median=statistics.median(export_lens) if export_lens else 0,
                export_max=max(export_lens, default=0), export_over_40=sum(n > 40 for n in export_lens),
                stderr_outputs={k: v['stderr'] for k, v in per.items() if v['stderr']},
                long_lines_notebooks=long_nb, long_lines_library=lib_long, per_notebook=per)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--json', action='store_true', help='print the numbers as JSON')
    a = ap.parse_args()
    s = stats()
    if a.json: print(json.dumps(s, indent=1)); return
    print(f"{s['notebooks']} notebooks; visible code cells with an output: "
          f"{s['with_output']} of {s['visible_code_cells']}"
          f" ({s['with_output_share']:.0%})")
    print(f"notebooks without any output: {len(s['notebooks_without_output'])} {s['notebooks_without_output']}")
    print(f"export cells: {s['export_cells']}, median {s['export_median']} lines, max {s['export_max']}, "
          f"over 40: {s['export_over_40']}")
    print(f"stderr outputs: {sum(s['stderr_outputs'].values())} {s['stderr_outputs']}")
    print(f"code lines over 120 characters: {s['long_lines_notebooks']} in notebooks, "
          f"{s['long_lines_library']} in the library")


if __name__ == '__main__': main()
