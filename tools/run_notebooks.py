"""`make notebooks`: run every notebook top to bottom, in place, and keep its outputs, so that a reader on GitHub sees
the pages, crops, graphs and curves without running anything.

    python tools/run_notebooks.py [NOTEBOOK ...]      # default: every notebook in nbs/, two at a time

Cells marked `#| slow`, `#| gpu` or `#| eval: false` are not run (and keep no output), as under `nbdev_test`. A notebook
whose cell raises is left as it was, and the command exits non-zero naming it. Outputs are made reproducible before
they are written:
- progress bars are off (`TQDM_DISABLE=1`), plots are plain PNG (not retina), each math library uses one thread;
- temporary dirs become `<tmp1>`, `<tmp2>`... in order of appearance, the checkout becomes relative and the home dir
  `~`;
- memory addresses (`0x7f3a...`) become `0x…`, date-times (log lines) `<time>`, loopback ports `<port>`, and progress
  bars printed by a subprocess (which `TQDM_DISABLE` does not reach when the code passes `disable=` itself) are dropped;
- widget outputs are dropped (their state is not saved, so nothing could show them, and their text repr is noise):
  `nbs/images/` holds screenshots of the widgets in use instead;
- an output offering both a JPEG and a PNG (a PIL image does) keeps the JPEG; a PNG is saved again as a palette of
  256 colours when that is smaller (`smaller_png`);
- execution counts are cleared, as `nbdev_clean` does.
Run `nbdev_clean` afterwards (`make notebooks` does); it keeps outputs.
"""
import os, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

root = Path(__file__).resolve().parent.parent
SKIP_FLAGS = {'slow', 'gpu'}
WIDGET = 'application/vnd.jupyter.widget-view+json'

def runs(cell) -> bool:
    "Whether `nbdev_test` would run this cell: code, not `#| eval: false`, not flagged slow or gpu."
    from nbdev.process import extract_directives
    if cell.cell_type != 'code': return False
    d = extract_directives(cell, remove=False)
    return d.get('eval:', [''])[0].lower() != 'false' and not (SKIP_FLAGS & d.keys())

def stable_text(text: str, tmp: dict) -> str:
    "Text of an output with machine- and run-specific parts replaced (temp dirs, the checkout, home, memory addresses)."
    def tmpdir(m): return tmp.setdefault(m[0], f'<tmp{len(tmp) + 1}>')
    text = re.sub(re.escape(tempfile.gettempdir()) + r'/tmp[a-z0-9_]{8}', tmpdir, text)
    # any other path under the run's own temporary dir reads as under the system's (`main` gives each notebook one)
    text = text.replace(tempfile.gettempdir(), os.environ.get('VRAG_NB_SHOWN_TMP', tempfile.gettempdir()))
    text = text.replace(str(root) + '/', '').replace(str(root), '.').replace(str(Path.home()), '~')
    # progress bars a subprocess printed
    text = re.sub(r'[^\r\n]*\d+%\|[^\r\n]*\|[^\r\n]*\[[^\r\n]*\][^\r\n]*(?:\r\n?|\n|$)', '', text)
    # ports the OS picked (five digits: 8000 in an example stays)
    text = re.sub(r'(127\.0\.0\.1|localhost)(:|\', )\d{5}\b', r'\1\2<port>', text)
    text = re.sub(r'\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?', '<time>', text)  # log lines' timestamps
    return re.sub(r'\b0x[0-9a-f]{6,}\b', '0x…', text)

def smaller_png(b64) -> str:
    """A PNG output (base64) saved again as a palette of 256 colours (a plot's colours survive; only shades of its
    antialiased edges merge), with PIL's `optimize`, if that is smaller: a plot takes a third of the bytes."""
    import base64, io
    from PIL import Image
    raw = base64.b64decode(''.join(b64) if isinstance(b64, list) else b64)
    im, buf = Image.open(io.BytesIO(raw)), io.BytesIO()
    (im.convert('RGBA').quantize(256, method=Image.Quantize.FASTOCTREE) if im.mode != 'P' else im).save(
        buf, 'PNG', optimize=True)
    return base64.b64encode(min(raw, buf.getvalue(), key=len)).decode()  # as nbdev_clean leaves it: no newline

def stable_outputs(outputs: list, tmp: dict) -> list:
    "Outputs without widget views and with `stable_text` applied to every text they hold."
    res = []
    for o in outputs:
        o = dict(o)
        if o.get('execution_count') is not None: o['execution_count'] = None
        if 'text' in o: o['text'] = stable_text(''.join(o['text']) if isinstance(o['text'], list) else o['text'], tmp)
        if 'data' in o:
            if WIDGET in o['data']: continue
            data = dict(o['data'])
            if 'image/jpeg' in data: data.pop('image/png', None)  # a PIL image offers both: the JPEG is the smaller
            if 'image/png' in data: data['image/png'] = smaller_png(data['image/png'])
            for k in ('text/plain', 'text/html', 'text/markdown'):
                if k in data: data[k] = stable_text(''.join(data[k]) if isinstance(data[k], list) else data[k], tmp)
            o['data'] = data
        if 'traceback' in o: o['traceback'] = [stable_text(t, tmp) for t in o['traceback']]
        res.append(o)
    return res

def run_one(path: Path) -> int:
    "Execute one notebook in a fresh shell in its own dir; write it back with its outputs unless a cell raised."
    from execnb.nbio import read_nb, nb2str
    from execnb.shell import CaptureShell
    from fastcore.xtras import working_directory
    nb, tmp = read_nb(path), {}
    shell = CaptureShell(path, mpl_format='png')
    with working_directory(path.parent):
        for cell in nb.cells:
            if cell.cell_type != 'code': continue
            cell.outputs, cell.execution_count = [], None
            if not runs(cell): continue
            shell.cell(cell)
            if shell.exc:
                print(f'{path.name}: cell {cell.idx_} raised {type(shell.exc).__name__}: {shell.exc}', file=sys.stderr)
                return 1
            cell.outputs = stable_outputs(cell.get('outputs', []), tmp)
    # written as nbformat writes (text split into lines), like every other tool that edits these notebooks; an output
    # holding a lone surrogate (a file name that is not UTF-8, printed) gets U+FFFD in its place, as UTF-8 cannot hold
    # it; written to a temporary file first, so a failed write never leaves the notebook half written
    import nbformat
    text = re.sub('[\ud800-\udfff]', '\ufffd', nbformat.writes(nbformat.reads(nb2str(nb), as_version=4)))
    tmp_path = path.with_name(path.name + '.tmp')
    tmp_path.write_text(text + ('' if text.endswith('\n') else '\n'), encoding='utf-8')
    os.replace(tmp_path, path)
    return 0

def main(paths: list[str]) -> int:
    "Run the notebooks two at a time, each in its own process; print one line each; return the number that failed."
    nbs = [Path(p).resolve() for p in paths] or [
        p for p in sorted((root / 'nbs').glob('*.ipynb')) if not p.name.startswith('_')
    ]
    env = {
        **os.environ,
        'TQDM_DISABLE': '1',
        'OMP_NUM_THREADS': os.environ.get('OMP_NUM_THREADS', '1'),
        'MPLBACKEND': 'agg',
        'PYTHONHASHSEED': '0',
    }
    def one(p):
        # the notebook's temporary files in a dir of its own, removed when it ends (notebooks never delete theirs);
        # `stable_text` in the child names them from its TMPDIR as before
        with tempfile.TemporaryDirectory(prefix='nbr') as tmp:
            r = subprocess.run([sys.executable, __file__, '--one', str(p)], capture_output=True, text=True,
                               env={**env, 'TMPDIR': tmp, 'VRAG_NB_SHOWN_TMP': tempfile.gettempdir()})
        return p, r.returncode, (r.stdout + r.stderr)[-3000:]
    failed = 0
    with ThreadPoolExecutor(2) as ex:
        for p, rc, out in ex.map(one, nbs):
            print(f"{'ran' if rc == 0 else 'FAILED'} {p.name}", flush=True)
            if rc: failed += 1; print(out, flush=True)
    print(f'{len(nbs) - failed} notebooks run, {failed} failed')
    return failed

if __name__ == '__main__':
    if sys.argv[1:2] == ['--one']: sys.exit(run_one(Path(sys.argv[2])))
    sys.exit(1 if main(sys.argv[1:]) else 0)
