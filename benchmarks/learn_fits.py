"""Can GRPO raise the pass rate of the very questions it trains on? The overfit check (issue 79, item 1) at full scale.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/learn_fits.py band        # the cold start's band, then `before`
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/learn_fits.py run --name lr1e-3 --lr 1e-3   # one run (resumes)
    .venv/bin/python benchmarks/learn_fits.py report                        # overfit.json and overfit.png

Items 2 to 4 (`--set brief`, plan in `results/learn_fits/brief/README.md`): the cold start taught to answer briefly
(`cold_start_short/`), the length-bounded judge, its own band and 16 training questions, GRPO and GGPO with three seeds,
each policy read at four levels (`read`), `report --set brief` writing `results/learn_fits/summary.json`:

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/learn_fits.py band --set brief --pool 96 --questions 16 --part 0/2
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/learn_fits.py read --set brief --policy cold_start --part 0/2
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/learn_fits.py run --set brief --algo ggpo --seed 0  # + its reading
    .venv/bin/python benchmarks/learn_fits.py report --set brief

The policy is SmolLM2-135M-Instruct with the cold start of `results/learn_fits/cold_start/adapter` merged into it in
float32 (a LoRA adapter trained by `cold_start.py --lora_r 16`, committed: 20 MB), reading each view as its first 600
characters. Everything is on the natural training questions (`data/qa_train_natural.json`) minus the 275 held out by
question for a later reading (`results/learn_fits/same_manuals.json`); the search re-ranks with issue 46's ranker, as
the cold start's teacher did.

`band`: the cold start's pass rate over 8 sampled rollouts (temperature 1) on a seeded draw of `--pool` questions that
the cold start's teacher answered right (so a right answer is reachable in the game), written a chunk at a time to
`band.jsonl` (a stopped run resumes); then `--questions` of them with a pass rate of 1/8 to 5/8 (a seeded draw) are
the fixed training questions (`questions.json`), and their pass rate over 16 sampled rollouts each is `before.jsonl`.
`run`: GRPO with a fresh LoRA adapter (top 6 layers, `vrag_train`'s CPU default; the update and its reference start
from the 24 frozen layers' output that the rollouts kept, `reuse_trunk`) on those questions only, 2 questions
x 8 rollouts a step; each step's record holds its questions' pass rates (the curve); after the last step the same
16-sample measurement (`after` in the run's metrics). The run's folder is `results/learn_fits/runs/NAME` (adapter
and AdamW state: about 12 MB), committed, so a later session resumes it exactly. `report`: every run's pass rate
before and after with a paired bootstrap 90 % interval over the questions, and the curves.
"""
import argparse, json, random, re, sys, time
from pathlib import Path
import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from vrag_nb.models import smollm2_dir
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.rewards import ANLSJudge
from vrag_nb.rl.update import load_policy
from vrag_nb.rl.rollout import RolloutConfig
from vrag_nb.rl.learn import sampled_pass_rates
from vrag_nb.rl.trainer import TrainConfig, train_policy
from vrag_nb.files import read_jsonl

RES = Path('benchmarks/results/learn_fits')
BASE = 'HuggingFaceTB/SmolLM2-135M-Instruct'  # the public name of the base model, written into saved adapters
RANKER = 'benchmarks/results/ranker_linear_1.json'
# the cold start's game (cold_start.py's settings for it), sampled at temperature 1 with the cheaper draw
GAME = dict(max_turns=3, turn_tokens=48, response_length=1024, obs_chars=600, temperature=1.0, draw='inverse_cdf')
# the two sets of runs: item 1's overfit check, and items 2 to 4 (`brief`: the cold start taught to answer briefly, the
# length-bounded judge, its own band, questions, readings and runs under `brief/`)
SETS = {'overfit': dict(dir=RES, cold='cold_start', judge=ANLSJudge(contains=True)),
        'brief': dict(dir=RES/'brief', cold='cold_start_short', judge=ANLSJudge(contains=True, max_extra_words=5))}
STRICT = ANLSJudge()  # strict ANLS, reported beside the bounded judge


def cold_start(a):
    "SmolLM2 with the set's committed cold-start adapter merged in, float32; (model, tokenizer)."
    from peft import PeftModel
    model, tok, _ = load_policy(smollm2_dir(), device=a.device, dtype='float32')
    return PeftModel.from_pretrained(model, RES/SETS[a.set]['cold']/'adapter').merge_and_unload(), tok


def portable(adapter: Path):
    "A saved adapter names the public base model, not this machine's cache path."
    cfg = adapter/'adapter_config.json'
    if cfg.exists():
        c = json.loads(cfg.read_text())
        c['base_model_name_or_path'] = BASE
        cfg.write_text(json.dumps(c, indent=2, sort_keys=True) + '\n')
    readme = adapter/'README.md'
    if readme.exists():
        text = re.sub(r'base_model: .*', f'base_model: {BASE}', readme.read_text())
        readme.write_text(re.sub(r'base_model:adapter:\S+', f'base_model:adapter:{BASE}', text))


def train_index(work: Path):
    "The natural training manuals' index, built once in `work` (cold_start.py's `index_for`)."
    from cold_start import index_for
    return index_for(work, 'train_natural', ['data/pdfs_train'])


def training_questions() -> list[dict]:
    "The natural training questions without the ones held out by question."
    held = set(json.loads((RES/'same_manuals.json').read_text()))
    return [e for e in load_qa('data/qa_train_natural.json') if e['uid'] not in held]


def measure(path: Path, uids: list, qa: dict, samples: int, chunk: int, model, tok, idx, a, log):
    """Pass rates over `samples` sampled plays of each question, `chunk` questions a call, appended to `path` (JSON
    lines) as they finish: a stopped measurement resumes, and with `--part K/N` this process plays every N-th chunk
    (two processes on two cores); the seeds follow from the question's place in `uids`, whoever plays it."""
    done = {u for r in (read_jsonl(path) if path.exists() else []) for u in r['rates']}
    k, n = map(int, a.part.split('/'))
    chunks = [uids[i:i + chunk] for i in range(0, len(uids), chunk)]
    todo = [c for j, c in enumerate(chunks) if j % n == k and not set(c) <= done]
    log(f'{path.name}: {len(done)} of {len(uids)} measured; this process plays {len(todo)} chunks')
    for c in todo:
        t0 = time.time()
        rates = sampled_pass_rates(model, tok, None, idx, [qa[u] for u in c], samples, RolloutConfig(**GAME),
                                   SETS[a.set]['judge'], seed=uids.index(c[0]))
        with open(path, 'a') as f: f.write(json.dumps({'rates': rates, 'seconds': round(time.time() - t0)}) + '\n')
        log(path.name, rates)
    rates = {u: v for r in read_jsonl(path) for u, v in r['rates'].items()} if path.exists() else {}
    return rates if set(uids) <= set(rates) else None


def band(a, log):
    "The cold start's pass rates on the pool, the fixed questions, and (item 1) their 16-sample `before` reading."
    D, qa = SETS[a.set]['dir'], {e['uid']: e for e in training_questions()}
    D.mkdir(parents=True, exist_ok=True)
    teacher_right = json.loads((RES/SETS[a.set]['cold']/'teacher_right.json').read_text())
    seed = 'learn_fits:pool' if a.set == 'overfit' else f'learn_fits:{a.set}:pool'
    pool = random.Random(seed).sample(sorted(u for u in teacher_right if u in qa), a.pool)
    model, tok = cold_start(a)
    idx = train_index(Path(a.work))
    rates = measure(D/'band.jsonl', pool, qa, 8, a.chunk, model, tok, idx, a, log)
    if rates is None: return log('band: the other part is still playing')
    inside = sorted(u for u in pool if 1 / 8 <= rates[u] <= 5 / 8)
    seed = 'learn_fits:questions' if a.set == 'overfit' else f'learn_fits:{a.set}:questions'
    chosen = sorted(random.Random(seed).sample(inside, min(a.questions, len(inside))))
    (D/'questions.json').write_text(json.dumps({'pool': len(pool), 'in_band': len(inside), 'questions': chosen,
                                                'rates_8': {u: rates[u] for u in chosen}}, indent=1) + '\n')
    log(f'{len(inside)} of {len(pool)} in the band; {len(chosen)} chosen')
    if not chosen: return log('no question in the band: the cold start cannot be checked on this pool')
    if a.set != 'overfit': return log('the readings before RL: `read --policy cold_start`')
    before = measure(RES/'before.jsonl', chosen, qa, 16, 1, model, tok, idx, a, log)
    if before is not None: log('before', before)


def run_config(a) -> TrainConfig:
    "The run's settings: item 1's sweep from the command line; the brief runs fixed by the plan but algo and seed."
    if a.set == 'overfit':
        return TrainConfig(**GAME, steps=a.steps, prompts=2, group=a.group, lr=a.lr, lora_r=a.lora_r,
                           kl_coef=a.kl_coef, ckpt_every=a.ckpt_every, seed=a.seed, reuse_trunk=True)
    return TrainConfig(**GAME, **BRIEF, algo=a.algo, seed=a.seed, ckpt_every=a.ckpt_every)


def run(a, log):
    "One GRPO (or GGPO) run on the set's fixed questions; resumes from its committed folder."
    D, judge, qa = SETS[a.set]['dir'], SETS[a.set]['judge'], {e['uid']: e for e in training_questions()}
    chosen = [qa[u] for u in json.loads((D/'questions.json').read_text())['questions']]
    model, tok = cold_start(a)
    idx = train_index(Path(a.work))
    name = a.name or f'{a.algo}-s{a.seed}'
    out = D/'runs'/name

    def evaluate(m, stage):  # item 1: the cold start's reading is `before.jsonl`, measured once for every run
        if stage != 'final' or a.set != 'overfit': return {}
        uids = [e['uid'] for e in chosen]  # the seeds of `before`'s measurement
        return {'after': {u: v for e in chosen for u, v in sampled_pass_rates(
            m, tok, None, idx, [e], 16, RolloutConfig(**GAME), judge, seed=uids.index(e['uid'])).items()}}

    c = run_config(a)
    log(f'{name}: {c}')
    train_policy(out, idx, chosen, model, tok, None, c, judge=judge, evaluate=evaluate,
                 log=lambda r: log(json.dumps({k: r.get(k) for k in ('phase', 'step', 'reward_mean', 'r_ans',
                                                                     'pass_rates', 'seconds', 'after') if k in r})))
    portable(out/'adapter')
    if a.set == 'overfit' and not any('after' in h for h in read_jsonl(out/'metrics.jsonl')):
        # stopped after its last step's checkpoint, before the reading: `train_policy` does not evaluate again on a
        # resume with no step left, so the saved final adapter is read here, the record it would have written
        from peft import PeftModel
        model, tok = cold_start(a)
        final = PeftModel.from_pretrained(model, out/'adapter').merge_and_unload()
        with open(out/'metrics.jsonl', 'a') as f:
            f.write(json.dumps(dict(phase='eval', stage='final', step=c.steps, **evaluate(final, 'final'))) + '\n')
        log('read after its last step')
    if a.set != 'overfit' and a.read: read(a, log, policy=name)  # the saved adapter over a fresh cold start


# the brief runs' settings, fixed in `brief/README.md` before the first of them (item 1's best: lr 2e-3, no KL)
BRIEF = dict(steps=64, prompts=2, group=8, lr=2e-3, lora_r=16, kl_coef=0.0, reuse_trunk=True)
# the readings of items 2 to 4: (level, question file, index, samples a question; 0: one greedy play)
LEVELS = {'trained': 8, 'same_manuals': 0, 'new_manuals': 0, 'heldout': 0}


def trained_questions() -> list[dict]:
    "The brief runs' fixed training questions."
    qa = {e['uid']: e for e in training_questions()}
    return [qa[u] for u in json.loads((SETS['brief']['dir']/'questions.json').read_text())['questions']]


def same_manuals() -> list[dict]:
    "The 275 natural training questions held out by question: unseen questions on the training manuals."
    qa = {e['uid']: e for e in load_qa('data/qa_train_natural.json')}
    return [qa[u] for u in json.loads((RES/'same_manuals.json').read_text())]


# each level's questions, in a fixed order (the held-out ones: `qa_rdocs.json`'s 48, then `qa_unseen.json`'s 61)
LEVEL_QA = {'trained': trained_questions, 'same_manuals': same_manuals,
            'new_manuals': lambda: load_qa('data/qa_val_natural.json'),
            'heldout': lambda: load_qa('data/qa_rdocs.json') + load_qa('data/qa_unseen.json')}


INDEXES = {'train_natural': ['data/pdfs_train'], 'val_natural': ['data/pdfs_val'], 'rdocs': ['data/pdfs_rdocs'],
           'unseen': ['data/pdfs_unseen']}


def level_index(level: str, uid: str) -> str:
    "The name of the index a question of `level` is played on (a held-out question: its own set's)."
    if level in ('trained', 'same_manuals'): return 'train_natural'
    if level == 'new_manuals': return 'val_natural'
    return 'unseen' if uid.startswith('unseen') else 'rdocs'


def read(a, log, policy: str | None = None):
    """A policy's readings at the four levels, a chunk of questions at a time appended to
    `brief/readings/POLICY/LEVEL.jsonl` (resumable; `--part K/N` plays every N-th chunk): each question's plays with
    the bounded judge's verdicts, strict ANLS's and the answers' texts. The trained questions are sampled (`LEVELS`
    plays each, temperature 1, seeds from their place); the others are played once, greedily."""
    from vrag_nb.rl.rollout import game, play_group
    from vrag_nb.eval.rewards import answer_text
    from cold_start import index_for
    indexes = {}
    policy = policy or a.policy
    model, tok = cold_start(a)
    if policy != 'cold_start':
        from peft import PeftModel
        model = PeftModel.from_pretrained(model, SETS[a.set]['dir']/'runs'/policy/'adapter').merge_and_unload()
    model.eval()
    k, n = map(int, a.part.split('/'))
    out = SETS[a.set]['dir']/'readings'/policy
    out.mkdir(parents=True, exist_ok=True)
    judge = SETS[a.set]['judge']
    for level in a.levels.split(','):
        samples, exs = LEVELS[level], LEVEL_QA[level]()
        path, size = out/f'{level}.jsonl', (2 if LEVELS[level] else 16)
        done = {r['uid'] for r in (read_jsonl(path) if path.exists() else [])}
        chunks = [exs[i:i + size] for i in range(0, len(exs), size)]
        todo = [(j, c) for j, c in enumerate(chunks) if j % n == k and not {e['uid'] for e in c} <= done]
        log(f'{policy} {level}: {len(done)} of {len(exs)} read; this process plays {len(todo)} chunks')
        for j, c in todo:
            t0, rows, by_index = time.time(), [], {}
            for e in c: by_index.setdefault(level_index(level, e['uid']), []).append(e)
            for name, group in by_index.items():
                if name not in indexes: indexes[name] = index_for(Path(a.work), name, INDEXES[name])
                cfg = RolloutConfig(**{**GAME, 'temperature': 1.0 if samples else 0.0})
                codec, agent = game(indexes[name], tok, None, cfg)
                with torch.no_grad():
                    rows += play_group(model, codec, agent, group, max(samples, 1), cfg, judge,
                                       seed=j if samples else None)
            recs = []
            for e in c:
                mine = [r for r in rows if r.group == e['uid']]
                texts = [answer_text(r.trajectory) for r in mine]
                recs.append(dict(uid=e['uid'], right=[r.parts['r_ans'] >= 0.5 for r in mine],
                                 strict=[bool(STRICT(e['query'], e['reference_answer'], t)) for t in texts],
                                 answers=texts))
            with open(path, 'a') as f:
                for r in recs: f.write(json.dumps(r) + '\n')
            log(f'{policy} {level} chunk {j}: {sum(sum(r["right"]) for r in recs)} right of '
                f'{sum(len(r["right"]) for r in recs)} ({time.time() - t0:.0f} s)')


def bootstrap(diffs: np.ndarray, n: int = 10_000, seed: int = 0) -> list[float]:
    "Paired bootstrap 90 % interval of the mean of per-question differences."
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), (n, len(diffs)))].mean(1)
    return [round(float(np.quantile(means, 0.05)), 4), round(float(np.quantile(means, 0.95)), 4)]


def report(a, log):
    "The set's report: item 1's `overfit.json`, or items 2 to 4's `summary.json`."
    return report_overfit(a, log) if a.set == 'overfit' else report_brief(a, log)


def reading(policy: str, level: str, judge: str = 'right') -> dict[str, float] | None:
    "A policy's rate per question at one level by one judge ('right': the bounded judge, 'strict'); None if unfinished."
    path = SETS['brief']['dir']/'readings'/policy/f'{level}.jsonl'
    rows = {r['uid']: float(np.mean(r[judge])) for r in read_jsonl(path)} if path.exists() else {}
    want = {e['uid'] for e in LEVEL_QA[level]()}
    return rows if want <= set(rows) else None


def bootstrap_seeds(diffs: np.ndarray, n: int = 10_000, seed: int = 0) -> list[float]:
    """90 % interval of the mean difference over seeds and questions, `diffs` [seeds, questions]: each resample draws
    the seeds, then the questions, with replacement (a two-level bootstrap: both sources of variation)."""
    rng = np.random.default_rng(seed)
    s, q = diffs.shape
    means = np.array([diffs[rng.integers(0, s, s)][:, rng.integers(0, q, q)].mean() for _ in range(n)])
    return [round(float(np.quantile(means, 0.05)), 4), round(float(np.quantile(means, 0.95)), 4)]


def report_brief(a, log):
    """summary.json: every brief run (algo, seed, status, steps) and, per algorithm and level, the cold start's rate,
    the trained policies' (mean over seeds), their difference and its 90 % interval, by both judges; GGPO - GRPO."""
    D = SETS['brief']['dir']
    runs, out = [], {}
    for d in sorted((D/'runs').glob('*/')):
        cfg = json.loads((d/'config.json').read_text())
        steps = sum(h['phase'] == 'grpo' for h in read_jsonl(d/'metrics.jsonl'))
        read_all = all(reading(d.name, lv) is not None for lv in LEVELS)
        status = 'read' if read_all else 'finished' if steps == cfg['steps'] else 'in progress (resumes)'
        runs.append(dict(name=d.name, algo=cfg['algo'], seed=cfg['seed'], steps=steps, of=cfg['steps'], status=status))
    for judge in ('right', 'strict'):
        key = 'bounded' if judge == 'right' else 'strict'
        for lv in LEVELS:
            base = reading('cold_start', lv, judge)
            if base is None: continue
            uids = sorted(base)
            per_algo = {}
            for algo in ('grpo', 'ggpo'):
                mine = [r for r in runs if r['algo'] == algo and r['status'] == 'read']
                if not mine: continue
                rates = np.array([[reading(r['name'], lv, judge)[u] for u in uids] for r in mine])
                diffs = rates - np.array([base[u] for u in uids])
                per_algo[algo] = rates
                out.setdefault(key, {}).setdefault(algo, {})[lv] = dict(
                    seeds=[r['seed'] for r in mine], questions=len(uids),
                    cold_start=round(float(np.mean(list(base.values()))), 4), trained=round(float(rates.mean()), 4),
                    per_seed=[round(float(x), 4) for x in rates.mean(1)], diff=round(float(diffs.mean()), 4),
                    ci90=bootstrap_seeds(diffs), per_seed_ci90=[bootstrap(d) for d in diffs])
            if len(per_algo) == 2:
                g, r = per_algo['ggpo'], per_algo['grpo']
                rng, n = np.random.default_rng(0), len(uids)
                means = []
                for _ in range(10_000):
                    q = rng.integers(0, n, n)
                    means.append(g[rng.integers(0, len(g), len(g))][:, q].mean()
                                 - r[rng.integers(0, len(r), len(r))][:, q].mean())
                out[key].setdefault('ggpo_minus_grpo', {})[lv] = dict(
                    diff=round(float(g.mean() - r.mean()), 4),
                    ci90=[round(float(np.quantile(means, 0.05)), 4), round(float(np.quantile(means, 0.95)), 4)])
    cold = {key: {lv: round(float(np.mean(list(r.values()))), 4) for lv in LEVELS
                  if (r := reading('cold_start', lv, judge)) is not None}
            for key, judge in (('bounded', 'right'), ('strict', 'strict'))}
    summary = dict(judge=SETS['brief']['judge'].name, strict_judge=STRICT.name,
                   levels={lv: len(LEVEL_QA[lv]()) for lv in LEVELS},
                   samples={lv: LEVELS[lv] or 'one greedy play' for lv in LEVELS}, runs=runs, cold_start=cold, **out)
    (RES/'summary.json').write_text(json.dumps(summary, indent=1) + '\n')
    log(json.dumps(summary, indent=1))


def report_overfit(a, log):
    "overfit.json: each run's pass rate before and after, the difference and its 90 % interval; overfit.png: curves."
    before = {u: v for r in read_jsonl(RES/'before.jsonl') for u, v in r['rates'].items()}
    uids, runs = sorted(before), {}
    for d in sorted((RES/'runs').glob('*/')):
        hist = read_jsonl(d/'metrics.jsonl')
        cfg = json.loads((d/'config.json').read_text())
        steps = [h for h in hist if h['phase'] == 'grpo']
        after = next((h['after'] for h in hist if h['phase'] == 'eval' and 'after' in h), None)
        r = dict(settings={k: cfg[k] for k in ('lr', 'lora_r', 'group', 'prompts', 'kl_coef', 'steps', 'seed')},
                 steps_done=len(steps), status='finished' if after else 'running',
                 train_pass_rate=[round(float(np.mean(list(h['pass_rates'].values()))), 4) for h in steps])
        if after:
            diff = np.array([after[u] - before[u] for u in uids])
            r.update(before=round(float(np.mean([before[u] for u in uids])), 4),
                     after=round(float(np.mean([after[u] for u in uids])), 4), diff=round(float(diff.mean()), 4),
                     ci90=bootstrap(diff), per_question={u: [before[u], after[u]] for u in uids})
        runs[d.name] = r
    # the sweep's order: the decade of learning rates, then one lever at a time
    runs = dict(sorted(runs.items(), key=lambda kv: (kv[1]['settings']['lr'], kv[1]['settings']['group'],
                                                     kv[1]['settings']['kl_coef'], -kv[1]['settings']['lora_r'])))
    judge = SETS['overfit']['judge'].name
    (RES/'overfit.json').write_text(json.dumps({'questions': len(uids), 'samples': 16, 'judge': judge, 'runs': runs},
                                               indent=1) + '\n')
    from matplotlib.figure import Figure
    fig = Figure(figsize=(10, 3.4)); ax, bx = fig.subplots(1, 2, gridspec_kw=dict(width_ratios=(2, 1)))
    colour = {name: f'C{j}' for j, name in enumerate(runs)}  # one colour a run in both panels
    for name, r in runs.items():
        x = np.arange(1, len(r['train_pass_rate']) + 1)
        k = 8  # a step plays 2 of the 16 questions: the mean over the last 8 steps covers each about once
        y = [np.mean(r['train_pass_rate'][max(0, i - k + 1):i + 1]) for i in range(len(x))]
        state = '' if r['status'] == 'finished' else f", running: step {r['steps_done']} of {r['settings']['steps']}"
        ax.plot(x, y, color=colour[name], label=f"{name} (seed {r['settings']['seed']}{state})")
    ax.axhline(np.mean([before[u] for u in uids]), color='grey', ls=':', label='cold start (16 samples)')
    ax.set_xlabel('GRPO step'); ax.set_ylabel('pass rate of the step\'s questions\n(mean of the last 8 steps)')
    ax.legend(fontsize=7)
    read_runs = [(n, r) for n, r in runs.items() if 'diff' in r]  # the plan's one number: after - before, 16 plays
    for i, (n, r) in enumerate(read_runs):
        bx.errorbar(r['diff'], i, xerr=[[r['diff'] - r['ci90'][0]], [r['ci90'][1] - r['diff']]], fmt='o', capsize=3,
                    color=colour[n])
    bx.set_yticks(range(len(read_runs)), [n for n, _ in read_runs]); bx.invert_yaxis()
    bx.axvline(0, color='grey', lw=0.8); bx.axvline(0.2, color='grey', ls='--', lw=0.8, label='goal: +0.20')
    bx.set_xlabel(f'pass rate after - before\n({len(uids)} questions x 16 plays, 90 % interval)'); bx.legend(fontsize=7)
    fig.tight_layout(); fig.savefig(RES/'overfit.png', dpi=80)
    log(json.dumps({k: {kk: v.get(kk) for kk in ('status', 'steps_done', 'before', 'after', 'diff', 'ci90')}
                    for k, v in runs.items()}, indent=1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('stage', choices=('band', 'run', 'read', 'report'))
    ap.add_argument('--set', default='overfit', choices=tuple(SETS),
                    help="overfit: item 1's check; brief: items 2 to 4 (the brief cold start, the bounded judge)")
    ap.add_argument('--pool', type=int, default=64, help='band: questions measured')
    ap.add_argument('--chunk', type=int, default=2, help='band: questions played at once (x 8 rollouts)')
    ap.add_argument('--questions', type=int, default=16, help='band: the fixed training questions')
    ap.add_argument('--part', default='0/1', help='band, read: K/N plays every N-th chunk from the K-th (N processes)')
    ap.add_argument('--name', help='run: its folder under runs/ (brief: ALGO-sSEED)')
    ap.add_argument('--algo', default='grpo', choices=('grpo', 'ggpo'), help='run (brief)')
    ap.add_argument('--seed', type=int, default=0, help='run')
    ap.add_argument('--read', type=int, default=1, help='run (brief): read the policy at every level after its steps')
    ap.add_argument('--policy', default='cold_start', help='read: cold_start or a run\'s name')
    ap.add_argument('--levels', default=','.join(LEVELS), help='read: comma-separated, of ' + ', '.join(LEVELS))
    sweep = dict(lr=(float, 1e-4), lora_r=(int, 16), group=(int, 8), kl_coef=(float, 0.0), steps=(int, 64))
    for k, (t, d) in sweep.items():
        ap.add_argument(f'--{k}', type=t, default=None, help=f'run (overfit only; default {d})')
    ap.add_argument('--ckpt_every', type=int, default=1)
    ap.add_argument('--device', default='cpu')
    ap.add_argument('--work', default=str(Path.home()/'.cache/vrag_nb/learn_fits/cold'),
                    help='indexes (rebuilt if gone)')
    a = ap.parse_args(argv)
    given = [k for k in sweep if getattr(a, k) is not None]
    if a.set != 'overfit' and given:  # the brief runs' settings are the plan's: a flag would change them silently
        ap.error(f'--{given[0]} is fixed by the plan for --set {a.set} (BRIEF in this script)')
    for k, (t, d) in sweep.items():
        if getattr(a, k) is None: setattr(a, k, d)
    if a.set == 'overfit' and a.stage == 'read': ap.error('read is for --set brief (item 1 reads inside its runs)')
    if a.stage == 'run' and a.set == 'overfit' and not a.name: ap.error('run --set overfit needs --name')
    if a.part.count('/') != 1 or not all(x.isdigit() for x in a.part.split('/')):
        ap.error(f'--part must be K/N, got {a.part!r}')
    k, n = map(int, a.part.split('/'))
    if not 0 <= k < n: ap.error(f'--part K/N counts K from 0 to N-1, got {a.part!r} (the parts of 2 are 0/2 and 1/2)')
    bad = set(a.levels.split(',')) - set(LEVELS)
    if bad: ap.error(f'unknown level(s) {sorted(bad)}; choose from {list(LEVELS)}')
    from vrag_nb.retrieval.rerank import use_reranker
    use_reranker(RANKER)
    t0 = time.time()
    log = lambda *x: print(f'[{time.time() - t0:7.1f} s]', *x, flush=True)
    {'band': band, 'run': run, 'read': read, 'report': report}[a.stage](a, log)


if __name__ == '__main__': main()
