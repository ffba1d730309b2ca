"""What a reader of the notebooks meets, counted: outputs, export-cell sizes, stderr, long lines.

    .venv/bin/python tools/nb_stats.py            # a summary and the notebooks that need attention
    .venv/bin/python tools/nb_stats.py --json     # the same numbers as JSON
    .venv/bin/python tools/nb_stats.py --story    # per notebook, the story before `## Tests` (issue 47's targets)
    .venv/bin/python tools/nb_stats.py --asserts  # per notebook, its asserts (`--write`: into nbs/asserts.json)

Counts over nbs/*.ipynb: visible code cells (not `#| hide`) with at least one output, notebooks with no output at
all (a stderr stream alone is not an output), export cells' line counts (median, maximum, how many over 40), stderr
outputs (by notebook), code lines over 120 characters (in notebooks, and in the generated library).

`--asserts` counts each notebook's checks: calls of `test_eq`, `test_fail`, `test_close`, `test_ne`, `test_is` and
`assert` statements, in code cells only. `tools/repo_checks.py` fails when a notebook has fewer than nbs/asserts.json
records, so a test is not lost silently; write the record after adding tests, or lower it with a test rightly removed.
"""
import argparse, ast, glob, json, re, statistics
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


def _top_bound(tree) -> set:
    "Names a cell binds at module level: imports, defs, classes, assignment and loop targets."
    out = set()
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split('.')[0] for a in n.names if a.name != '*'}
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): out.add(n.name)
        else:
            for t in ast.walk(n):
                if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store): out.add(t.id)
    return out


def story(path: Path) -> dict:
    """The story of one notebook: its visible non-export code cells before the first `## Tests` heading, the asserts in
    them (lines starting with `assert` or a `test_*(` call) and how many have an output; and, over the whole notebook,
    the names visible cells use that only a hidden cell defines or imports (the test helpers' star import aside)."""
    cells = json.loads(path.read_text())['cells']
    vis = asserts = shown = 0
    hidden_only, uses, in_story = set(), set(), True
    for c in cells:
        s = ''.join(c['source'])
        if c['cell_type'] == 'markdown':
            if re.search(r'^## Tests\b', s, re.M): in_story = False
            continue
        if c['cell_type'] != 'code': continue
        d = directives(s)
        try: tree = ast.parse('\n'.join(l for l in s.splitlines() if not l.lstrip().startswith(('%', '!'))))
        except SyntaxError: tree = None
        if 'hide' in d:
            if tree: hidden_only |= _top_bound(tree)
            continue
        if tree:
            nodes = list(ast.walk(tree))
            local = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            local |= {n.arg for n in nodes if isinstance(n, ast.arg)}  # a function's own names are no use of them
            loads = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            uses |= loads & hidden_only - local
            hidden_only -= _top_bound(tree)
        if not in_story or d & {'export', 'exporti', 'default_exp'}: continue
        vis += 1
        asserts += sum(bool(re.match(r'\s*(assert\b|test_\w*\()', l)) for l in s.splitlines())
        shown += any(not (o.get('output_type') == 'stream' and o.get('name') == 'stderr') for o in c.get('outputs', []))
    return dict(visible=vis, asserts=asserts, asserts_per_cell=round(asserts / max(vis, 1), 2),
                with_output_share=round(shown / max(vis, 1), 2), hidden_names=sorted(uses))


TESTS = {'test_eq', 'test_fail', 'test_close', 'test_ne', 'test_is'}
ASSERTS_JSON = ROOT/'nbs'/'asserts.json'


def assert_count(path: Path) -> int:
    """The checks in a notebook's code cells: calls of the `TESTS` functions and `assert` statements (a line of IPython
    magic or shell is left out of the parse; a cell that still does not parse is counted line by line)."""
    n = 0
    for c in json.loads(path.read_text())['cells']:
        if c['cell_type'] != 'code': continue
        s = '\n'.join(l for l in ''.join(c['source']).splitlines() if not l.lstrip().startswith(('%', '!')))
        try: nodes = list(ast.walk(ast.parse(s)))
        except SyntaxError:
            n += sum(len(re.findall(rf"\b(?:{'|'.join(TESTS)})\(|(?:^|;)\s*assert\b", l)) for l in s.splitlines())
            continue
        n += sum(isinstance(x, ast.Assert) for x in nodes)
        n += sum(isinstance(x, ast.Call) and bool(TESTS & {getattr(x.func, 'id', None), getattr(x.func, 'attr', None)})
                 for x in nodes)
    return n


def assert_counts(nbs_dir: Path = ROOT/'nbs') -> dict:
    "Notebook stem -> its `assert_count`, sorted by stem."
    return {p.stem: assert_count(p) for p in sorted(nbs_dir.glob('*.ipynb'))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--json', action='store_true', help='print the numbers as JSON')
    ap.add_argument('--story', action='store_true',
                    help='per notebook: asserts per visible story cell, share with output, hidden names used')
    ap.add_argument('--asserts', action='store_true',
                    help="per notebook: its asserts (test_eq, test_fail, test_close, test_ne, test_is, assert)")
    ap.add_argument('--write', action='store_true', help='with --asserts: write the counts to nbs/asserts.json')
    a = ap.parse_args()
    if a.write and not a.asserts: ap.error('--write goes with --asserts')
    if a.asserts:
        counts = assert_counts()
        if a.write:
            ASSERTS_JSON.write_text(json.dumps(counts, indent=1, sort_keys=True) + '\n')
            print(f"wrote {len(counts)} notebooks' assert counts ({sum(counts.values())} in all) to "
                  f"{ASSERTS_JSON.relative_to(ROOT)}")
            return
        for k, v in counts.items(): print(f'{k:34}{v:>6}')
        print(f"{'all':34}{sum(counts.values()):>6}")
        return
    if a.story:
        print(f"{'notebook':34}{'cells':>6}{'asserts/cell':>13}{'output':>8}  names only a hidden cell defines")
        for p in sorted((ROOT/'nbs').glob('*.ipynb')):
            st = story(p)
            print(f"{p.stem:34}{st['visible']:>6}{st['asserts_per_cell']:>13.2f}{st['with_output_share']:>8.0%}  "
                  f"{' '.join(st['hidden_names'])}")
        return
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
