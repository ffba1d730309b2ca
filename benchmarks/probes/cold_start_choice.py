"""Choose a cold-start recipe on the hand-written validation questions (data/qa_dev.json), never on the held-out sets.

    .venv/bin/python benchmarks/probes/cold_start_choice.py     # reads benchmarks/results/cold_start_dev/*/summary.json

Each folder under --runs is one `benchmarks/cold_start.py --choose_on_dev 1` run (a recipe and a seed). The rule,
written before the runs: the run that answers the most `dev` questions right wins; a tie goes to the higher `dev`
reward, then to the run that kept more demonstrations. Beside each run's counts it reports the paired difference in
right answers against the winner over the same questions, with a paired bootstrap 90 % interval (questions resampled),
so that a reader sees how much of a gap 67 questions can tell apart. Writes --runs/choice.json.
"""
import argparse, json
from pathlib import Path
import numpy as np


def paired_ci(diffs: np.ndarray, n: int = 4000, seed: int = 0) -> list[float]:
    "Paired bootstrap 90 % interval of the mean of per-question differences (questions resampled with replacement)."
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), (n, len(diffs)))].mean(1)
    return [round(float(np.quantile(means, 0.05)), 4), round(float(np.quantile(means, 0.95)), 4)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--runs', default='benchmarks/results/cold_start_dev')
    a = ap.parse_args()
    root, runs = Path(a.runs), {}
    for p in sorted(Path(a.runs).glob('*/summary.json')):
        s = json.loads(p.read_text())
        if 'dev' not in s.get('per_question', {}): print(f'{p}: no per-question dev results, left out'); continue
        runs[p.parent.name] = s
    if not runs: raise SystemExit(f'no run under {root} has per-question dev results')
    key = lambda k: (runs[k]['cold_start']['dev']['r_ans'], runs[k]['cold_start']['dev']['reward'],
                     runs[k]['kept']['demonstrations'])
    best = max(runs, key=key)
    uids = sorted(runs[best]['per_question']['dev'])
    table = {}
    for k, s in runs.items():
        dev, per = s['cold_start']['dev'], s['per_question']['dev']
        if sorted(per) != uids: raise SystemExit(f'{k}: its dev questions differ from {best}\'s')
        diffs = np.array([per[u] - runs[best]['per_question']['dev'][u] for u in uids])
        table[k] = dict(seed=s['settings']['seed'], cloze_share=s['settings'].get('cloze_share'),
                        kept=s['kept'], best_step=s['best_step'],
                        dev_right=int(round(sum(per.values()))), dev_n=len(per),
                        dev=dev, vs_chosen=dict(diff=round(float(diffs.mean()), 4), ci90=paired_ci(diffs),
                                                both_right=sum(per[u] > 0 and runs[best]['per_question']['dev'][u] > 0
                                                               for u in uids)),
                        heldout_right=s.get('heldout_right', {}).get('cold_start'))
        print(f"{k:>14}: seed {table[k]['seed']}, {s['kept']['demonstrations']} demonstrations "
              f"({s['kept']['cloze']} cloze), best step {s['best_step']}: dev {table[k]['dev_right']} of {len(per)} "
              f"right (reward {dev['reward']:.3f}, r_ret {dev['r_ret']:.3f}, crop rate {dev['crop_rate']:.2f}); "
              f"against {best}: {diffs.mean():+.3f} {paired_ci(diffs)}, "
              f"both right on {table[k]['vs_chosen']['both_right']}")
    out = dict(rule='most dev questions right, then dev reward, then more demonstrations kept', chosen=best,
               runs=table)
    (root/'choice.json').write_text(json.dumps(out, indent=1) + '\n')
    print('chosen:', best)


if __name__ == '__main__': main()
