"""Test notebooks as `nbdev_test` does, each in its own process forked from one that has already imported the heavy
libraries; `tools/run_tests.py` drives it.

`nbdev_test` runs nbdev's `test_nb` in processes forked from a parent (fastcore's `parallel`), so what each notebook
pays is its own work plus whatever its process imports. Most of that import is the same for every notebook (torch,
transformers with its model classes, which pulls in scikit-learn and torch._dynamo: about 7 s of CPU here), and a fresh
`nbdev_test` per notebook pays it again each time. This server imports it once, then forks one process per notebook:
the child runs `nbdev.test.test_nb` with the skip flags of settings.ini (`tst_flags`) and the forced ones given, exactly
as `nbdev_test --path NB` would, and exits. A notebook gets a process of its own and a temporary dir of its own
(nothing it loads, leaks or leaves on disk outlives it, and none of it reaches the next notebook), where a pool that
reuses its workers lets memory pile up from notebook to notebook. Nothing the notebooks test is imported here: only
third-party libraries, never `vrag_nb`.

Protocol, one line per request on stdin: `<notebook path>\\t<log path>`; the server answers on stdout with the child's
pid. The child writes the notebook's output to the log and, last, `0` (passed) or `1` (failed) to `<log path>.rc`. A
child that dies without writing it (killed, out of memory) leaves no `.rc`: the caller sees the pid gone.

    python tools/nbtest_fork.py [--flags "slow"]
"""
import argparse, atexit, importlib, os, shutil, signal, sys, tempfile, threading, traceback
from pathlib import Path

# What most notebooks import, and what costs the most to import (measured with `python -X importtime`). Only libraries
# whose import starts no thread: a forked child keeps the forking thread alone, so a pool started here would be dead
# in every notebook (PyMuPDF starts four at import, onnxruntime one; `check_threads` guards the list).
PRELOAD = ['numpy', 'PIL.Image', 'IPython', 'execnb.shell', 'nbdev.test', 'torch', 'transformers', 'faiss',
           'tokenizers', 'openai', 'httpx', 'fastapi', 'networkx', 'bm25s', 'hypothesis']
# Threads that may run at the fork: jemalloc's purging thread (pyarrow's allocator, which transformers' model code
# loads through pandas); jemalloc's own fork handler turns background threads off in the child.
FORK_SAFE = {'jemalloc_bg_thd'}
# transformers loads lazily: these names pull in its model, generation and image-processing code
TRANSFORMERS = ['AutoConfig', 'AutoTokenizer', 'AutoModelForCausalLM', 'PreTrainedModel', 'Qwen2VLImageProcessorPil']


def preload():
    "Import `PRELOAD` (a library that is not installed is left out); nothing here runs a thread pool."
    for m in PRELOAD:
        try: importlib.import_module(m)
        except ImportError: pass
    try:
        import transformers
        for n in TRANSFORMERS: getattr(transformers, n)
    except (ImportError, AttributeError): pass


def check_threads():
    "Raise if this process runs a thread besides its own and `FORK_SAFE`'s (Linux): a fork would leave its work undone."
    task = Path('/proc/self/task')
    threads = [t for t in task.iterdir() if int(t.name) != os.getpid()] if task.is_dir() else []
    if (other := [n for t in threads if (n := (t/'comm').read_text().strip()) not in FORK_SAFE]):
        raise RuntimeError(f'threads {other} run after the preload: a library in PRELOAD starts them; remove it')


def child(nb: str, log: str, skip: list, force: list, basepath) -> None:
    "Run one notebook's tests in this (forked) process, write its result and leave."
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the notebook waits for its own subprocesses
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1); os.dup2(fd, 2); os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY); os.dup2(null, 0); os.close(null)
    sys.stdin = open(0, closefd=False)
    # The notebook's temporary files go in a dir of its own, removed when it ends: notebooks call tempfile.mkdtemp()
    # freely and leave what they made (about 1 GB a run of the suite, piling up run after run). TMPDIR reaches the
    # processes the notebook starts too.
    tmp = tempfile.mkdtemp(prefix='nbt')
    os.environ['TMPDIR'] = tempfile.tempdir = tmp
    ok = False
    try:
        from nbdev.test import test_nb
        ok, _ = test_nb(Path(nb), skip_flags=skip, force_flags=force, basepath=basepath)
    except BaseException: traceback.print_exc()
    # what a process that ends normally runs, in its order: threading's exit hooks (executors shut down their workers)
    # and a join of the threads left running, then the atexit functions (temporary dirs, servers, child processes)
    for end in (threading._shutdown, atexit._run_exitfuncs):
        try: end()
        except BaseException: traceback.print_exc()
    shutil.rmtree(tmp, ignore_errors=True)
    sys.stdout.flush(); sys.stderr.flush()
    # written whole, then renamed: the caller, which polls for the file, never reads it half written
    Path(log + '.rc.tmp').write_text('0' if ok else '1'); os.replace(log + '.rc.tmp', log + '.rc')
    os._exit(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--flags', default='', help="test flags to run that are normally skipped (as nbdev_test's)")
    a = ap.parse_args()
    if not hasattr(os, 'fork'): sys.exit('no os.fork on this system: run each notebook with nbdev_test')
    from nbdev.config import get_config
    cfg = get_config()
    skip, force, basepath = cfg.tst_flags.split(), a.flags.split(), cfg.config_path
    preload(); check_threads()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # finished children are reaped by the kernel
    print('ready', flush=True)
    for line in sys.stdin:
        nb, log = line.rstrip('\n').split('\t')
        pid = os.fork()
        if pid == 0: child(nb, log, skip, force, basepath)
        print(pid, flush=True)


if __name__ == '__main__': main()
