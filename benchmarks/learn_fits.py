"""Can GRPO raise the pass rate of the very questions it trains on? The overfit check (issue 79, item 1) at full scale.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/learn_fits.py band        # the cold start's band, then `before`
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/learn_fits.py run --name lr1e-3 --lr 1e-3   # one run (resumes)
    .venv/bin/python benchmarks/learn_fits.py report                        # overfit.json and overfit.png

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
import argparse, json, random, sys, time
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
RANKER = 'benchmarks/results/ranker_linear_1.json'
# the cold start's game (cold_start.py's settings for it), sampled at temperature 1 with the cheaper draw
GAME = dict(max_turns=3, turn_tokens=48, response_length=1024, obs_chars=600, temperature=1.0, draw='inverse_cdf')
JUDGE = ANLSJudge(contains=True)  # the judge every run of this project trains and scores with (strict ANLS beside it)


def cold_start(device: str = 'cpu'):
    "SmolLM2 with the committed cold-start adapter merged in, float32; (model, tokenizer)."
    from peft import PeftModel
    model, tok, _ = load_policy(smollm2_dir(), device=device, dtype='float32')
    return PeftModel.from_pretrained(model, RES/'cold_start'/'adapter').merge_and_unload(), tok


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
        rates = sampled_pass_rates(model, tok, None, idx, [qa[u] for u in c], samples, RolloutConfig(**GAME), JUDGE,
                                   seed=uids.index(c[0]))
        with open(path, 'a') as f: f.write(json.dumps({'rates': rates, 'seconds': round(time.time() - t0)}) + '\n')
        log(path.name, rates)
    rates = {u: v for r in read_jsonl(path) for u, v in r['rates'].items()} if path.exists() else {}
    return rates if set(uids) <= set(rates) else None


def band(a, log):
    "The cold start's pass rates on the pool, the fixed questions, and their 16-sample `before` reading (resumable)."
    qa = {e['uid']: e for e in training_questions()}
    teacher_right = json.loads((RES/'cold_start'/'teacher_right.json').read_text())
    pool = random.Random('learn_fits:pool').sample(sorted(u for u in teacher_right if u in qa), a.pool)
    model, tok = cold_start(a.device)
    idx = train_index(Path(a.work))
    rates = measure(RES/'band.jsonl', pool, qa, 8, a.chunk, model, tok, idx, a, log)
    if rates is None: return log('band: the other part is still playing')
    inside = sorted(u for u in pool if 1 / 8 <= rates[u] <= 5 / 8)
    chosen = sorted(random.Random('learn_fits:questions').sample(inside, min(a.questions, len(inside))))
    (RES/'questions.json').write_text(json.dumps({'pool': len(pool), 'in_band': len(inside), 'questions': chosen,
                                                  'rates_8': {u: rates[u] for u in chosen}}, indent=1) + '\n')
    log(f'{len(inside)} of {len(pool)} in the band; {len(chosen)} chosen')
    if not chosen: return log('no question in the band: the cold start cannot be checked on this pool')
    before = measure(RES/'before.jsonl', chosen, qa, 16, 1, model, tok, idx, a, log)
    if before is not None: log('before', before)


def run(a, log):
    "One GRPO run on the fixed questions; resumes from its committed folder."
    qa = {e['uid']: e for e in training_questions()}
    chosen = [qa[u] for u in json.loads((RES/'questions.json').read_text())['questions']]
    model, tok = cold_start(a.device)
    idx = train_index(Path(a.work))
    out = RES/'runs'/a.name

    def evaluate(m, stage):  # the cold start's reading is `before.jsonl`, measured once for every run
        if stage != 'final': return {}
        uids = [e['uid'] for e in chosen]  # the seeds of `before`'s measurement
        return {'after': {u: v for e in chosen for u, v in sampled_pass_rates(
            m, tok, None, idx, [e], 16, RolloutConfig(**GAME), JUDGE, seed=uids.index(e['uid'])).items()}}

    c = TrainConfig(**GAME, steps=a.steps, prompts=2, group=a.group, lr=a.lr, lora_r=a.lora_r, kl_coef=a.kl_coef,
                    ckpt_every=a.ckpt_every, seed=a.seed, reuse_trunk=True)  # the update from the kept trunk
    log(f'{a.name}: {c}')
    train_policy(out, idx, chosen, model, tok, None, c, judge=JUDGE, evaluate=evaluate,
                 log=lambda r: log(json.dumps({k: r.get(k) for k in ('phase', 'step', 'reward_mean', 'r_ans',
                                                                     'pass_rates', 'seconds', 'after') if k in r})))


def bootstrap(diffs: np.ndarray, n: int = 10_000, seed: int = 0) -> list[float]:
    "Paired bootstrap 90 % interval of the mean of per-question differences."
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), (n, len(diffs)))].mean(1)
    return [round(float(np.quantile(means, 0.05)), 4), round(float(np.quantile(means, 0.95)), 4)]


def report(a, log):
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
    (RES/'overfit.json').write_text(json.dumps({'questions': len(uids), 'samples': 16, 'judge': JUDGE.name,
                                                'runs': runs}, indent=1) + '\n')
    from matplotlib.figure import Figure
    fig = Figure(figsize=(7, 3.2)); ax = fig.subplots()
    for name, r in runs.items():
        x = np.arange(1, len(r['train_pass_rate']) + 1)
        k = 8  # a step plays 2 of the 16 questions: the mean over the last 8 steps covers each about once
        y = [np.mean(r['train_pass_rate'][max(0, i - k + 1):i + 1]) for i in range(len(x))]
        state = '' if r['status'] == 'finished' else f", running: step {r['steps_done']} of {r['settings']['steps']}"
        ax.plot(x, y, label=f"{name} (seed {r['settings']['seed']}{state})")
    ax.axhline(np.mean([before[u] for u in uids]), color='grey', ls=':', label='cold start (16 samples)')
    ax.set_xlabel('GRPO step'); ax.set_ylabel('pass rate of the step\'s questions\n(mean of the last 8 steps)')
    ax.legend(fontsize=7); fig.tight_layout(); fig.savefig(RES/'overfit.png', dpi=80)
    log(json.dumps({k: {kk: v.get(kk) for kk in ('status', 'steps_done', 'before', 'after', 'diff', 'ci90')}
                    for k, v in runs.items()}, indent=1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('stage', choices=('band', 'run', 'report'))
    ap.add_argument('--pool', type=int, default=64, help='band: questions measured')
    ap.add_argument('--chunk', type=int, default=2, help='band: questions played at once (x 8 rollouts)')
    ap.add_argument('--questions', type=int, default=16, help='band: the fixed training questions')
    ap.add_argument('--part', default='0/1', help='band: K/N plays every N-th chunk from the K-th (N processes)')
    ap.add_argument('--name', help='run: its folder under results/learn_fits/runs')
    ap.add_argument('--lr', type=float, default=1e-4)
    ap.add_argument('--lora_r', type=int, default=16)
    ap.add_argument('--group', type=int, default=8)
    ap.add_argument('--kl_coef', type=float, default=0.0)
    ap.add_argument('--steps', type=int, default=64)
    ap.add_argument('--ckpt_every', type=int, default=1)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--device', default='cpu')
    ap.add_argument('--work', default=str(Path.home()/'.cache/vrag_nb/learn_fits/cold'),
                    help='indexes (rebuilt if gone)')
    a = ap.parse_args(argv)
    from vrag_nb.retrieval.rerank import use_reranker
    use_reranker(RANKER)
    t0 = time.time()
    log = lambda *x: print(f'[{time.time() - t0:7.1f} s]', *x, flush=True)
    {'band': band, 'run': run, 'report': report}[a.stage](a, log)


if __name__ == '__main__': main()
