"""Repository checks that `make test` runs beside the notebooks: citations of the reference notes point to sections that
exist, the library's import graph keeps its layers, the notebooks as committed show their pictures within a size
budget, no notebook has fewer asserts than nbs/asserts.json records for it, and the notebooks' prose keeps a reader's
rhythm (words a markdown cell) and its code a reader's: one statement a line, test cells labelled and short, no
visible cell leaning on a hidden one, stderr only where the story is about it.

`python tools/repo_checks.py` prints one line per check and exits non-zero when one fails.
"""
import ast, json, re, sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent

def texts():
    """(path, text) of every file that may cite the reference notes: notebooks (cell sources), the library, README,
    benchmarks, tools."""
    for p in sorted(root.glob('nbs/*.ipynb')):
        yield p, '\n'.join(''.join(c['source']) for c in json.loads(p.read_text())['cells'])
    for pattern in ('vrag_nb/**/*.py', 'benchmarks/*.py', 'tools/*.py', 'README.md', 'nbs/*.md'):
        for p in sorted(root.glob(pattern)):
            if p.name != Path(__file__).name: yield p, p.read_text()

def citation_problems() -> list[str]:
    """Citations `reference.md §N` whose section N is not a `## §N` heading of nbs/reference.md, and any citation of the
    old name."""
    sections = set(re.findall(r'^## §(\d+)\b', (root/'nbs'/'reference.md').read_text(), re.M))
    problems = []
    for p, text in texts():
        for m in re.finditer(r'reference\.md\s*§\s*(\d+)', text):
            if m[1] not in sections:
                problems.append(f'{p.relative_to(root)}: {m[0]!r} cites no section of nbs/reference.md')
        if 'REFERENCE' + '.md' in text:
            problems.append(
                f'{p.relative_to(root)}: cites REFERENCE' + '.md, which is not in the repository (use reference.md)'
            )
        for name in ('ENVIRONMENT', 'DESIGN'):  # the developers' notes, which users do not have
            if name + '.md' in text:
                problems.append(f'{p.relative_to(root)}: cites {name}.md, which is not in the repository')
    return problems

# The layers, lowest first: a module may import from its own layer and the ones before it, never from a later one.
LAYERS = ('files', 'core', 'models', 'retrieval', 'agent', 'vimrag', 'eval', 'rl', 'rl.verl', 'cli')
# What a layer's modules may import at module level, beyond the base install (heavier libraries are imported inside
# functions).
HEAVY = {'torch': 'rl', 'transformers': 'rl', 'peft': 'rl', 'verl': 'rl.verl'}

def layer_of(module: str) -> int | None:
    "Position in LAYERS of a `vrag_nb...` module (None for the package root and `_modidx`)."
    parts = module.split('.')[1:]
    name = 'rl.verl' if parts[:2] == ['rl', 'verl'] else parts[0] if parts else ''
    return LAYERS.index(name) if name in LAYERS else None

def import_problems() -> list[str]:
    """Imports of a private name from another module, imports against the layer order, and heavy libraries imported at
    module level too early."""
    problems = []
    for p in sorted((root/'vrag_nb').rglob('*.py')):
        if p.name == '_modidx.py': continue
        me = '.'.join(p.relative_to(root).with_suffix('').parts).removesuffix('.__init__')
        pkg = me if p.name == '__init__.py' else me.rsplit('.', 1)[0]
        tree = ast.parse(p.read_text())
        top = set(map(id, tree.body))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = pkg.rsplit('.', node.level - 1)[0] if node.level > 1 else pkg
                targets = [(base + '.' + node.module if node.module else base) if node.level else node.module or '']
                names = [a.name for a in node.names]
            elif isinstance(node, ast.Import): targets, names = [a.name for a in node.names], []
            else: continue
            for t in targets:
                lib, lt, lm = t.split('.')[0], layer_of(t), layer_of(me)
                if lib in HEAVY and id(node) in top and lm is not None and lm < LAYERS.index(HEAVY[lib]):
                    problems.append(
                        f'{me} ({LAYERS[lm]}) imports {lib} at module level: only {HEAVY[lib]} and later layers may '
                        f'(import it where it is used)'
                    )
                if lib != 'vrag_nb': continue
                problems += [
                    f'{me}: imports the private name {n} from {t}'
                    for n in names
                    if n.startswith('_') and not n.startswith('__')
                ]
                if lt is not None and lm is not None and lt > lm:
                    problems.append(
                        f'{me} ({LAYERS[lm]}) imports {t} ({LAYERS[lt]}): against the layer order {" -> ".join(LAYERS)}'
                    )
    return problems

def module_problems() -> list[str]:
    """Circles among the modules' top-level imports (a module that needs another at import time must not be needed by
    it). A module's length is not checked: it holds one idea and is as long as that idea needs (DESIGN), and a line
    count only ever made modules squeeze their lines."""
    import networkx as nx
    problems, g = [], nx.DiGraph()
    for p in sorted((root/'vrag_nb').rglob('*.py')):
        if p.name == '_modidx.py': continue
        text = p.read_text()
        me = '.'.join(p.relative_to(root).with_suffix('').parts).removesuffix('.__init__')
        pkg = me if p.name == '__init__.py' else me.rsplit('.', 1)[0]
        g.add_node(me)
        for node in ast.parse(text).body:  # module level only: an import inside a function runs when it is called
            if isinstance(node, ast.ImportFrom) and node.level:
                base = pkg.rsplit('.', node.level - 1)[0] if node.level > 1 else pkg
                mods = [base + '.' + node.module] if node.module else [f'{base}.{a.name}' for a in node.names]
            elif isinstance(node, ast.ImportFrom): mods = [node.module or '']
            elif isinstance(node, ast.Import): mods = [a.name for a in node.names]
            else: continue
            g.add_edges_from((me, m) for m in mods if m.startswith('vrag_nb.') and m != me)
    g.remove_nodes_from([m for m in list(g) if m.count('.') and (root/Path(*m.split('.'))).is_dir()])  # packages
    problems += [f'import circle: {" -> ".join(c + c[:1])}' for c in nx.simple_cycles(g)]
    return problems

# Notebooks that must show pictures as committed (executed by `make notebooks`), and how many at least: a reader on
# GitHub
# sees them without running anything. A picture is an image output, or a Markdown image of a file in the repository.
PICTURES = {
    '01_tour': 5,
    '10_retrieval.corpus': 3,
    '17_retrieval.colqwen': 1,
    '18_retrieval.index': 1,
    '30_agent.views': 1,
    '33_agent.loop': 1,
    '36_agent.widgets': 3,
    '40_vimrag.graph': 1,
    '42_vimrag.agent': 1,
    '44_vimrag.views': 2,
    '50_eval.rewards': 1,
    '60_rl.grpo': 2,
    '62_rl.toy_train': 1,
    '63_rl.ggpo': 1,
    '69_rl.learn': 1,
    '52_eval.retrieval': 1,
    '54_eval.agents': 1,
    'index': 3,
}
NBS_BUDGET = 4_000_000  # bytes: everything under nbs/ (notebooks with their outputs, images, notes)

def pictures(nb: dict) -> int:
    "Image outputs of a notebook plus Markdown images (`![...](path)`) whose file exists beside it."
    n = 0
    for c in nb['cells']:
        n += sum(any(k.startswith('image/') for k in o.get('data', {})) for o in c.get('outputs', []))
        if c['cell_type'] == 'markdown':
            n += sum((root/'nbs'/m).is_file() for m in re.findall(r'!\[[^\]]*\]\(([^)\s]+)', ''.join(c['source'])))
    return n

def picture_problems() -> list[str]:
    "Notebooks of PICTURES with fewer pictures than they should show, and nbs/ over NBS_BUDGET."
    problems = []
    for name, want in PICTURES.items():
        got = pictures(json.loads((root/'nbs'/f'{name}.ipynb').read_text()))
        if got < want:
            problems.append(
                f'nbs/{name}.ipynb shows {got} pictures as committed, it should show {want}: run `make notebooks`'
            )
    # what is committed: not Jupyter's checkpoints, hypothesis's or schemathesis's example databases (git-ignored)
    size = sum(f.stat().st_size for f in (root/'nbs').rglob('*')
               if f.is_file() and not {'.ipynb_checkpoints', '.hypothesis', '.schemathesis'} & set(f.parts))
    if size > NBS_BUDGET:
        problems.append(f'nbs/ holds {size:,} bytes, over its budget of {NBS_BUDGET:,}: smaller images, fewer outputs')
    return problems

def assert_problems() -> list[str]:
    """Notebooks with fewer asserts than their record in nbs/asserts.json (`tools/nb_stats.py --asserts` counts them),
    and notebooks with no record: a test deleted in passing is caught, a test rightly removed lowers the record."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from nb_stats import ASSERTS_JSON, assert_counts
    write = '`python tools/nb_stats.py --asserts --write`'
    if not ASSERTS_JSON.is_file(): return [f'nbs/asserts.json is missing: write it with {write}']
    record, problems = json.loads(ASSERTS_JSON.read_text()), []
    for name, n in assert_counts().items():
        if name not in record:
            problems.append(f'nbs/{name}.ipynb has no record in nbs/asserts.json ({n} asserts now): record it with '
                            f'{write}')
        elif n < record[name]:
            problems.append(
                f'nbs/{name}.ipynb has {n} asserts, nbs/asserts.json records {record[name]}: restore the tests, or, '
                f'when a test is rightly removed, lower the record in the same commit'
            )
    return problems

PROSE_MEDIAN, PROSE_MAX = 30, 250  # words a markdown cell: the median over every notebook; the most one cell holds
PROSE_LEARN = 1500  # words of prose in 69_rl.learn, the notebook of results most tempted to tell run histories

def prose_problems() -> list[str]:
    """Prose at a reader's rhythm: over all the notebooks, the median markdown cell holds at most `PROSE_MEDIAN` words
    and none more than `PROSE_MAX` (a table too: split it by kind of row)."""
    import statistics
    words, problems = [], []
    for p in sorted((root/'nbs').glob('*.ipynb')):
        for i, c in enumerate(json.loads(p.read_text())['cells']):
            if c['cell_type'] != 'markdown': continue
            words.append(n := len(''.join(c['source']).split()))
            if n > PROSE_MAX:
                problems.append(f'nbs/{p.name}: markdown cell {i} holds {n} words, over {PROSE_MAX}: split or cut it')
    cells = json.loads((root/'nbs'/'69_rl.learn.ipynb').read_text())['cells']
    learn = sum(len(''.join(c['source']).split()) for c in cells if c['cell_type'] == 'markdown')
    if learn > PROSE_LEARN:
        problems.append(f'nbs/69_rl.learn.ipynb: {learn} words of prose, over {PROSE_LEARN}: its runs go in figures')
    if words and (m := statistics.median(words)) > PROSE_MEDIAN:
        problems.append(f'the median markdown cell holds {m:g} words, over {PROSE_MEDIAN}: shorter paragraphs')
    return problems

SEMICOLONS_PER_1000 = 10  # `;`-joined lines a thousand lines of visible notebook code (fastcore: 7)

def visible_code(nb: dict):
    "(index, source) of each code cell a reader sees (not hidden by `#| hide`, `#| include: false`, `#| echo: false`)."
    for i, c in enumerate(nb['cells']):
        src = ''.join(c['source'])
        if c['cell_type'] == 'code' and not re.search(r'^#\|\s*(hide|include:\s*false|echo:\s*false)\s*$', src, re.M):
            yield i, src

def code_problems() -> list[str]:
    """Code a reader reads: statements on their own lines, at most `SEMICOLONS_PER_1000` lines joined by `;` a thousand
    lines of visible notebook code (a trailing `;` that hides a cell's output counts too)."""
    import io, tokenize
    lines = joined = 0
    for p in sorted((root/'nbs').glob('*.ipynb')):
        for _, src in visible_code(json.loads(p.read_text())):
            lines += sum(bool(l.strip()) and not l.startswith('#|') for l in src.split('\n'))
            try: toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
            except (tokenize.TokenError, SyntaxError): continue  # a cell of shell or magics
            joined += len({t.start[0] for t in toks if t.type == tokenize.OP and t.string == ';'})
    if lines and 1000 * joined / lines > SEMICOLONS_PER_1000:
        return [f'{joined} lines joined by ";" in {lines} lines of visible notebook code: '
                f'{1000 * joined / lines:.1f} a thousand, over {SEMICOLONS_PER_1000}: one statement a line']
    return []

TEST_CELL_LINES = 10  # lines of a test cell (fastai's tests: 4 to 6), its label and `#|` directives not counted

def is_test_cell(src: str) -> bool:
    "A visible code cell that checks: it calls `test_*` or asserts, and exports nothing."
    return (not re.search(r'^#\|\s*export', src, re.M)
            and bool(re.search(r'(?<![\w.])test_\w+\(|^\s*assert\b', src, re.M)))

# The test cells over `TEST_CELL_LINES` lines that no split at a statement boundary can shorten without changing the
# code, by notebook and cell id, with the reason. The list only shrinks: a cell that is shortened must leave it.
LONG_TEST_CELLS = {
    '15_retrieval.static.ipynb#stt_t02-t1': 'one try/finally block: what it starts is stopped in the same cell',
    '23_retrieval.rerank.ipynb#rr30-t1': 'one try/finally block: what it starts is stopped in the same cell',
    '30_agent.views.ipynb#1dd13e09-t1': 'one property test (a def) with its asserts inside',
    '30_agent.views.ipynb#4219a58c': 'one property test (a def) with its asserts inside',
    '36_agent.widgets.ipynb#2bf9c97f': 'one block, run only where a browser is installed',
    '39_agent.llm_server.ipynb#219a41d1': 'one try/finally block: what it starts is stopped in the same cell',
    '52_eval.retrieval.ipynb#cc2d44fd-t1': 'each split would display a write_text count',
    '52_eval.retrieval.ipynb#52nat2': 'one checking function, called by the next cell',
    '54_eval.agents.ipynb#2f7b2d53-t2': 'its stderr output comes from its first run: a split would move it',
    '54_eval.agents.ipynb#7d860616-t1': 'its stderr output comes from its first run: a split would move it',
    '60_rl.grpo.ipynb#3948bcdd-t1': 'one loop whose body holds its checks',
    '62_rl.toy_train.ipynb#toy_t09-t1': 'one try/finally block: what it starts is stopped in the same cell',
    '64_rl.codec.ipynb#d2c4a4aa-t1': 'one loop whose body holds its checks',
    '64_rl.codec.ipynb#vtcut02-t1': 'one loop whose body holds its checks',
    '65_rl.sampling.ipynb#shp23': 'one loop whose body holds its checks',
    '66_rl.rollout.ipynb#t66a05-t1': 'one loop whose body holds its checks',
    '66_rl.rollout.ipynb#roldb02-t1': 'one loop whose body holds its checks',
    '66_rl.rollout.ipynb#rolkv2-t3': 'one loop whose body holds its checks',
    '71_rl.verl.ext.ipynb#3f2ad2d8-t1': 'one loop whose body holds its checks',
    '79_rl.turn_cache.ipynb#shp21-t5': 'one loop whose body holds its checks',
    '79_rl.turn_cache.ipynb#shp23b': 'one loop whose body holds its checks',
    '80_cli.index.ipynb#d6067a95-t1': 'one try/finally block: what it starts is stopped in the same cell',
    '81_cli.agent.ipynb#ec3f5aff-t1': 'one try/finally block: what it starts is stopped in the same cell',
    '94_models.ipynb#mdl_t02-t1': 'one try/finally block: what it starts is stopped in the same cell',
}

def test_cell_problems(paths=None) -> list[str]:
    """Test cells a reader can take in: each opens (after its `#|` directives) with a `# test: ...` line saying what it
    checks, and holds at most `TEST_CELL_LINES` lines (but the cells of `LONG_TEST_CELLS`)."""
    problems, seen = [], set()
    for p in paths or sorted((root/'nbs').glob('*.ipynb')):
        nb = json.loads(Path(p).read_text())
        for i, src in visible_code(nb):
            if not is_test_cell(src): continue
            body = [l for l in src.split('\n') if l.strip() and not l.startswith('#|')]
            if not body or not re.match(r'#\s*test:\s*\S', body[0]):
                problems.append(f'nbs/{Path(p).name}: cell {i} checks without a `# test: ...` first line')
            key = f"{Path(p).name}#{nb['cells'][i].get('id')}"
            if len(body) - 1 > TEST_CELL_LINES:
                seen.add(key)
                if key not in LONG_TEST_CELLS:
                    problems.append(f'nbs/{Path(p).name}: test cell {i} holds {len(body) - 1} lines, '
                                    f'over {TEST_CELL_LINES}')
    if paths is None:
        problems += [f'{k}: within {TEST_CELL_LINES} lines now (or gone): drop it from LONG_TEST_CELLS'
                     for k in sorted(set(LONG_TEST_CELLS) - seen)]
    return problems

def _cell_tree(src: str):
    "A code cell's syntax tree, its magics and shell lines left out; None if it is not Python."
    try: return ast.parse('\n'.join(l for l in src.split('\n') if not re.match(r'\s*[%!]', l)))
    except SyntaxError: return None

def _sets(tree, top: bool) -> set:
    "Names a cell binds: at its top level (`top`: what later cells see), or anywhere (parameters, loop targets too)."
    out = set()
    for node in (tree.body if top else [tree]):
        for n in ([node] if top and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  else ast.walk(node)):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): out.add(n.name)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store): out.add(n.id)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                out |= {(a.asname or a.name).split('.')[0] for a in n.names}
            elif isinstance(n, ast.arg) and not top: out.add(n.arg)
            elif isinstance(n, ast.ExceptHandler) and n.name and not top: out.add(n.name)
    return out

def hidden_name_problems() -> list[str]:
    """Visible cells that lean on a hidden one: a name a visible cell reads whose last setting before it was in a cell
    the reader does not see (`#| hide`)."""
    import builtins
    problems = []
    for p in sorted((root/'nbs').glob('*.ipynb')):
        shown, last = dict(visible_code(nb := json.loads(p.read_text()))), {}
        for i, c in enumerate(nb['cells']):
            if c['cell_type'] != 'code' or (tree := _cell_tree(''.join(c['source']))) is None: continue
            if i in shown:
                reads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                lean = sorted(n for n in reads - _sets(tree, False) if n in last and not hasattr(builtins, n))
                if lean:
                    problems.append(f'nbs/{p.name}: cell {i} reads {", ".join(lean)}, last set in hidden cell(s) '
                                    f'{", ".join(str(last[n]) for n in lean)}: show that setting')
            for n in _sets(tree, True):
                if i in shown: last.pop(n, None)
                else: last[n] = i
    return problems

# what a stderr output in a committed notebook may be: a report the story is about (a bad input skipped, a failure
# reported and survived, Ctrl-C), never a library's warning or a progress bar
STORY_STDERR = re.compile(r'^\r?(skipped|.*: failed, skipped|judge failed on|interrupted: )', re.M)

def stderr_problems() -> list[str]:
    """Outputs on stderr only where the story is about them: each line a report of a skip, a failure or an interrupt
    (`STORY_STDERR`); a warning or progress bar from a library is silenced in the cell or fixed."""
    problems = []
    for p in sorted((root/'nbs').glob('*.ipynb')):
        for i, c in enumerate(json.loads(p.read_text())['cells']):
            for o in c.get('outputs', []):
                if o.get('name') != 'stderr': continue
                other = [l for l in ''.join(o.get('text', '')).splitlines() if l.strip() and not STORY_STDERR.match(l)]
                if other: problems.append(f'nbs/{p.name}: cell {i} writes to stderr: {other[0][:80]!r}')
    return problems

README_WORDS = 1800  # what a newcomer finishes (nbdev's and fastcore's READMEs: under 1,000)

def readme_problems() -> list[str]:
    "The README a newcomer finishes: at most `README_WORDS` words (it is generated from nbs/index.ipynb)."
    n = len((root/'README.md').read_text().split())
    if n <= README_WORDS: return []
    return [f'README.md holds {n} words, over {README_WORDS}: cut nbs/index.ipynb, then `make readme`']

STORY_ASSERTS = 1.2  # asserts a visible story cell, at most, over a notebook's story (before its `## Tests`)

def story_problems() -> list[str]:
    """Stories that read as stories: at most `STORY_ASSERTS` asserts a visible story cell (the robustness suites go
    under a closing `## Tests` heading), and every notebook with more than a handful of asserts has that heading."""
    sys.path.insert(0, str(root/'tools'))
    from nb_stats import story, assert_count
    problems = []
    for p in sorted((root/'nbs').glob('*.ipynb')):
        st = story(p)
        if st['asserts_per_cell'] > STORY_ASSERTS:
            problems.append(f"nbs/{p.name}: {st['asserts']} asserts in {st['visible']} story cells, over "
                            f'{STORY_ASSERTS} a cell: move checks under `## Tests`')
        heads = [''.join(c['source']) for c in json.loads(p.read_text())['cells'] if c['cell_type'] == 'markdown']
        if assert_count(p) > 5 and not any(re.search(r'^## Tests\b', h, re.M) for h in heads):
            problems.append(f'nbs/{p.name}: {assert_count(p)} asserts and no `## Tests` heading')
    return problems

if __name__ == '__main__':
    failed = False
    for what, problems in [
        ('citations of nbs/reference.md', citation_problems()),
        ('import graph (layers, private names)', import_problems()),
        ('import circles', module_problems()),
        ('pictures in the notebooks, size of nbs/', picture_problems()),
        ('asserts per notebook against nbs/asserts.json', assert_problems()),
        ('prose rhythm (words a markdown cell)', prose_problems()),
        ('code a reader reads (one statement a line)', code_problems()),
        ('visible cells that lean on hidden ones', hidden_name_problems()),
        ('stderr only where the story is about it', stderr_problems()),
        ('test cells labelled, at most 10 lines', test_cell_problems()),
        ('stories light on asserts, tests under `## Tests`', story_problems()),
        ('README length', readme_problems()),
    ]:
        for line in problems:
            print('  ' + line)
        print(f"{what}: {'FAILED' if problems else 'ok'}")
        failed |= bool(problems)
    sys.exit(1 if failed else 0)
