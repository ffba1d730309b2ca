"""GRPO vs GGPO on the toy search-crop-answer game (61_rl.toy, 63_rl.ggpo): several seeds, same settings.

Usage:
    .venv/bin/python benchmarks/ggpo_vs_grpo.py --seeds 0 1 2 3 4 --steps 150 --out benchmarks/results/ggpo_vs_grpo.json
Writes the JSON (per seed: reward curve, steps to reach the threshold, final reward) and a plot beside it (.png).
"""
import argparse, json, time
from pathlib import Path
import numpy as np

def running_mean(r, w=10): return [float(np.mean(r[max(0, i - w + 1):i + 1])) for i in range(len(r))]

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2, 3, 4])
    ap.add_argument('--steps', type=int, default=150)
    ap.add_argument('--threshold', type=float, default=0.25, help='10-step mean reward to reach')
    ap.add_argument('--out', default='benchmarks/results/ggpo_vs_grpo.json')
    a = ap.parse_args()
    import torch
    from vrag_nb.rl.toy_train import toy_corpus, train
    idx, exs = toy_corpus()
    res = dict(steps=a.steps, threshold=a.threshold, seeds=a.seeds, runs={})
    for algo in ('grpo', 'ggpo'):
        runs = []
        for s in a.seeds:
            t0 = time.time()
            h = train(idx, exs, steps=a.steps, seed=s, algo=algo)
            r = [m['reward_mean'] for m in h]
            rm = running_mean(r)
            hit = next((i + 1 for i, x in enumerate(rm) if i >= 9 and x >= a.threshold), None)
            runs.append(
                dict(
                    seed=s,
                    rewards=r,
                    steps_to_threshold=hit,
                    final_reward=float(np.mean(r[-10:])),
                    pruned=float(np.mean([m.get('pruned', 0) for m in h])),
                    seconds=round(time.time() - t0, 1),
                )
            )
            print(
                algo,
                s,
                'steps to threshold',
                hit,
                'final',
                round(runs[-1]['final_reward'], 3),
                f"{runs[-1]['seconds']} s",
                flush=True,
            )
        res['runs'][algo] = runs
    summary = {}
    for algo, runs in res['runs'].items():
        hits = [r['steps_to_threshold'] for r in runs]
        summary[algo] = dict(
            final_mean=float(np.mean([r['final_reward'] for r in runs])),
            final_std=float(np.std([r['final_reward'] for r in runs])),
            reached=sum(h is not None for h in hits),
            steps_to_threshold_median=float(np.median([h if h is not None else a.steps + 1 for h in hits])),
        )
    res['summary'] = summary
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    for algo, c in (('grpo', 'tab:blue'), ('ggpo', 'tab:orange')):
        curves = np.array([running_mean(r['rewards']) for r in res['runs'][algo]])
        for cv in curves: ax.plot(range(1, len(cv) + 1), cv, color=c, alpha=0.2)
        ax.plot(range(1, curves.shape[1] + 1), curves.mean(0), color=c, label=f"{algo} (mean of {len(curves)} seeds)")
    ax.axhline(a.threshold, color='grey', ls=':', lw=1)
    ax.set_xlabel('step')
    ax.set_ylabel('reward (10-step mean)')
    ax.legend()
    fig.tight_layout(); fig.savefig(out.with_suffix('.png'), dpi=110)
    print(json.dumps(summary, indent=1))

if __name__ == '__main__': main()
