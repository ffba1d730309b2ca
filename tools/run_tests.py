"""`make test`: notebooks clean, library in sync, README in sync, repository checks (`tools/repo_checks.py`), line
length (`ruff check`), then every notebook's tests, two at a time, with the base-install check
(`tools/base_install_check.py`) running beside them. Each notebook is tested by nbdev's `test_nb`, as `nbdev_test --path
NB` tests it, in a process of its own forked from one that has imported torch, transformers and the like once
(`tools/nbtest_fork.py`).

Ends with the line `N passed, N failed` counting the notebooks actually tested; exits non-zero on any
failure. `--flags "slow"` runs the cells so flagged too, as with `nbdev_test`.
"""
import subprocess, sys, tempfile, threading, time, os
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor

root, t_start = Path(__file__).resolve().parent.parent, time.time()
os.chdir(root)
bin_ = Path(sys.executable).parent
problems = []
# Two notebooks run at once on two cores: one math thread each (torch, onnxruntime, faiss read OMP_NUM_THREADS), or
# their thread pools fight over the cores (66_rl.rollout + 68_rl.trainer side by side: 132 s with the default threads,
# 59 s with one).
env = {**os.environ, 'OMP_NUM_THREADS': os.environ.get('OMP_NUM_THREADS', '1')}
# Each notebook runs in a process forked from one that has imported torch, transformers and the like once
# (tools/nbtest_fork.py: nbdev's own `test_nb`, as `nbdev_test --path NB` runs it); if that server cannot start, each
# notebook gets its own `nbdev_test`. It starts first: its imports overlap the checks below.
flags = sys.argv[sys.argv.index('--flags') + 1] if '--flags' in sys.argv else ''
logs = Path(tempfile.mkdtemp(prefix='nbtest-'))
server = subprocess.Popen([sys.executable, 'tools/nbtest_fork.py', '--flags', flags], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, env=env)

def snapshot(pattern): return {p: p.read_bytes() for p in sorted(root.glob(pattern))}

def check_unchanged(cmd, pattern, what):
    "Run `cmd` and report files matching `pattern` that it changed (restoring them)."
    before = snapshot(pattern)
    subprocess.run([str(bin_/cmd)], check=True, capture_output=True)
    after = snapshot(pattern)
    changed = [str(p.relative_to(root)) for p in set(before) | set(after) if before.get(p) != after.get(p)]
    for p in changed:
        if Path(p).absolute() in before: (root/p).write_bytes(before[root/p])
        else: (root/p).unlink()
    if changed: problems.append(f"{what}: {cmd} changed {', '.join(sorted(changed))}")
    print(f"{what}: {'FAILED' if changed else 'ok'}", flush=True)

check_unchanged('nbdev_clean', 'nbs/*.ipynb', 'notebooks clean')
check_unchanged('nbdev_export', 'vrag_nb/**/*.py', 'library in sync with notebooks')
r = subprocess.run([sys.executable, 'tools/readme.py', '--check'])
if r.returncode: problems.append('README.md is out of sync with nbs/index.ipynb (run `make readme`)')
print(f"README in sync: {'FAILED' if r.returncode else 'ok'}", flush=True)
r = subprocess.run([sys.executable, 'tools/repo_checks.py'])
if r.returncode: problems.append('repository checks (tools/repo_checks.py) failed')
# Code lines at most 120 characters in notebooks, the library, tools and benchmarks (pyproject.toml's [tool.ruff]). One
# line is let through: the first line of the `__all__` that nbdev_export writes (it wraps the list at 120 characters and
# then puts `__all__ = ` before it); it is generated, and the notebooks hold every other line of the library.
import json
r = subprocess.run([str(bin_/'ruff'), 'check', '--exit-zero', '--output-format', 'json', '.'],
                   capture_output=True, text=True)
def nbdev_all(e):
    f = Path(e['filename'])
    return f.suffix == '.py' and f.read_text().splitlines()[e['location']['row'] - 1].startswith('__all__ = ')
long_lines = [e for e in json.loads(r.stdout or '[]') if not nbdev_all(e)]
for e in long_lines:
    print(f"{Path(e['filename']).relative_to(root)}:{e.get('cell') or ''}:{e['location']['row']}: {e['message']}")
if r.returncode or long_lines: problems.append(f'{len(long_lines)} code lines over 120 characters (listed above)')
print(f"line length (ruff): {'FAILED' if r.returncode or long_lines else 'ok'}", flush=True)

# the base install, no extras, in a fresh venv (tools/base_install_check.py): beside the notebooks, it mostly waits on
# pip
base = subprocess.Popen(
    [sys.executable, 'tools/base_install_check.py'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
)

nbs = [p for p in sorted((root/'nbs').glob('*.ipynb')) if not p.name.startswith('_')]
# The longest first (as measured in a 562 s run, issue 78), so that the two workers finish together instead of one
# running a long notebook alone at the end; the rest in file order. A name not found is ignored, a notebook not named
# runs in its turn.
LONGEST = ['68_rl.trainer', '93_cli.faults', '81_cli.agent', '66_rl.rollout', '62_rl.toy_train', '18_retrieval.index',
           '79_rl.turn_cache', '67_rl.update', '84_cli.train', '83_cli.demo', '39_agent.llm_server', '80_cli.index',
           '69_rl.learn', '01_tour', '54_eval.agents']
nbs.sort(key=lambda p: LONGEST.index(p.stem) if p.stem in LONGEST else len(LONGEST))
if server.stdout.readline().strip() != 'ready':
    print('the forking test server did not start (see above): each notebook runs its own nbdev_test', flush=True)
    server = None
lock = threading.Lock()

def run_forked(nb):
    log = logs/f'{nb.stem}.log'
    with lock:
        server.stdin.write(f'{nb}\t{log}\n'); server.stdin.flush()
        pid = int(server.stdout.readline())
    rc = Path(f'{log}.rc')
    while not rc.exists():
        try: os.kill(pid, 0)
        except ProcessLookupError:
            if not rc.exists(): return 1, log.read_text() + f'\nthe process testing {nb.name} ended without a result'
        time.sleep(0.1)
    return int(rc.read_text() or 1), log.read_text()

def run(nb):
    t = time.time()
    if server: rc, out = run_forked(nb)
    else:
        with tempfile.TemporaryDirectory(prefix='nbt') as tmp:  # what the notebook leaves on disk goes with it
            r = subprocess.run([str(bin_/'nbdev_test'), '--path', str(nb), *sys.argv[1:]], capture_output=True,
                               text=True, env={**env, 'TMPDIR': tmp})
        rc, out = r.returncode, r.stdout + r.stderr
    return nb.name, rc, time.time() - t, out[-6000:]

passed = failed = 0
with ThreadPoolExecutor(2) as ex:
    for name, rc, secs, out in ex.map(run, nbs):
        print(f"{'PASS' if rc == 0 else 'FAIL'} {name} ({secs:.1f} s)", flush=True)
        if rc == 0: passed += 1
        else: failed += 1; print(out, flush=True)
if server: server.stdin.close(); server.wait()
print(base.communicate()[0], end='', flush=True)
if base.returncode: problems.append('the base install check (tools/base_install_check.py) failed')
for p in problems: print('FAILED:', p)
print(f'wall time: {time.time() - t_start:.0f} s (checks and notebooks, after the install)')
print(f"{passed} passed, {failed + len(problems)} failed")
sys.exit(1 if failed or problems else 0)
