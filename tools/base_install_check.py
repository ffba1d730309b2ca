"""Proof that `pip install -e .` alone (no extras) gives a working retrieval stack and CLI.

In a fresh venv: install the base requirements only, check that torch, transformers and verl did not come with them,
index a bundled PDF with `vrag_index`, search it with `vrag_search`, and check that `vrag_train` (which needs the `llm`
extra) says so in one line instead of a traceback. `make test` runs it beside the notebooks; exit status 1 on failure.
"""
import json, subprocess, sys, tempfile, time, venv
from pathlib import Path

root = Path(__file__).resolve().parent.parent

def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True)

def check(venv_dir: Path) -> list[str]:
    "What went wrong, step by step; empty when the base install works."
    # No pip inside the new venv (ensurepip costs about 5 s of CPU): this process's pip installs into it through
    # `--python` (pip >= 22.3). --no-compile: pip's byte-compiling of every installed module is a third of the
    # install's CPU time, and Python compiles what it imports anyway.
    venv.create(venv_dir, with_pip=False)
    b = venv_dir/'bin'
    r = run(sys.executable, '-m', 'pip', '--python', b/'python', 'install', '-q', '--no-compile', '-e', root)
    if r.returncode: return [f'pip install -e . failed: {r.stderr[-1500:]}']
    problems = []
    r = run(
        b / 'python',
        '-c',
        'import importlib.util as u; print(*[m for m in ("torch", "transformers", "verl") if u.find_spec(m)])',
    )
    if r.stdout.strip(): problems.append(f'the base install brought {r.stdout.strip()}')
    r = run(b/'vrag_index', root/'data'/'pdfs'/'sample-sigconf.pdf', '--out', venv_dir.parent/'idx')
    if r.returncode or '6 pages from 1 documents' not in r.stdout:
        problems.append(f'vrag_index failed ({r.returncode}): {(r.stdout + r.stderr)[-1500:]}')
    else:
        r = run(b/'vrag_search', venv_dir.parent/'idx', 'ACM reference format', '--json')
        try: ok = r.returncode == 0 and json.loads(r.stdout)['data'][0]['doc'] == 'sample-sigconf'
        except (ValueError, KeyError, IndexError): ok = False
        if not ok: problems.append(f'vrag_search failed ({r.returncode}): {(r.stdout + r.stderr)[-1500:]}')
    r = run(b/'vrag_train')
    want = "error: vrag_train needs torch, which comes with the 'llm' extra: pip install 'vrag_nb[llm]'"
    if (r.returncode, r.stderr.strip()) != (1, want):
        problems.append(
            f'vrag_train without torch: exit {r.returncode}, {r.stderr.strip()[-1500:]!r}; want exit 1, {want!r}'
        )
    return problems

if __name__ == '__main__':
    t = time.time()
    with tempfile.TemporaryDirectory(prefix='vrag_nb_base_') as d: problems = check(Path(d)/'venv')
    for p in problems: print('  ' + p)
    print(
        f"base install (no extras, fresh venv: vrag_index, vrag_search, vrag_train's message): "
        f"{'FAILED' if problems else 'ok'} ({time.time() - t:.0f} s)"
    )
    sys.exit(1 if problems else 0)
